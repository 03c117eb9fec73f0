// `brigade search` on transformers (issue 16): the strategy space, the
// pruned search against brute force, determinism, the budget, the reasons,
// the hand-written plan, the memory-infeasible report, the simulator's
// re-ranking and the emitted scenario.
#include "planner/search.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <tuple>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/plan_check.hpp"
#include "costmodel/plan.hpp"
#include "planner/lower.hpp"
#include "planner/search_internal.hpp"
#include "sim/simulator.hpp"
#include "tests/planner/scenario_fixtures.hpp"
#include "tests/planner/search_brute_force.hpp"

namespace brigade::planner {
namespace {

// A 1.6B-parameter GPT (8 layers, h 4096, 32 heads, s 2048, V 51200) on one
// DGX A100 (8 x 80 GB), global batch 64: replicated with Adam it needs
// 1.6e9 x 16 B = 26 GB of model states, and without recomputation its
// activations at micro-batch 8 pass 80 GB, so memory prunes part of the space.
Scenario medium_gpt() {
  Scenario s = testing::small_gpt(2, 1, 4, 64, 4);
  s.name = "medium-gpt";
  s.transformer.layers = 8;
  s.transformer.hidden = 4096;
  s.transformer.heads = 32;
  s.transformer.seq = 2048;
  s.transformer.vocab = 51200;
  s.training.recompute = Recompute::kNone;
  return s;
}

TEST(SearchSpace, EveryPointIsAPlanAndNoTwoAreTheSame) {
  const Scenario sc = medium_gpt();
  auto space = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(space.is_ok()) << space.message();
  std::uint64_t n = 0;
  std::vector<StrategyPoint> seen;
  Scenario w = sc;
  for (const TimeClass& c : space->classes())
    for (int z : space->zero_values(c))
      for (const RankOrder& o : space->rank_orders(c))
        for (double b : space->bucket_values(c)) {
          const StrategyPoint p = point_in(c, z, o, b);
          apply_point(p, w);
          ASSERT_TRUE(check_plan(w).is_ok()) << point_label(p) << ": " << check_plan(w).message();
          for (const StrategyPoint& q : seen) ASSERT_FALSE(equivalent(p, q)) << point_label(p);
          seen.push_back(p);
          ++n;
          EXPECT_TRUE(space->contains(p));
        }
  EXPECT_EQ(n, space->size());
  // 8 devices, heads 32, layers 8, batch 64: tensor and pipeline 1, 2, 4, 8.
  EXPECT_EQ(space->describe()[0],
            "tensor: 1, 2, 4, 8 (divisors of 8 devices that divide heads 32, FFN width 16384 and vocab 51200)");
  // The hand-written plan of the fixture is in the space.
  EXPECT_TRUE(space->contains(point_of(sc)));
}

// Issue 16, "done when": the pruning never drops the true best on small
// spaces. The search's top 10 equal brute force's top 10 under both
// objectives, and the search judged far fewer plans.
TEST(Search, PruningKeepsTheTrueBest) {
  const Scenario sc = medium_gpt();
  auto space = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(space.is_ok());
  for (SearchObjective obj : {SearchObjective::kStepTime, SearchObjective::kMemory}) {
    std::uint64_t all = 0;
    const auto ref = testing::brute_force(sc, *space, obj, 10, &all);
    SearchOptions o;
    o.objective = obj;
    o.top = 10;
    auto r = run_search(sc, o);
    ASSERT_TRUE(r.is_ok()) << r.message();
    ASSERT_EQ(r->plans.size(), ref.size());
    std::vector<std::pair<double, double>> got;
    for (const RankedPlan& p : r->plans)
      got.push_back(obj == SearchObjective::kStepTime ? std::make_pair(p.step_seconds, p.peak_memory_bytes)
                                                      : std::make_pair(p.peak_memory_bytes, p.step_seconds));
    for (size_t i = 0; i < ref.size(); ++i) {
      EXPECT_DOUBLE_EQ(got[i].first, ref[i].first) << "rank " << i + 1;
      EXPECT_DOUBLE_EQ(got[i].second, ref[i].second) << "rank " << i + 1;
    }
    EXPECT_EQ(all, space->size());
    EXPECT_LT(r->evaluated, all / 2) << "the pruning should skip most of the space";
    EXPECT_GT(r->pruned_memory, 0u);
    EXPECT_GT(r->pruned_bound, 0u);
    EXPECT_EQ(r->evaluated + r->pruned_memory + r->pruned_bound + r->invalid, space->size());
    EXPECT_EQ(r->plans.front().reason, "best");
  }
}

// The same with a host time per operation (simulation.host_op_time) that
// makes the plans of small micro-batches host-bound: the kernel floor still
// lies under every step (the host only lengthens a stage), so the search's
// top 10 are brute force's, and the host reorders them.
TEST(Search, PruningKeepsTheTrueBestWithAHost) {
  Scenario sc = medium_gpt();
  auto space = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(space.is_ok());
  SearchOptions o;
  o.top = 10;
  auto without = run_search(sc, o);
  ASSERT_TRUE(without.is_ok()) << without.message();
  sc.simulation.host_op_seconds = 200e-6;
  std::uint64_t all = 0;
  const auto ref = testing::brute_force(sc, *space, SearchObjective::kStepTime, 10, &all);
  auto r = run_search(sc, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_EQ(r->plans.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_DOUBLE_EQ(r->plans[i].step_seconds, ref[i].first) << "rank " << i + 1;
    EXPECT_DOUBLE_EQ(r->plans[i].peak_memory_bytes, ref[i].second) << "rank " << i + 1;
  }
  EXPECT_GT(r->pruned_bound, 0u);
  EXPECT_GT(r->plans.front().step_seconds, without->plans.front().step_seconds);
}

// Plans that differ only in the bucket or the rank order and have the same
// figures are one row that says which values tie; the list shows the next
// distinct plan instead (K distinct plans).
TEST(Search, PlansThatTieOnlyInBucketOrOrderAreOneRow) {
  const Scenario sc = medium_gpt();
  SearchOptions o;
  o.top = 10;
  auto r = run_search(sc, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_EQ(r->plans.size(), 10u);
  size_t rows_with_ties = 0;
  Scenario w = sc;
  for (size_t i = 0; i < r->plans.size(); ++i) {
    const RankedPlan& a = r->plans[i];
    ASSERT_TRUE(a.point);
    for (size_t j = i + 1; j < r->plans.size(); ++j) {
      const RankedPlan& b = r->plans[j];
      EXPECT_FALSE(detail::ties_with(*a.point, a.step_seconds, a.peak_memory_bytes, *b.point, b.step_seconds,
                                     b.peak_memory_bytes))
          << a.label << " and " << b.label << " should be one row";
    }
    rows_with_ties += !a.ties.empty();
    for (const StrategyPoint& t : a.ties) {
      // A tie differs only in rank order or bucket, and judges the same.
      StrategyPoint same = t;
      same.rank_order = a.point->rank_order;
      same.bucket_bytes = a.point->bucket_bytes;
      EXPECT_EQ(same, *a.point) << point_label(t);
      EXPECT_FALSE(equivalent(t, *a.point));
      apply_point(t, w);
      auto e = cost::estimate_plan(w);
      ASSERT_TRUE(e.is_ok());
      EXPECT_NEAR(e->step_seconds, a.step_seconds, 1e-9 * a.step_seconds) << point_label(t);
      EXPECT_NEAR(detail::memory_figures(*e).peak_bytes, a.peak_memory_bytes, 1e-9 * a.peak_memory_bytes);
    }
    EXPECT_NE(a.reason, "ties with the winner") << a.label;
  }
  // On one node with data parallelism, the bucket size moves no step here:
  // the winner's row carries the other buckets.
  ASSERT_GT(rows_with_ties, 0u);
  const RankedPlan& w0 = r->plans.front();
  ASSERT_FALSE(w0.ties.empty());
  const std::string text = detail::ties_text(w0);
  EXPECT_NE(text, "");
  EXPECT_NE(search_text(*r, 10).find("(same with " + text + ")"), std::string::npos) << search_text(*r, 10);
  const nlohmann::json j = search_json(*r);
  EXPECT_EQ(j["plans"][0]["ties"].size(), w0.ties.size());
  EXPECT_EQ(j["plans"][0]["ties_text"], text);
}

TEST(Search, SameInputSameResult) {
  const Scenario sc = medium_gpt();
  SearchOptions o;
  auto a = run_search(sc, o);
  auto b = run_search(sc, o);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(search_json(*a).dump().size() > 0, true);
  nlohmann::json ja = search_json(*a), jb = search_json(*b);
  ja.erase("elapsed_seconds");
  jb.erase("elapsed_seconds");
  EXPECT_EQ(ja, jb);
}

// The budget: a fake clock that advances 1 ms per reading, a 50 ms budget.
TEST(Search, BudgetStopsTheSearchAndSaysSo) {
  const Scenario sc = medium_gpt();
  SearchOptions o;
  // The search reads the clock every 64 plans: 3 readings are 192 plans or more.
  double t = 0;
  o.clock = [&t] { return t += 1e-3; };
  o.budget_seconds = 0.003;
  auto r = run_search(sc, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(r->budget_exhausted);
  EXPECT_GT(r->unvisited, 0u);
  bool said = false;
  for (const auto& n : r->notes) said |= n.rfind("budget: stopped after", 0) == 0;
  EXPECT_TRUE(said);
}

// Issue 16, "done when": the memory-infeasible report. GPT-3 175B on one
// DGX A100 fits in no way: the closest plan's overflow is its device's peak
// minus its capacity.
TEST(Search, NothingFitsReportsTheClosestAndItsOverflow) {
  Scenario sc = testing::small_gpt(8, 1, 1, 8, 1);
  sc.transformer.layers = 96;
  sc.transformer.hidden = 12288;
  sc.transformer.heads = 96;
  sc.transformer.seq = 2048;
  sc.transformer.vocab = 51200;
  SearchOptions o;
  o.top = 3;
  auto r = run_search(sc, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(r->plans.empty());
  ASSERT_FALSE(r->not_fitting.empty());
  const RankedPlan& c = r->not_fitting.front();
  EXPECT_FALSE(c.fits);
  ASSERT_TRUE(c.scenario);
  auto e = cost::estimate_plan(*c.scenario);
  ASSERT_TRUE(e.is_ok());
  double worst = -1;
  int stage = -1;
  for (const auto& m : e->memory)
    if (m.peak_bytes - m.capacity_bytes > worst) worst = m.peak_bytes - m.capacity_bytes, stage = m.stage;
  EXPECT_DOUBLE_EQ(c.overflow_bytes, worst);
  EXPECT_EQ(c.overflow_stage, stage);
  EXPECT_EQ(c.overflow, detail::overflow_text(c, true));
  EXPECT_NE(c.overflow.find(" over capacity on stage "), std::string::npos);
  for (size_t i = 1; i < r->not_fitting.size(); ++i)
    EXPECT_LE(r->not_fitting[i - 1].overflow_bytes, r->not_fitting[i].overflow_bytes);
  EXPECT_NE(search_text(*r, 3).find("No plan fits in memory."), std::string::npos);
}

// Issue 16, item 5: a hand-written plan the search may not choose (the best
// plan of the whole space, with the search's micro-batches restricted to
// exclude its own) beats every automatic candidate, and the report says so
// plainly.
TEST(Search, HandWrittenPlanThatBeatsTheSearchIsSaidPlainly) {
  const Scenario sc = medium_gpt();
  auto full = run_search(sc, SearchOptions{});
  ASSERT_TRUE(full.is_ok()) << full.message();
  ASSERT_TRUE(full->plans.front().point);
  const StrategyPoint best = *full->plans.front().point;
  EXPECT_EQ(search_text(*full, 10).find("beats every automatic"), std::string::npos);
  Scenario hand = sc;
  apply_point(best, hand);
  SearchOptions o;
  std::string others;
  for (int b : {1, 2, 4, 8, 16, 32, 64})
    if (b != best.micro_batch) others += (others.empty() ? "" : ",") + std::to_string(b);
  ASSERT_TRUE(restrict_grid(o.grid, "micro_batch", others).is_ok());
  auto r = run_search(hand, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_TRUE(r->hand_written);
  EXPECT_FALSE(r->hand_written_in_space);
  EXPECT_EQ(r->hand_written_rank, 1);
  ASSERT_FALSE(r->plans.empty());
  EXPECT_TRUE(r->plans.front().hand_written);
  EXPECT_LT(r->hand_written->step_seconds, r->plans[1].step_seconds);
  EXPECT_NE(search_text(*r, 10).find("The hand-written plan beats every automatic candidate"), std::string::npos)
      << search_text(*r, 10);
  EXPECT_TRUE(search_json(*r)["hand_written"]["beats_every_automatic_plan"].get<bool>());
  // Unrestricted, the same plan is the search's own winner: found, not beaten.
  auto same = run_search(hand, SearchOptions{});
  ASSERT_TRUE(same.is_ok());
  EXPECT_TRUE(same->hand_written_in_space);
  EXPECT_EQ(same->hand_written_rank, 1);
  EXPECT_TRUE(same->plans.front().hand_written);
  EXPECT_FALSE(search_json(*same)["hand_written"]["beats_every_automatic_plan"].get<bool>());
}

// An FP8 plan's MFU can pass 100%: it is taken against the peak of the
// model's dtype. The table says so under it where a row shows one, as
// `brigade cost` does (PlanReport.RatesAbovePeakSayWhy), and not otherwise.
TEST(Search, MfuAbovePeakSaysWhyUnderTheTable) {
  auto r = run_search(medium_gpt(), SearchOptions{});
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_GE(r->plans.size(), 2u);
  const std::string why = "(MFU above 100%: it is against the peak of the model's dtype, which FP8 GEMMs exceed)";
  for (const RankedPlan& p : r->plans) ASSERT_LE(p.mfu, 1.0);
  EXPECT_EQ(search_text(*r, 10).find(why), std::string::npos);
  r->plans[1].mfu = 1.018;
  EXPECT_NE(search_text(*r, 10).find("101.8%"), std::string::npos) << search_text(*r, 10);
  EXPECT_NE(search_text(*r, 10).find(why), std::string::npos) << search_text(*r, 10);
  EXPECT_EQ(search_text(*r, 1).find(why), std::string::npos) << "a row not shown says nothing";
}

// Reasons come from the figures: the part of the step that grew the most.
TEST(SearchReason, TheLargestExtraPartNamesTheReason) {
  RankedPlan w, a;
  w.step_seconds = 10, w.compute_seconds = 8, w.bubble_seconds = 0.5, w.exposed_communication_seconds = 1.5;
  // Bubble: +1.5 s, the largest difference.
  a = w;
  a.step_seconds = 11.6, a.bubble_seconds = 2.0, a.exposed_communication_seconds = 1.6;
  EXPECT_EQ(detail::loses_because(SearchObjective::kStepTime, a, w), "pipeline bubble 17% of the step (winner 5%)");
  // Exposed communication: the data-parallel AllReduce that leaves the node.
  a = w;
  a.step_seconds = 12, a.exposed_communication_seconds = 3.5;
  w.communication = {{"data", "allreduce", 8, 1.0, 0.5, false}};
  a.communication = {{"data", "allreduce", 8, 3.0, 2.5, true}};
  EXPECT_EQ(detail::loses_because(SearchObjective::kStepTime, a, w),
            "2.3x the winner's exposed communication: data-parallel AllReduce crosses nodes (2.50 s exposed, "
            "winner 500 ms)");
  // Compute, and why: full recomputation.
  a = w;
  a.communication = w.communication;
  a.step_seconds = 12, a.compute_seconds = 10;
  StrategyPoint pw, pa;
  pw.recompute = Recompute::kSelective;
  pa.recompute = Recompute::kFull;
  w.point = pw;
  a.point = pa;
  EXPECT_EQ(detail::loses_because(SearchObjective::kStepTime, a, w),
            "compute 1.25x the winner's (here recompute full; winner recompute selective)");
  // A small difference in exposed communication reads as a difference, not "1.0x".
  a = w;
  a.step_seconds = 10.1, a.exposed_communication_seconds = 1.6;
  a.communication = {{"pipeline", "p2p", 2, 0.3, 0.1, true}};
  EXPECT_EQ(detail::loses_because(SearchObjective::kStepTime, a, w),
            "100 ms more exposed communication than the winner (1.60 s against 1.50 s): pipeline sends cross "
            "nodes (100 ms exposed, winner 0 s)");
  // Waiting for the host (simulation.host_op_time): +2 s, the largest.
  a = w;
  a.step_seconds = 12.5, a.host_wait_seconds = 2.0, a.compute_seconds = 8.5;
  EXPECT_EQ(detail::loses_because(SearchObjective::kStepTime, a, w),
            "waits 2.00 s for its host (16% of the step; winner 0 s): more, shorter kernels than the host "
            "issues in their time (simulation.host_op_time)");
  a = w;
  EXPECT_EQ(detail::loses_because(SearchObjective::kStepTime, a, w), "ties with the winner");
}

// --judge sim: the best plans re-ranked by a second judge; where it orders
// plans otherwise, the report says which and by how much.
TEST(Search, SimulatorReRanksAndDisagreementsAreShown) {
  const Scenario sc = medium_gpt();
  SearchOptions o;
  o.top = 4;
  o.judge_sim = true;
  // A stand-in simulator that finds pipelines 3x slower than the closed form does.
  o.simulate = [](const Scenario& s) -> Result<SearchOptions::SimJudgement> {
    auto e = cost::estimate_plan(s);
    if (!e.is_ok()) return e.status();
    SearchOptions::SimJudgement j;
    j.step_seconds = e->step_seconds * (s.strategy.pipeline > 1 ? 3.0 : 1.0) * (1 + 1e-3 * s.strategy.tensor);
    j.peak_memory_bytes = detail::memory_figures(*e).peak_bytes;
    return j;
  };
  auto r = run_search(sc, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_EQ(r->plans.size(), 4u);
  for (size_t i = 1; i < r->plans.size(); ++i)
    EXPECT_LE(*r->plans[i - 1].sim_step_seconds, *r->plans[i].sim_step_seconds);
  for (size_t i = 0; i < r->plans.size(); ++i) EXPECT_EQ(r->plans[i].sim_rank, static_cast<int>(i) + 1);
  bool reordered = false;
  for (const RankedPlan& p : r->plans) reordered |= p.sim_rank != p.cost_rank;
  if (reordered) {
    ASSERT_FALSE(r->disagreements.empty());
    EXPECT_NE(r->disagreements.front().find("the simulator reverses them"), std::string::npos);
  }
  EXPECT_NE(search_text(*r, 4).find("ranked by the simulator"), std::string::npos);
}

TEST(SearchSpace, SetRestrictsAndRejectsWithOneLine) {
  SpaceGrid g;
  EXPECT_EQ(restrict_grid(g, "tensr", "2").message().rfind("--set: found key 'tensr'; expected one of tensor,", 0), 0u);
  EXPECT_EQ(restrict_grid(g, "zero", "5").message(), "--set zero: found '5'; expected 0, 1, 2 or 3");
  EXPECT_EQ(restrict_grid(g, "rank_order", "T-X-P").message(),
            "--set rank_order: found 'T-X-P'; expected an order of T, D and P, innermost first, "
            "such as T-D-P "
            "(or of T, C, D and P, such as T-C-D-P; C left out goes right after T)");
  ASSERT_TRUE(restrict_grid(g, "strategy.tensor", "2,4").is_ok());
  EXPECT_EQ(g.tensor, (std::vector<int>{2, 4}));
  ASSERT_TRUE(restrict_grid(g, "bucket", "40MB").is_ok());
  EXPECT_EQ(g.bucket_bytes, (std::vector<double>{40e6}));
  auto space = StrategySpace::make(medium_gpt(), g);
  ASSERT_TRUE(space.is_ok());
  for (const TimeClass& c : space->classes()) EXPECT_TRUE(c.tensor == 2 || c.tensor == 4);
  SpaceGrid none;
  ASSERT_TRUE(restrict_grid(none, "tensor", "3").is_ok());
  auto empty = StrategySpace::make(medium_gpt(), none);
  ASSERT_FALSE(empty.is_ok());
  EXPECT_EQ(empty.message(),
            "search: no strategy fits: no tensor x context x pipeline x data = 8 devices with "
            "tensor dividing heads 32, "
            "FFN width 16384 and vocab 51200, pipeline dividing 8 layers and data dividing global "
            "batch 64 "
            "among the values of --set");
}

std::string temp_path(const char* suffix) {
  return std::string("/tmp/brigade-search-test-") + std::to_string(::getpid()) + suffix;
}

// What --emit does, in a test: `yaml` written to a temporary file and
// loaded as the base, searched, its winner written as a scenario and loaded
// back; the temporary files removed. Fails the test where a step fails.
struct Emitted {
  Scenario base, back;
  RankedPlan win;
  std::string text;
};
std::optional<Emitted> emit_winner(const std::string& yaml, const std::string& tag,
                                   const SearchOptions& options = {}) {
  const std::string path = temp_path(("-" + tag + ".yaml").c_str());
  const std::string out = temp_path(("-" + tag + "-best.yaml").c_str());
  std::ofstream(path) << yaml;
  auto base = load_scenario(path);
  EXPECT_TRUE(base.is_ok()) << base.message();
  if (!base.is_ok()) {
    std::remove(path.c_str());
    return std::nullopt;
  }
  auto r = run_search(*base, options);
  EXPECT_TRUE(r.is_ok()) << r.message();
  if (!r.is_ok() || r->plans.empty()) {
    std::remove(path.c_str());
    ADD_FAILURE() << "no plan";
    return std::nullopt;
  }
  const RankedPlan& win = r->plans.front();
  auto text = plan_scenario_yaml(*base, win);  // re-reads the base file for its comments and layout
  std::remove(path.c_str());
  EXPECT_TRUE(text.is_ok()) << text.message();
  if (!text.is_ok()) return std::nullopt;
  std::ofstream(out) << *text;
  auto back = load_scenario(out);
  std::remove(out.c_str());
  EXPECT_TRUE(back.is_ok()) << back.message() << "\n" << *text;
  if (!back.is_ok()) return std::nullopt;
  return Emitted{*base, *back, win, *text};
}

// --emit: the winner written as a scenario loads back as the same plan, is
// judged the same, and lowers and simulates.
TEST(SearchEmit, WinnerRoundTripsThroughLoadScenarioAndSimulates) {
  auto em = emit_winner("# a comment that is not kept\n"
                        "name: tiny\n"
                        "topology: {preset: dgx-a100}\n"
                        "model:\n"
                        "  transformer: {layers: 4, hidden: 256, heads: 8, seq: 128, vocab: 1024}\n"
                        "training: {global_batch: 16, micro_batch: 2, optimizer: adam}\n"
                        "strategy: {tensor: 2, data: 4}\n",
                        "base");
  ASSERT_TRUE(em);
  const RankedPlan& win = em->win;
  const Scenario& back = em->back;
  ASSERT_TRUE(win.point);
  EXPECT_TRUE(equivalent(point_of(back), *win.point)) << point_label(point_of(back)) << " vs "
                                                      << point_label(*win.point);
  auto e = cost::estimate_plan(back);
  ASSERT_TRUE(e.is_ok()) << e.message();
  EXPECT_DOUBLE_EQ(e->step_seconds, win.step_seconds);
  auto plan = lower(back);
  ASSERT_TRUE(plan.is_ok()) << plan.message();
  sim::SimOptions so;
  so.record_task_times = false;
  auto s = sim::simulate(plan->program, back.topology, back.profile, so);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_GT(s->step_seconds, 0);
}

// --emit keeps the base scenario's strategy.pipeline_engine (search does not
// vary it): the winner of a DeepSpeed-engine search is judged, written and
// loaded back as DeepSpeed's.
TEST(SearchEmit, KeepsThePipelineEngine) {
  auto em = emit_winner("name: tiny-ds\n"
                        "topology: {preset: dgx-a100}\n"
                        "model:\n"
                        "  transformer: {layers: 4, hidden: 256, heads: 8, seq: 128, vocab: 1024}\n"
                        "training: {global_batch: 16, micro_batch: 2, optimizer: adam}\n"
                        "strategy: {tensor: 2, pipeline: 2, data: 2, pipeline_engine: deepspeed}\n",
                        "ds");
  ASSERT_TRUE(em);
  EXPECT_EQ(em->back.strategy.pipeline_engine, PipelineEngine::kDeepSpeed) << em->text;
  auto e = cost::estimate_plan(em->back);
  ASSERT_TRUE(e.is_ok()) << e.message();
  EXPECT_DOUBLE_EQ(e->step_seconds, em->win.step_seconds);
}

// --emit with Transformer Engine's tensor-parallel overlap in the base: the
// search judges it on the plans that can take it (sequence parallelism over
// tensor > 1: here --set tensor=2 sequence_parallel=true) and without it on
// the others (every plan of a vocabulary of 1001 words, which no tensor
// degree divides), where check_plan would refuse the key; the file says the
// same and loads back as a plan check_plan takes, judged the same.
TEST(SearchEmit, TheOverlapGoesWhereThePlanCanTakeIt) {
  struct Case {
    const char* vocab;
    const char* strategy;
    bool kept;
  };
  for (const Case& c : {Case{"1024", "tensor: 2, data: 4, sequence_parallel: true", true},
                        Case{"1001", "data: 8", false}}) {
    SearchOptions options;
    if (c.kept) options.grid.tensor = {2}, options.grid.sequence_parallel = {true};
    auto em = emit_winner(std::string("name: tiny-ov\n"
                                      "topology: {preset: dgx-a100}\n"
                                      "model:\n"
                                      "  transformer: {layers: 4, hidden: 256, heads: 8, seq: "
                                      "128, vocab: ") +
                              c.vocab +
                              "}\ntraining: {global_batch: 16, micro_batch: 2, "
                              "tp_comm_overlap: true}\nstrategy: {" +
                              c.strategy + "}\n",
                          "ov", options);
    ASSERT_TRUE(em);
    const StrategySpec& st = em->back.strategy;
    EXPECT_EQ(st.tensor > 1 && st.sequence_parallel, c.kept) << em->text;
    EXPECT_EQ(em->back.training.tp_comm_overlap, c.kept) << em->text;
    EXPECT_TRUE(check_plan(em->back).is_ok()) << check_plan(em->back).message();
    auto e = cost::estimate_plan(em->back);
    ASSERT_TRUE(e.is_ok()) << e.message();
    EXPECT_DOUBLE_EQ(e->step_seconds, em->win.step_seconds);
  }
}

// A scenario naming its Hugging Face config relative to its folder: the
// winner written to another folder still finds it (the path is written
// absolute, as the profile's is).
TEST(SearchEmit, AHuggingFaceConfigResolvesFromTheWrittenFile) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(temp_path("-hf"));
  fs::create_directories(dir / "models");
  fs::create_directories(dir / "out");
  fs::copy_file(fs::path(BRIGADE_SOURCE_DIR) / "scenarios/models/llama3_70b.json",
                dir / "models/llama3_70b.json", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "base.yaml")
      << "topology: {preset: dgx-h100, nodes: 2}\n"
         "model: {huggingface: {config: models/llama3_70b.json, seq: 2048, attention: flash}}\n"
         "training: {global_batch: 32, micro_batch: 1}\n";
  auto base = load_scenario((dir / "base.yaml").string());
  ASSERT_TRUE(base.is_ok()) << base.message();
  auto r = run_search(*base, SearchOptions{});
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_FALSE(r->plans.empty());
  auto text = plan_scenario_yaml(*base, r->plans.front());
  ASSERT_TRUE(text.is_ok()) << text.message();
  const fs::path out = dir / "out" / "best.yaml";
  std::ofstream(out) << *text;
  auto back = load_scenario(out.string());
  ASSERT_TRUE(back.is_ok()) << back.message() << "\n" << *text;
  EXPECT_EQ(back->transformer.hidden, 8192);
  fs::remove_all(dir);
}

TEST(Search, ModelsItCannotSearchAreRefused) {
  Scenario mlp;
  mlp.model_kind = ModelKind::kMlp;
  auto r = run_search(mlp, SearchOptions{});
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kUnsupported);
  EXPECT_EQ(r.message().rfind("search: found an mlp model; expected a transformer or a graph", 0), 0u);
}

}  // namespace
}  // namespace brigade::planner
