// brigade cost SCENARIO: the closed-form judge (costmodel/plan.hpp). It works
// from the plan's parameters and never builds a Program (DESIGN.md).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/plan_report.hpp"
#include "planner/lower.hpp"
#include "planner/sweep.hpp"

namespace brigade::cli {
namespace {

struct CostOptions {
  std::string scenario;
  std::string profile;
  bool json = false;
};

void run_cost(const CostOptions& o) {
  const Scenario scenario = load_scenario_or_throw(o.scenario, o.profile);
  auto estimate = cost::estimate_plan(scenario);
  if (!estimate.is_ok()) throw_status(estimate.status());
  // Amdahl through the plan: the closed form at other device counts, as `sweep` does.
  planner::add_amdahl_through_plan(scenario, *estimate);
  // A plan the simulator runs with fused tasks (too large for one task per
  // kernel) differs from the closed form in one more way: say so.
  // (Those judge_differences names only for fused tasks; the others are in
  // the estimate's notes already.)
  auto described = planner::describe(scenario);
  const bool fused = described.is_ok() && described->granularity != planner::Granularity::kKernel;
  if (fused) {
    const std::vector<cost::JudgeDifference> plain = cost::judge_differences(scenario, false);
    for (const cost::JudgeDifference& d : cost::judge_differences(scenario, true))
      if (std::none_of(plain.begin(), plain.end(),
                       [&](const cost::JudgeDifference& p) { return p.text == d.text; }))
        estimate->notes.push_back("differs from `simulate --network ideal`: " + d.text);
  }
  // No NaN or infinity is ever printed as a result (docs/RELIABILITY.md):
  // the readers' limits keep them out; this is the backstop, a bug's exit.
  require_finite("cost", {{"the step time", estimate->step_seconds},
                          {"the compute time", estimate->compute_seconds},
                          {"the parameters", estimate->parameters},
                          {"the FLOPs per step", estimate->hardware_flops_per_iteration},
                          {"the MFU", estimate->mfu}});
  for (const cost::DeviceMemoryEstimate& m : estimate->memory)
    require_finite("cost", {{"a device's peak memory", m.peak_bytes}});
  if (o.json) {
    nlohmann::json j = cost::plan_estimate_json(*estimate);
    // The same differences with the bounds the cross-judge tests hold each
    // quantity to (relative; the largest that applies), for a script
    // holding the two judges to each other (scripts/judge-sweep).
    nlohmann::json diffs = nlohmann::json::array();
    for (const cost::JudgeDifference& d : cost::judge_differences(scenario, fused))
      diffs.push_back({{"text", d.text},
                       {"step_tolerance", d.step_tolerance},
                       {"communication_tolerance", d.communication_tolerance},
                       {"memory_tolerance", d.memory_tolerance},
                       {"calls_differ", d.calls_differ}});
    j["judge_differences"] = std::move(diffs);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << cost::plan_estimate_text(*estimate);
  }
  // A plan that does not fit is judged all the same (exit 0, README "Exit
  // codes"); one line on stderr says so, whatever the format on stdout.
  size_t over = 0;
  const cost::DeviceMemoryEstimate* worst = nullptr;
  for (const cost::DeviceMemoryEstimate& m : estimate->memory)
    if (!m.fits) {
      ++over;
      if (!worst || m.peak_bytes - m.capacity_bytes > worst->peak_bytes - worst->capacity_bytes)
        worst = &m;
    }
  if (worst)
    warn_does_not_fit(over, estimate->memory.size(), worst->device, worst->peak_bytes,
                      worst->capacity_bytes, scenario.topology);
}

const RegisterVerb kRegister("cost", 20, [](CLI::App& app) {
  auto opts = std::make_shared<CostOptions>();
  CLI::App* cmd = app.add_subcommand(
      "cost",
      "The closed-form judge: step time, communication by collective, memory per device by\n"
      "category and peak, an Amdahl table; for an explicit graph with a placement, the\n"
      "seed's Cost(P). Computed from the plan's parameters, without a Program.");
  cmd->add_option("scenario", opts->scenario, "scenario file (.yaml, .yml, .json)")->required();
  cmd->add_option("--profile", opts->profile,
                  "hardware profile replacing the scenario's (brigade calibrate --out)")
      ->check(input_path_check());
  cmd->add_flag("--json", opts->json, "one JSON object on stdout (SI units)");
  cmd->callback([opts] { run_cost(*opts); });
});

}  // namespace
}  // namespace brigade::cli
