// Op-level selective checkpointing (training.recompute: op): torchtitan's
// policy (activation_checkpoint mode selective, selective_ac_option 'op';
// torchtitan/models/llama3/parallelize_llama.py at e7c0cae, _save_list and
// _custom_policy). PyTorch's checkpoint replays a layer's forward before
// its backward and takes from its cache the outputs of aten.mm but every
// second call (the layer calls wq, wk, wv, wo, w1, w3, w2: mm 2, 4 and 6
// replay), of SDPA's flash kernel and of the functional reduce-scatters;
// FP8 GEMMs are not aten.mm, so under FP8 every linear replays. Worked by
// hand on one Llama-style layer: hidden 256, 4 query heads and 2 key/value
// heads of 64, SwiGLU of 512, RoPE, flash attention, 64 positions, one
// sequence (T = 64), bf16 (e = 2), one rank.
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

using testing::find_kernel;

const char* kLlama =
    ", kv_heads: 2, mlp: swiglu, ffn_hidden: 512, norm: rmsnorm, positions: rotary, "
    "tie_embeddings: false, bias: false, attention: flash, hidden_dropout: 0, "
    "attention_dropout: 0";

std::string scenario(const std::string& model, const std::string& training) {
  return "topology: {preset: dgx-h100}\n"
         "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 256" +
         model + "}\ntraining: {global_batch: 8, micro_batch: 1" + training +
         "}\nstrategy: {data: 8}\n";
}

TransformerShape shape_of(const std::string& training, const std::string& model = kLlama) {
  return testing::shape_of_yaml(scenario(model, training));
}

double gemm_flops(const std::vector<Kernel>& ks) {
  double f = 0;
  for (const Kernel& k : ks)
    if (k.compute == ComputeKind::kGemm) f += k.flops();
  return f;
}

// Kept between the passes (bf16): the layer input 64 x 256 x 2 = 32,768;
// Q (mm 1) 32,768 and V (mm 3) 64 x 128 x 2 = 16,384; the attention's
// output 32,768 and log-sum-exp 4 heads x 64 x 4 = 1,024; w1's output (mm 5)
// 64 x 512 x 2 = 65,536; w2's (mm 7) 32,768: 214,016 B. Replayed GEMMs:
// K (64 x 128 over 256: 4,194,304 FLOP), the projection (64 x 256 over 256:
// 8,388,608) and w3 (64 x 512 over 256: 16,777,216), 29,360,128 FLOP; not
// the attention, not w2. During the layer's backward it holds what it holds
// without recomputation plus the kept outputs no backward reads (Q before
// RoPE, w2's output: 65,536): the replay makes the rest.
TEST(OpRecompute, KeepsWhatTorchtitansPolicySaves) {
  Result<BlockTemplate> op = transformer_layer(shape_of(", recompute: op"));
  Result<BlockTemplate> none = transformer_layer(shape_of(""));
  ASSERT_TRUE(op.is_ok() && none.is_ok()) << op.status().message();
  EXPECT_DOUBLE_EQ(op->saved_bytes(), 214016.0);
  EXPECT_DOUBLE_EQ(gemm_flops(op->recompute), 29360128.0);
  EXPECT_EQ(op->recompute_before, 0);
  const Kernel* k = find_kernel(op->recompute, "attn.qkv.recompute");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->n, 128);  // K's columns
  const Kernel* w3 = find_kernel(op->recompute, "mlp.fc1.recompute");
  ASSERT_NE(w3, nullptr);
  EXPECT_EQ(w3->n, 512);  // w3's of fc1's 1,024
  EXPECT_NE(find_kernel(op->recompute, "attn.proj.recompute"), nullptr);
  EXPECT_NE(find_kernel(op->recompute, "ln1.recompute"), nullptr);
  EXPECT_NE(find_kernel(op->recompute, "mlp.swiglu.recompute"), nullptr);
  EXPECT_EQ(find_kernel(op->recompute, "attn.flash.recompute"), nullptr);
  EXPECT_EQ(find_kernel(op->recompute, "mlp.fc2.recompute"), nullptr);
  EXPECT_DOUBLE_EQ(op->saved_bytes() + op->recompute_saved_bytes(), none->saved_bytes() + 65536.0);
  // The forward and the backward are those of the layer without recomputation.
  EXPECT_DOUBLE_EQ(gemm_flops(op->forward), gemm_flops(none->forward));
  EXPECT_DOUBLE_EQ(gemm_flops(op->backward), gemm_flops(none->backward));
}

