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
    bytes = brigade::planner::explain_plan_json(*plan, *sc, *e).dump().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
}

BENCHMARK_CAPTURE(BM_ExplainFromThePlan, gpt_1t_1024, "experiments/gpt_1t_1024.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExplainFromThePlan, gpt3_175b_1024, "gpt3_175b_1024.yaml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExplainFromThePlan, llm_13b_128gpu, "llm_13b_128gpu.yaml")
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
