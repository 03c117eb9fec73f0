// Calibration in --quick mode (tiny sizes, seconds): the profile comes out
// whole, records the measured peaks with efficiencies relative to them, and
// its fitted numbers are of the right sign. No timing assertions: the
// figures themselves depend on the machine (docs/VALIDATION.md has them).
#include "realexec/calibrate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <atomic>
#include <cstdio>

#include "core/topology.hpp"
#include "costmodel/collectives.hpp"

namespace brigade::realexec {
namespace {

// A cold GEMM point whose cold run took `beyond` past the curve (warm on
// the curve, the whole difference cold).
ColdGemmPoint cold_point(std::int64_t m, std::int64_t n, std::int64_t k, double beyond) {
  ColdGemmPoint c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.bytes = gemm_bytes(m, n, k, DType::kF32);
  c.written_bytes = gemm_written_bytes(m, n, DType::kF32);
  c.curve_seconds = 0.01;
  c.warm_seconds = 0.01;
  c.extra_seconds = beyond;
  return c;
}

// fit_cold_operand_rates: where the points are exactly reads at 25 GB/s and
// writes at 100 GB/s, the plane through the origin gives both back and
// fits every point. By hand (f32): 128x2048x2048 reads 17825792 B and
// writes 1048576 B: 713.03168 + 10.48576 us; 1024x1024x128 reads 1048576 B,
// writes 4194304 B: 41.94304 + 41.94304 us; 2048x2048x128 reads 2097152 B,
// writes 16777216 B: 83.88608 + 167.77216 us.
TEST(FitColdOperandRates, ReadsAndWritesAtTheirOwnRatesComeBack) {
  std::vector<ColdGemmPoint> pts = {cold_point(128, 2048, 2048, 723.51744e-6),
                                    cold_point(1024, 1024, 128, 83.88608e-6),
                                    cold_point(2048, 2048, 128, 251.65824e-6)};
  const ColdOperandRates r = fit_cold_operand_rates(pts);
  EXPECT_NEAR(r.read_bytes_per_second, 25e9, 1e-6 * 25e9);
  EXPECT_NEAR(r.written_bytes_per_second, 100e9, 1e-6 * 100e9);
  for (const ColdGemmPoint& c : pts)
    EXPECT_NEAR(c.fitted_seconds, c.beyond_curve_seconds(), 1e-6 * c.beyond_curve_seconds())
        << c.m << "x" << c.n << "x" << c.k;
}

// Where the plane's written slope comes out negative (the weight gradient
// took nothing beyond the curve: 2097152 x + 16777216 y = 0 gives
// y = -x / 8), the fit keeps one rate for all bytes, the line through the
// origin: sum bytes * beyond / sum bytes^2 = 18874368 * 1 ms / (2 x
// 18874368^2) s/B, a rate of 2 x 18874368 / 1 ms = 37.748736 GB/s, output 0.
// One shape alone (read / written ratios cannot differ) gets its bytes over
// its beyond; none beyond the curve, no rate at all.
TEST(FitColdOperandRates, OneRateWhereReadsAndWritesCannotBeToldApart) {
  std::vector<ColdGemmPoint> pts = {cold_point(128, 2048, 2048, 1e-3),
                                    cold_point(2048, 2048, 128, 0)};
  ColdOperandRates r = fit_cold_operand_rates(pts);
  EXPECT_NEAR(r.read_bytes_per_second, 37.748736e9, 1e-3);
  EXPECT_EQ(r.written_bytes_per_second, 0.0);
  EXPECT_NEAR(pts[0].fitted_seconds, 0.5e-3, 1e-15);
  EXPECT_NEAR(pts[1].fitted_seconds, 0.5e-3, 1e-15);

  std::vector<ColdGemmPoint> one = {cold_point(128, 512, 512, 50e-6)};
  r = fit_cold_operand_rates(one);
  EXPECT_NEAR(r.read_bytes_per_second, 4.0 * (128 * 512 + 512 * 512 + 128 * 512) / 50e-6, 1e-3);
  EXPECT_EQ(r.written_bytes_per_second, 0.0);

  std::vector<ColdGemmPoint> none = {cold_point(128, 2048, 2048, -1e-5),
                                     cold_point(2048, 2048, 128, -2e-5)};
  r = fit_cold_operand_rates(none);
  EXPECT_EQ(r.read_bytes_per_second, 0.0);
  EXPECT_EQ(r.written_bytes_per_second, 0.0);
  EXPECT_EQ(none[0].fitted_seconds, 0.0);
}

TEST(Calibrate, QuickCpuCalibrationGivesAWholeProfile) {
  CalibrateOptions o;
  o.devices = 2;
  o.quick = true;
  o.host = "testhost";
  o.date = "2030-01-01 00:00 UTC";
  int calls = 0, last_total = 0;
  auto cal = calibrate(Backend::kCpu, o, [&](const std::string& what, int done, int total) {
    EXPECT_FALSE(what.empty());
    EXPECT_LT(done, total);
    last_total = total;
    ++calls;
  });
  ASSERT_TRUE(cal.is_ok()) << cal.message();
  EXPECT_EQ(calls, last_total);  // one progress line per benchmark
  // Every square GEMM against a yardstick run right before it (CPU; 64^3
  // with --quick): the curve at the yardstick's median speed.
  EXPECT_EQ(cal->yardstick_size, 64);
  EXPECT_GT(cal->yardstick_seconds, 0.0);
  EXPECT_LE(cal->yardstick_min_seconds, cal->yardstick_seconds);
  EXPECT_GE(cal->yardstick_max_seconds, cal->yardstick_seconds);
  for (const GemmPoint& g : cal->gemm) EXPECT_GT(g.seconds, 0.0) << g.size;
  const HardwareProfile& p = cal->profile;
  EXPECT_EQ(p.machine_kind, "cpu");
  EXPECT_EQ(p.name, "calibrated-cpu-testhost");
  EXPECT_EQ(p.source,
            "calibrated on testhost at 2030-01-01 00:00 UTC (brigade calibrate --backend cpu "
            "--devices 2 --quick)");
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceProfile& d = p.devices[0];
  EXPECT_EQ(d.model, "host-thread");
  EXPECT_GT(d.launch_overhead_seconds, 0.0);
  EXPECT_GT(d.memory_efficiency, 0.0);
  EXPECT_LE(d.memory_efficiency, 1.0);
  EXPECT_GE(d.collective_overhead_seconds, 0.0);
  EXPECT_GE(d.comm_compute_slowdown, 0.0);
  const auto f32 = static_cast<size_t>(dtype_index(DType::kF32));
  for (DType t : {DType::kF32, DType::kF64, DType::kBF16}) {
    const auto i = static_cast<size_t>(dtype_index(t));
    const EfficiencyCurve& c = d.gemm[i];
    ASSERT_FALSE(c.points.empty()) << dtype_name(t);
    // The peak is the best rate measured, so the best point is exactly 1.
    double best = 0;
    for (const auto& [flops, eff] : c.points) {
      EXPECT_GT(flops, 0.0);
      EXPECT_GT(eff, 0.0);
      EXPECT_LE(eff, 1.0);  // the profile format's range
      best = std::max(best, eff);
    }
    EXPECT_EQ(best, 1.0) << dtype_name(t);
    EXPECT_GT(d.peak_flops_per_second[i], 0.0) << dtype_name(t);
  }
  EXPECT_EQ(d.peak_flops_per_second[f32], cal->measured_peak_flops_per_second[f32]);
  // bf16 runs in f32 on the CPU backend: f32's peak and curve.
  EXPECT_EQ(d.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kBF16))],
            d.peak_flops_per_second[f32]);
  // Every GEMM the benchmarks ran takes its measured time under the profile
  // (kernel_seconds: launch + FLOP / (peak x efficiency at its FLOP)), unless
  // it was so short that the launch overhead left under 5% of it to the kernel.
  const Device host = make_preset("cpu-host", 1, 2)->device(0);
  for (const GemmPoint& g : cal->gemm) {
    if (g.seconds - cal->launch_overhead_seconds < 0.05 * g.seconds) continue;
    EXPECT_NEAR(kernel_seconds(host, d, g.dtype, g.flops, 0), g.seconds, 1e-9 * g.seconds)
        << dtype_name(g.dtype) << " " << g.size;
  }
  // Cold operands: the quick run measures one weight-streaming shape,
  // 128x512x512 in f32 (1.5 MiB of operands); with one shape the
  // least-squares line through the origin is its bytes over what its cold
  // run took beyond the squares' curve, and the profile then predicts that
  // cold run as measured. (Should it not take longer on a noisy host, a
  // note says so instead.)
  ASSERT_EQ(cal->cold_gemm.size(), 1u);
  const ColdGemmPoint& cg = cal->cold_gemm[0];
  EXPECT_EQ(cg.m, 128);
  EXPECT_EQ(cg.n, 512);
  EXPECT_EQ(cg.k, 512);
  EXPECT_EQ(cg.bytes, 4.0 * (128 * 512 + 512 * 512 + 128 * 512));
  EXPECT_EQ(cg.square, 323);  // round(cbrt(128 x 512 x 512)) = round(322.54)
  const double flops = gemm_flops(128, 512, 512);
  EXPECT_GT(cg.warm_over_square, 0.0);
  const double launch = d.launch_overhead_seconds;
  EXPECT_NEAR(cg.warm_seconds,
              cg.warm_over_square *
                      (kernel_seconds(host, d, DType::kF32, gemm_flops(323, 323, 323), 0) - launch) +
                  launch,
              1e-12 * cg.warm_seconds);
  EXPECT_NEAR(cg.curve_seconds, kernel_seconds(host, d, DType::kF32, flops, 0),
              1e-12 * cg.curve_seconds);
  const double beyond = cg.warm_seconds + cg.extra_seconds - cg.curve_seconds;
  EXPECT_DOUBLE_EQ(cg.beyond_curve_seconds(), beyond);
  // One shape cannot tell reads from writes: one rate for all its bytes.
  EXPECT_EQ(cg.written_bytes, 4.0 * 128 * 512);
  EXPECT_EQ(d.gemm_cold_output_bandwidth_bytes_per_second, 0.0);
  if (beyond > 0) {
    EXPECT_NEAR(d.gemm_cold_operand_bandwidth_bytes_per_second, cg.bytes / beyond,
                1e-9 * d.gemm_cold_operand_bandwidth_bytes_per_second);
    EXPECT_NEAR(cg.fitted_seconds, beyond, 1e-9 * beyond);
    EXPECT_NEAR(kernel_seconds(host, d, DType::kF32, flops, cg.bytes),
                cg.warm_seconds + cg.extra_seconds, 1e-9 * cg.warm_seconds);
  } else {
    EXPECT_EQ(d.gemm_cold_operand_bandwidth_bytes_per_second, 0.0);
    EXPECT_TRUE(std::any_of(cal->notes.begin(), cal->notes.end(), [](const std::string& n) {
      return n.rfind("GEMMs with cold operands: none took longer", 0) == 0;
    }));
  }
  // No accumulation pairs on the CPU (Eigen adds into C either way), said.
  EXPECT_TRUE(cal->gemm_accumulate.empty());
  EXPECT_EQ(cal->gemm_accumulate_exposed, -1.0);
  EXPECT_EQ(d.gemm_accumulate_exposed, 0.0);
  EXPECT_TRUE(std::any_of(cal->notes.begin(), cal->notes.end(), [](const std::string& n) {
    return n.rfind("gemm_accumulate_exposed: not measured (the CPU backend's GEMMs", 0) == 0;
  }));
  // The norm's and the activation's kernels, measured at the same sizes:
  // their rates' fractions of the peak, both directions (the executor runs
  // a backward task of the class as the same kernel), clamped to 1.
  EXPECT_GT(cal->norm_bandwidth_bytes_per_second, 0.0);
  EXPECT_GT(cal->activation_bandwidth_bytes_per_second, 0.0);
  EXPECT_DOUBLE_EQ(cal->norm_efficiency,
                   cal->norm_bandwidth_bytes_per_second / cal->memory_peak_bytes_per_second);
  EXPECT_DOUBLE_EQ(d.norm_forward_efficiency, std::min(1.0, cal->norm_efficiency));
  EXPECT_DOUBLE_EQ(d.norm_backward_efficiency, d.norm_forward_efficiency);
  EXPECT_DOUBLE_EQ(d.activation_forward_efficiency, std::min(1.0, cal->activation_efficiency));
  EXPECT_DOUBLE_EQ(d.activation_backward_efficiency, d.activation_forward_efficiency);
  // The gated activation's (SwiGLU), likewise: its own keys, so that a plan's
  // SwiGLU is timed at the rate of the kernel the executor runs for it.
  EXPECT_GT(cal->gated_bandwidth_bytes_per_second, 0.0);
  EXPECT_DOUBLE_EQ(d.gated_activation_forward_efficiency, std::min(1.0, cal->gated_efficiency));
  EXPECT_DOUBLE_EQ(d.gated_activation_backward_efficiency, d.gated_activation_forward_efficiency);
  EXPECT_EQ(cal->gated_points.size(), cal->memory.points.size());
  EXPECT_EQ(cal->profile.calibration.gated.size(), cal->gated_points.size());
  // Memory: the best streaming rate is the peak; all sizes together its fraction.
  EXPECT_EQ(d.memory_bandwidth_bytes_per_second, cal->memory_peak_bytes_per_second);
  EXPECT_DOUBLE_EQ(d.memory_efficiency * cal->memory_peak_bytes_per_second,
                   cal->memory_bandwidth_bytes_per_second);
  double bytes = 0, kernel = 0;
  for (const SizePoint& pt : cal->memory.points) {
    EXPECT_LE(pt.bytes_per_second, cal->memory_peak_bytes_per_second);
    bytes += pt.bytes;
    kernel += pt.bytes / pt.bytes_per_second;
  }
  EXPECT_NEAR(cal->memory_bandwidth_bytes_per_second, bytes / kernel,
              1e-9 * cal->memory_bandwidth_bytes_per_second);
  const LinkProfile& shm = p.for_link(LinkClass::kSharedMemory);
  ASSERT_EQ(cal->links.size(), 1u);
  EXPECT_GE(shm.alpha_seconds, 0.0);
  EXPECT_EQ(shm.alpha_seconds, cal->links[0].alpha_seconds);
  EXPECT_EQ(shm.bandwidth_efficiency, 1.0);
  EXPECT_GT(shm.bandwidth_bytes_per_second, 0.0);
  EXPECT_EQ(shm.bandwidth_bytes_per_second, cal->links[0].bandwidth_bytes_per_second);
  EXPECT_LE(cal->links[0].transfer.fit.r_squared, 1.0);
  ASSERT_EQ(cal->collectives.size(), static_cast<size_t>(kNumCollectiveKinds));
  for (const CollectiveCalibration& c : cal->collectives) {
    EXPECT_EQ(c.ranks, 2);
    EXPECT_EQ(c.fit.points, 2);
    EXPECT_TRUE(std::isfinite(c.fit.r_squared));
    for (const CollectivePoint& pt : c.points) {
      EXPECT_GT(pt.alg_bytes_per_second, 0.0);
      EXPECT_GT(pt.model_seconds, 0.0);  // the judges' prediction with this profile
      EXPECT_DOUBLE_EQ(pt.bus_bytes_per_second,
                       pt.alg_bytes_per_second * cost::bus_bandwidth_factor(c.kind, c.ranks));
    }
    // The kind's own steps are in the profile, unless apply_fit_sanity refused
    // them (a busy machine's measurements can contradict each other: then they
    // are named in `rejected` and not written); each size that has a scale of
    // its own is predicted as measured, unless the route capped its step.
    const LinkProfile::KindSteps& ks = shm.kind_steps(c.kind);
    const std::string kind(collective_kind_name(c.kind));
    bool refused = false;
    for (const std::string& r : cal->rejected)
      refused |= r.rfind(kind + ":", 0) == 0 || r.rfind("collective steps over all kinds", 0) == 0;
    if (refused) {
      EXPECT_TRUE(ks.empty()) << kind;
      continue;
    }
    EXPECT_EQ(ks.alpha_seconds, c.steps.alpha_seconds) << collective_kind_name(c.kind);
    EXPECT_EQ(ks.bandwidth_scale.points, c.steps.bandwidth_scale.points);
    const auto topo = make_preset("cpu-host", 1, 2);
    for (const CollectivePoint& pt : c.points) {
      const bool own = std::any_of(ks.bandwidth_scale.points.begin(), ks.bandwidth_scale.points.end(),
                                   [&](const auto& q) { return q.first == pt.bytes; });
      const cost::AlphaBeta ab =
          cost::collective_step_alpha_beta(topo->route(0, 1), *topo, p, 1, c.kind, pt.bytes);
      const bool capped = ab.bandwidth_bytes_per_second == shm.bandwidth_bytes_per_second ||
                          ab.reduce_bandwidth_bytes_per_second == shm.bandwidth_bytes_per_second;
      if (own && !capped) {
        EXPECT_NEAR(pt.model_seconds, pt.seconds, 1e-9 * pt.seconds)
            << collective_kind_name(c.kind) << " " << pt.bytes;
      }
      // Warm (back to back, the CPU measures both): the same with the warm figures.
      ASSERT_GT(pt.warm_seconds, 0.0);
      const bool own_warm =
          std::any_of(ks.warm_bandwidth_scale.points.begin(), ks.warm_bandwidth_scale.points.end(),
                      [&](const auto& q) { return q.first == pt.bytes; });
      const cost::AlphaBeta wab =
          cost::collective_step_alpha_beta(topo->route(0, 1), *topo, p, 1, c.kind, pt.bytes, true);
      const bool warm_capped = wab.bandwidth_bytes_per_second == shm.bandwidth_bytes_per_second ||
                               wab.reduce_bandwidth_bytes_per_second == shm.bandwidth_bytes_per_second;
      if (own_warm && !warm_capped) {
        EXPECT_NEAR(pt.warm_model_seconds, pt.warm_seconds, 1e-9 * pt.warm_seconds)
            << collective_kind_name(c.kind) << " warm " << pt.bytes;
      }
    }
  }
}

