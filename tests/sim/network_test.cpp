// The network models: max-min fair sharing (progressive filling) against
// cases worked by hand, and the ideal model's indifference to contention.
#include <gtest/gtest.h>

#include "sim/network.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::a100;
using testing::build;
using testing::plain_profile;
using testing::rel_err;
using testing::run;
using testing::star;

TEST(FlowModel, TwoFlowsOnOneLinkEachGetHalf) {
  // gpu0 and gpu1 each send M = 1 GB to gpu2 at t = 0; both cross
  // sw->gpu2 (B = 100 GB/s): each gets 50 GB/s, so each ends at
  //   alpha + M / (B/2) = 2e-6 + 1e9 / 5e10 = 0.020002 s.
  // Ideal: each gets B: 2e-6 + 0.01 = 0.010002 s.
  const Topology t = star(3, 100e9, 2e-6);
  ProgramBuilder b("incast", 3);
  const TaskId x = b.add_transfer(b.stream(0, "xfer"), 2, 1e9, "a");
  const TaskId y = b.add_transfer(b.stream(1, "xfer"), 2, 1e9, "b");
  const Program p = build(std::move(b));
  const SimResult f = run(p, t, plain_profile(), NetworkModel::kFlow);
  EXPECT_LT(rel_err(f.task_end_seconds[static_cast<size_t>(x)], 0.020002), 1e-12);
  EXPECT_LT(rel_err(f.task_end_seconds[static_cast<size_t>(y)], 0.020002), 1e-12);
  // The shared channel was busy for the 0.02 s of bytes (not during alpha).
  EXPECT_LT(rel_err(f.links[5].busy_seconds, 0.02), 1e-12);  // sw->gpu2
  EXPECT_EQ(f.links[5].name, "sw->gpu2");
  EXPECT_EQ(f.links[5].bytes, 2e9);
  const SimResult i = run(p, t, plain_profile(), NetworkModel::kIdeal);
  EXPECT_LT(rel_err(i.task_end_seconds[static_cast<size_t>(x)], 0.010002), 1e-12);
  EXPECT_LT(rel_err(i.task_end_seconds[static_cast<size_t>(y)], 0.010002), 1e-12);
}

TEST(FlowModel, ALaterFlowTakesItsShareAndGivesItBack) {
  // gpu0 -> gpu2 starts at 0 with 1 GB; gpu1 -> gpu2 starts when a kernel of
  // g seconds on gpu1 ends, with 0.1 GB. alpha = 0. From g, both get 50 GB/s;
  // the second ends at g + 0.1e9/5e10 = g + 0.002; the first has sent
  // 1e11 g + 5e10 * 0.002 bytes by then and finishes the rest at full rate:
  //   end = g + 0.002 + (1e9 - 1e11 g - 1e8) / 1e11 = 0.011 (independent of g < 0.009).
  const Topology t = star(3, 100e9, 0);
  ProgramBuilder b("late", 3);
  const TaskId x = b.add_transfer(b.stream(0, "xfer"), 2, 1e9, "long");
  const StreamId s1 = b.stream(1, "xfer");
  const TaskId k = b.add_gemm(s1, 2048, 2048, 2048, DType::kBF16, "k");
  const TaskId y = b.add_transfer(s1, 2, 1e8, "short");
  const Program p = build(std::move(b));
  const SimResult f = run(p, t, plain_profile(), NetworkModel::kFlow);
  const double g = f.task_end_seconds[static_cast<size_t>(k)];
  ASSERT_LT(g, 0.009);
  EXPECT_LT(rel_err(f.task_end_seconds[static_cast<size_t>(y)], g + 0.002), 1e-12);
  EXPECT_LT(rel_err(f.task_end_seconds[static_cast<size_t>(x)], 0.011), 1e-12);
}

// Three devices joined in a line by direct links: X = gpu0-gpu1 (10 GB/s),
// Y = gpu1-gpu2 (4 GB/s); no switch, no latency.
Topology line3() {
  Topology t;
  t.preset = "line";
  for (int i = 0; i < 3; ++i) t.add_device(a100("gpu" + std::to_string(i)));
  t.add_link(Link{0, 1, 0, 10e9, LinkClass::kPcie, "X"});
  t.add_link(Link{1, 2, 0, 4e9, LinkClass::kPcie, "Y"});
  return t;
}

