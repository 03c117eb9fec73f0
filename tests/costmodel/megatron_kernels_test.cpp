// The kernels Megatron-LM launches around its unfused attention core and
// its residual stream, each a kernel of its own (NVIDIA/Megatron-LM,
// megatron/model/transformer.py at 00baee46: CoreAttention.forward runs
// FusedScaleMaskSoftmax, then torch.nn.Dropout, then the context layer's
// permute(2, 0, 1, 3).contiguous(); ParallelTransformerLayer.forward runs
// bias_dropout_add, then post_attention_layernorm), and autograd's sums of
// the two gradients of a tensor that feeds both a LayerNorm and a residual
// add. Bytes worked by hand for one layer of GPT 1.7B as Narayanan et al.
// 2021 ran it (Table 1: h 2304, 24 heads, s 2048, micro-batch 16, TP 1,
// fp16), and the time the dgx-a100 preset gives the softmax (2039 GB/s x
// the streaming efficiency 0.85, core/presets_profiles.cpp, + the launch
// gap 5.28 us).
#include <gtest/gtest.h>

#include "core/topology.hpp"
#include "core/profile.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

const Kernel* find(const std::vector<Kernel>& ks, const std::string& name) {
  for (const Kernel& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

TransformerShape gpt_1_7b() {
  TransformerShape shape;
  shape.spec.layers = 24;
  shape.spec.hidden = 2304;
  shape.spec.heads = 24;
  shape.spec.seq = 2048;
  shape.spec.vocab = 51200;
  shape.spec.dtype = DType::kF16;
  shape.micro_batch = 16;
  return shape;
}

// b·a·s² = 16 x 24 x 2048² = 1,610,612,736 scores; T·h = 32768 x 2304 =
// 75,497,472 elements; e = 2 bytes.
TEST(MegatronKernels, UnfusedAttentionCoreIsSoftmaxThenDropoutThenTheContextCopy) {
  auto L = transformer_layer(gpt_1_7b());
  ASSERT_TRUE(L.is_ok()) << L.message();
  const Kernel* sm = find(L->forward, "attn.softmax");
  const Kernel* dp = find(L->forward, "attn.dropout");
  const Kernel* ctx = find(L->forward, "attn.context");
  ASSERT_NE(sm, nullptr);
  ASSERT_NE(dp, nullptr);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(sm->bytes, 6442450944.0);   // scores read, probabilities written: 4 B each
  EXPECT_EQ(dp->bytes, 8053063680.0);   // probabilities read, output written, 1-byte mask: 5 B
  EXPECT_EQ(ctx->bytes, 301989888.0);   // the (b, a, s, d_h) context read and written: 2·T·h·e
  EXPECT_EQ(sm->saved_bytes, 3221225472.0);  // the probabilities (softmax's backward)
  EXPECT_EQ(dp->saved_bytes, 1610612736.0);  // the mask
  // Backward: dropout's (gradient and mask read, gradient written: 5 B a
  // score), softmax's (gradient and probabilities read, gradient written: 6 B).
  EXPECT_EQ(find(L->backward, "attn.dropout.bwd")->bytes, 8053063680.0);
  EXPECT_EQ(find(L->backward, "attn.softmax.bwd")->bytes, 9663676416.0);
  EXPECT_EQ(find(L->backward, "attn.context.bwd")->bytes, 301989888.0);
}

TEST(MegatronKernels, ResidualAddAndLayerNormTwoAreTwoKernelsAndGradientsAreSummed) {
  auto L = transformer_layer(gpt_1_7b());
  ASSERT_TRUE(L.is_ok()) << L.message();
  EXPECT_EQ(find(L->forward, "attn.residual")->bytes, 528482304.0);  // T·h·(3e + 1)
  EXPECT_EQ(find(L->forward, "ln2")->bytes, 301989888.0);            // 2·T·h·e
  EXPECT_EQ(find(L->backward, "ln2.bwd")->bytes, 452984832.0);       // 3·T·h·e
  EXPECT_EQ(find(L->backward, "ln2.grad_add")->bytes, 452984832.0);  // 3·T·h·e
  EXPECT_EQ(find(L->backward, "attn.residual.bwd")->bytes, 377487360.0);  // T·h·(2e + 1)
  EXPECT_EQ(find(L->backward, "ln1.grad_add")->bytes, 452984832.0);
  EXPECT_EQ(find(L->forward, "attn.residual+ln2"), nullptr);
  // The activation memory does not move: mask sbh + LN2 input 2sbh, as the
  // fused kernel kept (Korthikanti et al. 2022, §4.1).
  EXPECT_EQ(find(L->forward, "attn.residual")->saved_bytes + find(L->forward, "ln2")->saved_bytes,
            75497472.0 * 3);
}

// The softmax on the dgx-a100 preset. As a streaming kernel of no class:
// launch + bytes / (2039 GB/s x 0.85) = 5.278783798217772e-6 + 6442450944 /
// 1.73315e12 = 3.7224706e-3 s. As the plan runs it, a pass of the unfused
// attention core (KernelClass::kAttentionForward), at the A100's measured
// 0.717 (FlashAttention paper, Appendix E; tests/costmodel/
// attention_published_test.cpp): 5.278783798217772e-6 + 6442450944 /
// 1.461963e12 = 4.4119915e-3 s.
TEST(MegatronKernels, SoftmaxTimeOnTheA100Preset) {
  auto topo = make_preset("dgx-a100");
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  const Device& d = topo->devices()[0];
  const HardwareProfile prof = HardwareProfile::defaults();
  const double t = kernel_seconds(d, prof.for_device(d), DType::kF16, 0, 6442450944.0,
                                  ComputeKind::kMemoryBound);
  EXPECT_NEAR(t, 5.278783798217772e-6 + 6442450944.0 / (2039e9 * 0.85), 1e-12);
  EXPECT_NEAR(t, 3.7224706e-3, 1e-9);
  auto L = transformer_layer(gpt_1_7b());
  ASSERT_TRUE(L.is_ok()) << L.message();
  const Kernel* sm = find(L->forward, "attn.softmax");
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->kernel_class, KernelClass::kAttentionForward);
  const double core = kernel_seconds(d, prof.for_device(d), DType::kF16, 0, sm->bytes,
                                     ComputeKind::kMemoryBound, 0, sm->kernel_class);
  EXPECT_NEAR(core, 4.4119915e-3, 1e-9);
  // The context copy is not a pass over the s x s matrices: no class.
  EXPECT_EQ(find(L->forward, "attn.context")->kernel_class, KernelClass::kGeneric);
  EXPECT_EQ(find(L->backward, "attn.softmax.bwd")->kernel_class, KernelClass::kAttentionBackward);
}

// LN1 and the MLP's GeLU on the dgx-a100 preset, as the plan runs them:
// kernels of their own class, at the A100's measured LayerNorm and GeLU
// efficiencies (LLMCompass: 0.858 and 0.787; tests/costmodel/
// a100_kernels_published_test.cpp). T·h = 75,497,472 elements, the MLP's
// T·4h = 301,989,888, e = 2. LN1 reads and writes T·h: 301,989,888 B, at
// 2039 GB/s x 0.858: 5.278783798217772e-6 + 1.7261872e-4 = 1.7789750e-4 s
// (1.7952215e-4 at the other kernels' 0.85). GeLU reads and writes T·4h:
// 1,207,959,552 B at x 0.787: 7.5804554e-4 s (7.0225224e-4 at 0.85). Their
// backward passes (3 passes each: 2.6664383e-4 and 1.0507390e-3 s) have no
// measurement and stream at 0.85.
TEST(MegatronKernels, NormAndGeluTimesOnTheA100Preset) {
  auto topo = make_preset("dgx-a100");
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  const Device& d = topo->devices()[0];
  const HardwareProfile prof = HardwareProfile::defaults();
  const DeviceProfile& p = prof.for_device(d);
  auto L = transformer_layer(gpt_1_7b());
  ASSERT_TRUE(L.is_ok()) << L.message();
  auto seconds = [&](const Kernel& k) {
    return kernel_seconds(d, p, DType::kF16, 0, k.bytes, ComputeKind::kMemoryBound, 0,
                          k.kernel_class);
  };
  const Kernel* ln1 = find(L->forward, "ln1");
  const Kernel* ln2 = find(L->forward, "ln2");
  const Kernel* gelu = find(L->forward, "mlp.gelu");
  const Kernel* ln1b = find(L->backward, "ln1.bwd");
  const Kernel* gelub = find(L->backward, "mlp.gelu.bwd");
  ASSERT_TRUE(ln1 && ln2 && gelu && ln1b && gelub);
  EXPECT_EQ(ln1->kernel_class, KernelClass::kNormForward);
  EXPECT_EQ(ln2->kernel_class, KernelClass::kNormForward);
  EXPECT_EQ(gelu->kernel_class, KernelClass::kActivationForward);
  EXPECT_EQ(ln1b->kernel_class, KernelClass::kNormBackward);
  EXPECT_EQ(gelub->kernel_class, KernelClass::kActivationBackward);
  EXPECT_EQ(ln1->bytes, 301989888.0);
  EXPECT_EQ(gelu->bytes, 1207959552.0);
  EXPECT_NEAR(seconds(*ln1), 1.7789750e-4, 1e-11);
  EXPECT_NEAR(seconds(*gelu), 7.5804554e-4, 1e-11);
  EXPECT_NEAR(seconds(*ln1b), 2.6664383e-4, 1e-11);
  EXPECT_NEAR(seconds(*gelub), 1.0507390e-3, 1e-10);
  // The residual stream's adds and the dropouts stay of no class.
  for (const Kernel& k : L->forward) {
    if (k.name.find("ln") != 0 && k.name.find("gelu") == std::string::npos &&
        k.compute == ComputeKind::kMemoryBound) {
      EXPECT_TRUE(k.kernel_class == KernelClass::kGeneric ||
                  k.kernel_class == KernelClass::kAttentionForward)
          << k.name;
    }
  }
}

}  // namespace
}  // namespace brigade::cost
