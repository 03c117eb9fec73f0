// brigade validate SCENARIO...: the simulator against real runs of the same
// Program: simulated vs measured step time and time per task kind, relative
// errors, median and p90 over scenarios; both traces side by side.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
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
  double min_round_seconds = 0.1;  // --min-round-seconds
  std::string trace_dir;
  bool json = false;
  bool quiet = false;
  bool probes = true;  // --no-probes turns them off
  bool kernels = false;  // --kernels: each scenario's kernels, simulated against measured
};

// The machine's speed around one round of one scenario against the
// scenario's profile (the geometric mean of the probes before and after the
// round, per device), and the step the simulator predicts at that speed.
struct RoundSpeed {
  std::vector<double> gemm, memory;  // per device; empty: not probed
  double simulated_seconds = 0;      // 0: not probed
  std::vector<double> step_seconds;  // the round's timed steps, measured
};

struct ScenarioResult {
  std::string name, file;
  double simulated_seconds = 0, measured_seconds = 0, measured_p90_seconds = 0, relative_error = 0;
  // The median step rescaled to the speed the profile was calibrated at
  // (each step x simulated / its round's simulated_seconds), and the error
  // against it; < 0 / NaN where a round was not probed.
  double measured_at_profile_speed_seconds = -1;
  double speed_adjusted_error = std::numeric_limits<double>::quiet_NaN();
  std::vector<RoundSpeed> rounds;
  // The rounds against each other (realexec::round_spread), and each
  // round's error at its own speed (its simulated_seconds over its median
  // step; empty unless every round was probed, as speed_adjusted_error).
  realexec::RoundSpread spread;
  std::vector<double> adjusted_round_errors;
  realexec::TraceComparison comparison;
};

std::string percent(double x) { return fmt::format("{:+.1f}%", 100 * x); }

// Every round of the scenario probed (its adjusted errors exist).
bool probed_all(const ScenarioResult& r) {
  return !r.rounds.empty() &&
         std::all_of(r.rounds.begin(), r.rounds.end(),
                     [](const RoundSpeed& x) { return x.simulated_seconds > 0; });
}

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
  std::vector<int> step_round;  // the round of each of them
  std::vector<RoundSpeed> rounds;
  int timed_per_round = 1;  // timed_steps_per_round
};

// The simulator's options for the executor that measures: the scenario's,
// and the CUDA backend's one host thread for every device
// (realexec/cuda_executor.cpp; simulation.devices_per_host), which matters
// where the profile or the scenario gives a host time per operation. The
// CPU backend's threads, one per stream, are hosts of their own.
sim::SimOptions executor_sim_options(const Scenario& sc, const ValidateOptions& o) {
  sim::SimOptions so = sim_options_for(sc);
  if (o.run.backend == "cuda") so.devices_per_host = std::max(1, sc.topology.num_devices());
  return so;
}

Pending prepare_one(const std::string& path, const ValidateOptions& o) {
  Pending p{path, prepare_run(path, o.run), {}, {}, {}, {}, 1};
  sim::SimOptions sim_options = executor_sim_options(p.prepared.scenario, o);
  sim_options.record_trace = true;
  auto simulated = sim::simulate(p.prepared.plan.program, p.prepared.scenario.topology,
                                 p.prepared.scenario.profile, sim_options);
  if (!simulated.is_ok()) throw_status(simulated.status());
  p.simulated = std::move(simulated->trace);
  return p;
}

// One round of one scenario: a fresh executor, its warm-up, `timed` steps.
void measure_round(Pending& p, const ValidateOptions& o, int timed, int round) {
  const Scenario& sc = p.prepared.scenario;
  auto executor = make_backend_executor(o.run);
  auto run = realexec::run_repeated(*executor, p.prepared.plan.program, sc.topology, sc.profile,
                                    timed, {}, realexec::kWarmupSeconds, sc.runtime);
  if (!run.is_ok()) throw_status(run.status());
  if (round == 0)
    for (const std::string& w : run->warnings)
      std::cerr << "brigade: warning: " << sc.name << ": " << w << "\n";
  for (Trace& t : run->steps) {
    p.steps.push_back(std::move(t));
    p.step_round.push_back(round);
  }
}

