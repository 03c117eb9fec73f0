// Split held rings (Engine::split_held, docs/simulator.md "Split rings"): a
// ring the checked shortcut holds, joined by a flow, is replayed to that
// instant and goes on expanded from there, in the same run. Held to the
// full expansion (SimOptions::exact) and to the run that refuses the ring
// and expands it from its start (detail::split_checked_rings(false)).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/topology.hpp"
#include "sim/report.hpp"
#include "sim/shortcut.hpp"
#include "sim/simulator.hpp"
#include "sim/simulator_detail.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::rel_err;

constexpr int kRanks = 128;
static_assert(kRanks >= static_cast<int>(kCheckedShortcutMinRanks));

SimResult run(const Program& p, const Topology& t, const HardwareProfile& h, bool exact, bool split,
              std::int32_t ring_max_steps = 0) {
  detail::split_checked_rings(split);
  SimOptions o;
  o.network = NetworkModel::kFlow;
  o.exact = exact;
  o.record_task_times = true;
  o.ring_max_steps = ring_max_steps;
  auto r = simulate(p, t, h, o);
  detail::split_checked_rings(true);
  EXPECT_TRUE(r.is_ok()) << r.message();
  return std::move(r).value();
}

// 16 DGX A100 nodes: a `kind` ring over the 128 GPUs on "dp" streams, and
// 64 MB transfers from GPU `from` to GPU `from` + 1 on a "pp" stream, each
// behind a kernel on GPU `from`, the kernels one after the other with
// `flops` between them (no stream in common with the ring: a candidate for
// the checked shortcut). The transfers' route is the ring's hop from rank
// `from` (NVLink within a node; the fabric from GPU 7 to 8).
Program ring_joined_by(CollectiveKind kind, int from, std::vector<double> flops) {
  ProgramBuilder b("ring_joined_by", kRanks);
  std::vector<StreamId> dp(kRanks);
  std::vector<std::int32_t> group(kRanks);
  for (int d = 0; d < kRanks; ++d) {
    dp[static_cast<size_t>(d)] = b.stream(d, "dp");
    group[static_cast<size_t>(d)] = d;
  }
  const StreamId compute = b.stream(from, "compute"), pp = b.stream(from, "pp");
  for (double flop : flops) {
    const TaskId kernel = b.add_fixed(compute, flop, 0, DType::kBF16, "kernel");
    const TaskId send = b.add_transfer(pp, from + 1, 64e6, "send");
    b.depend(send, kernel);
  }
  b.add_collective(kind, CollectiveAlgorithm::kRing, group, 512e6, dp, "dp");
  return build(std::move(b));
}

TEST(SplitRing, GoesOnExpandedFromTheInstantAFlowJoins) {
  auto t = make_preset("dgx-a100", 16);
  ASSERT_TRUE(t.is_ok());
  // Alpha-beta collectives: every hop on the topology's channels (under
  // NCCL's model a step across nodes runs on a channel of its own).
  const HardwareProfile h = testing::plain_profile();
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter, CollectiveKind::kAllGather})
    for (int from : {0, 7}) {
      // The ring's time alone and a kernel's time per FLOP (the transfer
      // behind a kernel far longer than the ring).
      const Program alone = ring_joined_by(kind, from, {1e16});
      const SimResult a = run(alone, *t, h, true, true);
      const TaskId ring_task = alone.collectives()[0].tasks[0];
      const double ring = a.task_end_seconds[static_cast<size_t>(ring_task)] -
                          a.task_start_seconds[static_cast<size_t>(ring_task)];
      const double per_flop = (a.task_end_seconds[0] - a.task_start_seconds[0]) / 1e16;
      ASSERT_GT(ring, 0);
      // The transfer joins in the first step's alpha (1e3 FLOP), at a third
      // of the ring's time, and at 0.77 of it.
      for (double at : {0.0, 0.33, 0.77})
        for (std::int32_t coarse : {0, 8}) {
          const double flop = at > 0 ? at * ring / per_flop : 1e3;
          SCOPED_TRACE(::testing::Message() << collective_kind_name(kind) << " from " << from << " at " << at
                                            << " ring_max_steps " << coarse);
          const Program p = ring_joined_by(kind, from, {flop});
          const SimResult split = run(p, *t, h, false, true, coarse);
          const SimResult refused = run(p, *t, h, false, false, coarse);
          const SimResult full = run(p, *t, h, true, true, coarse);
          EXPECT_EQ(split.runs, 1);
          EXPECT_EQ(split.collectives_split, 1);
          EXPECT_EQ(split.collectives_shortcut, 0);
          EXPECT_EQ(refused.runs, 2);
          EXPECT_EQ(refused.collectives_split, 0);
          // Only the messages from the join until the transfer has left are
          // flows (the transfer's too).
          EXPECT_LT(split.flows, full.flows);
          // Held again once the transfer has left its channels.
          EXPECT_EQ(split.holds_again, 1);
          EXPECT_GT(split.flows, 1);
          testing::expect_close_figures(split, full, 1e-9);
          testing::expect_close_figures(split, refused, 1e-9);
        }
    }
}

