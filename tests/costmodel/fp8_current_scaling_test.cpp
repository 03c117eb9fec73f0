// FP8 current scaling (training.fp8_recipe: tensorwise; Megatron-LM's
// --fp8-recipe tensorwise, Megatron-Bridge's bf16_with_fp8_current_scaling_
// mixed) as Transformer Engine runs it: each tensor's scale from its own
// amax, taken just before the cast.
//
// Source: NVIDIA/TransformerEngine at v2.9, transformer_engine/pytorch/csrc/
// quantizer.cpp, Float8CurrentScalingQuantizer::quantize_impl (an amax
// kernel, nvte_compute_amax; the amax all-reduced over the amax reduction
// group when with_amax_reduction; the scale kernel, nvte_compute_scale_
// from_amax; then the cast), extensions/normalization.cpp (the norm before
// a LayerNormLinear takes the amax itself: FUSED_NORM_AMAX_FP8),
// extensions/bias.cpp (a bias gradient's reduction takes the output
// gradient's amax), module/linear.py and layernorm_linear.py
// (_customize_quantizers_float8_current_scaling: with sequence parallelism,
// a column-parallel layer's input and a row-parallel layer's output
// gradient are reduced over the tensor group).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

// One GPT layer on one rank: b 1, s 2048, h 1024, 8 heads, FFN 4h, flash.
TransformerShape layer(Fp8Scaling scaling, bool bias, int t = 1, bool sp = false) {
  TransformerShape shape;
  shape.spec.layers = 2;
  shape.spec.hidden = 1024;
  shape.spec.heads = 8;
  shape.spec.seq = 2048;
  shape.spec.vocab = 32000;
  shape.spec.attention = AttentionKernel::kFlash;
  shape.spec.bias = bias;
  shape.micro_batch = 1;
  shape.tensor = t;
  shape.sequence_parallel = sp;
  shape.fp8 = Fp8Recipe::kHybrid;
  shape.fp8_scaling = scaling;
  return shape;
}

