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
#include "core/topology.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

struct Gpu {
  Device device;
  DeviceProfile profile;
};

Gpu preset_gpu(const std::string& preset) {
  auto t = make_preset(preset);
  EXPECT_TRUE(t.is_ok()) << t.message();
  const Device d = t->device(0);
  return {d, HardwareProfile::defaults().for_device(d)};
}

// One causal forward of 8 heads of dimension 128 over 8,192 tokens:
// Brigade counts 4 s^2 d a = 4 x 8192^2 x 128 x 8 = 2^38 =
// 274,877,906,944 FLOPs, the causal kernel half of them, 2^37 =
// 137,438,953,472: at cuDNN's measured 529 TFLOP/s (Figure 5, causal, 8k)
// 259.809 us, at FlashAttention-2's 333 TFLOP/s 412.730 us; each plus the
// launch gap.
TEST(AttentionBackend, CudnnsKernelTakesItsOwnMeasuredRate) {
  const Gpu g = preset_gpu("dgx-h100");
  const double flops = 274877906944.0;
  auto t = [&](KernelClass c) {
    return kernel_seconds(g.device, g.profile, DType::kBF16, flops, 1e6, ComputeKind::kFixed, 0,
                          c, 8192, 128) -
           g.profile.launch_overhead_seconds;
  };
  EXPECT_NEAR(t(KernelClass::kFusedAttentionForward), 137438953472.0 / 529e12, 1e-15);
  EXPECT_NEAR(t(KernelClass::kFusedAttentionForward), 259.809e-6, 1e-9);
  EXPECT_NEAR(t(KernelClass::kFlashForward), 412.730e-6, 1e-9);
  // The backward: the unmasked backward (518 TFLOP/s at 8k, Figure 6) times
  // the forward's causal / unmasked ratio at 8k (529 / 600), 456.713 TFLOP/s
  // on the causal count, as FlashAttention-2's table is made.
  const FlashAttentionRates* r =
      flash_attention_rates(g.profile, 128, KernelClass::kFusedAttentionBackward);
  ASSERT_NE(r, nullptr);
  EXPECT_NEAR(r->backward.at(8192), 518e12 * 529.0 / 600.0, 1e3);
  EXPECT_NEAR(r->forward.at(512), 315e12, 1e3);
  EXPECT_NEAR(r->forward.at(16384), 539e12, 1e3);
  // FlashAttention-2's kernel keeps FlashAttention-2's table.
  EXPECT_NEAR(flash_attention_rates(g.profile, 128, KernelClass::kFlashBackward)->backward.at(8192),
              318e12 * 333.0 / 370.0, 1e3);
}

// A profile without cuDNN's table (the A100 preset, a profile file without
// `fused_attention`) times the cuDNN kernel at its FlashAttention-2 rates.
TEST(AttentionBackend, WithoutCudnnsTableTheFlashRatesServe) {
  Gpu g = preset_gpu("dgx-h100");
  g.profile.fused_attention.clear();
  EXPECT_EQ(flash_attention_rates(g.profile, 128, KernelClass::kFusedAttentionForward),
            flash_attention_rates(g.profile, 128, KernelClass::kFlashForward));
  EXPECT_TRUE(preset_gpu("dgx-a100").profile.fused_attention.empty());
  EXPECT_FALSE(preset_gpu("dgx-h200").profile.fused_attention.empty());
}

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

// auto: Transformer Engine's choice, cuDNN's where every device's profile
// measures it (H100, H200), FlashAttention-2 on an A100 and under
// Megatron-LM's own layers; flash and fused say it outright.
TEST(AttentionBackend, AutoIsTransformerEnginesChoice) {
  EXPECT_EQ(attention_class(scenario("dgx-h100", "")), KernelClass::kFusedAttentionForward);
  EXPECT_EQ(attention_class(scenario("dgx-h200", "")), KernelClass::kFusedAttentionForward);
  EXPECT_EQ(attention_class(scenario("dgx-a100", "")), KernelClass::kFlashForward);
  EXPECT_EQ(attention_class(scenario("dgx-h100", ", transformer_impl: local")),
            KernelClass::kFlashForward);
  EXPECT_EQ(attention_class(scenario("dgx-h100", ", attention_backend: flash")),
            KernelClass::kFlashForward);
  EXPECT_EQ(attention_class(scenario("dgx-a100", ", attention_backend: fused")),
            KernelClass::kFusedAttentionForward);
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
