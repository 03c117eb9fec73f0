// strategy.context (issue 21, item 3): what it reads into, the rank order
// that places it, and every refusal asserted exactly (file:line:col of the
// key's value, exit 2 on the command line).
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"

namespace brigade {
namespace {

// Eight H100s of one DGX node; a 4-layer transformer.
std::string cp_scenario(const std::string& strategy,
                        const std::string& model_keys = ", attention: flash",
                        std::int64_t seq = 1024) {
  return "topology: {preset: dgx-h100}\n"
         "model:\n"
         "  transformer: {layers: 4, hidden: 512, heads: 8, kv_heads: 4, seq: " +
         std::to_string(seq) + ", vocab: 1024" + model_keys +
         "}\n"
         "training: {global_batch: 16}\n"
         "strategy: " +
         strategy + "\n";
}

std::string plan_error(const std::string& yaml) {
  auto s = parse_scenario(yaml, "c.yaml");
  if (!s.is_ok()) return s.message();
  const Status st = check_plan(*s);
  return st.is_ok() ? "" : st.message();
}

TEST(ContextKeys, ReadAndChecked) {
  auto s = parse_scenario(cp_scenario("{data: 2, context: 4}"), "c.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(s->strategy.context, 4);
  EXPECT_TRUE(check_plan(*s).is_ok()) << check_plan(*s).message();
}

// Megatron-Core's default order tp-cp-ep-dp-pp: context right after tensor
// when the order leaves it out; listed, where it is written.
TEST(ContextKeys, RankOrder) {
  StrategySpec st;
  EXPECT_EQ(full_rank_order(st),
            (std::vector<std::string>{"tensor", "context", "data", "pipeline"}));
  st.rank_order = {"data", "tensor", "pipeline"};
  EXPECT_EQ(full_rank_order(st),
            (std::vector<std::string>{"data", "tensor", "context", "pipeline"}));
  auto s = parse_scenario(cp_scenario("{data: 2, context: 4, rank_order: [context, tensor, data, "
                                      "pipeline]}"),
                          "c.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(full_rank_order(s->strategy),
            (std::vector<std::string>{"context", "tensor", "data", "pipeline"}));
}

struct Bad {
  const char* name;
  std::string yaml;
  std::string message;
};
void PrintTo(const Bad& b, std::ostream* os) { *os << b.name; }

class ContextErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(ContextErrors, ExactMessage) { EXPECT_EQ(plan_error(GetParam().yaml), GetParam().message); }

INSTANTIATE_TEST_SUITE_P(
    All, ContextErrors,
    ::testing::Values(
        Bad{"DeviceCount", cp_scenario("{data: 4, context: 4}"),
            "c.yaml:5:1: error: found a plan for 16 devices (data 4 x tensor 1 x context 4 x "
            "pipeline 1); expected the topology's 8 devices"},
        Bad{"NotADivisorOfSeq", cp_scenario("{data: 1, context: 8}", ", attention: flash", 1020),
            "c.yaml:5:21: error: found context 8 with seq 1020; expected a divisor of seq (each "
            "context-parallel rank holds seq/context positions)"},
        Bad{"NotTwoChunksPerRank", cp_scenario("{data: 1, context: 8}", ", attention: flash", 1032),
            "c.yaml:5:21: error: found context 8 with seq 1032; expected seq divisible by 2 x "
            "context = 16 (the sequence is cut in 2 x context chunks, rank c holding chunks c and "
            "2 x context - 1 - c, so that every rank has the same share of the causal mask's "
            "work)"},
        Bad{"SequenceParallelShard",
            cp_scenario("{tensor: 4, context: 2, sequence_parallel: true}", ", attention: flash", 12),
            "c.yaml:5:23: error: found 6 positions per context rank (seq 12 / context 2) with "
            "sequence_parallel over tensor 4; expected a multiple of tensor (each rank keeps "
            "seq/context/tensor positions)"},
        Bad{"Unfused", cp_scenario("{data: 4, context: 2}", ", attention: unfused"),
            "c.yaml:5:21: error: found context 2 with attention unfused; expected attention: flash "
            "(Transformer Engine runs context parallelism in its fused attention only)"},
        Bad{"WithExperts",
            cp_scenario("{data: 4, context: 2, expert: 2}", ", attention: flash, mlp: swiglu, moe: {experts: 4, top_k: 1}"),
            "c.yaml:5:21: error: found context 2 with expert 2; expected expert 1 with context "
            "parallelism (Megatron-Core folds context into the expert-data group; not modelled "
            "yet)"},
        Bad{"MlpModel",
            "topology: {preset: cpu-host, devices: 4}\n"
            "model:\n"
            "  mlp: {batch: 8, widths: [16, 16]}\n"
            "strategy: {data: 2, context: 2}\n",
            "c.yaml:4:21: error: found context 2 with an mlp model; expected context 1 (context "
            "parallelism splits a transformer's sequence)"}),
    [](const ::testing::TestParamInfo<Bad>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace brigade