const Kernel* find(const std::vector<Kernel>& ks, const std::string& name) {
  for (const Kernel& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

size_t index_of(const std::vector<Kernel>& ks, const std::string& name) {
  for (size_t i = 0; i < ks.size(); ++i)
    if (ks[i].name == name) return i;
  return ks.size();
}

// A GPT layer without biases (as Llama's), t = 1, T = b s = 2048 tokens,
// e = 2. The amax passes read what the cast reads, n e bytes:
//   forward:  attn.proj.amax T h 2 = 4,194,304; mlp.fc2.amax T 4h 2 =
//             16,777,216 (Megatron-Core's own GeLU wrote fc2's input);
//             none for attn.qkv and mlp.fc1 (their LayerNormLinear's norm).
//   backward: mlp.fc2.bwd T h 2 = 4,194,304; mlp.fc1.bwd T 4h 2 =
//             16,777,216; attn.proj.bwd T h 2 = 4,194,304; attn.qkv.bwd
//             T 3h 2 = 12,582,912.
// Every cast gets a scale kernel (8 B: the amax read, the scale written),
// right before it, after its amax pass.
TEST(Fp8CurrentScaling, AmaxPassesWhereTransformerEngineDoesNotFuseThem) {
  Result<BlockTemplate> L = transformer_layer(layer(Fp8Scaling::kTensorwise, false));
  Result<BlockTemplate> D = transformer_layer(layer(Fp8Scaling::kDelayed, false));
  ASSERT_TRUE(L.is_ok() && D.is_ok()) << L.message() << D.message();
  const std::pair<const char*, double> forward[] = {{"attn.proj.amax", 4194304},
                                                    {"mlp.fc2.amax", 16777216}};
  for (const auto& [name, bytes] : forward) {
    const Kernel* k = find(L->forward, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_DOUBLE_EQ(k->bytes, bytes) << name;
    EXPECT_EQ(k->compute, ComputeKind::kMemoryBound);
    EXPECT_EQ(k->flops(), 0);
  }
  EXPECT_EQ(find(L->forward, "attn.qkv.amax"), nullptr);
  EXPECT_EQ(find(L->forward, "mlp.fc1.amax"), nullptr);
  const std::pair<const char*, double> backward[] = {{"mlp.fc2.bwd.amax", 4194304},
                                                     {"mlp.fc1.bwd.amax", 16777216},
                                                     {"attn.proj.bwd.amax", 4194304},
                                                     {"attn.qkv.bwd.amax", 12582912}};
  for (const auto& [name, bytes] : backward) {
    const Kernel* k = find(L->backward, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_DOUBLE_EQ(k->bytes, bytes) << name;
  }
  for (const char* base : {"attn.qkv", "attn.proj", "mlp.fc1", "mlp.fc2"}) {
    const std::string b(base);
    const size_t scale = index_of(L->forward, b + ".scale");
    ASSERT_LT(scale, L->forward.size()) << base;
    EXPECT_DOUBLE_EQ(L->forward[scale].bytes, 8);
    EXPECT_EQ(L->forward[scale + 1].name, b + ".cast");
    const size_t bscale = index_of(L->backward, b + ".bwd.scale");
    ASSERT_LT(bscale, L->backward.size()) << base;
    EXPECT_EQ(L->backward[bscale + 1].name, b + ".bwd.cast");
  }
  // Forward: 2 amax passes and 4 scale kernels more than delayed scaling,
  // and the two LayerNormLinears' casts, which TE 1.x's delayed scaling
  // leaves to the norm (tests/costmodel/fp8_te_boundaries_test.cpp);
  // backward: 4 and 4, less the two weight-gradient transposes delayed
  // scaling adds in their place. The Linears' casts keep their bytes.
  EXPECT_EQ(L->forward.size(), D->forward.size() + 6 + 2);
  EXPECT_EQ(L->backward.size(), D->backward.size() + 8 - 2);
  EXPECT_DOUBLE_EQ(find(L->forward, "mlp.fc2.cast")->bytes,
                   find(D->forward, "mlp.fc2.cast")->bytes);
  EXPECT_DOUBLE_EQ(L->saved_bytes(), D->saved_bytes());
}

// GPT's biased layers: each output gradient's amax is taken by its bias
// gradient's reduction (extensions/bias.cpp), so the backward has scale
// kernels and no amax pass; the forward is as without biases.
TEST(Fp8CurrentScaling, ABiasGradientTakesTheOutputGradientsAmax) {
  Result<BlockTemplate> L = transformer_layer(layer(Fp8Scaling::kTensorwise, true));
  ASSERT_TRUE(L.is_ok()) << L.message();
  for (const Kernel& k : L->backward)
    EXPECT_EQ(k.name.find(".amax"), std::string::npos) << k.name;
  EXPECT_NE(find(L->backward, "mlp.fc2.bwd.scale"), nullptr);
  EXPECT_NE(find(L->forward, "attn.proj.amax"), nullptr);
  EXPECT_NE(find(L->forward, "mlp.fc2.amax"), nullptr);
}

// Tensor 2 with sequence parallelism: a 4-byte all-reduce over 'tensor'
// before the casts of the tensors the layer gathers (the QKV and fc1
// inputs, the projection's and fc2's output gradients), and no other.
TEST(Fp8CurrentScaling, SequenceParallelTensorsReduceTheirAmaxOverTensor) {
  Result<BlockTemplate> L = transformer_layer(layer(Fp8Scaling::kTensorwise, false, 2, true));
  Result<BlockTemplate> N = transformer_layer(layer(Fp8Scaling::kTensorwise, false, 2, false));
  ASSERT_TRUE(L.is_ok() && N.is_ok()) << L.message() << N.message();
  std::vector<std::string> reduced;
  for (const auto* ks : {&L->forward, &L->backward})
    for (const Kernel& k : *ks)
      if (k.name.find(".amax_allreduce") != std::string::npos) {
        EXPECT_TRUE(k.is_collective);
        EXPECT_EQ(k.collective, CollectiveKind::kAllReduce);
        EXPECT_DOUBLE_EQ(k.collective_bytes, 4);
        reduced.push_back(k.name);
      }
  EXPECT_EQ(reduced, (std::vector<std::string>{"attn.qkv.amax_allreduce", "mlp.fc1.amax_allreduce",
                                               "mlp.fc2.bwd.amax_allreduce",
                                               "attn.proj.bwd.amax_allreduce"}));
  for (const auto* ks : {&N->forward, &N->backward})
    for (const Kernel& k : *ks) EXPECT_EQ(k.name.find(".amax_allreduce"), std::string::npos);
}

// The weights' cast once a step: read at e, FP8 and its transpose written
// (W (e + 2)), and under current scaling their amax read first (W e):
// W = 1,000,000, e = 2: 4,000,000 and 6,000,000 B.
TEST(Fp8CurrentScaling, TheWeightCastReadsTheWeightsOnceMore) {
  EXPECT_DOUBLE_EQ(fp8_weight_cast_bytes(1e6, 2, Fp8Scaling::kDelayed), 4e6);
  EXPECT_DOUBLE_EQ(fp8_weight_cast_bytes(1e6, 2, Fp8Scaling::kTensorwise), 6e6);
}

std::string h100(const std::string& training) {
  return "topology: {preset: dgx-h100}\n"
         "model:\n"
         "  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 1024, vocab: 32000,\n"
         "                attention: flash, bias: false}\n"
         "training: {global_batch: 8, micro_batch: 1" +
         training +
         "}\n"
         "strategy: {tensor: 2, data: 4, sequence_parallel: true}\n";
}

// The closed form charges the extra kernels: the step is longer under
// current scaling. And the optimizer step's weight cast reads the FP8
// weights once more for their amax: a layer's 12 h^2 = 12,582,912 linear
// weights (no biases; QKV 3h^2, projection h^2, fc1 and fc2 4h^2 each), over
// tensor 2 and 2 layers, 12,582,912 local elements, 2 bytes each:
// 25,165,824 B more, at the H100 preset's stream rate 0.867 x 3.35 TB/s
// (2,903 GB/s: core/presets_profiles.cpp) 8.6689 us more.
TEST(Fp8CurrentScaling, TheStepPaysForTheAmaxPasses) {
  Result<Scenario> d = parse_scenario(h100(", fp8: hybrid"), "d.yaml");
  Result<Scenario> c = parse_scenario(h100(", fp8: hybrid, fp8_recipe: tensorwise"), "c.yaml");
  ASSERT_TRUE(d.is_ok() && c.is_ok()) << d.message() << c.message();
  EXPECT_EQ(c->training.fp8_scaling, Fp8Scaling::kTensorwise);
  EXPECT_EQ(d->training.fp8_scaling, Fp8Scaling::kDelayed);
  Result<PlanEstimate> a = estimate_plan(*d);
  Result<PlanEstimate> b = estimate_plan(*c);
  ASSERT_TRUE(a.is_ok() && b.is_ok()) << a.message() << b.message();
  EXPECT_GT(b->step_seconds, a->step_seconds);
  EXPECT_NEAR(b->optimizer_seconds - a->optimizer_seconds, 25165824.0 / 2903e9, 1e-12);
  EXPECT_NEAR(b->optimizer_seconds - a->optimizer_seconds, 8.6689e-6, 1e-10);
}

// Bad input: a recipe without FP8 (check_plan, at the key), an unknown
// recipe (the reader, naming the two there are).
TEST(Fp8CurrentScaling, RefusedWithoutFp8) {
  Result<Scenario> s = parse_scenario(h100(", fp8_recipe: tensorwise"), "s.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(check_plan(*s).message(),
            "s.yaml:5:45: error: found fp8_recipe tensorwise with fp8: none; expected fp8: "
            "hybrid or e4m3, or no fp8_recipe key (the recipe says how Transformer Engine scales "
            "FP8 tensors)");
  Result<Scenario> u = parse_scenario(h100(", fp8: hybrid, fp8_recipe: current"), "u.yaml");
  ASSERT_FALSE(u.is_ok());
  EXPECT_NE(u.message().find("u.yaml:5:"), std::string::npos) << u.message();
  EXPECT_NE(u.message().find("delayed"), std::string::npos) << u.message();
  EXPECT_NE(u.message().find("tensorwise"), std::string::npos) << u.message();
}

}  // namespace
}  // namespace brigade::cost
