// The plan judge's memo and per-stage memory (issue 16's speed work) change
// no number: estimate_plan gives the same figures, bit for bit, with a memo
// installed or not, and with memory per stage or per device.
#include "costmodel/plan_memo.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/topology_stats.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/plan.hpp"

namespace brigade::cost {
namespace {

Scenario gpt3() {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/gpt3_175b_1024.yaml");
  EXPECT_TRUE(s.is_ok()) << s.message();
  return std::move(s).value();
}

struct Plan {
  int t, p, d, zero;
  bool sp;
  std::int64_t micro;
  PipelineSchedule schedule;
  int v;
  Recompute rec;
  std::vector<std::string> order;
  double bucket;
};

// Plans of GPT-3 175B on 1024 GPUs across the keys the search varies.
std::vector<Plan> plans() {
  return {
      {8, 16, 8, 1, false, 1, PipelineSchedule::k1F1B, 1, Recompute::kSelective, {"tensor", "data", "pipeline"}, 25e6},
      {8, 16, 8, 3, true, 2, PipelineSchedule::kInterleaved, 3, Recompute::kFull, {"tensor", "pipeline", "data"}, 100e6},
      {4, 8, 32, 2, true, 2, PipelineSchedule::kInterleaved, 12, Recompute::kSelective, {"data", "tensor", "pipeline"}, 500e6},
      {8, 1, 128, 0, true, 6, PipelineSchedule::k1F1B, 1, Recompute::kNone, {"pipeline", "data", "tensor"}, 25e6},
      {16, 32, 2, 1, false, 4, PipelineSchedule::kGpipe, 1, Recompute::kFull, {"pipeline", "tensor", "data"}, 25e6},
      {2, 2, 256, 3, true, 1, PipelineSchedule::k1F1B, 1, Recompute::kFull, {"data", "pipeline", "tensor"}, 100e6},
  };
}

void apply(const Plan& x, Scenario& s) {
  s.strategy.tensor = x.t;
  s.strategy.pipeline = x.p;
  s.strategy.data = x.d;
  s.strategy.zero = x.zero;
  s.strategy.sequence_parallel = x.sp;
  s.strategy.schedule = x.schedule;
  s.strategy.virtual_stages = x.v;
  s.strategy.rank_order = x.order;
  s.strategy.bucket_bytes = x.bucket;
  s.training.micro_batch = x.micro;
  s.training.recompute = x.rec;
}

void expect_same(const PlanEstimate& a, const PlanEstimate& b, bool memory_per_device) {
  EXPECT_EQ(a.step_seconds, b.step_seconds);
  EXPECT_EQ(a.compute_seconds, b.compute_seconds);
  EXPECT_EQ(a.bubble_seconds, b.bubble_seconds);
  EXPECT_EQ(a.exposed_communication_seconds, b.exposed_communication_seconds);
  EXPECT_EQ(a.optimizer_seconds, b.optimizer_seconds);
  EXPECT_EQ(a.mfu, b.mfu);
  EXPECT_EQ(a.hfu, b.hfu);
  EXPECT_EQ(a.parameters, b.parameters);
  EXPECT_EQ(a.communication_device, b.communication_device);
  auto same_comm = [](const std::vector<CommunicationEstimate>& x, const std::vector<CommunicationEstimate>& y) {
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(x[i].purpose, y[i].purpose);
      EXPECT_EQ(x[i].kind, y[i].kind);
      EXPECT_EQ(x[i].group_size, y[i].group_size);
      EXPECT_EQ(x[i].count, y[i].count);
      EXPECT_EQ(x[i].bytes, y[i].bytes);
      EXPECT_EQ(x[i].seconds, y[i].seconds);
      EXPECT_EQ(x[i].exposed_seconds, y[i].exposed_seconds);
    }
  };
  same_comm(a.communication, b.communication);
  ASSERT_EQ(a.stage_communication.size(), b.stage_communication.size());
  for (size_t i = 0; i < a.stage_communication.size(); ++i) same_comm(a.stage_communication[i], b.stage_communication[i]);
  double pa = 0, pb = 0;
  bool fa = true, fb = true;
  for (const auto& m : a.memory) pa = std::max(pa, m.peak_bytes), fa = fa && m.fits;
  for (const auto& m : b.memory) pb = std::max(pb, m.peak_bytes), fb = fb && m.fits;
  EXPECT_EQ(pa, pb);
  EXPECT_EQ(fa, fb);
  if (memory_per_device) {
    ASSERT_EQ(a.memory.size(), b.memory.size());
    for (size_t i = 0; i < a.memory.size(); ++i) {
      EXPECT_EQ(a.memory[i].device, b.memory[i].device);
      EXPECT_EQ(a.memory[i].stage, b.memory[i].stage);
      EXPECT_EQ(a.memory[i].params_bytes, b.memory[i].params_bytes);
      EXPECT_EQ(a.memory[i].grads_bytes, b.memory[i].grads_bytes);
      EXPECT_EQ(a.memory[i].optimizer_bytes, b.memory[i].optimizer_bytes);
      EXPECT_EQ(a.memory[i].activations_bytes, b.memory[i].activations_bytes);
      EXPECT_EQ(a.memory[i].peak_bytes, b.memory[i].peak_bytes);
      EXPECT_EQ(a.memory[i].fits, b.memory[i].fits);
    }
  }
}

TEST(PlanMemo, SameFiguresWithAndWithoutTheMemo) {
  Scenario s = gpt3();
  PlanMemo memo(s.topology, s.profile);
  for (int round = 0; round < 2; ++round)  // the second round answers from the memo
    for (const Plan& x : plans()) {
      apply(x, s);
      auto plain = estimate_plan(s);
      ASSERT_TRUE(plain.is_ok()) << plain.message();
      ScopedPlanMemo use(memo);
      auto memoised = estimate_plan(s);
      ASSERT_TRUE(memoised.is_ok()) << memoised.message();
      expect_same(*plain, *memoised, true);
      EXPECT_EQ(plain->notes, memoised->notes);
    }
  EXPECT_GT(memo.hits(), 0u);
}

// The judges' semantics that reach the closed form (issue 18): devices of
// another speed (simulation.speed) and inference change the figures; the memo
// still changes none of them.
TEST(PlanMemo, SameFiguresWithSlowDevicesAndInInference) {
  Scenario s = gpt3();
  PlanMemo memo(s.topology, s.profile);
  for (bool inference : {false, true})
    for (const Plan& x : plans()) {
      apply(x, s);
      s.training.inference = inference;
      s.simulation.speed = {{3, 0.5}, {700, 0.8}};
      auto plain = estimate_plan(s);
      ASSERT_TRUE(plain.is_ok()) << plain.message();
      ScopedPlanMemo use(memo);
      auto memoised = estimate_plan(s);
      ASSERT_TRUE(memoised.is_ok()) << memoised.message();
      expect_same(*plain, *memoised, true);
      EXPECT_EQ(plain->notes, memoised->notes);
    }
}

TEST(PlanMemo, PerStageMemoryKeepsEveryFigureButTheList) {
  Scenario s = gpt3();
  EstimateOptions lean;
  lean.every_device = false;
  for (const Plan& x : plans()) {
    apply(x, s);
    auto full = estimate_plan(s);
    auto per_stage = estimate_plan(s, lean);
    ASSERT_TRUE(full.is_ok() && per_stage.is_ok());
    expect_same(*full, *per_stage, false);
    EXPECT_EQ(per_stage->memory.size(), static_cast<size_t>(x.p));  // identical devices: one per stage
    EXPECT_TRUE(per_stage->notes.empty());
    EXPECT_EQ(full->memory.size(), 1024u);
  }
}

// Without the communication lists (what the search's inner loop asks for)
// every other figure is the same, with or without a memo, and across plans
// that reuse the memo's gradient buckets.
TEST(PlanMemo, NoCommunicationListsKeepsEveryOtherFigure) {
  Scenario s = gpt3();
  EstimateOptions bare;
  bare.every_device = false;
  bare.communication = false;
  PlanMemo memo(s.topology, s.profile);
  for (int round = 0; round < 2; ++round)
    for (const Plan& x : plans()) {
      apply(x, s);
      auto full = estimate_plan(s);
      ASSERT_TRUE(full.is_ok()) << full.message();
      ScopedPlanMemo use(memo);
      auto lean = estimate_plan(s, bare);
      ASSERT_TRUE(lean.is_ok()) << lean.message();
      EXPECT_TRUE(lean->communication.empty());
      EXPECT_TRUE(lean->stage_communication.empty());
      PlanEstimate without = *full;
      without.communication.clear();
      without.stage_communication.clear();
      expect_same(without, *lean, false);
    }
}

// A group given as an arithmetic progression (first, stride, size) has the
// handle of the same group written out, and finds what was stored for it;
// handles name price classes, so groups alike on identical nodes share one.
TEST(PlanMemo, ProgressionHandlesAreTheGroupsHandles) {
  Scenario s = gpt3();
  PlanMemo memo(s.topology, s.profile);
  const std::vector<int> group = {8, 16, 24, 32};
  memo.store_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto, group, 1e6, 0.25);
  const int h = memo.group_handle(8, 8, 4);
  EXPECT_EQ(h, memo.group_handle(group));
  EXPECT_EQ(memo.find_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto, h, 1e6), 0.25);
  EXPECT_FALSE(memo.find_collective(CollectiveKind::kAllGather, CollectiveAlgorithm::kAuto, h, 1e6));
  EXPECT_FALSE(memo.find_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto, h, 2e6));
  EXPECT_NE(memo.group_handle(8, 8, 3), h);  // three ranks
  EXPECT_NE(memo.group_handle(8, 1, 4), h);  // four ranks of one node
  // 128 identical DGX A100 nodes: one node on, the same group.
  EXPECT_EQ(memo.group_handle(0, 8, 4), h);
  EXPECT_EQ(memo.find_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto,
                                 memo.group_handle(992, 8, 4), 1e6),
            0.25);
  // A group that is no progression is kept by content, with the handle of
  // the groups alike: three ranks of one node behind its NVSwitch.
  const std::vector<int> other = {0, 1, 3};
  EXPECT_EQ(memo.group_handle(other), memo.group_handle(0, 1, 3));
  EXPECT_EQ(memo.group_handle(other), memo.group_handle(std::vector<int>{40, 41, 43}));
  EXPECT_EQ(memo.group_handle(std::vector<int>{0, 0}), -1);        // a device twice
  EXPECT_EQ(memo.group_handle(std::vector<int>{1023, 1024}), -1);  // out of range
  // Many groups: the table grows and keeps them all (pairs of ranks 3
  // apart: inside a node, or across two).
  std::vector<int> handles;
  for (int first = 0; first < 5000; ++first)
    handles.push_back(memo.group_handle(first % 1021, 3, 2));
  for (int first = 0; first < 5000; ++first)
    EXPECT_EQ(memo.group_handle(std::vector<int>{first % 1021, first % 1021 + 3}),
              handles[static_cast<size_t>(first)]);
  EXPECT_EQ(handles[0], handles[8]);  // 0-3, 8-11: in a node
  EXPECT_NE(handles[0], handles[5]);  // 5-8: across two
  EXPECT_EQ(handles[5], handles[13]);
}

