#include "realexec/calibrate_machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>

#include "realexec/executor.hpp"
#include "realexec/fit.hpp"

namespace brigade::realexec::calibrate_detail {

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

int reps_for(double budget_seconds, double estimate_seconds, int lo, int hi) {
  const double r = std::ceil(budget_seconds / std::max(estimate_seconds, 1e-7));
  return static_cast<int>(std::clamp(r, static_cast<double>(lo), static_cast<double>(hi)));
}

Result<AlphaBetaFit> fit_alpha_beta(std::vector<SizePoint> points) {
  std::vector<double> x, y;
  for (SizePoint& p : points) {
    p.bytes_per_second = p.seconds > 0 ? p.bytes / p.seconds : 0;
    x.push_back(p.bytes);
    y.push_back(p.seconds);
  }
  BRIGADE_ASSIGN_OR_RETURN(LinearFit f, fit_line(x, y));
  AlphaBetaFit a;
  a.fit = f;
  a.alpha_seconds = f.intercept;
  a.bandwidth_bytes_per_second = f.slope > 0 ? 1.0 / f.slope : 0;
  a.points = std::move(points);
  return a;
}

// What a backend measures (calibrate.cpp runs it): the GEMM sizes by dtype,
// the CPU's cold-operand shapes, the GPU's wave sweep and FP8 split series,
// the streaming, transfer and collective sizes, and the time budgets.
MeasurePlan measure_plan(bool cuda, bool quick, const Device& dev) {
  constexpr double kMiB = 1024.0 * 1024.0;
  MeasurePlan p;
  if (cuda) {
    const std::vector<std::int64_t> big =
        quick ? std::vector<std::int64_t>{256, 1024}
              : std::vector<std::int64_t>{256, 512, 1024, 2048, 4096, 8192};
    for (DType t : {DType::kBF16, DType::kF16, DType::kTF32, DType::kF32})
      p.gemm.emplace_back(t, big);
    p.gemm.emplace_back(DType::kF64, quick ? std::vector<std::int64_t>{256}
                                           : std::vector<std::int64_t>{256, 1024, 4096});
    // FP8 where the GPU's data sheet has an FP8 rate (Ada, Hopper): cuBLASLt
    // as Transformer Engine calls it, the fast accumulation of the forward
    // GEMMs; MeasurePlan::split_sizes runs the same squares with it off.
    const bool fp8 = dev.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kFP8))] > 0;
    if (fp8) {
      p.gemm.emplace_back(DType::kFP8, big);
      p.split_sizes = big;
    }
    // Weight gradients added into an FP32 buffer (C: the weight, m x n; k:
    // a micro-batch's tokens): a 4096-wide layer's QKV-sized and fc1-sized
    // weights over 8192 tokens (GPT-3 5B at micro-batch 4), GPT-3 175B's
    // fused QKV under tensor 4 over 2048; in BF16 (Apex's
    // wgrad_gemm_accum_fp32, the A100 rows' path) and, on FP8 tensor
    // cores, FP8 with split accumulation (TE's wgrad into main_grad).
    const std::vector<std::array<std::int64_t, 3>> wgrad =
        quick ? std::vector<std::array<std::int64_t, 3>>{{1024, 1024, 2048}}
              : std::vector<std::array<std::int64_t, 3>>{
                    {4096, 4096, 8192}, {4096, 16384, 8192}, {9216, 12288, 2048}};
    for (DType t : {DType::kBF16, DType::kFP8}) {
      if (t == DType::kFP8 && !fp8) continue;
      for (const auto& [m, n, k] : wgrad)
        p.accumulate_shapes.push_back(GemmShapePoint{t, m, n, k, 0});
    }
    // Past any GPU's L2 (50-60 MB on Hopper): on the H200 16 and 64 MiB ran
    // in the L2 at 40 and 8 TB/s, whose "peak" then read 8 x the HBM's.
    p.memory_sizes =
        quick ? std::vector<double>{16 * kMiB, 64 * kMiB}
              : std::vector<double>{256 * kMiB, 512 * kMiB, 1024 * kMiB, 2048 * kMiB, 4096 * kMiB};
    p.transfer_sizes =
        quick ? std::vector<double>{64 * 1024.0, 4 * kMiB}
              : std::vector<double>{64 * 1024.0, kMiB, 16 * kMiB, 256 * kMiB, 1024 * kMiB};
    p.collective_sizes =
        quick ? std::vector<double>{64 * 1024.0, 4 * kMiB}
              : std::vector<double>{64 * 1024.0, kMiB, 16 * kMiB, 256 * kMiB, 1024 * kMiB};
    p.gemm_budget = quick ? 0.005 : 0.025;
    p.point_budget = quick ? 0.005 : 0.025;
    // The wave model's sweep (bf16, C = m x 4096 over k = 8192): rows of
    // 256 j for j whose tile counts leave the last wave part-full in
    // different measure on any SM count, so that waves and a rate can be
    // told apart (fit_gemm_waves; M = 256 j at N = 8192 on 132 SMs pads
    // every point alike).
    if (!quick)
      for (std::int64_t j : {5, 7, 9, 11, 13, 17, 21, 25, 33, 41}) {
        GemmShapePoint g;
        g.m = 256 * j, g.n = 4096, g.k = 8192;
        p.wave_sweep.push_back(g);
      }
  } else {
    p.gemm.emplace_back(DType::kF32, quick ? std::vector<std::int64_t>{16, 32, 64, 256}
                                           : std::vector<std::int64_t>{32, 48, 64, 96, 128, 192,
                                                                       256, 384, 512, 768, 1024});
    p.gemm.emplace_back(DType::kF64, quick
                                         ? std::vector<std::int64_t>{16, 32}
                                         : std::vector<std::int64_t>{32, 64, 128, 256, 512, 1024});
    // 128 rows against a weight of 1.5 MiB (quick: 1 MiB) to 16 MiB, which
    // read their bytes, and weight gradients whose outputs are 4 and 16 MiB,
    // which write them: the two rates (fit_cold_operand_rates).
    // Each with the square of its FLOPs as the yardstick of the moment.
    auto add_cold = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
      ColdGemmPoint c;
      c.m = m;
      c.n = n;
      c.k = k;
      c.square = std::llround(
          std::cbrt(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k)));
      p.cold_shapes.push_back(c);
    };
    if (quick)
      add_cold(128, 512, 512);
    else
      for (auto [m, n, k] : {std::array<std::int64_t, 3>{128, 640, 640},
                             {128, 1024, 1024},
                             {128, 2048, 2048},
                             {1024, 1024, 128},
                             {2048, 2048, 128}})
        add_cold(m, n, k);
    p.memory_sizes = quick
                         ? std::vector<double>{64 * 1024.0, 256 * 1024.0, kMiB}
                         : std::vector<double>{256 * 1024.0, kMiB, 4 * kMiB, 16 * kMiB, 64 * kMiB};
    p.transfer_sizes = quick ? std::vector<double>{4096, 64 * 1024.0, 256 * 1024.0}
                             : std::vector<double>{4096,     64 * 1024.0, 256 * 1024.0, kMiB,
                                                   4 * kMiB, 16 * kMiB,   64 * kMiB};
    p.collective_sizes = quick ? std::vector<double>{4096, 256 * 1024.0}
                               : std::vector<double>{4096,     64 * 1024.0, 256 * 1024.0, kMiB,
                                                     4 * kMiB, 16 * kMiB,   64 * kMiB};
    p.gemm_budget = quick ? 0.002 : 0.05;
    p.point_budget = quick ? 0.002 : 0.03;
  }
  return p;
}