// fit_kind_steps on made-up AllReduces over 2 ranks (s = 2 steps, bandwidth
// time X = M/2 (1/B + 1/B_r) at B = 10 GB/s, B_r = 5 GB/s: X = 1.5e-10 M),
// overhead 10 us, steps of alpha 3 us whose bandwidths scale by 0.5 at every
// size: T = 10e-6 + 6e-6 + 3e-10 M. The fit recovers alpha and the scale.
TEST(FitKindSteps, ALinearKindGivesItsAlphaAndAFlatScale) {
  std::vector<CollectivePoint> pts;
  for (double m : {65536.0, 1048576.0, 16777216.0})
    pts.push_back(CollectivePoint{m, 16e-6 + 3e-10 * m, 0, 0, 0});
  LinkProfile::KindSteps ks;
  auto f = fit_kind_steps(CollectiveKind::kAllReduce, 2, pts, 10e-6,
                          cost::AlphaBeta{0, 10e9, 5e9}, &ks);
  ASSERT_TRUE(f.is_ok()) << f.message();
  EXPECT_NEAR(ks.alpha_seconds, 3e-6, 1e-12);
  EXPECT_NEAR(ks.bandwidth_scale.fallback, 0.5, 1e-9);
  ASSERT_EQ(ks.bandwidth_scale.points.size(), 3u);
  for (const auto& [m, scale] : ks.bandwidth_scale.points) EXPECT_NEAR(scale, 0.5, 1e-6) << m;
}

