// strategy.overlap_param_gather (Megatron-LM's --overlap-param-gather) in
// the simulator: the planner's Program for the hand-worked case of
// tests/costmodel/plan_test.cpp (OverlapParamGatherByHand: the tiny GPT over
// 2 data ranks, ZeRO-1, buckets of one layer) gathers the updated weights in
// the step's first forward, bucket by bucket one ahead of the compute,
// instead of after the optimizer; the step is shorter by layer 0's forward
// (3.407872 us), as the closed form says.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/costmodel/test_hardware.hpp"
#include "tests/planner/two_judges.hpp"

namespace brigade::planner {
namespace {

Scenario tiny(bool overlap_param_gather) {
  Scenario sc;
  sc.name = "tiny-gpt";
  sc.path = "tiny.yaml";
  sc.topology = cost::testing::round_star(2, 1e-6, 1e10, 0);
  EXPECT_TRUE(sc.topology.validate().is_ok());
  sc.profile = cost::testing::round_hardware();
  sc.model_kind = ModelKind::kTransformer;
  sc.transformer.layers = 2;
  sc.transformer.hidden = 64;
  sc.transformer.heads = 4;
  sc.transformer.seq = 32;
  sc.transformer.vocab = 128;
  sc.transformer.dtype = DType::kBF16;
  sc.training.global_batch = 2;
  sc.training.micro_batch = 1;
  sc.has_strategy = true;
  sc.strategy.data = 2;
  sc.strategy.zero = 1;
  sc.strategy.bucket_bytes = 99968;
  sc.strategy.overlap_param_gather = overlap_param_gather;
  return sc;
}

struct Gathers {
  std::vector<TaskId> ids;  // device 0's, in emission order
  double bytes = 0;
};

Gathers gathers_of(const Program& p) {
  Gathers g;
  for (TaskId t = 0; t < p.num_tasks(); ++t)
    if (p.task(t).device == 0 && p.task_name(t) == "zero.param_gather") {
      g.ids.push_back(t);
      g.bytes += p.task(t).bytes;
    }
  return g;
}

TEST(OverlapParamGather, GathersRunInTheFirstForwardOneBucketAhead) {
  const testing::TwoJudges off = testing::judge_both(tiny(false));
  const testing::TwoJudges on = testing::judge_both(tiny(true));
  ASSERT_TRUE(off.ok && on.ok);
  const Program& p = on.plan.program;
  const Gathers a = gathers_of(off.plan.program), b = gathers_of(p);
  // The same three buckets (embedding, layer 0, layer 1: 220,416 B).
  ASSERT_EQ(a.ids.size(), 3u);
  ASSERT_EQ(b.ids.size(), 3u);
  EXPECT_EQ(a.bytes, 220416.0);
  EXPECT_EQ(b.bytes, 220416.0);
  // Without the key they follow the optimizer; with it they run in the
  // forward, before the optimizer starts, and the step ends with the optimizer.
  double optimizer_start = 0;
  for (TaskId t = 0; t < p.num_tasks(); ++t)
    if (p.task(t).device == 0 && p.task(t).phase == Phase::kOptimizer)
      optimizer_start = on.sim.task_start_seconds[static_cast<size_t>(t)];
  for (TaskId t : a.ids) EXPECT_EQ(off.plan.program.task(t).phase, Phase::kOptimizer);
  for (TaskId t : b.ids) {
    EXPECT_EQ(p.task(t).phase, Phase::kForward);
    EXPECT_LT(on.sim.task_end_seconds[static_cast<size_t>(t)], optimizer_start);
  }
  // Forward order: the embedding's 20,480 B first, starting at 0; each one
  // after the one before (one stream).
  EXPECT_EQ(p.task(b.ids[0]).bytes, 20480.0);
  EXPECT_EQ(on.sim.task_start_seconds[static_cast<size_t>(b.ids[0])], 0.0);
  for (size_t k = 1; k < b.ids.size(); ++k)
    EXPECT_GE(on.sim.task_start_seconds[static_cast<size_t>(b.ids[k])],
              on.sim.task_end_seconds[static_cast<size_t>(b.ids[k - 1])]);
  // Layer 1's first forward task waits for the last gather (A), which layer
  // 0's forward hides: the step shorter by layer 0's forward, 3.407872 us.
  double layer1_start = -1;
  for (TaskId t = 0; t < p.num_tasks(); ++t)
    if (p.task(t).device == 0 && p.task(t).kind == TaskKind::kCompute &&
        p.task(t).phase == Phase::kForward && p.task(t).layer == 1) {
      layer1_start = on.sim.task_start_seconds[static_cast<size_t>(t)];
      break;
    }
  EXPECT_GE(layer1_start, on.sim.task_end_seconds[static_cast<size_t>(b.ids[2])]);
  EXPECT_NEAR(off.sim.step_seconds - on.sim.step_seconds, 3.407872e-6, 0.02 * 3.407872e-6);
  // The closed form agrees on both steps.
  EXPECT_NEAR(on.sim.step_seconds, on.cost.step_seconds, 1e-3 * on.cost.step_seconds);
  EXPECT_NEAR(off.sim.step_seconds, off.cost.step_seconds, 1e-3 * off.cost.step_seconds);
}

}  // namespace
}  // namespace brigade::planner
