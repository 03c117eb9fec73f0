// Kernels Megatron-LM launches that a one-pass model leaves out (issue 19,
// item 3), by hand-worked byte counts: the vocabulary-parallel
// cross-entropy's passes over the fp32 logits (training.cross_entropy_fusion)
// and the bias gradients' reductions and apex's LayerNorm backward
// (training.transformer_impl). docs/costmodel.md, "The cross-entropy as
// Megatron-LM runs it" and "Bias gradients and the LayerNorm backward".
//
// Sources, read line by line:
//  - NVIDIA/Megatron-LM megatron/core/tensor_parallel/cross_entropy.py at
//    d98e8a64 (and megatron/mpu/cross_entropy.py with gpt_model.py's
//    `output.float()` at de7dc40f, 2021): `.float()`, `torch.max`, `-=`,
//    `torch.exp(out=)`, `.sum`, `div_` forward; `mul_` and autograd's cast
//    back to the logits' width backward;
//  - megatron/core/fusions/fused_cross_entropy.py at d98e8a64: three
//    compiled functions forward (cast + max; subtract + exp + sum; divide),
//    one backward ending in `.to(torch.bfloat16)`;
//  - megatron/model/transformer.py, fused_bias_gelu.py and mpu/layers.py at
//    de7dc40f: the projection's, fc1's and fc2's biases returned unadded
//    (skip_bias_add=True) into bias_dropout_add and GeLUFunction, whose
//    gradients autograd reduces over the tokens; QKV's through F.linear of a
//    3-D input (matmul, then `add_`);
//  - megatron/fused_kernels/layer_norm_cuda_kernel.cu at de7dc40f: the
//    backward's cuComputePartGradGammaBeta and cuComputeGradInput each read
//    the input and the output gradient.
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

// A tiny GPT: 32 tokens a micro-batch (b 1, s 32), hidden 64, FFN 256,
// vocabulary 128; bf16 unless the model says otherwise.
Scenario tiny(const std::string& model, const std::string& training,
              const std::string& strategy = "data: 8") {
  const std::string yaml =
      "topology: {preset: dgx-a100}\n"
      "model:\n  transformer: {layers: 2, hidden: 64, heads: 4, seq: 32, vocab: 128" +
      model + "}\ntraining: {global_batch: 8, micro_batch: 1" + training + "}\nstrategy: {" +
      strategy + "}\n";
  Result<Scenario> sc = parse_scenario(yaml, "tiny.yaml");
  EXPECT_TRUE(sc.is_ok()) << sc.message();
  return sc.is_ok() ? *sc : Scenario{};
}

// The bytes of a block's kernels whose name starts with `prefix`, forward
// and backward apart, and how many there are.
struct Passes {
  int forward = 0, backward = 0;
  double forward_bytes = 0, backward_bytes = 0;
};
Passes passes(const BlockTemplate& b, const std::string& prefix) {
  Passes p;
  for (const Kernel& k : b.forward)
    if (k.name.rfind(prefix, 0) == 0) ++p.forward, p.forward_bytes += k.bytes;
  for (const Kernel& k : b.backward)
    if (k.name.rfind(prefix, 0) == 0) ++p.backward, p.backward_bytes += k.bytes;
  return p;
}

Passes cross_entropy(const Scenario& sc) {
  Result<BlockTemplate> h = head_block(transformer_shape(sc));
  EXPECT_TRUE(h.is_ok()) << h.message();
  return h.is_ok() ? passes(*h, "head.cross_entropy") : Passes{};
}

// n = 32 tokens x 128 logits = 4,096 elements. Unfused, bf16: cast 2 + 4,
// max 4, subtract 4 + 4, exp 4 + 4, sum 4, divide 4 + 4 = 38 B an element
// forward (155,648 B, six kernels); mul 4 + 4 and the cast back 4 + 2 = 14 B
// backward (57,344 B, two kernels).
TEST(CrossEntropy, UnfusedIsMegatronsEightPasses) {
  const Passes p = cross_entropy(tiny("", ""));
  EXPECT_EQ(p.forward, 6);
  EXPECT_EQ(p.backward, 2);
  EXPECT_DOUBLE_EQ(p.forward_bytes, 155648);
  EXPECT_DOUBLE_EQ(p.backward_bytes, 57344);
  // The softmax is kept in fp32 for the backward: 4 B an element.
  Result<BlockTemplate> h = head_block(transformer_shape(tiny("", "")));
  ASSERT_TRUE(h.is_ok());
  EXPECT_DOUBLE_EQ(passes(*h, "head.cross_entropy.div").forward_bytes, 32768);
  double saved = 0;
  for (const Kernel& k : h->forward)
    if (k.name.rfind("head.cross_entropy", 0) == 0) saved += k.saved_bytes;
  EXPECT_DOUBLE_EQ(saved, 16384);
}

