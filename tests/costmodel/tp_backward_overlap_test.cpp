// The column-parallel backward's asynchronous collectives
// (training.tp_backward_overlap; docs/costmodel.md, "The column-parallel
// backward's asynchronous collectives"): the layer template's order and
// marks, the key's default, and its refusals. The closed form's times are
// checked by hand in plan_test.cpp
// (EstimatePlan.TensorParallelBackwardOverlapByHand) and the judges held to
// each other in tests/planner/cross_judge_family_test.cpp (tp_backward_*).
//
// Source: Megatron-LM megatron/mpu/layers.py at 80389ef6 (2022-06),
// LinearWithGradAccumulationAndAsyncCommunication.backward: the input's
// all-gather launched with async_op=True before the input-gradient GEMM and
// waited for after it; the input gradient's reduce-scatter (all-reduce
// without sequence parallelism) launched before the weight-gradient GEMM and
// waited for after it. Transformer Engine's _LayerNormLinear.backward does
// the same ("Overlap dgrad-RS/AR with wgrad").
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

using testing::find_kernel;
using testing::names_from;

constexpr const char* kSp = "tensor: 4, data: 2, sequence_parallel: true";
constexpr const char* kNoSp = "tensor: 4, data: 2";

// One layer of hidden 256, 4 heads, 64 positions, one sequence a
// micro-batch, bf16; a global batch of one sequence a data rank.
std::string yaml(const std::string& training, const std::string& strategy, int batch = 2) {
  return "topology: {preset: dgx-h100}\n"
         "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 256}\n"
         "training: {global_batch: " +
         std::to_string(batch) + ", micro_batch: 1" + training + "}\nstrategy: {" + strategy +
         "}\n";
}

BlockTemplate layer(const std::string& training, const std::string& strategy, int batch = 2) {
  Result<Scenario> sc = parse_scenario(yaml(training, strategy, batch), "t.yaml");
  EXPECT_TRUE(sc.is_ok()) << sc.message();
  if (!sc.is_ok()) return BlockTemplate{};
  EXPECT_TRUE(check_plan(*sc).is_ok()) << check_plan(*sc).message();
  Result<BlockTemplate> L = transformer_layer(transformer_shape(*sc));
  EXPECT_TRUE(L.is_ok()) << L.message();
  return L.is_ok() ? *L : BlockTemplate{};
}

std::vector<std::string> names(const std::vector<Kernel>& ks) {
  std::vector<std::string> out;
  for (const Kernel& k : ks) out.push_back(k.name);
  return out;
}

size_t beside_count(const std::vector<Kernel>& ks) {
  size_t n = 0;
  for (const Kernel& k : ks) n += k.beside ? 1 : 0;
  return n;
}

TEST(TpBackwardOverlap, OnByDefaultAsMegatronLmAndTransformerEngineRunIt) {
  Result<Scenario> on = parse_scenario(yaml("", kSp), "t.yaml");
  ASSERT_TRUE(on.is_ok()) << on.message();
  EXPECT_TRUE(on->training.tp_backward_overlap);
  Result<Scenario> off = parse_scenario(yaml(", tp_backward_overlap: false", kSp), "t.yaml");
  ASSERT_TRUE(off.is_ok()) << off.message();
  EXPECT_FALSE(off->training.tp_backward_overlap);
}

// With sequence parallelism: QKV's and fc1's re-gather (their input, for
// the weight gradient) beside the input-gradient GEMM, their input
// gradient's reduce-scatter moved before the weight-gradient GEMM and
// beside it. No SM is held back (NCCL's kernels take theirs unmodelled).
TEST(TpBackwardOverlap, SequenceParallelPairsRunBesideTheirGemms) {
  const BlockTemplate off = layer(", tp_backward_overlap: false", kSp), on = layer("", kSp);
  EXPECT_EQ(names_from(off.backward, "attn.bwd.regather", 4),
            (std::vector<std::string>{"attn.bwd.regather", "attn.qkv.dgrad", "attn.qkv.wgrad",
                                      "attn.qkv.grad_accumulate"}));
  EXPECT_EQ(names_from(off.backward, "attn.qkv.grad_accumulate", 2),
            (std::vector<std::string>{"attn.qkv.grad_accumulate", "attn.bwd.reducescatter"}));
  EXPECT_EQ(names_from(on.backward, "attn.bwd.regather", 4),
            (std::vector<std::string>{"attn.bwd.regather", "attn.qkv.dgrad",
                                      "attn.bwd.reducescatter", "attn.qkv.wgrad"}));
  EXPECT_EQ(names_from(on.backward, "mlp.bwd.regather", 4),
            (std::vector<std::string>{"mlp.bwd.regather", "mlp.fc1.dgrad",
                                      "mlp.bwd.reducescatter", "mlp.fc1.wgrad"}));
  for (const char* n : {"attn.bwd.regather", "attn.bwd.reducescatter", "mlp.bwd.regather",
                        "mlp.bwd.reducescatter"}) {
    EXPECT_TRUE(find_kernel(on.backward, n)->beside) << n;
    EXPECT_FALSE(find_kernel(off.backward, n)->beside) << n;
  }
  // Only those four: the row-parallel layers' gathers stay between kernels.
  EXPECT_EQ(beside_count(on.backward), 4u);
  EXPECT_EQ(beside_count(off.backward), 0u);
  EXPECT_FALSE(find_kernel(on.backward, "attn.bwd.allgather")->beside);
  EXPECT_FALSE(find_kernel(on.backward, "mlp.bwd.allgather")->beside);
  for (const char* n : {"attn.qkv.dgrad", "attn.qkv.wgrad", "mlp.fc1.dgrad", "mlp.fc1.wgrad"})
    EXPECT_EQ(find_kernel(on.backward, n)->sm_held, 0) << n;
  // Reordered in place: the same kernels, the same recomputation point, the
  // forward untouched.
  EXPECT_EQ(on.backward.size(), off.backward.size());
  EXPECT_EQ(on.recompute_before, off.recompute_before);
  EXPECT_EQ(names(on.forward), names(off.forward));
  EXPECT_EQ(beside_count(on.forward), 0u);
}

