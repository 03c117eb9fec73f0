#include <gtest/gtest.h>

#include "planner/builders.hpp"
#include "planner/graph_ir.hpp"
#include "planner/lower.hpp"
#include "tests/planner/scenario_fixtures.hpp"

namespace brigade::planner {
namespace {

using testing::graph_scenario;
using testing::two_chef_graph;

Plan lower_ok(const Scenario& s) {
  auto p = lower(s);
  EXPECT_TRUE(p.is_ok()) << p.message();
  return p.is_ok() ? std::move(p).value() : Plan{};
}

std::string stream_name(const Program& p, TaskId t) {
  return p.streams()[static_cast<size_t>(p.task(t).stream)].name;
}

const TensorView* view_of(const Plan& plan, int device, const std::string& name) {
  const int v = plan.view_of_device[static_cast<size_t>(device)];
  if (v < 0) return nullptr;
  for (const TensorView& t : plan.views[static_cast<size_t>(v)].tensors)
    if (t.name == name) return &t;
  return nullptr;
}

TaskId find_task(const Program& p, int device, const std::string& name) {
  for (TaskId t = 0; t < p.num_tasks(); ++t)
    if (p.task(t).device == device && p.task_name(t) == name) return t;
  return -1;
}

// x (8, 512) times w (512, 256) -> y.
Model one_matmul() {
  Model m;
  TensorSpec x, w, y;
  x.name = "x";
  x.shape = {8, 512};
  w.name = "w";
  w.shape = {512, 256};
  w.is_parameter = true;
  y.name = "y";
  y.shape_given = false;  // inferred: (8, 256)
  m.tensors = {x, w, y};
  Op op;
  op.name = "mm1";
  op.kind = OpKind::kMatmul;
  op.inputs = {0, 1};
  op.outputs = {2};
  m.ops = {op};
  return m;
}

// ---- JAX-style shardings ----------------------------------------------------------

TEST(LowerGraph, RowShardedMatmulInsertsOnePsumWithItsReason) {
  Scenario s = graph_scenario(one_matmul(), "pcie-4gpu");
  s.training.inference = true;
  s.mesh = MeshSpec{{4}, {"model"}};
  s.shardings["w"] = {"model", ""};
  Plan plan = lower_ok(s);
  const Program& p = plan.program;
  ASSERT_EQ(p.collectives().size(), 1u);
  const Collective& c = p.collectives()[0];
  EXPECT_EQ(c.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(c.group, (std::vector<std::int32_t>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(c.bytes, 8.0 * 256 * 4);  // y (8, 256) f32 on each device
  EXPECT_EQ(c.reason,
            "psum over 'model': the contracted dimension (size 512) of mm1 is split over "
            "'model', so each device holds a partial sum (y = sum_k x_k W_k)");
  // Each device multiplies x[:, 128k:128(k+1)] by W[128k:128(k+1), :].
  const TaskId mm = find_task(p, 2, "mm1");
  ASSERT_GE(mm, 0);
  EXPECT_EQ(p.task(mm).m, 8);
  EXPECT_EQ(p.task(mm).n, 256);
  EXPECT_EQ(p.task(mm).k, 128);
  EXPECT_EQ(view_of(plan, 1, "w")->local_shape, (std::vector<std::int64_t>{128, 256}));
}

TEST(LowerGraph, ColumnShardedMatmulWantedWholeNeedsAnAllGather) {
  Scenario s = graph_scenario(one_matmul(), "pcie-4gpu");
  s.training.inference = true;
  s.mesh = MeshSpec{{4}, {"model"}};
  s.shardings["w"] = {"", "model"};
  s.shardings["y"] = {"", ""};
  Plan plan = lower_ok(s);
  ASSERT_EQ(plan.program.collectives().size(), 1u);
  const Collective& c = plan.program.collectives()[0];
  EXPECT_EQ(c.kind, CollectiveKind::kAllGather);
  EXPECT_DOUBLE_EQ(c.bytes, 8.0 * 256 * 4);  // the gathered (8, 256)
  EXPECT_EQ(c.reason, "all_gather over 'model' (dimension 1): y is wanted as (None, None)");
}

TEST(LowerGraph, ShardedMlpOnATwoByFourMesh) {
  // DESIGN.md's sharded-mlp: mesh (data 2, model 4); x split by rows over
  // 'data', w1 by columns and w2 by rows over 'model' (Megatron's pair).
  Scenario s = graph_scenario(testing::two_chef_graph(), "dgx-a100");
  s.training.inference = true;
  s.mesh = MeshSpec{{2, 4}, {"data", "model"}};
  s.shardings["x"] = {"data", ""};
  s.shardings["w1"] = {"", "model"};
  s.shardings["w2"] = {"model", ""};
  Plan plan = lower_ok(s);
  ASSERT_EQ(plan.program.collectives().size(), 2u);  // one per 'data' row of the mesh
  for (const Collective& c : plan.program.collectives()) {
    EXPECT_EQ(c.kind, CollectiveKind::kAllReduce);
    EXPECT_EQ(c.group.size(), 4u);
    EXPECT_DOUBLE_EQ(c.bytes, 4.0 * 512 * 4);  // y: (8/2, 512) f32
    EXPECT_EQ(c.reason.rfind("psum over 'model': the contracted dimension (size 2048) of mm2", 0),
              0u);
  }
  EXPECT_EQ(view_of(plan, 5, "x")->local_shape, (std::vector<std::int64_t>{4, 512}));
  EXPECT_EQ(view_of(plan, 5, "w1")->local_shape, (std::vector<std::int64_t>{512, 512}));
  EXPECT_EQ(view_of(plan, 5, "h")->local_shape, (std::vector<std::int64_t>{4, 512}));
  EXPECT_EQ(view_of(plan, 5, "w2")->local_shape, (std::vector<std::int64_t>{512, 512}));
  EXPECT_EQ(view_of(plan, 5, "h")->sharding, "('data', 'model')");
}

TEST(LowerGraph, TrainingOnAMeshReducesGradientsOverData) {
  // The same mesh in training: w1's and w2's gradients sum over the batch
  // rows split over 'data' (psum on the dp stream, one bucket per mesh
  // column), and the backward of the row-sharded mm2 needs no psum over
  // 'model' while its input gradient stays split by columns.
  Scenario s = graph_scenario(testing::two_chef_graph(), "dgx-a100");
  s.mesh = MeshSpec{{2, 4}, {"data", "model"}};
  s.shardings["x"] = {"data", ""};
  s.shardings["w1"] = {"", "model"};
  s.shardings["w2"] = {"model", ""};
  Plan plan = lower_ok(s);
  const Program& p = plan.program;
  int dp = 0, model_psums = 0;
  for (const Collective& c : p.collectives()) {
    const std::string stream = p.streams()[static_cast<size_t>(p.task(c.tasks[0]).stream)].name;
    if (stream == "dp") {
      ++dp;
      EXPECT_EQ(c.group.size(), 2u);  // the 'data' axis
      // w1 (512, 2048/4) + w2 (2048/4, 512), f32.
      EXPECT_DOUBLE_EQ(c.bytes, 2 * 512.0 * 512 * 4);
    } else {
      model_psums += c.group.size() == 4u;
    }
  }
  EXPECT_EQ(dp, 4);           // one bucket per 'data' group, 4 groups
  EXPECT_EQ(model_psums, 2);  // the forward psum of mm2 only
}

// ---- data parallel: batch sharding vs pmap ---------------------------------------

Scenario seed_mlp(int devices, std::int64_t batch) {
  Scenario s;
  s.name = "pmap-linear";
  auto t = make_preset("cpu-host", 1, devices);
  EXPECT_TRUE(t.is_ok());
  s.topology = *t;
  s.model_kind = ModelKind::kMlp;
  s.mlp.batch = batch;
  s.mlp.widths = {512, 512};
  s.strategy.data = devices;
  s.has_strategy = true;
  return s;
}

TEST(LowerGraph, BatchShardingSplitsRowsIntoBlocks) {
  // The seed's (8, 512) on 4 devices: batch sharding gives (2, 512) each.
  Plan plan = lower_ok(seed_mlp(4, 8));
  for (int d = 0; d < 4; ++d)
    EXPECT_EQ(view_of(plan, d, "x")->local_shape, (std::vector<std::int64_t>{2, 512}));
  bool named = false;
  for (const std::string& n : plan.notes) named |= n.rfind("batch sharding", 0) == 0;
  EXPECT_TRUE(named);
}

TEST(LowerGraph, DataParallelGradientsArePsummedInOneBucketOnDp) {
  Plan plan = lower_ok(seed_mlp(4, 8));
  const Program& p = plan.program;
  int dp = 0;
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    if (p.task(t).kind != TaskKind::kCollective || p.task(t).device != 0) continue;
    const Collective& c = p.collectives()[static_cast<size_t>(p.task(t).collective)];
    if (stream_name(p, t) == "dp") {
      ++dp;
      // w1 (512, 512) and b1 (512,) f32 gradients in one bucket.
      EXPECT_DOUBLE_EQ(c.bytes, (512.0 * 512 + 512) * 4);
      EXPECT_EQ(c.group, (std::vector<std::int32_t>{0, 1, 2, 3}));
      // It waits for the weight-gradient GEMM.
      ASSERT_EQ(p.deps(t).size(), 1u);
      EXPECT_EQ(p.task(p.deps(t)[0]).phase, Phase::kBackward);
    } else {
      // The loss sums over the batch rows split over 'data'.
      EXPECT_EQ(c.reason.rfind("psum over 'data': the loss 'loss' sums over every element", 0), 0u)
          << c.reason;
    }
  }
  EXPECT_EQ(dp, 1);
}

TEST(LowerGraph, PmapMapsTheLeadingAxis) {
  // pmap proper over (4, 512) on 4 devices: device i gets x[i], (512,).
  Scenario s = seed_mlp(4, 4);
  s.strategy.data_mode = DataMode::kPmap;
  Plan plan = lower_ok(s);
  EXPECT_EQ(view_of(plan, 3, "x")->local_shape, (std::vector<std::int64_t>{512}));
  bool named = false;
  for (const std::string& n : plan.notes) named |= n.rfind("pmap proper", 0) == 0;
  EXPECT_TRUE(named);
}

TEST(LowerGraph, PmapOfTheSeedsBatchNeedsAReshape) {
  // The seed's (8, 512) on 4 devices under pmap proper: check_plan says
  // what would work.
  Scenario s = seed_mlp(4, 8);
  s.strategy.data_mode = DataMode::kPmap;
  auto p = lower(s);
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.message(),
            "error: found (8, 512) under pmap over 4 devices; expected a leading axis of 4 (pmap "
            "maps device i to x[i]): reshape to (4, 2, 512) or use data_mode: batch");
}

TEST(LowerGraph, ZeroShardsADataParallelMlp) {
  // (8, 512) over 4 devices, one 512x512 layer with bias, f32 Adam (no
  // mixed precision for f32 weights): 262,656 parameters, 8 B of Adam
  // state each, /4 under ZeRO; gradients /4 under ZeRO-2.
  const double P = 512.0 * 512 + 512;
  for (int zero : {1, 2}) {
    Scenario s = seed_mlp(4, 8);
    s.strategy.zero = zero;
    Plan plan = lower_ok(s);
    const Program& p = plan.program;
    double opt = 0, grads = 0;
    for (const Buffer& b : p.buffers()) {
      if (b.device != 0 || !b.resident) continue;
      if (b.category == MemoryCategory::kOptimizer) opt += b.bytes;
      if (b.category == MemoryCategory::kGrads) grads += b.bytes;
    }
    EXPECT_DOUBLE_EQ(opt, 8 * P / 4);
    EXPECT_DOUBLE_EQ(grads, 4 * P / (zero == 2 ? 4 : 1));
    // The gradient bucket is reduce-scattered, the new weights gathered
    // after the optimizer step.
    int rs = 0, ag = 0;
    for (const Collective& c : p.collectives()) {
      if (c.kind == CollectiveKind::kReduceScatter) {
        ++rs;
        EXPECT_DOUBLE_EQ(c.bytes, 4 * P);
      }
      if (c.kind == CollectiveKind::kAllGather) {
        ++ag;
        EXPECT_DOUBLE_EQ(c.bytes, 4 * P);
        const TaskId t = c.tasks[0];
        ASSERT_EQ(p.deps(t).size(), 1u);
        EXPECT_EQ(p.task(p.deps(t)[0]).phase, Phase::kOptimizer);
      }
      if (c.kind == CollectiveKind::kAllReduce) {
        EXPECT_DOUBLE_EQ(c.bytes, 4);  // only the loss, an f32 scalar
      }
    }
    EXPECT_EQ(rs, 1);
    EXPECT_EQ(ag, 1);
  }
}

TEST(LowerGraph, ZeroThreeIsForTransformers) {
  Scenario s = seed_mlp(4, 8);
  s.strategy.zero = 3;
  auto p = lower(s);
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.status().kind(), ErrorKind::kUnsupported);
  EXPECT_EQ(p.message(),
            "error: found zero 3 with an mlp model; expected zero 0, 1 or 2 under batch sharding "
            "(ZeRO-3 is planned for transformer models only)");
}

// ---- manual placement ---------------------------------------------------------------

TEST(LowerGraph, ManualPlacementInsertsExactlyTheCrossingTransfer) {
  // DESIGN.md's manual-two-chefs: mm1 and act on device 0, mm2 on device 1;
  // only the edge a -> mm2 crosses devices.
  Scenario s = graph_scenario(two_chef_graph(), "pcie-4gpu");
  s.training.inference = true;
  s.placement = {{"mm1", 0}, {"act", 0}, {"mm2", 1}};
  Plan plan = lower_ok(s);
  const Program& p = plan.program;
  std::vector<TaskId> transfers;
  for (TaskId t = 0; t < p.num_tasks(); ++t)
    if (p.task(t).kind == TaskKind::kTransfer) transfers.push_back(t);
  ASSERT_EQ(transfers.size(), 1u);
  const Task& x = p.task(transfers[0]);
  EXPECT_EQ(x.device, 0);
  EXPECT_EQ(x.peer, 1);
  EXPECT_DOUBLE_EQ(x.bytes, 8.0 * 2048 * 4);  // a: (8, 2048) f32
  EXPECT_EQ(stream_name(p, transfers[0]), "xfer");
  const TaskId mm2 = find_task(p, 1, "mm2");
  ASSERT_GE(mm2, 0);
  ASSERT_EQ(p.deps(mm2).size(), 1u);
  EXPECT_EQ(p.deps(mm2)[0], transfers[0]);
  EXPECT_EQ(p.task(transfers[0]).kind, TaskKind::kTransfer);
  // The transfer waits for the producer of a.
  ASSERT_EQ(p.deps(transfers[0]).size(), 1u);
  EXPECT_EQ(p.deps(transfers[0])[0], find_task(p, 0, "act"));
  EXPECT_TRUE(p.collectives().empty());
}

TEST(LowerGraph, ManualPlacementTrainingSendsTheGradientBack) {
  Scenario s = graph_scenario(two_chef_graph(), "pcie-4gpu");
  s.placement = {{"mm1", 0}, {"act", 0}, {"mm2", 1}};
  Plan plan = lower_ok(s);
  const Program& p = plan.program;
  std::vector<std::pair<int, int>> edges;
  for (const Task& t : p.tasks())
    if (t.kind == TaskKind::kTransfer) edges.emplace_back(t.device, t.peer);
  // Forward a: 0 -> 1; backward da: 1 -> 0 (act's backward runs on device 0).
  EXPECT_EQ(edges, (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}}));
  // Each weight's optimizer step runs where the weight lives.
  EXPECT_GE(find_task(p, 0, "optimizer.w1"), 0);
  EXPECT_GE(find_task(p, 1, "optimizer.w2"), 0);
}

