// The roofline and the achieved-bandwidth rules every judge shares
// (core/profile.hpp), with a calibrated profile's measured peaks.
#include "core/profile.hpp"

#include <gtest/gtest.h>

namespace brigade {
namespace {

Device host_device() {
  Device d;
  d.model = "m";
  d.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))] = 80e9;
  d.memory_bandwidth_bytes_per_second = 10e9;
  d.memory_bytes = 1e9;
  return d;
}

// Roofline (Williams et al. 2009): launch + max(F / (peak * eff), B / (bw * eff)).
// Data sheet: 1e9 FLOP / (80e9 * 0.5) = 25 ms; 1e8 B / (10e9 * 0.8) = 12.5 ms;
// launch 1 us -> 25.001 ms.
TEST(KernelSeconds, DataSheetRoofline) {
  DeviceProfile p;
  p.gemm[static_cast<size_t>(dtype_index(DType::kF32))].fallback = 0.5;
  p.memory_efficiency = 0.8;
  p.launch_overhead_seconds = 1e-6;
  EXPECT_DOUBLE_EQ(kernel_seconds(host_device(), p, DType::kF32, 1e9, 1e8), 0.025001);
}

// A calibrated profile's peaks replace the data sheet's: with 100 GFLOP/s and
// 200 GB/s measured, 1e9 FLOP at efficiency 0.5 is 20 ms and 1e9 B at 0.8 is
// 6.25 ms -> 20 ms (+ 1 us).
TEST(KernelSeconds, MeasuredPeaksReplaceTheDataSheet) {
  DeviceProfile p;
  p.gemm[static_cast<size_t>(dtype_index(DType::kF32))].fallback = 0.5;
  p.memory_efficiency = 0.8;
  p.launch_overhead_seconds = 1e-6;
  p.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))] = 100e9;
  p.memory_bandwidth_bytes_per_second = 200e9;
  EXPECT_DOUBLE_EQ(kernel_seconds(host_device(), p, DType::kF32, 1e9, 1e9), 0.020001);
  // bf16 has no peak in either: it falls back to f32's measured peak.
  EXPECT_DOUBLE_EQ(peak_flops_per_second(host_device(), p, DType::kBF16), 100e9);
  EXPECT_DOUBLE_EQ(peak_memory_bandwidth_bytes_per_second(host_device(), p), 200e9);
}

// Achieved link bandwidth: (profile's bandwidth, else the link's) x efficiency.
TEST(AchievedLinkBandwidth, ProfileBandwidthReplacesTheLinks) {
  Link l{0, 1, 1e-6, 10e9, LinkClass::kSharedMemory, "a-b"};
  HardwareProfile h;
  h.links[static_cast<size_t>(LinkClass::kSharedMemory)] = {-1, 0.5};
  EXPECT_DOUBLE_EQ(achieved_link_bandwidth_bytes_per_second(l, h), 5e9);
  h.links[static_cast<size_t>(LinkClass::kSharedMemory)] = {-1, 0.5, 60e9};
  EXPECT_DOUBLE_EQ(achieved_link_bandwidth_bytes_per_second(l, h), 30e9);
}

}  // namespace
}  // namespace brigade
