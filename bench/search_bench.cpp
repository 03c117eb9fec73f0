// `brigade search` speed (issue 16; docs/PERFORMANCE.md has the figures):
//
//   build/default/bench/search_bench --benchmark_filter=Estimate
//   build/default/bench/search_bench --benchmark_filter=Search530B
//   build/default/bench/search_bench --benchmark_filter=SearchSim175B
//
// Estimate/*: closed-form plan evaluations per second on one core
// (costmodel's estimate_plan, no Program), cycling through 4096 points of the
// search space of a scenario: on one reused Scenario, as the search does, and
// on a fresh copy per plan (the copies share the topology's routes).
// Search530B: the whole space of a 530B GPT on 2240 A100s (goal <= 5 s).
// SearchSim175B: --judge sim re-ranking of the top 10 for GPT-3 175B on 1024
// GPUs (goal <= 30 s).
// SimCandidate/I/N: the I-th of those plans (10: the hand-written one)
// lowered and simulated as the search's judge does, rings of more than N
// steps a phase in N super-steps (0: every step): CPU of lowering, setup
// and the event loop, events, and the simulated step to 12 digits.
//   build/default/bench/search_bench --benchmark_filter='SimCandidate/[0-9]+/(0|16)/'
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/plan_memo.hpp"
#include "planner/lower.hpp"
#include "planner/search.hpp"
#include "planner/search_space.hpp"
#include "sim/scenario_options.hpp"
#include "sim/simulator.hpp"

