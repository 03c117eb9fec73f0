// The bundled scenarios (scenarios/*.yaml) lowered from their files.
#include <gtest/gtest.h>

#include <set>

#include "core/scenario.hpp"
#include "planner/lower.hpp"
#include "tests/planner/megatron_table1.hpp"

namespace brigade::planner {
namespace {

Scenario load(const std::string& name) {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + name);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return s.is_ok() ? *s : Scenario{};
}

Plan lower_ok(const Scenario& s) {
  auto p = lower(s);
  EXPECT_TRUE(p.is_ok()) << p.message();
  return p.is_ok() ? std::move(p).value() : Plan{};
}

const TensorView* view_of(const Plan& plan, int device, const std::string& name) {
  const int v = plan.view_of_device[static_cast<size_t>(device)];
  if (v < 0) return nullptr;
  for (const TensorView& t : plan.views[static_cast<size_t>(v)].tensors)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(Scenarios, PmapLinearSplitsTheBatchInBlocksOfTwo) {
  Plan plan = lower_ok(load("pmap_linear.yaml"));
  for (int d = 0; d < 4; ++d) {
    ASSERT_NE(view_of(plan, d, "x"), nullptr);
    EXPECT_EQ(view_of(plan, d, "x")->local_shape, (std::vector<std::int64_t>{2, 16}));
  }
  EXPECT_TRUE(plan.program.collectives().empty());  // inference: nothing to sum
  // 2 * 8 * 16 * 16 FLOP of matmul over the 4 devices.
  EXPECT_DOUBLE_EQ(plan.flops_per_iteration, 2.0 * 8 * 16 * 16);
}

TEST(Scenarios, PmapTrainStepAveragesTheScalarGradient) {
  Plan plan = lower_ok(load("pmap_train_step.yaml"));
  int dp = 0;
  for (const Collective& c : plan.program.collectives()) {
    const auto& stream =
        plan.program.streams()[static_cast<size_t>(plan.program.task(c.tasks[0]).stream)];
    if (stream.name != "dp") continue;
    ++dp;
    EXPECT_DOUBLE_EQ(c.bytes, 4);  // one f32 weight
    EXPECT_EQ(c.group, (std::vector<std::int32_t>{0, 1, 2, 3}));
  }
  EXPECT_EQ(dp, 1);
}

TEST(Scenarios, RingAllReduce8IsOneCollective) {
  Plan plan = lower_ok(load("ring_allreduce_8.yaml"));
  ASSERT_EQ(plan.program.collectives().size(), 1u);
  EXPECT_DOUBLE_EQ(plan.program.collectives()[0].bytes, 1024.0 * 1024 * 1024);
  EXPECT_EQ(plan.program.collectives()[0].group.size(), 8u);
}

TEST(Scenarios, RowShardedMatmulNeedsOnePsum) {
  Plan plan = lower_ok(load("row_sharded_matmul.yaml"));
  ASSERT_EQ(plan.program.collectives().size(), 1u);
  const Collective& c = plan.program.collectives()[0];
  EXPECT_EQ(c.kind, CollectiveKind::kAllReduce);
  EXPECT_DOUBLE_EQ(c.bytes, 8.0 * 1024 * 4);
  EXPECT_EQ(c.reason,
            "psum over 'model': the contracted dimension (size 1024) of mm is split over 'model', "
            "so each device holds a partial sum (y = sum_k x_k W_k)");
  EXPECT_EQ(view_of(plan, 1, "w")->local_shape, (std::vector<std::int64_t>{256, 1024}));
  EXPECT_EQ(view_of(plan, 1, "x")->local_shape, (std::vector<std::int64_t>{8, 256}));
}

TEST(Scenarios, ManualTwoChefsHasOneTransfer) {
  Plan plan = lower_ok(load("manual_two_chefs.yaml"));
  int transfers = 0;
  for (const Task& t : plan.program.tasks())
    if (t.kind == TaskKind::kTransfer) {
      ++transfers;
      EXPECT_EQ(t.device, 0);
      EXPECT_EQ(t.peer, 1);
      EXPECT_DOUBLE_EQ(t.bytes, 8.0 * 2048 * 4);
    }
  EXPECT_EQ(transfers, 1);
}

TEST(Scenarios, ShardedMlpPsumsOverModelOncePerDataRow) {
  Plan plan = lower_ok(load("sharded_mlp.yaml"));
  ASSERT_EQ(plan.program.collectives().size(), 2u);
  for (const Collective& c : plan.program.collectives()) {
    EXPECT_EQ(c.group.size(), 4u);
    EXPECT_DOUBLE_EQ(c.bytes, 16.0 * 4096 * 2);  // y: (32/2, 4096) bf16
  }
}

TEST(Scenarios, RiskInferenceSplitsTenThousandRows) {
  Plan plan = lower_ok(load("risk_inference.yaml"));
  EXPECT_EQ(view_of(plan, 3, "x")->local_shape, (std::vector<std::int64_t>{2500, 256}));
  EXPECT_TRUE(plan.program.collectives().empty());
}

TEST(Scenarios, Llm13bOnTensorGroupsInsideNodes) {
  const Scenario s = load("llm_13b_128gpu.yaml");
  // Step granularity keeps the test fast; FLOPs and groups are the same at
  // every granularity.
  LowerOptions step;
  step.granularity = Granularity::kStep;
  auto lowered = lower(s, step);
  ASSERT_TRUE(lowered.is_ok()) << lowered.message();
  const Plan& plan = *lowered;
  // Selective recomputation: 72 B s l h^2 (1 + s/(6h) + V/(12lh)) + 4 B s^2 l h.
  const double B = 1024, sq = 2048, l = 40, h = 5120, V = 51200;
  EXPECT_NEAR(plan.program.total_flops() /
                  (testing::megatron_eq3_no_recompute(B, sq, l, h, V) + 4 * B * sq * sq * l * h),
              1.0, 1e-9);
  // Every tensor-parallel group lies inside one node.
  for (const Collective& c : plan.program.collectives()) {
    if (c.group.size() != 8 ||
        plan.program.streams()[static_cast<size_t>(plan.program.task(c.tasks[0]).stream)].name !=
            "compute")
      continue;
    std::set<int> nodes;
    for (int d : c.group) nodes.insert(s.topology.device(d).node);
    EXPECT_EQ(nodes.size(), 1u);
  }
}

}  // namespace
}  // namespace brigade::planner
