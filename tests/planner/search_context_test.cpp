// `brigade search` over context parallelism (issue 16's strategy space with
// issue 21's `strategy.context`): the context degree is a key of the
// transformer grid, its rank orders place the context axis, the
// combinations check_plan refuses are left out and counted per reason, the
// pruned search agrees with brute force, and the bundled Llama 3 405B
// scenario's hand-written CP16 plan is a point of the space and ranked.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/plan_check.hpp"
#include "costmodel/plan.hpp"
#include "planner/search.hpp"
#include "planner/search_internal.hpp"
#include "planner/search_space.hpp"
#include "tests/planner/scenario_fixtures.hpp"
#include "tests/planner/search_brute_force.hpp"

namespace brigade::planner {
namespace {

std::vector<StrategyPoint> every_point(const StrategySpace& space) {
  std::vector<StrategyPoint> all;
  for (const TimeClass& c : space.classes())
    for (int z : space.zero_values(c))
      for (const RankOrder& o : space.rank_orders(c))
        for (double b : space.bucket_values(c)) all.push_back(point_in(c, z, o, b));
  return all;
}

// The small GPT of the fixtures on one DGX A100 (8 GPUs) with fused
// attention and a sequence of 12 positions: context 2 fits (12 = 2 x 2 x 3),
// context 4 does not (12 is not divisible by 2 x 4), context 8 does not divide
// 12, and with context 2 and tensor 4 each rank's 6 positions do not split
// over 4 tensor ranks (sequence parallelism refused).
Scenario short_flash_gpt() {
  Scenario s = testing::small_gpt(2, 1, 4, 16, 4);
  s.name = "short-flash-gpt";
  s.transformer.seq = 12;
  s.transformer.attention = AttentionKernel::kFlash;
  return s;
}

std::string line_of(const StrategySpace& space, const std::string& key) {
  for (const std::string& l : space.describe())
    if (l.rfind(key + ": ", 0) == 0) return l;
  return "";
}

TEST(SearchContext, EveryPointPassesCheckPlanAndTheRefusalsAreCountedPerReason) {
  const Scenario sc = short_flash_gpt();
  auto space = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(space.is_ok()) << space.message();
  EXPECT_TRUE(space->contexts());
  const std::vector<StrategyPoint> all = every_point(*space);
  EXPECT_EQ(all.size(), space->size());
  std::set<int> degrees;
  Scenario work = sc;
  for (const StrategyPoint& p : all) {
    degrees.insert(p.context);
    // The device product: data x tensor x context x pipeline = 8.
    EXPECT_EQ(p.data * p.tensor * p.context * p.pipeline, 8) << point_label(p);
    apply_point(p, work);
    const Status ok = check_plan(work);
    ASSERT_TRUE(ok.is_ok()) << point_label(p) << ": " << ok.message();
    EXPECT_TRUE(space->contains(p)) << point_label(p);
  }
  EXPECT_EQ(degrees, (std::set<int>{1, 2}));

  std::map<std::string, std::uint64_t> refused(space->refused().begin(), space->refused().end());
  EXPECT_GT(refused["context not dividing seq"], 0u);
  EXPECT_GT(refused["seq not divisible by 2 x context"], 0u);
  EXPECT_GT(refused["sequence parallelism with seq / context not a multiple of tensor"], 0u);
  // Each reason is check_plan's: a point with those keys is refused.
  StrategyPoint base;
  for (const StrategyPoint& p : all)
    if (p.context == 1 && p.tensor == 1 && p.pipeline == 1 && p.data == 8 && p.zero == 0) base = p;
  ASSERT_EQ(base.data, 8);
  for (int cp : {4, 8}) {
    StrategyPoint q = base;
    q.data = 8 / cp;
    q.context = cp;
    apply_point(q, work);
    EXPECT_FALSE(check_plan(work).is_ok()) << point_label(q);
    EXPECT_FALSE(space->contains(q)) << point_label(q);
  }
  StrategyPoint sp = base;
  sp.tensor = 4, sp.context = 2, sp.data = 1, sp.sequence_parallel = true;
  apply_point(sp, work);
  EXPECT_FALSE(check_plan(work).is_ok());
  EXPECT_FALSE(space->contains(sp));
  sp.sequence_parallel = false;  // the same without sequence parallelism is in
  apply_point(sp, work);
  EXPECT_TRUE(check_plan(work).is_ok()) << check_plan(work).message();
  bool found = false;
  for (const StrategyPoint& p : all) found |= equivalent(p, sp);
  EXPECT_TRUE(found) << point_label(sp);

  const std::string line = line_of(*space, "context");
  EXPECT_EQ(
      line.rfind(
          "context: 1, 2 (divisors of the devices left; above 1: seq 12 divisible by 2 x context",
          0),
      0u)
      << line;
  EXPECT_NE(line.find("plans with seq not divisible by 2 x context"), std::string::npos) << line;
  // ZeRO and the bucket apply with data 1 when context > 1 (gradients and
  // ZeRO shards go over data x context).
  bool zero_without_data = false;
  for (const StrategyPoint& p : all)
    zero_without_data |= p.data == 1 && p.context == 2 && p.zero == 3;
  EXPECT_TRUE(zero_without_data);
}

// Rank orders: with context > 1, the context axis is placed in each of four
// places of each order of tensor, data and pipeline (orders that differ only
// in degree-1 axes counted once); with context 1 the six orders of before.
TEST(SearchContext, RankOrdersPlaceTheContextAxis) {
  const Scenario sc = short_flash_gpt();
  auto space = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(space.is_ok());
  for (const TimeClass& c : space->classes()) {
    const auto orders = space->rank_orders(c);
    int live = 0, k = 1;
    for (int d : {c.tensor, c.data, c.pipeline, c.context}) k *= d > 1 ? ++live : 1;
    EXPECT_EQ(static_cast<int>(orders.size()), k);  // live! orders
    std::set<std::string> labels;
    for (const RankOrder& o : orders) labels.insert(rank_order_label(o, c.context));
    EXPECT_EQ(labels.size(), orders.size());
    // The first order: tensor, context, data, pipeline (degree-1 axes left out of the check).
    EXPECT_EQ(rank_order_label(orders.front(), 2), "T-C-D-P");
  }
  // --set rank_order: three letters put C right after T; four name it.
  SpaceGrid g;
  ASSERT_TRUE(restrict_grid(g, "rank_order", "T-D-P,D-C-T-P").is_ok());
  ASSERT_EQ(g.rank_order.size(), 2u);
  EXPECT_EQ(rank_order_label(g.rank_order[0], 2), "T-C-D-P");
  EXPECT_EQ(rank_order_label(g.rank_order[0], 1), "T-D-P");
  EXPECT_EQ(rank_order_label(g.rank_order[1], 2), "D-C-T-P");
  EXPECT_EQ(rank_order_names(g.rank_order[1], 2),
            (std::vector<std::string>{"data", "context", "tensor", "pipeline"}));
  EXPECT_EQ(rank_order_names(g.rank_order[1], 1),
            (std::vector<std::string>{"data", "tensor", "pipeline"}));
  const Status bad = restrict_grid(g, "rank_order", "T-X-P");
  EXPECT_EQ(
      bad.message(),
      "--set rank_order: found 'T-X-P'; expected an order of T, D and P, innermost first, such as "
      "T-D-P (or of T, C, D and P, such as T-C-D-P; C left out goes right after T)");
  // --set context restricts the degree.
  SpaceGrid only2;
  ASSERT_TRUE(restrict_grid(only2, "strategy.context", "2").is_ok());
  auto s2 = StrategySpace::make(sc, only2);
  ASSERT_TRUE(s2.is_ok()) << s2.message();
  for (const TimeClass& c : s2->classes()) EXPECT_EQ(c.context, 2);
  // A context degree check_plan refuses everywhere: refused with the reasons.
  SpaceGrid only4;
  ASSERT_TRUE(restrict_grid(only4, "context", "4").is_ok());
  auto s4 = StrategySpace::make(sc, only4);
  ASSERT_FALSE(s4.is_ok());
  EXPECT_EQ(s4.message().rfind("search: no strategy fits: check_plan refuses every plan left: ", 0),
            0u)
      << s4.message();
  EXPECT_NE(s4.message().find("plans with seq not divisible by 2 x context"), std::string::npos);
}

// Unfused attention: context 1 alone, the rest counted.
TEST(SearchContext, UnfusedAttentionKeepsContextOne) {
  Scenario sc = short_flash_gpt();
  sc.transformer.attention = AttentionKernel::kUnfused;
  auto space = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(space.is_ok());
  EXPECT_FALSE(space->contexts());
  for (const TimeClass& c : space->classes()) ASSERT_EQ(c.context, 1);
  std::map<std::string, std::uint64_t> refused(space->refused().begin(), space->refused().end());
  EXPECT_GT(refused["context > 1 with unfused attention"], 0u);
  StrategyPoint p = point_of(sc);
  p.context = 2, p.data = 2;
  apply_point(p, sc);
  EXPECT_FALSE(check_plan(sc).is_ok());
}

// A 1B-parameter GPT with a long sequence (16,384 positions, fused
// attention) on one DGX A100: activations make context parallelism matter.
// The pruned search's top 10 equal brute force's over the whole space (every
// context degree, every rank order), under both objectives.
Scenario long_gpt() {
  Scenario s = testing::small_gpt(1, 1, 8, 8, 1);
  s.name = "long-gpt";
  s.transformer.layers = 4;
  s.transformer.hidden = 2048;
  s.transformer.heads = 16;
  s.transformer.seq = 16384;
  s.transformer.vocab = 32000;
  s.transformer.attention = AttentionKernel::kFlash;
  s.training.recompute = Recompute::kNone;
  return s;
}

TEST(SearchContext, PruningKeepsTheTrueBestWithContext) {
  const Scenario sc = long_gpt();
  SpaceGrid grid;
  grid.bucket_bytes = {25e6, 500e6};  // keeps brute force short
  auto space = StrategySpace::make(sc, grid);
  ASSERT_TRUE(space.is_ok()) << space.message();
  ASSERT_TRUE(space->contexts());
  bool ranked_context = false;
  for (SearchObjective obj : {SearchObjective::kStepTime, SearchObjective::kMemory}) {
    std::uint64_t all = 0;
    const auto ref = testing::brute_force(sc, *space, obj, 10, &all);
    SearchOptions o;
    o.objective = obj;
    o.top = 10;
    o.grid = grid;
    auto r = run_search(sc, o);
    ASSERT_TRUE(r.is_ok()) << r.message();
    EXPECT_EQ(r->invalid, 0u) << r->invalid_example;
    ASSERT_EQ(r->plans.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      const RankedPlan& p = r->plans[i];
      const double a = obj == SearchObjective::kStepTime ? p.step_seconds : p.peak_memory_bytes;
      const double b = obj == SearchObjective::kStepTime ? p.peak_memory_bytes : p.step_seconds;
      EXPECT_DOUBLE_EQ(a, ref[i].first) << "rank " << i + 1 << ": " << p.label;
      EXPECT_DOUBLE_EQ(b, ref[i].second) << "rank " << i + 1 << ": " << p.label;
    }
    EXPECT_EQ(all, space->size());
    EXPECT_EQ(r->evaluated + r->pruned_memory + r->pruned_bound + r->invalid, space->size());
    for (const RankedPlan& p : r->plans) ranked_context |= p.point->context > 1;
  }
  // The comparison covers context plans: some are among the ranked.
  EXPECT_TRUE(ranked_context);
}

// Why a plan loses to the winner when the ring's hops are what it cannot hide.
TEST(SearchContext, ARingThatIsNotHiddenIsTheReason) {
  RankedPlan w, a;
  w.point = StrategyPoint{};
  a.point = StrategyPoint{};
  a.point->context = 8;
  a.point->data = 1;
  w.step_seconds = 10, w.compute_seconds = 9, w.exposed_communication_seconds = 1;
  a.step_seconds = 12, a.compute_seconds = 9, a.exposed_communication_seconds = 3;
  w.communication = {{"data", "allreduce", 8, 1, 1, false}};
  a.communication = {{"data", "allreduce", 8, 1, 1, false}, {"context", "p2p", 2, 2.5, 2, true}};
  EXPECT_EQ(detail::loses_because(SearchObjective::kStepTime, a, w),
            "3.0x the winner's exposed communication: ring attention's KV exchange exposed (2.00 s "
            "exposed, winner 0 s; context 8, 7 hops each way per layer, the ring crossing nodes)");
}

// The bundled Llama 3 405B scenario (TP8 x CP16 x PP16 x DP8 on 16,384
// H100s): the space holds context degrees above 1 and the hand-written plan,
// and the search ranks it. The grid is cut to tensor 8 and pipeline 16 to
// keep the test short (docs/search.md gives the whole search's figures).
TEST(SearchContext, Llama405bSpaceHoldsTheWrittenCp16PlanAndRanksIt) {
  auto loaded =
      load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/llama3_405b_16384gpu.yaml");
  ASSERT_TRUE(loaded.is_ok()) << loaded.message();
  const Scenario& sc = *loaded;
  auto whole = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(whole.is_ok()) << whole.message();
  EXPECT_TRUE(whole->contexts());
  const StrategyPoint written = point_of(sc);
  EXPECT_EQ(written.context, 16);
  EXPECT_EQ(rank_order_label(written.rank_order, written.context), "T-C-D-P");
  EXPECT_TRUE(whole->contains(written));

  SearchOptions o;
  o.top = 5;
  o.grid.tensor = {8};
  o.grid.pipeline = {16};
  auto r = run_search(sc, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(r->contexts);
  EXPECT_EQ(r->invalid, 0u) << r->invalid_example;
  ASSERT_TRUE(r->hand_written.has_value());
  EXPECT_TRUE(r->hand_written->fits);
  EXPECT_TRUE(r->hand_written_in_space);
  EXPECT_GE(r->hand_written_rank, 1);
  Scenario work = sc;
  for (const RankedPlan& p : r->plans) {
    apply_point(*p.point, work);
    EXPECT_TRUE(check_plan(work).is_ok()) << p.label;
  }
  const nlohmann::json j = search_json(*r);
  EXPECT_EQ(j["hand_written"]["strategy"]["context"], 16);
  EXPECT_EQ(j["hand_written"]["strategy"]["rank_order"],
            (std::vector<std::string>{"tensor", "context", "data", "pipeline"}));
  EXPECT_EQ(j["hand_written"]["rank"], r->hand_written_rank);
  const std::string text = search_text(*r, 5);
  EXPECT_NE(text.find(" ctx "), std::string::npos) << text;
  EXPECT_NE(text.find("hand-written plan (the scenario's strategy): tensor 8, pipeline 16, data 8, "
                      "context 16,"),
            std::string::npos)
      << text;

  // --emit: the winner written with its context and four-axis rank order,
  // loaded back, the same plan.
  const RankedPlan& best = r->plans.front();
  auto yaml = plan_scenario_yaml(sc, best);
  ASSERT_TRUE(yaml.is_ok()) << yaml.message();
  const std::string path =
      ::testing::TempDir() + "/search_context_emit_" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream f(path);
    f << *yaml;
  }
  auto back = load_scenario(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_TRUE(check_plan(*back).is_ok());
  EXPECT_TRUE(equivalent(point_of(*back), *best.point))
      << point_label(point_of(*back)) << " vs " << best.label;
  EXPECT_EQ(back->strategy.context, best.point->context);
}

}  // namespace
}  // namespace brigade::planner

namespace brigade::planner {
namespace {

// The time bound's floor (PlanEstimate::kernel_floor_seconds, docs/costmodel.md
// "Pipeline schedule"): m max K + (sum K - max K) / v is under every step and
// at least the busiest device's compute; with one stage it is m K, the
// compute itself. Over every point of a space with context and pipelines.
TEST(SearchContext, TheKernelFloorIsUnderEveryStep) {
  const Scenario sc = long_gpt();
  SpaceGrid grid;
  grid.rank_order = {kDefaultRankOrder};
  grid.bucket_bytes = {25e6};
  auto space = StrategySpace::make(sc, grid);
  ASSERT_TRUE(space.is_ok()) << space.message();
  Scenario w = sc;
  size_t staged = 0;
  for (const StrategyPoint& p : every_point(*space)) {
    apply_point(p, w);
    auto e = cost::estimate_plan(w);
    ASSERT_TRUE(e.is_ok()) << point_label(p) << ": " << e.message();
    EXPECT_LE(e->kernel_floor_seconds, e->step_seconds * (1 + 1e-12)) << point_label(p);
    EXPECT_GE(e->kernel_floor_seconds, e->compute_seconds * (1 - 1e-12)) << point_label(p);
    if (p.pipeline == 1) {
      EXPECT_DOUBLE_EQ(e->kernel_floor_seconds, e->compute_seconds) << point_label(p);
    }
    // Many stages, few micro-batches: the fill and drain raise the floor
    // well above the compute (p = 4, m = 1: the four stages' kernels in a
    // row, the sum of all K against the busiest stage's, the head's, alone:
    // about 2.9x here).
    if (p.pipeline == 4 && p.schedule != PipelineSchedule::kInterleaved &&
        p.micro_batch * p.data == 8) {
      EXPECT_GT(e->kernel_floor_seconds, 2 * e->compute_seconds) << point_label(p);
      ++staged;
    }
  }
  EXPECT_GT(staged, 0u);
}

}  // namespace
}  // namespace brigade::planner