// The same steps with a scale that depends on size (0.5 at 1 MiB, 0.8 at
// 4 MiB, 0.4 at 16 MiB) and a 4 KiB point whose bandwidth time (0.6 us) is
// under a quarter of its 6.6 us above the overhead: whatever alpha the fit
// settles on, each sized point is reproduced exactly by
// overhead + 2 alpha + X / scale, and the 4 KiB point gets no scale.
//   1 MiB: X = 157.2864 us, T = 16 us + 314.5728 us = 330.5728 us
//   4 MiB: X = 629.1456 us, T = 16 us + 786.432 us = 802.432 us
//   16 MiB: X = 2516.5824 us, T = 16 us + 6291.456 us = 6307.456 us
TEST(FitKindSteps, EachSizedPointIsReproduced) {
  const std::vector<CollectivePoint> pts = {{4096.0, 16.6144e-6, 0, 0, 0},
                                            {1048576.0, 330.5728e-6, 0, 0, 0},
                                            {4194304.0, 802.432e-6, 0, 0, 0},
                                            {16777216.0, 6307.456e-6, 0, 0, 0}};
  LinkProfile::KindSteps ks;
  auto f = fit_kind_steps(CollectiveKind::kAllReduce, 2, pts, 10e-6,
                          cost::AlphaBeta{0, 10e9, 5e9}, &ks);
  ASSERT_TRUE(f.is_ok()) << f.message();
  EXPECT_GE(ks.alpha_seconds, 0.0);
  ASSERT_EQ(ks.bandwidth_scale.points.size(), 3u);
  for (size_t i = 1; i < pts.size(); ++i) {
    const auto& [m, scale] = ks.bandwidth_scale.points[i - 1];
    EXPECT_EQ(m, pts[i].bytes);
    const double x = 1.5e-10 * m;
    EXPECT_NEAR(10e-6 + 2 * ks.alpha_seconds + x / scale, pts[i].seconds, 1e-9 * pts[i].seconds);
  }
}

