// The shortcut's two additions for large plans (sim/shortcut.hpp): isolated
// runs shared by collectives of the same shape, and the shortcut checked as
// the run goes for collectives of kCheckedShortcutMinRanks ranks or more.
// Both are held to the full expansion (SimOptions::exact) or to the run
// without them.
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
using testing::run;

// Four DGX A100 nodes: per node, tensor-parallel AllReduces (8 ranks over
// NVLink, their own channels: shortcut before the run) of two sizes, and
// across nodes, per local GPU index, an AllReduce on "dp" streams sharing
// its NIC with transfers on "pp" streams (expanded). The 8 nodes-wide
// groups have one shape; so have the 4 node groups.
Program shapes_program() {
  ProgramBuilder b("shapes", 32);
  std::vector<StreamId> compute(32), dp(32), pp(32);
  for (int d = 0; d < 32; ++d) {
    compute[static_cast<size_t>(d)] = b.stream(d, "compute");
    dp[static_cast<size_t>(d)] = b.stream(d, "dp");
    pp[static_cast<size_t>(d)] = b.stream(d, "pp");
  }
  for (int node = 0; node < 4; ++node) {
    std::vector<std::int32_t> group;
    std::vector<StreamId> streams;
    for (int i = 0; i < 8; ++i) {
      group.push_back(node * 8 + i);
      streams.push_back(compute[static_cast<size_t>(node * 8 + i)]);
    }
    for (int l = 0; l < 4; ++l) {
      for (int i = 0; i < 8; ++i)
        b.add_gemm(compute[static_cast<size_t>(node * 8 + i)], 2048, 2048, 4096, DType::kBF16,
                   "mm");
      b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group,
                       (l % 2 ? 8.0 : 4.0) * 1048576, streams, "tp");
    }
  }
  for (int i = 0; i < 8; ++i) {
    std::vector<std::int32_t> group;
    std::vector<StreamId> streams;
    for (int node = 0; node < 4; ++node) {
      group.push_back(node * 8 + i);
      streams.push_back(dp[static_cast<size_t>(node * 8 + i)]);
    }
    b.add_transfer(pp[static_cast<size_t>(i)], 8 + i, 16e6, "send");
    b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, 64e6, streams,
                     "dp");
  }
  return build(std::move(b));
}

TEST(ShortcutShapes, SharedIsolatedRunsGiveTheSameFiguresBitForBit) {
  auto t = make_preset("dgx-a100", 4);
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = HardwareProfile::defaults();
  const Program p = shapes_program();
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    detail::share_shortcut_shapes(false);
    const SimResult apart = run(p, *t, h, net);
    detail::share_shortcut_shapes(true);
    const SimResult shared = run(p, *t, h, net);
    const SimResult full = run(p, *t, h, net, /*exact=*/true);
    // 16 tensor-parallel collectives by the shortcut (4 nodes x 4 layers:
    // 2 sizes x 4 node groups, one shape: one isolated run per size when
    // shared, 8 apart).
    EXPECT_EQ(shared.collectives_shortcut, 16);
    EXPECT_EQ(apart.collectives_shortcut, 16);
    testing::expect_close_figures(shared, apart, 0.0);  // the same numbers, not close ones
    EXPECT_EQ(shared.events, apart.events);
    EXPECT_EQ(shared.flows, apart.flows);
    testing::expect_close_figures(shared, full, 1e-9);
  }
}

// 16 DGX A100 nodes, 128 GPUs: one ring AllReduce over all of them on "dp"
// streams (kCheckedShortcutMinRanks ranks), and a transfer from GPU 0 to
// GPU 1 on a "pp" stream, whose route (NVLink, through the node's switch) is
// the ring's step from rank 0 to rank 1: no stream in common, so no
// shortcut before the run. `when` places the transfer: before the ring (the ring's first task
// waits for it), after it (behind a ~3 s kernel the ring's tasks do not
// wait for; the ring takes milliseconds), or while it runs (behind a ~1 ms
// kernel).
enum class When { kBefore, kAfter, kWith };