TEST(FlowModel, ThreeFlowMaxMinWorkedByHand) {
  // Flows: A gpu0->gpu1 (X), B gpu0->gpu2 (X then Y), C gpu1->gpu2 (Y).
  // Progressive filling (Bertsekas & Gallager, sec. 6.5.2):
  //   fair shares: X 10/2 = 5, Y 4/2 = 2 -> Y saturates first: B = C = 2 GB/s;
  //   X has 10 - 2 = 8 left for A alone -> A = 8 GB/s.
  // Sizes: A 8 GB, B 4 GB, C 2 GB.
  //   t = 1 s: A (8/8) and C (2/2) end; B has sent 2 GB, 2 GB left.
  //   B alone: min(X, Y) = 4 GB/s -> 0.5 s more: B ends at 1.5 s.
  const Topology t = line3();
  ProgramBuilder b("maxmin", 3);
  const TaskId fa = b.add_transfer(b.stream(0, "a"), 1, 8e9, "A");
  const TaskId fb = b.add_transfer(b.stream(0, "b"), 2, 4e9, "B");
  const TaskId fc = b.add_transfer(b.stream(1, "c"), 2, 2e9, "C");
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile(), NetworkModel::kFlow);
  EXPECT_LT(rel_err(r.task_end_seconds[static_cast<size_t>(fa)], 1.0), 1e-12);
  EXPECT_LT(rel_err(r.task_end_seconds[static_cast<size_t>(fc)], 1.0), 1e-12);
  EXPECT_LT(rel_err(r.task_end_seconds[static_cast<size_t>(fb)], 1.5), 1e-12);
  // X forward carried A + B = 12 GB and was busy 1.5 s; Y forward 6 GB, 1.5 s.
  // Utilisation: 12 GB of the 10 GB/s x 1.5 s = 15 GB X could carry (0.8); Y
  // carried 6 of its 6 GB (1.0). Both were occupied the whole step.
  EXPECT_EQ(r.links[0].bytes, 12e9);
  EXPECT_EQ(r.links[2].bytes, 6e9);
  EXPECT_LT(rel_err(r.links[0].utilization, 0.8), 1e-12);
  EXPECT_LT(rel_err(r.links[2].utilization, 1.0), 1e-12);
  EXPECT_LT(rel_err(r.links[0].occupancy, 1.0), 1e-12);
  // Ideal: A 8/10 = 0.8 s, B 4/4 = 1 s, C 2/4 = 0.5 s.
  const SimResult i = run(p, t, plain_profile(), NetworkModel::kIdeal);
  EXPECT_LT(rel_err(i.task_end_seconds[static_cast<size_t>(fa)], 0.8), 1e-12);
  EXPECT_LT(rel_err(i.task_end_seconds[static_cast<size_t>(fb)], 1.0), 1e-12);
  EXPECT_LT(rel_err(i.task_end_seconds[static_cast<size_t>(fc)], 0.5), 1e-12);
}

TEST(FlowNetwork, ProgressiveFillingOnlyTouchesTheDirtyComponent) {
  // Channels 0, 1 (capacity 10) and 2 (capacity 4). A flow alone on its
  // channels gets the narrowest capacity at once and nothing is recomputed;
  // sharing is recomputed for the shared channel's component only.
  FlowNetwork net;
  net.init({10, 10, 4, 4});
  const ChannelId c0[] = {0}, c1[] = {1}, c2[] = {2};
  std::vector<std::pair<int, double>> changed;
  auto collect = [&](std::int32_t f, double r) { changed.emplace_back(f, r); };
  EXPECT_TRUE(net.add(0, c0));
  EXPECT_TRUE(net.add(1, c1));
  EXPECT_TRUE(net.add(2, c2));
  EXPECT_EQ(net.rate(0), 10.0);
  EXPECT_EQ(net.rate(2), 4.0);
  EXPECT_FALSE(net.dirty());
  // A second flow on channel 2: both get half; flows 0 and 1 are untouched.
  EXPECT_FALSE(net.add(3, c2));
  net.recompute(collect);
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(net.rate(2), 2.0);
  EXPECT_EQ(net.rate(3), 2.0);
  changed.clear();
  net.remove(3);
  net.recompute(collect);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0], (std::pair<int, double>{2, 4.0}));
  // Leaving a channel empty needs no recomputation at all.
  net.remove(0);
  EXPECT_FALSE(net.dirty());
}

TEST(FlowModel, ConcurrentCollectivesContend) {
  // Two ring AllReduces over the same 4 GPUs on different streams share
  // every channel: under max-min each gets half of every link, so both take
  // the bandwidth term twice: 2(N-1)alpha + 2 * 2(N-1)/N M/B (alpha = 0
  // here). Ideal: each as if alone.
  const Topology t = star(4, 100e9, 0);
  ProgramBuilder b("two-rings", 4);
  std::vector<StreamId> s1, s2;
  for (int d = 0; d < 4; ++d) {
    s1.push_back(b.stream(d, "one"));
    s2.push_back(b.stream(d, "two"));
  }
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1, 2, 3}, 1e9, s1, "ar1");
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1, 2, 3}, 1e9, s2, "ar2");
  const Program p = build(std::move(b));
  const double alone = 2.0 * 3 / 4 * 1e9 / 100e9;
  for (bool exact : {false, true}) {
    const SimResult f = run(p, t, plain_profile(), NetworkModel::kFlow, exact);
    EXPECT_LT(rel_err(f.step_seconds, 2 * alone), 1e-9);
    EXPECT_EQ(f.collectives_shortcut, 0);  // they share channels: never a shortcut
    const SimResult i = run(p, t, plain_profile(), NetworkModel::kIdeal, exact);
    EXPECT_LT(rel_err(i.step_seconds, alone), 1e-9);
  }
}

}  // namespace
}  // namespace brigade::sim
