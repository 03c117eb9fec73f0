// FP8 training as Transformer Engine runs it (issue 21, item 4;
// training.fp8): the linear layers' GEMMs at the FP8 rate, the casts before
// them, their inputs saved in FP8, the weights' FP8 copies in memory and
// their cast once a step; everything else in the model's bf16.
//
// Sources: NVIDIA Transformer Engine, "Using FP8 with Transformer Engine"
// (the FP8 primer) and its common API (recipe.Format.HYBRID: E4M3 forward,
// E5M2 backward; DelayedScaling); Micikevicius et al. 2022, "FP8 Formats for
// Deep Learning" (arXiv:2209.05433, §3: GEMM inputs in FP8, higher precision
// elsewhere); the NVIDIA H100 data sheet (dense FP8 1,979 TFLOP/s, BF16
// 989.5, HBM3 3.35 TB/s: core/presets.cpp).
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "core/topology.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/test_hardware.hpp"

namespace brigade::cost {
namespace {

// A GEMM of 8192^3 on one H100 SXM at efficiency 1, no launch or ramp:
//   FLOPs 2 x 8192^3 = 1,099,511,627,776
//   FP8:  / 1979e12 FLOP/s = 5.5559e-4 s  (operands 3 x 8192^2 x 1 B = 201,326,592 B
//         / 3.35e12 B/s = 6.01e-5 s: the compute term wins the roofline)
//   BF16: / 989.5e12 FLOP/s = 1.11118e-3 s, twice as long.
TEST(Fp8, GemmOnH100RunsAtTheDataSheetsFp8Peak) {
  Result<Topology> topo = make_preset("dgx-h100");
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  const Device& h100 = topo->device(0);
  DeviceProfile p = testing::round_profile(1.0, 1.0, 0.0);
  p.gemm_half_seconds = 0;
  const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  EXPECT_DOUBLE_EQ(flops, 1099511627776.0);
  EXPECT_NEAR(gemm_seconds(h100, p, 8192, 8192, 8192, DType::kFP8), flops / 1979e12, 1e-12);
  EXPECT_NEAR(gemm_seconds(h100, p, 8192, 8192, 8192, DType::kBF16), flops / 989.5e12, 1e-12);
  EXPECT_NEAR(flops / 1979e12, 5.5559e-4, 1e-8);
}

// One GPT layer on one rank: b 1, s 2048, h 1024, 8 heads, FFN 4h, flash.
TransformerShape gpt_layer(Fp8Recipe fp8) {
  TransformerShape shape;
  shape.spec.layers = 2;
  shape.spec.hidden = 1024;
  shape.spec.heads = 8;
  shape.spec.seq = 2048;
  shape.spec.vocab = 32000;
  shape.spec.attention = AttentionKernel::kFlash;
  shape.micro_batch = 1;
  shape.fp8 = fp8;
  return shape;
}

const Kernel* find(const std::vector<Kernel>& ks, const std::string& name) {
  for (const Kernel& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

// The casts (Transformer Engine's cast_transpose: read bf16, write FP8 and
// its transpose, 2 + 1 + 1 = 4 B an element), T = b s = 2048 tokens:
//   attn.proj.cast: T h = 2,097,152 x 4 = 8,388,608 B
//   mlp.fc2.cast: T 4h = 8,388,608 x 4 = 33,554,432 B
//   backward, the output gradients: fc2 T h x 4 = 8,388,608; fc1 T 4h x 4 =
//   33,554,432; proj T h x 4 = 8,388,608; qkv T 3h x 4 = 25,165,824.
// QKV's and fc1's inputs are their LayerNormLinears' norm outputs, which TE
// 1.x writes in FP8 under delayed scaling: no cast, the norms read 2 and
// write 1 B an element (T h x 3 = 6,291,456 B, 8,388,608 in bf16), and
// each weight gradient transposes its FP8 input (T h x 2 = 4,194,304 B;
// tests/costmodel/fp8_te_boundaries_test.cpp works the other cases).
TEST(Fp8, CastKernelsReadBf16AndWriteFp8AndItsTranspose) {
  Result<BlockTemplate> L = transformer_layer(gpt_layer(Fp8Recipe::kHybrid));
  ASSERT_TRUE(L.is_ok()) << L.message();
  EXPECT_DOUBLE_EQ(fp8_cast_bytes(2097152, 2), 8388608);
  EXPECT_EQ(find(L->forward, "attn.qkv.cast"), nullptr);
  EXPECT_EQ(find(L->forward, "mlp.fc1.cast"), nullptr);
  EXPECT_DOUBLE_EQ(find(L->forward, "ln1")->bytes, 6291456);
  EXPECT_DOUBLE_EQ(find(L->forward, "ln2")->bytes, 6291456);
  EXPECT_DOUBLE_EQ(find(L->backward, "attn.qkv.transpose")->bytes, 4194304);
  EXPECT_DOUBLE_EQ(find(L->backward, "mlp.fc1.transpose")->bytes, 4194304);
  const std::pair<const char*, double> forward[] = {{"attn.proj.cast", 8388608},
                                                    {"mlp.fc2.cast", 33554432}};
  for (const auto& [name, bytes] : forward) {
    const Kernel* k = find(L->forward, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_EQ(k->compute, ComputeKind::kMemoryBound) << name;
    EXPECT_EQ(k->dtype, DType::kBF16) << name;  // a bf16 pass over memory
    EXPECT_DOUBLE_EQ(k->bytes, bytes) << name;
  }
  const std::pair<const char*, double> backward[] = {{"mlp.fc2.bwd.cast", 8388608},
                                                     {"mlp.fc1.bwd.cast", 33554432},
                                                     {"attn.proj.bwd.cast", 8388608},
                                                     {"attn.qkv.bwd.cast", 25165824}};
  for (const auto& [name, bytes] : backward) {
    const Kernel* k = find(L->backward, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_DOUBLE_EQ(k->bytes, bytes) << name;
  }
  // Without FP8 there is no cast.
  Result<BlockTemplate> plain = transformer_layer(gpt_layer(Fp8Recipe::kNone));
  ASSERT_TRUE(plain.is_ok());
  EXPECT_EQ(find(plain->forward, "attn.qkv.cast"), nullptr);
  EXPECT_DOUBLE_EQ(find(plain->forward, "ln1")->bytes, 8388608);
  EXPECT_EQ(plain->forward.size() + 2, L->forward.size());
  EXPECT_EQ(plain->backward.size() + 4 + 2, L->backward.size());
}

// FP8 where Transformer Engine uses it (the linear layers' forward, dgrad
// and wgrad GEMMs), bf16 elsewhere: norms, FlashAttention, GeLU, residuals,
// the embedding and the logits.
TEST(Fp8, OnlyTheLinearLayersGemmsAreFp8) {
  TransformerShape shape = gpt_layer(Fp8Recipe::kHybrid);
  Result<BlockTemplate> L = transformer_layer(shape);
  Result<BlockTemplate> H = head_block(shape);
  Result<BlockTemplate> E = embedding_block(shape);
  ASSERT_TRUE(L.is_ok() && H.is_ok() && E.is_ok());
  int fp8_gemms = 0;
  for (const auto* ks : {&L->forward, &L->backward})
    for (const Kernel& k : *ks) {
      const bool linear = k.compute == ComputeKind::kGemm &&
                          (k.name.rfind("attn.qkv", 0) == 0 || k.name.rfind("attn.proj", 0) == 0 ||
                           k.name.rfind("mlp.fc", 0) == 0);
      EXPECT_EQ(k.dtype, linear ? DType::kFP8 : DType::kBF16) << k.name;
      fp8_gemms += linear;
    }
  EXPECT_EQ(fp8_gemms, 12);  // 4 linear layers x (forward, dgrad, wgrad)
  for (const auto* ks : {&H->forward, &H->backward, &E->forward, &E->backward})
    for (const Kernel& k : *ks) EXPECT_EQ(k.dtype, DType::kBF16) << k.name;
}

// Activations kept for the backward (Korthikanti et al. 2022 §4.1, with
// FlashAttention's log-sum-exp in place of the s x s terms), sbh =
// 2048 x 1024 = 2,097,152:
//   bf16: LN1 in 2, QKV in 2, Q K V 6, proj in 2, mask + LN2 in 3, fc1 in 2,
//         GeLU in 8, fc2 in 8, mask 1 = 34 sbh; + log-sum-exp 4 a s b = 65,536
//         = 71,303,168 + 65,536 = 71,368,704 B
//   FP8:  the four GEMM inputs at 1 B: QKV 1, proj 1, fc1 1, fc2 4 (7 sbh
//         fewer) = 27 sbh + 65,536 = 56,623,104 + 65,536 = 56,688,640 B
TEST(Fp8, GemmInputsAreSavedInFp8) {
  Result<BlockTemplate> plain = transformer_layer(gpt_layer(Fp8Recipe::kNone));
  Result<BlockTemplate> fp8 = transformer_layer(gpt_layer(Fp8Recipe::kHybrid));
  ASSERT_TRUE(plain.is_ok() && fp8.is_ok());
  EXPECT_DOUBLE_EQ(plain->saved_bytes(), 71368704);
  EXPECT_DOUBLE_EQ(fp8->saved_bytes(), 56688640);
  EXPECT_DOUBLE_EQ(find(fp8->forward, "mlp.fc2")->saved_bytes, 8388608);  // T 4h x 1 B
}

std::string h100_gpt(const std::string& training) {
  return "topology: {preset: dgx-h100}\n"
         "model:\n"
         "  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 1024, vocab: 32000,\n"
         "                attention: flash}\n"
         "training: {global_batch: 8, micro_batch: 1" +
         training +
         "}\n"
         "strategy: {data: 8}\n";
}

// Model states per parameter, hand-counted. GPT, h 1024, 2 layers, V 32000,
// s 1024 (learned positions, tied):
//   a layer: 12 h^2 = 12,582,912 weights (QKV 3h^2, proj h^2, fc1 4h^2, fc2
//   4h^2, all FP8) + 13 h = 13,312 biases and norms;
//   P = 2 (12,582,912 + 13,312) + V h 32,768,000 + s h 1,048,576 = 59,009,024
//   FP8 weights W = 2 x 12,582,912 = 25,165,824
// Mixed-precision Adam keeps 2 + 2 + 12 = 16 B per parameter as without FP8
// (bf16 weights and gradients, fp32 master, m and v); Transformer Engine
// adds an FP8 copy and its transpose of each FP8 weight, 2 B:
//   params     2 P + 2 W = 118,018,048 + 50,331,648 = 168,349,696 B
//   grads      2 P       = 118,018,048 B
//   optimizer  12 P      = 708,108,288 B
// (18 B per FP8 weight, 16 B per other parameter.) The optimizer step
// streams Megatron-LM's passes, 52 B per parameter over the shard and 2 to
// zero the gradient buffer (costmodel/memory.hpp, bf16 Adam: cast 6, norm 4,
// clip 8, Adam 28, copy back 6), 54 in all, and, with FP8, casts the
// weights once: W (2 + 2) = 100,663,296 B more.
TEST(Fp8, BytesPerParameterAndTheWeightCast) {
  Result<Scenario> plain = parse_scenario(h100_gpt(""), "plain.yaml");
  Result<Scenario> fp8 = parse_scenario(h100_gpt(", fp8: hybrid"), "fp8.yaml");
  ASSERT_TRUE(plain.is_ok() && fp8.is_ok()) << plain.message() << fp8.message();
  Result<PlanEstimate> a = estimate_plan(*plain);
  Result<PlanEstimate> b = estimate_plan(*fp8);
  ASSERT_TRUE(a.is_ok() && b.is_ok()) << a.message() << b.message();
  EXPECT_DOUBLE_EQ(b->parameters, 59009024);
  const DeviceMemoryEstimate& m = b->memory[0];
  EXPECT_DOUBLE_EQ(m.params_bytes, 168349696);
  EXPECT_DOUBLE_EQ(m.grads_bytes, 118018048);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 708108288);
  EXPECT_DOUBLE_EQ(a->memory[0].params_bytes, 118018048);
  const Device& dev = fp8->topology.device(0);
  const DeviceProfile& dp = fp8->profile.for_device(dev);
  EXPECT_DOUBLE_EQ(a->optimizer_seconds,
                   memory_bound_seconds(dev, dp, 54.0 * 59009024, DType::kF32));
  EXPECT_DOUBLE_EQ(b->optimizer_seconds,
                   memory_bound_seconds(dev, dp, 54.0 * 59009024 + 100663296, DType::kF32));
  // A layer this small gains nothing: its GEMMs (1024 x 3072 x 1024) sit
  // low on the FP8 efficiency curve and the casts add memory traffic.
  EXPECT_GT(b->compute_seconds, a->compute_seconds);
}

// A Llama-2-70B-sized layer (h 8192, FFN 28672, s 4096) on 8 H100 at tensor
// 8: its GEMMs gain from FP8, the step does not halve (attention, norms,
// activations and the casts stay memory-bound or bf16).
TEST(Fp8, LargeLayersRunFasterButNotTwiceAsFast) {
  auto scenario = [](const std::string& fp8) {
    return parse_scenario(
        "topology: {preset: dgx-h100}\n"
        "model:\n"
        "  transformer: {layers: 2, hidden: 8192, heads: 64, kv_heads: 8, seq: 4096,\n"
        "                vocab: 32000, ffn_hidden: 28672, mlp: swiglu, attention: flash}\n"
        "training: {global_batch: 1" + fp8 + "}\n"
        "strategy: {tensor: 8, sequence_parallel: true}\n",
        "l.yaml");
  };
  Result<Scenario> plain = scenario("");
  Result<Scenario> fp8 = scenario(", fp8: hybrid");
  ASSERT_TRUE(plain.is_ok() && fp8.is_ok()) << plain.message() << fp8.message();
  Result<PlanEstimate> a = estimate_plan(*plain);
  Result<PlanEstimate> b = estimate_plan(*fp8);
  ASSERT_TRUE(a.is_ok() && b.is_ok()) << a.message() << b.message();
  EXPECT_LT(b->compute_seconds, 0.9 * a->compute_seconds);
  EXPECT_GT(b->compute_seconds, 0.5 * a->compute_seconds);
}

// Refused: FP8 on a device without FP8 tensor cores (A100), on a model other
// than a transformer, and a transformer's dtype fp8 in training.
TEST(Fp8, RefusedWithoutFp8TensorCoresOrOutsideTransformers) {
  Result<Scenario> a100 = parse_scenario(
      "topology: {preset: dgx-a100}\n"
      "model:\n"
      "  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 1024, vocab: 32000}\n"
      "training: {global_batch: 8, fp8: hybrid}\n"
      "strategy: {data: 8}\n",
      "a.yaml");
  ASSERT_TRUE(a100.is_ok()) << a100.message();
  Status s = check_plan(*a100);
  EXPECT_EQ(s.message(),
            "a.yaml:4:29: error: found fp8 hybrid on gpu0 (NVIDIA A100-SXM4-80GB), which has no "
            "FP8 tensor cores; expected fp8: none, or devices with FP8 (H100, H200)");
  EXPECT_EQ(s.kind(), ErrorKind::kUnsupported);

  Result<Scenario> dtype = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model:\n"
      "  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 1024, vocab: 32000, dtype: fp8}\n"
      "strategy: {data: 8}\n",
      "d.yaml");
  ASSERT_TRUE(dtype.is_ok()) << dtype.message();
  EXPECT_EQ(check_plan(*dtype).message(),
            "d.yaml:3:77: error: found dtype fp8 for training; expected dtype bf16 with "
            "training.fp8: hybrid (Transformer Engine keeps bf16 weights and activations and "
            "runs only the linear layers' GEMMs in FP8)");

  Result<Scenario> mlp = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model:\n"
      "  mlp: {batch: 8, widths: [16, 16], dtype: bf16}\n"
      "training: {fp8: e4m3}\n"
      "strategy: {data: 8}\n",
      "m.yaml");
  ASSERT_TRUE(mlp.is_ok()) << mlp.message();
  EXPECT_EQ(check_plan(*mlp).message(),
            "m.yaml:4:12: error: found fp8 e4m3 with an mlp model; expected fp8: none "
            "(Transformer Engine's FP8 is modelled for transformer models)");
}

}  // namespace
}  // namespace brigade::cost
