// FP8 primary weights (training.fp8_param_gather; Megatron-LM's
// --fp8-param-gather, which builds the model under Transformer Engine's
// fp8_model_init; Megatron-Bridge's FP8 recipes set it). Source:
// NVIDIA/TransformerEngine at v2.9, transformer_engine/pytorch/module/
// base.py, reset_parameters: with primary_weights_in_fp8 each weight is
// quantized in place of its 16-bit value, with rowwise and columnwise
// (transpose) data while gradients are enabled: 2 bytes an element where
// the 16-bit weight (2) and TE's cached FP8 copy and transpose (2) were.
// Megatron-Core's distributed optimizer casts its fp32 master shard to FP8
// in the place of its copy back to 16 bits (megatron/core/fp8_utils.py,
// quantize_param_shard), and the gathered weights get their transpose
// (TE's post-all-gather processing).
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "tests/costmodel/estimate_text.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {

// Per element: 2 B beside the 16-bit weight without, nothing more with
// (bf16, e = 2); the step's cast 6 B (tensorwise: amax 2, cast 2 + 1 +
// the transpose's 1) or 4 (delayed) without, and with them the transpose
// (2) and the master shard's amax (4 / shards) under current scaling.
TEST(Fp8ParamGather, BytesByHand) {
  EXPECT_DOUBLE_EQ(fp8_weight_extra_bytes(1e6, 2, false), 2e6);
  EXPECT_DOUBLE_EQ(fp8_weight_extra_bytes(1e6, 2, true), 0);
  EXPECT_DOUBLE_EQ(fp8_step_cast_bytes(1e6, 2, Fp8Scaling::kTensorwise, false, 4), 6e6);
  EXPECT_DOUBLE_EQ(fp8_step_cast_bytes(1e6, 2, Fp8Scaling::kDelayed, false, 4), 4e6);
  EXPECT_DOUBLE_EQ(fp8_step_cast_bytes(1e6, 2, Fp8Scaling::kTensorwise, true, 4), 3e6);
  EXPECT_DOUBLE_EQ(fp8_step_cast_bytes(1e6, 2, Fp8Scaling::kDelayed, true, 4), 2e6);
}

std::string h100(const std::string& training, const std::string& zero = ", zero: 1") {
  return "topology: {preset: dgx-h100}\n"
         "model:\n"
         "  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 1024, vocab: 32000,\n"
         "                attention: flash, bias: false}\n"
         "training: {global_batch: 8, micro_batch: 1, fp8: hybrid, fp8_recipe: tensorwise" +
         training +
         "}\n"
         "strategy: {tensor: 2, data: 4, sequence_parallel: true" +
         zero + "}\n";
}

using testing::estimate_text;

// A layer's 12 h^2 = 12,582,912 linear weights (no biases), over tensor 2
// and 2 layers: F = 12,582,912 FP8 weights a device. FP8 primary weights
// keep 2F = 25,165,824 B less (the bf16 weights' place taken), and the
// step's cast moves 6F - (2F + 4F/4) = 3F = 37,748,736 B less, at the
// H100 preset's stream rate 0.867 x 3.35 TB/s (2,903 GB/s) 13.0034 us.
TEST(Fp8ParamGather, TheWeightsTakeTheBf16WeightsPlace) {
  const PlanEstimate off = estimate_text(h100(""));
  const PlanEstimate on = estimate_text(h100(", fp8_param_gather: true"));
  EXPECT_DOUBLE_EQ(off.memory.at(0).params_bytes - on.memory.at(0).params_bytes, 25165824.0);
  EXPECT_NEAR(off.optimizer_seconds - on.optimizer_seconds, 37748736.0 / 2903e9, 1e-12);
  EXPECT_NEAR(off.optimizer_seconds - on.optimizer_seconds, 13.0034e-6, 1e-10);
  EXPECT_LT(on.step_seconds, off.step_seconds);
}

const CommunicationEstimate* data_gather(const PlanEstimate& e) {
  for (const CommunicationEstimate& c : e.communication)
    if (c.purpose == "data" && c.kind == "allgather") return &c;
  return nullptr;
}

// ZeRO-1's all-gather of the updated weights moves FP8 where the weights
// are FP8 (Megatron-Core's DDP keeps Float8Tensor parameters in a uint8
// buffer, torch.uint8 its param_dtype, and all-gathers that buffer;
// megatron/core/distributed/distributed_data_parallel.py): the F =
// 12,582,912 linear weights a device at 1 B instead of 2, F bytes fewer
// over the step; the norms (and the embedding) still at 2. After the
// optimizer step and, with overlap_param_gather, ahead of the first
// forward, the same bytes.
TEST(Fp8ParamGather, TheWeightsAreGatheredInFp8) {
  for (const char* overlap : {"", ", overlap: true, overlap_param_gather: true"}) {
    const std::string z = std::string(", zero: 1") + overlap;
    const PlanEstimate off = estimate_text(h100("", z));
    const PlanEstimate on = estimate_text(h100(", fp8_param_gather: true", z));
    const CommunicationEstimate* a = data_gather(off);
    const CommunicationEstimate* b = data_gather(on);
    ASSERT_NE(a, nullptr) << overlap;
    ASSERT_NE(b, nullptr) << overlap;
    EXPECT_NEAR(a->bytes - b->bytes, 12582912.0, 1e-3) << overlap;
    EXPECT_LT(b->seconds, a->seconds) << overlap;
  }
}

// Bad input: without FP8; with ZeRO-2 or 3 (not modelled).
TEST(Fp8ParamGather, RefusedWithoutFp8OrWithZeroTwoAndThree) {
  Result<Scenario> s = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model:\n"
      "  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 1024, vocab: 32000}\n"
      "training: {global_batch: 8, micro_batch: 1, fp8_param_gather: true}\n"
      "strategy: {data: 8}\n",
      "s.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(check_plan(*s).message(),
            "s.yaml:4:45: error: found fp8_param_gather: true with fp8: none; expected fp8: "
            "hybrid or e4m3, or no fp8_param_gather key (Transformer Engine's FP8 primary "
            "weights)");
  Result<Scenario> z = parse_scenario(h100(", fp8_param_gather: true", ", zero: 2"), "z.yaml");
  ASSERT_TRUE(z.is_ok()) << z.message();
  const Status st = check_plan(*z);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("z.yaml:5:"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("found fp8_param_gather: true with zero 2; expected zero 0 or 1"),
            std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace brigade::cost
