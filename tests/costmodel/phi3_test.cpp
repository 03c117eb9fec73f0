// Phi-3 and Phi-4 (transformers' Phi3ForCausalLM) read from their Hugging
// Face configs: Llama's decoder layer with q, k, v fused into one qkv_proj
// and gate and up into one gate_up_proj, which are the same GEMMs' FLOPs
// and parameters (core/hf_config.cpp). Parameter counts worked by hand and
// checked against published totals: Phi-3 mini, 3,821,079,552 (keras-hub's
// phi3 presets, "params" of phi3_mini_4k_instruct_en and
// phi3_mini_128k_instruct_en, which count the final norm); Phi-4, the
// model card's 14B (huggingface.co/microsoft/phi-4: "14B parameters"; the
// config in scenarios/models/phi4_14b.json).
#include <string>

#include <gtest/gtest.h>

#include "core/hf_config.hpp"
#include "costmodel/model_size.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

using testing::template_parameters;

// microsoft/Phi-3-mini-128k-instruct's config, the keys that size it.
const char* kPhi3Mini =
    "{\n"
    "  \"architectures\": [\"Phi3ForCausalLM\"],\n"
    "  \"hidden_size\": 3072,\n"
    "  \"intermediate_size\": 8192,\n"
    "  \"num_attention_heads\": 32,\n"
    "  \"num_hidden_layers\": 32,\n"
    "  \"num_key_value_heads\": 32,\n"
    "  \"max_position_embeddings\": 131072,\n"
    "  \"original_max_position_embeddings\": 4096,\n"
    "  \"sliding_window\": 262144,\n"
    "  \"tie_word_embeddings\": false,\n"
    "  \"torch_dtype\": \"bfloat16\",\n"
    "  \"vocab_size\": 32064\n"
    "}\n";

// Phi-3 mini: h 3072, 32 heads of 96 (MHA), FFN 8192, V 32064, 32 layers.
//   attention 4 x 3072^2                = 37,748,736
//   SwiGLU    3 x 3072 x 8192           = 75,497,472
//   RMSNorms  2 x 3072                  =      6,144
//   layer 113,252,352; x 32 = 3,624,075,264
//   embedding + untied output 2 x 32064 x 3072 = 197,001,216
//   total 3,821,076,480, and with the final norm's 3072 (which Brigade's
//   count leaves out, as Narayanan et al.'s Eq. 2 does) keras-hub's
//   3,821,079,552 exactly.
TEST(Phi3, MiniParametersByHand) {
  auto c = parse_hf_config(kPhi3Mini, "config.json");
  ASSERT_TRUE(c.is_ok()) << c.message();
  const TransformerSpec& s = c->spec;
  EXPECT_EQ(s.mlp, MlpKind::kSwiglu);
  EXPECT_EQ(s.norm, NormKind::kRmsNorm);
  EXPECT_EQ(s.positions, PositionKind::kRotary);
  EXPECT_FALSE(s.bias);
  EXPECT_FALSE(s.tie_embeddings);
  EXPECT_EQ(s.seq, 131072);
  EXPECT_EQ(c->sliding_window, 262144);
  EXPECT_EQ(transformer_layer_parameters(s), 113252352.0);
  EXPECT_EQ(transformer_parameters(s), 3821076480.0);
  EXPECT_EQ(transformer_parameters(s) + 3072, 3821079552.0);
  EXPECT_EQ(template_parameters(s), 3821076480.0);
}

// Phi-4: h 5120, 40 heads of 128, 10 KV heads (d_kv 1280), FFN 17920,
// V 100352, 40 layers.
//   Q and output   2 x 5120^2            = 52,428,800
//   K and V        2 x 5120 x 1280       = 13,107,200
//   SwiGLU         3 x 5120 x 17920      = 275,251,200
//   RMSNorms       2 x 5120              = 10,240
//   layer 340,797,440; x 40 = 13,631,897,600
//   embedding + untied output 2 x 100352 x 5120 = 1,027,604,480
//   total 14,659,502,080: the card's 14B (14.7e9 with three figures).
TEST(Phi3, Phi4ParametersByHand) {
  auto c = load_hf_config(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/models/phi4_14b.json");
  ASSERT_TRUE(c.is_ok()) << c.message();
  const TransformerSpec& s = c->spec;
  EXPECT_EQ(s.kv_heads, 10);
  EXPECT_EQ(s.head_dim, 0);  // 5120 / 40 = 128, the default width
  EXPECT_EQ(s.seq, 16384);
  EXPECT_EQ(c->sliding_window, 0);
  EXPECT_EQ(transformer_layer_parameters(s), 340797440.0);
  EXPECT_EQ(transformer_parameters(s), 14659502080.0);
  EXPECT_EQ(template_parameters(s), 14659502080.0);
  // Per tensor rank (t = 4): (340,787,200 / 4 + 10,240) x 40 + 2 x 100352 /
  // 4 x 5120 = 3,408,281,600 + 256,901,120 = 3,665,182,720.
  EXPECT_EQ(template_parameters(s, 4), 3665182720.0);
}

}  // namespace
}  // namespace brigade::cost
