// Issue 19 item 3: "ZeRO-3 is predicted faster than ZeRO-0 for a 7.5B model
// on 64 GPUs although it moves 1.5x the bytes". The case
// (scenarios/experiments/zero3_7.5b_64gpu.yaml: GPT 7.5B, data 64 over 8 x
// DGX A100, one micro-batch of 8 x 2048 tokens a replica, full
// recomputation) through both judges, and why the answer is what it is:
//  - ZeRO-3 moves 1.5x ZeRO-0's traffic: a gather of the bf16 parameters
//    before the forward, a re-gather before the backward and a
//    reduce-scatter of the gradients (3 M, M = 2 bytes x 7.47 B parameters),
//    against one AllReduce (2 M of traffic);
//  - each layer's gather (402 MB over 64 ranks, 2.5 ms) is shorter than the
//    layer's forward (~30 ms), so with a gather issued a block ahead only the
//    first gather of the step and the last reduce-scatter show (ZeRO-3
//    exposes more than ZeRO-0, whose last bucket alone shows);
//  - but ZeRO-3 shards the optimizer step 64 ways (Rajbhandari et al. 2020,
//    Sec. 5: P_os), and mixed-precision Adam over 7.47 B parameters is a
//    memory-bound 129 ms a step unsharded: more than ZeRO-3's extra exposure.
// So ZeRO-3 is faster here, by its sharded optimizer step, in both judges.
// docs/FIDELITY.md, "ZeRO-3 against ZeRO-0".
#include <algorithm>
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "tests/costmodel/test_hardware.hpp"
#include "tests/planner/two_judges.hpp"

