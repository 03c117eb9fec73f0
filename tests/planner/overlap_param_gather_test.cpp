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

// Interleaved schedules: Megatron-LM's align_param_gather
// (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving). The tiny GPT with 6 layers
// over 2 pipeline stages x 3 virtual stages x 2 data ranks, ZeRO-1, 2
// micro-batches, buckets of one layer: each chunk holds one layer (stage 0's
// chunk 0 the embedding too: buckets embedding, layer 0). Chunks 0 and 1's
// gathers issued at the step's start, back to back; chunk 2's when the
// rank's forward of virtual micro-batch (2-1)*2 - rank starts: on rank 0 the
// third forward (chunk 1's first: layer 2, micro-batch 0), on rank 1 the
// second (chunk 0, layer 1, micro-batch 1). Each chunk's first forward waits
// for its gathers; the closed form walks the same timeline.
TEST(OverlapParamGather, InterleavedChunksDispatchedAligned) {
  Scenario sc = tiny(true);
  sc.topology = cost::testing::round_star(4, 1e-6, 1e10, 0);
  ASSERT_TRUE(sc.topology.validate().is_ok());
  sc.transformer.layers = 6;
  sc.training.global_batch = 4;
  sc.strategy.pipeline = 2;
  sc.strategy.schedule = PipelineSchedule::kInterleaved;
  sc.strategy.virtual_stages = 3;
  const testing::TwoJudges on = testing::judge_both(sc);
  ASSERT_TRUE(on.ok);
  const Program& p = on.plan.program;
  auto start = [&](TaskId t) { return on.sim.task_start_seconds[static_cast<size_t>(t)]; };
  auto end = [&](TaskId t) { return on.sim.task_end_seconds[static_cast<size_t>(t)]; };
  // The first forward compute task of `layer` for micro-batch `mb`.
  auto forward_of = [&](int layer, int mb) {
    for (TaskId t = 0; t < p.num_tasks(); ++t)
      if (p.task(t).kind == TaskKind::kCompute && p.task(t).phase == Phase::kForward &&
          p.task(t).layer == layer && p.task(t).micro_batch == mb)
        return t;
    return TaskId{-1};
  };
  for (int rank = 0; rank < 2; ++rank) {
    const TaskId l0 = forward_of(rank, 0);
    ASSERT_GE(l0, 0);
    const int dev = p.task(l0).device;
    std::vector<TaskId> g;
    for (TaskId t = 0; t < p.num_tasks(); ++t)
      if (p.task(t).device == dev && p.task_name(t) == "zero.param_gather") g.push_back(t);
    // Buckets by chunk. Stage 0: embedding, layer 0 | layer 2 | layer 4;
    // stage 1: layer 1 | layer 3 | the final norm (256 B), layer 5 with the
    // head's own (116,096 B).
    const std::vector<size_t> per_chunk = rank == 0 ? std::vector<size_t>{2, 1, 1}
                                                    : std::vector<size_t>{1, 1, 2};
    ASSERT_EQ(g.size(), 4u) << rank;
    const size_t c1 = per_chunk[0], c2 = c1 + per_chunk[1];
    // Chunks 0 and 1 at the step's start, back to back.
    EXPECT_EQ(start(g[0]), 0.0);
    for (size_t k = 1; k < c2; ++k) EXPECT_NEAR(start(g[k]), end(g[k - 1]), 1e-12) << rank;
    // Chunk 2: when virtual micro-batch 2 - rank starts (after its
    // receive), not before.
    const TaskId at = rank == 0 ? forward_of(2, 0) : forward_of(1, 1);
    ASSERT_GE(at, 0);
    EXPECT_GT(start(g[c2]), end(g[c2 - 1])) << rank;
    EXPECT_LE(start(g[c2]), start(at) + 1e-12) << rank;
    // Each chunk's first forward waits for its gathers.
    EXPECT_GE(start(forward_of(rank, 0)), end(g[c1 - 1]) - 1e-12) << rank;
    EXPECT_GE(start(forward_of(rank + 2, 0)), end(g[c2 - 1]) - 1e-12) << rank;
    EXPECT_GE(start(forward_of(rank + 4, 0)), end(g[3]) - 1e-12) << rank;
  }
  // The closed form finds the same saving against the gathers after the
  // optimizer (12.0 us of 20.0; the two judges' steps differ by 8.5% in this
  // latency-bound toy with or without the key: pipeline sends of 1.4 us
  // against 3.4 us layers).
  Scenario o = sc;
  o.strategy.overlap_param_gather = false;
  const testing::TwoJudges off = testing::judge_both(o);
  ASSERT_TRUE(off.ok);
  const double saved_sim = off.sim.step_seconds - on.sim.step_seconds,
               saved_cost = off.cost.step_seconds - on.cost.step_seconds;
  EXPECT_GT(saved_sim, 10e-6);
  EXPECT_NEAR(saved_sim, saved_cost, 0.02 * saved_cost);
}

}  // namespace
}  // namespace brigade::planner
