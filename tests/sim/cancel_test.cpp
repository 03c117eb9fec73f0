// Cancellation (SimOptions::cancel, RunOptions::cancel): a flag set before
// the run or from on_progress stops the simulator early with kCancelled.
#include <atomic>

#include <gtest/gtest.h>

#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::plain_profile;
using testing::star;

// `n` kernels in a chain on one stream of one device.
Program chain(int n) {
  ProgramBuilder b("chain", 1);
  const StreamId s = b.stream(0, "compute");
  for (int i = 0; i < n; ++i) b.add_fixed(s, 1e9, 0, DType::kF32, "k");
  return build(std::move(b));
}

TEST(Cancel, AFlagSetBeforeTheRunReturnsCancelled) {
  const Topology t = star(1, 100e9, 2e-6);
  const Program p = chain(10);
  std::atomic<bool> cancel{true};
  SimOptions o;
  o.cancel = &cancel;
  int calls = 0;
  o.on_progress = [&](double, double) { ++calls; };
  auto r = simulate(p, t, plain_profile(), o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kCancelled);
  EXPECT_EQ(r.message(), "cancelled");
  EXPECT_EQ(calls, 0);  // not one task ran
}

TEST(Cancel, AClearFlagChangesNothing) {
  const Topology t = star(1, 100e9, 2e-6);
  const Program p = chain(100);
  std::atomic<bool> cancel{false};
  SimOptions o;
  const auto plain = simulate(p, t, plain_profile(), o);
  o.cancel = &cancel;
  const auto polled = simulate(p, t, plain_profile(), o);
  ASSERT_TRUE(plain.is_ok() && polled.is_ok());
  EXPECT_EQ(polled->step_seconds, plain->step_seconds);
  EXPECT_EQ(polled->events, plain->events);
}

TEST(Cancel, AFlagSetFromProgressStopsTheRunEarly) {
  // 100,000 tasks: progress every 512 tasks (the smallest power of two with
  // 256 calls covering them). The flag is set at the first call past 10,000
  // tasks (10,240), and the run stops there: no later call, no result.
  const Topology t = star(1, 100e9, 2e-6);
  const int n = 100000;
  const Program p = chain(n);
  std::atomic<bool> cancel{false};
  SimOptions o;
  o.cancel = &cancel;
  std::vector<double> done;
  o.on_progress = [&](double d, double total) {
    EXPECT_EQ(total, n);
    done.push_back(d);
    if (d >= 10000) cancel = true;
  };
  auto r = simulate(p, t, plain_profile(), o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kCancelled);
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done.back(), 10240);
  EXPECT_EQ(done.size(), 10240u / 512u);
}

TEST(Cancel, TheSimExecutorPassesRunOptionsCancelOn) {
  const Topology t = star(2, 100e9, 2e-6);
  const Program p = chain(1000);
  std::atomic<bool> cancel{false};
  RunOptions ro;
  ro.cancel = &cancel;
  int calls = 0;
  ro.on_progress = [&](double, double) {
    ++calls;
    cancel = true;
  };
  auto ex = make_sim_executor(SimOptions{});
  auto r = ex->run(p, t, plain_profile(), ro);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kCancelled);
  EXPECT_EQ(calls, 1);
}

TEST(Cancel, ShortcutPlanningStopsOnAFlagSetBeforehand) {
  // A collective that qualifies for the shortcut: the isolated runs see the
  // flag too (the run returns kCancelled, not an expansion's result).
  const Topology t = star(4, 100e9, 2e-6);
  ProgramBuilder b("coll", 4);
  std::vector<StreamId> streams;
  for (int d = 0; d < 4; ++d) streams.push_back(b.stream(d, "compute"));
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1, 2, 3}, 1 << 20,
                   streams, "ar");
  const Program p = build(std::move(b));
  std::atomic<bool> cancel{true};
  SimOptions o;
  o.cancel = &cancel;
  auto r = simulate(p, t, plain_profile(), o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kCancelled);
}

}  // namespace
}  // namespace brigade::sim
