// brigade explain SCENARIO: what the planner decided, per device (chef): the
// shapes it holds, each collective and why it is there, memory by category.
// By default from the plan alone (planner::describe and the closed form: no
// Program, so a trillion-parameter plan on 1024 GPUs takes well under a
// second); --program lowers the Program and explains its tasks.
// A plan that cannot be (check_plan) is bad input, exit 2.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/kitchen.hpp"
#include "cli/verbs.hpp"
#include "cli/zh_texts.hpp"
#include "costmodel/plan.hpp"
#include "planner/explain.hpp"
#include "planner/lower.hpp"

namespace brigade::cli {
namespace {

struct ExplainOptions {
  std::string scenario;
  std::string granularity = "auto";
  bool json = false;
  bool program = false;
  bool kitchen = false;
  bool per_device = false;
  std::string lang = "en";
};

void run_explain(const ExplainOptions& o) {
  planner::LowerOptions options;
  options.granularity = parse_granularity_flag(o.granularity);
  const auto lang = parse_lang(o.lang);
  if (!lang) parse_choice_flag("--lang", o.lang, {"en", "zh"});  // throws with the choices
  if (o.kitchen && (o.program || o.json))
    throw BadInput{std::string("brigade: error: --kitchen: found it with ") +
                   (o.program ? "--program" : "--json") +
                   "; expected --kitchen alone (a narration of the plan, for people)"};
  if (o.lang != "en" && !o.kitchen)
    throw BadInput{
        "brigade: error: --lang: found it without --kitchen; expected --kitchen with it "
        "(the other reports are in English)"};
  if (o.per_device && (!o.json || o.program))
    throw BadInput{std::string("brigade: error: --per-device: found it ") +
                   (o.program ? "with --program" : "without --json") +
                   "; expected --json without --program (the text report and the Program's "
                   "JSON list devices their own way)"};
  const Scenario scenario = load_scenario_or_throw(o.scenario);
  // The narration's plan summary and chefs' roles in its language (the
  // other reports stay English).
  if (o.kitchen) use_language(*lang);
  if (o.program) {
    auto plan = planner::lower(scenario, options);
    if (!plan.is_ok()) throw_status(plan.status());
    if (o.json)
      std::cout << planner::explain_json(*plan, scenario).dump(2) << "\n";
    else
      std::cout << planner::explain_text(*plan, scenario);
    return;
  }
  auto plan = planner::describe(scenario, options);
  if (!plan.is_ok()) throw_status(plan.status());
  auto estimate = cost::estimate_plan(scenario);
  if (!estimate.is_ok()) throw_status(estimate.status());
  if (o.kitchen) {
    std::vector<std::string> names;
    for (const Device& d : scenario.topology.devices()) names.push_back(d.name);
    std::cout << kitchen_text(
        planner::explain_plan_json(*plan, scenario, *estimate, planner::DeviceListing::kGroups),
        names, *lang);
  } else if (o.json && o.per_device)
    planner::write_explain_plan_json_per_device(std::cout, *plan, scenario, *estimate);
  else if (o.json)
    std::cout << planner::explain_plan_json(*plan, scenario, *estimate,
                                            planner::DeviceListing::kGroups)
                     .dump(2)
              << "\n";
  else
    std::cout << planner::explain_plan_text(*plan, scenario, *estimate);
}

const RegisterVerb kRegister("explain", 22, [](CLI::App& app) {
  auto opts = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "What the planner decided: for each device the shapes it holds, each collective and\n"
      "why it is there, memory by category; parameters and FLOPs per iteration. Plans that\n"
      "cannot be (degrees against devices, batch against degrees, ...) are refused. From the\n"
      "plan alone (the closed form's communication and memory); --program lowers the Program.");
  cmd->add_option("scenario", opts->scenario, "scenario file (.yaml, .yml, .json)")->required();
  cmd->add_option("--granularity", opts->granularity,
                  "task granularity: auto, kernel, region or step (default auto)");
  cmd->add_flag("--program", opts->program,
                "lower the whole Program and explain its tasks, collectives and buffers (slow "
                "for plans of millions of tasks)");
  cmd->add_flag(
      "--kitchen", opts->kitchen,
      "the plan told in the kitchen analogy: which chef (device) holds which shard on its "
      "station (memory), which runner (link) carries what, who waits at the sauce bowl "
      "(AllReduce)");
  cmd->add_option("--lang", opts->lang, "with --kitchen: en (default) or zh");
  cmd->add_flag("--json", opts->json,
                "one JSON object on stdout (SI units); devices alike in shapes, collectives and "
                "memory as one entry of \"device_groups\" with their id ranges");
  cmd->add_flag("--per-device", opts->per_device,
                "with --json: one entry per device in \"devices\" instead of the groups (16,384 "
                "entries for a 16,384-GPU plan)");
  cmd->callback([opts] { run_explain(*opts); });
});

}  // namespace
}  // namespace brigade::cli
