// Which kernel runs a transformer's fused attention (training.
// attention_backend; Megatron-LM's --attention-backend): Transformer
// Engine's choice on Hopper is cuDNN's fused attention (its FusedAttention),
// not FlashAttention-2 (NVIDIA/TransformerEngine, transformer_engine/
// pytorch/attention/dot_product_attention/utils.py at v2.9,
// get_attention_backend: "Disabling FlashAttention to give FusedAttention
// preference on Hopper+ for performance reasons"; attention.py at v1.7 and
// v1.8 alike). The Hopper presets time it at cuDNN's measured rates from the
// same figures as FlashAttention-2's (Shah et al. 2024, arXiv 2407.08608,
// Figure 5, forward, and Figure 6, backward, head dimension 128, the
// "cuDNN" bars; core/presets_profiles.cpp), freeze 9.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/profile.hpp"
#include "core/scenario.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

std::string scenario(const std::string& preset, const std::string& training,
                     const std::string& attention = "flash") {
  return "topology: {preset: " + preset +
         "}\n"
         "model:\n"
         "  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 2048, vocab: 32000,\n"
         "                attention: " +
         attention +
         "}\n"
         "training: {global_batch: 8, micro_batch: 1" +
         training +
         "}\n"
         "strategy: {data: 8}\n";
}

KernelClass attention_class(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "s.yaml");
  EXPECT_TRUE(s.is_ok()) << s.message();
  if (!s.is_ok()) return KernelClass::kGeneric;
  EXPECT_TRUE(check_plan(*s).is_ok()) << check_plan(*s).message();
  Result<BlockTemplate> L = transformer_layer(transformer_shape(*s));
  EXPECT_TRUE(L.is_ok()) << L.message();
  for (const Kernel& k : L->forward)
    if (k.name == "attn.flash") return k.kernel_class;
  return KernelClass::kGeneric;
}

// auto: Transformer Engine's choice. Under TE's layers the kernel is TE's
// FusedAttention, which each device times at cuDNN's rates where its
// profile measures them (H100, H200) and at FlashAttention-2's otherwise
// (an A100: TE runs FlashAttention there); under Megatron-LM's own layers,
// and with `flash`, FlashAttention-2's kernel.
TEST(AttentionBackend, AutoIsTransformerEnginesChoice) {
  EXPECT_EQ(attention_class(scenario("dgx-h100", "")), KernelClass::kFusedAttentionForward);
  EXPECT_EQ(attention_class(scenario("dgx-h200", "")), KernelClass::kFusedAttentionForward);
  EXPECT_EQ(attention_class(scenario("dgx-h100", ", transformer_impl: local")),
            KernelClass::kFlashForward);
  EXPECT_EQ(attention_class(scenario("dgx-h100", ", attention_backend: flash")),
            KernelClass::kFlashForward);
  EXPECT_EQ(attention_class(scenario("dgx-a100", ", attention_backend: fused")),
            KernelClass::kFusedAttentionForward);
  // On an A100 (no cuDNN table) TE's kernel takes what FlashAttention-2's
  // would: the same rates, so the same time.
  Result<Scenario> a100 = parse_scenario(scenario("dgx-a100", ""), "a.yaml");
  ASSERT_TRUE(a100.is_ok()) << a100.message();
  const Device& d = a100->topology.device(0);
  const DeviceProfile& p = a100->profile.for_device(d);
  EXPECT_EQ(flash_attention_rates(p, 128, KernelClass::kFusedAttentionForward),
            flash_attention_rates(p, 128, KernelClass::kFlashForward));
  EXPECT_EQ(kernel_seconds(d, p, DType::kBF16, 3.4e10, 1e6, ComputeKind::kFixed, 0,
                           KernelClass::kFusedAttentionForward, 2048, 128),
            kernel_seconds(d, p, DType::kBF16, 3.4e10, 1e6, ComputeKind::kFixed, 0,
                           KernelClass::kFlashForward, 2048, 128));
}

// Bad input: a backend for the unfused core; FusedAttention without
// Transformer Engine; an unknown backend.
TEST(AttentionBackend, RefusedWhereItMeansNothing) {
  Result<Scenario> u =
      parse_scenario(scenario("dgx-h100", ", attention_backend: fused", "unfused"), "u.yaml");
  ASSERT_TRUE(u.is_ok()) << u.message();
  EXPECT_EQ(check_plan(*u).message(),
            "u.yaml:5:45: error: found attention_backend fused with attention unfused; expected "
            "model.transformer.attention: flash, or no attention_backend key (the backend says "
            "which kernel runs the fused attention)");
  Result<Scenario> l = parse_scenario(
      scenario("dgx-h100", ", transformer_impl: local, attention_backend: fused"), "l.yaml");
  ASSERT_TRUE(l.is_ok()) << l.message();
  EXPECT_EQ(check_plan(*l).message(),
            "l.yaml:5:70: error: found attention_backend fused with transformer_impl local; "
            "expected transformer_impl transformer_engine, or attention_backend flash "
            "(FusedAttention, cuDNN's kernel, is Transformer Engine's)");
  Result<Scenario> x =
      parse_scenario(scenario("dgx-h100", ", attention_backend: cudnn"), "x.yaml");
  ASSERT_FALSE(x.is_ok());
  EXPECT_NE(x.message().find("x.yaml:5:"), std::string::npos) << x.message();
  EXPECT_NE(x.message().find("fused"), std::string::npos) << x.message();
}

// A profile file's `fused_attention`, read and written as `flash_attention`.
TEST(AttentionBackend, AProfileFileCarriesCudnnsTable) {
  const std::string text =
      "devices:\n"
      "  - model: \"*\"\n"
      "    fused_attention:\n"
      "      - {head_dim: 128, forward: [[2048, 484TFLOPS], [8192, 529TFLOPS]], "
      "backward: [[2048, 364TFLOPS]]}\n";
  Result<HardwareProfile> p = parse_profile(text, "p.yaml");
  ASSERT_TRUE(p.is_ok()) << p.message();
  ASSERT_EQ(p->devices.size(), 1u);
  ASSERT_EQ(p->devices[0].fused_attention.size(), 1u);
  EXPECT_TRUE(p->devices[0].flash_attention.empty());
  EXPECT_DOUBLE_EQ(p->devices[0].fused_attention[0].forward.at(8192), 529e12);
  const std::string path = ::testing::TempDir() + "/brigade_fused_attention_profile.yaml";
  ASSERT_TRUE(save_profile(*p, path).is_ok());
  Result<HardwareProfile> back = load_profile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.is_ok()) << back.message();
  ASSERT_EQ(back->devices[0].fused_attention.size(), 1u);
  EXPECT_EQ(back->devices[0].fused_attention[0].forward.points,
            p->devices[0].fused_attention[0].forward.points);
}

}  // namespace
}  // namespace brigade::cost
