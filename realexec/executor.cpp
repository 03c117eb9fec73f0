#include "realexec/executor.hpp"

#include <algorithm>
#include <numeric>

#include "realexec/summary.hpp"

namespace brigade::realexec {

std::string_view backend_name(Backend b) {
  switch (b) {
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
  }
  return "?";
}

std::optional<Backend> parse_backend(std::string_view s) {
  if (s == "cpu") return Backend::kCpu;
  if (s == "cuda") return Backend::kCuda;
  return std::nullopt;
}

Result<Trace> RealExecutor::run(const Program& program, const Topology& topology,
                                const HardwareProfile& profile, const RunOptions& options) {
  BRIGADE_ASSIGN_OR_RETURN(std::vector<Trace> steps,
                           run_steps(program, topology, profile, options));
  if (steps.empty()) return Status::error("no step was run", ErrorKind::kInternal);
  // The step whose time is the median (the lower middle for an even count).
  std::vector<size_t> order(steps.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> times;
  for (const Trace& t : steps) times.push_back(t.step_seconds());
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return times[a] < times[b]; });
  return std::move(steps[order[(order.size() - 1) / 2]]);
}

Result<std::unique_ptr<RealExecutor>> make_executor(Backend backend) {
  if (backend == Backend::kCpu) return std::unique_ptr<RealExecutor>(make_cpu_executor());
  return make_cuda_executor();
}

}  // namespace brigade::realexec
