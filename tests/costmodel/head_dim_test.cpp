// Heads of a width of their own (model.transformer.head_dim; Megatron-LM's
// --kv-channels, transformers' head_dim): the query width d_q = heads x
// head_dim and the key/value width d_kv = kv_heads x head_dim replace
// hidden and kv_heads x hidden / heads wherever the attention is sized.
// Sources: Megatron-Core's TransformerConfig.kv_channels (default hidden /
// heads) and SelfAttention's linear_qkv (hidden -> (heads + 2 kv_heads) x
// kv_channels) and linear_proj (heads x kv_channels -> hidden); the
// Hugging Face config of Mistral NeMo 12B in scenarios/models/ (hidden 5120,
// 32 heads of 128, 8 KV heads, FFN 14336, 40 layers, vocabulary 131072).
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/hf_config.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/estimate_text.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

const std::string kNemo = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/models/mistral_nemo_12b.json";

TransformerSpec nemo() {
  auto c = load_hf_config(kNemo);
  EXPECT_TRUE(c.is_ok()) << c.message();
  return c.is_ok() ? c->spec : TransformerSpec{};
}

using testing::template_parameters;

// Mistral NeMo 12B: d_q = 32 x 128 = 4096 (hidden 5120), d_kv = 8 x 128 = 1024.
//   Q and output   2 x 5120 x 4096        = 41,943,040
//   K and V        2 x 5120 x 1024        = 10,485,760
//   SwiGLU         3 x 5120 x 14336       = 220,200,960
//   RMSNorms       2 x 5120               = 10,240
//   layer 272,640,000; x 40 = 10,905,600,000
//   embedding + untied output 2 x 131072 x 5120 = 1,342,177,280
//   total 12,247,777,280: the model card's 12B (12.2e9 to three figures).
// With head_dim ignored (d_q = 5120) the layer would hold 2 x 5120 x 1024
// more in Q and output and d_kv would be 1280: 13.2e9.
TEST(HeadDim, MistralNemoParametersByHand) {
  const TransformerSpec s = nemo();
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.attention_width(), 4096);
  EXPECT_EQ(transformer_layer_parameters(s), 272640000.0);
  EXPECT_EQ(transformer_parameters(s), 12247777280.0);
  EXPECT_EQ(template_parameters(s), 12247777280.0);
  // Per tensor rank (t = 8): the matrices split, the RMSNorm gains whole:
  // (272,629,760 / 8 + 10,240) x 40 + 2 x 131072 / 8 x 5120 =
  // 1,363,558,400 + 167,772,160 = 1,531,330,560.
  EXPECT_EQ(template_parameters(s, 8), 1531330560.0);
  // The plan's one-line summary says so.
  EXPECT_EQ(transformer_variant_label(s),
            "GQA with 8 key/value heads, heads of 128, SwiGLU FFN 14336, RMSNorm, rotary "
            "positions, untied output, no biases");
}

// Training FLOPs per token at sequence 4096: per layer and token 2 x
// 272,629,760 (the weights) + 4 x 4096 x d_q 4096 (scores and values) =
// 545,259,520 + 67,108,864 = 612,368,384; x 40 = 24,494,735,360; logits 2 x
// 5120 x 131072 = 1,342,177,280; forward 25,836,912,640; x 3 =
// 77,510,737,920.
TEST(HeadDim, MistralNemoFlopsPerToken) {
  TransformerSpec s = nemo();
  s.seq = 4096;
  EXPECT_EQ(transformer_model_flops(s, 1, true) / 4096, 77510737920.0);
  TransformerShape shape;
  shape.spec = s;
  auto layer = transformer_layer(shape);
  auto head = head_block(shape);
  ASSERT_TRUE(layer.is_ok() && head.is_ok());
  EXPECT_EQ(40 * (layer->forward_flops() + layer->backward_flops()) + head->forward_flops() +
                head->backward_flops(),
            transformer_model_flops(s, 1, true));
}

const Kernel* find(const std::vector<Kernel>& ks, const std::string& name) {
  return testing::find_kernel(ks, name);
}

