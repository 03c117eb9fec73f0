// The embedding and the loss counted in the pipeline split
// (strategy.embedding_in_pipeline_split, loss_in_pipeline_split; Megatron-
// Core's --account-for-embedding-in-pipeline-split and
// --account-for-loss-in-pipeline-split): (layers + 1 + 1) / (p v) layers a
// chunk, the first virtual stage and the last one a layer fewer.
// Source: megatron/core/transformer/transformer_block.py,
// get_num_layers_to_build (Megatron-LM at d98e8a64); Megatron-Bridge's
// Llama 3.1 405B recipes set both (src/megatron/bridge/recipes/llama/
// llama3.py at v0.2.0).
#include <string>

#include <gtest/gtest.h>

#include "costmodel/plan.hpp"
#include "tests/costmodel/estimate_text.hpp"

namespace brigade::cost {
namespace {

// The first device's memory of pipeline stage `stage`.
const DeviceMemoryEstimate& stage_memory(const PlanEstimate& e, int stage) {
  for (const DeviceMemoryEstimate& m : e.memory)
    if (m.stage == stage) return m;
  ADD_FAILURE() << "no stage " << stage;
  static const DeviceMemoryEstimate none;
  return none;
}

// A GPT of `layers` layers (h 512, 4 heads, s 256, V 4096, LayerNorm, GeLU
// FFN 2048, biases, learned positions, tied output) on one DGX A100.
std::string gpt(int layers, const std::string& strategy) {
  return "topology: {preset: dgx-a100}\n"
         "model:\n"
         "  transformer: {layers: " +
         std::to_string(layers) +
         ", hidden: 512, heads: 4, seq: 256, vocab: 4096}\n"
         "training: {global_batch: 64, micro_batch: 2}\n"
         "strategy: {" +
         strategy + "}\n";
}

// Six layers over two stages with both ends counted: (6 + 2) / 2 = 4 a
// stage, the first and the last a layer fewer: 3 and 3, the even split.
// Every figure is the plain plan's.
TEST(PipelineSplit, BothEndsOverTwoStagesIsTheEvenSplit) {
  const PlanEstimate plain = testing::estimate_text(gpt(6, "pipeline: 2, data: 4"));
  const PlanEstimate split = testing::estimate_text(
      gpt(6, "pipeline: 2, data: 4, embedding_in_pipeline_split: true, "
             "loss_in_pipeline_split: true"));
  ASSERT_EQ(plain.memory.size(), split.memory.size());
  EXPECT_EQ(split.step_seconds, plain.step_seconds);
  for (size_t i = 0; i < plain.memory.size(); ++i) {
    EXPECT_EQ(split.memory[i].params_bytes, plain.memory[i].params_bytes) << i;
    EXPECT_EQ(split.memory[i].activations_bytes, plain.memory[i].activations_bytes) << i;
  }
}

// Seven layers with the embedding counted: (7 + 1) / 2 = 4 a stage, stage
// 0 three layers beside the embedding and stage 1 four beside the head.
// Parameters by hand: a layer 12 h^2 + 13 h = 3,152,384; the embedding
// (V + s) h = 2,228,224; stage 0 2,228,224 + 3 x 3,152,384 = 11,685,376,
// at 2 B each (bf16 weights) 23,370,752 B; stage 1 four layers and the
// head, which under tied embeddings keeps only the output's copy of the
// word embedding, V h (its final LayerNorm's gains are left out, as
// Narayanan et al.'s Eq. 2 leaves them: transformer_blocks.hpp): 4 x
// 3,152,384 + 2,097,152 = 14,706,688, 29,413,376 B. The stage-0
// figures are those of six layers split plainly, the stage-1 ones those of
// eight.
TEST(PipelineSplit, TheEmbeddingCountedTakesALayerFromStageZero) {
  const PlanEstimate split =
      testing::estimate_text(gpt(7, "pipeline: 2, data: 4, embedding_in_pipeline_split: true"));
  const PlanEstimate six = testing::estimate_text(gpt(6, "pipeline: 2, data: 4"));
  const PlanEstimate eight = testing::estimate_text(gpt(8, "pipeline: 2, data: 4"));
  EXPECT_EQ(stage_memory(split, 0).params_bytes, 23370752.0);
  EXPECT_EQ(stage_memory(split, 1).params_bytes, 29413376.0);
  EXPECT_EQ(stage_memory(split, 0).params_bytes, stage_memory(six, 0).params_bytes);
  EXPECT_EQ(stage_memory(split, 1).params_bytes, stage_memory(eight, 1).params_bytes);
  // The busier stage sets the pace: slower than six layers, faster than eight.
  EXPECT_GT(split.step_seconds, six.step_seconds);
  EXPECT_LT(split.step_seconds, eight.step_seconds);
}

// Interleaved, six layers with both ends counted over 2 stages x 2 chunks:
// (6 + 2) / 4 = 2 a chunk; virtual stages 0..3 hold 1, 2, 2, 1 layers, so
// each stage runs three (stage 0 chunk 0: the embedding and layer 0, chunk
// 1: layers 3, 4). Stage 0's parameters: 11,685,376 as above, 23,370,752 B;
// its activations fewer than eight layers' plain split by one layer's for
// each micro-batch of chunk 0 it holds at once.
TEST(PipelineSplit, InterleavedChunksAtTheEndsAreALayerShort) {
  const std::string il = "pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2";
  const PlanEstimate split = testing::estimate_text(
      gpt(6, il + ", embedding_in_pipeline_split: true, loss_in_pipeline_split: true"));
  const PlanEstimate eight = testing::estimate_text(gpt(8, il));
  EXPECT_EQ(stage_memory(split, 0).params_bytes, 23370752.0);
  EXPECT_LT(stage_memory(split, 0).activations_bytes, stage_memory(eight, 0).activations_bytes);
  EXPECT_LT(stage_memory(split, 1).activations_bytes, stage_memory(eight, 1).activations_bytes);
  EXPECT_LT(split.step_seconds, eight.step_seconds);
}

}  // namespace
}  // namespace brigade::cost
