// What Megatron-LM holds and moves (issue 19, item 3): the fp32 main_grad
// (training.main_grad: fp32) and the distributed optimizer
// (training.distributed_optimizer), by hand-worked byte counts.
//
// Source of the bytes per parameter: NVIDIA/Megatron-LM README.md,
// "Distributed Optimizer": "bf16 param, fp32 grads | 18 | 6 + 12/d" and
// "fp32 param, fp32 grads | 16 | 8 + 8/d" (non-distributed | distributed,
// d the data-parallel size); ZeRO (Rajbhandari et al. 2020, §3.1) for the
// 16 bytes (2 + 2 + K, K = 12) without the fp32 gradient buffer.
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

TEST(MainGrad, BytesPerParameterAreMegatronsTable) {
  // bf16 weights, mixed-precision Adam, fp32 main_grad: 2 + 4 + (4 master + 8 m, v) = 18.
  const BytesPerParameter b =
      bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, true, true);
  EXPECT_EQ(b.params, 2.0);
  EXPECT_EQ(b.grads, 4.0);
  EXPECT_EQ(b.optimizer, 12.0);
  EXPECT_EQ(b.total(), 18.0);
  // Off (the default): ZeRO's 16.
  EXPECT_EQ(bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, true).total(), 16.0);
  // fp32 weights: the gradients are fp32 already, 4 + 4 + 8 = 16 either way.
  EXPECT_EQ(bytes_per_parameter(OptimizerKind::kAdam, DType::kF32, true, true, true).total(), 16.0);
  // Inference keeps no gradients, main_grad or not.
  EXPECT_EQ(bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, false, true).total(),
            2.0);
  // The optimizer step reads the fp32 gradient: 2 (2 + 12) + 4 = 32 bytes per parameter.
  EXPECT_EQ(optimizer_step_bytes_per_parameter(b), 32.0);
}

TEST(MainGrad, DistributedOptimizerIsSixPlusTwelveOverD) {
  // Megatron's "6 + 12/d" at d = 8, per parameter: 2 (bf16) + 4 (fp32 main_grad) + 12/8 = 7.5.
  const BytesPerParameter b =
      bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, true, true);
  auto m = model_state_bytes(1e9, b, 1, 8);
  ASSERT_TRUE(m.is_ok());
  EXPECT_EQ(m->total(), 7.5e9);
  // "8 + 8/d" for fp32 weights and gradients: 8 + 1 = 9 at d = 8.
  auto f = model_state_bytes(
      1e9, bytes_per_parameter(OptimizerKind::kAdam, DType::kF32, true, true, true), 1, 8);
  ASSERT_TRUE(f.is_ok());
  EXPECT_EQ(f->total(), 9e9);
}

// A tiny GPT on one DGX A100, data 8: per layer 12h^2 + 13h = 12 x 4096 +
// 13 x 64 = 49,984 parameters (QKV 3h^2 + 3h, projection h^2 + h, fc1 4h^2 +
// 4h, fc2 4h^2 + h, two LayerNorms 4h); two layers 99,968; word embedding
// Vh = 8,192 (tied with the logits), learned positions sh = 2,048: 110,208
// on every device. (Brigade's head block holds the logits' weight only: the
// final LayerNorm's 2h = 128 are not counted, by both judges alike.)
constexpr double kParams = 110208;

Scenario tiny(const std::string& training, const std::string& strategy) {
  const std::string yaml =
      "topology: {preset: dgx-a100}\n"
      "model:\n  transformer: {layers: 2, hidden: 64, heads: 4, seq: 32, vocab: 128}\n"
      "training: {global_batch: 8, micro_batch: 1" +
      training + "}\nstrategy: {data: 8" + strategy + "}\n";
  Result<Scenario> sc = parse_scenario(yaml, "tiny.yaml");
  EXPECT_TRUE(sc.is_ok()) << sc.message();
  return sc.is_ok() ? *sc : Scenario{};
}

const CommunicationEstimate* find(const PlanEstimate& e, const std::string& purpose,
                                  const std::string& kind) {
  for (const CommunicationEstimate& c : e.communication)
    if (c.purpose == purpose && c.kind == kind) return &c;
  return nullptr;
}