// How fast the machine runs now against a scenario's profile
// (realexec::speed_against_profile on the scenario's devices): on the CPU
// f32 512^3 GEMMs and 16 MiB streaming kernels (cold: each after a 64 MiB
// copy), on GPUs bf16 4096^3 and 1 GiB; about `seconds` in all. Empty
// where it cannot be measured (the reason on stderr).
std::optional<realexec::SpeedProbe> speed_probe(const Pending& p, const ValidateOptions& o,
                                                double seconds) {
  const bool cuda = o.run.backend == "cuda";
  realexec::SpeedProbeOptions po;
  po.gemm_n = cuda ? 4096 : 512;
  po.gemm_dtype = cuda ? DType::kBF16 : DType::kF32;
  po.stream_bytes = cuda ? 1073741824.0 : 16.0 * 1048576;
  po.evict_bytes = cuda ? 0 : 64.0 * 1048576;  // a GPU's 1 GiB passes its caches
  po.seconds = seconds;
  auto executor = make_backend_executor(o.run);
  auto r = realexec::speed_against_profile(*executor, p.prepared.scenario.topology,
                                           p.prepared.scenario.profile, po);
  if (r.is_ok()) return *r;
  if (!o.quiet) std::cerr << "brigade: warning: speed probe: " << r.message() << "\n";
  return std::nullopt;
}

// The round's speed from the probes around it, and the simulator's step at
// that speed: each device's GEMM-like kernels at its GEMM speed, its
// streaming kernels at its streaming speed (SimOptions::speed and
// memory_speed); they are probed apart because they drift apart.
// Transfers and collectives keep the profile's figures (no probe of them
// followed their drift: realexec::SpeedProbeOptions).
RoundSpeed round_speed(const Pending& p, const ValidateOptions& o,
                       const realexec::SpeedProbe& before, const realexec::SpeedProbe& after) {
  RoundSpeed r;
  auto mean = [](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> m;
    for (size_t d = 0; d < a.size() && d < b.size(); ++d) m.push_back(std::sqrt(a[d] * b[d]));
    return m;
  };
  r.gemm = mean(before.gemm.per_device, after.gemm.per_device);
  r.memory = mean(before.memory.per_device, after.memory.per_device);
  const Scenario& sc = p.prepared.scenario;
  // With one device the streaming probe is not run (nothing to evict the
  // caches with): its memory goes at its GEMM speed.
  const std::vector<double>& memory = r.memory.empty() ? r.gemm : r.memory;
  if (static_cast<int>(r.gemm.size()) != sc.topology.num_devices() || memory.size() != r.gemm.size())
    return RoundSpeed{};
  sim::SimOptions so = executor_sim_options(sc, o);
  so.record_trace = false;
  // The probes ran on every device of the topology; a plan may use fewer
  // (a graph placed on some of them), and the simulator knows only the
  // plan's.
  const size_t used = std::min(
      r.gemm.size(), static_cast<size_t>(std::max(0, p.prepared.plan.program.num_devices)));
  for (size_t d = 0; d < used; ++d) {
    so.speed[static_cast<int>(d)] = r.gemm[d];
    so.memory_speed[static_cast<int>(d)] = memory[d];
  }
  auto sim = sim::simulate(p.prepared.plan.program, sc.topology, sc.profile, so);
  if (!sim.is_ok()) throw_status(sim.status());
  r.simulated_seconds = sim->step_seconds;
  return r;
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
  r.rounds = p.rounds;
  for (size_t i = 0; i < seconds.size() && i < p.step_round.size(); ++i)
    if (static_cast<size_t>(p.step_round[i]) < r.rounds.size())
      r.rounds[static_cast<size_t>(p.step_round[i])].step_seconds.push_back(seconds[i]);
  const bool probed = probed_all(r);
  std::vector<std::vector<double>> round_steps;
  for (const RoundSpeed& x : r.rounds) round_steps.push_back(x.step_seconds);
  r.spread = realexec::round_spread(r.simulated_seconds, round_steps);
  if (probed) {
    for (const RoundSpeed& x : r.rounds)
      if (!x.step_seconds.empty())
        r.adjusted_round_errors.push_back(
            realexec::relative_error(x.simulated_seconds, realexec::median(x.step_seconds)));
    std::vector<double> rescaled;
    for (size_t i = 0; i < seconds.size(); ++i)
      rescaled.push_back(seconds[i] * r.simulated_seconds /
                         p.rounds[static_cast<size_t>(p.step_round[i])].simulated_seconds);
    // The same rank as the raw measurement's step (the lower middle of an
    // even count), so that without drift the two errors agree.
    std::sort(rescaled.begin(), rescaled.end());
    r.measured_at_profile_speed_seconds = rescaled[(rescaled.size() - 1) / 2];
    r.speed_adjusted_error = r.simulated_seconds / r.measured_at_profile_speed_seconds - 1;
  }
  return r;
}

