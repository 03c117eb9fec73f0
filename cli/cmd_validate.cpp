// brigade validate SCENARIO...: the simulator against real runs of the same
// Program: simulated vs measured step time and time per task kind, relative
// errors, median and p90 over scenarios; both traces side by side.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_run.hpp"
#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"
#include "realexec/calibrate.hpp"
#include "realexec/compare.hpp"
#include "realexec/summary.hpp"
#include "sim/simulator.hpp"

namespace brigade::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> scenarios;
  RunFlags run;
  int repeat = 5;
  int rounds = 3;
  std::string trace_dir;
  bool json = false;
  bool quiet = false;
};

struct ScenarioResult {
  std::string name, file;
  double simulated_seconds = 0, measured_seconds = 0, measured_p90_seconds = 0, relative_error = 0;
  realexec::TraceComparison comparison;
};

std::string percent(double x) { return fmt::format("{:+.1f}%", 100 * x); }

// The 1-minute load average (getloadavg), or -1 where the system gives none:
// on a shared machine other work moves real runs by as much as the model does.
double load_average() {
  double l[1] = {0};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

// One scenario on its way: planned and simulated once, measured in rounds.
struct Pending {
  std::string file;
  PreparedRun prepared;
  Trace simulated;
  std::vector<Trace> steps;  // every round's timed steps
};

Pending prepare_one(const std::string& path, const ValidateOptions& o) {
  Pending p{path, prepare_run(path, o.run), {}, {}};
  sim::SimOptions sim_options = sim_options_for(p.prepared.scenario);
  sim_options.record_trace = true;
  auto simulated = sim::simulate(p.prepared.plan.program, p.prepared.scenario.topology,
                                 p.prepared.scenario.profile, sim_options);
  if (!simulated.is_ok()) throw_status(simulated.status());
  p.simulated = std::move(simulated->trace);
  return p;
}

// One round of one scenario: a fresh executor, its warm-up, `timed` steps.
void measure_round(Pending& p, const ValidateOptions& o, int timed, bool first_round) {
  const Scenario& sc = p.prepared.scenario;
  auto executor = make_backend_executor(o.run);
  auto run = realexec::run_repeated(*executor, p.prepared.plan.program, sc.topology, sc.profile, timed);
  if (!run.is_ok()) throw_status(run.status());
  if (first_round)
    for (const std::string& w : run->warnings)
      std::cerr << "brigade: warning: " << sc.name << ": " << w << "\n";
  for (Trace& t : run->steps) p.steps.push_back(std::move(t));
}

ScenarioResult finish_one(const Pending& p, const ValidateOptions& o) {
  const Scenario& sc = p.prepared.scenario;
  const Program& program = p.prepared.plan.program;
  const realexec::StepSummary summary = realexec::summarise_steps(program, p.steps);
  // The timed step with the median step time stands for the measurement.
  const auto& seconds = summary.step_seconds;
  std::vector<size_t> order(seconds.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return seconds[a] < seconds[b]; });
  const Trace& measured = p.steps[order[(order.size() - 1) / 2]];
  auto comparison = realexec::compare_traces(program, p.simulated, measured);
  if (!comparison.is_ok()) throw_status(comparison.status());
  if (!o.trace_dir.empty()) {
    const std::string stem = (std::filesystem::path(o.trace_dir) / sc.name).string();
    for (const auto& [suffix, trace] :
         {std::pair<const char*, const Trace*>{".sim.json", &p.simulated}, {".measured.json", &measured}}) {
      const Status written = write_chrome_trace_file(*trace, stem + suffix);
      if (!written.is_ok()) throw_status(written);
    }
  }
  ScenarioResult r;
  r.name = sc.name;
  r.file = p.file;
  r.simulated_seconds = comparison->simulated_step_seconds;
  r.measured_seconds = comparison->measured_step_seconds;
  r.measured_p90_seconds = summary.p90_step_seconds;
  r.relative_error = comparison->step_relative_error;
  r.comparison = std::move(comparison).value();
  return r;
}