// Four DGX H100 nodes made uneven: node 2's NVLink at half bandwidth, node
// 3's GPUs another model (the A100's profile), device 13's NIC at a quarter.
Topology uneven_cluster() {
  auto base = make_preset("dgx-h100", 4);
  EXPECT_TRUE(base.is_ok()) << base.message();
  Topology t;
  t.preset = "custom";
  for (Device d : base->devices()) {
    if (d.node == 3) d.model = "NVIDIA A100-SXM4-80GB";
    t.add_device(d);
  }
  for (const Switch& sw : base->switches()) t.add_switch(sw);
  const int n = base->num_devices();
  auto node_of = [&](int v) { return v < n ? base->device(v).node : -1; };
  for (Link l : base->links()) {
    if (l.link_class == LinkClass::kNvlink && (node_of(l.a) == 2 || node_of(l.b) == 2))
      l.bandwidth_bytes_per_second /= 2;
    if (l.link_class != LinkClass::kNvlink && (l.a == 13 || l.b == 13))
      l.bandwidth_bytes_per_second /= 4;
    t.add_link(l);
  }
  EXPECT_TRUE(t.validate().is_ok());
  return t;
}

// collective_group_signature's promise: groups with one signature get the
// same time for every collective (kind, algorithm, size), bit for bit, or
// are refused alike; checked on every progression of 2, 3, 4 and 8 ranks
// (strides 1, 2, 3, 4, 8) and a few other groups of an uneven cluster,
// under NCCL's model and the alpha-beta model. The uneven parts make
// classes of their own.
TEST(PlanMemo, SignatureClassesPriceAlike) {
  const Topology topo = uneven_cluster();
  std::vector<std::vector<int>> groups = {{0, 1, 3},    {8, 9, 11},     {16, 17, 19},
                                          {24, 25, 27}, {5, 1, 2},      {13, 9, 10},
                                          {29, 25, 26}, {0, 8, 16, 24}, {1, 9, 17, 25}};
  for (int size : {2, 3, 4, 8})
    for (int stride : {1, 2, 3, 4, 8})
      for (int first = 0; first + (size - 1) * stride < 32; ++first) {
        std::vector<int> g;
        for (int k = 0; k < size; ++k) g.push_back(first + k * stride);
        groups.push_back(g);
      }
  HardwareProfile nccl = HardwareProfile::defaults();
  HardwareProfile alpha_beta = nccl;
  alpha_beta.collective_model = CollectiveModel::kAlphaBeta;
  const CollectiveKind kinds[] = {CollectiveKind::kAllReduce,     CollectiveKind::kAllGather,
                                  CollectiveKind::kReduceScatter, CollectiveKind::kAllToAll,
                                  CollectiveKind::kBroadcast,     CollectiveKind::kReduce};
  const CollectiveAlgorithm algorithms[] = {
      CollectiveAlgorithm::kAuto,         CollectiveAlgorithm::kRing,
      CollectiveAlgorithm::kTree,         CollectiveAlgorithm::kHalvingDoubling,
      CollectiveAlgorithm::kHierarchical, CollectiveAlgorithm::kNvls};
  for (const HardwareProfile* prof : {&nccl, &alpha_beta}) {
    std::map<std::vector<std::uint64_t>, std::vector<size_t>> classes;
    for (size_t i = 0; i < groups.size(); ++i) {
      auto sig = collective_group_signature(topo, *prof, groups[i]);
      ASSERT_FALSE(sig.empty());
      classes[sig].push_back(i);
    }
    size_t shared = 0, compared = 0;
    for (const auto& [sig, members] : classes) {
      if (members.size() < 2) continue;
      ++shared;
      const std::vector<int>& first = groups[members[0]];
      for (CollectiveKind kind : kinds)
        for (CollectiveAlgorithm algorithm : algorithms)
          for (double bytes : {1e3, 3e8}) {
            auto price = [&](const std::vector<int>& g) -> Result<double> {
              BRIGADE_ASSIGN_OR_RETURN(CollectiveQuery q,
                                       collective_query_on(topo, *prof, kind, algorithm, g, bytes));
              BRIGADE_ASSIGN_OR_RETURN(CollectiveCost c, collective_cost(q));
              return c.seconds;
            };
            const Result<double> a = price(first);
            for (size_t m = 1; m < members.size(); ++m) {
              const Result<double> b = price(groups[members[m]]);
              ASSERT_EQ(a.is_ok(), b.is_ok())
                  << collective_kind_name(kind) << " " << collective_algorithm_name(algorithm);
              if (a.is_ok()) {
                EXPECT_EQ(*a, *b);
              }
              ++compared;
            }
          }
    }
    EXPECT_GT(shared, 30u);
    EXPECT_GT(compared, 10000u);
    auto sig = [&](std::vector<int> g) { return collective_group_signature(topo, *prof, g); };
    EXPECT_EQ(sig({0, 1, 2, 3}), sig({8, 9, 10, 11}));
    EXPECT_NE(sig({0, 1, 2, 3}), sig({16, 17, 18, 19}));  // node 2's NVLink
    EXPECT_NE(sig({0, 1, 2, 3}), sig({24, 25, 26, 27}));  // node 3's model
    EXPECT_EQ(sig({0, 8}), sig({1, 9}));
    EXPECT_NE(sig({5, 13}), sig({4, 12}));  // device 13's NIC
    EXPECT_TRUE(sig({}).empty());
    EXPECT_TRUE(sig({3, 3}).empty());
    EXPECT_TRUE(sig({31, 32}).empty());
  }
}

