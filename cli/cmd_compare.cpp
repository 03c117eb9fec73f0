// brigade compare A B: two runs side by side. A and B are scenarios (judged
// by the simulator, or by the closed form with --judge cost) or traces
// (Brigade's Chrome JSON, .json.gz too, measured or simulated; other tools'
// Chrome traces best effort). The step, then the differences per device
// (busy, communication, exposed, idle, peak memory) and per task kind,
// largest first (core/run_compare.hpp). Runs of different programs are
// compared as far as they can be, and the report says what differs.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/file_io.hpp"
#include "core/run_compare.hpp"
#include "core/run_figures.hpp"
#include "core/trace.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/plan_figures.hpp"
#include "planner/lower.hpp"
#include "sim/simulator.hpp"

namespace brigade::cli {
namespace {

struct CompareOptions {
  std::string a, b;
  std::string judge = "sim";
  std::string network;
  std::string ignore_runtime;  // a, b or both
  int rows = 12;
  bool json = false;
};

// A trace (gzip, a JSON array, or an object with traceEvents / Brigade's
// header) or a scenario, from the file's first bytes.
bool looks_like_trace(const std::string& path) {
  // Not std::ifstream: a FIFO with no writer would hang it (open_input_file
  // refuses it, and the scenario reader then says why).
  auto file = open_input_file(path, "a scenario or a trace");
  if (!file.is_ok()) return false;
  char head[4096] = {};
  ssize_t n = 0;
  do {
    n = ::read(file->fd(), head, sizeof head);
  } while (n < 0 && errno == EINTR);
  const std::string text(head, static_cast<size_t>(std::max<ssize_t>(n, 0)));
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
      static_cast<unsigned char>(text[1]) == 0x8b)
    return true;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return false;
  if (text[first] == '[') return true;
  return text[first] == '{' && (text.find("\"traceEvents\"") != std::string::npos ||
                                 text.find("\"brigade\"") != std::string::npos);
}

RunFigures figures_of(const std::string& path, const CompareOptions& o, bool ignore_runtime) {
  if (looks_like_trace(path)) {
    auto trace = read_chrome_trace_file(path);
    if (!trace.is_ok()) throw_status(trace.status());
    return figures_of_trace(*trace, path);
  }
  Scenario scenario = load_scenario_or_throw(path);
  if (ignore_runtime) scenario.runtime = RuntimeConditions{};
  if (o.judge == "cost") {
    auto e = cost::estimate_plan(scenario);
    if (!e.is_ok()) throw_status(e.status());
    return cost::figures_of_estimate(*e, scenario.topology, path);
  }
  auto plan = planner::lower(scenario);
  if (!plan.is_ok()) throw_status(plan.status());
  sim::SimOptions options = sim_options_for(scenario, o.network);
  options.record_trace = true;
  options.trace_steps = false;  // per-kind bytes are the same; far fewer records
  auto r = sim::simulate(plan->program, scenario.topology, scenario.profile, options);
  if (!r.is_ok()) throw_status(r.status());
  // Collectives by their Program's kind; the simulator's step (an input
  // pipeline before the first span included). The app's compare view reads
  // an open scenario the same way.
  return figures_of_simulation(r->trace, plan->program, r->step_seconds, path);
}

void run_compare(const CompareOptions& o) {
  parse_choice_flag("--judge", o.judge, {"sim", "cost"});
  if (!o.ignore_runtime.empty()) parse_choice_flag("--ignore-runtime", o.ignore_runtime, {"a", "b", "both"});
  if (!o.network.empty() && o.judge == "cost")
    throw BadInput{"brigade: error: --network: found it with --judge cost; expected --judge sim "
                   "(the closed form has no network model)"};
  if (o.rows < 0) throw_flag_error("--rows", std::to_string(o.rows), "a whole number >= 0");
  const bool ignore_a = o.ignore_runtime == "a" || o.ignore_runtime == "both";
  const bool ignore_b = o.ignore_runtime == "b" || o.ignore_runtime == "both";
  const RunFigures a = figures_of(o.a, o, ignore_a);
  const RunFigures b = figures_of(o.b, o, ignore_b);
  RunComparison c = compare_runs(a, b);
  if (ignore_a != ignore_b)
    c.differences.push_back(std::string(ignore_a ? "A" : "B") +
                            " without its runtime: conditions (what the plan expected)");
  if (o.json) {
    std::cout << comparison_json(c).dump(2) << "\n";
    return;
  }
  std::cout << comparison_text(c, o.rows);
}

const RegisterVerb kRegister("compare", 24, [](CLI::App& app) {
  auto opts = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Two runs side by side: scenarios (simulated, or --judge cost) or traces (brigade\n"
      "simulate/execute/validate --trace, .json.gz too). The step, then the differences per\n"
      "device (busy, communication, exposed, idle, peak memory) and per task kind, largest\n"
      "first; runs of different programs are compared as far as they can be.");
  cmd->add_option("A", opts->a, "the first run: a scenario or a trace")->required()->check(input_path_check());
  cmd->add_option("B", opts->b, "the second run: a scenario or a trace")->required()->check(input_path_check());
  cmd->add_option("--judge", opts->judge, "judge of scenarios: sim (default) or cost");
  cmd->add_option("--network", opts->network,
                  "sim: flow or ideal (default: each scenario's simulation.network)");
  cmd->add_option("--ignore-runtime", opts->ignore_runtime,
                  "a, b or both: judge that scenario without its runtime: conditions (what the "
                  "plan expected)");
  cmd->add_option("--rows", opts->rows, "rows per table (default 12; 0: all)");
  cmd->add_flag("--json", opts->json, "one JSON object on stdout (SI units), every row");
  cmd->callback([opts] { run_compare(*opts); });
});

}  // namespace
}  // namespace brigade::cli
