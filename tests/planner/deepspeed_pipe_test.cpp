// strategy.pipeline_engine deepspeed through the planner and the simulator:
// DeepSpeed v0.5.8's PipelineEngine (docs/costmodel.md "DeepSpeed's
// pipeline engine") sends a step's output at the start of the stage's next
// step and its p2p.send/recv block both ends (p2p.py 48-86), a forward
// step receiving first and then sending, a backward step sending first
// (schedule.py 205-219). Worked by hand on toy hardware.
#include <string>

#include <gtest/gtest.h>

#include "tests/costmodel/test_hardware.hpp"
#include "tests/planner/two_judges.hpp"

namespace brigade::planner {
namespace {

// Two stages of one layer each (h = 64, a = 4, s = 32, no vocabulary: the
// embedding and the head compute nothing), memory free (bandwidth 0), one
// sequence a micro-batch, m micro-batches, links of 1e-6 s and 1e10 B/s,
// no data parallelism (nothing after the last backward).
Scenario two_stages(std::int64_t m) {
  Scenario sc;
  sc.name = "ds-two-stages";
  sc.path = "ds.yaml";
  sc.topology = cost::testing::round_star(2, 1e-6, 1e10, 0);
  EXPECT_TRUE(sc.topology.validate().is_ok());
  sc.profile = cost::testing::round_hardware();
  sc.model_kind = ModelKind::kTransformer;
  sc.transformer.layers = 2;
  sc.transformer.hidden = 64;
  sc.transformer.heads = 4;
  sc.transformer.seq = 32;
  sc.transformer.vocab = 0;
  sc.transformer.dtype = DType::kBF16;
  // Untied: no gradient AllReduce between the stages' copies at the end
  // (with no vocabulary the simulator would still pay its 2 alpha).
  sc.transformer.tie_embeddings = false;
  sc.training.global_batch = m;
  sc.training.micro_batch = 1;
  sc.has_strategy = true;
  sc.strategy.pipeline = 2;
  sc.strategy.pipeline_engine = PipelineEngine::kDeepSpeed;
  return sc;
}

// A layer: forward f = 3,407,872 FLOP / 1e12 = 3.407872e-6 s, backward
// b = 2f, T = f + b = 1.0223616e-5 s (tests/costmodel/plan_pipeline_test.cpp). The
// boundary tensor, 1 x 32 x 64 x 2 B = 4096 B, crosses in
// x = 1e-6 + 4096 / 1e10 = 1.4096e-6 s, both stages waiting.
// m = 4, stage 0: F0 F1 B0 F2 B1 F3 B2 B3; stage 1: F0 B0 F1 B1 ... B3.
//   stage 0 F0 [0, f], sends act0 (stage 1 waits from 0): [f, f + x];
//   stage 1 F0 B0 end at T + f + x. Each next micro-batch k at stage 1:
//   receive act k (stage 0 has been waiting since it finished F k), send
//   grad k-1 (stage 0 waiting for it), F, B: T + 2x, so B3 ends at
//   T + f + x + 3 (T + 2x) = 4T + f + 7x; stage 0, which got grad 2 at
//   3T + f + 7x and ran B2 (b), waits at 4T + 7x for grad 3, which it gets
//   at 4T + f + 8x; its B3 ends the step at 5T + 8x = 6.239488e-5 s.
// The closed form: stage times T + 2x each (two transfers a micro-batch),
// m (T + 2x) + (T + 2x) = 5T + 10x = 6.521408e-5 s: it counts stage 0's
// exchanges in the fill and drain where the path holds one transfer each
// way (the named difference, 2x here).
TEST(DeepSpeedPipe, TwoStagesByHand) {
  const double f = 3.407872e-6, T = 3 * f, x = 1.4096e-6;
  const testing::TwoJudges j = testing::judge_both(two_stages(4));
  ASSERT_TRUE(j.ok);
  EXPECT_NEAR(j.sim.step_seconds, 5 * T + 8 * x, 1e-9 * 5 * T);
  EXPECT_NEAR(j.cost.step_seconds, 5 * T + 10 * x, 1e-9 * 5 * T);
  // Megatron's engine: sends beside the next step, the fill and drain
  // waiting for one each way, (m + 1) T + 2x, and 1F1B's steady state for
  // 2 ((m - 2) - floor((m - 2) / 2)) = 2 more (stage 0's backward of k
  // waits for stage 1's, which waited for stage 0's forward of k:
  // tests/costmodel/plan_pipeline_test.cpp, OneFOneBSteadyStateWaitsForItsSends):
  // 5T + 4x in both judges, half DeepSpeed's blocking 8x.
  Scenario meg = two_stages(4);
  meg.strategy.pipeline_engine = PipelineEngine::kMegatron;
  const testing::TwoJudges k = testing::judge_both(meg);
  ASSERT_TRUE(k.ok);
  EXPECT_NEAR(k.cost.step_seconds, 5 * T + 4 * x, 1e-9 * 5 * T);
  EXPECT_NEAR(k.sim.step_seconds, 5 * T + 4 * x, 1e-9 * 5 * T);
}

// One micro-batch: stage 0 F0, act0 crosses, stage 1 F0 B0, grad0 crosses,
// stage 0 B0: 2T + 2x in the simulator; the closed form 2 (T + 2x).
TEST(DeepSpeedPipe, OneMicroBatchByHand) {
  const double f = 3.407872e-6, T = 3 * f, x = 1.4096e-6;
  const testing::TwoJudges j = testing::judge_both(two_stages(1));
  ASSERT_TRUE(j.ok);
  EXPECT_NEAR(j.sim.step_seconds, 2 * T + 2 * x, 1e-9 * 2 * T);
  EXPECT_NEAR(j.cost.step_seconds, 2 * T + 4 * x, 1e-9 * 2 * T);
}

}  // namespace
}  // namespace brigade::planner
