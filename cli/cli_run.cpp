#include "cli/cli_run.hpp"

#include "cli/cli_util.hpp"
#include "planner/lower.hpp"

namespace brigade::cli {

PreparedRun prepare_run(const std::string& scenario_path, const RunFlags& flags) {
  const std::string backend = parse_choice_flag("--backend", flags.backend, {"cpu", "cuda"});
  PreparedRun r{load_scenario_or_throw(scenario_path, flags.profile), {}};
  const std::string& kind = r.scenario.profile.machine_kind;
  if (!flags.profile.empty() && kind != "datasheet" && kind != backend)
    throw BadInput{flags.profile + ": error: found a profile calibrated on the '" + kind +
                   "' backend; expected one for '" + backend + "' (brigade calibrate --backend " +
                   backend + ")"};
  if (backend == "cpu") {
    for (const Device& d : r.scenario.topology.devices())
      if (d.kind != DeviceKind::kCpu)
        throw BadInput{r.scenario.where("topology").str() + ": error: found " +
                       std::string(device_kind_name(d.kind)) + " device '" + d.name + "' (" +
                       r.scenario.topology.preset +
                       "); expected host-thread devices for --backend cpu, such as "
                       "topology: {preset: cpu-host, devices: 2}"};
  }
  planner::LowerOptions options;
  options.granularity = planner::Granularity::kKernel;
  auto plan = planner::lower(r.scenario, options);
  if (!plan.is_ok()) throw_status(plan.status());
  r.plan = std::move(plan).value();
  return r;
}

std::unique_ptr<realexec::RealExecutor> make_backend_executor(const RunFlags& flags) {
  const std::string backend = parse_choice_flag("--backend", flags.backend, {"cpu", "cuda"});
  if (backend == "cpu") {
    realexec::CpuOptions options;
    options.compute_16bit_in_f32 = flags.compute_16bit_in_f32;
    return realexec::make_cpu_executor(options);
  }
  auto cuda = realexec::make_cuda_executor();
  if (!cuda.is_ok()) throw_status(cuda.status());
  return std::move(cuda).value();
}

}  // namespace brigade::cli
