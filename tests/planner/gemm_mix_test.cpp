// A fused run's GEMM shapes (Task::gemm_mix; docs/costmodel.md, "GEMMs by
// shape: waves of tiles"): at step granularity the planner records each
// fused GEMM task's shapes and counts, and under a profile with a wave
// model (the A100 presets) the simulator times the task as those kernels
// one by one (core/profile.hpp gemm_mix_seconds), not at its mean kernel's
// FLOPs.
#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "planner/lower.hpp"
#include "sim/simulator.hpp"
#include "tests/planner/scenario_fixtures.hpp"

namespace brigade::planner {
namespace {

// One A100, a GPT layer wide enough that every linear GEMM fills a wave of
// 256 x 128 tiles: h 2048, s 2048, micro-batch 2 (m = 4096 rows).
Scenario one_a100_gpt() {
  Scenario s = testing::small_gpt(1, 1, 1, 4, 2);
  s.transformer.hidden = 2048;
  s.transformer.heads = 16;
  s.transformer.seq = 2048;
  s.transformer.vocab = 8192;
  s.profile = HardwareProfile::defaults();
  return s;
}

TEST(GemmMix, AFusedGemmTaskNamesItsShapesAndTheSimulatorTimesThem) {
  const Scenario s = one_a100_gpt();
  LowerOptions o;
  o.granularity = Granularity::kStep;
  auto plan = lower(s, o);
  ASSERT_TRUE(plan.is_ok()) << plan.message();
  const Program& p = plan->program;
  sim::SimOptions so;
  so.record_task_times = true;
  auto r = sim::simulate(p, s.topology, s.profile, so);
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Device& d = s.topology.device(0);
  const DeviceProfile& dp = s.profile.for_device(d);
  ASSERT_GT(dp.gemm_tile_rows, 0);
  int mixed = 0, moved = 0;
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const Task& x = p.task(t);
    if (x.kind != TaskKind::kCompute || x.gemm_mix == 0) continue;
    ++mixed;
    // The shapes are the task's kernels: their FLOPs and their count.
    double flops = 0;
    std::int64_t kernels = 0;
    for (const GemmMixShape& g : p.gemm_mix(x.gemm_mix)) {
      flops += static_cast<double>(g.count) * gemm_flops(g.m, g.n, g.k, g.batch);
      kernels += g.count;
    }
    EXPECT_NEAR(flops / x.flops, 1.0, 1e-12);
    EXPECT_EQ(kernels, fused_kernels(x));
    // The simulator's duration is the shapes' own.
    const double want = gemm_mix_seconds(d, dp, x, p.gemm_mix(x.gemm_mix));
    const double took = r->task_end_seconds[static_cast<size_t>(t)] -
                        r->task_start_seconds[static_cast<size_t>(t)];
    EXPECT_NEAR(took / want, 1.0, 1e-9) << p.task_name(t);
    // Where that differs from the mean kernel's FLOPs by more than rounding.
    const double mean = kernel_seconds(d, dp, x.dtype, x.flops, x.bytes, x.compute, 0, x.kernel,
                                       0, 0, fused_kernels(x));
    moved += std::abs(want / mean - 1) > 1e-3;
  }
  EXPECT_GT(mixed, 0);
  EXPECT_GT(moved, 0);
}

}  // namespace
}  // namespace brigade::planner
