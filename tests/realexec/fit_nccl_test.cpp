// Fitting NCCL's per-protocol figures (realexec/fit_nccl.hpp, issue 19 item
// 2): measurements made from known LL / LL128 / Simple lines are recovered,
// exactly without noise and within a stated tolerance with it; the fitted
// table survives a profile file; the fit-sanity rules refuse what the
// measurements contradict.
#include "realexec/fit_nccl.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/topology.hpp"

namespace brigade::realexec {
namespace {

// Truth on one DGX A100 (8 ranks, AllReduce, nsteps 14, algBw = busBw x 8/14),
// launch 5 us (us and GB/s in the comments):
//   LL     20 + M / (60 x 8/14)     LL128  45 + M / (150 x 8/14)
//   Simple 70 + M / (200 x 8/14)
// Crossovers: LL -> LL128 where 25 us = M x 14/8 x (1/60 - 1/150) / 1e9,
// M = 1.43 MB; LL128 -> Simple where 25 us = M x 14/8 x (1/150 - 1/200) / 1e9,
// M = 8.57 MB. Sizes 4 KiB x 2^(k/2), k = 0 .. 36 (4 KiB .. 1 GiB): LL k <= 16
// (17 sizes, to 1 MiB), LL128 k = 17 .. 22 (6 sizes, 1.41 .. 8 MiB), Simple
// k >= 23 (14 sizes); the preset table's ring picks LL, LL128, Simple at the
// segments' middles (64 KiB, 3.4 MiB, 106 MiB).
struct Truth {
  double lat[3] = {20e-6, 45e-6, 70e-6};
  double bus[3] = {60e9, 150e9, 200e9};
};
constexpr double kLaunch = 5e-6;

double truth_seconds(const Truth& t, double m) {
  double best = 1e300;
  for (int p = 0; p < 3; ++p) best = std::min(best, t.lat[p] + m / (t.bus[p] * 8.0 / 14.0));
  return kLaunch + best;
}

std::vector<NcclSizePoint> measure(const Truth& t, double noise) {
  std::vector<NcclSizePoint> v;
  for (int k = 0; k <= 36; ++k) {
    const double m = 4096 * std::pow(2.0, k / 2.0);
    // Deterministic noise: -noise, -noise/2, 0, +noise/2, +noise in turn.
    const double f = 1 + noise * (((k * 7) % 5) - 2) / 2.0;
    v.push_back({m, truth_seconds(t, m) * f});
  }
  return v;
}

struct A100 {
  Topology topology = make_preset("dgx-a100", 1).value();
  HardwareProfile profile = HardwareProfile::defaults();
  const NcclTable& table() const { return profile.for_device(topology.device(0)).nccl; }
  cost::NcclGroupShape shape() const {
    return cost::nccl_group_shape(topology, profile, table(), {0, 1, 2, 3, 4, 5, 6, 7});
  }
};

TEST(FitNcclProtocols, RecoversExactLines) {
  const A100 a;
  auto fit = fit_nccl_protocols(a.table(), a.shape(), CollectiveKind::kAllReduce,
                                measure(Truth{}, 0), kLaunch);
  ASSERT_TRUE(fit.is_ok()) << fit.message();
  ASSERT_EQ(fit->lines.size(), 3u);
  const Truth t;
  for (int p = 0; p < 3; ++p) {
    const NcclProtocolLine& l = fit->lines[static_cast<size_t>(p)];
    EXPECT_EQ(l.protocol, static_cast<NcclProtocol>(p));
    EXPECT_NEAR(l.latency_seconds, t.lat[p], t.lat[p] * 1e-6);
    EXPECT_NEAR(l.bus_bandwidth_bytes_per_second, t.bus[p], t.bus[p] * 1e-6);
  }
  EXPECT_EQ(fit->lines[0].points, 17);
  EXPECT_EQ(fit->lines[1].points, 6);
  EXPECT_EQ(fit->lines[2].points, 14);
  // Into NCCL's structure: base and per-step latency scaled together,
  // bandwidth factors on the graph (12 x 20.0 = 240 GB/s):
  //   Simple: 8.4 + 14 x 3.4 = 56 us -> x 70/56 = 1.25: base 10.5, nvlink 4.25 us;
  //   factor 200/240 = 0.8333; LL: 6.6 + 14 x 0.6 = 15 -> x 20/15: base 8.8, nvlink 0.8
  const NcclEntry& s = fit->table.at(NcclAlgorithm::kRing, NcclProtocol::kSimple);
  EXPECT_NEAR(s.latency_seconds, 10.5e-6, 1e-12);
  EXPECT_NEAR(s.hop_latency_seconds[0], 4.25e-6, 1e-12);
  EXPECT_NEAR(s.bandwidth_factor, 200.0 / 240.0, 1e-6);
  const NcclEntry& ll = fit->table.at(NcclAlgorithm::kRing, NcclProtocol::kLL);
  EXPECT_NEAR(ll.latency_seconds, 8.8e-6, 1e-12);
  EXPECT_NEAR(ll.hop_latency_seconds[0], 0.8e-6, 1e-12);
  EXPECT_NEAR(ll.bandwidth_factor, 0.25, 1e-6);
  EXPECT_EQ(ll.max_bandwidth_bytes_per_second[0], 0);  // measured: no single-node cap
  // The measured times hold NCCL's channels: on one node the fitted table
  // cuts no size's channels and caps no channel; across nodes the preset's
  // stand (NCCL's search, 16 coll channels, 8 graph channels).
  EXPECT_EQ(fit->table.channels_for(1), 0);
  EXPECT_EQ(fit->table.graph_channels_for(1), 0);
  EXPECT_EQ(fit->table.channels_for(4), 16);
  EXPECT_EQ(fit->table.graph_channels_for(4), 8);
  EXPECT_NEAR(fit->r_squared, 1.0, 1e-9);
  EXPECT_NEAR(fit->worst_miss, 0.0, 1e-6);
  EXPECT_EQ(nccl_fit_refusal(*fit, measure(Truth{}, 0)), "");
}

// With +-3% noise on every size (deterministic), each protocol's figures
// within the tolerance the fit promises: bus bandwidth within 5%, latency
// within 15%, and every noisy size within 6% (its own 3% of noise and the
// fit's error).
TEST(FitNcclProtocols, RecoversNoisyLinesWithinTolerance) {
  const A100 a;
  const auto pts = measure(Truth{}, 0.03);
  auto fit = fit_nccl_protocols(a.table(), a.shape(), CollectiveKind::kAllReduce, pts, kLaunch);
  ASSERT_TRUE(fit.is_ok()) << fit.message();
  ASSERT_EQ(fit->lines.size(), 3u);
  const Truth t;
  for (int p = 0; p < 3; ++p) {
    const NcclProtocolLine& l = fit->lines[static_cast<size_t>(p)];
    EXPECT_NEAR(l.latency_seconds, t.lat[p], t.lat[p] * 0.15) << p;
    EXPECT_NEAR(l.bus_bandwidth_bytes_per_second, t.bus[p], t.bus[p] * 0.05) << p;
  }
  EXPECT_LT(std::fabs(fit->worst_miss), 0.06);
  EXPECT_EQ(nccl_fit_refusal(*fit, pts), "");
}

// calibrate writes the fitted table into its profile (save_profile); read
// back, the NCCL model (ring, as measured) gives every measured time again.
TEST(FitNcclProtocols, FittedProfileReadsBackAndReproducesTheSizes) {
  A100 a;
  const auto pts = measure(Truth{}, 0);
  auto fit = fit_nccl_protocols(a.table(), a.shape(), CollectiveKind::kAllReduce, pts, kLaunch);
  ASSERT_TRUE(fit.is_ok()) << fit.message();
  for (DeviceProfile& d : a.profile.devices)
    if (d.model == a.topology.device(0).model) {
      d.nccl = fit->table;
      d.collective_overhead_seconds = kLaunch;
    }
  const std::string path = ::testing::TempDir() + "/brigade_nccl_fit.yaml";
  ASSERT_TRUE(save_profile(a.profile, path).is_ok());
  auto back = load_profile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.is_ok()) << back.message();
  for (const NcclSizePoint& p : pts) {
    auto c = cost::nccl_collective(a.topology, *back, CollectiveKind::kAllReduce,
                                   CollectiveAlgorithm::kRing, {0, 1, 2, 3, 4, 5, 6, 7}, p.bytes);
    ASSERT_TRUE(c.is_ok()) << c.message();
    ASSERT_TRUE(c->has_value());
    EXPECT_NEAR((*c)->chosen.seconds, p.seconds, p.seconds * 1e-6) << p.bytes;
  }
}

TEST(FitNcclProtocols, SanityRulesRefuse) {
  const A100 a;
  // A small size slower than a large one: the machine was busy.
  auto pts = measure(Truth{}, 0);
  // 256 KiB (k = 12): 5 + 20 + 262144 / 34.2857e3 = 32.646 us; 8 KiB (k = 2)
  // made 3 x that, slower than 11.3 KiB (k = 3): 5 + 20 + 11585 / 34.2857e3.
  pts[2].seconds = 3 * pts[12].seconds;
  auto fit = fit_nccl_protocols(a.table(), a.shape(), CollectiveKind::kAllReduce, pts, kLaunch);
  ASSERT_TRUE(fit.is_ok()) << fit.message();
  EXPECT_EQ(nccl_fit_refusal(*fit, pts), "8.00 KiB took 97.9 us, longer than 11.3 KiB (25.3 us)");
  // The bandwidth collapsing above 16 MiB (every byte beyond it at half the
  // rate): no envelope of protocol lines, whose bandwidths only rise, follows
  // that; the fit keeps its lines rising and says how far it misses.
  std::vector<NcclSizePoint> collapse;
  for (const NcclSizePoint& p : measure(Truth{}, 0)) {
    const double m0 = 16.0 * 1048576;
    const double extra = p.bytes > m0 ? (p.bytes - m0) / (200e9 * 8 / 14) : 0;
    collapse.push_back({p.bytes, p.seconds + extra});
  }
  auto f2 = fit_nccl_protocols(a.table(), a.shape(), CollectiveKind::kAllReduce, collapse, kLaunch);
  ASSERT_TRUE(f2.is_ok()) << f2.message();
  for (size_t k = 1; k < f2->lines.size(); ++k) {
    EXPECT_GE(f2->lines[k].alg_bandwidth_bytes_per_second,
              f2->lines[k - 1].alg_bandwidth_bytes_per_second);
    EXPECT_GE(f2->lines[k].latency_seconds, f2->lines[k - 1].latency_seconds);
  }
  EXPECT_GT(std::fabs(f2->worst_miss), 0.05) << f2->worst_miss;
  // Bad arguments.
  auto one =
      fit_nccl_protocols(a.table(), a.shape(), CollectiveKind::kAllReduce, {{4096, 1e-5}}, 0);
  ASSERT_FALSE(one.is_ok());
  EXPECT_EQ(one.message(),
            "found 1 usable sizes; expected at least 2 (positive sizes with times "
            "above the launch)");
  auto bc = fit_nccl_protocols(a.table(), a.shape(), CollectiveKind::kBroadcast, pts, 0);
  ASSERT_FALSE(bc.is_ok());
  EXPECT_EQ(bc.message(),
            "found broadcast; expected allreduce, allgather or reducescatter (the "
            "ring's per-protocol figures)");
}

}  // namespace
}  // namespace brigade::realexec
