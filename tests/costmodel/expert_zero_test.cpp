// ZeRO-1 with expert parallelism (strategy.zero: 1 with expert > 1;
// Megatron-Core's distributed optimizer over a MoE): the experts'
// gradients reduce-scattered over the expert-data group (the data / expert
// ranks holding the same experts), their optimizer state sharded over that
// group, the updated expert weights all-gathered over it; the dense
// parameters' over 'data' as without experts. Source: Megatron-Core's
// DistributedDataParallel, which keeps the expert parameters in buffers of
// their own reduced over the expert-data-parallel group
// (parallel_state.get_expert_data_parallel_group), and its
// DistributedOptimizer, which shards each buffer over that buffer's group.
#include <string>

#include <gtest/gtest.h>

#include "costmodel/memory.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/estimate_text.hpp"

namespace brigade::cost {
namespace {

// Two GPT layers (h 512, 8 heads, s 256, V 1024, LayerNorm, biases, tied),
// each a MoE of 8 experts of width 1024 (GeLU, with biases), top-2, on one
// DGX H100: data 8, expert 4, so each device holds 2 experts and each
// expert lives on 2 data ranks (the expert-data group).
std::string moe(const std::string& strategy) {
  return "topology: {preset: dgx-h100}\n"
         "model:\n"
         "  transformer: {layers: 2, hidden: 512, heads: 8, seq: 256, vocab: 1024,\n"
         "                moe: {experts: 8, top_k: 2, ffn_hidden: 1024}}\n"
         "training: {global_batch: 16, micro_batch: 2}\n"
         "strategy: {data: 8, expert: 4" +
         strategy + "}\n";
}

const CommunicationEstimate* row(const PlanEstimate& e, const std::string& purpose,
                                 const std::string& kind) {
  for (const CommunicationEstimate& c : e.communication)
    if (c.purpose == purpose && c.kind == kind) return &c;
  return nullptr;
}

// Parameters one device keeps, worked by hand:
//   a layer's dense part: attention 4h^2 = 1,048,576, its biases 3h + h =
//   2048, two LayerNorms 4h = 2048, the router h x 8 = 4096: 1,056,768
//   a layer's 2 experts: 2 x (2 x 512 x 1024 + 1024 + 512) = 2,100,224
//   two layers and the embedding (V + s) h = 655,360: dense 2,768,896,
//   experts 4,200,448, 6,969,344 in all.
// Mixed-precision Adam keeps 12 bytes of optimizer state a parameter: 12 x
// 6,969,344 = 83,632,128 B without ZeRO; with ZeRO-1 the dense part's over
// the 8 data ranks and the experts' over their 2: 12 x (346,112 +
// 2,100,224) = 29,356,032 B (all of it over 8 would be 10,454,016 B).
TEST(ExpertZero, OptimizerStateShardsOverTheExpertDataGroup) {
  const PlanEstimate z0 = testing::estimate_text(moe(""));
  const PlanEstimate z1 = testing::estimate_text(moe(", zero: 1"));
  ASSERT_FALSE(z0.memory.empty());
  ASSERT_FALSE(z1.memory.empty());
  EXPECT_EQ(z0.memory[0].params_bytes, 2 * 6969344.0);
  EXPECT_EQ(z0.memory[0].optimizer_bytes, 83632128.0);
  EXPECT_EQ(z1.memory[0].params_bytes, 2 * 6969344.0);
  EXPECT_EQ(z1.memory[0].grads_bytes, 2 * 6969344.0);
  EXPECT_EQ(z1.memory[0].optimizer_bytes, 29356032.0);
}

// The experts' gradients: without ZeRO one AllReduce of 4,200,448 x 2 B =
// 8,400,896 B over the 2 ranks of the expert-data group; with ZeRO-1 a
// ReduceScatter of those bytes and, after the step, an AllGather of the
// updated 16-bit expert weights (the same bytes), over the same 2 ranks.
TEST(ExpertZero, TheExpertsReduceScatterAndGatherOverTheirGroup) {
  const PlanEstimate z0 = testing::estimate_text(moe(""));
  const PlanEstimate z1 = testing::estimate_text(moe(", zero: 1"));
  const CommunicationEstimate* ar = row(z0, "expert data", "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->group_size, 2);
  EXPECT_EQ(ar->bytes, 8400896.0);
  EXPECT_EQ(row(z1, "expert data", "allreduce"), nullptr);
  const CommunicationEstimate* rs = row(z1, "expert data", "reducescatter");
  const CommunicationEstimate* ag = row(z1, "expert data", "allgather");
  ASSERT_NE(rs, nullptr);
  ASSERT_NE(ag, nullptr);
  EXPECT_EQ(rs->group_size, 2);
  EXPECT_EQ(rs->bytes, 8400896.0);
  EXPECT_EQ(ag->bytes, 8400896.0);
  EXPECT_GT(rs->seconds, 0.0);
  EXPECT_GT(ag->seconds, 0.0);
}

// Expert parallelism over all 8 data ranks: one expert a device, each on
// one rank only (an expert-data group of one): no expert collective at all,
// and the experts' optimizer state kept whole.
//   the expert a layer: 1,050,112, two layers 2,100,224; dense 2,768,896
//   ZeRO-1: 12 x (2,768,896 / 8 + 2,100,224) = 12 x 2,446,336 = 29,356,032 B
//   (the same as with expert 4, where 4,200,448 is halved).
TEST(ExpertZero, AnExpertOnOneRankKeepsItsWholeState) {
  const std::string text =
      "topology: {preset: dgx-h100}\n"
      "model:\n"
      "  transformer: {layers: 2, hidden: 512, heads: 8, seq: 256, vocab: 1024,\n"
      "                moe: {experts: 8, top_k: 2, ffn_hidden: 1024}}\n"
      "training: {global_batch: 16, micro_batch: 2}\n"
      "strategy: {data: 8, expert: 8, zero: 1}\n";
  const PlanEstimate e = testing::estimate_text(text);
  ASSERT_FALSE(e.memory.empty());
  EXPECT_EQ(e.memory[0].optimizer_bytes, 29356032.0);
  for (const CommunicationEstimate& c : e.communication) EXPECT_NE(c.purpose, "expert data");
}

// The split both judges take (costmodel/memory.hpp), by hand: a rank with
// 1000 parameters, 600 of them experts', over data 8 and expert-data 2.
TEST(ShardedParameters, TheExpertsShardOverTheirGroupUnderZeroOne) {
  const ShardedParameters held{1000, 600, 8, 2};
  const BytesPerParameter per{2, 4, 12};
  // ZeRO-1: weights and gradients whole; the state 12 x (400/8 + 600/2).
  auto z1 = model_state_bytes(held, per, 1);
  ASSERT_TRUE(z1.is_ok()) << z1.message();
  EXPECT_DOUBLE_EQ(z1->params_bytes, 2000);
  EXPECT_DOUBLE_EQ(z1->grads_bytes, 4000);
  EXPECT_DOUBLE_EQ(z1->optimizer_bytes, 12 * (50 + 300));
  // Without ZeRO nothing shards; without experts all of it over 8.
  auto z0 = model_state_bytes(held, per, 0);
  ASSERT_TRUE(z0.is_ok());
  EXPECT_DOUBLE_EQ(z0->optimizer_bytes, 12000);
  auto dense = model_state_bytes(ShardedParameters{1000, 0, 8, 2}, per, 1);
  ASSERT_TRUE(dense.is_ok());
  EXPECT_DOUBLE_EQ(dense->optimizer_bytes, 1500);
  // The step: 20 B a parameter it updates, 2 B a parameter of its buffer.
  const OptimizerStepBytes step{20, 2};
  EXPECT_DOUBLE_EQ(optimizer_step_traffic(held, step, 1), 350 * 20 + 1000 * 2);
  EXPECT_DOUBLE_EQ(optimizer_step_traffic(held, step, 0), 1000 * 20 + 1000 * 2);
  EXPECT_DOUBLE_EQ(optimizer_step_traffic(ShardedParameters{1000, 0, 8, 8}, step, 2),
                   125 * 20 + 125 * 2);
  // FP8 primary weights under tensorwise scaling: each weight's transpose
  // (2 B) and the master shard's amax (4 B an element of the shard).
  EXPECT_DOUBLE_EQ(fp8_step_cast_bytes(held, 2, Fp8Scaling::kTensorwise, true, 1),
                   (800 + 4 * 400 / 8) + (1200 + 4 * 600 / 2));
  EXPECT_DOUBLE_EQ(fp8_step_cast_bytes(held, 2, Fp8Scaling::kTensorwise, true, 0),
                   2000 + 4000);
}

}  // namespace
}  // namespace brigade::cost