TEST(LowerGraph, DevicePutOfAnInputAddsItsTransfer) {
  Scenario s = graph_scenario(two_chef_graph(), "pcie-4gpu");
  s.training.inference = true;
  s.placement = {{"mm1", 0}, {"act", 0}, {"mm2", 1}};
  s.device_put = {{"x", 2}};
  Plan plan = lower_ok(s);
  std::vector<std::pair<int, int>> edges;
  for (const Task& t : plan.program.tasks())
    if (t.kind == TaskKind::kTransfer) edges.emplace_back(t.device, t.peer);
  EXPECT_EQ(edges, (std::vector<std::pair<int, int>>{{2, 0}, {0, 1}}));
}

TEST(LowerGraph, UnplacedOpsFollowTheirData) {
  Scenario s = graph_scenario(two_chef_graph(), "pcie-4gpu");
  s.training.inference = true;
  s.placement = {{"mm1", 3}};
  Plan plan = lower_ok(s);
  EXPECT_GE(find_task(plan.program, 3, "act"), 0);
  EXPECT_GE(find_task(plan.program, 3, "mm2"), 0);
  for (const Task& t : plan.program.tasks()) EXPECT_NE(t.kind, TaskKind::kTransfer);
}

// ---- MLP builder --------------------------------------------------------------------

