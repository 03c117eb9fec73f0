// FP8 with delayed scaling at Transformer Engine 1.x's kernel boundaries
// (the NeMo 24.x containers' TE, v1.8 to v1.13; docs/costmodel.md, "FP8
// training", "Where TE 1.x casts and transposes"), worked by hand on one
// layer:
//
// - A LayerNormLinear (QKV, a dense MLP's fc1) has no cast of its own: its
//   norm writes FP8 (module/layernorm_linear.py: ln_out_dtype uint8 "if fp8
//   and not return_layernorm_output", _apply_normalization with fp8_out),
//   read e + write 1 an element; with sequence parallelism the gather moves
//   that FP8. Its weight gradient transposes the whole FP8 input first
//   (tex.fp8_transpose(ln_out_total): read 1 + write 1 an element of T x h).
// - A Linear (the projection, fc2) casts its input with its transpose in
//   one kernel (fp8_cast_transpose_fused, e + 2) unless sequence
//   parallelism is on: then the cast writes FP8 alone (cast_to_fp8, e + 1)
//   and the weight gradient transposes it (fp8_transpose, 2).
// - A row-parallel layer's output gradient under sequence parallelism
//   (base.py grad_output_preprocess, "FP8 case with gather"): the shard's
//   cast (e + 1 an element of T/t x h), an FP8 gather, and the transpose of
//   the gathered whole (2 an element of T x h); without userbuffers right
//   after the gather, with them before the weight gradient.
// Other output gradients keep the fused cast and transpose (e + 2).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

using testing::find_kernel;
using testing::names_from;

// Hidden 256, 4 heads, 64 positions, one sequence: T = 64 tokens; FFN 4h =
// 1024; bf16 (e = 2) with FP8 GEMMs.
BlockTemplate layer(const std::string& training, const std::string& strategy) {
  return testing::layer_of_yaml(
      "topology: {preset: dgx-h100}\n"
      "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 256}\n"
      "training: {global_batch: 2, micro_batch: 1, fp8: hybrid" +
      training + "}\nstrategy: {" + strategy + "}\n");
}

const char* kSp = "tensor: 4, data: 2, sequence_parallel: true";

// t = 4 with sequence parallelism: 16 tokens a rank, q/t = 64, FFN/t = 256.
//   ln1, ln2: 16 x 256 x (2 + 1) = 12,288 B (bf16 in, FP8 out)
//   attn.allgather, mlp.allgather: 64 x 256 x 1 = 16,384 B, no cast before
//   attn.proj.cast: 64 x 64 x (2 + 1) = 12,288; mlp.fc2.cast: 64 x 256 x 3 = 49,152
//   attn.proj.bwd.cast, mlp.fc2.bwd.cast: 16 x 256 x 3 = 12,288 (the shard)
//   *.bwd.transpose (output gradients, gathered): 64 x 256 x 2 = 32,768
//   attn.qkv.transpose, mlp.fc1.transpose: 64 x 256 x 2 = 32,768
//   attn.proj.transpose: 64 x 64 x 2 = 8,192; mlp.fc2.transpose: 64 x 256 x 2 = 32,768
//   attn.qkv.bwd.cast (fused, unsharded): 64 x 192 x 4 = 49,152;
//   mlp.fc1.bwd.cast: 64 x 256 x 4 = 65,536 (T x FFN/t x 4).
TEST(Fp8TeBoundaries, SequenceParallelByHand) {
  const BlockTemplate L = layer("", kSp);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "ln1")->bytes, 12288);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "ln2")->bytes, 12288);
  EXPECT_EQ(find_kernel(L.forward, "attn.qkv.cast"), nullptr);
  EXPECT_EQ(find_kernel(L.forward, "mlp.fc1.cast"), nullptr);
  EXPECT_EQ(names_from(L.forward, "ln1", 3),
            (std::vector<std::string>{"ln1", "attn.allgather", "attn.qkv"}));
  EXPECT_EQ(names_from(L.forward, "ln2", 3),
            (std::vector<std::string>{"ln2", "mlp.allgather", "mlp.fc1"}));
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.allgather")->collective_bytes, 16384);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "mlp.allgather")->collective_bytes, 16384);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.proj.cast")->bytes, 12288);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "mlp.fc2.cast")->bytes, 49152);

  EXPECT_EQ(names_from(L.backward, "mlp.fc2.bwd.cast", 6),
            (std::vector<std::string>{"mlp.fc2.bwd.cast", "mlp.bwd.allgather",
                                      "mlp.fc2.bwd.transpose", "mlp.fc2.dgrad",
                                      "mlp.fc2.transpose", "mlp.fc2.wgrad"}));
  EXPECT_EQ(names_from(L.backward, "attn.proj.bwd.cast", 6),
            (std::vector<std::string>{"attn.proj.bwd.cast", "attn.bwd.allgather",
                                      "attn.proj.bwd.transpose", "attn.proj.dgrad",
                                      "attn.proj.transpose", "attn.proj.wgrad"}));
  const std::pair<const char*, double> backward[] = {
      {"mlp.fc2.bwd.cast", 12288},         {"attn.proj.bwd.cast", 12288},
      {"mlp.fc2.bwd.transpose", 32768},    {"attn.proj.bwd.transpose", 32768},
      {"mlp.fc2.transpose", 32768},        {"attn.proj.transpose", 8192},
      {"mlp.fc1.transpose", 32768},        {"attn.qkv.transpose", 32768},
      {"attn.qkv.bwd.cast", 49152},        {"mlp.fc1.bwd.cast", 65536}};
  for (const auto& [name, bytes] : backward) {
    const Kernel* k = find_kernel(L.backward, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_DOUBLE_EQ(k->bytes, bytes) << name;
  }
  // The column-parallel layers' transposes run after the input gradient,
  // before the weight gradient and the input gradient's reduce-scatter
  // beside it (a collective beside a GEMM stays right before it).
  EXPECT_EQ(names_from(L.backward, "attn.qkv.dgrad", 4),
            (std::vector<std::string>{"attn.qkv.dgrad", "attn.qkv.transpose",
                                      "attn.bwd.reducescatter", "attn.qkv.wgrad"}));
  EXPECT_EQ(names_from(L.backward, "mlp.fc1.dgrad", 4),
            (std::vector<std::string>{"mlp.fc1.dgrad", "mlp.fc1.transpose",
                                      "mlp.bwd.reducescatter", "mlp.fc1.wgrad"}));
  EXPECT_TRUE(find_kernel(L.backward, "attn.bwd.reducescatter")->beside);
  // Selective recomputation still starts right after the projection's
  // weight gradient and its bias's accumulation (the fused GEMM adds the
  // weight's; the bias's is an add of its own).
  const BlockTemplate S = layer(", recompute: selective", kSp);
  ASSERT_GT(S.recompute_before, 0);
  EXPECT_EQ(S.backward[static_cast<size_t>(S.recompute_before) - 2].name, "attn.proj.wgrad");
  EXPECT_EQ(S.backward[static_cast<size_t>(S.recompute_before) - 1].name,
            "attn.proj.grad_accumulate");
}

