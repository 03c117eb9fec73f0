// Repeated real runs and their summary: step time and time per task kind,
// median and 90th percentile over the timed steps.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/program.hpp"
#include "core/runtime.hpp"
#include "core/status.hpp"
#include "core/trace.hpp"

namespace brigade {
class Topology;
struct HardwareProfile;
}  // namespace brigade

namespace brigade::realexec {

class RealExecutor;

// Median (the mean of the two middle values for an even count); 0 if empty.
double median(std::vector<double> values);
// The q-th percentile (0 < q <= 100) by the nearest-rank method: the
// ceil(q/100 * n)-th smallest value (NIST/SEMATECH e-Handbook, 7.2.5.2); 0 if empty.
double percentile(std::vector<double> values, double q);

// The kind a task is reported under: "gemm", "memory", "fixed", "transfer",
// or the collective's kind ("allreduce", ...).
std::string task_kind_key(const Program& program, TaskId task);

struct KindSummary {
  std::string kind;
  int spans_per_step = 0;
  // Summed span durations of this kind per step (device-seconds: a
  // collective counts once per rank), median and p90 over the steps.
  double median_seconds = 0;
  double p90_seconds = 0;
};

struct StepSummary {
  int steps = 0;
  std::vector<double> step_seconds;  // per timed step, in order
  double median_step_seconds = 0;
  double p90_step_seconds = 0;
  std::vector<KindSummary> kinds;  // sorted by kind
};

// Summarises the traces of repeated steps of one Program.
StepSummary summarise_steps(const Program& program, const std::vector<Trace>& steps);

struct RepeatedRun {
  std::vector<Trace> steps;  // timed steps
  StepSummary summary;
  std::vector<std::string> warnings;
};

// How long `brigade execute` and `validate` warm up before timing a step:
// steps of a few milliseconds ran 10-40% slower in the first tens of
// milliseconds of a run than later on the development VM (the host's
// clocks and caches settling), which decided a 2 ms AllReduce's median over
// 5 steps.
inline constexpr double kWarmupSeconds = 0.25;

// Runs untimed warm-up steps (the first of which, under Verify::kFirstStep,
// checks the results) for at least `warmup_seconds` (RunOptions), then
// `timed_steps` timed steps, and summarises the latter.
Result<RepeatedRun> run_repeated(RealExecutor& executor, const Program& program,
                                 const Topology& topology, const HardwareProfile& profile,
                                 int timed_steps,
                                 std::function<void(double, double)> on_progress = {},
                                 double warmup_seconds = kWarmupSeconds,
                                 const RuntimeConditions& runtime = {});

}  // namespace brigade::realexec