// The machine's GEMM speed against the first scenario's profile (realexec::
// gemm_speed_against_profile): f32 512^3 on the CPU, bf16 4096^3 on GPUs,
// about 0.3 s. Ratio -1 where it cannot be measured (the reason on stderr).
realexec::GemmProbe gemm_probe(const Pending& first, const ValidateOptions& o) {
  const bool cuda = o.run.backend == "cuda";
  auto executor = make_backend_executor(o.run);
  auto r = realexec::gemm_speed_against_profile(
      *executor, first.prepared.scenario.topology, first.prepared.scenario.profile,
      cuda ? 4096 : 512, cuda ? DType::kBF16 : DType::kF32, 0.3);
  if (r.is_ok()) return *r;
  if (!o.quiet) std::cerr << "brigade: warning: GEMM probe: " << r.message() << "\n";
  realexec::GemmProbe none;
  none.ratio = -1;
  return none;
}

// " (cpu0 0.95, cpu1 1.01)" for the probe's devices (named as in the first
// scenario's topology); "" with one device.
std::string per_device_probe(const realexec::GemmProbe& p, const Topology& topo) {
  if (p.per_device.size() < 2) return "";
  std::string out = " (";
  for (size_t d = 0; d < p.per_device.size(); ++d)
    out += fmt::format("{}{} {:.2f}", d ? ", " : "", topo.device(static_cast<int>(d)).name,
                       p.per_device[d]);
  return out + ")";
}

// Timed steps per round: --repeat spread over --rounds, at least one each.
int steps_per_round(const ValidateOptions& o) { return std::max(1, (o.repeat + o.rounds - 1) / o.rounds); }

