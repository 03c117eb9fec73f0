// Transformer Engine 1.x's delayed scaling reduces the amaxes of every FP8
// tensor of a device's modules at the end of each model chunk's forward and
// backward, every micro-batch. Source: transformer_engine/pytorch/fp8.py at
// v1.8 (the NeMo 24.07 container's release), FP8GlobalStateManager::
// reduce_and_update_fp8_tensors: a torch.cat of the global amax buffer
// (every FP8 module of the process, each added once by
// add_fp8_tensors_to_global_buffer), an all_reduce(MAX) over the autocast's
// group when it has more than one rank, then one
// fused_amax_and_scale_update_after_reduction; called by fp8_autocast_exit
// (the outermost autocast, which Megatron-Core 0.8's TransformerBlock enters
// once a chunk's forward) and by the backward of the autocast's first FP8
// module (module/linear.py, layernorm_linear.py: reduce_and_update_bwd_
// fp8_tensors). Forward meta: 3 amaxes a GEMM (input, weight, output);
// backward: 2 (output gradient, input gradient).
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/estimate_text.hpp"

namespace brigade::cost {
namespace {

using testing::estimate_text;

// Four GPT layers on a DGX H100, tensor 2 (no sequence parallelism: the
// layers' own tensor collectives are AllReduces of bf16 activations, the
// same with FP8 or without), data 4, two micro-batches of 2 a step.
std::string plan(const std::string& training) {
  return "topology: {preset: dgx-h100}\n"
         "model:\n"
         "  transformer: {layers: 4, hidden: 512, heads: 4, seq: 256, vocab: 4096, "
         "attention: flash}\n"
         "training: {global_batch: 16, micro_batch: 2" +
         training +
         "}\n"
         "strategy: {tensor: 2, data: 4}\n";
}

Scenario parsed(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "s.yaml");
  EXPECT_TRUE(s.is_ok()) << s.message();
  return s.is_ok() ? *s : Scenario{};
}

const CommunicationEstimate* tensor_allreduce(const PlanEstimate& e) {
  for (const CommunicationEstimate& c : e.communication)
    if (c.purpose == "tensor" && c.kind == "allreduce") return &c;
  return nullptr;
}

// Which plans reduce: FP8 with delayed scaling (hybrid or e4m3), training.
TEST(Fp8AmaxReduction, DelayedScalingInTrainingOnly) {
  TransformerShape shape = transformer_shape(parsed(plan(", fp8: hybrid")));
  EXPECT_TRUE(reduces_fp8_amax(shape, true));
  EXPECT_FALSE(reduces_fp8_amax(shape, false));  // inference: no gradients, no autocast reduction
  EXPECT_TRUE(reduces_fp8_amax(transformer_shape(parsed(plan(", fp8: e4m3"))), true));
  EXPECT_FALSE(
      reduces_fp8_amax(transformer_shape(parsed(plan(", fp8: hybrid, fp8_recipe: tensorwise"))),
                       true));  // current scaling reduces each tensor's amax before its cast
  EXPECT_FALSE(reduces_fp8_amax(transformer_shape(parsed(plan(""))), true));
}

// The kernels by hand, for 5 layers of 4 FP8 modules (QKV, projection, fc1,
// fc2) on tensor 2: forward 60 amaxes, backward 40.
TEST(Fp8AmaxReduction, KernelsByHand) {
  const TransformerShape shape = transformer_shape(parsed(plan(", fp8: hybrid")));
  Result<BlockTemplate> layer = transformer_layer(shape);
  ASSERT_TRUE(layer.is_ok());
  EXPECT_EQ(fp8_modules_per_layer(*layer), 4.0);
  const Fp8AmaxReduction r = fp8_amax_reduction(shape, 5 * 4);
  ASSERT_EQ(r.forward.size(), 3u);
  ASSERT_EQ(r.backward.size(), 3u);
  // The cat reads each amax and writes the buffer: 2 x 4 B an amax.
  EXPECT_EQ(r.forward[0].name, "fp8.amax.fwd.cat");
  EXPECT_DOUBLE_EQ(r.forward[0].bytes, 2 * 4 * 60.0);
  // AllReduce(MAX) of 60 fp32 amaxes over 'tensor'.
  EXPECT_TRUE(r.forward[1].is_collective);
  EXPECT_EQ(r.forward[1].collective, CollectiveKind::kAllReduce);
  EXPECT_DOUBLE_EQ(r.forward[1].collective_bytes, 240.0);
  // The update: the amax read (4), its 1,024-entry history read and written
  // rolled (8,192), scale and inverse scale read and written (16).
  EXPECT_DOUBLE_EQ(r.forward[2].bytes, 60.0 * (4 + 8192 + 16));
  EXPECT_EQ(r.backward[0].name, "fp8.amax.bwd.cat");
  EXPECT_DOUBLE_EQ(r.backward[0].bytes, 2 * 4 * 40.0);
  EXPECT_DOUBLE_EQ(r.backward[1].collective_bytes, 160.0);
  EXPECT_DOUBLE_EQ(r.backward[2].bytes, 40.0 * 8212);
  // One rank in the group: no AllReduce (TE skips a group of one).
  TransformerShape one = shape;
  one.tensor = 1;
  const Fp8AmaxReduction alone = fp8_amax_reduction(one, 4);
  ASSERT_EQ(alone.forward.size(), 2u);
  EXPECT_FALSE(alone.forward[0].is_collective);
  EXPECT_FALSE(alone.forward[1].is_collective);
  EXPECT_TRUE(fp8_amax_reduction(shape, 0).empty());
  EXPECT_EQ(r.forward[1].group, Kernel::Group::kTensor);
}

// With context parallelism the group is 'tensor' x 'context' (Megatron-Core
// 0.8's TransformerBlock: fp8_group = get_amax_reduction_group(
// with_context_parallel=True), the tensor-and-context group): an AllReduce
// even on one tensor rank, marked to span the context ranks.
TEST(Fp8AmaxReduction, ContextParallelismWidensTheGroup) {
  TransformerShape shape = transformer_shape(parsed(plan(", fp8: hybrid")));
  shape.tensor = 1;
  shape.context = 2;
  const Fp8AmaxReduction r = fp8_amax_reduction(shape, 4);
  ASSERT_EQ(r.forward.size(), 3u);
  ASSERT_EQ(r.backward.size(), 3u);
  for (const auto* ks : {&r.forward, &r.backward}) {
    EXPECT_TRUE((*ks)[1].is_collective);
    EXPECT_EQ((*ks)[1].group, Kernel::Group::kTensorContext);
    EXPECT_NE((*ks)[1].reason.find("'tensor' and 'context'"), std::string::npos);
  }
  EXPECT_DOUBLE_EQ(r.forward[1].collective_bytes, 4 * 3 * 4.0);
  shape.tensor = 2;
  EXPECT_EQ(fp8_amax_reduction(shape, 4).forward[1].group, Kernel::Group::kTensorContext);
}

// training.fp8_amax_group tensor_data_context: Megatron-Core's default
// since core_r0.9.0 (get_amax_reduction_group(with_context_parallel=True,
// tp_only_amax_red=False) returns _TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP):
// every rank of the stage, an AllReduce even with tensor and context 1; the
// default stays Megatron-Core 0.8's tensor x context.
TEST(Fp8AmaxReduction, TheWholeStageWhenTheGroupSaysSo) {
  const Scenario base = parsed(plan(", fp8: hybrid"));
  EXPECT_EQ(base.training.fp8_amax_group, Fp8AmaxGroup::kTensorContext);
  const Scenario all = parsed(plan(", fp8: hybrid, fp8_amax_group: tensor_data_context"));
  EXPECT_EQ(all.training.fp8_amax_group, Fp8AmaxGroup::kTensorDataContext);
  TransformerShape shape = transformer_shape(all);
  EXPECT_TRUE(shape.amax_over_data);
  EXPECT_EQ(shape.data, 4);
  shape.tensor = 1;
  const Fp8AmaxReduction r = fp8_amax_reduction(shape, 4);
  ASSERT_EQ(r.backward.size(), 3u);
  EXPECT_TRUE(r.backward[1].is_collective);
  EXPECT_EQ(r.backward[1].group, Kernel::Group::kStage);
  EXPECT_NE(r.backward[1].reason.find("'tensor', 'data' and 'context'"), std::string::npos);
  EXPECT_DOUBLE_EQ(r.backward[1].collective_bytes, 4 * 2 * 4.0);
  // One device in the stage: nothing to reduce.
  shape.data = 1;
  EXPECT_FALSE(fp8_amax_reduction(shape, 4).backward[1].is_collective);
  // The plan: the same calls and bytes a step as over 'tensor' (one group
  // a stage instead of one a replica: the communication table counts the
  // busiest device's), the step no shorter (a group 4x as wide).
  const PlanEstimate narrow = estimate_text(plan(", fp8: hybrid"));
  const PlanEstimate wide =
      estimate_text(plan(", fp8: hybrid, fp8_amax_group: tensor_data_context"));
  EXPECT_GE(wide.step_seconds, narrow.step_seconds);
}

// Bad input: the key without FP8 or under current scaling (check_plan, at
// the key), an unknown group (the reader, naming the two there are).
TEST(Fp8AmaxReduction, TheGroupKeyIsRefusedWhereNoAmaxIsReduced) {
  const Scenario none = parsed(plan(", fp8_amax_group: tensor_data_context"));
  EXPECT_EQ(check_plan(none).message(),
            "s.yaml:4:46: error: found fp8_amax_group tensor_data_context with fp8: none; "
            "expected fp8: hybrid or e4m3 with fp8_recipe delayed, or no fp8_amax_group key "
            "(the group delayed scaling reduces its amaxes over)");
  const Scenario cs =
      parsed(plan(", fp8: hybrid, fp8_recipe: tensorwise, fp8_amax_group: tensor_data_context"));
  EXPECT_NE(check_plan(cs).message().find(
                "error: found fp8_amax_group tensor_data_context with fp8_recipe tensorwise; "
                "expected fp8_recipe delayed, or no fp8_amax_group key"),
            std::string::npos)
      << check_plan(cs).message();
  Result<Scenario> u = parse_scenario(plan(", fp8: hybrid, fp8_amax_group: data"), "u.yaml");
  ASSERT_FALSE(u.is_ok());
  EXPECT_NE(u.message().find("u.yaml:4:"), std::string::npos) << u.message();
  EXPECT_NE(u.message().find("tensor_context"), std::string::npos) << u.message();
  EXPECT_NE(u.message().find("tensor_data_context"), std::string::npos) << u.message();
}

// The step's amax AllReduces, a line of their own in the communication
// table ("fp8 amax", at the group's size): one each way per chunk and
// micro-batch, 2 x 2 = 4 calls, of 4 B x (3 + 2) amaxes x 16 modules a
// micro-batch, 2 x 320 = 640 B, over 'tensor' (2 ranks); the layers'
// tensor AllReduces as in bf16 (FP8 leaves the activations' alike). Over
// the whole stage (fp8_amax_group tensor_data_context) the same calls and
// bytes over its 8 ranks.
TEST(Fp8AmaxReduction, OneAllReduceEachWayAChunkAndMicroBatch) {
  const PlanEstimate bf16 = estimate_text(plan(""));
  const PlanEstimate fp8 = estimate_text(plan(", fp8: hybrid"));
  const CommunicationEstimate* a = tensor_allreduce(bf16);
  const CommunicationEstimate* b = tensor_allreduce(fp8);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->count, a->count);
  EXPECT_DOUBLE_EQ(b->bytes, a->bytes);
  auto amax_of = [](const PlanEstimate& e) -> const CommunicationEstimate* {
    for (const CommunicationEstimate& c : e.communication)
      if (c.purpose == "fp8 amax") return &c;
    return nullptr;
  };
  EXPECT_EQ(amax_of(bf16), nullptr);
  const CommunicationEstimate* x = amax_of(fp8);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->kind, "allreduce");
  EXPECT_EQ(x->group_size, 2);
  EXPECT_DOUBLE_EQ(x->count, 4.0);
  EXPECT_DOUBLE_EQ(x->bytes, 640.0);
  EXPECT_DOUBLE_EQ(x->exposed_seconds, x->seconds);  // on the compute stream
  const PlanEstimate all =
      estimate_text(plan(", fp8: hybrid, fp8_amax_group: tensor_data_context"));
  const CommunicationEstimate* y = amax_of(all);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->group_size, 8);
  EXPECT_DOUBLE_EQ(y->count, 4.0);
  EXPECT_DOUBLE_EQ(y->bytes, 640.0);
  // Current scaling reduces no such buffer (its amax all-reduces are
  // sequence parallelism's, absent here).
  const PlanEstimate cs = estimate_text(plan(", fp8: hybrid, fp8_recipe: tensorwise"));
  const CommunicationEstimate* c = tensor_allreduce(cs);
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->count, a->count);
  EXPECT_DOUBLE_EQ(c->bytes, a->bytes);
  EXPECT_EQ(amax_of(cs), nullptr);
}

}  // namespace
}  // namespace brigade::cost