TEST(FitKindSteps, OnePointIsTooFew) {
  LinkProfile::KindSteps ks;
  auto f = fit_kind_steps(CollectiveKind::kAllGather, 2, {{1048576.0, 1e-4, 0, 0, 0}}, 0,
                          cost::AlphaBeta{0, 10e9, 5e9}, &ks);
  ASSERT_FALSE(f.is_ok());
  EXPECT_EQ(f.message(),
            "found 1 usable allgather points; expected at least 2 measured above the collective "
            "overhead");
}

TEST(Calibrate, TheProfileReadsBackFromItsFile) {
  CalibrateOptions o;
  o.devices = 2;
  o.quick = true;
  auto cal = calibrate(Backend::kCpu, o);
  ASSERT_TRUE(cal.is_ok()) << cal.message();
  const std::string path = ::testing::TempDir() + "/calibrated-cpu.yaml";
  ASSERT_TRUE(save_profile(cal->profile, path).is_ok());
  auto back = load_profile(path);
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_EQ(back->machine_kind, "cpu");
  EXPECT_EQ(back->source, cal->profile.source);
  ASSERT_EQ(back->devices.size(), 1u);
  EXPECT_EQ(back->devices[0].gemm[static_cast<size_t>(dtype_index(DType::kF32))].points,
            cal->profile.devices[0].gemm[static_cast<size_t>(dtype_index(DType::kF32))].points);
  // The raw samples and every fit's R² travel with it (the app's calibration view).
  const CalibrationSamples& s = back->calibration;
  EXPECT_EQ(s.gemm.size(), cal->gemm.size());
  EXPECT_EQ(s.memory.size(), cal->memory.points.size());
  size_t collective_points = 0;
  for (const auto& cc : cal->collectives) collective_points += cc.points.size();
  EXPECT_EQ(s.collectives.size(), collective_points);
  EXPECT_GT(collective_points, 0u);
  auto has_r2 = [&](const std::string& name) {
    for (const auto& [n, r2] : s.r_squared)
      if (n == name) return r2 <= 1;
    return false;
  };
  EXPECT_TRUE(has_r2("memory"));
  EXPECT_TRUE(has_r2("collective_step"));
  EXPECT_TRUE(has_r2("collective.allreduce"));
  std::remove(path.c_str());
}

