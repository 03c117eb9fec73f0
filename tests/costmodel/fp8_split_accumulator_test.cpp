// Transformer Engine's FP8 GEMMs accumulate two ways (docs/costmodel.md,
// "FP8 training", "Split accumulation in the gradients' GEMMs"): the
// forward's fast (_2X_ACC_FPROP = False in TE 1.x module/base.py; its
// recipes' fp8_gemm_fprop in 2.x), the input and weight gradients' in split
// mode, promoting the partial sums to FP32 every few instructions
// (_2X_ACC_DGRAD = _2X_ACC_WGRAD = True; fp8_gemm_dgrad, fp8_gemm_wgrad:
// cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM 0, transformer_engine/common/
// gemm/cublaslt_gemm.cu). The layer template marks the second kind
// KernelClass::kGemmSplitAccumulator, which a profile's
// fp8_split_accumulator_efficiency slows.
#include <string>

#include <gtest/gtest.h>

#include "costmodel/compute.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/published_kernels.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

BlockTemplate layer(const std::string& training, const std::string& strategy) {
  return testing::layer_of_yaml(
      "topology: {preset: dgx-h100}\n"
      "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 256}\n"
      "training: {global_batch: 4, micro_batch: 1" +
      training + "}\nstrategy: {" + strategy + "}\n");
}

// A linear layer's input- or weight-gradient GEMM (not the attention
// core's batched GEMMs, which stay in the model's dtype).
bool is_gradient_gemm(const Kernel& k) {
  if (k.compute != ComputeKind::kGemm) return false;
  bool linear = false;
  for (const char* l : {"attn.qkv.", "attn.proj.", "mlp.fc1.", "mlp.fc2."})
    linear |= k.name.rfind(l, 0) == 0;
  return linear &&
         (k.name.find(".dgrad") != std::string::npos || k.name.find(".wgrad") != std::string::npos);
}

// Every FP8 gradient GEMM of the layer carries the class, under either
// recipe and with the tensor-parallel overlap's split GEMMs (".rest",
// ".last"); no forward or recomputed GEMM does, and without FP8 none does.
TEST(Fp8SplitAccumulator, TheGradientGemmsAndNoOthersAccumulateInSplitMode) {
  const std::string tp = "tensor: 2, data: 4, sequence_parallel: true";
  for (const std::string& training :
       {std::string(", fp8: hybrid"), std::string(", fp8: hybrid, fp8_recipe: tensorwise"),
        std::string(", fp8: hybrid, recompute: full"),
        std::string(", fp8: hybrid, tp_comm_overlap: true")}) {
    SCOPED_TRACE(training);
    const BlockTemplate L = layer(training, tp);
    int gradients = 0;
    for (const Kernel& k : L.backward) {
      if (!is_gradient_gemm(k)) continue;
      ++gradients;
      EXPECT_EQ(k.dtype, DType::kFP8) << k.name;
      EXPECT_EQ(k.kernel_class, KernelClass::kGemmSplitAccumulator) << k.name;
    }
    // QKV, projection, fc1, fc2: a dgrad and a wgrad each, at least.
    EXPECT_GE(gradients, 8);
    for (const auto* ks : {&L.forward, &L.recompute, &L.backward})
      for (const Kernel& k : *ks) {
        if (!is_gradient_gemm(k)) {
          EXPECT_NE(k.kernel_class, KernelClass::kGemmSplitAccumulator) << k.name;
        }
      }
  }
  const BlockTemplate bf16 = layer("", tp);
  for (const Kernel& k : bf16.backward)
    EXPECT_NE(k.kernel_class, KernelClass::kGemmSplitAccumulator) << k.name;
}

// The class slows only FP8 GEMMs, by the profile's efficiency, and only
// where the profile has one. A weight gradient of Llama 2 7B's fc2 on one
// GPU (h x FFN x T = 4096 x 11008 x 4096: 3.7e11 FLOP, 0.3 ms at the FP8
// curve). On the dgx-h100 preset (no figure: the curve's rate) both
// classes take the same time; at 0.8 the split one takes its compute /
// 0.8, its launch gap unchanged (its bytes, 4096 x 4096 + 2 x 4096 x 11008
// at 1 B = 1.07e8, stream in 37 us at 0.867 x 3,350 GB/s: an eighth of
// its compute, so the compute term decides both ways).
TEST(Fp8SplitAccumulator, AProfileSlowsTheSplitGemmsByItsEfficiency) {
  const testing::PresetGpu g = testing::preset_gpu("dgx-h100");
  DeviceProfile p = g.profile;
  auto t = [&](DType dt, KernelClass k) {
    return gemm_seconds(g.device, p, 4096, 11008, 4096, dt, 1, k);
  };
  const double fast = t(DType::kFP8, KernelClass::kGeneric);
  EXPECT_EQ(p.fp8_split_accumulator_efficiency, 0.0);  // not measured: the curve's rate
  EXPECT_DOUBLE_EQ(t(DType::kFP8, KernelClass::kGemmSplitAccumulator), fast);
  p.fp8_split_accumulator_efficiency = 0.8;
  const double launch = p.launch_overhead_seconds;
  EXPECT_NEAR(t(DType::kFP8, KernelClass::kGemmSplitAccumulator) - launch, (fast - launch) / 0.8,
              1e-12 * fast);
  EXPECT_DOUBLE_EQ(t(DType::kFP8, KernelClass::kGeneric), fast);
  // A 16-bit GEMM has no split mode to pay for.
  EXPECT_DOUBLE_EQ(t(DType::kBF16, KernelClass::kGemmSplitAccumulator),
                   t(DType::kBF16, KernelClass::kGeneric));
}

}  // namespace
}  // namespace brigade::cost
