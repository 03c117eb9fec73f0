// FlashAttention-2's measured rates in the Hopper presets (issue 19, item
// 1): the kernel time a FlashAttention task takes from them, worked by hand.
// Source of the figures: the FlashAttention-3 paper (Shah et al. 2024,
// arXiv 2407.08608), Figures 5 and 6, FlashAttention-2 on an H100 SXM5,
// head dimension 128 (core/presets_profiles.cpp).
#include <cmath>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/topology.hpp"

namespace brigade {
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

// One causal forward of 16 heads of dimension 128 over 2,048 tokens:
// Brigade counts 4 s^2 d a = 4 x 2048^2 x 128 x 16 = 2^35 FLOPs; the causal
// kernel computes half, 2^34 = 17,179,869,184, at the measured 298 TFLOP/s
// (Figure 5, causal, 2k): 57.6506 us, plus the launch gap (5.2788 us).
TEST(FlashAttentionRates, H100ForwardTakesTheMeasuredCausalRate) {
  const Gpu g = preset_gpu("dgx-h100");
  const double flops = 34359738368.0;  // 2^35
  const double t = kernel_seconds(g.device, g.profile, DType::kBF16, flops, 1e6,
                                  ComputeKind::kFixed, 0, KernelClass::kFlashForward, 2048, 128);
  EXPECT_NEAR(t - g.profile.launch_overhead_seconds, 17179869184.0 / 298e12, 1e-15);
  EXPECT_NEAR(t, 5.2788e-6 + 5.76506e-5, 1e-9);
  // Three such kernels fused into one task (region and step granularity):
  // three launches and three times the FLOPs at the same rate,
  // 3 x 5.2788 + 3 x 57.6506 = 188.788 us, three times the one kernel.
  const double three = kernel_seconds(g.device, g.profile, DType::kBF16, 3 * flops, 3e6,
                                      ComputeKind::kFixed, 0, KernelClass::kFlashForward, 2048,
                                      128, 3);
  EXPECT_NEAR(three, 3 * t, 1e-15);
  EXPECT_NEAR(three, 188.788e-6, 1e-9);
}

// The backward: no causal panel in the paper; the non-causal backward (291
// TFLOP/s at 2k, Figure 6) times the forward's causal / non-causal ratio
// at 2k (298 / 362): 239.55 TFLOP/s on the causal count. 2.5 x 2^35 FLOPs
// counted, half computed: 42,949,672,960 / 239.55e12 = 179.29 us.
TEST(FlashAttentionRates, H100BackwardScalesTheNonCausalByTheForwardsRatio) {
  const Gpu g = preset_gpu("dgx-h100");
  const FlashAttentionRates* r = flash_attention_rates(g.profile, 128);
  ASSERT_NE(r, nullptr);
  EXPECT_NEAR(r->backward.at(2048), 291e12 * 298.0 / 362.0, 1e3);
  const double flops = 2.5 * 34359738368.0;
  const double t = kernel_seconds(g.device, g.profile, DType::kBF16, flops, 1e6,
                                  ComputeKind::kFixed, 0, KernelClass::kFlashBackward, 2048, 128);
  EXPECT_NEAR(t - g.profile.launch_overhead_seconds, 42949672960.0 / (291e12 * 298.0 / 362.0),
              1e-15);
}

// Between measured lengths, linear in log(seq): 3,000 tokens lie
// ln(3000/2048) / ln 2 = 0.55072 of the way from 2k (298) to 4k (319):
// 298 + 0.55072 x 21 = 309.565 TFLOP/s. Beyond 16k, the 16k figure (335).
TEST(FlashAttentionRates, InterpolatesInLogSequenceAndClamps) {
  const Gpu g = preset_gpu("dgx-h100");
  const FlashAttentionRates* r = flash_attention_rates(g.profile, 128);
  ASSERT_NE(r, nullptr);
  EXPECT_NEAR(r->forward.at(3000), 309.565e12, 0.01e12);
  EXPECT_EQ(r->forward.at(65536), 335e12);
  EXPECT_EQ(r->forward.at(128), 191e12);
  // Head dimension 64 has no row of its own: the nearest, 128.
  EXPECT_EQ(flash_attention_rates(g.profile, 64), r);
}

// The H200 takes the H100's table (no H200 measurement of FA2 was found;
// the same GH100 SMs and clocks).
TEST(FlashAttentionRates, H200TakesTheH100Table) {
  const Gpu h100 = preset_gpu("dgx-h100");
  const Gpu h200 = preset_gpu("dgx-h200");
  const FlashAttentionRates* a = flash_attention_rates(h100.profile, 128);
  const FlashAttentionRates* b = flash_attention_rates(h200.profile, 128);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->forward.points, b->forward.points);
  EXPECT_EQ(a->backward.points, b->backward.points);
}

// The A100 has no table (no FA2 kernel measurement on an A100 was found in
// a form this project could cite figure by figure): a FlashAttention kernel
// is timed as any kFixed kernel, on the GEMM ceiling and the memory roofline.
TEST(FlashAttentionRates, A100KeepsTheRoofline) {
  const Gpu g = preset_gpu("dgx-a100");
  EXPECT_EQ(flash_attention_rates(g.profile, 128), nullptr);
  const double flops = 34359738368.0, bytes = 5e7;
  EXPECT_EQ(kernel_seconds(g.device, g.profile, DType::kBF16, flops, bytes, ComputeKind::kFixed, 0,
                           KernelClass::kFlashForward, 2048, 128),
            kernel_seconds(g.device, g.profile, DType::kBF16, flops, bytes, ComputeKind::kFixed));
}

// cuDNN's fused attention (Transformer Engine's FusedAttention, its choice
// on Hopper: training.attention_backend), from the cuDNN bars of the same
// two figures (freeze 9; tests/costmodel/attention_backend_test.cpp has the
// choice itself).
// One causal forward of 8 heads of dimension 128 over 8,192 tokens:
// Brigade counts 4 s^2 d a = 4 x 8192^2 x 128 x 8 = 2^38 =
// 274,877,906,944 FLOPs, the causal kernel half of them, 2^37 =
// 137,438,953,472: at cuDNN's measured 529 TFLOP/s (Figure 5, causal, 8k)
// 259.809 us, at FlashAttention-2's 333 TFLOP/s 412.730 us; each plus the
// launch gap.
TEST(FusedAttentionRates, CudnnsKernelTakesItsOwnMeasuredRate) {
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
TEST(FusedAttentionRates, WithoutCudnnsTableTheFlashRatesServe) {
  Gpu g = preset_gpu("dgx-h100");
  g.profile.fused_attention.clear();
  EXPECT_EQ(flash_attention_rates(g.profile, 128, KernelClass::kFusedAttentionForward),
            flash_attention_rates(g.profile, 128, KernelClass::kFlashForward));
  EXPECT_TRUE(preset_gpu("dgx-a100").profile.fused_attention.empty());
  EXPECT_FALSE(preset_gpu("dgx-h200").profile.fused_attention.empty());
}

}  // namespace
}  // namespace brigade