// With userbuffers the output gradients' transposes wait for the weight
// gradient (TE transposes the gathered FP8 buffer there), and the forward's
// ring exchange gathers the norm's FP8 output with no cast before it.
TEST(Fp8TeBoundaries, UserbuffersTransposeBeforeTheWeightGradient) {
  const BlockTemplate L = layer(", tp_comm_overlap: true", kSp);
  EXPECT_EQ(names_from(L.forward, "ln1", 4),
            (std::vector<std::string>{"ln1", "attn.allgather", "attn.qkv", "attn.qkv.last"}));
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.allgather")->collective_bytes, 16384);
  EXPECT_EQ(names_from(L.backward, "attn.proj.bwd.cast", 7),
            (std::vector<std::string>{"attn.proj.bwd.cast", "attn.bwd.allgather",
                                      "attn.proj.dgrad", "attn.proj.dgrad.last",
                                      "attn.proj.bwd.transpose", "attn.proj.transpose",
                                      "attn.proj.wgrad"}));
  EXPECT_EQ(L.backward[static_cast<size_t>(L.recompute_before) - 1].name,
            "attn.proj.grad_accumulate");
}

// Without sequence parallelism (t = 4): every rank's norm writes the whole
// FP8 input, 64 x 256 x 3 = 49,152 B; the Linears keep their fused casts,
// 64 x 64 x 4 = 16,384 (proj) and 64 x 256 x 4 = 65,536 (fc2), and only the
// LayerNormLinears transpose, 64 x 256 x 2 = 32,768 each.
TEST(Fp8TeBoundaries, TensorParallelWithoutSequenceParallelism) {
  const BlockTemplate L = layer("", "tensor: 4, data: 2");
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "ln1")->bytes, 49152);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "ln2")->bytes, 49152);
  EXPECT_EQ(find_kernel(L.forward, "attn.qkv.cast"), nullptr);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "attn.proj.cast")->bytes, 16384);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "mlp.fc2.cast")->bytes, 65536);
  EXPECT_DOUBLE_EQ(find_kernel(L.backward, "attn.qkv.transpose")->bytes, 32768);
  EXPECT_DOUBLE_EQ(find_kernel(L.backward, "mlp.fc1.transpose")->bytes, 32768);
  for (const char* n : {"attn.proj.transpose", "mlp.fc2.transpose", "attn.proj.bwd.transpose",
                        "mlp.fc2.bwd.transpose"})
    EXPECT_EQ(find_kernel(L.backward, n), nullptr) << n;
  EXPECT_DOUBLE_EQ(find_kernel(L.backward, "attn.proj.bwd.cast")->bytes, 65536);
}

// Current scaling (TE 2.x, training.fp8_recipe: tensorwise) keeps its casts:
// the norm writes the 16-bit output whose amax it takes, then the cast.
TEST(Fp8TeBoundaries, CurrentScalingKeepsItsCasts) {
  const BlockTemplate L = layer(", fp8_recipe: tensorwise", kSp);
  EXPECT_DOUBLE_EQ(find_kernel(L.forward, "ln1")->bytes, 16 * 256 * 2 * 2);
  EXPECT_NE(find_kernel(L.forward, "attn.qkv.cast"), nullptr);
  EXPECT_EQ(find_kernel(L.backward, "attn.qkv.transpose"), nullptr);
}

}  // namespace
}  // namespace brigade::cost