TEST(MainGrad, HoldsAndReducesFp32Gradients) {
  const Scenario off = tiny("", "");
  const Scenario on = tiny(", main_grad: fp32", "");
  EXPECT_FALSE(off.training.main_grad_fp32);
  EXPECT_TRUE(on.training.main_grad_fp32);
  auto a = estimate_plan(off);
  auto b = estimate_plan(on);
  ASSERT_TRUE(a.is_ok()) << a.message();
  ASSERT_TRUE(b.is_ok()) << b.message();
  EXPECT_EQ(b->memory[0].params_bytes, 2 * kParams);      // 220,416
  EXPECT_EQ(a->memory[0].grads_bytes, 2 * kParams);       // 220,416
  EXPECT_EQ(b->memory[0].grads_bytes, 4 * kParams);       // 440,832
  EXPECT_EQ(b->memory[0].optimizer_bytes, 12 * kParams);  // 1,322,496
  // Megatron reduces main_grad in fp32 (grad_reduce_in_fp32): the buckets'
  // AllReduce moves 4 bytes a parameter, twice the bf16 gradients' 2.
  const CommunicationEstimate* ra = find(*a, "data", "allreduce");
  const CommunicationEstimate* rb = find(*b, "data", "allreduce");
  ASSERT_NE(ra, nullptr);
  ASSERT_NE(rb, nullptr);
  EXPECT_EQ(ra->bytes, 2 * kParams);
  EXPECT_EQ(rb->bytes, 4 * kParams);
  // (Their times are NCCL's for those bytes. At these tiny sizes ring LL
  // runs twice the bytes on twice the channels, 13 of 24 against 6, so
  // the fp32 AllReduce is not slower: not a claim about main_grad.)
}

TEST(DistributedOptimizer, IsZeroOneWithFp32ReduceScatterAndBf16Gather) {
  const Scenario sc = tiny(", main_grad: fp32, distributed_optimizer: true", "");
  EXPECT_TRUE(sc.training.distributed_optimizer);
  EXPECT_EQ(sc.strategy.zero, 1);  // the reader's stage for it
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  // 6 + 12/d bytes per parameter: 2 + 4 whole, 12 / 8 = 1.5 sharded.
  EXPECT_EQ(e->memory[0].params_bytes, 2 * kParams);
  EXPECT_EQ(e->memory[0].grads_bytes, 4 * kParams);
  EXPECT_EQ(e->memory[0].optimizer_bytes, 1.5 * kParams);  // 165,312
  // Gradients reduce-scattered in fp32 (4 B), the updated bf16 weights all-gathered (2 B).
  const CommunicationEstimate* rs = find(*e, "data", "reducescatter");
  const CommunicationEstimate* ag = find(*e, "data", "allgather");
  ASSERT_NE(rs, nullptr);
  ASSERT_NE(ag, nullptr);
  EXPECT_EQ(rs->bytes, 4 * kParams);
  EXPECT_EQ(ag->bytes, 2 * kParams);
  // The same plan as `zero: 1` written out.
  auto z = estimate_plan(tiny(", main_grad: fp32", ", zero: 1"));
  ASSERT_TRUE(z.is_ok()) << z.message();
  EXPECT_EQ(z->step_seconds, e->step_seconds);
  EXPECT_EQ(z->memory[0].peak_bytes, e->memory[0].peak_bytes);
}

TEST(DistributedOptimizer, BadCombinationsAreRefused) {
  auto check = [](const Scenario& sc) { return check_plan(sc).message(); };
  EXPECT_EQ(check(tiny(", distributed_optimizer: true", ", zero: 2")),
            "tiny.yaml:4:45: error: found distributed_optimizer with zero 2; expected zero 1 or no "
            "zero key (Megatron-LM's distributed optimizer shards the optimizer state over "
            "'data': ZeRO-1's sharding)");
  EXPECT_EQ(check(tiny(", main_grad: fp32", ", zero: 3")),
            "tiny.yaml:4:45: error: found main_grad fp32 with zero 3; expected zero 0 or 1 "
            "(Megatron-LM keeps its fp32 main_grad whole on every data rank, under DDP and the "
            "distributed optimizer alike)");
  Result<Scenario> bad = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  transformer: {layers: 2, hidden: 64, heads: 4, "
      "seq: 32, vocab: 128}\ntraining: {main_grad: fp16}\n",
      "bad.yaml");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message(),
            "bad.yaml:4:23: error: found 'fp16'; expected one of weights, fp32 (did you mean "
            "'fp32'?)");
}

