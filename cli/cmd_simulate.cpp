// brigade simulate SCENARIO: the planner's Program through the discrete-event
// simulator (sim/): step time, per-device busy / communication / idle time and
// exposed communication, the critical path, the busiest links, memory peaks
// and OOM; --trace writes Chrome Trace Event JSON for Perfetto (gzip for
// .json.gz), --trace-devices and --trace-window filter it as it is recorded;
// --kernels DEVICE adds where that device's compute time goes, kernel by kernel.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/gemm_waves.hpp"
#include "core/run_figures.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"
#include "core/trace_filter.hpp"
#include "costmodel/plan.hpp"
#include "planner/lower.hpp"
#include "sim/report.hpp"
#include "sim/simulator.hpp"

namespace brigade::cli {
namespace {

struct SimulateOptions {
  std::string scenario;
  std::string profile;  // --profile
  std::string network;
  std::string granularity = "auto";
  std::string trace;
  std::string trace_devices;  // --trace-devices "0-7,64"
  std::string trace_window;   // --trace-window "0:50ms"
  bool trace_steps = false;  // --trace-steps: a transfer per message
  std::string kernels;        // --kernels DEVICE: its compute time by kernel
  bool exact = false;
  bool ignore_runtime = false;  // --ignore-runtime: what the planner expected
  bool json = false;
  bool quiet = false;
};

// What the runtime: section did to this run, in one line.
std::string runtime_note(const Scenario& scenario, bool honoured) {
  const std::string what = describe_runtime(scenario.runtime, scenario.topology);
  return honoured ? "runtime: " + what +
                        " (honoured here; the planner, `search` and `cost` do not see it; "
                        "--ignore-runtime simulates what they expected)"
                  : "runtime: " + what + " ignored (--ignore-runtime): the step the plan expected";
}

// Per kernel name on `device`: the share of its waves' tile slots a GEMM's
// output fills under the device's wave model (core/gemm_waves.hpp; 1 =
// whole waves), for the GEMM tasks the wave model times (docs/costmodel.md,
// "GEMMs by shape: waves of tiles"). A name's first such task speaks for
// it (a name is one shape: every layer's and micro-batch's instance).
std::map<std::string, double> wave_fill(const Program& program, int device,
                                        const DeviceProfile& profile) {
  std::map<std::string, double> fill;
  for (TaskId id = 0; id < program.num_tasks(); ++id) {
    const Task& t = program.task(id);
    if (t.device != device || t.kind != TaskKind::kCompute || t.compute != ComputeKind::kGemm)
      continue;
    const GemmWaves w = gemm_waves(profile, t.dtype, t.kernel, GemmShape{t.m, t.n, t.k, t.batch});
    if (w.waves > 0) fill.emplace(std::string(program.task_name(id)), w.filled);
  }
  return fill;
}

// The --kernels table: the first 30 rows of `kernel_rows`, the largest
// first (the JSON has them all); `fill`: wave_fill's.
std::string kernel_table(const std::vector<KernelRow>& rows, const std::string& device,
                         std::string_view granularity, const std::map<std::string, double>& fill) {
  double busy = 0;
  for (const KernelRow& r : rows) busy += r.seconds;
  std::string out = fmt::format("\ntime by kernel on {} (compute spans, {} busy", device,
                                format_seconds(busy));
  if (granularity != "kernel")
    out += fmt::format("; granularity {}: a row may be a fused run of kernels, --granularity "
                       "kernel names each",
                       granularity);
  out += "):\n";
  const bool waves = !fill.empty();
  constexpr size_t kShown = 30;
  // The name column as wide as the longest name shown (fused runs' names
  // run long at step granularity), 40 at least.
  size_t width = 40;
  for (size_t i = 0; i < rows.size() && i < kShown; ++i)
    width = std::max(width, rows[i].name.size());
  out += fmt::format("  {:<{}} {:>7} {:>11} {:>11} {:>7}{}\n", "kernel", width, "count", "total",
                     "mean", "share", waves ? "   waves filled" : "");
  for (size_t i = 0; i < rows.size() && i < kShown; ++i) {
    const KernelRow& r = rows[i];
    std::string filled;
    if (waves) {
      const auto it = fill.find(r.name);
      filled = it == fill.end() ? fmt::format(" {:>14}", "-")
                                : fmt::format(" {:>13.1f}%", 100 * it->second);
    }
    out += fmt::format("  {:<{}} {:>7} {:>11} {:>11} {:>6.1f}%{}\n", r.name, width, r.count,
                       format_seconds(r.seconds), format_seconds(r.seconds / r.count),
                       busy > 0 ? 100 * r.seconds / busy : 0.0, filled);
  }
  if (rows.size() > kShown)
    out += fmt::format("  ... {} more kernels (--json lists them all)\n", rows.size() - kShown);
  if (waves)
    out += "  (waves filled: the share of a GEMM's waves of output tiles its C fills, the "
           "profile's wave model: a part-full last wave takes a full one's time; docs/costmodel.md, "
           "\"GEMMs by shape: waves of tiles\")\n";
  return out;
}

void run_simulate(const SimulateOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  planner::LowerOptions lower_options;
  lower_options.granularity = parse_granularity_flag(o.granularity);
  sim::SimOptions options;
  const Scenario scenario = load_scenario_or_throw(o.scenario, o.profile);
  options = sim_options_for(scenario, o.network);
  options.exact = o.exact;
  if (o.ignore_runtime) options.runtime = RuntimeConditions{};
  options.record_trace = !o.trace.empty();
  options.trace_steps = o.trace_steps;
  if (o.trace_steps && o.trace.empty())
    throw BadInput{"brigade: error: --trace-steps: found it without --trace; expected --trace FILE beside it"};
  // The trace's filter, checked before the (long) lowering where it can be.
  for (const auto& [flag, text] : {std::pair{"--trace-devices", &o.trace_devices},
                                   std::pair{"--trace-window", &o.trace_window}})
    if (!text->empty() && o.trace.empty())
      throw BadInput{std::string("brigade: error: ") + flag + ": found '" + *text +
                     "' without --trace; expected --trace FILE beside it"};
  if (!o.trace_devices.empty()) {
    auto devices = parse_device_list(o.trace_devices);
    if (!devices.is_ok()) throw_flag_error("--trace-devices", o.trace_devices, devices.message());
    options.trace_filter.devices = std::move(devices).value();
  }
  // --kernels: one device's spans are recorded (with --trace, its filter
  // must keep that device).
  int kernels_device = -1;
  if (!o.kernels.empty()) {
    auto one = parse_device_list(o.kernels);
    if (!one.is_ok() || one->size() != 1)
      throw_flag_error("--kernels", o.kernels,
                       "one device id, such as 0 (a device of pipeline stage 0)");
    kernels_device = one->front();
    options.record_trace = true;
    if (o.trace.empty()) {
      options.trace_filter.devices = {kernels_device};
    } else if (!options.trace_filter.devices.empty() &&
               !std::binary_search(options.trace_filter.devices.begin(),
                                   options.trace_filter.devices.end(), kernels_device)) {
      throw_flag_error("--kernels", o.kernels,
                       "a device that --trace-devices " + o.trace_devices + " keeps");
    }
  }
  if (!o.trace_window.empty()) {
    auto window = parse_time_window(o.trace_window);
    if (!window.is_ok()) throw_flag_error("--trace-window", o.trace_window, window.message());
    options.trace_filter.start_seconds = window->first;
    options.trace_filter.end_seconds = window->second;
  }
  auto plan = planner::lower(scenario, lower_options);
  if (!plan.is_ok()) throw_status(plan.status());
  const Program& program = plan->program;
  if (kernels_device >= program.num_devices)
    throw_flag_error("--kernels", o.kernels,
                     "a device id below " + std::to_string(program.num_devices) + " (the plan's devices)");
  if (!options.trace_filter.devices.empty() && options.trace_filter.devices.back() >= program.num_devices)
    throw_flag_error("--trace-devices", o.trace_devices,
                     "device ids below " + std::to_string(program.num_devices) + " (the plan's devices)");
  // Progress on stderr for long runs only (a million tasks take about a second).
  const bool long_run = program.num_tasks() >= 1000000 && !o.quiet;
  if (long_run) {
    std::cerr << fmt::format("simulate: {} tasks on {} devices\n", program.num_tasks(),
                             program.num_devices);
    options.on_progress = [last = -1](double done, double total) mutable {
      const int pct = total > 0 ? static_cast<int>(100 * done / total) : 100;
      if (pct / 10 != last / 10) {
        std::cerr << fmt::format("simulate: {}%\n", pct);
        last = pct;
      }
    };
  }
  auto result = sim::simulate(program, scenario.topology, scenario.profile, options);
  if (!result.is_ok()) throw_status(result.status());
  require_finite("simulate", {{"the step time", result->step_seconds}});
  if (!o.trace.empty()) {
    const Status written = write_chrome_trace_file(result->trace, o.trace);
    if (!written.is_ok()) throw_status(written);
    if (long_run)
      std::cerr << fmt::format(
          "simulate: trace: {} spans, {} transfers, {} memory samples{} -> {}\n",
          result->trace.spans.size(), result->trace.transfers.size(), result->trace.memory.size(),
          result->trace.host.empty() ? std::string()
                                     : fmt::format(", {} host slices", result->trace.host.size()),
          o.trace);
  }
  if (o.json) {
    nlohmann::json j = sim::simulation_json(*result, program, scenario.topology);
    j["scenario"] = scenario.name;
    j["tasks"] = program.num_tasks();
    j["granularity"] = std::string(planner::granularity_name(plan->granularity));
    j["notes"] = cost::plan_warnings(scenario);
    j["runtime"] = describe_runtime(options.runtime, scenario.topology);
    if (!scenario.runtime.empty() && o.ignore_runtime) j["notes"].push_back(runtime_note(scenario, false));
    if (kernels_device >= 0) {
      nlohmann::json rows = nlohmann::json::array();
      const auto fill = wave_fill(program, kernels_device,
                                  scenario.profile.for_device(scenario.topology.device(kernels_device)));
      for (const KernelRow& r : kernel_rows(result->trace, kernels_device)) {
        nlohmann::json row = {{"name", r.name}, {"count", r.count}, {"seconds", r.seconds}};
        if (const auto it = fill.find(r.name); it != fill.end()) row["waves_filled"] = it->second;
        rows.push_back(std::move(row));
      }
      j["kernels"] = {{"device", kernels_device},
                      {"device_name", scenario.topology.device(kernels_device).name},
                      {"rows", std::move(rows)}};
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << sim::simulation_text(*result, program, scenario.topology);
    if (kernels_device >= 0)
      std::cout << kernel_table(
          kernel_rows(result->trace, kernels_device), scenario.topology.device(kernels_device).name,
          planner::granularity_name(plan->granularity),
          wave_fill(program, kernels_device,
                    scenario.profile.for_device(scenario.topology.device(kernels_device))));
    for (const std::string& n : cost::plan_warnings(scenario)) std::cout << "note: " << n << "\n";
    if (!scenario.runtime.empty())
      std::cout << "note: " << runtime_note(scenario, !o.ignore_runtime) << "\n";
  }
  if (!result->oom.empty()) {
    const sim::OomEvent* worst = &result->oom.front();
    for (const sim::OomEvent& e : result->oom)
      if (e.live_bytes - e.capacity_bytes > worst->live_bytes - worst->capacity_bytes) worst = &e;
    warn_does_not_fit(result->oom.size(), static_cast<size_t>(scenario.topology.num_devices()),
                      worst->device, worst->live_bytes, worst->capacity_bytes, scenario.topology);
  }
  if (long_run)
    std::cerr << fmt::format(
        "simulate: done in {:.2f} s wall\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

const RegisterVerb kRegister("simulate", 21, [](CLI::App& app) {
  auto opts = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "The discrete-event judge: the planner's Program simulated with contended links.\n"
      "Step time, per-device busy / communication / idle time and exposed communication,\n"
      "the critical path, the busiest links, memory peaks and any OOM.");
  cmd->add_option("scenario", opts->scenario, "scenario file (.yaml, .yml, .json)")->required();
  cmd->add_option("--profile", opts->profile,
                  "hardware profile replacing the scenario's (brigade calibrate --out)")
      ->check(input_path_check());
  cmd->add_option("--network", opts->network,
                  "flow (links shared max-min fairly) or ideal (no contention); "
                  "default: the scenario's simulation.network, else flow");
  cmd->add_flag("--exact", opts->exact,
                "turn every shortcut off (closed-form collectives on uncontended links)");
  cmd->add_option("--trace", opts->trace,
                  "write a Chrome Trace Event JSON file for Perfetto (FILE.json.gz: gzip-compressed)")
      ->check(output_path_check());
  cmd->add_option("--kernels", opts->kernels,
                  "where DEVICE's compute time goes, kernel by kernel (its spans summed by name: "
                  "count, total, mean, share; under a profile's wave model, how full each GEMM's waves "
                  "of tiles are), e.g. --kernels 0");
  cmd->add_option("--trace-devices", opts->trace_devices,
                  "trace only these devices (and transfers from or to them), e.g. 0-7,64");
  cmd->add_option("--trace-window", opts->trace_window,
                  "trace only what overlaps this window of the step, START:END, e.g. 0:50ms or 2s:");
  cmd->add_flag("--trace-steps", opts->trace_steps,
                "trace every message of a collective's algorithm (default: back-to-back messages "
                "between two devices are one transfer)");
  cmd->add_option("--granularity", opts->granularity,
                  "task granularity: auto, kernel, region or step (default auto)");
  cmd->add_flag("--ignore-runtime", opts->ignore_runtime,
                "leave out the scenario's runtime: conditions (device slowdowns, link load, input "
                "pipeline): the step the planner expected");
  cmd->add_flag("--json", opts->json, "one JSON object on stdout (SI units)");
  cmd->add_flag("--quiet", opts->quiet, "no progress on stderr");
  cmd->callback([opts] { run_simulate(*opts); });
});

}  // namespace
}  // namespace brigade::cli