// Context parallelism (the 405B plan: TP8 x CP16 x PP16 x DP8): its rings
// are priced per stage too, and a middle stage takes the figures of the one
// before only when its context ring's class is the same; the figures with
// the memo are the plain judge's, bit for bit, with and without the
// communication lists, and with slow devices.
TEST(PlanMemo, SameFiguresWithContextParallelism) {
  auto loaded =
      load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/llama3_405b_16384gpu.yaml");
  ASSERT_TRUE(loaded.is_ok()) << loaded.message();
  Scenario s = std::move(loaded).value();
  ASSERT_GT(s.strategy.context, 1);
  ASSERT_GT(s.strategy.pipeline, 3);
  PlanMemo memo(s.topology, s.profile);
  EstimateOptions bare;
  bare.every_device = false;
  bare.communication = false;
  for (bool slow : {false, true}) {
    if (slow) s.simulation.speed = {{8 * 16 * 8 * 5, 0.5}};  // a device of stage 5
    auto plain = estimate_plan(s);
    ASSERT_TRUE(plain.is_ok()) << plain.message();
    ScopedPlanMemo use(memo);
    for (int round = 0; round < 2; ++round) {
      auto lean = estimate_plan(s, bare);
      ASSERT_TRUE(lean.is_ok()) << lean.message();
      PlanEstimate without = *plain;
      without.communication.clear();
      without.stage_communication.clear();
      expect_same(without, *lean, false);
      auto full = estimate_plan(s);
      ASSERT_TRUE(full.is_ok()) << full.message();
      expect_same(*plain, *full, true);
    }
  }
}

