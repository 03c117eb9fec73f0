// Fused gradient accumulation (docs/costmodel.md, "Fused gradient
// accumulation"): with training.gradient_accumulation_fusion on, Megatron-
// LM's default since 83b1e42f, each weight-gradient GEMM adds its product
// into the parameter's gradient buffer, D = A^T B + C (Transformer Engine's
// fuse_wgrad_accumulation into main_grad; Apex's wgrad_gemm_accum_fp32 /
// _fp16). Beyond a plain GEMM's fresh 16-bit D it reads the buffer (g bytes
// an element) and writes it g - e wider: 2g - e bytes an element of its
// output. The templates mark those GEMMs (Kernel::accumulate_bytes); a
// profile's gemm_accumulate_exposed prices them.
#include <string>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

// h 256, FFN 1024, 4 heads (QKV 768 columns), vocabulary 512, TP 2.
std::string scenario(const std::string& training, const std::string& dtype = "bf16") {
  return "topology: {preset: dgx-h100}\n"
         "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 512, dtype: " +
         dtype +
         "}\n"
         "training: {global_batch: 4, micro_batch: 1" +
         training + "}\nstrategy: {tensor: 2, data: 4}\n";
}

// Each dense weight-gradient GEMM's output elements on one of two tensor
// ranks, by hand: QKV h x 3h/2, projection h/2 x h, fc1 h x 4h/2, fc2 4h/2
// x h; the logits' V/2 x h.
struct Wgrad {
  const char* name;
  double elements;
};
constexpr Wgrad kLayer[] = {{"attn.qkv.wgrad", 256.0 * 384},
                            {"attn.proj.wgrad", 128.0 * 256},
                            {"mlp.fc1.wgrad", 256.0 * 512},
                            {"mlp.fc2.wgrad", 512.0 * 256}};

// 16-bit buffer over a bf16 model: 2 x 2 - 2 = 2 B an element (the read);
// FP32 main_grad: 2 x 4 - 2 = 6 (the read and 2 B more written); under FP8
// the same (TE's weight gradients write the model's width, into main_grad).
TEST(FusedAccumulation, TheWeightGradientsCarryTheirExtraBytes) {
  for (const auto& [training, per_element] :
       {std::pair{std::string(""), 2.0}, std::pair{std::string(", main_grad: fp32"), 6.0},
        std::pair{std::string(", fp8: hybrid"), 2.0},
        std::pair{std::string(", fp8: hybrid, main_grad: fp32"), 6.0},
        std::pair{std::string(", recompute: full"), 2.0}}) {
    SCOPED_TRACE(training);
    const BlockTemplate L = testing::layer_of_yaml(scenario(training));
    for (const Wgrad& w : kLayer) {
      const Kernel* k = testing::find_kernel(L.backward, w.name);
      ASSERT_NE(k, nullptr) << w.name;
      EXPECT_DOUBLE_EQ(k->accumulate_bytes, w.elements * per_element) << w.name;
    }
    // Nothing else adds into a buffer: the input gradients, the forward and
    // recomputed GEMMs, the memory-bound kernels.
    for (const auto* ks : {&L.forward, &L.recompute, &L.backward})
      for (const Kernel& k : *ks) {
        bool wgrad = false;
        for (const Wgrad& w : kLayer) wgrad |= k.name == w.name;
        if (!wgrad) {
          EXPECT_EQ(k.accumulate_bytes, 0.0) << k.name;
        }
      }
    const Result<BlockTemplate> H = head_block(testing::shape_of_yaml(scenario(training)));
    ASSERT_TRUE(H.is_ok()) << H.message();
    const Kernel* logits = testing::find_kernel(H->backward, "head.logits.wgrad");
    ASSERT_NE(logits, nullptr);
    EXPECT_DOUBLE_EQ(logits->accumulate_bytes, 256.0 * 256 * per_element);
  }
  // An FP32 model: the buffer's width is the output's, the read alone (4 B).
  const BlockTemplate f32 = testing::layer_of_yaml(scenario("", "f32"));
  EXPECT_DOUBLE_EQ(testing::find_kernel(f32.backward, "mlp.fc1.wgrad")->accumulate_bytes,
                   256.0 * 512 * 4);
}

// A MoE layer (8 experts of FFN 512, one shared; data 8, expert 2, so 4
// experts a rank): the shared expert's weight gradients and the routed
// experts' grouped ones add into the buffer (Megatron-Core's TEGroupedMLP
// and SequentialMLP pass fuse_wgrad_accumulation to Transformer Engine):
// fc1 h x 512 and fc2 512 x h (h = 256) at 2 B, the routed ones 4 times
// over. The router's weight (a plain torch linear, h x 8) is added by its
// parameter hook, 256 x 8 x 6 B; no GEMM of it carries the bytes.
TEST(FusedAccumulation, AMoeLayerChargesItsExpertsAndLeavesTheRouterToAnAdd) {
  const BlockTemplate L = testing::layer_of_yaml(
      "topology: {preset: dgx-h100}\n"
      "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 512,\n"
      "                moe: {experts: 8, top_k: 2, ffn_hidden: 512, shared_experts: 1}}\n"
      "training: {global_batch: 8, micro_batch: 1}\nstrategy: {data: 8, expert: 2}\n");
  for (const auto& [name, bytes] : {std::pair{"moe.shared.fc1.wgrad", 256.0 * 512 * 2},
                                    std::pair{"moe.shared.fc2.wgrad", 512.0 * 256 * 2},
                                    std::pair{"moe.experts.fc1.wgrad", 4 * 256.0 * 512 * 2},
                                    std::pair{"moe.experts.fc2.wgrad", 4 * 512.0 * 256 * 2}}) {
    const Kernel* k = testing::find_kernel(L.backward, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_DOUBLE_EQ(k->accumulate_bytes, bytes) << name;
  }
  int router = 0;
  for (const Kernel& k : L.backward)
    if (k.name.rfind("moe.router.", 0) == 0) {
      EXPECT_EQ(k.accumulate_bytes, 0.0) << k.name;
      router += k.name == "moe.router.grad_accumulate";
    }
  EXPECT_EQ(router, 1);
  EXPECT_DOUBLE_EQ(testing::find_kernel(L.backward, "moe.router.grad_accumulate")->bytes,
                   256.0 * 8 * 6);
  // The experts' weights are the GEMMs' (no add of their own; GPT's
  // default biases are, 512 and 256 a routed expert, 4 a rank).
  EXPECT_DOUBLE_EQ(testing::find_kernel(L.backward, "moe.experts.fc1.grad_accumulate")->bytes,
                   4 * 512.0 * 6);
}

// Unfused (a separate pass Brigade charges as its own kernel,
// GROUP.grad_accumulate) or not training: no GEMM adds into a buffer.
TEST(FusedAccumulation, UnfusedOrInferenceAddsNothingToTheGemms) {
  for (const std::string& training :
       {std::string(", gradient_accumulation_fusion: false"), std::string(", mode: inference")}) {
    SCOPED_TRACE(training);
    const BlockTemplate L = testing::layer_of_yaml(scenario(training));
    for (const auto* ks : {&L.forward, &L.recompute, &L.backward})
      for (const Kernel& k : *ks) EXPECT_EQ(k.accumulate_bytes, 0.0) << k.name;
  }
  const BlockTemplate unfused =
      testing::layer_of_yaml(scenario(", gradient_accumulation_fusion: false"));
  EXPECT_NE(testing::find_kernel(unfused.backward, "mlp.fc1.grad_accumulate"), nullptr);
}

}  // namespace
}  // namespace brigade::cost
