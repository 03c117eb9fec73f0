// The copies around Transformer Engine's attention under Megatron-Core's TE
// layer spec (docs/costmodel.md, "The query, key and value as Megatron-Core
// hands them to Transformer Engine"), worked by hand on one layer.
//
// Megatron-Core (core_r0.10.0, the NeMo 24.12 rows'; the same at d98e8a64,
// 2026-08) splits the QKV output into views of it
// (SelfAttention.get_query_key_value_tensors: SplitAlongDim, then
// query.reshape to [s, b, np, hn], which copies the query where its heads
// are grouped: under GQA a group's query heads are not evenly strided).
// Transformer Engine's get_qkv_layout (v1.12 attention.py; v2.9
// dot_product_attention/utils.py) finds a layout for the views only when
// they are MHA's interleaved sbh3d; otherwise it makes every tensor
// contiguous: V always (the rotary embedding gave Q and K new tensors, or
// the query was copied), K too without the rotary embedding under GQA.
// The backward's split puts the separate dQ, dK, dV back into the QKV
// gradient by torch.cat (_SplitAlongDim.backward), a copy of all three.
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

using testing::find_kernel;
using testing::names_from;

// Hidden 256, 4 heads of 64, 64 positions, one sequence: T = 64 tokens,
// bf16 (e = 2), one rank. Q is T x 256, K and V T x 64 kv_heads.
BlockTemplate layer(const std::string& model, const std::string& training = "") {
  return testing::layer_of_yaml(
      "topology: {preset: dgx-h100}\n"
      "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 256, "
      "attention: flash" +
      model + "}\ntraining: {global_batch: 8, micro_batch: 1" + training +
      "}\nstrategy: {data: 8}\n");
}

// GQA (2 KV heads: K and V T x 128) with the rotary embedding (Llama):
//   attn.query.reshape 2 x 64 x 256 x 2 = 65,536 B (read, write), before
//     the rotation; attn.kv.contiguous, V alone, 2 x 64 x 128 x 2 = 32,768,
//     right before the attention;
//   attn.qkv.split.bwd 2 x 64 x (256 + 2 x 128) x 2 = 131,072, after the
//     rotation's backward.
TEST(AttentionSplit, GqaWithRotaryCopiesTheQueryAndV) {
  const BlockTemplate L = layer(", kv_heads: 2, positions: rotary");
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.query.reshape")->bytes, 65536);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.kv.contiguous")->bytes, 32768);
  EXPECT_DOUBLE_EQ(find_kernel(L.backward, "attn.qkv.split.bwd")->bytes, 131072);
  EXPECT_EQ(names_from(L.forward, "attn.qkv", 3),
            (std::vector<std::string>{"attn.qkv", "attn.query.reshape", "attn.rotary"}));
  EXPECT_EQ(names_from(L.forward, "attn.kv.contiguous", 2),
            (std::vector<std::string>{"attn.kv.contiguous", "attn.flash"}));
  EXPECT_EQ(names_from(L.backward, "attn.rotary.bwd", 2),
            (std::vector<std::string>{"attn.rotary.bwd", "attn.qkv.split.bwd"}));
}

// MHA with the rotary embedding (Llama 2 7B): no query copy (the reshape is
// a view), V copied, 2 x 64 x 256 x 2 = 65,536; the backward's cat
// 2 x 64 x 768 x 2 = 196,608.
TEST(AttentionSplit, MhaWithRotaryCopiesV) {
  const BlockTemplate L = layer(", positions: rotary");
  EXPECT_EQ(find_kernel(L.forward, "attn.query.reshape"), nullptr);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.kv.contiguous")->bytes, 65536);
  EXPECT_DOUBLE_EQ(find_kernel(L.backward, "attn.qkv.split.bwd")->bytes, 196608);
}

// GQA without the rotary embedding: the query copied, then K and V both,
// 2 x 2 x 64 x 128 x 2 = 65,536; the cat 131,072.
TEST(AttentionSplit, GqaWithoutRotaryCopiesKAndV) {
  const BlockTemplate L = layer(", kv_heads: 2");
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.query.reshape")->bytes, 65536);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.kv.contiguous")->bytes, 65536);
  EXPECT_DOUBLE_EQ(find_kernel(L.backward, "attn.qkv.split.bwd")->bytes, 131072);
}

// MHA with learned positions (GPT): the views are TE's sbh3d layout and its
// backward's dQ, dK, dV one buffer: no copy either way. Nor under
// Megatron-LM's own layers (transformer_impl: local), whatever the heads.
TEST(AttentionSplit, NoCopiesForTheInterleavedLayoutOrWithoutTransformerEngine) {
  for (const BlockTemplate& L :
       {layer(""), layer(", kv_heads: 2, positions: rotary", ", transformer_impl: local")})
    for (const char* n : {"attn.query.reshape", "attn.kv.contiguous", "attn.qkv.split.bwd"}) {
      EXPECT_EQ(find_kernel(L.forward, n), nullptr) << n;
      EXPECT_EQ(find_kernel(L.backward, n), nullptr) << n;
    }
}

}  // namespace
}  // namespace brigade::cost