// Without sequence parallelism: the input gradient's all-reduce beside the
// weight-gradient GEMM (Megatron-LM's --async-tensor-model-parallel-
// allreduce); the forward's all-reduces stay between kernels.
TEST(TpBackwardOverlap, WithoutSequenceParallelismTheAllReduceRunsBesideTheWeightGradient) {
  const BlockTemplate off = layer(", tp_backward_overlap: false", kNoSp), on = layer("", kNoSp);
  EXPECT_EQ(names_from(off.backward, "attn.qkv.dgrad", 4),
            (std::vector<std::string>{"attn.qkv.dgrad", "attn.qkv.wgrad",
                                      "attn.qkv.grad_accumulate", "attn.bwd.allreduce"}));
  EXPECT_EQ(names_from(on.backward, "attn.qkv.dgrad", 3),
            (std::vector<std::string>{"attn.qkv.dgrad", "attn.bwd.allreduce", "attn.qkv.wgrad"}));
  EXPECT_EQ(names_from(on.backward, "mlp.fc1.dgrad", 3),
            (std::vector<std::string>{"mlp.fc1.dgrad", "mlp.bwd.allreduce", "mlp.fc1.wgrad"}));
  EXPECT_TRUE(find_kernel(on.backward, "attn.bwd.allreduce")->beside);
  EXPECT_TRUE(find_kernel(on.backward, "mlp.bwd.allreduce")->beside);
  EXPECT_EQ(beside_count(on.backward), 2u);
  EXPECT_EQ(beside_count(on.forward), 0u);
  EXPECT_EQ(on.recompute_before, off.recompute_before);
}

// Nothing to overlap without a tensor group.
TEST(TpBackwardOverlap, NothingMovesWithoutATensorGroup) {
  const BlockTemplate off = layer(", tp_backward_overlap: false", "data: 8", 8),
                      on = layer("", "data: 8", 8);
  EXPECT_EQ(names(on.backward), names(off.backward));
  EXPECT_EQ(beside_count(on.backward), 0u);
}

// Under tp_comm_overlap TE's userbuffers take the same pairs (bulk, 16 SMs
// held back): the key changes nothing there.
TEST(TpBackwardOverlap, TheUserbuffersOverlapTakesThePairsUnderTpCommOverlap) {
  const BlockTemplate off = layer(", tp_comm_overlap: true, tp_backward_overlap: false", kSp),
                      on = layer(", tp_comm_overlap: true", kSp);
  EXPECT_EQ(names(on.backward), names(off.backward));
  EXPECT_EQ(beside_count(on.backward), beside_count(off.backward));
  EXPECT_EQ(find_kernel(on.backward, "attn.qkv.wgrad")->sm_held, 16);
}

TEST(TpBackwardOverlap, RefusedWhereItIsNotModelled) {
  const std::string mlp =
      "topology: {preset: dgx-h100}\nmodel:\n  mlp: {batch: 8, widths: [64, 64]}\n"
      "training: {global_batch: 8, tp_backward_overlap: false}\nstrategy: {data: 8}\n";
  Result<Scenario> sc = parse_scenario(mlp, "m.yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  EXPECT_EQ(check_plan(*sc).message(),
            "m.yaml:4:29: error: found tp_backward_overlap: false with an mlp model; expected true "
            "or no key (the column-parallel backward's asynchronous collectives are modelled "
            "for transformer models)");
  Result<Scenario> bad = parse_scenario(yaml(", tp_backward_overlap: sometimes", kSp), "b.yaml");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message(), "b.yaml:4:66: error: found 'sometimes'; expected true or false");
}

}  // namespace
}  // namespace brigade::cost