// fp32 logits: `.float()` returns them, no cast either way: 32 B forward
// (131,072 B, five kernels), 8 B backward (32,768 B, one kernel).
TEST(CrossEntropy, Fp32LogitsAreNotCast) {
  const Passes p = cross_entropy(tiny(", dtype: f32", ""));
  EXPECT_EQ(p.forward, 5);
  EXPECT_EQ(p.backward, 1);
  EXPECT_DOUBLE_EQ(p.forward_bytes, 131072);
  EXPECT_DOUBLE_EQ(p.backward_bytes, 32768);
}

// Fused, bf16: cast + max writing the fp32 logits 2 + 4, subtract + exp + sum
// in place 4 + 4, divide 4 + 4 = 22 B forward (90,112 B, three kernels); one
// backward kernel writing bf16, 4 + 2 = 6 B (24,576 B).
TEST(CrossEntropy, FusedIsFourKernels) {
  const Scenario sc = tiny("", ", cross_entropy_fusion: true");
  EXPECT_TRUE(sc.training.cross_entropy_fusion);
  const Passes p = cross_entropy(sc);
  EXPECT_EQ(p.forward, 3);
  EXPECT_EQ(p.backward, 1);
  EXPECT_DOUBLE_EQ(p.forward_bytes, 90112);
  EXPECT_DOUBLE_EQ(p.backward_bytes, 24576);
  // fp16 logits: the bf16 gradient is cast to fp16 by autograd, 2 + 2 more.
  const Passes f16 = cross_entropy(tiny(", dtype: f16", ", cross_entropy_fusion: true"));
  EXPECT_EQ(f16.backward, 2);
  EXPECT_DOUBLE_EQ(f16.backward_bytes, 24576 + 16384);
  // fp32 logits: the max only reads them (4 B: 20 B forward, 81,920 B); the
  // bf16 gradient goes back to fp32 (4 + 2, then 2 + 4: 49,152 B).
  const Passes f32 = cross_entropy(tiny(", dtype: f32", ", cross_entropy_fusion: true"));
  EXPECT_DOUBLE_EQ(f32.forward_bytes, 81920);
  EXPECT_DOUBLE_EQ(f32.backward_bytes, 49152);
}

// Tensor parallelism splits the vocabulary: each rank's passes cover V/t.
TEST(CrossEntropy, EachTensorRankPassesOverItsShard) {
  const Passes p = cross_entropy(tiny("", "", "tensor: 2, data: 4"));
  EXPECT_DOUBLE_EQ(p.forward_bytes, 155648 / 2.0);
  EXPECT_DOUBLE_EQ(p.backward_bytes, 57344 / 2.0);
}

// The step pays the difference at the streaming rate: one replica of the
// tiny GPT, four micro-batches, the closed form's step with the fusion is
// shorter by four times the unfused kernels' time less the fused ones'.
TEST(CrossEntropy, TheStepPaysEachMicroBatchsPasses) {
  auto one = [](const std::string& training) {
    Result<Scenario> sc = parse_scenario(
        "topology: {preset: h200x1}\nmodel:\n  transformer: {layers: 2, hidden: 64, heads: 4, "
        "seq: 32, vocab: 128}\ntraining: {global_batch: 4, micro_batch: 1" +
            training + "}\nstrategy: {data: 1}\n",
        "one.yaml");
    EXPECT_TRUE(sc.is_ok()) << sc.message();
    return sc.is_ok() ? *sc : Scenario{};
  };
  const Scenario unfused = one(""), fused = one(", cross_entropy_fusion: true");
  auto a = estimate_plan(unfused);
  auto b = estimate_plan(fused);
  ASSERT_TRUE(a.is_ok() && b.is_ok()) << a.message() << b.message();
  const Device& dev = unfused.topology.device(0);
  const DeviceProfile& dp = unfused.profile.for_device(dev);
  auto seconds = [&](const Scenario& sc) {
    Result<BlockTemplate> h = head_block(transformer_shape(sc));
    EXPECT_TRUE(h.is_ok());
    double t = 0;
    if (!h.is_ok()) return t;
    for (const auto* list : {&h->forward, &h->backward})
      for (const Kernel& k : *list)
        if (k.name.rfind("head.cross_entropy", 0) == 0)
          t += memory_bound_seconds(dev, dp, k.bytes, k.dtype);
    return t;
  };
  const double saved = seconds(unfused) - seconds(fused);
  EXPECT_GT(saved, 0);
  EXPECT_NEAR(a->step_seconds - b->step_seconds, 4 * saved, 1e-12);
}

