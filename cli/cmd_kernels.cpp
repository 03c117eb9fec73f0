// brigade kernels SCENARIO [--measured FILE]: one device's step by kernel
// group (GEMMs by width, attention, norms, activations, FP8 casts, the
// optimizer, the loss, the embedding, other streaming kernels, NCCL's
// kernels by collective), simulated; with --measured, beside a profiler's
// record of the same plan on real GPUs (Nsight Systems' kernel summary CSV,
// or PyTorch's profiler trace; or Brigade's own trace of the plan, `brigade
// execute --trace`), the ratio per group and the profile keys
// that time each group in Brigade. The groups: core/kernel_groups.hpp; the
// readers: core/kernel_summary.hpp; docs/FIDELITY.md, "Against a profiler's
// record".
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/kernel_groups.hpp"
#include "core/kernel_summary.hpp"
#include "core/profile.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "planner/lower.hpp"
#include "sim/simulator.hpp"

namespace brigade::cli {
namespace {

struct KernelsOptions {
  std::string scenario;
  std::string profile;
  std::string measured;
  std::string steps;            // measured steps (nsys: required; Kineto: its annotations)
  std::string gpus;             // measured GPUs the record sums (default: Kineto's devices, else 1)
  std::string device = "0";     // Brigade's device
  std::string measured_device;  // Kineto: keep this device's kernels
  std::string network;
  std::string granularity = "auto";
  std::string out;  // --out: the profile scaled to the record
  bool json = false;
};

// A ratio departs "far" from 1 when it is off by more than this: the groups
// listed under the table with the keys that time them.
constexpr double kFarRatio = 0.10;

std::string ratio_text(double measured, double simulated) {
  if (simulated <= 0 || measured <= 0) return "-";
  return fmt::format("{:.2f}", measured / simulated);
}

std::string count_text(double n) {
  if (n <= 0) return "-";
  return std::abs(n - std::round(n)) < 1e-9 ? fmt::format("{:.0f}", n) : fmt::format("{:.1f}", n);
}

void run_kernels(const KernelsOptions& o) {
  const int device = parse_int_flag("--device", o.device, 0);
  const bool have_measured = !o.measured.empty();
  for (const auto& [flag, text] :
       {std::pair{"--steps", &o.steps}, std::pair{"--gpus", &o.gpus},
        std::pair{"--measured-device", &o.measured_device}, std::pair{"--out", &o.out}})
    if (!text->empty() && !have_measured)
      throw BadInput{std::string("brigade: error: ") + flag + ": found '" + *text +
                     "' without --measured; expected --measured FILE beside it"};
  const int steps_flag = o.steps.empty() ? 0 : parse_int_flag("--steps", o.steps, 1);
  const int gpus_flag = o.gpus.empty() ? 0 : parse_int_flag("--gpus", o.gpus, 1);
  std::optional<int> measured_device;
  if (!o.measured_device.empty())
    measured_device = parse_int_flag("--measured-device", o.measured_device, 0);

  // The measured record first: a bad file fails before the simulation.
  std::optional<MeasuredKernels> measured;
  int steps = 0, gpus = 0;
  if (have_measured) {
    auto m = read_measured_kernels(o.measured, measured_device);
    if (!m.is_ok()) throw_status(m.status());
    measured = std::move(m).value();
    // Brigade's trace is one step of each of its devices, the one compared
    // chosen by --measured-device (else --device): nothing to divide by.
    if (measured->format == "brigade")
      for (const auto& [flag, text] :
           {std::pair{"--steps", &o.steps}, std::pair{"--gpus", &o.gpus}})
        if (!text->empty())
          throw BadInput{flag_error_line(
              flag, *text,
              "it only with a profiler's record (Brigade's trace is one step of one device: "
              "--measured-device chooses which)")};
    steps = steps_flag > 0 ? steps_flag : measured->steps;
    if (steps <= 0)
      throw BadInput{std::string("brigade: error: --steps: found nothing; expected ") +
                     (measured->format == "nsys"
                          ? "how many steps the summary covers (nsys stats sums the whole capture)"
                          : "how many steps the trace covers (it has no ProfilerStep annotation)")};
  }

  const Scenario scenario = load_scenario_or_throw(o.scenario, o.profile);
  planner::LowerOptions lower_options;
  lower_options.granularity = parse_granularity_flag(o.granularity);
  auto plan = planner::lower(scenario, lower_options);
  if (!plan.is_ok()) throw_status(plan.status());
  const Program& program = plan->program;
  if (device >= program.num_devices)
    throw_flag_error(
        "--device", o.device,
        "a device id below " + std::to_string(program.num_devices) + " (the plan's devices)");
  // Brigade's own trace: the spans of --measured-device (which the reader
  // kept) or else of the device compared, each task the plan's (its group
  // is then the simulated side's); a profiler's kernels carry no device.
  int record_device = -1;
  if (measured) {
    if (measured->format == "brigade") {
      record_device = measured_device.value_or(device);
      if (!measured->has_device(record_device))
        throw BadInput{fmt::format(
            "{}: error: found no span of device {} in Brigade's trace; expected the device "
            "--device compares (or --measured-device another)",
            one_line(o.measured), record_device)};
    }
    if (const Status st = check_record_plan(*measured, program, o.measured); !st.is_ok())
      throw_status(st);
    // One device of Brigade's trace is compared (its step); a PyTorch
    // trace sums its devices' kernels.
    gpus = gpus_flag > 0 ? gpus_flag
           : measured->format == "brigade"
               ? 1
               : std::max(1, static_cast<int>(measured->devices.size()));
  }
  sim::SimOptions options = sim_options_for(scenario, o.network);
  options.record_trace = true;
  options.trace_steps = false;
  options.trace_filter.devices = {device};
  auto result = sim::simulate(program, scenario.topology, scenario.profile, options);
  if (!result.is_ok()) throw_status(result.status());
  require_finite("kernels", {{"the step time", result->step_seconds}});

  const KernelGroupTimes simulated = kernel_group_times(result->trace, &program, device);
  std::optional<KernelGroupTimes> measured_times;
  if (measured)
    measured_times =
        kernel_group_times(*measured, static_cast<double>(steps) * gpus, &program, record_device);
  const std::vector<KernelGroupRow> rows =
      kernel_group_rows(simulated, measured_times ? &*measured_times : nullptr);
  const std::string device_name = scenario.topology.device(device).name;
  const std::string granularity(planner::granularity_name(plan->granularity));
  const std::vector<MeasuredKernel> unnamed =
      measured ? unnamed_kernels(*measured, 8) : std::vector<MeasuredKernel>{};

  // --out: the device's profile scaled group by group until its simulated
  // groups take the record's times (a few rounds: launch gaps and GEMMs'
  // memory sides do not scale), then written. A key whose group does not
  // move from one round to the next (its kernels are timed by another key,
  // or it is held at a bound) stops being scaled: said, not compounded.
  std::vector<ProfileScaling> scalings;  // the first round's, factors the product of every round's
  std::map<std::string, double> residual;  // key -> measured / simulated under the written profile
  std::set<std::string> stuck;             // keys whose group stopped moving short of the record
  if (!o.out.empty()) {
    if (simulated.of(KernelGroup::kFused) > 0)
      throw BadInput{flag_error_line("--out", o.out,
                                     "a plan simulated kernel by kernel (fused runs have no one "
                                     "group: add --granularity kernel)")};
    HardwareProfile profile = scenario.profile;
    const Device& d = scenario.topology.device(device);
    auto entry = std::find_if(profile.devices.begin(), profile.devices.end(),
                              [&](const DeviceProfile& p) { return p.model == d.model; });
    if (entry == profile.devices.end()) {
      profile.devices.push_back(scenario.profile.for_device(d));
      profile.devices.back().model = d.model;
      entry = profile.devices.end() - 1;
    }
    DeviceProfile& dp = *entry;
    const double attention_peak = peak_flops_per_second(d, dp, DType::kBF16);
    // The groups' times under `dp` now, measured over simulated by key.
    const auto ratios_now = [&](const KernelGroupTimes& now) {
      std::map<std::string, double> r;
      for (const ProfileScaling& y : plan_profile_scaling(now, *measured_times)) r[y.key] = y.ratio;
      return r;
    };
    KernelGroupTimes now = simulated;
    residual = ratios_now(now);
    // What each round scales towards: the record, except for a stuck key's
    // groups, which are asked to stay where they are.
    KernelGroupTimes target = *measured_times;
    constexpr int kRounds = 8;
    constexpr double kSettled = 1e-3;
    for (int round = 0; round < kRounds; ++round) {
      const std::vector<ProfileScaling> step = scale_to_record(dp, now, target, attention_peak);
      if (round == 0) {
        scalings = step;
      } else {
        for (ProfileScaling& x : scalings)
          for (const ProfileScaling& y : step)
            if (x.key == y.key) {
              x.factor *= y.factor;
              x.held |= y.held;
            }
      }
      auto again = sim::simulate(program, scenario.topology, profile, options);
      if (!again.is_ok()) throw_status(again.status());
      now = kernel_group_times(again->trace, &program, device);
      const std::map<std::string, double> next = ratios_now(now);
      bool settled = true;
      for (const ProfileScaling& x : scalings) {
        const auto r = next.find(x.key);
        if (r == next.end() || x.held || std::abs(r->second - 1) < kSettled || stuck.count(x.key))
          continue;
        const auto prev = residual.find(x.key);
        if (prev != residual.end() && std::abs(r->second - prev->second) < 1e-4 * r->second) {
          stuck.insert(x.key);
          for (KernelGroup g : x.groups)
            target.seconds[static_cast<size_t>(g)] = now.seconds[static_cast<size_t>(g)];
          continue;
        }
        settled = false;
      }
      residual = next;
      if (settled) break;
    }
    for (ProfileScaling& x : scalings)
      if (x.held) x.factor = 0;
    profile.name = "kernels-record";
    profile.source = fmt::format(
        "brigade kernels --out: {}'s profile with {}'s compute groups scaled to {} ({} step{}, "
        "{} GPU{}; docs/FIDELITY.md, \"Against a profiler's record\")",
        scenario.name, d.model, one_line(o.measured), steps, steps == 1 ? "" : "s", gpus,
        gpus == 1 ? "" : "s");
    const Status st = save_profile(profile, o.out);
    if (!st.is_ok()) throw RuntimeFailure{"brigade: error: --out: " + st.message()};
  }

  if (o.json) {
    nlohmann::json j;
    j["scenario"] = scenario.name;
    j["device"] = device;
    j["device_name"] = device_name;
    j["granularity"] = granularity;
    j["step_seconds"] = result->step_seconds;
    if (measured) {
      j["measured"] = {{"file", one_line(o.measured)},
                       {"format", measured->format},
                       {"steps", steps},
                       {"gpus", gpus}};
      if (measured->format == "brigade") {
        j["measured"]["source"] = measured->source;
        j["measured"]["device"] = record_device;       // the one compared
        j["measured"]["devices"] = measured->devices;  // those the trace (as read) has
      }
    }
    nlohmann::json jr = nlohmann::json::array();
    for (const KernelGroupRow& r : rows) {
      nlohmann::json row = {{"group", r.key},
                            {"label", r.label},
                            {"subtotal", r.subtotal},
                            {"simulated_seconds", r.simulated_seconds},
                            {"simulated_kernels", r.simulated_count}};
      if (measured) {
        row["measured_seconds"] = r.measured_seconds;
        row["measured_kernels"] = r.measured_count;
        if (r.simulated_seconds > 0 && r.measured_seconds > 0)
          row["measured_over_simulated"] = r.measured_seconds / r.simulated_seconds;
      }
      if (!r.profile_keys.empty()) row["profile_keys"] = r.profile_keys;
      jr.push_back(std::move(row));
    }
    j["rows"] = std::move(jr);
    if (measured) {
      nlohmann::json ju = nlohmann::json::array();
      for (const MeasuredKernel& k : unnamed)
        ju.push_back({{"name", one_line(k.name)},
                      {"seconds_per_step", k.seconds / (static_cast<double>(steps) * gpus)}});
      j["unnamed_measured_kernels"] = std::move(ju);
    }
    if (!o.out.empty()) {
      nlohmann::json js = nlohmann::json::array();
      for (const ProfileScaling& x : scalings) {
        nlohmann::json row = {{"key", x.key},
                              {"group", x.group},
                              {"ratio", x.ratio},
                              {"held", x.held},
                              {"stuck", stuck.count(x.key) > 0}};
        if (!x.held) row["factor"] = x.factor;
        if (const auto it = residual.find(x.key); it != residual.end())
          row["ratio_after"] = it->second;
        js.push_back(std::move(row));
      }
      j["profile_out"] = {{"file", one_line(o.out)}, {"scaled", std::move(js)}};
    }
    std::cout << j.dump(2) << "\n";
    return;
  }

  std::string out =
      fmt::format("{}: one step on {} by kernel group (simulated, granularity {}; step {})\n",
                  scenario.name, device_name, granularity, format_seconds(result->step_seconds));
  if (measured) {
    std::string what = measured->format == "nsys" ? "Nsight Systems' kernel summary"
                       : measured->format == "kineto"
                           ? "PyTorch's profiler trace"
                           : "Brigade's trace, source " + one_line(measured->source);
    if (measured->format == "brigade") what += fmt::format(", device {}", record_device);
    const char* unit = measured->format == "brigade" ? "device" : "GPU";
    out += fmt::format("against {} ({}; {} step{}, {} {}{}: its times / {})\n",
                       one_line(o.measured), what, steps, steps == 1 ? "" : "s", gpus, unit,
                       gpus == 1 ? "" : "s", static_cast<std::int64_t>(steps) * gpus);
  }
  size_t width = 26;
  for (const KernelGroupRow& r : rows) width = std::max(width, r.label.size() + 1);
  out += "\n";
  if (measured)
    out += fmt::format("  {:<{}} {:>11} {:>9} {:>11} {:>9} {:>17}\n", "group", width, "Brigade",
                       "kernels", "measured", "kernels", "measured/Brigade");
  else
    out +=
        fmt::format("  {:<{}} {:>11} {:>9} {:>7}\n", "group", width, "Brigade", "kernels", "share");
  double busy = 0;  // the simulated compute kernels' time: the share's base
  for (const KernelGroupRow& r : rows)
    if (r.key == "compute_all") busy = r.simulated_seconds;
  bool subtotals = false;
  for (const KernelGroupRow& r : rows) {
    if (r.subtotal && r.empty())
      continue;  // a subtotal of nothing (one GPU: no communication), in --json only
    if (r.subtotal && !subtotals) {
      out += "\n";
      subtotals = true;
    }
    if (measured) {
      out += fmt::format("  {:<{}} {:>11} {:>9} {:>11} {:>9} {:>17}\n", r.label, width,
                         r.simulated_seconds > 0 ? format_seconds(r.simulated_seconds) : "-",
                         count_text(r.simulated_count),
                         r.measured_seconds > 0 ? format_seconds(r.measured_seconds) : "-",
                         count_text(r.measured_count),
                         ratio_text(r.measured_seconds, r.simulated_seconds));
      continue;
    }
    // The share of the compute kernels' time; none for communication.
    const bool compute = !r.communication;
    out +=
        fmt::format("  {:<{}} {:>11} {:>9} {:>7}\n", r.label, width,
                    format_seconds(r.simulated_seconds), count_text(r.simulated_count),
                    compute && busy > 0 ? fmt::format("{:.1f}%", 100 * r.simulated_seconds / busy)
                                        : std::string("-"));
  }
  out +=
      "\n(times a step on one GPU: a kernel group's spans summed; groups overlap in time where "
      "streams run side by side, so they need not add up to the step)\n";
  if (measured) {
    std::string far;
    for (const KernelGroupRow& r : rows) {
      if (r.subtotal || r.simulated_seconds <= 0 || r.measured_seconds <= 0) continue;
      const double ratio = r.measured_seconds / r.simulated_seconds;
      if (std::abs(ratio - 1) > kFarRatio)
        far += fmt::format("  {}: {:.2f} ({})\n", r.label, ratio, r.profile_keys);
    }
    if (!far.empty())
      out +=
          "\ngroups more than 10% off (measured/Brigade), and what times them in Brigade's "
          "profile (brigade profile; brigade calibrate measures them on a GPU):\n" +
          far;
    if (!unnamed.empty()) {
      out += "\nmeasured kernels no rule names (group 'other'), largest first:\n";
      for (const MeasuredKernel& k : unnamed) {
        const std::string name = quoted(k.name, 100);  // one line; the quotes dropped
        out += fmt::format("  {:>11}  {}\n",
                           format_seconds(k.seconds / (static_cast<double>(steps) * gpus)),
                           name.substr(1, name.size() - 2));
      }
    }
  }
  if (!o.out.empty()) {
    out += fmt::format(
        "\nprofile written to {} (--profile FILE), its keys scaled so that each "
        "group takes the record's time:\n",
        o.out);
    for (const ProfileScaling& x : scalings) {
      const auto it = residual.find(x.key);
      std::string how = x.held ? std::string(
                                     "held at its bound (an efficiency at 1 or 1e-6, an "
                                     "attention rate at the peak)")
                               : fmt::format("x {:.3f}", x.factor);
      if (stuck.count(x.key))
        how +=
            "; its group stopped moving short of the record: these keys time little or none "
            "of the plan's kernels of it";
      out += fmt::format("  {}: {}; {}: {:.2f} -> {:.3f}\n", x.key, how, x.group, x.ratio,
                         it == residual.end() ? 0.0 : it->second);
    }
    if (scalings.empty()) out += "  none: no compute group on both sides\n";
  }
  if (granularity != "kernel" && simulated.of(KernelGroup::kFused) > 0)
    out += fmt::format(
        "note: granularity {}: fused runs of kernels are one group of their own; "
        "--granularity kernel names each kernel\n",
        granularity);
  std::cout << out;
}

const RegisterVerb kRegister("kernels", 23, [](CLI::App& app) {
  auto opts = std::make_shared<KernelsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "kernels",
      "One device's step by kernel group (GEMMs by width, attention, norms, activations, FP8\n"
      "casts, optimizer, loss, embedding, other streaming, NCCL by collective), simulated; with\n"
      "--measured, beside a profiler's record of the same plan (Nsight Systems' kernel summary\n"
      "CSV, PyTorch's profiler trace, or Brigade's own trace of it: brigade execute --trace),\n"
      "with the ratio and what times each group in Brigade.");
  cmd->add_option("scenario", opts->scenario, "scenario file (.yaml, .yml, .json)")->required();
  cmd->add_option("--profile", opts->profile,
                  "hardware profile replacing the scenario's (brigade calibrate --out)")
      ->check(input_path_check());
  cmd->add_option("--measured", opts->measured,
                  "the profiler's record: nsys stats --report cuda_gpu_kern_sum --format csv "
                  "output, torch.profiler's trace (.json, .json.gz), or Brigade's trace of the "
                  "same plan (brigade execute --trace; its device --device unless "
                  "--measured-device)")
      ->check(input_path_check());
  cmd->add_option("--steps", opts->steps,
                  "how many steps the record covers (nsys: required; a PyTorch trace: its "
                  "ProfilerStep annotations by default)");
  cmd->add_option("--gpus", opts->gpus,
                  "how many GPUs the record sums (default: a PyTorch trace's devices, else 1)");
  cmd->add_option("--measured-device", opts->measured_device,
                  "a PyTorch or Brigade trace: keep this device's kernels only");
  cmd->add_option("--device", opts->device, "Brigade's device to hold against it (default 0)");
  cmd->add_option("--network", opts->network,
                  "flow or ideal (default: the scenario's simulation.network, else flow)");
  cmd->add_option("--granularity", opts->granularity,
                  "task granularity: auto, kernel, region or step (default auto)");
  cmd->add_option("--out", opts->out,
                  "write the scenario's profile with the device's compute groups scaled to the "
                  "record (GEMM curves, attention rates, norm, activation and memory efficiencies)")
      ->check(output_path_check());
  cmd->add_flag("--json", opts->json, "one JSON object on stdout (SI units)");
  cmd->callback([opts] { run_kernels(*opts); });
});

}  // namespace
}  // namespace brigade::cli