// b 1, s 16, h 64, 8 heads of 16 (d_q 128), 2 KV heads (d_kv 32), bf16, t 1.
TransformerShape small_layer(NormKind norm = NormKind::kLayerNorm) {
  TransformerShape shape;
  shape.spec.layers = 2;
  shape.spec.hidden = 64;
  shape.spec.heads = 8;
  shape.spec.kv_heads = 2;
  shape.spec.head_dim = 16;
  shape.spec.seq = 16;
  shape.spec.vocab = 128;
  shape.spec.norm = norm;
  return shape;
}

// A small layer checked kernel by kernel: b 1, s 16, h 64, 8 heads of 16
// (d_q 128, twice hidden), 2 KV heads (d_kv 32), bf16, t 1.
//   QKV GEMM: (8 + 2 x 2) x 16 = 192 columns, weight 64 x 192 = 12,288
//   scores: 2 x 16 x 16 x 16 per head x 8 heads = 65,536 FLOPs
//   projection: 16 x 64 output from a 128-wide input, weight 128 x 64 =
//   8192; it keeps its input, 16 x 128 x 2 B = 4096 B
TEST(HeadDim, KernelsOfASmallLayer) {
  auto L = transformer_layer(small_layer());
  ASSERT_TRUE(L.is_ok()) << L.message();
  const Kernel* qkv = find(L->forward, "attn.qkv");
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->n, 192);
  EXPECT_EQ(qkv->k, 64);
  EXPECT_EQ(find(L->forward, "attn.scores")->flops(), 65536.0);
  const Kernel* proj = find(L->forward, "attn.proj");
  ASSERT_NE(proj, nullptr);
  EXPECT_EQ(proj->m, 16);
  EXPECT_EQ(proj->n, 64);
  EXPECT_EQ(proj->k, 128);
  EXPECT_EQ(proj->saved_bytes, 4096.0);
  EXPECT_EQ(find(L->backward, "attn.proj.dgrad")->n, 128);
  EXPECT_EQ(find(L->backward, "attn.proj.wgrad")->m, 128);
  double proj_weight = 0, qkv_weight = 0;
  for (const ParamGroup& g : L->params) {
    if (g.name == "attn.proj") proj_weight = g.tensors[0].global_elements();
    if (g.name == "attn.qkv") qkv_weight = g.tensors[0].global_elements();
  }
  EXPECT_EQ(proj_weight, 8192.0);
  EXPECT_EQ(qkv_weight, 12288.0);
}

// The closed form's hardware FLOPs are the templates' kernels for heads
// wider and narrower than hidden / heads, across the attention kernels and
// recomputation.
TEST(HeadDim, ClosedFormFlopsEqualTheKernels) {
  for (std::int64_t dh : {16, 4})
    for (AttentionKernel att : {AttentionKernel::kUnfused, AttentionKernel::kFlash})
      for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
        TransformerSpec s = small_layer().spec;
        s.head_dim = dh;
        s.attention = att;
        TransformerShape shape;
        shape.spec = s;
        shape.micro_batch = 3;
        shape.recompute = r;
        auto layer = transformer_layer(shape);
        auto head = head_block(shape);
        ASSERT_TRUE(layer.is_ok() && head.is_ok());
        const double kernels =
            2 * (layer->forward_flops() + layer->recompute_flops() + layer->backward_flops()) +
            head->forward_flops() + head->backward_flops();
        EXPECT_EQ(transformer_hardware_flops(s, 3, true, r), kernels)
            << dh << " " << attention_kernel_name(att) << " " << recompute_name(r);
      }
}