// FP8 GEMMs are torch._scaled_mm (or Transformer Engine's): not aten.mm, so
// the policy keeps none of their outputs and counts none of them. Kept: the
// layer input, the attention's output and log-sum-exp, 66,560 B. Replayed:
// every linear, QKV 64 x 512 over 256 (16,777,216 FLOP), the projection
// (8,388,608), fc1 64 x 1,024 over 256 (33,554,432) and fc2 64 x 256 over
// 512 (16,777,216): 75,497,472.
TEST(OpRecompute, Fp8LinearsAllReplay) {
  Result<BlockTemplate> op = transformer_layer(shape_of(", recompute: op, fp8: hybrid"));
  Result<BlockTemplate> none = transformer_layer(shape_of(", fp8: hybrid"));
  ASSERT_TRUE(op.is_ok() && none.is_ok()) << op.status().message();
  EXPECT_DOUBLE_EQ(op->saved_bytes(), 66560.0);
  EXPECT_DOUBLE_EQ(gemm_flops(op->recompute), 75497472.0);
  EXPECT_NE(find_kernel(op->recompute, "mlp.fc2.recompute"), nullptr);
  EXPECT_EQ(find_kernel(op->recompute, "attn.qkv.recompute")->n, 512);
  EXPECT_DOUBLE_EQ(op->saved_bytes() + op->recompute_saved_bytes(), none->saved_bytes());
}

// Ungated (GeLU): fc1 is mm 5, kept; fc2 is mm 6, replayed.
TEST(OpRecompute, UngatedKeepsFc1AndReplaysFc2) {
  Result<BlockTemplate> op = transformer_layer(
      shape_of(", recompute: op", ", ffn_hidden: 512, attention: flash, hidden_dropout: 0"));
  ASSERT_TRUE(op.is_ok()) << op.status().message();
  EXPECT_EQ(find_kernel(op->recompute, "mlp.fc1.recompute"), nullptr);
  EXPECT_NE(find_kernel(op->recompute, "mlp.fc2.recompute"), nullptr);
  // K (64 x 256 over 256: MHA), the projection and fc2 (64 x 256 over 512).
  EXPECT_DOUBLE_EQ(gemm_flops(op->recompute), 8388608.0 + 8388608.0 + 16777216.0);
}

// The step's hardware FLOPs (model_size.hpp): the model's, FlashAttention's
// backward's scores, and the replayed linears, 2Bs (h d_kv + d_q h + h f)
// = 2 x 64 x (256 x 128 + 256 x 256 + 256 x 512) = 29,360,128 for one
// sequence, every linear's forward (75,497,472) under FP8.
TEST(OpRecompute, HardwareFlopsCountTheReplayedLinears) {
  Result<Scenario> s = parse_scenario(scenario(kLlama, ""), "s.yaml");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const TransformerSpec& spec = s->transformer;
  const double none = transformer_hardware_flops(spec, 1, true, Recompute::kNone);
  EXPECT_DOUBLE_EQ(transformer_hardware_flops(spec, 1, true, Recompute::kOp) - none, 29360128.0);
  EXPECT_DOUBLE_EQ(transformer_hardware_flops(spec, 1, true, Recompute::kOp, 1.0, true) - none,
                   75497472.0);
}

Status checked(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "s.yaml");
  if (!s.is_ok()) return s.status();
  return check_plan(*s);
}

void expect_refused(const std::string& text, const std::string& what) {
  const Status st = checked(text);
  ASSERT_FALSE(st.is_ok()) << text;
  EXPECT_NE(st.message().find("s.yaml:4:"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
}

// Bad input: the policy is modelled on dense layers with a flash kernel,
// apart from Transformer Engine's userbuffers; each error names the key.
TEST(OpRecompute, RefusesWhatItDoesNotModel) {
  EXPECT_TRUE(checked(scenario(kLlama, ", recompute: op")).is_ok());
  expect_refused(scenario("", ", recompute: op"),
                 "found recompute op with attention unfused; expected model.transformer.attention: "
                 "flash");
  expect_refused(scenario(std::string(kLlama) + ", moe: {experts: 4, top_k: 2, ffn_hidden: 256}",
                          ", recompute: op"),
                 "found recompute op with MoE layers");
  expect_refused(
      "topology: {preset: dgx-h100}\n"
      "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 256" +
          std::string(kLlama) +
          "}\ntraining: {global_batch: 8, micro_batch: 1, recompute: op, tp_comm_overlap: true}\n"
          "strategy: {tensor: 2, data: 4, sequence_parallel: true}\n",
      "found recompute op with tp_comm_overlap: true");
  expect_refused(
      "topology: {preset: cpu-host, devices: 4}\n"
      "model:\n  mlp: {batch: 8, widths: [16, 16]}\n"
      "training: {recompute: op}\n",
      "found recompute op with an mlp model");
}

}  // namespace
}  // namespace brigade::cost