// The memo answers for its own topology and the copies that share its
// routes, and not for one that changed or another profile.
TEST(PlanMemo, CoversOnlyItsTopologyAndProfile) {
  Scenario s = gpt3();
  PlanMemo memo(s.topology, s.profile);
  const Topology copy = s.topology;
  EXPECT_TRUE(memo.covers(copy, s.profile));
  Topology changed = s.topology;
  changed.add_switch(Switch{"spare", -1});
  EXPECT_FALSE(memo.covers(changed, s.profile));
  const HardwareProfile other = s.profile;
  EXPECT_FALSE(memo.covers(s.topology, other));
  ScopedPlanMemo use(memo);
  EXPECT_EQ(PlanMemo::current(s.topology, s.profile), &memo);
  EXPECT_EQ(PlanMemo::current(changed, s.profile), nullptr);
}

// Issue 18, item 16: the 405B scenario's groups (16 stages of a tensor, a
// context and a 128-rank gradient group over 16,384 GPUs) ask routes from
// about 2,400 sources; each is one or two hops, so none builds a
// shortest-path tree over the cluster's vertices (before: one per source,
// 1 GB in all, most of explain's and cost's time).
TEST(PlanMemo, The405bPlanBuildsNoShortestPathTree) {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/llama3_405b_16384gpu.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  const std::uint64_t before = route_trees_built();
  auto e = estimate_plan(*s);
  ASSERT_TRUE(e.is_ok()) << e.message();
  EXPECT_GT(e->step_seconds, 0);
  EXPECT_EQ(route_trees_built(), before);
}

}  // namespace
}  // namespace brigade::cost
