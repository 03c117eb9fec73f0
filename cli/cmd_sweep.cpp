// brigade sweep SCENARIO --devices 1,2,4,... | --set KEY=V1,V2,... [--set ...]
// [--fixed-devices]: one plan judged at several device counts (the data
// degree scales, the global batch stays), values of one strategy key, or a
// grid of several; step time, peak memory, speedup, efficiency, Amdahl's p
// and where adding devices stops paying (at a fixed device count: the step
// relative to the first point). Progress on stderr.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/units.hpp"
#include "costmodel/plan.hpp"
#include "planner/lower.hpp"
#include "planner/set_values.hpp"
#include "planner/sweep.hpp"
#include "sim/simulator.hpp"

namespace brigade::cli {
namespace {

struct SweepOptions {
  std::string scenario, devices, judge = "cost";
  std::vector<std::string> set;
  std::string profile;  // --profile
  bool csv = false, json = false, quiet = false, fixed_devices = false;
};

void run_sweep(const SweepOptions& o) {
  if (o.devices.empty() == o.set.empty())
    throw BadInput{"brigade: error: sweep: found " +
                   std::string(o.devices.empty() ? "neither --devices nor --set"
                                                 : "both --devices and --set") +
                   "; expected one of them"};
  if (o.csv && o.json)
    throw BadInput{"brigade: error: sweep: found both --csv and --json; expected at most one"};
  const std::string judge_name = parse_choice_flag("--judge", o.judge, {"cost", "sim"});
  planner::SweepSpec spec;
  spec.fixed_devices = o.fixed_devices;
  if (!o.devices.empty()) {
    for (int n : parse_int_list_flag("--devices", o.devices, 1, ScenarioLimits::kMaxDevices))
      spec.values.push_back(std::to_string(n));
  }
  for (size_t i = 0; i < o.set.size(); ++i) {
    const std::string& kv = o.set[i];
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
      throw_flag_error("--set", kv, "KEY=V1,V2,... such as tensor=1,2,4,8");
    std::pair<std::string, std::vector<std::string>> axis{kv.substr(0, eq),
                                                          planner::split_values(kv.substr(eq + 1))};
    if (i == 0) {
      spec.key = axis.first;
      spec.values = axis.second;
    } else {
      spec.more.push_back(axis);
    }
  }
  const Scenario scenario = load_scenario_or_throw(o.scenario, o.profile);
  planner::SweepJudge judge = [](const Scenario& s) -> Result<planner::SweepJudgement> {
    auto e = cost::estimate_plan(s);
    if (!e.is_ok()) return e.status();
    return planner::sweep_judgement(*e);
  };
  if (judge_name == "sim")
    judge = [](const Scenario& s) -> Result<planner::SweepJudgement> {
      // The planner's Program through the simulator, with the scenario's
      // network model and device speeds.
      auto plan = planner::lower(s);
      if (!plan.is_ok()) return plan.status();
      sim::SimOptions options = sim_options_for(s);
      options.record_task_times = false;
      auto r = sim::simulate(plan->program, s.topology, s.profile, options);
      if (!r.is_ok()) return r.status();
      return planner::sweep_judgement(*r, s);
    };
  auto progress = [&](int done, int total, const planner::SweepPoint& p) {
    if (o.quiet) return;
    std::cerr << fmt::format("sweep: {}/{} {}={} ({} devices): {}\n", done, total, spec.key,
                             p.value, p.devices,
                             p.error.empty() ? format_seconds(p.step_seconds) : p.error);
  };
  auto r = planner::run_sweep(scenario, spec, judge_name, judge, progress);
  if (!r.is_ok()) throw_status(r.status());
  if (o.json)
    std::cout << planner::sweep_json(*r).dump(2) << "\n";
  else if (o.csv)
    std::cout << planner::sweep_csv(*r);
  else
    std::cout << planner::sweep_text(*r);
  // A point that could not be judged fails the sweep (exit 2), after the
  // table that says why (issue 20, item 6).
  size_t failed = 0;
  const planner::SweepPoint* first_failed = nullptr;
  for (const planner::SweepPoint& p : r->points)
    if (!p.error.empty() && failed++ == 0) first_failed = &p;
  if (first_failed)
    throw BadInput{fmt::format(
        "brigade: error: sweep: found {} of {} points not judged (the first: {}={}); expected "
        "every point judged (the table above says why)",
        failed, r->points.size(), r->key, first_failed->value)};
}

const RegisterVerb kRegister("sweep", 45, [](CLI::App& app) {
  auto opts = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Judge one scenario at several device counts (the data degree scales, the global\n"
      "batch stays), values of one strategy key, or a grid of several (--set repeated;\n"
      "--fixed-devices keeps the cluster, data fills it): step time, peak memory, speedup,\n"
      "efficiency, the fitted Amdahl p, and where adding devices stops paying.");
  cmd->add_option("scenario", opts->scenario, "scenario file (.yaml, .yml, .json)")->required();
  cmd->add_option("--profile", opts->profile,
                  "hardware profile replacing the scenario's (brigade calibrate --out)")
      ->check(input_path_check());
  cmd->add_option("--devices", opts->devices, "device counts, e.g. 1,2,4,8");
  cmd->add_option("--set", opts->set,
                  "KEY=V1,V2,... over a strategy or training key, e.g. tensor=1,2,4,8 or "
                  "schedule=gpipe,1f1b; repeat it for a grid of every combination");
  cmd->add_flag("--fixed-devices", opts->fixed_devices,
                "keep the topology's device count: data = devices / (tensor x pipeline); the "
                "table gives each step relative to the first point");
  cmd->add_option("--judge", opts->judge,
                  "who judges each point: cost (closed form, default) or sim (the planner's "
                  "Program through the simulator)");
  cmd->add_flag("--csv", opts->csv,
                "CSV on stdout: value,devices,step_seconds,speedup,efficiency,peak_memory_bytes,fits,error");
  cmd->add_flag("--json", opts->json, "one JSON object on stdout");
  cmd->add_flag("--quiet", opts->quiet, "no progress on stderr");
  cmd->callback([opts] { run_sweep(*opts); });
});

}  // namespace
}  // namespace brigade::cli