Program ring_and_transfer(When when) {
  constexpr int n = 128;
  static_assert(n >= static_cast<int>(kCheckedShortcutMinRanks));
  ProgramBuilder b("ring_and_transfer", n);
  std::vector<StreamId> dp(n);
  std::vector<std::int32_t> group(n);
  for (int d = 0; d < n; ++d) {
    dp[static_cast<size_t>(d)] = b.stream(d, "dp");
    group[static_cast<size_t>(d)] = d;
  }
  const StreamId pp = b.stream(0, "pp");
  const StreamId compute = b.stream(0, "compute");
  // Before the transfer (not before the ring): a kernel of ~3 s, or of ~1 ms
  // (the transfer joins the ring's channels while the ring runs).
  const TaskId kernel =
      when == When::kBefore
          ? -1
          : b.add_fixed(compute, when == When::kAfter ? 1e15 : 3e11, 0, DType::kBF16, "kernel");
  const TaskId send = b.add_transfer(pp, 1, 256e6, "send");
  if (kernel >= 0) b.depend(send, kernel);
  const CollectiveId c = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                          group, 512e6, dp, "dp");
  if (when == When::kBefore) b.depend(b.collective_task(c, 0), send);
  return build(std::move(b));
}

TEST(CheckedShortcut, RunsTheRingByTheShortcutWhenNoFlowJoinsItsChannels) {
  auto t = make_preset("dgx-a100", 16);
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = HardwareProfile::defaults();
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow})
    for (When when : {When::kBefore, When::kAfter}) {
      const Program p = ring_and_transfer(when);
      const SimResult fast = run(p, *t, h, net);
      const SimResult full = run(p, *t, h, net, /*exact=*/true);
      EXPECT_EQ(fast.collectives_shortcut, 1);
      EXPECT_EQ(fast.runs, 1);
      EXPECT_EQ(fast.flows, 1);  // the transfer's
      EXPECT_EQ(full.flows, 1 + 2 * 127 * 128);
      testing::expect_close_figures(fast, full, 1e-9);
    }
}

// Where a held ring is not split (the ideal network; split_ring_test.cpp
// holds the flow network's split to this), a flow that joins it refuses it.
TEST(CheckedShortcut, ExpandsTheRingInASecondRunWhenAFlowJoinsItsChannels) {
  auto t = make_preset("dgx-a100", 16);
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = HardwareProfile::defaults();
  detail::split_checked_rings(false);
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const Program p = ring_and_transfer(When::kWith);
    const SimResult fast = run(p, *t, h, net);
    const SimResult full = run(p, *t, h, net, /*exact=*/true);
    EXPECT_EQ(fast.runs, 2);
    EXPECT_EQ(fast.collectives_shortcut, 0);
    EXPECT_EQ(fast.flows, full.flows);
    EXPECT_EQ(fast.events, full.events);
    testing::expect_close_figures(fast, full, 0.0);  // expanded in both: the same run
    // The report says so.
    EXPECT_NE(simulation_text(fast, p, *t).find("collectives by shortcut; the last of 2 runs)"),
              std::string::npos);
    EXPECT_EQ(simulation_json(fast, p, *t).value("runs", 0), 2);
    EXPECT_FALSE(simulation_json(full, p, *t).contains("runs"));
  }
  detail::split_checked_rings(true);
}


