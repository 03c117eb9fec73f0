#include "costmodel/plan_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "costmodel/scaling.hpp"

namespace brigade::cost {
namespace {

// JSON has no infinity: non-finite numbers become null.
nlohmann::json num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

bool same_memory(const DeviceMemoryEstimate& a, const DeviceMemoryEstimate& b) {
  return a.stage == b.stage && a.params_bytes == b.params_bytes && a.grads_bytes == b.grads_bytes &&
         a.optimizer_bytes == b.optimizer_bytes && a.activations_bytes == b.activations_bytes &&
         a.other_bytes == b.other_bytes && a.capacity_bytes == b.capacity_bytes;
}

std::string percent(double part, double whole) {
  return whole > 0 ? fmt::format("{:5.1f}%", 100 * part / whole) : std::string("     -");
}

}  // namespace

nlohmann::json plan_estimate_json(const PlanEstimate& e) {
  nlohmann::json j;
  j["name"] = e.name;
  j["model_kind"] = e.model_kind;
  j["devices"] = e.devices;
  j["step_seconds"] = num(e.step_seconds);
  j["compute_seconds"] = num(e.compute_seconds);
  j["bubble_seconds"] = num(e.bubble_seconds);
  if (e.host_wait_seconds > 0) j["host_wait_seconds"] = num(e.host_wait_seconds);
  j["exposed_communication_seconds"] = num(e.exposed_communication_seconds);
  j["optimizer_seconds"] = num(e.optimizer_seconds);
  nlohmann::json comm = nlohmann::json::array();
  for (const CommunicationEstimate& c : e.communication)
    comm.push_back({{"purpose", c.purpose},
                    {"kind", c.kind},
                    {"group_size", c.group_size},
                    {"count", num(c.count)},
                    {"bytes", num(c.bytes)},
                    {"seconds", num(c.seconds)},
                    {"exposed_seconds", num(c.exposed_seconds)}});
  j["communication"] = comm;
  nlohmann::json per = nlohmann::json::array();
  double peak = 0;
  bool fits = true;
  for (const DeviceMemoryEstimate& m : e.memory) {
    per.push_back({{"device", m.device},
                   {"stage", m.stage},
                   {"params_bytes", num(m.params_bytes)},
                   {"grads_bytes", num(m.grads_bytes)},
                   {"optimizer_bytes", num(m.optimizer_bytes)},
                   {"activations_bytes", num(m.activations_bytes)},
                   {"other_bytes", num(m.other_bytes)},
                   {"peak_bytes", num(m.peak_bytes)},
                   {"capacity_bytes", num(m.capacity_bytes)},
                   {"fits", m.fits}});
    peak = std::max(peak, m.peak_bytes);
    fits = fits && m.fits;
  }
  j["memory"] = {{"peak_bytes", num(peak)}, {"fits", fits}, {"per_device", per}};
  j["parameters"] = num(e.parameters);
  j["model_flops_per_iteration"] = num(e.model_flops_per_iteration);
  j["hardware_flops_per_iteration"] = num(e.hardware_flops_per_iteration);
  j["model_flops_per_second_per_device"] = num(e.model_flops_per_second_per_device);
  j["hardware_flops_per_second_per_device"] = num(e.achieved_flops_per_second_per_device);
  j["mfu"] = num(e.mfu);
  j["hfu"] = num(e.hfu);
  j["streaming_bytes_per_second"] = num(e.streaming_bytes_per_second);
  nlohmann::json rows = nlohmann::json::array();
  for (const AmdahlRow& r : e.amdahl)
    rows.push_back({{"devices", r.devices}, {"speedup", num(r.speedup)}, {"efficiency", num(r.efficiency)}});
  j["amdahl"] = {{"p", e.amdahl.empty() ? nlohmann::json() : num(e.amdahl_p)},
                 {"r_squared", e.amdahl.empty() ? nlohmann::json() : num(e.amdahl_r_squared)},
                 {"rows", rows}};
  if (!e.amdahl_note.empty()) j["amdahl"]["note"] = e.amdahl_note;
  if (e.placement) {
    const PlacementCost& p = *e.placement;
    j["placement"] = {{"seed_cost_seconds", num(p.seed_cost_seconds)},
                      {"cost_with_alpha_seconds", num(p.cost_with_alpha_seconds)},
                      {"critical_path_seconds", num(p.critical_path_seconds)},
                      {"compute_seconds", num(p.compute_seconds)},
                      {"transfer_seconds", num(p.transfer_seconds)},
                      {"transfer_with_alpha_seconds", num(p.transfer_with_alpha_seconds)},
                      {"crossing_edges", p.crossing_edges},
                      {"crossing_bytes", num(p.crossing_bytes)}};
  }
  j["notes"] = e.notes;
  return j;
}

std::string plan_estimate_text(const PlanEstimate& e) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line(fmt::format("{} ({}, {} device{})", e.name.empty() ? "plan" : e.name, e.model_kind, e.devices,
                   e.devices == 1 ? "" : "s"));
  line("");
  line(fmt::format("  step time               {:>12}", format_seconds(e.step_seconds)));
  line(fmt::format("    compute               {:>12}  {}", format_seconds(e.compute_seconds),
                   percent(e.compute_seconds, e.step_seconds)));
  line(fmt::format("    exposed communication {:>12}  {}", format_seconds(e.exposed_communication_seconds),
                   percent(e.exposed_communication_seconds, e.step_seconds)));
  // The reported device's idle time: a pipeline's fill and drain, or (other
  // models) waiting for data or a collective's slowest rank.
  if (e.bubble_seconds > 1e-9 * e.step_seconds)
    line(fmt::format("    {:<21} {:>12}  {}",
                     e.model_kind == "transformer" ? "pipeline bubble" : "waiting for others",
                     format_seconds(e.bubble_seconds), percent(e.bubble_seconds, e.step_seconds)));
  if (e.host_wait_seconds > 1e-9 * e.step_seconds)
    line(fmt::format("    waiting for the host  {:>12}  {}", format_seconds(e.host_wait_seconds),
                     percent(e.host_wait_seconds, e.step_seconds)));
  if (e.optimizer_seconds > 1e-9 * e.step_seconds)
    line(fmt::format("    optimizer step        {:>12}  {}", format_seconds(e.optimizer_seconds),
                     percent(e.optimizer_seconds, e.step_seconds)));
  if (e.placement) {
    const PlacementCost& p = *e.placement;
    line("");
    line(fmt::format("  Cost(P), the seed's sum  {:>12}  (compute {} + transfers size/B {})",
                     format_seconds(p.seed_cost_seconds), format_seconds(p.compute_seconds),
                     format_seconds(p.transfer_seconds)));
    line(fmt::format("  Cost(P) with alpha       {:>12}", format_seconds(p.cost_with_alpha_seconds)));
    line(fmt::format("  critical path            {:>12}  ({} crossing edge{}, {})",
                     format_seconds(p.critical_path_seconds), p.crossing_edges,
                     p.crossing_edges == 1 ? "" : "s", format_bytes(p.crossing_bytes)));
  }
  if (!e.communication.empty()) {
    line("");
    line(fmt::format("  {:<14} {:<14} {:>6} {:>8} {:>11} {:>11} {:>11}", "communication", "kind",
                     "ranks", "calls", "bytes", "time", "exposed"));
    for (const CommunicationEstimate& c : e.communication)
      line(fmt::format("  {:<14} {:<14} {:>6} {:>8} {:>11} {:>11} {:>11}", c.purpose, c.kind, c.group_size,
                       fmt::format("{:g}", c.count), format_bytes(c.bytes), format_seconds(c.seconds),
                       format_seconds(c.exposed_seconds)));
  }
  if (!e.memory.empty()) {
    line("");
    line(fmt::format("  {:<17} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {}", "memory", "stage",
                     "params", "grads", "optimizer", "activation", "peak", "capacity", "fits"));
    size_t i = 0;
    while (i < e.memory.size()) {
      size_t k = i;
      while (k + 1 < e.memory.size() && same_memory(e.memory[i], e.memory[k + 1]) &&
             e.memory[k + 1].device == e.memory[k].device + 1)
        ++k;
      const DeviceMemoryEstimate& m = e.memory[i];
      const std::string devs = k == i ? fmt::format("device {}", m.device)
                                      : fmt::format("devices {}-{}", m.device, e.memory[k].device);
      line(fmt::format("  {:<17} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {}", devs, m.stage,
                       format_bytes(m.params_bytes), format_bytes(m.grads_bytes),
                       format_bytes(m.optimizer_bytes), format_bytes(m.activations_bytes + m.other_bytes),
                       format_bytes(m.peak_bytes), format_bytes(m.capacity_bytes), m.fits ? "yes" : "NO"));
      i = k + 1;
    }
  }
  if (e.parameters > 0 || e.model_flops_per_iteration > 0) {
    line("");
    line(fmt::format("  parameters {}; per step {} model FLOPs (the work), {} hardware FLOPs "
                     "(with recomputation)",
                     format_count(e.parameters), format_flops(e.model_flops_per_iteration),
                     format_flops(e.hardware_flops_per_iteration)));
    line(fmt::format("  per device: model FLOPs {} (MFU {:.1f}%), hardware FLOPs {} (HFU {:.1f}%)",
                     format_flops_rate(e.model_flops_per_second_per_device), 100 * e.mfu,
                     format_flops_rate(e.achieved_flops_per_second_per_device), 100 * e.hfu));
    // MFU and HFU are taken against the peak of the model's dtype; FP8
    // GEMMs run up to twice it, so an FP8 plan can pass 100%.
    if (e.hfu > 1)
      line("  (above 100%: MFU and HFU are against the peak of the model's dtype, which FP8 "
           "GEMMs exceed)");
  }
  if (!e.amdahl.empty()) {
    line("");
    // The closed form at each device count (the data degree scaled, as `brigade
    // sweep --devices` does) and Amdahl's p fitted to the speedups.
    std::string counts;
    for (const AmdahlRow& r : e.amdahl) counts += (counts.empty() ? "" : ",") + std::to_string(r.devices);
    line(fmt::format("  Amdahl through this plan: p = {:.4f} (R^2 = {:.4f}), fitted to the closed "
                     "form at each N (brigade sweep --devices {})",
                     e.amdahl_p, e.amdahl_r_squared, counts));
    std::string ns = "    N         ", ss = "    speedup   ", fs = "    Amdahl(p) ";
    for (const AmdahlRow& r : e.amdahl) {
      ns += fmt::format("{:>8}", r.devices);
      ss += r.speedup > 0 ? fmt::format("{:>8.2f}", r.speedup) : fmt::format("{:>8}", "-");
      fs += fmt::format("{:>8.2f}",
                        amdahl_speedup(e.amdahl_p, static_cast<double>(r.devices) / e.amdahl.front().devices));
    }
    line(ns);
    line(ss);
    line(fs);
  }
  if (!e.amdahl_note.empty()) {
    line("");
    line("  Amdahl through this plan: " + e.amdahl_note);
  }
  if (!e.notes.empty()) {
    line("");
    for (const std::string& n : e.notes) line("  note: " + n);
  }
  return out;
}

}  // namespace brigade::cost