// head_dim equal to hidden / heads is the model without it, to the last bit.
TEST(HeadDim, TheDefaultWidthIsTheModelWithoutIt) {
  const std::string base =
      "topology: {preset: dgx-a100}\n"
      "model:\n"
      "  transformer: {layers: 4, hidden: 512, heads: 4, kv_heads: 2, seq: 256, vocab: 4096";
  const std::string rest =
      "}\ntraining: {global_batch: 16, micro_batch: 2}\n"
      "strategy: {tensor: 2, pipeline: 2, data: 2, sequence_parallel: true}\n";
  const PlanEstimate plain = testing::estimate_text(base + rest);
  const PlanEstimate same = testing::estimate_text(base + ", head_dim: 128" + rest);
  EXPECT_EQ(same.step_seconds, plain.step_seconds);
  EXPECT_EQ(same.memory.at(0).peak_bytes, plain.memory.at(0).peak_bytes);
  EXPECT_EQ(same.model_flops_per_iteration, plain.model_flops_per_iteration);
  // Wider heads cost more: the QKV and projection GEMMs and the core grow.
  const PlanEstimate wide = testing::estimate_text(base + ", head_dim: 256" + rest);
  EXPECT_GT(wide.step_seconds, plain.step_seconds);
  EXPECT_GT(wide.memory.at(0).peak_bytes, plain.memory.at(0).peak_bytes);
  EXPECT_GT(wide.model_flops_per_iteration, plain.model_flops_per_iteration);
}

// ---- QK normalization (qk_norm; Qwen3's q_norm and k_norm) ----------------