// 16 DGX A100 nodes, 128 GPUs, for the resumed runs: a prefix of kernels and
// transfers on every GPU (two rounds of a kernel, then a send to the same
// GPU index of the next node), then ring_and_transfer(kWith)'s case after
// it: a ring AllReduce over the 128 GPUs on "dp" streams, and, ~1 ms after
// it starts (behind a kernel on a "side" stream of GPU 0), a transfer from
// GPU 0 to GPU 1 that joins its channels (refused: expanded in the second
// run); then, behind a ~3 s kernel, a second AllReduce on "dp2" streams,
// alone (by the shortcut in every run).
Program prefix_then_rings() {
  constexpr int n = 128;
  ProgramBuilder b("prefix_then_rings", n);
  std::vector<StreamId> dp(n), dp2(n), pp(n), compute(n);
  std::vector<std::int32_t> group(n);
  for (int d = 0; d < n; ++d) {
    dp[static_cast<size_t>(d)] = b.stream(d, "dp");
    dp2[static_cast<size_t>(d)] = b.stream(d, "dp2");
    pp[static_cast<size_t>(d)] = b.stream(d, "pp");
    compute[static_cast<size_t>(d)] = b.stream(d, "compute");
    group[static_cast<size_t>(d)] = d;
  }
  std::vector<TaskId> last(n, -1);
  for (int round = 0; round < 2; ++round)
    for (int d = 0; d < n; ++d) {
      const TaskId k = b.add_fixed(compute[static_cast<size_t>(d)], 1e11, 0, DType::kBF16, "fwd");
      const TaskId x = b.add_transfer(pp[static_cast<size_t>(d)], (d + 8) % n, 32e6, "send");
      b.depend(x, k);
      last[static_cast<size_t>(d)] = x;
    }
  const StreamId side = b.stream(0, "side");
  const TaskId short_kernel = b.add_fixed(side, 3e11, 0, DType::kBF16, "short");
  b.depend(short_kernel, last[0]);
  const TaskId late = b.add_transfer(pp[0], 1, 256e6, "late send");
  b.depend(late, short_kernel);
  const CollectiveId ar = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                           group, 512e6, dp, "ar");
  for (int d = 0; d < n; ++d) b.depend(b.collective_task(ar, d), last[static_cast<size_t>(d)]);
  const TaskId long_kernel = b.add_fixed(side, 1e15, 0, DType::kBF16, "long");
  const CollectiveId ar2 = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                            group, 256e6, dp2, "ar2");
  b.depend(b.collective_task(ar2, 0), long_kernel);
  return build(std::move(b));
}

TEST(CheckedShortcut, ALaterRunResumesTheFirstRunsStateBitForBit) {
  auto t = make_preset("dgx-a100", 16);
  ASSERT_TRUE(t.is_ok());
  detail::split_checked_rings(false);  // refused, so that a second run resumes
  for (double overhead : {-1.0, 0.0}) {  // the profile's own collective overhead, and none
    HardwareProfile h = HardwareProfile::defaults();
    if (overhead >= 0)
      for (auto& d : h.devices) d.collective_overhead_seconds = overhead;
    for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
      const Program p = prefix_then_rings();
      detail::resume_checked_runs(false);
      const SimResult again = run(p, *t, h, net);
      detail::resume_checked_runs(true);
      const SimResult resumed = run(p, *t, h, net);
      const SimResult full = run(p, *t, h, net, /*exact=*/true);
      EXPECT_EQ(again.runs, 2);
      EXPECT_EQ(resumed.runs, 2);
      EXPECT_GE(resumed.collectives_shortcut, 1);  // the AllReduce at least
      EXPECT_EQ(resumed.collectives_shortcut, again.collectives_shortcut);
      EXPECT_EQ(resumed.events, again.events);
      EXPECT_EQ(resumed.flows, again.flows);
      testing::expect_close_figures(resumed, again, 0.0);  // the same numbers, not close ones
      EXPECT_EQ(resumed.critical_path, again.critical_path);
      ASSERT_EQ(resumed.task_end_seconds.size(), again.task_end_seconds.size());
      for (size_t i = 0; i < again.task_end_seconds.size(); ++i) {
        EXPECT_EQ(resumed.task_start_seconds[i], again.task_start_seconds[i]) << i;
        EXPECT_EQ(resumed.task_end_seconds[i], again.task_end_seconds[i]) << i;
      }
      for (size_t d = 0; d < again.devices.size(); ++d)
        EXPECT_EQ(resumed.devices[d].exposed_comm_seconds, again.devices[d].exposed_comm_seconds);
      testing::expect_close_figures(resumed, full, 1e-9);
    }
    // The second run did resume: its progress starts where the copy was
    // taken, so it reports fewer times than a run from the start.
    const Program p = prefix_then_rings();
    auto calls = [&](bool resume) {
      detail::resume_checked_runs(resume);
      int n = 0;
      SimOptions o;
      o.on_progress = [&n](double, double) { ++n; };
      auto r = simulate(p, *t, h, o);
      EXPECT_TRUE(r.is_ok() && r->runs == 2);
      detail::resume_checked_runs(true);
      return n;
    };
    EXPECT_LT(calls(true), calls(false));
  }
  detail::split_checked_rings(true);
}

}  // namespace
}  // namespace brigade::sim