// The speed probe returns the profile's time over the measured one, for
// GEMMs and streaming kernels. Against a profile that claims a peak a
// million times above any CPU's (1e17 FLOP/s, 1e18 B/s) the machine comes
// out far slower than the profile (ratio << 1), against one that claims
// 1 MFLOP/s and 1 kB/s far faster (ratio >> 1). A 64^3 f32 GEMM is 524288
// FLOP: 5.2 ns at the first peak; at the second its 48 KiB of operands take
// 49 s (more than its FLOPs' 0.52 s). A 64 KiB streaming kernel takes
// 65.5 ps, or 65.5 s. This CPU takes microseconds for each, and well under
// the 0.65 s that would bring a ratio to 100 even on a loaded machine.
TEST(Calibrate, SpeedProbeRatiosAreTheProfilesTimeOverTheMeasuredOne) {
  auto ex = make_cpu_executor();
  auto topo = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(topo.is_ok());
  auto probe = [&](double peak, double bandwidth) {
    HardwareProfile h = HardwareProfile::defaults();
    for (DeviceProfile& d : h.devices) {
      d.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))] = peak;
      d.memory_bandwidth_bytes_per_second = bandwidth;
      d.memory_efficiency = 1.0;
      d.launch_overhead_seconds = 0;
      d.gemm_half_seconds = 0;  // no Hockney floor either
    }
    SpeedProbeOptions o;
    o.gemm_n = 64;
    o.stream_bytes = 65536;
    o.evict_bytes = 65536;
    o.seconds = 0.01;
    auto r = speed_against_profile(*ex, *topo, h, o);
    EXPECT_TRUE(r.is_ok()) << r.message();
    if (!r.is_ok()) return std::array<double, 2>{};
    // One ratio per device, each on the same side of 1 as the whole.
    for (const SpeedProbe::Resource* x : {&r->gemm, &r->memory}) {
      EXPECT_EQ(x->per_device.size(), 2u);
      for (double d : x->per_device) EXPECT_EQ(d < 1, x->ratio < 1);
    }
    return std::array<double, 2>{r->gemm.ratio, r->memory.ratio};
  };
  for (double x : probe(1e17, 1e18)) EXPECT_LT(x, 1e-2);
  for (double x : probe(1e6, 1e3)) EXPECT_GT(x, 1e2);
}