// Gradient accumulation without Megatron-LM's fusion
// (training.gradient_accumulation_fusion: false; megatron/model/distributed.py
// at aed2f75e, the param hook `param.main_grad.add_(param.grad.data)`):
// after each backward kernel that completes a parameter group's gradient,
// an add of e + 2 g bytes per local element, which then completes the
// group. The tiny GPT's layer holds 49,984 parameters (above): in bf16
// 6 B each, 299,904 B a layer; with an fp32 main_grad 2 + 2 x 4 = 10 B,
// 499,840 B. The embedding's word and position tables (8,192 + 2,048):
// 61,440 B in bf16. The tied head holds none. With the fusion on (the
// default) the GEMMs add the weights' gradients; what is left is an add of
// its own: every group's biases and norms, 13h = 832 elements a layer
// (4,992 B), and the embedding's whole tables (no GEMM makes their
// gradients: PyTorch's dense embedding backward), the same 61,440 B.
TEST(GradientAccumulationFusion, UnfusedAddsFollowEveryCompletedGradient) {
  auto added = [](const BlockTemplate& b) {
    double bytes = 0;
    int adds = 0;
    for (size_t i = 0; i < b.backward.size(); ++i) {
      const Kernel& k = b.backward[i];
      if (k.name.size() < 16 || k.name.substr(k.name.size() - 16) != ".grad_accumulate") continue;
      ++adds;
      bytes += k.bytes;
      EXPECT_GE(k.completes_grad, 0) << k.name;
      EXPECT_GT(i, 0u);
      if (i > 0) {
        EXPECT_EQ(b.backward[i - 1].completes_grad, -1) << k.name;
      }
    }
    return std::make_pair(adds, bytes);
  };
  const Scenario fused = tiny("", "");
  const Scenario unfused = tiny(", gradient_accumulation_fusion: false", "");
  const Scenario fp32 = tiny(", gradient_accumulation_fusion: false, main_grad: fp32", "");
  EXPECT_TRUE(fused.training.gradient_accumulation_fusion);
  EXPECT_FALSE(unfused.training.gradient_accumulation_fusion);
  const TransformerShape s0 = transformer_shape(fused), s1 = transformer_shape(unfused),
                         s2 = transformer_shape(fp32);
  EXPECT_EQ(s0.grad_accumulate_bytes, 6.0);  // what no GEMM fuses
  EXPECT_EQ(s0.fused_accumulate_bytes, 2.0);
  EXPECT_EQ(s1.grad_accumulate_bytes, 6.0);
  EXPECT_EQ(s1.fused_accumulate_bytes, 0.0);
  EXPECT_EQ(s2.grad_accumulate_bytes, 10.0);
  Result<BlockTemplate> l0 = transformer_layer(s0), l1 = transformer_layer(s1),
                        l2 = transformer_layer(s2);
  ASSERT_TRUE(l0.is_ok() && l1.is_ok() && l2.is_ok());
  const auto [fused_adds, fused_bytes] = added(*l0);
  EXPECT_EQ(fused_adds, static_cast<int>(l0->params.size()));  // each group has a bias or is a norm
  EXPECT_DOUBLE_EQ(fused_bytes, 832 * 6);
  const auto [adds, bytes] = added(*l1);
  EXPECT_EQ(adds, static_cast<int>(l1->params.size()));
  EXPECT_EQ(l1->backward.size(), l0->backward.size());
  EXPECT_DOUBLE_EQ(bytes, 299904);
  EXPECT_DOUBLE_EQ(added(*l2).second, 499840);
  Result<BlockTemplate> e0 = embedding_block(s0), e1 = embedding_block(s1), h0 = head_block(s0),
                        h1 = head_block(s1);
  ASSERT_TRUE(e0.is_ok() && e1.is_ok() && h0.is_ok() && h1.is_ok());
  EXPECT_DOUBLE_EQ(added(*e0).second, 61440);
  EXPECT_DOUBLE_EQ(added(*e1).second, 61440);
  EXPECT_EQ(added(*h0).first, 0);
  EXPECT_EQ(added(*h1).first, 0);
  // Inference has no gradients to accumulate.
  Scenario inference = unfused;
  inference.training.inference = true;
  EXPECT_EQ(transformer_shape(inference).grad_accumulate_bytes, 0.0);
}

