#include "realexec/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "realexec/summary.hpp"

namespace brigade::realexec {

double relative_error(double predicted, double measured) {
  if (measured == 0) return predicted == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return (predicted - measured) / measured;
}

namespace {

Result<std::vector<double>> task_durations(const Program& p, const Trace& t) {
  std::vector<double> d(static_cast<size_t>(p.num_tasks()), 0.0);
  std::vector<char> seen(static_cast<size_t>(p.num_tasks()), 0);
  for (const TraceSpan& s : t.spans) {
    if (s.task < 0 || s.task >= p.num_tasks()) continue;
    d[static_cast<size_t>(s.task)] += s.end_seconds - s.start_seconds;
    seen[static_cast<size_t>(s.task)] = 1;
  }
  for (TaskId i = 0; i < p.num_tasks(); ++i)
    if (!seen[static_cast<size_t>(i)]) {
      std::string label = "task " + std::to_string(i);
      if (!p.task_name(i).empty()) label += " '" + std::string(p.task_name(i)) + "'";
      return Status::error("program '" + p.name + "': " + label +
                               " has no span in the trace from '" + t.source + "'",
                           ErrorKind::kBadInput);
    }
  return d;
}

}  // namespace

Result<TraceComparison> compare_traces(const Program& program, const Trace& simulated,
                                       const Trace& measured) {
  BRIGADE_ASSIGN_OR_RETURN(std::vector<double> sim, task_durations(program, simulated));
  BRIGADE_ASSIGN_OR_RETURN(std::vector<double> real, task_durations(program, measured));
  TraceComparison c;
  c.simulated_step_seconds = simulated.step_seconds();
  c.measured_step_seconds = measured.step_seconds();
  c.step_relative_error = relative_error(c.simulated_step_seconds, c.measured_step_seconds);
  std::map<std::string, KindComparison> kinds;
  std::map<std::string, KernelComparison, std::less<>> kernels;
  std::vector<double> errors;
  for (TaskId t = 0; t < program.num_tasks(); ++t) {
    TaskComparison tc;
    tc.task = t;
    tc.kind = task_kind_key(program, t);
    tc.simulated_seconds = sim[static_cast<size_t>(t)];
    tc.measured_seconds = real[static_cast<size_t>(t)];
    tc.relative_error = relative_error(tc.simulated_seconds, tc.measured_seconds);
    errors.push_back(tc.relative_error);
    KindComparison& k = kinds[tc.kind];
    k.kind = tc.kind;
    ++k.tasks;
    k.simulated_seconds += tc.simulated_seconds;
    k.measured_seconds += tc.measured_seconds;
    if (program.task(t).kind == TaskKind::kCompute) {
      const std::string_view name = program.task_name(t);
      auto it = kernels.find(name);
      if (it == kernels.end()) it = kernels.emplace(std::string(name), KernelComparison{}).first;
      KernelComparison& kc = it->second;
      ++kc.tasks;
      kc.simulated_seconds += tc.simulated_seconds;
      kc.measured_seconds += tc.measured_seconds;
    }
    c.tasks.push_back(std::move(tc));
  }
  for (auto& [name, kc] : kernels) {
    kc.name = name;
    kc.relative_error = relative_error(kc.simulated_seconds, kc.measured_seconds);
    c.kernels.push_back(kc);
  }
  std::sort(c.kernels.begin(), c.kernels.end(),
            [](const KernelComparison& a, const KernelComparison& b) {
              return a.measured_seconds != b.measured_seconds
                         ? a.measured_seconds > b.measured_seconds
                         : a.name < b.name;
            });
  for (auto& [name, k] : kinds) {
    k.relative_error = relative_error(k.simulated_seconds, k.measured_seconds);
    c.kinds.push_back(k);
  }
  const ErrorSummary s = summarise_errors(errors);
  c.median_abs_task_error = s.median_abs_error;
  c.p90_abs_task_error = s.p90_abs_error;
  return c;
}

ErrorSummary summarise_errors(const std::vector<double>& relative_errors) {
  std::vector<double> abs;
  for (double e : relative_errors) abs.push_back(std::abs(e));
  ErrorSummary s;
  s.count = static_cast<int>(abs.size());
  s.median_abs_error = median(abs);
  s.p90_abs_error = percentile(abs, 90);
  return s;
}

RoundSpread round_spread(double simulated_seconds,
                         const std::vector<std::vector<double>>& round_steps) {
  RoundSpread r;
  for (const std::vector<double>& steps : round_steps) {
    if (steps.empty()) continue;
    const double m = median(steps);
    r.round_median_seconds.push_back(m);
    r.round_errors.push_back(relative_error(simulated_seconds, m));
  }
  if (r.round_errors.empty()) return r;
  const auto [lo, hi] = std::minmax_element(r.round_errors.begin(), r.round_errors.end());
  r.min_error = *lo;
  r.max_error = *hi;
  if (r.round_median_seconds.size() >= 2) {
    const auto [a, b] =
        std::minmax_element(r.round_median_seconds.begin(), r.round_median_seconds.end());
    const double mid = median(r.round_median_seconds);
    r.spread = mid > 0 ? (*b - *a) / mid : 0;
  }
  return r;
}

}  // namespace brigade::realexec
