// brigade explain SCENARIO: what the planner decided, per device (chef): the
// shapes it holds, each collective and why it is there, memory by category.
// A plan that cannot be (check_plan) is bad input, exit 2.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "planner/explain.hpp"
#include "planner/lower.hpp"

namespace brigade::cli {
namespace {

struct ExplainOptions {
  std::string scenario;
  std::string granularity = "auto";
  bool json = false;
};

void run_explain(const ExplainOptions& o) {
  planner::LowerOptions options;
  options.granularity = parse_granularity_flag(o.granularity);
  const Scenario scenario = load_scenario_or_throw(o.scenario);
  auto plan = planner::lower(scenario, options);
  if (!plan.is_ok()) throw_status(plan.status());
  if (o.json)
    std::cout << planner::explain_json(*plan, scenario).dump(2) << "\n";
  else
    std::cout << planner::explain_text(*plan, scenario);
}

const RegisterVerb kRegister("explain", 22, [](CLI::App& app) {
  auto opts = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "What the planner decided: for each device the shapes it holds, each collective and\n"
      "why it is there, memory by category; parameters and FLOPs per iteration. Plans that\n"
      "cannot be (degrees against devices, batch against degrees, ...) are refused.");
  cmd->add_option("scenario", opts->scenario, "scenario file (.yaml, .yml, .json)")->required();
  cmd->add_option("--granularity", opts->granularity,
                  "task granularity: auto, kernel, region or step (default auto)");
  cmd->add_flag("--json", opts->json, "one JSON object on stdout (SI units)");
  cmd->callback([opts] { run_explain(*opts); });
});

}  // namespace
}  // namespace brigade::cli
