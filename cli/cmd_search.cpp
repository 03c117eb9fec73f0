// brigade search SCENARIO: automatic placement (planner/search.hpp): the best
// plans that fit, ranked, each with the reason it loses to the winner; the
// closest that do not fit; what was judged and pruned. Progress on stderr.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/file_io.hpp"
#include "core/units.hpp"
#include "planner/search.hpp"

namespace brigade::cli {
namespace {

struct SearchCliOptions {
  std::string scenario, profile, objective = "step_time", budget, top = "10", seed = "1", judge = "cost",
                                 emit, sim_ring_steps = "16";
  std::vector<std::string> set;
  bool json = false, quiet = false;
};

void run_search_verb(const SearchCliOptions& o) {
  planner::SearchOptions so;
  so.objective = parse_choice_flag("--objective", o.objective, {"step_time", "memory"}) == "memory"
                     ? planner::SearchObjective::kMemory
                     : planner::SearchObjective::kStepTime;
  if (!o.budget.empty()) {
    auto b = parse_quantity(o.budget, Dimension::kSeconds);
    if (!b.is_ok() || !(*b > 0))
      throw_flag_error("--budget", o.budget, "a positive duration such as 5s or 2min (a bare number is seconds)");
    so.budget_seconds = *b;
  }
  so.top = parse_int_flag("--top", o.top, 1);
  {
    long long seed = 0;
    size_t used = 0;
    try {
      seed = std::stoll(o.seed, &used);
    } catch (...) {
      used = 0;
    }
    if (used != o.seed.size() || seed < 0) throw_flag_error("--seed", o.seed, "a whole number >= 0");
    so.seed = static_cast<std::uint64_t>(seed);
  }
  so.judge_sim = parse_choice_flag("--judge", o.judge, {"cost", "sim"}) == "sim";
  so.sim_ring_max_steps = parse_int_flag("--sim-ring-steps", o.sim_ring_steps, 0);
  // With --judge sim the planner's own judge runs: the Program simulated as
  // `brigade simulate` runs it (network model, device speeds, runtime
  // conditions), stopped when the budget runs out.
  std::vector<std::string> keys_set;
  for (const std::string& kv : o.set) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
      throw_flag_error("--set", kv, "KEY=V1,V2,... such as tensor=4,8");
    // A key given twice used to keep the last list silently.
    const std::string key = kv.substr(0, eq);
    if (std::find(keys_set.begin(), keys_set.end(), key) != keys_set.end())
      throw_flag_error("--set", kv,
                       fmt::format("each key once ({0} is set twice; list its values together, "
                                   "such as {0}=4,8)",
                                   key));
    keys_set.push_back(key);
    Status st = planner::restrict_grid(so.grid, kv.substr(0, eq), kv.substr(eq + 1));
    if (!st.is_ok()) throw_status(st);
  }
  const Scenario scenario = load_scenario_or_throw(o.scenario, o.profile);
  if (!o.set.empty() && scenario.model_kind != ModelKind::kTransformer)
    throw BadInput{"brigade: error: --set: found a graph model; expected a transformer (--set restricts "
                   "the transformer strategy space)"};
  if (!o.quiet) {
    so.progress = [](const planner::SearchProgress& p) {
      if (p.stage == "space") {
        std::cerr << fmt::format("search: the space holds {} plans\n", p.total);
        return;
      }
      std::string line = fmt::format("search: {}: {} judged", p.stage, p.evaluated);
      if (p.pruned > 0) line += fmt::format(", {} pruned", p.pruned);
      if (p.total > 0 && p.stage == "closed form") line += fmt::format(" of {}", p.total);
      if (!p.best_label.empty() && p.best > 0 && p.stage == "closed form")
        line += fmt::format("; best so far {} ({})", format_seconds(p.best), p.best_label);
      else if (!p.best_label.empty())
        line += fmt::format("; {}", p.best_label);
      std::cerr << line << "\n";
    };
  }
  auto r = planner::run_search(scenario, so);
  if (!r.is_ok()) throw_status(r.status());
  if (!o.quiet)
    std::cerr << fmt::format("search: {} plans in the space, {} judged in {}\n", r->space_size, r->evaluated,
                             format_seconds(r->elapsed_seconds));
  if (r->evaluated == 0 && r->budget_exhausted)
    throw BadInput{flag_error_line("--budget", o.budget,
                                   "a budget long enough to judge at least one plan (none was judged)")};
  if (r->plans.empty()) {
    std::string line = "brigade: error: search: no plan fits in memory";
    if (!r->not_fitting.empty()) {
      const planner::RankedPlan& c = r->not_fitting.front();
      line += fmt::format("; the closest, {}, is {}", c.label, c.overflow);
    } else if (r->evaluated == 0) {
      line += "; no plan could be judged";
      if (!r->invalid_example.empty()) line += " (" + r->invalid_example + ")";
    }
    if (!o.json) std::cout << planner::search_text(*r, so.top);
    throw BadInput{line};
  }
  if (!o.emit.empty()) {
    auto text = planner::plan_scenario_yaml(scenario, r->plans.front());
    if (!text.is_ok()) throw_status(text.status());
    Status w = write_file_atomically(o.emit, *text);
    if (!w.is_ok()) throw_status(w);
    if (!o.quiet) std::cerr << "search: wrote the winner to " << o.emit << "\n";
  }
  if (o.json)
    std::cout << planner::search_json(*r).dump(2) << "\n";
  else
    std::cout << planner::search_text(*r, so.top);
}

const RegisterVerb kRegister("search", 40, [](CLI::App& app) {
  auto opts = std::make_shared<SearchCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "search",
      "Automatic placement on the scenario's cluster: for a transformer, the strategy space\n"
      "(tensor x pipeline x data x context [x expert] x sequence parallelism x ZeRO x\n"
      "micro-batch x schedule x recomputation x rank order x bucket) judged in closed form and\n"
      "pruned; for a graph,\n"
      "per-op placement (branch and bound or annealing), stage splits (DP) and mesh shardings\n"
      "(ILP, CBC). The best plans that fit, why each loses to the winner, the closest that do\n"
      "not fit, and where the scenario's own plan ranks. docs/search.md.");
  cmd->add_option("scenario", opts->scenario, "scenario file (.yaml, .yml, .json)")->required();
  cmd->add_option("--profile", opts->profile, "hardware profile replacing the scenario's");
  cmd->add_option("--objective", opts->objective, "step_time (default) or memory (the smallest peak)");
  cmd->add_option("--budget", opts->budget, "wall-clock limit, e.g. 5s or 2min (default: none)");
  cmd->add_option("--top", opts->top, "plans to report and, with --judge sim, to simulate (default 10)");
  cmd->add_option("--seed", opts->seed, "seed of the annealing search of large graphs (default 1)");
  cmd->add_option("--judge", opts->judge,
                  "cost (closed form, default) or sim (the best --top plans re-ranked by the simulator)");
  cmd->add_option("--sim-ring-steps", opts->sim_ring_steps,
                  "with --judge sim: a ring phase of more than N steps runs as N super-steps "
                  "(default 16; 0: every step, as `brigade simulate` does)");
  cmd->add_option("--set", opts->set,
                  "KEY=V1,V2,... restricts one key of the transformer space, e.g. tensor=4,8 "
                  "(repeatable; keys as in docs/search.md)");
  cmd->add_option("--emit", opts->emit,
                  "write the winner as a scenario file (simulate/execute open it)")
      ->check(output_path_check());
  cmd->add_flag("--json", opts->json, "one JSON object on stdout: plans[] best first, counts, notes");
  cmd->add_flag("--quiet", opts->quiet, "no progress on stderr");
  cmd->callback([opts] { run_search_verb(*opts); });
});

}  // namespace
}  // namespace brigade::cli
