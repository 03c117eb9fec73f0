// Plans that cannot be: lower() refuses them with check_plan's one-line
// message (or the scenario reader's, for a placement on a device that does
// not exist), position included. Issue 4's "Bad input" list, end to end
// from YAML text.
#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "planner/lower.hpp"

namespace brigade::planner {
namespace {

struct BadPlan {
  const char* name;
  const char* yaml;
  const char* message;
};

std::string first_error(const BadPlan& c) {
  auto s = parse_scenario(c.yaml, "bad.yaml");
  if (!s.is_ok()) return s.message();
  auto p = lower(*s);
  return p.is_ok() ? "lowered without error" : p.message();
}

class BadPlans : public ::testing::TestWithParam<BadPlan> {};

TEST_P(BadPlans, ExactMessage) {
  EXPECT_EQ(first_error(GetParam()), GetParam().message);
}

const BadPlan kCases[] = {
    {"batch_not_divisible_by_data",
     "name: bad\n"
     "topology: {preset: dgx-a100, nodes: 16}\n"
     "model:\n"
     "  transformer: {layers: 40, hidden: 5120, heads: 40, seq: 2048, vocab: 51200}\n"
     "training: {global_batch: 1000}\n"
     "strategy: {data: 16, tensor: 8}\n",
     "bad.yaml:5:12: error: found batch 1000 over 16 data-parallel devices; expected a multiple "
     "of 16, such as 992 or 1008"},
    {"micro_batch_not_dividing_the_replica_batch",
     "name: bad\n"
     "topology: {preset: dgx-a100, nodes: 16}\n"
     "model:\n"
     "  transformer: {layers: 40, hidden: 5120, heads: 40, seq: 2048, vocab: 51200}\n"
     "training: {global_batch: 1024, micro_batch: 3}\n"
     "strategy: {data: 16, tensor: 8}\n",
     "bad.yaml:5:32: error: found micro_batch 3; expected a divisor of the per-replica batch 64 "
     "(global batch 1024 / data 16)"},
    {"heads_not_divisible_by_tensor",
     "name: bad\n"
     "topology: {preset: dgx-a100, nodes: 2}\n"
     "model:\n"
     "  transformer: {layers: 40, hidden: 5120, heads: 40, seq: 2048, vocab: 51200}\n"
     "training: {global_batch: 1024}\n"
     "strategy: {data: 1, tensor: 16}\n",
     "bad.yaml:6:21: error: found tensor 16 with heads 40; expected tensor to divide heads (each "
     "tensor-parallel rank holds heads/tensor attention heads)"},
    {"layers_not_divisible_by_pipeline",
     "name: bad\n"
     "topology: {preset: dgx-a100, nodes: 2}\n"
     "model:\n"
     "  transformer: {layers: 40, hidden: 5120, heads: 40, seq: 2048, vocab: 51200}\n"
     "training: {global_batch: 1024}\n"
     "strategy: {data: 2, tensor: 8, pipeline: 3}\n",
     "bad.yaml:6:32: error: found 40 layers over 3 pipeline stages (pipeline 3 x virtual_stages "
     "1); expected layers divisible by 3"},
    // The seed's story: "128-way data parallel and 8-way tensor parallel" on
    // 16 DGX A100s (128 GPUs) needs 1024 GPUs.
    {"seed_story_128_by_8_on_128_gpus",
     "name: seed-story\n"
     "topology: {preset: dgx-a100, nodes: 16}\n"
     "model:\n"
     "  transformer: {layers: 40, hidden: 5120, heads: 40, seq: 2048, vocab: 51200}\n"
     "training: {global_batch: 1024}\n"
     "strategy: {data: 128, tensor: 8}\n",
     "bad.yaml:6:1: error: found a plan for 1024 devices (data 128 x tensor 8 x pipeline 1); "
     "expected the topology's 128 devices"},
    {"partition_spec_unknown_axis",
     "name: bad\n"
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 1024, f32], w: [1024, 1024, f32]}\n"
     "    ops:\n"
     "      - {name: mm, op: matmul, in: [x, w], out: y}\n"
     "mesh: {shape: [4], axes: [model]}\n"
     "shardings: {w: [modle, null]}\n",
     "bad.yaml:9:13: error: found mesh axis 'modle' in the sharding of 'w'; expected one of model "
     "or null (did you mean 'model'?)"},
    {"partition_spec_axis_twice",
     "name: bad\n"
     "topology: {preset: dgx-a100}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 1024, f32], w: [1024, 1024, f32]}\n"
     "    ops:\n"
     "      - {name: mm, op: matmul, in: [x, w], out: y}\n"
     "mesh: {shape: [2, 4], axes: [data, model]}\n"
     "shardings: {w: [model, model]}\n",
     "bad.yaml:9:13: error: found mesh axis 'model' twice in the sharding of 'w'; expected each "
     "axis at most once"},
    {"pmap_axis_larger_than_devices",
     "name: bad\n"
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [512, 512]}\n"
     "strategy: {data: 4, data_mode: pmap}\n",
     "bad.yaml:4:9: error: found (8, 512) under pmap over 4 devices; expected a leading axis of "
     "4 (pmap maps device i to x[i]): reshape to (4, 2, 512) or use data_mode: batch"},
    {"placement_missing_device",
     "name: bad\n"
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "placement: {mm1: 7}\n",
     "bad.yaml:8:18: error: found device '7'; expected a device index from 0 to 3 or a device "
     "name such as gpu0"},
    {"placement_missing_op",
     "name: bad\n"
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "placement: {mm2: 1}\n",
     "bad.yaml:8:13: error: found op 'mm2' in placement; expected an op of the graph (did you "
     "mean 'mm1'?)"},
};

INSTANTIATE_TEST_SUITE_P(Issue4, BadPlans, ::testing::ValuesIn(kCases),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(BadPlans, ExitKindIsBadInput) {
  auto s = parse_scenario(kCases[4].yaml, "bad.yaml");
  ASSERT_TRUE(s.is_ok());
  auto p = lower(*s);
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.status().kind(), ErrorKind::kBadInput);
}

}  // namespace
}  // namespace brigade::planner