// "0.91-1.02" over every device of every round (`memory`: the streaming
// kernels', else the GEMMs'); "-" where none was probed.
std::string speed_range(const std::vector<Pending>& pending, bool memory) {
  double lo = 1e300, hi = -1e300;
  for (const Pending& p : pending)
    for (const RoundSpeed& r : p.rounds)
      for (double x : memory ? r.memory : r.gemm) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
  return lo <= hi ? fmt::format("{:.2f}-{:.2f}", lo, hi) : "-";
}

// Seconds of each speed probe around a round.
constexpr double kRoundProbeSeconds = 0.06;

// Timed steps per round: --repeat spread over --rounds, at least one each.
int steps_per_round(const ValidateOptions& o) { return std::max(1, (o.repeat + o.rounds - 1) / o.rounds); }

// Most timed steps a round takes to fill --min-round-seconds.
constexpr int kMaxStepsPerRound = 1000;

// A scenario's timed steps per round: steps_per_round, or as many more as
// fill --min-round-seconds at its simulated step (at most
// kMaxStepsPerRound). A median of two 1.5 ms AllReduce steps is at the
// mercy of one late wake-up (one step of 4.1 ms against 1.6 ms in its
// round on the development VM), as a benchmark's single iteration would
// be; a tenth of a second of them is not.
int timed_steps_per_round(const Pending& p, const ValidateOptions& o) {
  const int base = steps_per_round(o);
  const double step = p.simulated.step_seconds();
  if (!(o.min_round_seconds > 0) || !(step > 0)) return base;
  const double fill = std::ceil(o.min_round_seconds / step);
  return fill > base ? static_cast<int>(std::min<double>(fill, kMaxStepsPerRound)) : base;
}