// Full recomputation reruns the layer's forward before its whole backward;
// selective recomputation reruns the attention core just before its
// backward kernels: the adds inserted before that point move the index.
TEST(GradientAccumulationFusion, RecomputationStillRunsBeforeTheSameKernel) {
  const Scenario base = tiny(", recompute: selective", "");
  const Scenario unfused = tiny(", recompute: selective, gradient_accumulation_fusion: false", "");
  TransformerShape none = transformer_shape(base);  // no add at all
  none.grad_accumulate_bytes = none.fused_accumulate_bytes = 0;
  Result<BlockTemplate> a = transformer_layer(none);
  Result<BlockTemplate> b = transformer_layer(transformer_shape(unfused));
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  ASSERT_LT(a->recompute_before, static_cast<int>(a->backward.size()));
  EXPECT_GT(b->recompute_before, a->recompute_before);
  EXPECT_EQ(b->backward[static_cast<size_t>(b->recompute_before)].name,
            a->backward[static_cast<size_t>(a->recompute_before)].name);
}

// One replica, four micro-batches a step, no collectives: the unfused step is
// longer by four times the adds' time, each add a memory-bound kernel timed
// as any other (memory_bound_seconds), two layers and the embedding.
TEST(GradientAccumulationFusion, EachMicroBatchPaysItsAdds) {
  auto one = [](const std::string& training) {
    const std::string yaml =
        "topology: {preset: h200x1}\n"
        "model:\n  transformer: {layers: 2, hidden: 64, heads: 4, seq: 32, vocab: 128}\n"
        "training: {global_batch: 4, micro_batch: 1" +
        training + "}\nstrategy: {data: 1}\n";
    Result<Scenario> sc = parse_scenario(yaml, "one.yaml");
    EXPECT_TRUE(sc.is_ok()) << sc.message();
    return sc.is_ok() ? *sc : Scenario{};
  };
  const Scenario fused = one(""), unfused = one(", gradient_accumulation_fusion: false");
  auto a = estimate_plan(fused);
  auto b = estimate_plan(unfused);
  ASSERT_TRUE(a.is_ok() && b.is_ok()) << a.message() << b.message();
  const Device& dev = unfused.topology.device(0);
  const DeviceProfile& dp = unfused.profile.for_device(dev);
  // A micro-batch's adds (two layers and the embedding); the fused plan's
  // are its biases', norms' and tables' (its GEMMs' additions are hidden at
  // the preset's gemm_accumulate_exposed 0).
  auto adds_of = [&](const Scenario& sc) {
    const TransformerShape shape = transformer_shape(sc);
    double adds = 0;
    for (auto block : {transformer_layer(shape), embedding_block(shape)}) {
      EXPECT_TRUE(block.is_ok());
      if (!block.is_ok()) continue;
      const double layers = block->name == "layer" ? 2 : 1;
      for (const Kernel& k : block->backward)
        if (k.name.find(".grad_accumulate") != std::string::npos)
          adds += layers * memory_bound_seconds(dev, dp, k.bytes, k.dtype);
    }
    return adds;
  };
  const double fused_adds = adds_of(fused), unfused_adds = adds_of(unfused);
  EXPECT_GT(fused_adds, 0);
  EXPECT_GT(unfused_adds, fused_adds);
  EXPECT_NEAR(b->step_seconds - a->step_seconds, 4 * (unfused_adds - fused_adds), 1e-12);
}

TEST(GradientAccumulationFusion, BadValuesAndModelsAreRefused) {
  Result<Scenario> bad = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  transformer: {layers: 2, hidden: 64, heads: 4, "
      "seq: 32, vocab: 128}\ntraining: {gradient_accumulation_fusion: maybe}\n",
      "bad.yaml");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("bad.yaml:4:42: error: found 'maybe'"), std::string::npos)
      << bad.message();
  Result<Scenario> mlp = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  mlp: {batch: 8, widths: [64, 64]}\n"
      "training: {gradient_accumulation_fusion: false}\n",
      "mlp.yaml");
  ASSERT_TRUE(mlp.is_ok()) << mlp.message();
  EXPECT_EQ(check_plan(*mlp).message(),
            "mlp.yaml:4:12: error: found gradient_accumulation_fusion: false with an mlp model; "
            "expected true (Megatron-LM's unfused gradient accumulation is modelled for "
            "transformer models)");
}

