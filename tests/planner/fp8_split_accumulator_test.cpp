// FP8 gradient GEMMs in split accumulation (KernelClass::
// kGemmSplitAccumulator; docs/costmodel.md, "Split accumulation in the
// gradients' GEMMs") through both judges at every granularity: a profile's
// fp8_split_accumulator_efficiency slows exactly those GEMMs, the same in
// the closed form and the simulator.
#include <string>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "costmodel/compute.hpp"
#include "planner/lower.hpp"
#include "tests/planner/two_judges.hpp"

namespace brigade::planner {
namespace {

// One H200, no communication: a step is its kernels end to end, so what
// the efficiency adds is (1/e - 1) x the split GEMMs' compute, in both
// judges. GPT, h 1024, s 512, 2 layers, 2 micro-batches of 2, FP8 hybrid.
Scenario one_gpu_fp8(double efficiency) {
  Scenario s = testing::scenario_from(
      "topology: {preset: h200x1}\n"
      "model:\n  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 512, vocab: 4096}\n"
      "training: {global_batch: 4, micro_batch: 2, fp8: hybrid}\n"
      "strategy: {tensor: 1, pipeline: 1, data: 1}\n");
  for (DeviceProfile& d : s.profile.devices) d.fp8_split_accumulator_efficiency = efficiency;
  return s;
}

// The split GEMMs' compute at the curve's rate (their time less the launch
// gap), summed over the Program's tasks on device 0.
double split_compute_seconds(const Scenario& s, const Program& p) {
  const Device& d = s.topology.device(0);
  const DeviceProfile& dp = s.profile.for_device(d);
  double sum = 0;
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const Task& x = p.task(t);
    if (x.kind != TaskKind::kCompute || x.device != 0 ||
        x.kernel != KernelClass::kGemmSplitAccumulator)
      continue;
    EXPECT_EQ(x.dtype, DType::kFP8) << p.task_name(t);
    // As the simulator times it: a fused run's shapes one by one where the
    // profile has a wave model, else the task as a whole.
    double seconds = x.gemm_mix != 0 ? gemm_mix_seconds(d, dp, x, p.gemm_mix(x.gemm_mix)) : -1;
    if (seconds < 0) seconds = cost::task_seconds(x, d, dp);
    sum += seconds - static_cast<double>(fused_kernels(x)) * dp.launch_overhead_seconds;
  }
  return sum;
}

TEST(Fp8SplitAccumulator, BothJudgesChargeTheSplitGemmsAtEveryGranularity) {
  const double e = 0.75;
  for (Granularity g : {Granularity::kKernel, Granularity::kRegion, Granularity::kStep}) {
    SCOPED_TRACE(static_cast<int>(g));
    LowerOptions o;
    o.granularity = g;
    const Scenario fast = one_gpu_fp8(0), split = one_gpu_fp8(e);
    const testing::TwoJudges a = testing::judge_both(fast, o), b = testing::judge_both(split, o);
    ASSERT_TRUE(a.ok && b.ok);
    const double compute = split_compute_seconds(fast, a.plan.program);
    ASSERT_GT(compute, 0);
    // Four linear layers x (dgrad + wgrad) x 2 layers x 2 micro-batches
    // at kernel granularity; fused into fewer tasks above it.
    const double added = compute * (1 / e - 1);
    EXPECT_NEAR(b.sim.step_seconds - a.sim.step_seconds, added, 1e-9 * a.sim.step_seconds);
    // The closed form times the layer's kernels one by one: the Program's
    // tasks at kernel granularity, a fused task's mean kernel above it.
    const double tolerance = g == Granularity::kKernel ? 1e-9 : 0.02;
    EXPECT_NEAR((b.cost.step_seconds - a.cost.step_seconds) / added, 1.0, tolerance);
    // And the split tasks' own compute is what the efficiency divided.
    EXPECT_NEAR(split_compute_seconds(split, b.plan.program), compute / e, 1e-12 + 1e-9 * compute);
  }
}

}  // namespace
}  // namespace brigade::planner