namespace brigade::planner {
namespace {

const Scenario& scenario(const std::string& file) {
  static std::map<std::string, Scenario> cache;
  auto it = cache.find(file);
  if (it == cache.end()) {
    auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + file);
    if (!s.is_ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      std::abort();
    }
    it = cache.emplace(file, std::move(s).value()).first;
  }
  return it->second;
}

// Up to n points of the space, spread over its classes.
std::vector<StrategyPoint> sample(const Scenario& sc, size_t n) {
  auto space = StrategySpace::make(sc, SpaceGrid{});
  if (!space.is_ok()) std::abort();
  std::vector<StrategyPoint> all;
  for (const TimeClass& c : space->classes())
    for (int z : space->zero_values(c))
      for (const RankOrder& o : space->rank_orders(c))
        for (double b : space->bucket_values(c)) all.push_back(point_in(c, z, o, b));
  std::vector<StrategyPoint> out;
  const size_t step = std::max<size_t>(1, all.size() / n);
  for (size_t i = 0; i < all.size() && out.size() < n; i += step) out.push_back(all[i]);
  return out;
}

void BM_Estimate(benchmark::State& state, const char* file, bool fresh_copy, bool memo_on = true,
                 bool every_device = false) {
  cost::EstimateOptions options;  // what the search asks for: memory per stage
  options.every_device = every_device;
  options.communication = every_device;  // as the search: no communication lists
  const Scenario& base = scenario(file);
  const std::vector<StrategyPoint> points = sample(base, 4096);
  Scenario work = base;
  // As the search does: collectives priced once (costmodel/plan_memo.hpp).
  cost::PlanMemo memo(work.topology, work.profile);
  std::optional<cost::ScopedPlanMemo> use;
  if (memo_on) use.emplace(memo);
  // Warm the shared route cache as a search's first plans do.
  for (const StrategyPoint& p : points) {
    apply_point(p, work);
    (void)cost::estimate_plan(work);
  }
  size_t i = 0, ok = 0;
  for (auto _ : state) {
    const StrategyPoint& p = points[i++ % points.size()];
    if (fresh_copy) {
      Scenario s = base;
      apply_point(p, s);
      auto e = cost::estimate_plan(s);
      ok += e.is_ok();
      benchmark::DoNotOptimize(e);
    } else {
      apply_point(p, work);
      auto e = cost::estimate_plan(work, options);
      ok += e.is_ok();
      benchmark::DoNotOptimize(e);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["judged_ok"] = static_cast<double>(ok) / static_cast<double>(state.iterations());
  state.counters["memo_misses"] = static_cast<double>(memo.misses());
  state.counters["memo_hits"] = static_cast<double>(memo.hits());
}
BENCHMARK_CAPTURE(BM_Estimate, gpt3_175b_1024, "gpt3_175b_1024.yaml", false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Estimate, gpt3_175b_1024_copy, "gpt3_175b_1024.yaml", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Estimate, gpt3_175b_1024_no_memo, "gpt3_175b_1024.yaml", false, false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Estimate, gpt3_175b_1024_every_device, "gpt3_175b_1024.yaml", false, true, true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Estimate, llm_13b_128, "llm_13b_128gpu.yaml", false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Estimate, mt_nlg_530b_2240, "mt_nlg_530b_2240.yaml", false)->Unit(benchmark::kMicrosecond);

void BM_Search(benchmark::State& state, const char* file, bool sim) {
  const Scenario& sc = scenario(file);
  SearchOptions o;
  o.top = 10;
  o.judge_sim = sim;
  for (auto _ : state) {
    auto r = run_search(sc, o);
    if (!r.is_ok()) {
      state.SkipWithError(r.message().c_str());
      break;
    }
    state.counters["space"] = static_cast<double>(r->space_size);
    state.counters["judged"] = static_cast<double>(r->evaluated);
    state.counters["pruned_memory"] = static_cast<double>(r->pruned_memory);
    state.counters["pruned_bound"] = static_cast<double>(r->pruned_bound);
    state.counters["best_step_s"] = r->plans.empty() ? 0.0 : r->plans.front().step_seconds;
  }
}
BENCHMARK_CAPTURE(BM_Search, Search530B, "mt_nlg_530b_2240.yaml", false)
    ->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK_CAPTURE(BM_Search, Search175B, "gpt3_175b_1024.yaml", false)
    ->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK_CAPTURE(BM_Search, SearchSim175B, "gpt3_175b_1024.yaml", true)
    ->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

// The closed-form search's best plans for GPT-3 175B on 1024 GPUs (the 10
// that `--judge sim` re-ranks, and the hand-written plan), found once.
const SearchResult& top_plans_175b() {
  static const SearchResult r = [] {
    SearchOptions o;
    o.top = 10;
    auto s = run_search(scenario("gpt3_175b_1024.yaml"), o);
    if (!s.is_ok()) std::abort();
    return std::move(s).value();
  }();
  return r;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// One plan of the re-rank, lowered and simulated as the search's default
// judge does (planner/search_sim.cpp): CPU time of lowering, of the
// simulator's setup and of its event loop; events and flows. Arg: the
// plan's closed-form rank - 1; 10: the hand-written plan.
void BM_SimCandidate(benchmark::State& state) {
  const SearchResult& r = top_plans_175b();
  const auto i = static_cast<size_t>(state.range(0));
  const RankedPlan* p = i < r.plans.size() ? &r.plans[i] : r.hand_written ? &*r.hand_written : nullptr;
  if (!p || !p->scenario) {
    state.SkipWithError("no such plan");
    return;
  }
  const Scenario& s = *p->scenario;
  double lower_cpu = 0, setup_cpu = 0, loop_cpu = 0, step = 0;
  std::int64_t events = 0, flows = 0, tasks = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_seconds();
    auto plan = lower(s);
    lower_cpu += thread_cpu_seconds() - t0;
    if (!plan.is_ok()) {
      state.SkipWithError(plan.message().c_str());
      return;
    }
    sim::SimOptions so = sim::options_for(s);
    so.record_task_times = false;
    so.ring_max_steps = static_cast<std::int32_t>(state.range(1));
    auto sr = sim::simulate(plan->program, s.topology, s.profile, so);
    if (!sr.is_ok()) {
      state.SkipWithError(sr.message().c_str());
      return;
    }
    setup_cpu += sr->setup_cpu_seconds;
    loop_cpu += sr->run_cpu_seconds;
    step = sr->step_seconds;
    events = sr->events;
    flows = sr->flows;
    tasks = plan->program.num_tasks();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["lower_cpu_s"] = lower_cpu / n;
  state.counters["setup_cpu_s"] = setup_cpu / n;
  state.counters["loop_cpu_s"] = loop_cpu / n;
  state.counters["tasks"] = static_cast<double>(tasks);
  state.counters["events"] = static_cast<double>(events);
  state.counters["flows"] = static_cast<double>(flows);
  state.counters["sim_step_s"] = step;
  char full[64];
  std::snprintf(full, sizeof full, " | simulated step %.12g s", step);
  state.SetLabel(p->label + full);
}
BENCHMARK(BM_SimCandidate)->ArgsProduct({benchmark::CreateDenseRange(0, 10, 1), {0, 16}})->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace brigade::planner

BENCHMARK_MAIN();