// Apex's DistributedFusedAdam layouts (NeMo 1.x's distributed_fused_adam;
// tests/costmodel/memory_test.cpp works the bytes by hand): on the tiny GPT
// with the optimizer state sharded over 8 data ranks (zero 1), the master
// kept as remainders holds (2 + 8) / 8 = 1.25 bytes of state a parameter,
// bf16 moments without a master (2 + 2) / 8 = 0.5, against 12 / 8 = 1.5.
TEST(ApexOptimizer, HoldsItsStateShardedOverData) {
  auto fp32 = estimate_plan(tiny("", ", zero: 1"));
  auto rem = estimate_plan(tiny(", param_remainders: true", ", zero: 1"));
  auto bf16 = estimate_plan(tiny(", optimizer_dtype: bf16", ", zero: 1"));
  ASSERT_TRUE(fp32.is_ok() && rem.is_ok() && bf16.is_ok());
  EXPECT_EQ(fp32->memory[0].optimizer_bytes, 1.5 * kParams);   // 165,312
  EXPECT_EQ(rem->memory[0].optimizer_bytes, 1.25 * kParams);   // 137,760
  EXPECT_EQ(bf16->memory[0].optimizer_bytes, 0.5 * kParams);   // 55,104
  EXPECT_EQ(rem->memory[0].params_bytes, 2 * kParams);
  EXPECT_EQ(rem->memory[0].grads_bytes, 2 * kParams);
  // Less to read and write in the step: Apex's kernel writes the bf16
  // weights itself (no copy pass), and bf16 moments are half the bytes.
  EXPECT_LT(rem->optimizer_seconds, fp32->optimizer_seconds);
  EXPECT_LT(bf16->optimizer_seconds, rem->optimizer_seconds);
}

TEST(ApexOptimizer, BadValuesAndCombinationsAreRefused) {
  Result<Scenario> bad = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  transformer: {layers: 2, hidden: 64, heads: 4, "
      "seq: 32, vocab: 128}\ntraining: {optimizer_dtype: fp16}\n",
      "bad.yaml");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("bad.yaml:4:29: error: found 'fp16'"), std::string::npos)
      << bad.message();
  auto check = [](const Scenario& sc) { return check_plan(sc).message(); };
  EXPECT_EQ(check(tiny(", optimizer: sgd, param_remainders: true", "")),
            "tiny.yaml:4:61: error: found param_remainders: true with optimizer sgd; expected "
            "optimizer adam (Apex's DistributedFusedAdam keeps Adam's state beside bf16 weights: "
            "docs/scenario-format.md, \"training\")");
  EXPECT_EQ(check(tiny(", optimizer_dtype: bf16, param_remainders: true", "")),
            "tiny.yaml:4:68: error: found param_remainders: true with optimizer_dtype bf16; "
            "expected one of them (bf16 moments keep no master weights to store as remainders: "
            "NeMo's store_params is false when the optimizer's dtype is the weights')");
  EXPECT_NE(check(tiny(", mixed_precision: false, optimizer_dtype: bf16", ""))
                .find("found optimizer_dtype bf16 with mixed_precision: false; expected "
                      "mixed_precision: true"),
            std::string::npos);
  Result<Scenario> f16 = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  transformer: {layers: 2, hidden: 64, heads: 4, "
      "seq: 32, vocab: 128, dtype: f16}\ntraining: {param_remainders: true}\n",
      "f16.yaml");
  ASSERT_TRUE(f16.is_ok()) << f16.message();
  EXPECT_NE(check(*f16).find("f16.yaml:4:12: error: found param_remainders: true with dtype f16; "
                             "expected dtype bf16"),
            std::string::npos)
      << check(*f16);
  Result<Scenario> mlp = parse_scenario(
      "topology: {preset: dgx-a100}\nmodel:\n  mlp: {batch: 8, widths: [64, 64]}\n"
      "training: {optimizer_dtype: bf16}\n",
      "mlp.yaml");
  ASSERT_TRUE(mlp.is_ok()) << mlp.message();
  EXPECT_NE(check(*mlp).find("mlp.yaml:4:12: error: found optimizer_dtype bf16 with an mlp model; "
                             "expected a transformer model"),
            std::string::npos)
      << check(*mlp);
}

}  // namespace
}  // namespace brigade::cost