// Qwen3-32B from its config (Qwen3ForCausalLM: QK-norm, no biases, 64
// heads of 128 on hidden 5120, 8 KV heads, FFN 25600, 64 layers, untied):
//   Q and output 2 x 5120 x 8192 = 83,886,080; K and V 2 x 5120 x 1024 =
//   10,485,760; SwiGLU 3 x 5120 x 25600 = 393,216,000; q_norm and k_norm
//   2 x 128 = 256; RMSNorms 2 x 5120 = 10,240
//   layer 487,598,336; x 64 = 31,206,293,504
//   embedding + output 2 x 151936 x 5120 = 1,555,824,640
//   total 32,762,118,144: the model card's 32.8B.
TEST(QkNorm, Qwen3_32BParametersByHand) {
  auto c = load_hf_config(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/models/qwen3_32b.json");
  ASSERT_TRUE(c.is_ok()) << c.message();
  const TransformerSpec& s = c->spec;
  EXPECT_TRUE(s.qk_norm);
  EXPECT_FALSE(s.bias);
  EXPECT_FALSE(s.qkv_bias);
  EXPECT_EQ(s.attention_width(), 8192);
  EXPECT_EQ(transformer_layer_parameters(s), 487598336.0);
  EXPECT_EQ(transformer_parameters(s), 32762118144.0);
  EXPECT_EQ(template_parameters(s), 32762118144.0);
}

// Qwen3-30B-A3B (Qwen3MoeForCausalLM: 128 experts of 768, top-8, no shared
// expert; 32 heads of 128 on hidden 2048, 4 KV heads, 48 layers):
//   attention 2 x 2048 x 4096 + 2 x 2048 x 512 = 18,874,368; QK-norm 256;
//   RMSNorms 4096; router 2048 x 128 = 262,144; experts 128 x 3 x 2048 x
//   768 = 603,979,776 (8 of them active: 37,748,736)
//   layer 623,120,640 (active 56,889,600); x 48 + 2 x 151936 x 2048 =
//   30,532,120,576 total and 3,353,030,656 active: the card's 30.5B / 3.3B.
TEST(QkNorm, Qwen3_30B_A3BParametersByHand) {
  auto c =
      load_hf_config(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/models/qwen3_30b_a3b.json");
  ASSERT_TRUE(c.is_ok()) << c.message();
  const TransformerSpec& s = c->spec;
  EXPECT_EQ(s.moe.experts, 128);
  EXPECT_EQ(s.moe.top_k, 8);
  EXPECT_EQ(s.moe.ffn_hidden, 768);
  EXPECT_EQ(s.moe.shared_experts, 0);
  EXPECT_TRUE(s.qk_norm);
  EXPECT_EQ(transformer_parameters(s), 30532120576.0);
  EXPECT_EQ(transformer_active_parameters(s), 3353030656.0);
  EXPECT_EQ(template_parameters(s), 30532120576.0);
}

// The small layer of KernelsOfASmallLayer with qk_norm (RMSNorm): Q is
// 16 x 8 x 16 x 2 B = 4096 B, K 16 x 2 x 16 x 2 B = 1024 B on this rank.
// q_norm reads and writes Q (8192 B), k_norm K (2048 B); they keep their
// inputs, 5120 B more; their backwards read input and gradient and write
// one (3 x), the second completing the gains' group of 2 x 16 elements.
TEST(QkNorm, KernelsOfASmallLayer) {
  TransformerShape shape = small_layer(NormKind::kRmsNorm);
  auto plain = transformer_layer(shape);
  shape.spec.qk_norm = true;
  auto L = transformer_layer(shape);
  ASSERT_TRUE(L.is_ok() && plain.is_ok());
  const Kernel* q = find(L->forward, "attn.q_norm");
  const Kernel* k = find(L->forward, "attn.k_norm");
  ASSERT_NE(q, nullptr);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(q->bytes, 8192.0);
  EXPECT_EQ(k->bytes, 2048.0);
  EXPECT_EQ(q->kernel_class, KernelClass::kNormForward);
  EXPECT_EQ(L->saved_bytes() - plain->saved_bytes(), 5120.0);
  EXPECT_EQ(find(L->backward, "attn.q_norm.bwd")->bytes, 12288.0);
  EXPECT_EQ(find(L->backward, "attn.k_norm.bwd")->bytes, 3072.0);
  EXPECT_EQ(L->local_param_elements() - plain->local_param_elements(), 32.0);
  const ParamGroup& g = L->params.back();
  EXPECT_EQ(g.name, "attn.qk_norm");
  EXPECT_EQ(g.replicated_elements(), 32.0);  // whole on every tensor rank
  EXPECT_EQ(find(L->backward, "attn.q_norm.bwd")->completes_grad,
            static_cast<int>(L->params.size()) - 1);
  EXPECT_EQ(find(plain->forward, "attn.q_norm"), nullptr);
}

// Without sequence parallelism each tensor rank's QK-norm gains saw only its
// heads: Megatron-Core sums their gradients over 'tensor' once a step
// (finalize_model_grads, _allreduce_layernorm_grads: the q_layernorm and
// k_layernorm parameters when qk_layernorm). Four layers of two RMSNorm
// gains of 64: 4 x 128 = 512 elements, 1024 B in bf16, one AllReduce more
// among the tensor group's; with sequence parallelism they join the
// replicated gradients' AllReduce (1024 B more in it, no call more).
TEST(QkNorm, TheGainsAreSummedOverTensor) {
  auto text = [](bool qk, bool sp) {
    return std::string(
               "topology: {preset: dgx-a100}\n"
               "model:\n"
               "  transformer: {layers: 4, hidden: 512, heads: 4, head_dim: 64, seq: 256, "
               "vocab: 4096, norm: rmsnorm, positions: rotary, bias: false") +
           (qk ? ", qk_norm: true" : "") +
           "}\ntraining: {global_batch: 16, micro_batch: 2}\n"
           "strategy: {tensor: 2, data: 4" +
           (sp ? ", sequence_parallel: true" : "") + "}\n";
  };
  auto row = [](const PlanEstimate& e, const std::string& purpose) {
    for (const CommunicationEstimate& c : e.communication)
      if (c.purpose == purpose && c.kind == "allreduce") return c;
    return CommunicationEstimate{};
  };
  const PlanEstimate plain = testing::estimate_text(text(false, false));
  const PlanEstimate qk = testing::estimate_text(text(true, false));
  EXPECT_EQ(row(qk, "tensor").count - row(plain, "tensor").count, 1.0);
  EXPECT_EQ(row(qk, "tensor").bytes - row(plain, "tensor").bytes, 1024.0);
  const PlanEstimate sp = testing::estimate_text(text(false, true));
  const PlanEstimate qk_sp = testing::estimate_text(text(true, true));
  EXPECT_EQ(row(qk_sp, "sequence").count, row(sp, "sequence").count);
  EXPECT_EQ(row(qk_sp, "sequence").bytes - row(sp, "sequence").bytes, 1024.0);
  EXPECT_EQ(row(qk_sp, "tensor").count, row(sp, "tensor").count);
}

}  // namespace
}  // namespace brigade::cost
