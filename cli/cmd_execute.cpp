// brigade execute SCENARIO: the planner's Program on real hardware (CPU
// threads, or CUDA + NCCL), every collective's result checked; median and
// p90 of the step and of each task kind over repeated steps.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_run.hpp"
#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"
#include "realexec/summary.hpp"

namespace brigade::cli {
namespace {

struct ExecuteOptions {
  std::string scenario;
  RunFlags run;
  int repeat = 5;
  std::string trace;
  bool json = false;
  bool quiet = false;
};

// The timed step whose time is the median (the lower middle for an even count).
size_t median_step(const std::vector<double>& seconds) {
  std::vector<size_t> order(seconds.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return seconds[a] < seconds[b]; });
  return order.empty() ? 0 : order[(order.size() - 1) / 2];
}

void run_execute(const ExecuteOptions& o) {
  if (o.repeat < 1) throw_flag_error("--repeat", std::to_string(o.repeat), "a whole number >= 1");
  PreparedRun prepared = prepare_run(o.scenario, o.run);
  auto executor = make_backend_executor(o.run);
  const Program& program = prepared.plan.program;
  auto progress = [&](double done, double total) {
    if (!o.quiet) std::cerr << fmt::format("execute: step {:.0f}/{:.0f}\n", done, total);
  };
  auto run = realexec::run_repeated(*executor, program, prepared.scenario.topology,
                                    prepared.scenario.profile, o.repeat, progress,
                                    realexec::kWarmupSeconds, prepared.scenario.runtime);
  if (!run.is_ok()) throw_status(run.status());
  for (const std::string& w : run->warnings) std::cerr << "brigade: warning: " << w << "\n";
  const realexec::StepSummary& s = run->summary;
  const Trace& median_trace = run->steps[median_step(s.step_seconds)];
  if (!o.trace.empty()) {
    const Status written = write_chrome_trace_file(median_trace, o.trace);
    if (!written.is_ok()) throw_status(written);
  }
  if (o.json) {
    nlohmann::json j;
    j["scenario"] = prepared.scenario.name;
    j["backend"] = o.run.backend;
    j["source"] = median_trace.source;
    j["tasks"] = program.num_tasks();
    j["steps"] = s.steps;
    j["step_seconds"] = s.step_seconds;
    j["median_step_seconds"] = s.median_step_seconds;
    j["p90_step_seconds"] = s.p90_step_seconds;
    nlohmann::json kinds = nlohmann::json::array();
    for (const auto& k : s.kinds)
      kinds.push_back({{"kind", k.kind},
                       {"spans_per_step", k.spans_per_step},
                       {"median_seconds", k.median_seconds},
                       {"p90_seconds", k.p90_seconds}});
    j["kinds"] = kinds;
    j["warnings"] = run->warnings;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{} on {} ({}): {} timed steps after one verified warm-up\n",
                           prepared.scenario.name, median_trace.source,
                           prepared.scenario.topology.preset, s.steps);
  std::cout << fmt::format("  step time   median {}   p90 {}\n\n", format_seconds(s.median_step_seconds),
                           format_seconds(s.p90_step_seconds));
  std::cout << fmt::format("  {:<16} {:>10} {:>12} {:>12}\n", "task kind", "per step", "median", "p90");
  for (const auto& k : s.kinds)
    std::cout << fmt::format("  {:<16} {:>10} {:>12} {:>12}\n", k.kind, k.spans_per_step,
                             format_seconds(k.median_seconds), format_seconds(k.p90_seconds));
  std::cout << "  (per kind: summed span time per step, device-seconds; a collective counts once per rank)\n";
}

const RegisterVerb kRegister("execute", 30, [](CLI::App& app) {
  auto opts = std::make_shared<ExecuteOptions>();
  CLI::App* cmd = app.add_subcommand(
      "execute",
      "Run the planner's Program for real (CPU threads, or CUDA + NCCL), collectives checked\n"
      "against a reference; median and p90 of the step and of each task kind.");
  cmd->add_option("scenario", opts->scenario, "scenario file (.yaml, .yml, .json)")->required();
  cmd->add_option("--backend", opts->run.backend, "cpu (default) or cuda");
  cmd->add_option("--repeat", opts->repeat, "timed steps after the warm-up (default 5)");
  cmd->add_option("--profile", opts->run.profile, "hardware profile replacing the scenario's")
      ->check(input_path_check());
  cmd->add_option("--trace", opts->trace, "write the median step's Chrome Trace Event JSON")
      ->check(output_path_check());
  cmd->add_flag("--compute-16bit-in-f32", opts->run.compute_16bit_in_f32,
                "cpu: run f16/bf16 kernels in f32 (else they are refused)");
  cmd->add_flag("--json", opts->json, "one JSON object on stdout (SI units)");
  cmd->add_flag("--quiet", opts->quiet, "no progress on stderr");
  cmd->callback([opts] { run_execute(*opts); });
});

}  // namespace
}  // namespace brigade::cli