namespace brigade::planner {
namespace {

Scenario zero(int stage) {
  Result<Scenario> s =
      load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/experiments/zero3_7.5b_64gpu.yaml");
  EXPECT_TRUE(s.is_ok()) << s.message();
  Scenario sc = s.is_ok() ? std::move(s).value() : Scenario{};
  sc.strategy.zero = stage;
  return sc;
}

double bytes_of(const cost::PlanEstimate& e, const std::string& purpose, const std::string& kind) {
  double b = 0;
  for (const cost::CommunicationEstimate& c : e.communication)
    if (c.purpose == purpose && c.kind == kind) b += c.bytes;
  return b;
}

TEST(Zero3, SevenAndAHalfBillionOn64GpusFasterThanZero0ByItsShardedOptimizer) {
  const testing::TwoJudges z0 = testing::judge_both(zero(0));
  const testing::TwoJudges z3 = testing::judge_both(zero(3));
  ASSERT_TRUE(z0.ok && z3.ok);
  const cost::PlanEstimate& c0 = z0.cost;
  const cost::PlanEstimate& c3 = z3.cost;

  // The bytes: ZeRO-0 one AllReduce of M = 2 B x parameters (traffic 2 M);
  // ZeRO-3 two gathers (forward, backward re-gather) and one reduce-scatter.
  const double m = bytes_of(c0, "data", "allreduce");
  EXPECT_NEAR(m, 2.0 * c0.parameters, 1e-6 * m);
  const double gathered = bytes_of(c3, "zero-3 params", "allgather");
  const double scattered = bytes_of(c3, "data", "reducescatter");
  EXPECT_NEAR(scattered, m, 0.01 * m);
  EXPECT_GE(gathered, 2.0 * m);  // 2 M and the embedding's gather for the tied head
  const double ratio = (gathered + scattered) / (2.0 * m);
  EXPECT_GE(ratio, 1.5);
  EXPECT_LT(ratio, 1.6);

  // ZeRO-3 exposes more communication than ZeRO-0 (its first gather and last
  // reduce-scatter against ZeRO-0's last bucket) ...
  EXPECT_GT(c3.exposed_communication_seconds, c0.exposed_communication_seconds);
  // ... and its optimizer step is ZeRO-0's over the 64 shards (the same
  // memory-bound bytes / 64: 129 ms against 2.0 ms) ...
  EXPECT_NEAR(c0.optimizer_seconds / c3.optimizer_seconds, 64.0, 64.0 * 0.02);
  // ... which is the whole of the difference: the same kernels, each plan's
  // slowed by what its hidden collectives' NCCL kernels hold of the SMs
  // (docs/costmodel.md, "NCCL's kernels take SMs"; ZeRO-3 hides 1.5x the
  // bytes, so its kernels lose more), ZeRO-3 faster by the optimizer saving
  // less its extra exposure and that extra loss.
  EXPECT_GT(c3.compute_seconds, c0.compute_seconds);
  const double slowed = c3.compute_seconds - c0.compute_seconds;
  const double saved = c0.optimizer_seconds - c3.optimizer_seconds;
  const double extra = c3.exposed_communication_seconds - c0.exposed_communication_seconds;
  EXPECT_LT(c3.step_seconds, c0.step_seconds);
  EXPECT_NEAR(c0.step_seconds - c3.step_seconds, saved - extra - slowed, 1e-3);

  // The simulator agrees on the order and within 1% on each step.
  EXPECT_LT(z3.sim.step_seconds, z0.sim.step_seconds);
  EXPECT_NEAR(z3.sim.step_seconds, c3.step_seconds, 0.01 * c3.step_seconds);
  EXPECT_NEAR(z0.sim.step_seconds, c0.step_seconds, 0.01 * c0.step_seconds);
  // Its critical path begins with ZeRO-3's first gathers, exposed: nothing
  // computes before them.
  const Program& p = z3.plan.program;
  ASSERT_FALSE(z3.sim.critical_path.empty());
  EXPECT_EQ(p.task_name(z3.sim.critical_path.front()), "zero3.gather");
  double first_compute = 1e30;
  for (TaskId t = 0; t < p.num_tasks(); ++t)
    if (p.task(t).device == 0 && p.task(t).kind == TaskKind::kCompute)
      first_compute = std::min(first_compute, z3.sim.task_start_seconds[static_cast<size_t>(t)]);
  EXPECT_GT(first_compute, 1e-3);  // the embedding's and the first layer's gathers, ~5 ms
}

// strategy.zero3_prefetch through both judges, by hand (the closed form's
// own case, with two micro-batches, is tests/costmodel/plan_test.cpp's
// EstimatePlan.ZeroThreePrefetchModesByHand). Two layers, h = 64, s = 32,
// rotary positions, V = 1024 tied, on two round devices (ring, alpha 1 us,
// 10 GB/s, kernels at 1e12 FLOP/s, memory free), ZeRO-3 over d = 2, one
// micro-batch of 4 a replica. The head gathers the word embedding, V h =
// 65,536 bf16 elements: g = 1e-6 + 131,072 B / 2 / 1e10 = 7.5536e-6 s.
// per_pass waits for it when the backward starts; per_micro_batch (DeepSpeed)
// and across_passes (FSDP) gather it during the head's forward (16.8 us of
// logits, longer than g), so it hides: each judge's step is g longer under
// per_pass, and with one micro-batch (nothing after the backward to prefetch
// for) the two others are the same plan.
Scenario tiny_zero3(Zero3Prefetch mode) {
  Scenario sc;
  sc.name = "tiny-zero3";
  sc.path = "tiny.yaml";
  sc.topology = cost::testing::round_star(2, 1e-6, 1e10, 0);
  sc.profile = cost::testing::round_hardware();
  sc.model_kind = ModelKind::kTransformer;
  sc.transformer.layers = 2;
  sc.transformer.hidden = 64;
  sc.transformer.heads = 4;
  sc.transformer.seq = 32;
  sc.transformer.vocab = 1024;
  sc.transformer.positions = PositionKind::kRotary;
  sc.transformer.dtype = DType::kBF16;
  sc.training.global_batch = 8;
  sc.training.micro_batch = 4;
  sc.has_strategy = true;
  sc.strategy.data = 2;
  sc.strategy.zero = 3;
  sc.strategy.zero3_prefetch = mode;
  return sc;
}

TEST(Zero3, PrefetchModesByHandInBothJudges) {
  const double g = 1e-6 + 131072.0 / 2 / 1e10;
  const testing::TwoJudges pass = testing::judge_both(tiny_zero3(Zero3Prefetch::kPerPass));
  const testing::TwoJudges micro = testing::judge_both(tiny_zero3(Zero3Prefetch::kPerMicroBatch));
  const testing::TwoJudges across = testing::judge_both(tiny_zero3(Zero3Prefetch::kAcrossPasses));
  ASSERT_TRUE(pass.ok && micro.ok && across.ok);
  EXPECT_NEAR(pass.cost.step_seconds - across.cost.step_seconds, g, 1e-12);
  EXPECT_NEAR(pass.cost.step_seconds - micro.cost.step_seconds, g, 1e-12);
  EXPECT_NEAR(pass.sim.step_seconds - across.sim.step_seconds, g, 1e-12);
  EXPECT_NEAR(pass.sim.step_seconds - micro.sim.step_seconds, g, 1e-12);
  EXPECT_EQ(micro.sim.step_seconds, across.sim.step_seconds);
  // The same collectives in every mode; only when the gathers are issued moves.
  EXPECT_EQ(testing::program_calls(pass.plan.program, 0), testing::program_calls(across.plan.program, 0));
}

}  // namespace
}  // namespace brigade::planner
