// Block recomputation (training.recompute_method: block,
// recompute_num_layers N; Megatron-LM's --recompute-granularity full
// --recompute-method block --recompute-num-layers N): the first N layers of
// each model chunk recompute their forward before their backward, the rest
// keep every activation. Source: Megatron-LM, megatron/core/transformer/
// transformer_block.py, TransformerBlock._checkpointed_forward ("block":
// `if layer_number < recompute_num_layers` checkpoint, else the plain
// forward, for the layers of the block, one model chunk's). Megatron-Bridge's
// H100 FP8 Llama 3 8B recipe runs it with N = 5 (scripts/performance/
// utils/helpers.py, set_recompute_overrides at v0.2.0).
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "tests/costmodel/estimate_text.hpp"

namespace brigade::cost {
namespace {

// A GPT layer stack on one H200: 8 layers, s 256, b 2, h 512, a 4, unfused
// attention, bf16; one micro-batch.
std::string one_gpu(const std::string& training) {
  return "topology: {preset: h200x1}\n"
         "model:\n"
         "  transformer: {layers: 8, hidden: 512, heads: 4, seq: 256, vocab: 4096}\n"
         "training: {global_batch: 2, micro_batch: 2" +
         training + "}\n";
}

using testing::estimate_text;

std::string block(int n) {
  return ", recompute: full, recompute_method: block, recompute_num_layers: " + std::to_string(n);
}

// N at least the layers of a chunk is full recomputation; N = 0 recomputes
// nothing: the same step, memory and FLOPs as recompute none.
TEST(BlockRecompute, AllLayersIsFullAndNoneIsNone) {
  const PlanEstimate full = estimate_text(one_gpu(", recompute: full"));
  const PlanEstimate none = estimate_text(one_gpu(", recompute: none"));
  for (int n : {8, 12}) {
    const PlanEstimate b = estimate_text(one_gpu(block(n)));
    EXPECT_DOUBLE_EQ(b.step_seconds, full.step_seconds) << n;
    EXPECT_DOUBLE_EQ(b.memory.at(0).peak_bytes, full.memory.at(0).peak_bytes) << n;
    EXPECT_DOUBLE_EQ(b.hardware_flops_per_iteration, full.hardware_flops_per_iteration) << n;
  }
  const PlanEstimate zero = estimate_text(one_gpu(block(0)));
  EXPECT_DOUBLE_EQ(zero.step_seconds, none.step_seconds);
  EXPECT_DOUBLE_EQ(zero.memory.at(0).peak_bytes, none.memory.at(0).peak_bytes);
  EXPECT_DOUBLE_EQ(zero.hardware_flops_per_iteration, none.hardware_flops_per_iteration);
}

// Each recomputed layer repeats one layer's forward: with nothing to
// overlap on one device the step grows by N/8 of what full recomputation
// adds, and the FLOPs by N layers' forward, 24 b s h^2 (1 + s / (6h))
// (Narayanan et al. 2021, Eq. 3's layer term) = 24 x 2 x 256 x 512^2 x
// (1 + 256/3072) = 3,221,225,472 + 268,435,456 = 3,489,660,928 a layer:
// N = 3 adds 10,468,982,784.
TEST(BlockRecompute, EachRecomputedLayerRepeatsItsForward) {
  const PlanEstimate none = estimate_text(one_gpu(", recompute: none"));
  const PlanEstimate full = estimate_text(one_gpu(", recompute: full"));
  const PlanEstimate three = estimate_text(one_gpu(block(3)));
  EXPECT_NEAR(three.step_seconds - none.step_seconds,
              3.0 / 8.0 * (full.step_seconds - none.step_seconds), 1e-12 * full.step_seconds);
  EXPECT_GT(three.step_seconds, none.step_seconds);
  EXPECT_DOUBLE_EQ(three.hardware_flops_per_iteration - none.hardware_flops_per_iteration,
                   10468982784.0);
  EXPECT_DOUBLE_EQ(three.model_flops_per_iteration, none.model_flops_per_iteration);
}

// Memory (Korthikanti et al. 2022, Table 2, t = 1, 16-bit): a layer keeps
// sbh (34 + 5as/h) without recomputation, its input 2sbh with it; sbh =
// 256 x 2 x 512 = 262,144 and 5as/h = 5 x 4 x 256 / 512 = 10: 44 sbh =
// 11,534,336 B against 524,288 B. Block recomputation of 3 of 8 layers
// keeps 42 sbh less on each of the 3 than none: 126 sbh = 33,030,144 B
// (the backward's peak, one recomputed layer's 42 sbh on top of what
// the 3 keep, stays below the forward's end).
TEST(BlockRecompute, RecomputedLayersKeepTheirInputOnly) {
  const PlanEstimate none = estimate_text(one_gpu(", recompute: none"));
  const PlanEstimate three = estimate_text(one_gpu(block(3)));
  EXPECT_DOUBLE_EQ(none.memory.at(0).activations_bytes - three.memory.at(0).activations_bytes,
                   33030144.0);
}

Status checked(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "s.yaml");
  if (!s.is_ok()) return s.status();
  return check_plan(*s);
}

// Bad input: the method needs full recomputation; uniform groups of more
// than one layer are not modelled; an unknown method is named.
TEST(BlockRecompute, RefusesWhatMegatronDoesNotRunOrBrigadeDoesNotModel) {
  // (Each names the file, line and column of the key that is wrong.)
  Status s = checked(one_gpu(", recompute: selective, recompute_method: block"));
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("s.yaml:4:67: "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("found recompute_method block with recompute selective; expected "
                             "recompute full"),
            std::string::npos)
      << s.message();
  s = checked(one_gpu(", recompute: full, recompute_num_layers: 2"));
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("s.yaml:4:62: "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("found recompute_num_layers 2 with recompute_method uniform"),
            std::string::npos)
      << s.message();
  s = checked(one_gpu(", recompute: full, recompute_method: blocks"));
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("blocks"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("s.yaml:4:"), std::string::npos) << s.message();
  s = checked(one_gpu(", recompute: full, recompute_method: block, recompute_num_layers: -1"));
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("s.yaml:4:109: error: found '-1'; expected an integer >= 0"),
            std::string::npos)
      << s.message();
}

// A search or the what-if panel that sets another recomputation drops the
// block method with it (set_recompute): the edited plan stays valid.
TEST(BlockRecompute, SetRecomputeDropsTheMethodWithAnotherGranularity) {
  TrainingSpec t;
  t.recompute = Recompute::kFull;
  t.recompute_method = RecomputeMethod::kBlock;
  t.recompute_num_layers = 5;
  set_recompute(t, Recompute::kFull);
  EXPECT_EQ(t.recompute_method, RecomputeMethod::kBlock);
  EXPECT_EQ(t.recompute_num_layers, 5);
  set_recompute(t, Recompute::kSelective);
  EXPECT_EQ(t.recompute, Recompute::kSelective);
  EXPECT_EQ(t.recompute_method, RecomputeMethod::kUniform);
  EXPECT_EQ(t.recompute_num_layers, 1);
}

}  // namespace
}  // namespace brigade::cost