Result<Machine> cpu_machine(int devices) {
  BRIGADE_ASSIGN_OR_RETURN(Topology t, make_preset("cpu-host", 1, devices));
  Machine m;
  m.device = t.device(0);
  m.topology = std::move(t);
  return m;
}

Result<Machine> cuda_machine(int devices) {
  BRIGADE_ASSIGN_OR_RETURN(std::string name, cuda_device_name(0));
  Machine m;
  m.known = false;
  for (const std::string& preset : preset_names()) {
    auto t = make_preset(preset);
    if (t.is_ok() && t->device(0).model == name) {
      m.device = t->device(0);
      m.known = true;
      break;
    }
  }
  if (!m.known) {
    // Peaks unknown: efficiencies come out relative to the best rate measured
    // (filled in later), under the "*" model that matches any device.
    m.device.model = "*";
    m.device.memory_bytes = 0;
  }
  const bool pcie =
      name.find("PCIE") != std::string::npos || name.find("PCIe") != std::string::npos;
  for (int d = 0; d < devices; ++d) {
    Device dev = m.device;
    dev.name = "gpu" + std::to_string(d);
    dev.local_index = d;
    m.topology.add_device(dev);
  }
  if (devices > 1) {
    // The presets' figures: NVLink through NVSwitch 450 GB/s (H100/H200 SXM),
    // PCIe Gen4 x16 31.5 GB/s (core/presets.cpp).
    const int sw = m.topology.add_switch(Switch{pcie ? "pcie-switch" : "nvswitch", 0});
    for (int d = 0; d < devices; ++d)
      m.topology.add_link(Link{d, sw, pcie ? 2.5e-6 : 1e-6, pcie ? 31.5e9 : 450e9,
                               pcie ? LinkClass::kPcie : LinkClass::kNvlink,
                               "gpu" + std::to_string(d) + "<->switch"});
  }
  m.topology.preset = "calibration(" + std::to_string(devices) + " x " + name + ")";
  BRIGADE_RETURN_IF_ERROR(m.topology.validate());
  return m;
}

}  // namespace brigade::realexec::calibrate_detail
