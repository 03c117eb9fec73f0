#include "realexec/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "realexec/executor.hpp"

namespace brigade::realexec {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the ceil(q/100 * n)-th smallest (1-based), at least the first.
  const double rank = std::ceil(q / 100.0 * static_cast<double>(values.size()));
  const auto i = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(values.size())));
  return values[i - 1];
}

std::string task_kind_key(const Program& program, TaskId task) {
  const Task& t = program.task(task);
  switch (t.kind) {
    case TaskKind::kCompute:
      return std::string(compute_kind_name(t.compute));
    case TaskKind::kTransfer:
      return "transfer";
    case TaskKind::kCollective:
      return std::string(
          collective_kind_name(program.collectives()[static_cast<size_t>(t.collective)].kind));
  }
  return "?";
}

StepSummary summarise_steps(const Program& program, const std::vector<Trace>& steps) {
  StepSummary s;
  s.steps = static_cast<int>(steps.size());
  std::map<std::string, std::vector<double>> per_kind;  // kind -> seconds per step
  std::map<std::string, int> spans;
  for (size_t i = 0; i < steps.size(); ++i) {
    s.step_seconds.push_back(steps[i].step_seconds());
    std::map<std::string, double> sums;
    std::map<std::string, int> counts;
    for (const TraceSpan& sp : steps[i].spans) {
      if (sp.task < 0 || sp.task >= program.num_tasks()) continue;
      const std::string k = task_kind_key(program, sp.task);
      sums[k] += sp.end_seconds - sp.start_seconds;
      ++counts[k];
    }
    for (const auto& [k, v] : sums) {
      auto& series = per_kind[k];
      series.resize(i, 0.0);  // a kind absent from earlier steps took 0 there
      series.push_back(v);
      spans[k] = std::max(spans[k], counts[k]);
    }
  }
  s.median_step_seconds = median(s.step_seconds);
  s.p90_step_seconds = percentile(s.step_seconds, 90);
  for (auto& [k, v] : per_kind) {
    v.resize(steps.size(), 0.0);
    s.kinds.push_back(KindSummary{k, spans[k], median(v), percentile(v, 90)});
  }
  return s;
}

Result<RepeatedRun> run_repeated(RealExecutor& executor, const Program& program,
                                 const Topology& topology, const HardwareProfile& profile,
                                 int timed_steps, std::function<void(double, double)> on_progress,
                                 double warmup_seconds, const RuntimeConditions& runtime) {
  if (timed_steps < 1)
    return Status::error("found repeat " + std::to_string(timed_steps) + "; expected repeat >= 1");
  RunOptions options;
  options.repeat = timed_steps + 1;
  options.on_progress = std::move(on_progress);
  options.warmup_seconds = warmup_seconds;
  options.runtime = runtime;
  BRIGADE_ASSIGN_OR_RETURN(std::vector<Trace> steps,
                           executor.run_steps(program, topology, profile, options));
  RepeatedRun r;
  r.summary = summarise_steps(program, steps);
  r.steps = std::move(steps);
  r.warnings = executor.warnings();
  return r;
}

}  // namespace brigade::realexec
