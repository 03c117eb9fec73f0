// The scenario's runtime: conditions in the simulator (core/runtime.hpp,
// issue 17): what the plan did not see, honoured at run time. The seed's
// third misconception: "a GPU also running another job, an NVLink congested
// by another process, a CPU-bound data loader".
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/runtime.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::plain_profile;
using testing::rel_err;
using testing::star;

// Two devices each running the same GEMM; device 1 runs another job that
// leaves it half its speed: its GEMM takes 2 x as long, device 0's is
// untouched, and the step is device 1's.
TEST(Runtime, SlowedDeviceTakesOneOverFAsLong) {
  const Topology t = star(2, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("slow", 2);
  const TaskId x0 = b.add_gemm(b.stream(0, "compute"), 4096, 4096, 4096, DType::kBF16, "mm");
  const TaskId x1 = b.add_gemm(b.stream(1, "compute"), 4096, 4096, 4096, DType::kBF16, "mm");
  const Program p = build(std::move(b));
  SimOptions o;
  o.runtime.speed[1] = 0.5;
  auto r = simulate(p, t, h, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  const double d0 = r->task_end_seconds[static_cast<size_t>(x0)];
  EXPECT_DOUBLE_EQ(r->task_end_seconds[static_cast<size_t>(x1)], 2 * d0);
  // With a known straggler too (simulation.speed 0.5), the runtime factor
  // multiplies it: 1 / (0.5 x 0.5) = 4 x.
  o.speed[1] = 0.5;
  auto r2 = simulate(p, t, h, o);
  ASSERT_TRUE(r2.is_ok()) << r2.message();
  EXPECT_DOUBLE_EQ(r2->task_end_seconds[static_cast<size_t>(x1)], 4 * d0);
}

// A spread of the chips' speeds is each device's drawn factor
// (spread_factor): the same run as those factors given one by one, and a
// synchronous step waits for the slowest chip. Eight devices, each a GEMM
// and then an AllReduce over all eight: the AllReduce starts when the
// slowest GEMM ends.
TEST(Runtime, ASpreadIsEachDevicesDrawnSpeed) {
  const int n = 8;
  const Topology t = star(n, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("spread", n);
  std::vector<TaskId> mm;
  std::vector<std::int32_t> ranks;
  std::vector<StreamId> streams;
  for (int d = 0; d < n; ++d) {
    streams.push_back(b.stream(d, "compute"));
    mm.push_back(b.add_gemm(streams.back(), 4096, 4096, 4096, DType::kBF16, "mm"));
    ranks.push_back(d);
  }
  // On the compute streams: each rank's part follows its GEMM.
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, ranks, 1 << 20, streams,
                   "ar");
  const Program p = build(std::move(b));
  const double alone = testing::run(p, t, h).step_seconds;
  SimOptions o;
  o.runtime.spread = 0.05;
  o.runtime.spread_seed = 7;
  auto r = simulate(p, t, h, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  SimOptions one_by_one;
  double slowest = 1;
  for (int d = 0; d < n; ++d) {
    const double f = spread_factor(0.05, 7, d);
    one_by_one.runtime.speed[d] = f;
    slowest = std::min(slowest, f);
  }
  auto r1 = simulate(p, t, h, one_by_one);
  ASSERT_TRUE(r1.is_ok()) << r1.message();
  EXPECT_EQ(r->step_seconds, r1->step_seconds);
  const double gemm = r->task_end_seconds[static_cast<size_t>(mm[0])] * spread_factor(0.05, 7, 0);
  for (int d = 0; d < n; ++d)
    EXPECT_LT(rel_err(r->task_end_seconds[static_cast<size_t>(mm[static_cast<size_t>(d)])],
                      gemm / spread_factor(0.05, 7, d)),
              1e-12);
  // The AllReduce waits for the slowest GEMM, then takes what it took alone.
  EXPECT_LT(rel_err(r->step_seconds - gemm / slowest, alone - gemm), 1e-9);
  EXPECT_GT(r->step_seconds, alone);
}

// A data loader that needs 3 ms per batch: nothing starts before 3 ms, so
// the step is 3 ms + the GEMM, and the wait counts as idle.
TEST(Runtime, InputPipelineDelaysTheStep) {
  const Topology t = star(1, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("input", 1);
  const TaskId x = b.add_gemm(b.stream(0, "compute"), 1024, 1024, 1024, DType::kBF16, "mm");
  const Program p = build(std::move(b));
  const double g = testing::run(p, t, h).step_seconds;
  SimOptions o;
  o.runtime.input_seconds = 3e-3;
  auto r = simulate(p, t, h, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_DOUBLE_EQ(r->task_start_seconds[static_cast<size_t>(x)], 3e-3);
  EXPECT_LT(rel_err(r->step_seconds, 3e-3 + g), 1e-12);
  EXPECT_LT(rel_err(r->devices[0].idle_seconds, 3e-3), 1e-9);
}

// Another process takes 75% of gpu0's link: a 100 MB send from gpu0 to
// gpu1 gets 25 GB/s of its 100 GB/s, so it takes alpha + 1e8 / 2.5e10 =
// 2e-6 + 4e-3 s instead of 2e-6 + 1e-3 s, in both network models.
TEST(Runtime, LoadedLinkGivesTheProgramTheRest) {
  const Topology t = star(2, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("loaded", 2);
  b.add_transfer(b.stream(0, "xfer"), 1, 1e8, "send");
  const Program p = build(std::move(b));
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    SimOptions o;
    o.network = net;
    o.runtime.link_load[0] = 0.75;  // link 0: gpu0<->sw
    auto r = simulate(p, t, h, o);
    ASSERT_TRUE(r.is_ok()) << r.message();
    EXPECT_LT(rel_err(r->step_seconds, 2e-6 + 4e-3), 1e-9);
  }
}

TEST(Runtime, OutOfRangeFactorsAreErrors) {
  const Topology t = star(2, 100e9, 2e-6);
  ProgramBuilder b("bad", 2);
  b.add_gemm(b.stream(0, "compute"), 64, 64, 64, DType::kBF16, "mm");
  const Program p = build(std::move(b));
  SimOptions o;
  o.runtime.speed[0] = 1.5;
  auto r = simulate(p, t, plain_profile(), o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("runtime speed 1.5 for device 0; expected a factor in (0, 1]"),
            std::string::npos)
      << r.message();
  SimOptions o2;
  o2.runtime.link_load[7] = 0.5;
  auto r2 = simulate(p, t, plain_profile(), o2);
  ASSERT_FALSE(r2.is_ok());
  EXPECT_EQ(r2.message(),
            "program 'bad': runtime load 0.5 on link 7; expected a link of the topology and "
            "a load in [0, 1)");
}

TEST(Runtime, DescribedInWords) {
  const Topology t = star(2, 100e9, 2e-6);
  RuntimeConditions rc;
  rc.speed[1] = 0.5;
  rc.link_load[0] = 0.6;
  rc.input_seconds = 0.02;
  EXPECT_EQ(describe_runtime(rc, t),
            "gpu1 at 50% speed; link gpu0<->sw 60% loaded; input pipeline 20.0 ms per step");
  EXPECT_EQ(describe_runtime(RuntimeConditions{}, t), "");
  // A spread: its draw in one phrase. Seed 7's z for devices 0 and 1 are
  // |z| 0.98847 and 1.86426 (SplitMix64 and Box-Muller by hand), so under
  // spread 0.05 they keep 95.29% and 91.47%: mean 93.4%, the slowest gpu1.
  RuntimeConditions sp;
  sp.spread = 0.05;
  sp.spread_seed = 7;
  EXPECT_EQ(describe_runtime(sp, t), "speed spread 5% (seed 7): mean 93.4%, slowest gpu1 at 91.5%");
}

}  // namespace
}  // namespace brigade::sim