// Under NCCL's model (the preset's profile) the ring's steps across nodes
// run on channels of their own, off the links (SimResult::off_link_bytes),
// and those within a node share the NVLinks, where a transfer from GPU 0 to
// 1 joins and splits it: the bytes off the links, the shortcut's taken out
// at the split and the replay's put back, are the full expansion's.
TEST(SplitRing, UnderNcclsModelTheBytesOffTheLinksAreTheExpansions) {
  auto t = make_preset("dgx-a100", 16);
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = HardwareProfile::defaults();
  const Program alone = ring_joined_by(CollectiveKind::kAllReduce, 0, {1e16});
  const SimResult a = run(alone, *t, h, true, true);
  const TaskId ring_task = alone.collectives()[0].tasks[0];
  const double ring = a.task_end_seconds[static_cast<size_t>(ring_task)] -
                      a.task_start_seconds[static_cast<size_t>(ring_task)];
  const double per_flop = (a.task_end_seconds[0] - a.task_start_seconds[0]) / 1e16;
  const Program p = ring_joined_by(CollectiveKind::kAllReduce, 0, {0.33 * ring / per_flop});
  const SimResult split = run(p, *t, h, false, true);
  const SimResult full = run(p, *t, h, true, true);
  EXPECT_EQ(split.collectives_split, 1);
  EXPECT_GT(full.off_link_bytes, 0);
  testing::expect_close_figures(split, full, 1e-9);
}

// A held ring joined twice: split at the first transfer, held again when it
// has left, split again from that state at the second, held again after it.
TEST(SplitRing, SplitsAgainFromWhereItWasHeldAgain) {
  auto t = make_preset("dgx-a100", 16);
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = testing::plain_profile();
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter})
    for (int from : {0, 7}) {
      SCOPED_TRACE(::testing::Message() << collective_kind_name(kind) << " from " << from);
      // A 64 MB transfer takes ~0.2 ms on NVLink, ~3 ms on the fabric; the
      // ring ~20-40 ms: joins at ~1 ms and ~9 ms (3e11 FLOP ~ 1 ms).
      const Program p = ring_joined_by(kind, from, {3e11, 2.4e12});
      const SimResult split = run(p, *t, h, false, true);
      const SimResult full = run(p, *t, h, true, true);
      EXPECT_EQ(split.runs, 1);
      EXPECT_EQ(split.collectives_split, 1);
      EXPECT_EQ(split.holds_again, 2);
      EXPECT_LT(split.flows, full.flows);
      testing::expect_close_figures(split, full, 1e-9);
    }
}

