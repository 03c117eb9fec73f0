// Calibration in --quick mode (tiny sizes, seconds): the profile comes out
// whole, records the measured peaks with efficiencies relative to them, and
// its fitted numbers are of the right sign. No timing assertions: the
// figures themselves depend on the machine (docs/VALIDATION.md has them).
#include "realexec/calibrate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/topology.hpp"
#include "costmodel/collectives.hpp"

namespace brigade::realexec {
namespace {

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
  }
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
  std::remove(path.c_str());
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
  EXPECT_EQ(cal.status().kind(), ErrorKind::kBadInput);
  EXPECT_EQ(cal.message(), why);
}

}  // namespace
}  // namespace brigade::realexec
