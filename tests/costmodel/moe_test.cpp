// Mixtures of experts (issue 21, item 2) and DeepSeek's latent attention in
// the closed-form counts (costmodel/model_size.hpp) and the one description
// (costmodel/transformer_blocks.hpp), checked against the published counts.
//
// Sources: Jiang et al. 2024, "Mixtral of Experts" (46.7B total, 12.9B
// active parameters); DeepSeek-AI 2024, "DeepSeek-V3 Technical Report"
// (671B total, 37B activated per token); Qwen team 2024, Qwen1.5-MoE-A2.7B
// model card (14.3B total, 2.7B activated); the configs in scenarios/models/.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/hf_config.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

TransformerSpec bundled(const std::string& file) {
  auto c = load_hf_config(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/models/" + file);
  EXPECT_TRUE(c.is_ok()) << c.message();
  return c.is_ok() ? c->spec : TransformerSpec{};
}

// Mixtral 8x7B: h 4096, 32 layers, 32 heads of 128, 8 KV heads (d_kv 1024),
// 8 experts of SwiGLU width 14336, top-2, V 32000, untied.
//   attention 2 x 4096^2 + 2 x 4096 x 1024 =    41,943,040
//   router    4096 x 8                     =        32,768
//   expert    3 x 4096 x 14336             =   176,160,768; x 8 = 1,409,286,144
//   RMSNorms  2 x 4096                     =         8,192
//   layer                                  = 1,451,270,144; x 32 = 46,440,644,608
//   embedding + output 2 x 32000 x 4096    =   262,144,000
//   total 46,702,788,608 (46.7B as published)
//   active: 2 experts, 352,321,536: layer 394,305,536; x 32 = 12,617,777,152
//           + 262,144,000 = 12,879,921,152 (12.9B as published)
TEST(MoeCounts, Mixtral8x7b) {
  const TransformerSpec m = bundled("mixtral_8x7b.json");
  EXPECT_EQ(m.moe.experts, 8);
  EXPECT_EQ(m.moe.top_k, 2);
  EXPECT_EQ(m.moe.ffn_hidden, 14336);
  EXPECT_EQ(m.moe_layers(), 32);
  EXPECT_EQ(transformer_layer_parameters(m, true, false), 1451270144.0);
  EXPECT_EQ(transformer_parameters(m), 46702788608.0);
  EXPECT_EQ(transformer_active_parameters(m), 12879921152.0);
}

// FLOP per token, forward, at s = 4096, one sequence: per layer 2s x the
// active GEMM weights (attention 41,943,040 + router 32,768 + 2 experts
// 352,321,536 = 394,297,344) + the core 4 s^2 h; the logits 2shV.
//   per token: 32 x (2 x 394,297,344 + 4 x 4096 x 4096) + 2 x 4096 x 32000
//            = 32 x (788,594,688 + 67,108,864) + 262,144,000
//            = 27,382,513,664 + 262,144,000 = 27,644,657,664
TEST(MoeCounts, MixtralFlopsPerToken) {
  TransformerSpec m = bundled("mixtral_8x7b.json");
  m.seq = 4096;
  EXPECT_EQ(transformer_model_flops(m, 1, false) / 4096, 27644657664.0);
  // Training: 3 x; a capacity factor of 1.25 pads the routed experts' GEMMs:
  // + 3 x 32 x 0.25 x 2 x 4096 x 2 x 3 x 4096 x 14336 per sequence.
  m.moe.capacity_factor = 1.25;
  const double routed = 2.0 * 4096 * 2 * 3 * 4096 * 14336;
  EXPECT_DOUBLE_EQ(transformer_hardware_flops(m, 1, true, Recompute::kNone),
                   3 * 27644657664.0 * 4096 + 3 * 32 * 0.25 * routed);
}

// DeepSeek-V3: h 7168, 61 layers (the first 3 dense, FFN 18432), 128 heads,
// MLA (q_lora 1536, kv_lora 512, nope 128, rope 64, v 128), 256 routed
// experts + 1 shared of width 2048, top-8, V 129280, untied; the
// multi-token-prediction module left out (the 671B excludes it).
//   MLA  q_a 7168 x 1536 = 11,010,048; q_b 1536 x 128 x 192 = 37,748,736;
//        kv_a 7168 x 576 = 4,128,768; kv_b 512 x 128 x 256 = 16,777,216;
//        o 128 x 128 x 7168 = 117,440,512: 187,105,280 weights; latent norms
//        1536 + 512 = 2,048: 187,107,328
//   norms 2 x 7168 = 14,336
//   dense MLP 3 x 7168 x 18432 = 396,361,728
//   expert 3 x 7168 x 2048 = 44,040,192; router 7168 x 256 = 1,835,008
//   dense layer 187,107,328 + 14,336 + 396,361,728 = 583,483,392; x 3 = 1,750,450,176
//   MoE layer 187,107,328 + 14,336 + 1,835,008 + 257 x 44,040,192
//           = 188,956,672 + 11,318,329,344 = 11,507,286,016; x 58 = 667,422,588,928
//   embeddings 2 x 129280 x 7168 = 1,853,358,080
//   total 671,026,397,184 (671B as published)
//   active: MoE layer with 8 + 1 experts 188,956,672 + 396,361,728 = 585,318,400;
//   x 58 = 33,948,467,200; + 1,750,450,176 + 1,853,358,080 = 37,552,275,456 (37B)
TEST(MoeCounts, DeepSeekV3) {
  const TransformerSpec m = bundled("deepseek_v3.json");
  EXPECT_EQ(m.moe.experts, 256);
  EXPECT_EQ(m.moe.shared_experts, 1);
  EXPECT_EQ(m.moe.first_dense, 3);
  EXPECT_EQ(m.moe_layers(), 58);
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  EXPECT_EQ(transformer_layer_parameters(m, false, false), 583483392.0);
  EXPECT_EQ(transformer_layer_parameters(m, true, false), 11507286016.0);
  EXPECT_EQ(transformer_parameters(m), 671026397184.0);
  EXPECT_EQ(transformer_active_parameters(m), 37552275456.0);
}

// Qwen1.5-MoE-A2.7B: h 2048, 24 layers, MHA 16 heads with Q, K, V biases,
// 60 experts of 1408, top-4, one shared expert of 5632 = 4 experts of 1408
// (its h x 1 sigmoid gate left out), V 151936, untied.
//   attention 4 x 2048^2 + 3 x 2048 = 16,783,360; norms 4,096; router 122,880
//   expert 3 x 2048 x 1408 = 8,650,752; 64 of them 553,648,128
//   layer 570,558,464; x 24 = 13,693,403,136; + 2 x 151936 x 2048 = 622,329,856
//   total 14,315,732,992 (14.3B); active: 8 experts 69,206,016, layer
//   86,116,352, x 24 = 2,066,792,448 + 622,329,856 = 2,689,122,304 (2.7B)
TEST(MoeCounts, Qwen15MoeA27b) {
  const TransformerSpec m = bundled("qwen1.5_moe_a2.7b.json");
  EXPECT_EQ(m.moe.shared_experts, 4);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_EQ(transformer_parameters(m), 14315732992.0);
  EXPECT_EQ(transformer_active_parameters(m), 2689122304.0);
}

// A small all-MoE model whose routed rows are whole (T k / E = 4 x 64 x 2 / 8
// = 64 per expert): the templates hold the closed form's parameters on one
// rank, 1/t of the expert and attention matrices on each of t ranks, and
// their kernels count the closed form's FLOPs.
TransformerSpec small_moe() {
  TransformerSpec s;
  s.layers = 2;
  s.hidden = 64;
  s.heads = 4;
  s.kv_heads = 2;
  s.seq = 64;
  s.vocab = 128;
  s.ffn_hidden = 96;
  s.mlp = MlpKind::kSwiglu;
  s.norm = NormKind::kRmsNorm;
  s.positions = PositionKind::kRotary;
  s.tie_embeddings = false;
  s.bias = false;
  s.moe.experts = 8;
  s.moe.top_k = 2;
  s.moe.ffn_hidden = 32;
  s.moe.shared_experts = 1;
  return s;
}

TEST(MoeTemplates, ParametersAndFlopsMatchTheClosedForm) {
  const TransformerSpec m = small_moe();
  // Layer: attention 2 x 64^2 + 2 x 64 x 32 = 12,288; router 64 x 8 = 512;
  // 9 experts of 3 x 64 x 32 = 6,144: 55,296; norms 128. 68,224.
  EXPECT_EQ(transformer_layer_parameters(m, true, false), 68224.0);
  TransformerShape shape;
  shape.spec = m;
  shape.micro_batch = 4;
  auto layer = transformer_layer(shape);
  ASSERT_TRUE(layer.is_ok()) << layer.message();
  EXPECT_EQ(layer->local_param_elements(), 68224.0);
  // Forward: 2 x 256 tokens x (12,288 + 512 + 3 x 6,144) + 4 x 4 x 64^2 x 64 =
  // 512 x 31,232 + 4,194,304 = 15,990,784 + 4,194,304 = 20,185,088 (= the closed form).
  EXPECT_EQ(layer->forward_flops(), 20185088.0);
  EXPECT_EQ(layer->forward_flops(), transformer_layer_forward_flops(m, 4, true));
  // The backward: twice the forward's GEMMs.
  EXPECT_EQ(layer->backward_flops(), 2 * layer->forward_flops());
  // Two tensor ranks: the router (512) and the norms (128) whole on each,
  // the rest halved: (68,224 - 640) / 2 + 640 = 34,432.
  shape.tensor = 2;
  auto split = transformer_layer(shape);
  ASSERT_TRUE(split.is_ok());
  EXPECT_EQ(split->local_param_elements(), 34432.0);
}

// Capacity factor 1.5: ceil(256 x 2 x 1.5 / 8) = 96 rows per expert, padded.
TEST(MoeTemplates, CapacityPadsTheExpertRows) {
  TransformerSpec m = small_moe();
  m.moe.capacity_factor = 1.5;
  TransformerShape shape;
  shape.spec = m;
  shape.micro_batch = 4;
  auto layer = transformer_layer(shape);
  ASSERT_TRUE(layer.is_ok());
  for (const Kernel& k : layer->forward)
    if (k.name == "moe.experts.fc1") {
      EXPECT_EQ(k.m, 96);
      EXPECT_EQ(k.batch, 8);
      EXPECT_EQ(k.n, 64);  // gate and up of width 32
    }
  // 20,185,088 + 0.5 x the routed GEMMs 2 x 256 x 2 x 3 x 64 x 32 = 6,291,456:
  // 20,185,088 + 3,145,728 = 23,330,816.
  EXPECT_EQ(layer->forward_flops(), 23330816.0);
}

TEST(MoeTemplates, VariantLabel) {
  TransformerSpec m = bundled("deepseek_v3.json");
  EXPECT_EQ(transformer_variant_label(m),
            "SwiGLU FFN 18432, MoE: 256 experts, top-8, expert FFN 2048, 1 shared, first 3 "
            "dense, MLA (latent 512), RMSNorm, rotary positions, untied output, no biases");
}

}  // namespace
}  // namespace brigade::cost