// Two rings over the same 128 GPUs: the first held by the shortcut; the
// second starts behind a kernel while the first runs, finds its channels
// held, runs expanded, and its first messages split the first ring.
TEST(SplitRing, AnotherCollectivesMessagesSplitIt) {
  auto t = make_preset("dgx-a100", 16);
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = testing::plain_profile();
  ProgramBuilder b("two_rings", kRanks);
  std::vector<StreamId> dp(kRanks), dp2(kRanks);
  std::vector<std::int32_t> group(kRanks);
  for (int d = 0; d < kRanks; ++d) {
    dp[static_cast<size_t>(d)] = b.stream(d, "dp");
    dp2[static_cast<size_t>(d)] = b.stream(d, "dp2");
    group[static_cast<size_t>(d)] = d;
  }
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, 512e6, dp, "ar");
  const TaskId kernel = b.add_fixed(b.stream(0, "compute"), 3e12, 0, DType::kBF16, "kernel");
  const CollectiveId ar2 =
      b.add_collective(CollectiveKind::kReduceScatter, CollectiveAlgorithm::kRing, group, 256e6, dp2, "rs");
  b.depend(b.collective_task(ar2, 0), kernel);
  const Program p = build(std::move(b));
  const SimResult split = run(p, *t, h, false, true);
  const SimResult full = run(p, *t, h, true, true);
  EXPECT_EQ(split.runs, 1);
  EXPECT_EQ(split.collectives_split, 1);
  EXPECT_LT(split.flows, full.flows);
  testing::expect_close_figures(split, full, 1e-9);
  // The report says so.
  EXPECT_NE(simulation_text(split, p, *t).find("0 collectives by shortcut, 1 split ("), std::string::npos);
  EXPECT_EQ(simulation_json(split, p, *t).value("collectives_split", 0), 1);
  EXPECT_FALSE(simulation_json(full, p, *t).contains("collectives_split"));
}

// Two switches of 64 GPUs joined by one link, and a ring that alternates
// between them: every hop crosses that link, so the ring's messages share
// it and its isolated run is no lockstep of lone messages. A flow that
// joins it cannot split it: it is refused and expanded in a second run.
TEST(SplitRing, RefusesWhereItsHopsShareAChannel) {
  Topology t;
  t.preset = "two_switches";
  for (int i = 0; i < kRanks; ++i) t.add_device(testing::a100("gpu" + std::to_string(i)));
  const int a = t.add_switch(Switch{"a", 0});
  const int c = t.add_switch(Switch{"b", 1});
  for (int i = 0; i < kRanks; ++i)
    t.add_link(Link{i, i < kRanks / 2 ? a : c, 1e-6, 100e9, LinkClass::kNvlink, "gpu" + std::to_string(i)});
  t.add_link(Link{a, c, 1e-6, 400e9, LinkClass::kNvlink, "a<->b"});
  const HardwareProfile h = testing::plain_profile();
  ProgramBuilder b("alternating", kRanks);
  std::vector<StreamId> dp(kRanks);
  std::vector<std::int32_t> group;
  for (int i = 0; i < kRanks / 2; ++i) {
    group.push_back(i);
    group.push_back(i + kRanks / 2);
  }
  for (int d = 0; d < kRanks; ++d) dp[static_cast<size_t>(group[static_cast<size_t>(d)])] = b.stream(group[static_cast<size_t>(d)], "dp");
  std::vector<StreamId> streams;
  for (int r : group) streams.push_back(dp[static_cast<size_t>(r)]);
  const TaskId kernel = b.add_fixed(b.stream(0, "compute"), 3e11, 0, DType::kBF16, "kernel");
  const TaskId send = b.add_transfer(b.stream(0, "pp"), kRanks / 2, 64e6, "send");
  b.depend(send, kernel);
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, 512e6, streams, "dp");
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, h, false, true);
  const SimResult full = run(p, t, h, true, true);
  EXPECT_EQ(r.runs, 2);
  EXPECT_EQ(r.collectives_split, 0);
  testing::expect_close_figures(r, full, 1e-9);
}

}  // namespace
}  // namespace brigade::sim