// Bias gradients, tiny GPT (T = 32, h = 64, FFN 256, QKV 192 columns), bf16:
// under Transformer Engine (the default) the projection's and fc2's
// gradients are reduced over 32 x 64 values (4,096 B each) and fc1's over
// 32 x 256 (16,384 B); QKV's bias is the GEMM's. Megatron-LM's own layers
// add QKV's bias by a pass (read and write 32 x 192: 24,576 B, in the
// forward) and reduce its gradient by another (12,288 B); their LayerNorm
// backward reads the input and the gradient twice: 5 x 32 x 64 x 2 =
// 20,480 B against 12,288.
TEST(BiasGradients, SkipBiasAddLayersAreReducedUnderEitherImplementation) {
  Result<BlockTemplate> te = transformer_layer(transformer_shape(tiny("", "")));
  Result<BlockTemplate> local =
      transformer_layer(transformer_shape(tiny("", ", transformer_impl: local")));
  ASSERT_TRUE(te.is_ok() && local.is_ok());
  EXPECT_DOUBLE_EQ(passes(*te, "mlp.fc2.bias_grad").backward_bytes, 4096);
  EXPECT_DOUBLE_EQ(passes(*te, "mlp.fc1.bias_grad").backward_bytes, 16384);
  EXPECT_DOUBLE_EQ(passes(*te, "attn.proj.bias_grad").backward_bytes, 4096);
  EXPECT_EQ(passes(*te, "attn.qkv.bias").forward + passes(*te, "attn.qkv.bias").backward, 0);
  EXPECT_DOUBLE_EQ(passes(*te, "ln1.bwd").backward_bytes, 12288);
  EXPECT_DOUBLE_EQ(passes(*te, "ln2.bwd").backward_bytes, 12288);

  EXPECT_DOUBLE_EQ(passes(*local, "attn.qkv.bias").forward_bytes, 24576);
  EXPECT_DOUBLE_EQ(passes(*local, "attn.qkv.bias_grad").backward_bytes, 12288);
  EXPECT_DOUBLE_EQ(passes(*local, "mlp.fc1.bias_grad").backward_bytes, 16384);
  EXPECT_DOUBLE_EQ(passes(*local, "ln1.bwd").backward_bytes, 20480);
  EXPECT_DOUBLE_EQ(passes(*local, "ln2.bwd").backward_bytes, 20480);
  // Each reduction comes before its layer's GEMMs' backward, which still
  // completes the layer's parameter group.
  for (const BlockTemplate* b : {&*te, &*local})
    for (size_t i = 0; i < b->backward.size(); ++i)
      if (b->backward[i].name.find(".bias_grad") != std::string::npos) {
        EXPECT_EQ(b->backward[i].completes_grad, -1) << b->backward[i].name;
        const std::string layer =
            b->backward[i].name.substr(0, b->backward[i].name.find(".bias_grad"));
        bool later = false;
        for (size_t j = i + 1; j < b->backward.size(); ++j)
          later = later || b->backward[j].name == layer + ".wgrad";
        EXPECT_TRUE(later) << b->backward[i].name;
      }
  // Full recomputation reruns the QKV bias's add with the rest of the forward.
  Result<BlockTemplate> full = transformer_layer(
      transformer_shape(tiny("", ", recompute: full, transformer_impl: local")));
  ASSERT_TRUE(full.is_ok());
  double recomputed = 0;
  for (const Kernel& k : full->recompute)
    if (k.name == "attn.qkv.bias.recompute") recomputed += k.bytes;
  EXPECT_DOUBLE_EQ(recomputed, 24576);
}