TEST(MlpBuilder, TrainingFlopsAreForwardPlusTwoBackwardGemmsButNoInputGradient) {
  // widths 16-32-8, batch 4: forward 2*4*(16*32 + 32*8) = 6144; backward:
  // wgrads 6144, dgrad of layer 2 only (x needs none): 2*4*32*8 = 2048.
  MlpSpec spec;
  spec.batch = 4;
  spec.widths = {16, 32, 8};
  auto m = build_mlp_model(spec, true, Optimizer::kAdam);
  ASSERT_TRUE(m.is_ok()) << m.message();
  EXPECT_DOUBLE_EQ(m->total_flops(), 6144.0 + 6144 + 2048);
  EXPECT_DOUBLE_EQ(m->parameter_count(), 16.0 * 32 + 32 + 32 * 8 + 8);
  int opt = 0;
  for (const Op& o : m->ops) opt += o.phase == Phase::kOptimizer;
  EXPECT_EQ(opt, 4);  // w1, b1, w2, b2
}

// ---- model: collective ---------------------------------------------------------------

TEST(LowerCollective, OneCollectiveOverItsGroup) {
  Scenario s;
  s.name = "ring-allreduce-8";
  s.topology = testing::dgx_nodes(1);
  s.model_kind = ModelKind::kCollective;
  s.collective.bytes = 1 << 20;
  Plan plan = lower_ok(s);
  ASSERT_EQ(plan.program.collectives().size(), 1u);
  const Collective& c = plan.program.collectives()[0];
  EXPECT_EQ(c.group.size(), 8u);
  EXPECT_EQ(c.kind, CollectiveKind::kAllReduce);
  EXPECT_DOUBLE_EQ(c.bytes, 1 << 20);
  EXPECT_EQ(plan.program.num_tasks(), 8);
}

}  // namespace
}  // namespace brigade::planner