void run_validate(const ValidateOptions& o) {
  if (o.repeat < 1) throw_flag_error("--repeat", std::to_string(o.repeat), "a whole number >= 1");
  std::error_code ec;  // a path that cannot be examined is not a directory (no exception)
  if (!o.trace_dir.empty() && !std::filesystem::is_directory(o.trace_dir, ec))
    throw_flag_error("--trace-dir", o.trace_dir, "an existing directory");
  if (o.rounds < 1) throw_flag_error("--rounds", std::to_string(o.rounds), "a whole number >= 1");
  // Every scenario is planned and simulated first, then measured in rounds
  // (each scenario once, then each again, ...): a spell in which the
  // machine's other tenants slow it then lands in one round of a few
  // scenarios rather than in all the steps of one.
  std::vector<Pending> pending;
  for (const std::string& path : o.scenarios) pending.push_back(prepare_one(path, o));
  const int per_round = steps_per_round(o);
  const double load_before = load_average();
  const realexec::GemmProbe probe_before = gemm_probe(pending.front(), o);
  for (int round = 0; round < o.rounds; ++round)
    for (size_t i = 0; i < pending.size(); ++i) {
      if (!o.quiet)
        std::cerr << fmt::format("validate: round {}/{}, {}/{} {}\n", round + 1, o.rounds, i + 1,
                                 pending.size(), o.scenarios[i]);
      measure_round(pending[i], o, per_round, round == 0);
    }
  const realexec::GemmProbe probe_after = gemm_probe(pending.front(), o);
  std::vector<ScenarioResult> results;
  std::vector<double> errors;
  for (const Pending& p : pending) {
    results.push_back(finish_one(p, o));
    errors.push_back(results.back().relative_error);
  }
  const realexec::ErrorSummary summary = realexec::summarise_errors(errors);
  const double load_after = load_average();
  const unsigned threads = std::thread::hardware_concurrency();
  if (o.json) {
    nlohmann::json j;
    j["backend"] = o.run.backend;
    j["profile"] = o.run.profile;
    j["repeat"] = o.repeat;
    j["rounds"] = o.rounds;
    j["timed_steps"] = o.rounds * per_round;
    auto load = [](double l) { return l >= 0 ? nlohmann::json(l) : nlohmann::json(nullptr); };
    j["load_average"] = {{"before", load(load_before)}, {"after", load(load_after)}};
    j["hardware_threads"] = threads;
    auto probe = [](double x) { return x > 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
    j["gemm_speed_vs_profile"] = {{"before", probe(probe_before.ratio)},
                                  {"after", probe(probe_after.ratio)},
                                  {"before_per_device", probe_before.per_device},
                                  {"after_per_device", probe_after.per_device}};
    nlohmann::json rows = nlohmann::json::array();
    for (const ScenarioResult& r : results) {
      nlohmann::json kinds = nlohmann::json::array();
      for (const auto& k : r.comparison.kinds)
        kinds.push_back({{"kind", k.kind},
                         {"tasks", k.tasks},
                         {"simulated_seconds", k.simulated_seconds},
                         {"measured_seconds", k.measured_seconds},
                         {"relative_error", k.relative_error}});
      rows.push_back({{"name", r.name},
                      {"file", r.file},
                      {"simulated_seconds", r.simulated_seconds},
                      {"measured_seconds", r.measured_seconds},
                      {"measured_p90_seconds", r.measured_p90_seconds},
                      {"relative_error", r.relative_error},
                      {"median_abs_task_error", r.comparison.median_abs_task_error},
                      {"p90_abs_task_error", r.comparison.p90_abs_task_error},
                      {"kinds", kinds}});
    }
    j["scenarios"] = rows;
    j["median_abs_error"] = summary.median_abs_error;
    j["p90_abs_error"] = summary.p90_abs_error;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{:<40} {:>11} {:>11} {:>9}   {}\n", "scenario", "simulated",
                           "measured", "error", "by kind (simulated vs measured)");
  for (const ScenarioResult& r : results) {
    std::string kinds;
    for (const auto& k : r.comparison.kinds)
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", k.kind, percent(k.relative_error));
    std::cout << fmt::format("{:<40} {:>11} {:>11} {:>9}   {}\n", r.name,
                             format_seconds(r.simulated_seconds), format_seconds(r.measured_seconds),
                             percent(r.relative_error), kinds);
  }
  std::cout << fmt::format("\n|step error| over {} scenarios: median {:.1f}%, p90 {:.1f}%\n",
                           summary.count, 100 * summary.median_abs_error, 100 * summary.p90_abs_error);
  std::cout << "(error = (simulated - measured) / measured; measured = the median of "
            << o.rounds * per_round << " timed steps in " << o.rounds << " rounds)\n";
  if (probe_before.ratio > 0 && probe_after.ratio > 0) {
    const Topology& topo = pending.front().prepared.scenario.topology;
    std::cout << fmt::format(
        "GEMM probe ({} on every device): {:.2f} x the profile's speed before the runs{}, {:.2f} x "
        "after{}\n",
        o.run.backend == "cuda" ? "bf16 4096^3" : "f32 512^3", probe_before.ratio,
        per_device_probe(probe_before, topo), probe_after.ratio, per_device_probe(probe_after, topo));
  }
  if (load_before >= 0 && load_after >= 0)
    std::cout << fmt::format("load average (1 min): {:.2f} before, {:.2f} after, on {} hardware threads\n",
                             load_before, load_after, threads);
}

const RegisterVerb kRegister("validate", 31, [](CLI::App& app) {
  auto opts = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "The simulator against real runs of the same Program: simulated vs measured step time\n"
      "and time per task kind, relative errors, median and p90 over the scenarios.");
  cmd->add_option("scenarios", opts->scenarios, "scenario files")->required();
  cmd->add_option("--backend", opts->run.backend, "cpu (default) or cuda");
  cmd->add_option("--profile", opts->run.profile,
                  "hardware profile replacing the scenarios' (from brigade calibrate)");
  cmd->add_option("--repeat", opts->repeat,
                  "timed steps per scenario (default 5; rounded up to a multiple of --rounds)");
  cmd->add_option("--rounds", opts->rounds,
                  "measure the scenarios in this many interleaved rounds (default 3)");
  cmd->add_option("--trace-dir", opts->trace_dir,
                  "write NAME.sim.json and NAME.measured.json there for side-by-side viewing");
  cmd->add_flag("--compute-16bit-in-f32", opts->run.compute_16bit_in_f32,
                "cpu: run f16/bf16 kernels in f32 (else they are refused)");
  cmd->add_flag("--json", opts->json, "one JSON object on stdout (SI units)");
  cmd->add_flag("--quiet", opts->quiet, "no progress on stderr");
  cmd->callback([opts] { run_validate(*opts); });
});

}  // namespace
}  // namespace brigade::cli
