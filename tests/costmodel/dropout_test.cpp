// Dropout at 0 (model.transformer.hidden_dropout, attention_dropout;
// docs/costmodel.md, "Dropout"): PyTorch's dropout returns its input when
// p is 0 (ATen's dropout, `p == 0 || !train`), so the layer writes, keeps
// and reads back no mask; Megatron-Core's fused bias-dropout-add then adds
// the sublayer's output to the residual and nothing else, and its backward
// passes the gradient to both inputs as it is (no kernel). Worked by hand
// on one layer: hidden 256, 4 heads, 64 positions, one sequence (T = 64),
// bf16 (e = 2), one rank.
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

using testing::find_kernel;

TransformerShape shape_of(const std::string& model, const std::string& training = "") {
  return testing::shape_of_yaml(
      "topology: {preset: dgx-h100}\n"
      "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 256" +
      model + "}\ntraining: {global_batch: 8, micro_batch: 1" + training +
      "}\nstrategy: {data: 8}\n");
}

// Residuals: 64 x 256 x (3 x 2 + 1) = 114,688 B with the mask (kept: 16,384),
// 64 x 256 x 6 = 98,304 without; their backward kernels (64 x 256 x 5 =
// 81,920 B each) gone. The embedding: 64 x 256 x (3 x 2 + 1) = 114,688 with
// learned positions, 98,304 without the mask.
TEST(Dropout, HiddenDropoutZeroWritesNoMask) {
  for (const bool with : {true, false}) {
    const TransformerShape s = shape_of(with ? "" : ", hidden_dropout: 0");
    Result<BlockTemplate> L = transformer_layer(s);
    Result<BlockTemplate> E = embedding_block(s);
    ASSERT_TRUE(L.is_ok() && E.is_ok());
    for (const char* n : {"attn.residual", "mlp.residual"}) {
      EXPECT_DOUBLE_EQ(find_kernel(L->forward, n)->bytes, with ? 114688 : 98304) << n;
      EXPECT_DOUBLE_EQ(find_kernel(L->forward, n)->saved_bytes, with ? 16384 : 0) << n;
      const Kernel* b = find_kernel(L->backward, std::string(n) + ".bwd");
      if (with) {
        ASSERT_NE(b, nullptr) << n;
        EXPECT_DOUBLE_EQ(b->bytes, 81920) << n;
      } else {
        EXPECT_EQ(b, nullptr) << n;
      }
    }
    EXPECT_DOUBLE_EQ(find_kernel(E->forward, "embedding")->bytes, with ? 114688 : 98304);
  }
}

// Megatron-LM's unfused core at attention_dropout 0: no dropout kernel
// (4 heads x 64 x 64 = 16,384 scores: its 16,384 x 5 = 81,920 B forward and
// its backward), the values GEMM keeps V alone (64 x 256 x 2 = 32,768 B,
// the softmax output being kept by the softmax); under selective
// recomputation three kernels are recomputed, not four.
TEST(Dropout, AttentionDropoutZeroRunsNoDropoutKernel) {
  Result<BlockTemplate> with = transformer_layer(shape_of(""));
  Result<BlockTemplate> without = transformer_layer(shape_of(", attention_dropout: 0"));
  ASSERT_TRUE(with.is_ok() && without.is_ok());
  EXPECT_DOUBLE_EQ(find_kernel(with->forward, "attn.dropout")->bytes, 81920);
  EXPECT_EQ(find_kernel(without->forward, "attn.dropout"), nullptr);
  EXPECT_EQ(find_kernel(without->backward, "attn.dropout.bwd"), nullptr);
  EXPECT_NE(find_kernel(with->backward, "attn.dropout.bwd"), nullptr);
  EXPECT_DOUBLE_EQ(find_kernel(without->forward, "attn.values")->saved_bytes, 32768);
  EXPECT_DOUBLE_EQ(find_kernel(with->forward, "attn.values")->saved_bytes, 32768 + 32768);
  Result<BlockTemplate> sel =
      transformer_layer(shape_of(", attention_dropout: 0", ", recompute: selective"));
  ASSERT_TRUE(sel.is_ok());
  EXPECT_EQ(sel->recompute.size(), 3u);
  EXPECT_DOUBLE_EQ(find_kernel(sel->forward, "attn.values")->saved_bytes, 32768);
}

}  // namespace
}  // namespace brigade::cost
