// The shape of a plan's transformer (costmodel/transformer_blocks.hpp,
// transformer_shape) that the closed-form judge and the planner's lowering
// both build their blocks from, and the micro-batch rule under it
// (core/plan_check.hpp, micro_batch_size: training.micro_batch, else a
// replica's whole batch, global batch / data).
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

Scenario parsed(const std::string& training) {
  auto sc = parse_scenario(
      "topology: {preset: dgx-a100}\n"
      "model:\n"
      "  transformer: {layers: 4, hidden: 512, heads: 8, seq: 1024, vocab: 1024}\n" +
          training +
          "strategy: {tensor: 2, data: 2, context: 2, sequence_parallel: true}\n",
      "s.yaml");
  EXPECT_TRUE(sc.is_ok()) << sc.message();
  return sc.is_ok() ? *sc : Scenario{};
}

// Global batch 16 over data 2: 8 sequences a replica, in micro-batches of 2.
TEST(TransformerShape, ReadsTheStrategyAndTraining) {
  const Scenario sc =
      parsed("training: {global_batch: 16, micro_batch: 2, recompute: selective, fp8: hybrid}\n");
  const TransformerShape x = transformer_shape(sc);
  EXPECT_EQ(x.spec.layers, 4);
  EXPECT_EQ(x.spec.hidden, 512);
  EXPECT_EQ(x.micro_batch, 2);
  EXPECT_EQ(x.tensor, 2);
  EXPECT_EQ(x.expert, 1);
  EXPECT_EQ(x.context, 2);
  EXPECT_TRUE(x.sequence_parallel);
  EXPECT_EQ(x.recompute, Recompute::kSelective);
  EXPECT_EQ(x.fp8, Fp8Recipe::kHybrid);
}

// Without training.micro_batch a micro-batch is the replica's whole batch:
// 16 / data 2 = 8.
TEST(TransformerShape, MicroBatchDefaultsToTheReplicasBatch) {
  const Scenario sc = parsed("training: {global_batch: 16}\n");
  EXPECT_EQ(micro_batch_size(sc), 8);
  EXPECT_EQ(transformer_shape(sc).micro_batch, 8);
}

// Inference runs no backward: nothing to recompute, whatever training says.
TEST(TransformerShape, InferenceRecomputesNothing) {
  const Scenario sc =
      parsed("training: {mode: inference, global_batch: 16, micro_batch: 4, recompute: full}\n");
  EXPECT_TRUE(sc.training.inference);
  EXPECT_EQ(sc.training.recompute, Recompute::kFull);
  const TransformerShape x = transformer_shape(sc);
  EXPECT_EQ(x.micro_batch, 4);
  EXPECT_EQ(x.recompute, Recompute::kNone);
}

}  // namespace
}  // namespace brigade::cost