// With one device there is nothing to evict the caches with: the GEMM
// probe alone.
TEST(Calibrate, SpeedProbeOnOneDeviceProbesGemmsAlone) {
  auto ex = make_cpu_executor();
  auto topo = make_preset("cpu-host", 1, 1);
  ASSERT_TRUE(topo.is_ok());
  SpeedProbeOptions o;
  o.gemm_n = 64;
  o.seconds = 0.01;
  auto r = speed_against_profile(*ex, *topo, HardwareProfile::defaults(), o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_GT(r->gemm.ratio, 0);
  EXPECT_EQ(r->gemm.per_device.size(), 1u);
  EXPECT_EQ(r->memory.ratio, 0);
  EXPECT_TRUE(r->memory.per_device.empty());
}

TEST(Calibrate, ZeroDevicesIsBadInput) {
  CalibrateOptions o;
  o.devices = 0;
  auto cal = calibrate(Backend::kCpu, o);
  ASSERT_FALSE(cal.is_ok());
  EXPECT_EQ(cal.status().kind(), ErrorKind::kBadInput);
  EXPECT_EQ(cal.message(), "found devices 0; expected devices >= 1");
}

TEST(Calibrate, CudaWithoutAGpuSaysWhy) {
  std::string why;
  if (cuda_device_available(&why)) GTEST_SKIP() << "a GPU is present";
  auto cal = calibrate(Backend::kCuda, CalibrateOptions{});
  ASSERT_FALSE(cal.is_ok());
  EXPECT_EQ(cal.status().kind(), ErrorKind::kRuntime);  // the machine's state, exit 1
  EXPECT_EQ(cal.message(), why);
}

// On a GPU (skipped without one): a quick CUDA calibration gives a profile
// whose launch overhead is what the GPU takes per empty kernel with the host
// ahead of it (on the H200 5.2 us, against 5.8-8.6 us for the host to
// enqueue one): the lead GEMM's milliseconds are not in it, so it stays
// within 1.5 x the host's rate (with the lead counted it would be 10 x).
TEST(Calibrate, QuickCudaCalibrationSeparatesTheGpusLaunchFromTheHostsIssue) {
  std::string why;
  if (!cuda_device_available(&why)) GTEST_SKIP() << why;
  CalibrateOptions o;
  o.quick = true;
  auto cal = calibrate(Backend::kCuda, o);
  ASSERT_TRUE(cal.is_ok()) << cal.message();
  EXPECT_GT(cal->launch_overhead_seconds, 0.0);
  EXPECT_GT(cal->host_issue_seconds, 0.0);
  EXPECT_LT(cal->launch_overhead_seconds, 1.5 * cal->host_issue_seconds);
  EXPECT_EQ(cal->profile.devices.at(0).launch_overhead_seconds, cal->launch_overhead_seconds);
  EXPECT_GT(cal->memory_peak_bytes_per_second, 0.0);
}

}  // namespace
}  // namespace brigade::realexec

