// The what-if panel's judges per edit (docs/PERFORMANCE.md, "The what-if
// panel"): what the GUI thread does on each edit (apply_edits, then
// check_plan and the closed form), and the simulator's re-judgement that
// runs on the worker (lower at the app's granularity + simulate, untraced).
// The edit: ZeRO 2 and a device at half speed.
//
//   build/default/bench/gui_whatif_bench
#include <string>

#include <benchmark/benchmark.h>

#include "core/scenario.hpp"
#include "gui/model/whatif.hpp"

namespace brigade::gui {
namespace {

const char* const kScenarios[] = {"pmap_train_step", "llm_13b_128gpu", "gpt3_175b_1024"};

Scenario edited(int which) {
  auto s =
      load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + kScenarios[which] + ".yaml");
  if (!s.is_ok()) std::abort();
  WhatIfEdits e = starting_edits(*s);
  if (s->model_kind == ModelKind::kTransformer) e.strategy.zero = 2;
  e.speed[1] = 0.5;
  auto out = apply_edits(*s, e);
  if (!out.is_ok()) std::abort();
  return std::move(out).value();
}

void BM_ClosedFormEdit(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  auto base =
      load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + kScenarios[which] + ".yaml");
  if (!base.is_ok()) std::abort();
  WhatIfEdits e = starting_edits(*base);
  if (base->model_kind == ModelKind::kTransformer) e.strategy.zero = 2;
  e.speed[1] = 0.5;
  for (auto _ : state) {
    auto s = apply_edits(*base, e);
    auto j = judge_closed_form(*s);
    benchmark::DoNotOptimize(j.is_ok() ? j->step_seconds : 0);
  }
  state.SetLabel(kScenarios[which]);
}
BENCHMARK(BM_ClosedFormEdit)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_SimulatedEdit(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const Scenario s = edited(which);
  for (auto _ : state) {
    auto j = judge_simulated(s, nullptr);
    benchmark::DoNotOptimize(j.is_ok() ? j->step_seconds : 0);
  }
  state.SetLabel(kScenarios[which]);
}
BENCHMARK(BM_SimulatedEdit)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace brigade::gui

BENCHMARK_MAIN();
