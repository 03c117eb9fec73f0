// `brigade explain` without --program on the largest scenarios: the plan
// described (planner::describe, no Program), the closed form's communication
// and memory, and the JSON explanation (docs/PERFORMANCE.md, "explain").
#include <benchmark/benchmark.h>

#include <string>

#include <nlohmann/json.hpp>

#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "planner/explain.hpp"
#include "planner/lower.hpp"
#include "planner/sweep.hpp"

namespace {

void BM_ExplainFromThePlan(benchmark::State& state, const char* file) {
  auto sc = brigade::load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + file);
  if (!sc.is_ok()) {
    state.SkipWithError(sc.message().c_str());
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    auto plan = brigade::planner::describe(*sc);
    auto e = brigade::cost::estimate_plan(*sc);
    if (!plan.is_ok() || !e.is_ok()) {
      state.SkipWithError("describe or estimate_plan failed");
      return;
    }
    // As `brigade explain --json` prints it: devices alike as groups.
    bytes = brigade::planner::explain_plan_json(*plan, *sc, *e,
                                                brigade::planner::DeviceListing::kGroups)
                .dump()
                .size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
}

// `brigade cost`: the closed form and its Amdahl table (the plan at data
// degrees 1, 2, 4, ... up to twice its own, each on a topology of its own).
// The scenario is read in the loop, so that no route is cached from the last
// iteration.
void BM_CostWithAmdahl(benchmark::State& state, const char* file) {
  const std::string path = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + file;
  for (auto _ : state) {
    auto sc = brigade::load_scenario(path);
    if (!sc.is_ok()) {
      state.SkipWithError(sc.message().c_str());
      return;
    }
    auto e = brigade::cost::estimate_plan(*sc);
    if (!e.is_ok()) {
      state.SkipWithError(e.message().c_str());
      return;
    }
    brigade::planner::add_amdahl_through_plan(*sc, *e);
    benchmark::DoNotOptimize(e->amdahl_p);
  }
}

BENCHMARK_CAPTURE(BM_ExplainFromThePlan, llama3_405b_16384, "llama3_405b_16384gpu.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExplainFromThePlan, deepseek_v3_2048, "deepseek_v3_shaped_2048gpu.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CostWithAmdahl, llama3_405b_16384, "llama3_405b_16384gpu.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExplainFromThePlan, gpt_1t_1024, "experiments/gpt_1t_1024.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExplainFromThePlan, gpt3_175b_1024, "gpt3_175b_1024.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExplainFromThePlan, llm_13b_128gpu, "llm_13b_128gpu.yaml")
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