namespace brigade::realexec {
namespace {

// Issue 18 item 15: `calibrate --quick` on a loaded machine wrote fits the
// measurements contradict (a 4 KiB ReduceScatter slower than 256 KiB; a
// kind's model off by +11326%; a step fit of R^2 0.27) without a word.
// apply_fit_sanity refuses each, names the measurement, and keeps what the
// data sheet (or the fit over all kinds) says instead; it never writes a
// negative alpha.
TEST(FitSanity, RefusesFitsTheMeasurementsContradict) {
  auto topo = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(topo.is_ok());
  Calibration cal;
  cal.profile = HardwareProfile::defaults();
  const auto shm = static_cast<size_t>(LinkClass::kSharedMemory);
  LinkProfile& lp = cal.profile.links[shm];
  lp.collective_alpha_seconds = 0;
  lp.collective_bandwidth_bytes_per_second = 843e6;
  lp.collective_reduce_bandwidth_bytes_per_second = 369e6;
  // The transfers: a clean line (kept).
  LinkCalibration link;
  link.link_class = LinkClass::kSharedMemory;
  link.transfer.fit.r_squared = 0.999;
  link.transfer.fit.points = 3;
  link.transfer.points = {{4096, 1.85e-7, 0}, {65536, 2.06e-6, 0}, {262144, 7.58e-6, 0}};
  lp.alpha_seconds = 6.5e-8;
  lp.bandwidth_bytes_per_second = 34.4e9;
  cal.links.push_back(link);
  // ReduceScatter: 4 KiB slower than 256 KiB. AllGather: monotonic and as its steps say
  // (overhead 2 us + 2048 / 843 MB/s at 4 KiB, + 131072 / 843 MB/s at 256 KiB), but with a
  // negative warm alpha.
  CollectiveCalibration rs;
  rs.kind = CollectiveKind::kReduceScatter;
  rs.ranks = 2;
  rs.points = {{4096, 483e-6}, {262144, 344e-6}};
  rs.steps.alpha_seconds = 391e-6;
  lp.collective_kinds[static_cast<size_t>(rs.kind)] = rs.steps;
  CollectiveCalibration ag;
  ag.kind = CollectiveKind::kAllGather;
  ag.ranks = 2;
  ag.points = {{4096, 4.4e-6}, {262144, 1.6e-4}};
  ag.steps.alpha_seconds = 0;
  ag.steps.warm_alpha_seconds = -6.35e-6;
  lp.collective_kinds[static_cast<size_t>(ag.kind)] = ag.steps;
  cal.collectives = {rs, ag};
  cal.collective_step.fit.r_squared = 0.7;  // as good runs (docs/VALIDATION.md: 0.61-0.78)
  cal.collective_step.fit.points = 4;
  Calibration noisy = cal;

  apply_fit_sanity(cal, *topo);
  auto said = [](const Calibration& c, const std::string& what) {
    for (const std::string& r : c.rejected)
      if (r.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(said(cal, "reducescatter: 4.00 KiB took 483 us, longer than 256 KiB (344 us)"))
      << ::testing::PrintToString(cal.rejected);
  EXPECT_TRUE(lp.collective_kinds[static_cast<size_t>(CollectiveKind::kReduceScatter)].empty());
  // AllGather's steps stay, without the negative warm alpha (never written).
  const auto& ags = lp.collective_kinds[static_cast<size_t>(CollectiveKind::kAllGather)];
  EXPECT_EQ(ags.alpha_seconds, 0.0);
  EXPECT_EQ(ags.warm_alpha_seconds, -1.0);  // unset
  EXPECT_TRUE(said(cal, "allgather: warm alpha -6.35 us")) << ::testing::PrintToString(cal.rejected);
  EXPECT_DOUBLE_EQ(lp.collective_bandwidth_bytes_per_second, 843e6);  // R^2 0.7: kept

  // The step fit over all kinds explaining too little (R^2 0.27): not written, and
  // the kinds' steps (scales of it) go with it; the message model stands.
  noisy.collective_step.fit.r_squared = 0.27;
  apply_fit_sanity(noisy, *topo);
  const LinkProfile& nl = noisy.profile.links[shm];
  EXPECT_TRUE(said(noisy, "collective steps over all kinds: R² 0.27"))
      << ::testing::PrintToString(noisy.rejected);
  EXPECT_EQ(nl.collective_bandwidth_bytes_per_second, 0.0);
  EXPECT_EQ(nl.collective_reduce_bandwidth_bytes_per_second, 0.0);
  EXPECT_LT(nl.collective_alpha_seconds, 0.0);  // unset: the route's alpha
  for (const auto& k : nl.collective_kinds) EXPECT_TRUE(k.empty());
  // The transfers' clean fit is kept.
  EXPECT_DOUBLE_EQ(lp.bandwidth_bytes_per_second, 34.4e9);
  EXPECT_FALSE(said(cal, "transfers"));
}

// A transfer line fit the points contradict (the largest message faster than a
// smaller one): the link keeps the data sheet's alpha and bandwidth.
TEST(FitSanity, TransfersThatContradictThemselvesKeepTheDataSheet) {
  auto topo = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(topo.is_ok());
  Calibration cal;
  cal.profile = HardwareProfile::defaults();
  const auto shm = static_cast<size_t>(LinkClass::kSharedMemory);
  const LinkProfile before = cal.profile.links[shm];
  cal.profile.links[shm].alpha_seconds = 0;
  cal.profile.links[shm].bandwidth_bytes_per_second = 90e9;
  LinkCalibration link;
  link.link_class = LinkClass::kSharedMemory;
  link.transfer.fit.r_squared = 0.31;
  link.transfer.fit.points = 3;
  link.transfer.points = {{4096, 2e-6, 0}, {65536, 3e-5, 0}, {262144, 3e-6, 0}};
  cal.links.push_back(link);
  apply_fit_sanity(cal, *topo);
  ASSERT_FALSE(cal.rejected.empty());
  EXPECT_NE(cal.rejected[0].find("transfers over shm"), std::string::npos) << cal.rejected[0];
  EXPECT_EQ(cal.profile.links[shm].bandwidth_bytes_per_second, before.bandwidth_bytes_per_second);
  EXPECT_EQ(cal.profile.links[shm].alpha_seconds, before.alpha_seconds);
}

// Issue 18 item 15: calibrate interrupted (SIGINT in the command line, which
// sets the flag) keeps what it has measured: the profile has the GEMM curves
// and memory figures it got to, and the data sheet's values for the rest.
TEST(Calibrate, InterruptedKeepsWhatWasMeasured) {
  CalibrateOptions o;
  o.devices = 2;
  o.quick = true;
  std::atomic<bool> stop{false};
  o.interrupted = &stop;
  auto cal = calibrate(Backend::kCpu, o, [&](const std::string& what, int, int) {
    if (what.rfind("transfer", 0) == 0) stop = true;  // once the transfers begin
  });
  ASSERT_TRUE(cal.is_ok()) << cal.message();
  EXPECT_TRUE(cal->interrupted);
  EXPECT_FALSE(cal->gemm.empty());
  EXPECT_GT(cal->memory_peak_bytes_per_second, 0.0);
  EXPECT_TRUE(cal->links.empty());
  EXPECT_TRUE(cal->collectives.empty());
  ASSERT_FALSE(cal->not_measured.empty());
  EXPECT_NE(std::find(cal->not_measured.begin(), cal->not_measured.end(), "transfers and collectives"),
            cal->not_measured.end());
  const HardwareProfile defaults = HardwareProfile::defaults();
  const auto shm = static_cast<size_t>(LinkClass::kSharedMemory);
  EXPECT_EQ(cal->profile.links[shm].bandwidth_bytes_per_second,
            defaults.links[shm].bandwidth_bytes_per_second);
  const auto f32 = static_cast<size_t>(dtype_index(DType::kF32));
  EXPECT_FALSE(cal->profile.devices[0].gemm[f32].points.empty());
  EXPECT_GT(cal->profile.devices[0].memory_efficiency, 0.0);
}

}  // namespace
}  // namespace brigade::realexec
