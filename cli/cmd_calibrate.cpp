// brigade calibrate [--backend cpu|cuda] [--devices N] [--out PROFILE.yaml] [--json] [--quick]
// brigade calibrate --nccl-tests FILE --preset P [--devices N] [--kind K] [--nccl-version V]
//                   [--out PROFILE.yaml] [--json]
//
// Runs realexec's micro-benchmarks and writes the fitted HardwareProfile
// (core/profile.hpp, save_profile). Progress on stderr; a summary table (or,
// with --json, one JSON object) on stdout. With --nccl-tests it runs
// nothing: it fits NCCL's per-protocol figures to a collective measured
// elsewhere (nccl-tests' output) on one node of a preset and writes the
// presets' profile with that device's fitted table.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/profile.hpp"
#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "realexec/calibrate.hpp"
#include "realexec/nccl_tests_import.hpp"

namespace brigade::cli {
namespace {

struct CalibrateArgs {
  std::string backend = "cpu";
  std::string devices;  // "": the backend's default (cpu: 2, cuda: all GPUs)
  std::string out;
  bool json = false;
  bool quick = false;
  // --nccl-tests: fit a measured table instead of measuring.
  std::string nccl_tests, preset, kind, nccl_version;
  bool backend_given = false;
};

nlohmann::json fit_json(const realexec::LinearFit& f) {
  return {{"intercept", f.intercept},
          {"slope", f.slope},
          {"r_squared", f.r_squared},
          {"points", f.points}};
}

// The kind's own steps as written to the profile (LinkProfile::KindSteps).
nlohmann::json kind_steps_json(const realexec::CollectiveCalibration& cc) {
  if (cc.steps.empty()) return nullptr;
  nlohmann::json scale = nlohmann::json::array();
  for (const auto& [bytes, s] : cc.steps.bandwidth_scale.points)
    scale.push_back({{"bytes", bytes}, {"scale", s}});
  return {{"alpha_seconds", cc.steps.alpha_seconds},
          {"bandwidth_scale_fallback", cc.steps.bandwidth_scale.fallback},
          {"bandwidth_scale", scale},
          {"r_squared", cc.steps_fit.r_squared}};
}

nlohmann::json to_json(const realexec::Calibration& c, const std::string& out) {
  using nlohmann::json;
  json j;
  j["backend"] = c.backend;
  j["device_model"] = c.device_model;
  j["devices"] = c.devices;
  j["source"] = c.profile.source;
  j["wall_seconds"] = c.wall_seconds;
  j["launch_overhead_seconds"] = c.launch_overhead_seconds;
  if (c.host_issue_seconds > 0) j["host_issue_seconds"] = c.host_issue_seconds;
  j["gemm"] = json::array();
  for (const auto& g : c.gemm)
    j["gemm"].push_back(
        {{"dtype", std::string(dtype_name(g.dtype))},
         {"size", g.size},
         {"flops", g.flops},
         {"seconds", g.seconds},
         {"flops_per_second", g.flops_per_second},
         {"nominal_peak_flops_per_second",
          c.nominal_peak_flops_per_second[static_cast<size_t>(dtype_index(g.dtype))]},
         {"peak_flops_per_second",
          c.measured_peak_flops_per_second[static_cast<size_t>(dtype_index(g.dtype))]},
         {"efficiency", g.efficiency}});
  if (!c.fp8_split.empty()) {
    j["fp8_split_gemm"] = json::array();
    for (const auto& g : c.fp8_split)
      j["fp8_split_gemm"].push_back({{"dtype", "fp8"},
                                     {"size", g.size},
                                     {"flops", g.flops},
                                     {"seconds", g.seconds},
                                     {"flops_per_second", g.flops_per_second},
                                     {"efficiency", g.efficiency}});
    j["fp8_split_accumulator_efficiency"] = c.fp8_split_accumulator_efficiency;
  }
  if (!c.gemm_accumulate.empty()) {
    j["gemm_accumulate"] = json::array();
    for (const auto& a : c.gemm_accumulate)
      j["gemm_accumulate"].push_back({{"dtype", std::string(dtype_name(a.dtype))},
                                      {"m", a.m},
                                      {"n", a.n},
                                      {"k", a.k},
                                      {"plain_seconds", a.plain_seconds},
                                      {"extra_seconds", a.extra_seconds},
                                      {"extra_bytes", a.extra_bytes},
                                      {"exposed", a.exposed}});
    if (c.gemm_accumulate_exposed >= 0) j["gemm_accumulate_exposed"] = c.gemm_accumulate_exposed;
  }
  if (c.yardstick_size > 0)
    j["gemm_yardstick"] = {{"size", c.yardstick_size},
                           {"median_seconds", c.yardstick_seconds},
                           {"min_seconds", c.yardstick_min_seconds},
                           {"max_seconds", c.yardstick_max_seconds}};
  j["cold_gemm"] = json::array();
  for (const auto& g : c.cold_gemm)
    j["cold_gemm"].push_back({{"dtype", "f32"},
                              {"m", g.m},
                              {"n", g.n},
                              {"k", g.k},
                              {"bytes", g.bytes},
                              {"written_bytes", g.written_bytes},
                              {"square", g.square},
                              {"warm_over_square", g.warm_over_square},
                              {"warm_seconds", g.warm_seconds},
                              {"extra_seconds", g.extra_seconds},
                              {"curve_seconds", g.curve_seconds},
                              {"beyond_curve_seconds", g.beyond_curve_seconds()},
                              {"fitted_seconds", g.fitted_seconds}});
  j["gemm_shapes"] = json::array();
  for (const auto& g : c.gemm_shapes)
    j["gemm_shapes"].push_back({{"dtype", std::string(dtype_name(g.dtype))},
                                {"m", g.m},
                                {"n", g.n},
                                {"k", g.k},
                                {"seconds", g.seconds}});
  if (!c.gemm_shapes.empty())
    j["gemm_waves"] = {{"tile", {c.gemm_waves.tile_rows, c.gemm_waves.tile_cols}},
                       {"tile_flops_per_second", c.gemm_waves.tile_flops_per_second},
                       {"host_seconds", c.gemm_waves.host_seconds},
                       {"points", c.gemm_waves.points},
                       {"rms", c.gemm_waves.rms},
                       {"worst", c.gemm_waves.worst},
                       {"flat_rms", c.gemm_waves.flat_rms},
                       {"flat_worst", c.gemm_waves.flat_worst}};
  j["gemm_cold_operand_bandwidth_bytes_per_second"] = c.gemm_cold_operand_bandwidth_bytes_per_second;
  j["gemm_cold_output_bandwidth_bytes_per_second"] = c.gemm_cold_output_bandwidth_bytes_per_second;
  auto points = [](const std::vector<realexec::SizePoint>& ps) {
    json a = json::array();
    for (const auto& p : ps)
      a.push_back(
          {{"bytes", p.bytes}, {"seconds", p.seconds}, {"bytes_per_second", p.bytes_per_second}});
    return a;
  };
  j["memory"] = {
      {"peak_bytes_per_second", c.memory_peak_bytes_per_second},
      {"bandwidth_bytes_per_second", c.memory_bandwidth_bytes_per_second},
      {"efficiency", c.memory_efficiency},
      {"norm_bandwidth_bytes_per_second", c.norm_bandwidth_bytes_per_second},
      {"norm_efficiency", c.norm_efficiency},
      {"activation_bandwidth_bytes_per_second", c.activation_bandwidth_bytes_per_second},
      {"activation_efficiency", c.activation_efficiency},
      {"gated_bandwidth_bytes_per_second", c.gated_bandwidth_bytes_per_second},
      {"gated_efficiency", c.gated_efficiency},
      {"nominal_bandwidth_bytes_per_second", c.nominal_memory_bandwidth_bytes_per_second},
      {"fit", fit_json(c.memory.fit)},
      {"fit_bandwidth_bytes_per_second", c.memory.bandwidth_bytes_per_second},
      {"points", points(c.memory.points)}};
  j["links"] = json::array();
  for (const auto& l : c.links)
    j["links"].push_back(
        {{"class", std::string(link_class_name(l.link_class))},
         {"src", l.src},
         {"dst", l.dst},
         {"alpha_seconds", l.alpha_seconds},
         {"bandwidth_bytes_per_second", l.bandwidth_bytes_per_second},
         {"fit_bandwidth_bytes_per_second", l.transfer.bandwidth_bytes_per_second},
         {"nominal_bandwidth_bytes_per_second", l.nominal_bandwidth_bytes_per_second},
         {"fit", fit_json(l.transfer.fit)},
         {"points", points(l.transfer.points)}});
  j["collectives"] = json::array();
  for (const auto& cc : c.collectives) {
    json ps = json::array();
    for (const auto& p : cc.points)
      ps.push_back({{"bytes", p.bytes},
                    {"seconds", p.seconds},
                    {"alg_bandwidth", p.alg_bytes_per_second},
                    {"bus_bandwidth", p.bus_bytes_per_second},
                    {"model_seconds", p.model_seconds},
                    {"warm_seconds", p.warm_seconds},
                    {"warm_model_seconds", p.warm_model_seconds}});
    j["collectives"].push_back(
        {{"kind", std::string(collective_kind_name(cc.kind))},
         {"ranks", cc.ranks},
         {"alpha_seconds", cc.fit.intercept},
         {"beta_seconds_per_byte", cc.fit.slope},
         {"r_squared", cc.fit.r_squared},
         {"bus_bandwidth_factor", cost::bus_bandwidth_factor(cc.kind, cc.ranks)},
         {"steps", kind_steps_json(cc)},
         {"points", ps}});
  }
  if (!c.collectives.empty()) {
    const auto& sf = c.collective_step;
    j["collective_step"] = {{"overhead_seconds", sf.overhead_seconds},
                            {"alpha_seconds", sf.alpha_seconds},
                            {"bandwidth_bytes_per_second", sf.bandwidth_bytes_per_second},
                            {"reduce_bandwidth_bytes_per_second", sf.reduce_bandwidth_bytes_per_second},
                            {"r_squared", sf.fit.r_squared},
                            {"points", sf.fit.points}};
  }
  j["comm_compute_slowdown"] = c.comm_compute_slowdown;
  j["comm_compute_share"] = c.comm_compute_share;
  j["hardware_threads"] = c.hardware_threads;
  j["notes"] = c.notes;
  j["rejected_fits"] = c.rejected;
  j["interrupted"] = c.interrupted;
  j["not_measured"] = c.not_measured;
  j["profile"] = out.empty() ? json(nullptr) : json(out);
  return j;
}

std::string percent_of(double model, double measured) {
  return measured > 0 && model > 0 ? fmt::format("{:+.0f}%", 100.0 * (model - measured) / measured)
                                   : "-";
}

void print_table(const realexec::Calibration& c, const std::string& out) {
  std::cout << fmt::format("Calibration: {} backend, {} x {}, {:.1f} s\n", c.backend, c.devices,
                           c.device_model, c.wall_seconds);
  std::cout << c.profile.source << "\n\n";
  std::cout << "GEMM on every device at once (rate = FLOP / (time - launch); efficiency = rate / "
               "the dtype's peak,\nthe best rate measured, which the profile records)\n";
  std::cout << fmt::format("  {:<6} {:>6} {:>14} {:>12} {:>11}\n", "dtype", "size", "rate",
                           "per GEMM", "efficiency");
  for (const auto& g : c.gemm)
    std::cout << fmt::format("  {:<6} {:>6} {:>14} {:>12} {:>11.3f}\n", dtype_name(g.dtype), g.size,
                             format_flops_rate(g.flops_per_second), format_seconds(g.seconds),
                             g.efficiency);
  for (int i = 0; i < kNumDTypes; ++i)
    if (c.measured_peak_flops_per_second[static_cast<size_t>(i)] > 0 &&
        std::any_of(c.gemm.begin(), c.gemm.end(),
                    [&](const realexec::GemmPoint& g) { return dtype_index(g.dtype) == i; }))
      std::cout << fmt::format(
          "  peak {}: {} (data sheet {})\n", dtype_name(static_cast<DType>(i)),
          format_flops_rate(c.measured_peak_flops_per_second[static_cast<size_t>(i)]),
          c.nominal_peak_flops_per_second[static_cast<size_t>(i)] > 0
              ? format_flops_rate(c.nominal_peak_flops_per_second[static_cast<size_t>(i)])
              : std::string("unknown"));
  if (!c.fp8_split.empty()) {
    std::cout << "  fp8 again with cuBLASLt's fast accumulation off (Transformer Engine's gradient "
                 "GEMMs):\n";
    for (const auto& g : c.fp8_split)
      std::cout << fmt::format("  {:<6} {:>6} {:>14} {:>12} {:>11.3f}\n", "fp8/s", g.size,
                               format_flops_rate(g.flops_per_second), format_seconds(g.seconds),
                               g.efficiency);
    std::cout << (c.fp8_split_accumulator_efficiency > 0
                      ? fmt::format("  split / fast: {:.3f} (the median over the sizes; the "
                                    "profile's fp8_split_accumulator_efficiency)\n",
                                    c.fp8_split_accumulator_efficiency)
                      : std::string("  split / fast: not measured\n"));
  }
  if (!c.gemm_accumulate.empty()) {
    std::cout
        << "  weight-gradient GEMMs adding into an FP32 buffer (fused gradient accumulation), "
           "against the same GEMM writing a fresh 16-bit output:\n";
    for (const auto& a : c.gemm_accumulate)
      std::cout << fmt::format(
          "  {:<6} {:>17} {:>12} {:>12} exposed {:.3f}\n",
          a.dtype == DType::kFP8 ? "fp8/s" : dtype_name(a.dtype),
          fmt::format("{}x{}x{}", a.m, a.n, a.k), format_seconds(a.plain_seconds),
          (a.extra_seconds >= 0 ? "+" : "") + format_seconds(a.extra_seconds), a.exposed);
    std::cout << (c.gemm_accumulate_exposed >= 0
                      ? fmt::format("  exposed: {:.3f} (the median over the shapes; the profile's "
                                    "gemm_accumulate_exposed)\n",
                                    c.gemm_accumulate_exposed)
                      : std::string("  exposed: not measured\n"));
  }
  if (c.yardstick_size > 0)
    std::cout << fmt::format(
        "  each size against a yardstick run right before it (f32 {}^3): {} to {} per GEMM over the "
        "runs;\n  every size at the median's pace, {}\n",
        c.yardstick_size, format_seconds(c.yardstick_min_seconds),
        format_seconds(c.yardstick_max_seconds), format_seconds(c.yardstick_seconds));
  if (!c.gemm_shapes.empty()) {
    std::cout << "GEMMs by shape (the wave model's sweep, per GEMM with its launch):\n";
    for (const auto& g : c.gemm_shapes)
      std::cout << fmt::format("  {:<6} {:>18} {:>10} {:>12}\n", dtype_name(g.dtype),
                               fmt::format("{}x{}x{}", g.m, g.n, g.k), format_seconds(g.seconds),
                               g.seconds > 0 ? format_flops_rate(gemm_flops(g.m, g.n, g.k) / g.seconds)
                                             : std::string("-"));
    const auto& w = c.gemm_waves;
    if (w.tile_rows > 0)
      std::cout << fmt::format(
          "  waves of {} x {} tiles explain them at {} a tile slot and {} a call, within {:.1f}% "
          "(the FLOPs alone: {:.1f}%): the profile's gemm_wave_tile\n",
          w.tile_rows, w.tile_cols, format_flops_rate(w.tile_flops_per_second),
          format_seconds(w.host_seconds), 100 * w.worst, 100 * w.flat_worst);
    else
      std::cout << fmt::format(
          "  no tile's waves explain them better than their FLOPs ({} points, RMS {:.1f}% against "
          "{:.1f}%): no wave model\n",
          w.points, 100 * w.rms, 100 * w.flat_rms);
  }
  if (!c.cold_gemm.empty()) {
    std::cout << "GEMMs that stream a weight, in triples: after a 64 MiB copy (cold), again (warm), "
                 "then a square\nof its FLOPs; medians. warm: at the squares' curve's pace (warm / "
                 "square x the curve's square).\nWhat the cold run takes beyond the curve is the "
                 "cold-operand term's share\n";
    std::cout << fmt::format("  {:<15} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}\n",
                             "f32 m x n x k", "operands", "written", "curve", "warm", "cold",
                             "beyond", "operands /", "fitted");
    std::cout << fmt::format("  {:<15} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}\n",
                             "", "", "", "", "", "- warm", "curve", "beyond", "");
    for (const auto& g : c.cold_gemm) {
      const double beyond = g.beyond_curve_seconds();
      std::cout << fmt::format("  {:<15} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}\n",
                               fmt::format("{}x{}x{}", g.m, g.n, g.k), format_bytes(g.bytes),
                               format_bytes(g.written_bytes), format_seconds(g.curve_seconds),
                               format_seconds(g.warm_seconds), format_seconds(g.extra_seconds),
                               format_seconds(beyond),
                               beyond > 0 ? format_bandwidth(g.bytes / beyond) : std::string("-"),
                               format_seconds(g.fitted_seconds));
    }
    if (c.gemm_cold_output_bandwidth_bytes_per_second > 0)
      std::cout << fmt::format(
          "  a GEMM also takes the operands it reads at {} and its output at {} (the least-squares "
          "plane through the origin of beyond against bytes read and written)\n",
          format_bandwidth(c.gemm_cold_operand_bandwidth_bytes_per_second),
          format_bandwidth(c.gemm_cold_output_bandwidth_bytes_per_second));
    else if (c.gemm_cold_operand_bandwidth_bytes_per_second > 0)
      std::cout << fmt::format(
          "  a GEMM also takes its operand bytes at {} (the least-squares line through the origin "
          "of beyond against operands: reads and writes not told apart)\n",
          format_bandwidth(c.gemm_cold_operand_bandwidth_bytes_per_second));
  }
  std::cout << fmt::format("\nLaunch overhead: {} per kernel",
                           format_seconds(c.launch_overhead_seconds));
  if (c.host_issue_seconds > 0)
    std::cout << fmt::format(" (behind a GEMM; onto an idle GPU the host enqueues one task per {})",
                             format_seconds(c.host_issue_seconds));
  std::cout << "\n";
  std::cout << "Streaming kernels on every device at once (rate = bytes / (time - launch)):\n";
  for (const auto& p : c.memory.points)
    std::cout << fmt::format("  {:>10} {:>12} {:>14}\n", format_bytes(p.bytes),
                             format_seconds(p.seconds), format_bandwidth(p.bytes_per_second));
  std::cout << fmt::format(
      "  peak {} (the best size; data sheet {}); all sizes together {} = efficiency {:.3f}\n"
      "  (line fit: {}, intercept {}, R² {:.4f})\n",
      format_bandwidth(c.memory_peak_bytes_per_second),
      format_bandwidth(c.nominal_memory_bandwidth_bytes_per_second),
      format_bandwidth(c.memory_bandwidth_bytes_per_second), c.memory_efficiency,
      format_bandwidth(c.memory.bandwidth_bytes_per_second), format_seconds(c.memory.alpha_seconds),
      c.memory.fit.r_squared);
  if (c.norm_bandwidth_bytes_per_second > 0 || c.activation_bandwidth_bytes_per_second > 0 ||
      c.gated_bandwidth_bytes_per_second > 0)
    std::cout << fmt::format(
        "  the same sizes as a LayerNorm (rows of 4096) {} = efficiency {:.3f}, as a tanh GeLU {} "
        "= efficiency {:.3f}, as a SwiGLU {} = efficiency {:.3f} (the profile's norm, activation "
        "and gated activation efficiencies)\n",
        format_bandwidth(c.norm_bandwidth_bytes_per_second), c.norm_efficiency,
        format_bandwidth(c.activation_bandwidth_bytes_per_second), c.activation_efficiency,
        format_bandwidth(c.gated_bandwidth_bytes_per_second), c.gated_efficiency);
  for (const auto& l : c.links) {
    std::cout << fmt::format(
        "Transfers ({}, device {} -> {}): alpha {}, all sizes together {} (data sheet {})\n"
        "  (line fit: {}, intercept {}, R² {:.4f})\n",
        link_class_name(l.link_class), l.src, l.dst, format_seconds(l.alpha_seconds),
        format_bandwidth(l.bandwidth_bytes_per_second),
        format_bandwidth(l.nominal_bandwidth_bytes_per_second),
        format_bandwidth(l.transfer.bandwidth_bytes_per_second),
        format_seconds(l.transfer.alpha_seconds), l.transfer.fit.r_squared);
    for (const auto& p : l.transfer.points)
      std::cout << fmt::format("  {:>10} {:>12} {:>14}\n", format_bytes(p.bytes),
                               format_seconds(p.seconds), format_bandwidth(p.bytes_per_second));
  }
  if (!c.collectives.empty()) {
    const bool warm = c.collectives.front().points.empty()
                          ? false
                          : c.collectives.front().points.front().warm_seconds > 0;
    std::cout << fmt::format(
        "\nCollectives over {} ranks: T = a + b M fitted; algBw = M / T, busBw = algBw x factor "
        "(nccl-tests);\nmodel = what the judges predict with this profile{}\n",
        c.collectives.front().ranks,
        warm ? "; warm = back to back, buffers in cache (the others after a kernel and an "
               "eviction copy)"
             : "");
    std::cout << fmt::format("  {:<14} {:>10} {:>12} {:>8}   {:>10} {:>10} {:>12} {:>12} {:>10} {:>6}{}\n",
                             "kind", "a", "1/b", "R²", "size", "time", "algBw", "busBw", "model",
                             "error", warm ? fmt::format(" {:>10} {:>10} {:>6}", "warm", "model", "error") : "");
    for (const auto& cc : c.collectives) {
      for (size_t i = 0; i < cc.points.size(); ++i) {
        const auto& p = cc.points[i];
        if (i == 0)
          std::cout << fmt::format("  {:<14} {:>10} {:>12} {:>8.4f}", collective_kind_name(cc.kind),
                                   format_seconds(cc.fit.intercept),
                                   cc.fit.slope > 0 ? format_bandwidth(1.0 / cc.fit.slope) : "-",
                                   cc.fit.r_squared);
        else
          std::cout << fmt::format("  {:<14} {:>10} {:>12} {:>8}", "", "", "", "");
        std::cout << fmt::format(
            "   {:>10} {:>10} {:>12} {:>12} {:>10} {:>6}{}\n", format_bytes(p.bytes),
            format_seconds(p.seconds), format_bandwidth(p.alg_bytes_per_second),
            format_bandwidth(p.bus_bytes_per_second),
            p.model_seconds > 0 ? format_seconds(p.model_seconds) : "-",
            percent_of(p.model_seconds, p.seconds),
            p.warm_seconds > 0
                ? fmt::format(" {:>10} {:>10} {:>6}", format_seconds(p.warm_seconds),
                              p.warm_model_seconds > 0 ? format_seconds(p.warm_model_seconds) : "-",
                              percent_of(p.warm_model_seconds, p.warm_seconds))
                : "");
      }
    }
    const auto& sf = c.collective_step;
    auto bw = [](double b) { return b > 0 ? format_bandwidth(b) : std::string("-"); };
    std::cout << fmt::format(
        "Collective steps (allreduce, allgather, reducescatter, alltoall fitted together:\n"
        "T = overhead + steps x alpha + copied / B + reduced / B_r, per rank): overhead {}, alpha {}, "
        "B {}, B_r {}, R² {:.4f}\n",
        format_seconds(sf.overhead_seconds), format_seconds(sf.alpha_seconds),
        bw(sf.bandwidth_bytes_per_second), bw(sf.reduce_bandwidth_bytes_per_second),
        sf.fit.r_squared);
    std::cout << "Each kind's own steps (the profile's collective_kinds; scale multiplies B and "
                 "B_r at size M):\n";
    for (const auto& cc : c.collectives) {
      if (cc.steps.empty()) continue;
      std::string scales;
      for (const auto& [bytes, sc] : cc.steps.bandwidth_scale.points)
        scales += fmt::format(" {}:{:.2f}", format_bytes(bytes), sc);
      if (scales.empty()) scales = fmt::format(" {:.2f} at every size", cc.steps.bandwidth_scale.fallback);
      std::cout << fmt::format("  {:<14} alpha {:>9}, scale{}\n", collective_kind_name(cc.kind),
                               format_seconds(cc.steps.alpha_seconds), scales);
    }
    std::cout << fmt::format("\nCompute under communication: {:.1f}% slower\n",
                             100.0 * c.comm_compute_slowdown);
    if (c.hardware_threads > 0)
      std::cout << fmt::format(
          "Communication's share of a computing core: {:.2f} ({} devices on {} usable CPUs: {})\n",
          c.comm_compute_share, c.devices, c.hardware_threads,
          c.comm_compute_share > 0 ? "a device computes and communicates on one core"
                                   : "each device has a core for its communication");
  }
  for (const std::string& n : c.notes) std::cout << "note: " << n << "\n";
  for (const std::string& r : c.rejected) std::cout << "rejected: " << r << "\n";
  if (!out.empty())
    std::cout << (c.interrupted ? "Profile of what was measured before the interrupt written to "
                                : "Profile written to ")
              << out << "\n";
}

// SIGINT stops the measurements: the benchmark running finishes, the profile
// is fitted from what is done and written (atomically, with --out), and the
// command exits 130 saying so. A second SIGINT ends the process at once.
std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
}

void run_calibrate(const CalibrateArgs& a) {
  const auto backend =
      realexec::parse_backend(parse_choice_flag("--backend", a.backend, {"cpu", "cuda"}));
  const int devices = a.devices.empty() ? 0 : parse_int_flag("--devices", a.devices, 1);
  if (*backend == realexec::Backend::kCuda) {
    std::string why;
    if (!realexec::cuda_device_available(&why))
      throw RuntimeFailure{"brigade: error: --backend cuda: " + why};  // the machine's lack: exit 1
  }
  realexec::CalibrateOptions o;
  o.quick = a.quick;
  o.interrupted = &g_interrupted;
  g_interrupted.store(false);
  std::signal(SIGINT, on_sigint);
  o.devices = devices > 0 ? devices : (*backend == realexec::Backend::kCpu ? 2 : 0);
  if (*backend == realexec::Backend::kCpu) {
    const size_t cores = realexec::usable_cpus().size();
    if (cores > 0 && static_cast<size_t>(o.devices) > cores)
      std::cerr << "brigade: warning: " << o.devices << " devices on " << cores
                << " CPUs this process may use: devices share cores, so the figures include "
                   "time-slicing\n";
  }
  auto cal = realexec::calibrate(*backend, o, [](const std::string& what, int done, int total) {
    std::cerr << fmt::format("calibrate [{}/{}] {}\n", done + 1, total, what);
  });
  std::signal(SIGINT, SIG_DFL);
  if (!cal.is_ok()) throw_status(cal.status());
  // Fits the measurements contradict were not written: say which, on stderr too.
  for (const std::string& r : cal->rejected)
    std::cerr << "brigade: warning: calibrate: " << r << "\n";
  if (!a.out.empty()) {
    const Status st = save_profile(cal->profile, a.out);
    if (!st.is_ok()) throw RuntimeFailure{"brigade: error: --out: " + st.message()};
  }
  if (a.json)
    std::cout << to_json(*cal, a.out).dump(2) << "\n";
  else
    print_table(*cal, a.out);
  if (cal->interrupted) {
    std::string missing;
    for (const std::string& m : cal->not_measured) missing += (missing.empty() ? "" : ", ") + m;
    std::cerr << "brigade: calibrate interrupted: "
              << (a.out.empty() ? std::string("no --out, nothing written")
                                : "wrote what was measured to " + a.out)
              << "; not measured (the data sheet's values kept): " << missing << "\n";
    std::cout.flush();
    std::_Exit(130);
  }
}

// --nccl-tests: NCCL's ring protocols fitted to a measured table.
void run_calibrate_nccl_tests(const CalibrateArgs& a) {
  if (a.preset.empty())
    throw_flag_error("--nccl-tests", a.nccl_tests,
                     "it with --preset, the node the table was measured on (dgx-a100, "
                     "dgx-h100, ...)");
  if (a.backend_given || a.quick)
    throw_flag_error(a.quick ? "--quick" : "--backend", a.quick ? "" : a.backend,
                     "no measurement flag with --nccl-tests (it fits a table, it runs nothing)");
  const std::string kind_name = parse_choice_flag(
      "--kind", a.kind.empty() ? "allreduce" : a.kind, {"allreduce", "allgather", "reducescatter"});
  const CollectiveKind kind = *parse_collective_kind(kind_name);
  const NcclVersion version = a.nccl_version.empty()
                                  ? kDefaultNcclVersion
                                  : parse_nccl_version_flag("--nccl-version", a.nccl_version);
  auto preset = make_preset(parse_choice_flag("--preset", a.preset, preset_names()), 1);
  if (!preset.is_ok()) throw_status(preset.status());
  const int node_gpus = preset->num_devices();
  const int ranks = a.devices.empty() ? node_gpus : parse_int_flag("--devices", a.devices, 2);
  auto points = read_nccl_tests(a.nccl_tests);
  if (!points.is_ok()) throw_status(points.status());
  auto fitted = realexec::fit_nccl_tests(a.preset, ranks, kind, version, *points);
  if (!fitted.is_ok())
    throw BadInput{"brigade: error: --nccl-tests " + a.nccl_tests + ": " +
                   fitted.status().message()};
  const realexec::NcclTestsFit& f = *fitted;
  HardwareProfile profile = f.profile;
  profile.name = "nccl-tests";
  profile.source = fmt::format("NCCL's ring protocols fitted to {} ({} on {} GPUs of one {} "
                               "node); the rest the presets' data-sheet defaults",
                               a.nccl_tests, kind_name, ranks, a.preset);
  // Each measured size against the fitted table, the ring as fitted.
  const Topology& topo = *preset;
  std::vector<int> group;
  for (int d = 0; d < ranks; ++d) group.push_back(d);
  const double bus_factor = cost::bus_bandwidth_factor(kind, ranks);
  nlohmann::json sizes = nlohmann::json::array();
  std::string rows;
  for (const realexec::NcclSizePoint& p : *points) {
    auto c = cost::nccl_collective(topo, profile, kind, CollectiveAlgorithm::kRing, group, p.bytes);
    if (!c.is_ok()) throw_status(c.status());
    const double model = (*c)->chosen.seconds + f.group.launch_overhead_seconds;
    const double err = model / p.seconds - 1;
    // The measured points go into the profile as calibrate's own would, so
    // the app's calibration view plots them against the fitted table.
    profile.calibration.collectives.push_back(
        {.kind = kind, .ranks = ranks, .bytes = p.bytes, .seconds = p.seconds, .model_seconds = model});
    sizes.push_back({{"bytes", p.bytes},
                     {"measured_seconds", p.seconds},
                     {"fitted_seconds", model},
                     {"protocol", nccl_protocol_name((*c)->chosen.protocol)},
                     {"error", err}});
    rows += fmt::format("  {:>10}  {:>10}  {:>10}  {:>10}  {:>7}  {:+6.1f}%\n",
                        format_bytes(p.bytes), format_seconds(p.seconds),
                        format_bandwidth(p.bytes / p.seconds * bus_factor),
                        format_bandwidth(p.bytes / model * bus_factor),
                        nccl_protocol_name((*c)->chosen.protocol), 100 * err);
  }
  if (!a.out.empty()) {
    const Status st = save_profile(profile, a.out);
    if (!st.is_ok()) throw RuntimeFailure{"brigade: error: --out: " + st.message()};
  }
  if (a.json) {
    nlohmann::json lines = nlohmann::json::array();
    for (const realexec::NcclProtocolLine& l : f.fit.lines)
      lines.push_back({{"protocol", nccl_protocol_name(l.protocol)},
                       {"latency_seconds", l.latency_seconds},
                       {"alg_bandwidth", l.alg_bandwidth_bytes_per_second},
                       {"bus_bandwidth", l.bus_bandwidth_bytes_per_second},
                       {"min_bytes", l.min_bytes},
                       {"max_bytes", l.max_bytes},
                       {"points", l.points}});
    nlohmann::json j = {{"nccl_tests", a.nccl_tests},   {"preset", a.preset},
                        {"device_model", f.device_model}, {"kind", kind_name},
                        {"ranks", ranks},                 {"nccl_version", nccl_version_name(version)},
                        {"lines", lines},                 {"r_squared", f.fit.r_squared},
                        {"worst_miss", f.fit.worst_miss}, {"sizes", sizes},
                        {"out", a.out.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.out)}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("NCCL's ring protocols fitted to {}: {} on {} GPUs of one {} node ({}), "
                           "NCCL {}'s structure\n",
                           a.nccl_tests, kind_name, ranks, a.preset, f.device_model,
                           nccl_version_name(version));
  for (const realexec::NcclProtocolLine& l : f.fit.lines)
    std::cout << fmt::format("  {:<7} latency {:>9}  busBw {:>10}  ({} .. {}, {} sizes)\n",
                             nccl_protocol_name(l.protocol), format_seconds(l.latency_seconds),
                             format_bandwidth(l.bus_bandwidth_bytes_per_second),
                             format_bytes(l.min_bytes), format_bytes(l.max_bytes), l.points);
  std::cout << fmt::format("  R² {:.3f}, worst miss {:+.1f}%\n\n", f.fit.r_squared,
                           100 * f.fit.worst_miss);
  std::cout << fmt::format("  {:>10}  {:>10}  {:>10}  {:>10}  {:>7}  {:>7}\n", "size",
                           "time", "busBw", "fitted", "choice", "error")
            << rows;
  if (!a.out.empty())
    std::cout << "\nProfile written to " << a.out
              << " (--profile FILE, or a scenario's profile: key)\n";
}

const RegisterVerb kRegister("calibrate", 60, [](CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure this machine (GEMM efficiency, memory bandwidth, launch overhead, transfer and\n"
      "collective alpha/beta) with a real executor and write a hardware profile.");
  cmd->add_option("--backend", args->backend,
                  "cpu (host threads as devices) or cuda (default: cpu)");
  cmd->add_option("--devices", args->devices,
                  "devices to measure between (cpu: host-thread devices, default 2; cuda: GPUs, "
                  "default all)");
  cmd->add_option("--out", args->out, "write the profile here (YAML; see docs/scenario-format.md)")
      ->check(output_path_check());
  cmd->add_flag("--json", args->json, "print one JSON object instead of tables");
  cmd->add_flag("--quick", args->quick, "tiny sizes: a smoke test in seconds, not figures");
  cmd->add_option("--nccl-tests", args->nccl_tests,
                  "measure nothing: fit NCCL's ring protocols to this nccl-tests output (or "
                  "size_bytes time_us algbw busbw rows) measured on one node of --preset")
      ->check(input_path_check());
  cmd->add_option("--preset", args->preset,
                  "with --nccl-tests: the node it was measured on (dgx-a100, dgx-h100, ...)");
  cmd->add_option("--kind", args->kind,
                  "with --nccl-tests: allreduce (default), allgather or reducescatter");
  cmd->add_option("--nccl-version", args->nccl_version,
                  "with --nccl-tests: the NCCL release whose structure the fit keeps, 2.24 or "
                  "2.29 (default 2.29)");
  cmd->callback([args, cmd] {
    args->backend_given = cmd->count("--backend") > 0;
    if (!args->nccl_tests.empty()) {
      run_calibrate_nccl_tests(*args);
      return;
    }
    for (const char* flag : {"--preset", "--kind", "--nccl-version"})
      if (cmd->count(flag) > 0)
        throw_flag_error(flag, cmd->get_option(flag)->as<std::string>(),
                         "it only with --nccl-tests");
    run_calibrate(*args);
  });
});

}  // namespace
}  // namespace brigade::cli
