// The fit `brigade calibrate --nccl-tests` makes of measured collective
// times on a preset's node (realexec/nccl_tests_import.hpp; the file reader:
// tests/core/nccl_tests_test.cpp).
#include "realexec/nccl_tests_import.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/profile.hpp"

namespace brigade::realexec {
namespace {

// Times made from three known lines on one DGX A100 (the truth of
// fit_nccl_test.cpp: LL 20 us + M / (60 x 8/14 GB/s), LL128 45 + M / (150 x
// 8/14), Simple 70 + M / (200 x 8/14); the presets' collective launch is 0)
// come back as those lines, and the profile carries the fitted table for
// the A100 only.
TEST(NcclTestsImport, FitsAPresetsNodeAndWritesItsDevice) {
  std::vector<NcclSizePoint> pts;
  const double lat[3] = {20e-6, 45e-6, 70e-6}, bus[3] = {60e9, 150e9, 200e9};
  for (int k = 0; k <= 36; ++k) {
    const double m = 4096 * std::pow(2.0, k / 2.0);
    double best = 1e300;
    for (int p = 0; p < 3; ++p) best = std::min(best, lat[p] + m / (bus[p] * 8.0 / 14.0));
    pts.push_back({m, best});
  }
  auto f = fit_nccl_tests("dgx-a100", 8, CollectiveKind::kAllReduce, NcclVersion::k2_29, pts);
  ASSERT_TRUE(f.is_ok()) << f.message();
  EXPECT_EQ(f->device_model, "NVIDIA A100-SXM4-80GB");
  ASSERT_EQ(f->fit.lines.size(), 3u);
  for (int p = 0; p < 3; ++p) {
    EXPECT_NEAR(f->fit.lines[static_cast<size_t>(p)].latency_seconds, lat[p], lat[p] * 1e-6);
    EXPECT_NEAR(f->fit.lines[static_cast<size_t>(p)].bus_bandwidth_bytes_per_second, bus[p],
                bus[p] * 1e-6);
  }
  const Topology a100 = make_preset("dgx-a100", 1).value();
  const NcclTable& t = f->profile.for_device(a100.device(0)).nccl;
  // Simple: bandwidth factor 200 / 240 on the 12 x 20 GB/s graph.
  EXPECT_NEAR(t.at(NcclAlgorithm::kRing, NcclProtocol::kSimple).bandwidth_factor, 200.0 / 240.0,
              1e-6);
  // The H100's table is the presets' own.
  const Topology h100 = make_preset("dgx-h100", 1).value();
  EXPECT_EQ(f->profile.for_device(h100.device(0)).nccl.at(NcclAlgorithm::kRing, NcclProtocol::kSimple)
                .bandwidth_factor,
            HardwareProfile::defaults()
                .for_device(h100.device(0))
                .nccl.at(NcclAlgorithm::kRing, NcclProtocol::kSimple)
                .bandwidth_factor);
}

TEST(NcclTestsImport, RefusesWhatItCannotFit) {
  const std::vector<NcclSizePoint> pts = {{1e6, 50e-6}, {2e6, 60e-6}, {4e6, 80e-6}};
  auto cpu = fit_nccl_tests("cpu-host", 2, CollectiveKind::kAllReduce, NcclVersion::k2_29, pts);
  ASSERT_FALSE(cpu.is_ok());
  EXPECT_EQ(cpu.message().rfind("found preset 'cpu-host', whose devices have no NCCL table", 0),
            0u)
      << cpu.message();
  auto one = fit_nccl_tests("h200x1", 1, CollectiveKind::kAllReduce, NcclVersion::k2_29, pts);
  ASSERT_FALSE(one.is_ok());
  EXPECT_EQ(one.message(),
            "found preset 'h200x1', one GPU a node; expected a node of two GPUs or more (an "
            "nccl-tests table is measured between GPUs)");
  auto many = fit_nccl_tests("dgx-a100", 9, CollectiveKind::kAllReduce, NcclVersion::k2_29, pts);
  ASSERT_FALSE(many.is_ok());
  EXPECT_EQ(many.message(),
            "found 9 ranks; expected 2 to 8, the GPUs of one dgx-a100 node the table was measured "
            "on");
  // Times that fall as sizes grow: the fit-sanity rules refuse them.
  const std::vector<NcclSizePoint> falling = {
      {1e6, 300e-6}, {2e6, 60e-6}, {4e6, 80e-6}, {8e6, 120e-6}, {16e6, 200e-6}};
  auto busy = fit_nccl_tests("dgx-a100", 8, CollectiveKind::kAllReduce, NcclVersion::k2_29, falling);
  ASSERT_FALSE(busy.is_ok());
  EXPECT_EQ(busy.message().rfind("found times NCCL's protocols do not explain: ", 0), 0u)
      << busy.message();
}

}  // namespace
}  // namespace brigade::realexec