void run_validate(const ValidateOptions& o) {
  if (o.repeat < 1) throw_flag_error("--repeat", std::to_string(o.repeat), "a whole number >= 1");
  std::error_code ec;  // a path that cannot be examined is not a directory (no exception)
  if (!o.trace_dir.empty() && !std::filesystem::is_directory(o.trace_dir, ec))
    throw_flag_error("--trace-dir", o.trace_dir, "an existing directory");
  if (o.rounds < 1) throw_flag_error("--rounds", std::to_string(o.rounds), "a whole number >= 1");
  if (!(o.min_round_seconds >= 0) || !std::isfinite(o.min_round_seconds))
    throw_flag_error("--min-round-seconds", fmt::format("{}", o.min_round_seconds),
                     "a duration in seconds >= 0, such as 0.1");
  // Every scenario is planned and simulated first, then measured in rounds
  // (each scenario once, then each again, ...): a spell in which the
  // machine's other tenants slow it then lands in one round of a few
  // scenarios rather than in all the steps of one.
  std::vector<Pending> pending;
  for (const std::string& path : o.scenarios) {
    pending.push_back(prepare_one(path, o));
    pending.back().timed_per_round = timed_steps_per_round(pending.back(), o);
  }
  const int per_round = steps_per_round(o);
  const double load_before = load_average();
  // Each round of each scenario between two speed probes of the machine
  // (about 0.1 s each), so that the error can also be told at the speed
  // the profile was calibrated at (ScenarioResult::speed_adjusted_error).
  // A probe after one scenario's round is the next one's probe before,
  // where both scenarios run on the same devices under the same profile.
  std::optional<realexec::SpeedProbe> last;
  const Pending* last_for = nullptr;
  auto same_machine = [](const Pending* a, const Pending& b) {
    if (a == nullptr) return false;
    const Scenario &x = a->prepared.scenario, &y = b.prepared.scenario;
    if (x.profile.name != y.profile.name || x.profile.source != y.profile.source ||
        x.topology.num_devices() != y.topology.num_devices())
      return false;
    for (int d = 0; d < x.topology.num_devices(); ++d)
      if (x.topology.device(d).model != y.topology.device(d).model) return false;
    return true;
  };
  for (int round = 0; round < o.rounds; ++round)
    for (size_t i = 0; i < pending.size(); ++i) {
      if (!o.quiet)
        std::cerr << fmt::format("validate: round {}/{}, {}/{} {}\n", round + 1, o.rounds, i + 1,
                                 pending.size(), o.scenarios[i]);
      Pending& p = pending[i];
      std::optional<realexec::SpeedProbe> before;
      if (o.probes) before = same_machine(last_for, p) ? last : speed_probe(p, o, kRoundProbeSeconds);
      measure_round(p, o, p.timed_per_round, round);
      std::optional<realexec::SpeedProbe> after;
      if (before) after = speed_probe(p, o, kRoundProbeSeconds);
      last = after;
      last_for = after ? &p : nullptr;
      p.rounds.push_back(after ? round_speed(p, o, *before, *after) : RoundSpeed{});
    }
  std::vector<ScenarioResult> results;
  std::vector<double> errors, adjusted;
  for (const Pending& p : pending) {
    results.push_back(finish_one(p, o));
    errors.push_back(results.back().relative_error);
    if (std::isfinite(results.back().speed_adjusted_error))
      adjusted.push_back(results.back().speed_adjusted_error);
  }
  const realexec::ErrorSummary summary = realexec::summarise_errors(errors);
  // The scenario whose rounds lay furthest apart.
  const ScenarioResult* widest = nullptr;
  for (const ScenarioResult& r : results)
    if (widest == nullptr || r.spread.spread > widest->spread.spread) widest = &r;
  const bool all_adjusted = adjusted.size() == errors.size();
  const realexec::ErrorSummary adjusted_summary =
      all_adjusted ? realexec::summarise_errors(adjusted) : realexec::ErrorSummary{};
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
      nlohmann::json& row = rows.back();
      nlohmann::json kernels = nlohmann::json::array();
      for (const auto& k : r.comparison.kernels)
        kernels.push_back({{"name", k.name},
                           {"tasks", k.tasks},
                           {"simulated_seconds", k.simulated_seconds},
                           {"measured_seconds", k.measured_seconds},
                           {"relative_error", k.relative_error}});
      row["kernels"] = std::move(kernels);
      auto or_null = [](double x, bool ok) { return ok ? nlohmann::json(x) : nlohmann::json(nullptr); };
      const bool ok = std::isfinite(r.speed_adjusted_error);
      row["measured_at_profile_speed_seconds"] = or_null(r.measured_at_profile_speed_seconds, ok);
      row["speed_adjusted_relative_error"] = or_null(r.speed_adjusted_error, ok);
      nlohmann::json speeds = nlohmann::json::array();
      for (const RoundSpeed& s : r.rounds)
        speeds.push_back({{"gemm_speed_per_device", s.gemm},
                          {"memory_speed_per_device", s.memory},
                          {"simulated_seconds", or_null(s.simulated_seconds, s.simulated_seconds > 0)},
                          {"measured_step_seconds", s.step_seconds}});
      row["rounds"] = speeds;
      size_t timed = 0;
      for (const RoundSpeed& s : r.rounds) timed += s.step_seconds.size();
      row["timed_steps"] = timed;
      row["round_errors"] = r.spread.round_errors;
      row["round_spread"] = r.spread.spread;
      row["speed_adjusted_round_errors"] =
          ok ? nlohmann::json(r.adjusted_round_errors) : nlohmann::json(nullptr);
    }
    j["scenarios"] = rows;
    j["max_round_spread"] =
        widest ? nlohmann::json(widest->spread.spread) : nlohmann::json(nullptr);
    j["median_abs_error"] = summary.median_abs_error;
    j["p90_abs_error"] = summary.p90_abs_error;
    j["speed_adjusted_median_abs_error"] =
        all_adjusted ? nlohmann::json(adjusted_summary.median_abs_error) : nlohmann::json(nullptr);
    j["speed_adjusted_p90_abs_error"] =
        all_adjusted ? nlohmann::json(adjusted_summary.p90_abs_error) : nlohmann::json(nullptr);
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{:<40} {:>11} {:>11} {:>9} {:>9} {:>15}   {}\n", "scenario",
                           "simulated", "measured", "error", "adjusted", "by round",
                           "by kind (simulated vs measured)");
  for (const ScenarioResult& r : results) {
    std::string kinds;
    for (const auto& k : r.comparison.kinds)
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", k.kind, percent(k.relative_error));
    const std::string by_round =
        r.spread.round_errors.size() < 2
            ? std::string("-")
            : fmt::format("{:+.1f}..{:+.1f}%", 100 * r.spread.min_error, 100 * r.spread.max_error);
    std::cout << fmt::format(
        "{:<40} {:>11} {:>11} {:>9} {:>9} {:>15}   {}\n", r.name,
        format_seconds(r.simulated_seconds), format_seconds(r.measured_seconds),
        percent(r.relative_error),
        std::isfinite(r.speed_adjusted_error) ? percent(r.speed_adjusted_error) : "-", by_round,
        kinds);
  }
  if (o.kernels)
    for (const ScenarioResult& r : results) {
      std::cout << fmt::format(
          "\nkernels of {} (compute tasks by name, every device; the largest measured first):\n",
          r.name);
      std::cout << fmt::format("  {:<40} {:>7} {:>11} {:>11} {:>9}\n", "kernel", "tasks",
                               "simulated", "measured", "error");
      constexpr size_t kShown = 15;
      for (size_t i = 0; i < r.comparison.kernels.size() && i < kShown; ++i) {
        const realexec::KernelComparison& k = r.comparison.kernels[i];
        std::cout << fmt::format("  {:<40} {:>7} {:>11} {:>11} {:>9}\n", k.name, k.tasks,
                                 format_seconds(k.simulated_seconds),
                                 format_seconds(k.measured_seconds), percent(k.relative_error));
      }
      if (r.comparison.kernels.size() > kShown)
        std::cout << fmt::format("  ... {} more kernels (--json lists them all)\n",
                                 r.comparison.kernels.size() - kShown);
    }
  std::cout << fmt::format("\n|step error| over {} scenarios: median {:.1f}%, p90 {:.1f}%\n",
                           summary.count, 100 * summary.median_abs_error, 100 * summary.p90_abs_error);
  if (all_adjusted)
    std::cout << fmt::format(
        "adjusted to the profile's speed: median {:.1f}%, p90 {:.1f}% (the machine ran GEMMs at "
        "{} x and streaming kernels at {} x the profile's speed)\n",
        100 * adjusted_summary.median_abs_error, 100 * adjusted_summary.p90_abs_error,
        speed_range(pending, false), speed_range(pending, true));
  if (widest != nullptr && widest->spread.round_errors.size() >= 2)
    std::cout << fmt::format(
        "the measurement's own spread: a scenario's round medians lay up to {:.1f}% apart ({}); "
        "an error inside its round range is not resolved by this run\n",
        100 * widest->spread.spread, widest->name);
  std::cout << "(error = (simulated - measured) / measured; measured = the median of a "
               "scenario's timed steps, at least "
            << o.rounds * per_round << " in " << o.rounds << " rounds, each round at least "
            << format_seconds(o.min_round_seconds) << " of steps as simulated";
  if (all_adjusted)
    std::cout << "; adjusted: each step x simulated / the simulated step at its round's speed, "
                 "from probes before and after the round";
  std::cout << ")\n";
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
                  "hardware profile replacing the scenarios' (from brigade calibrate)")
      ->check(input_path_check());
  cmd->add_option("--repeat", opts->repeat,
                  "timed steps per scenario (default 5; rounded up to a multiple of --rounds)");
  cmd->add_option("--min-round-seconds", opts->min_round_seconds,
                  "time at least this much of a scenario's steps per round, as simulated\n"
                  "(default 0.1; more steps than --repeat gives for short steps; 0: --repeat's)");
  cmd->add_option("--rounds", opts->rounds,
                  "measure the scenarios in this many interleaved rounds (default 3)");
  cmd->add_option("--trace-dir", opts->trace_dir,
                  "write NAME.sim.json and NAME.measured.json there for side-by-side viewing")
      ->check(input_path_check());
  cmd->add_flag("--compute-16bit-in-f32", opts->run.compute_16bit_in_f32,
                "cpu: run f16/bf16 kernels in f32 (else they are refused)");
  cmd->add_flag("--kernels", opts->kernels,
                "each scenario's kernels, simulated against measured: compute tasks summed by "
                "name over every device, the largest measured first (--json: always, all)");
  cmd->add_flag("--json", opts->json, "one JSON object on stdout (SI units)");
  cmd->add_flag("--quiet", opts->quiet, "no progress on stderr");
  cmd->add_flag("--no-probes", [opts](std::int64_t) { opts->probes = false; },
                "no speed probes around the rounds (no adjusted errors)");
  cmd->callback([opts] { run_validate(*opts); });
});

}  // namespace
}  // namespace brigade::cli
