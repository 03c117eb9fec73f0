// Coarse rings (SimOptions::ring_max_steps, docs/simulator.md "Coarse
// rings"): a ring phase of more than N steps runs as at most N super-steps
// of g steps each, one message of g times the bytes and g times the alpha.
// On an idle network that is the ring's closed form still; off (0) nothing
// changes.
#include <gtest/gtest.h>

#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::kGiB;
using testing::plain_profile;
using testing::rel_err;
using testing::star;

Program one_ring(int n, CollectiveKind kind, double bytes) {
  ProgramBuilder b("ring", n);
  std::vector<std::int32_t> group;
  std::vector<StreamId> streams;
  for (int d = 0; d < n; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "comm"));
  }
  b.add_collective(kind, CollectiveAlgorithm::kRing, group, bytes, streams, "ring");
  return build(std::move(b));
}

SimResult run_coarse(const Program& p, const Topology& t, const HardwareProfile& h,
                     NetworkModel net, std::int32_t max_steps) {
  SimOptions o;
  o.network = net;
  o.exact = true;
  o.ring_max_steps = max_steps;
  auto r = simulate(p, t, h, o);
  EXPECT_TRUE(r.is_ok()) << r.message();
  return std::move(r).value();
}

TEST(CoarseRing, IdleRingKeepsTheClosedFormWithFewerMessages) {
  // N = 16 ranks, M = 1 GiB, alpha = 2 us, B = 100 GB/s (star: every route
  // alone on its channels), no overhead. Ring AllGather / ReduceScatter:
  //   15 alpha + 15/16 M / B = 30e-6 + 0.9375 * 2^30 / 1e11
  //                          = 30e-6 + 0.01006632960 = 0.01009632960 s
  // AllReduce: twice that, 0.02019265920 s.
  // ring_max_steps 4: a phase of 15 steps runs as ceil(15 / 4) = 4 super-steps
  // (g = 4: 4 + 4 + 4 + 3 steps); each super-step takes g (alpha + M / (N B)),
  // so the sum is the same. Messages: 16 ranks x 4 super-steps per phase.
  const Topology t = star(16, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  struct Case {
    CollectiveKind kind;
    double want_seconds;
    std::int64_t exact_flows, coarse_flows;
  };
  for (const Case& c : {Case{CollectiveKind::kAllGather, 0.0100963296, 15 * 16, 4 * 16},
                        Case{CollectiveKind::kReduceScatter, 0.0100963296, 15 * 16, 4 * 16},
                        Case{CollectiveKind::kAllReduce, 0.0201926592, 30 * 16, 8 * 16}}) {
    const Program p = one_ring(16, c.kind, kGiB);
    for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
      const SimResult exact = run_coarse(p, t, h, net, 0);
      const SimResult coarse = run_coarse(p, t, h, net, 4);
      EXPECT_LT(rel_err(exact.step_seconds, c.want_seconds), 1e-9);
      EXPECT_LT(rel_err(coarse.step_seconds, c.want_seconds), 1e-9);
      EXPECT_EQ(exact.flows, c.exact_flows);
      EXPECT_EQ(coarse.flows, c.coarse_flows);
      // Every byte still crosses every link.
      for (size_t l = 0; l < exact.links.size(); ++l)
        EXPECT_LT(rel_err(coarse.links[l].bytes, exact.links[l].bytes), 1e-12)
            << exact.links[l].name;
    }
  }
}

TEST(CoarseRing, PhasesOfAtMostTheLimitAreUntouched) {
  // 8 ranks: 7 steps per phase, not above 7 or 8: the run is the same bit for
  // bit (same messages, same events); above it (4) it is not.
  const Topology t = star(8, 100e9, 2e-6);
  const HardwareProfile h = plain_profile(6e-6);
  const Program p = one_ring(8, CollectiveKind::kAllReduce, 3e8);
  const SimResult off = run_coarse(p, t, h, NetworkModel::kFlow, 0);
  for (std::int32_t m : {7, 8, 1000}) {
    const SimResult same = run_coarse(p, t, h, NetworkModel::kFlow, m);
    EXPECT_EQ(same.step_seconds, off.step_seconds);
    EXPECT_EQ(same.flows, off.flows);
    EXPECT_EQ(same.events, off.events);
  }
  EXPECT_LT(run_coarse(p, t, h, NetworkModel::kFlow, 4).flows, off.flows);
}

TEST(CoarseRing, ContendedRingsStayCloseToTheStepByStepRun) {
  // Two rings of 12 ranks over the same 12 devices at once (two streams a
  // device, in opposite directions): every channel is shared by both, max-min
  // fair. In super-steps of 3 steps (ceil(11 / 4)) the rings meet in coarser
  // slices: under `flow` the step moves by 2.9e-4 of itself (the bound held
  // here: 1e-3); under `ideal` (no sharing) it cannot move. Every link still
  // carries the same bytes.
  const Topology t = star(12, 100e9, 2e-6);
  const HardwareProfile h = plain_profile(6e-6);
  ProgramBuilder b("two rings", 12);
  std::vector<std::int32_t> group, reversed;
  std::vector<StreamId> s1, s2, s2r;
  for (int d = 0; d < 12; ++d) {
    group.push_back(d);
    s1.push_back(b.stream(d, "a"));
    s2.push_back(b.stream(d, "b"));
  }
  for (int d = 11; d >= 0; --d) {
    reversed.push_back(d);
    s2r.push_back(s2[static_cast<size_t>(d)]);
  }
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, 6e8, s1, "ar");
  b.add_collective(CollectiveKind::kAllGather, CollectiveAlgorithm::kRing, reversed, 3e8, s2r,
                   "ag");
  const Program p = build(std::move(b));
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const SimResult exact = run_coarse(p, t, h, net, 0);
    const SimResult coarse = run_coarse(p, t, h, net, 4);
    EXPECT_LT(coarse.flows, exact.flows);
    EXPECT_LT(rel_err(coarse.step_seconds, exact.step_seconds),
              net == NetworkModel::kIdeal ? 1e-12 : 1e-3)
        << network_model_name(net);
    if (net == NetworkModel::kFlow) {
      EXPECT_NE(coarse.step_seconds, exact.step_seconds);  // not the same run
    }
    for (size_t l = 0; l < exact.links.size(); ++l)
      EXPECT_LT(rel_err(coarse.links[l].bytes, exact.links[l].bytes), 1e-12) << exact.links[l].name;
  }
}

}  // namespace
}  // namespace brigade::sim