// With sequence parallelism (t = 2) the bias-dropout-adds run on the
// sequence shard, 16 tokens: the projection's and fc2's reductions read
// 16 x 64; fc1's and QKV's are column-parallel, 32 x 128 and 32 x 96.
TEST(BiasGradients, SequenceParallelReducesTheShard) {
  Result<BlockTemplate> l = transformer_layer(transformer_shape(
      tiny("", ", transformer_impl: local", "tensor: 2, data: 4, sequence_parallel: true")));
  ASSERT_TRUE(l.is_ok());
  EXPECT_DOUBLE_EQ(passes(*l, "mlp.fc2.bias_grad").backward_bytes, 2048);
  EXPECT_DOUBLE_EQ(passes(*l, "attn.proj.bias_grad").backward_bytes, 2048);
  EXPECT_DOUBLE_EQ(passes(*l, "mlp.fc1.bias_grad").backward_bytes, 8192);
  EXPECT_DOUBLE_EQ(passes(*l, "attn.qkv.bias_grad").backward_bytes, 6144);
  EXPECT_DOUBLE_EQ(passes(*l, "attn.qkv.bias").forward_bytes, 12288);
}

// No biases, no bias passes; biases on QKV only (qkv_bias), QKV's only.
TEST(BiasGradients, OnlyTheLayersThatHaveBiases) {
  Result<BlockTemplate> none = transformer_layer(
      transformer_shape(tiny(", bias: false", ", transformer_impl: local")));
  Result<BlockTemplate> qkv = transformer_layer(
      transformer_shape(tiny(", bias: false, qkv_bias: true", ", transformer_impl: local")));
  ASSERT_TRUE(none.is_ok() && qkv.is_ok());
  for (const auto* list : {&none->forward, &none->backward})
    for (const Kernel& k : *list) EXPECT_EQ(k.name.find(".bias"), std::string::npos) << k.name;
  EXPECT_DOUBLE_EQ(passes(*qkv, "attn.qkv.bias_grad").backward_bytes, 12288);
  EXPECT_EQ(passes(*qkv, "mlp.fc1.bias_grad").backward, 0);
  EXPECT_EQ(passes(*qkv, "attn.proj.bias_grad").backward, 0);
}

TEST(MegatronLayers, BadValuesAndCombinationsAreRefused) {
  Result<Scenario> bad = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  transformer: {layers: 2, hidden: 64, heads: 4, "
      "seq: 32, vocab: 128}\ntraining: {transformer_impl: apex}\n",
      "bad.yaml");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("bad.yaml:4:30: error: found 'apex'"), std::string::npos)
      << bad.message();
  EXPECT_NE(bad.message().find("transformer_engine"), std::string::npos) << bad.message();
  Result<Scenario> yes = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  transformer: {layers: 2, hidden: 64, heads: 4, "
      "seq: 32, vocab: 128}\ntraining: {cross_entropy_fusion: yes please}\n",
      "yes.yaml");
  ASSERT_FALSE(yes.is_ok());
  EXPECT_NE(yes.message().find("yes.yaml:4:34: error: found 'yes please'"), std::string::npos)
      << yes.message();
  Result<Scenario> mlp = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  mlp: {batch: 8, widths: [64, 64]}\n"
      "training: {cross_entropy_fusion: true}\n",
      "mlp.yaml");
  ASSERT_TRUE(mlp.is_ok()) << mlp.message();
  EXPECT_EQ(check_plan(*mlp).message(),
            "mlp.yaml:4:12: error: found cross_entropy_fusion: true with an mlp model; expected "
            "false (Megatron-LM's fused cross-entropy is modelled for transformer models)");
  Result<Scenario> mlp_local = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  mlp: {batch: 8, widths: [64, 64]}\n"
      "training: {transformer_impl: local}\n",
      "mlp.yaml");
  ASSERT_TRUE(mlp_local.is_ok()) << mlp_local.message();
  EXPECT_EQ(check_plan(*mlp_local).message(),
            "mlp.yaml:4:12: error: found transformer_impl local with an mlp model; expected no "
            "transformer_impl key (Megatron-LM's layer implementations are modelled for "
            "transformer models)");
  Result<Scenario> fp8 = parse_scenario(
      "topology: {preset: dgx-h100}\nmodel:\n  transformer: {layers: 2, hidden: 64, heads: 4, "
      "seq: 32, vocab: 128}\ntraining: {fp8: hybrid, transformer_impl: local}\n",
      "fp8.yaml");
  ASSERT_TRUE(fp8.is_ok()) << fp8.message();
  EXPECT_EQ(check_plan(*fp8).message(),
            "fp8.yaml:4:25: error: found transformer_impl local with fp8 hybrid; expected "
            "transformer_impl transformer_engine (Megatron-LM runs FP8 only through Transformer "
            "Engine's layers)");
}

}  // namespace
}  // namespace brigade::cost
