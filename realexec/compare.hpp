// Two judges of one Program side by side: a simulated Trace and a measured
// one (both core types, so this needs neither sim/ nor a backend). Used by
// `brigade validate`.
#pragma once

#include <string>
#include <vector>

#include "core/program.hpp"
#include "core/status.hpp"
#include "core/trace.hpp"

namespace brigade::realexec {

// (predicted - measured) / measured: positive when the prediction is too
// slow. 0 when both are 0; +infinity when only the measurement is 0.
double relative_error(double predicted, double measured);

struct TaskComparison {
  TaskId task = -1;
  std::string kind;  // task_kind_key (summary.hpp)
  double simulated_seconds = 0;
  double measured_seconds = 0;
  double relative_error = 0;
};

struct KindComparison {
  std::string kind;
  int tasks = 0;
  double simulated_seconds = 0;  // summed span durations (device-seconds)
  double measured_seconds = 0;
  double relative_error = 0;
};

// A kernel's tasks together: the compute tasks of one name (every layer's
// and micro-batch's instance of "attn.qkv", ...), as `simulate --kernels`
// groups one device's spans, here over every device.
struct KernelComparison {
  std::string name;
  int tasks = 0;
  double simulated_seconds = 0;  // summed durations (device-seconds)
  double measured_seconds = 0;
  double relative_error = 0;
};

struct TraceComparison {
  double simulated_step_seconds = 0;
  double measured_step_seconds = 0;
  double step_relative_error = 0;
  std::vector<TaskComparison> tasks;  // every task of the Program, in id order
  std::vector<KindComparison> kinds;  // sorted by kind
  // Compute tasks by name, the largest measured first (ties by name).
  std::vector<KernelComparison> kernels;
  double median_abs_task_error = 0;
  double p90_abs_task_error = 0;
};

// Compares the two traces task by task (a task's duration: the sum of its
// spans), by task kind and by step time (Trace::step_seconds). Fails if a
// task of the Program has no span in either trace, naming the task and the
// trace's source.
Result<TraceComparison> compare_traces(const Program& program, const Trace& simulated,
                                       const Trace& measured);

struct ErrorSummary {
  int count = 0;
  double median_abs_error = 0;
  double p90_abs_error = 0;  // nearest rank (summary.hpp, percentile)
};
// Median and 90th percentile of |relative error| (validate's headline numbers).
ErrorSummary summarise_errors(const std::vector<double>& relative_errors);

// How far a measurement taken in rounds disagrees with itself: each round's
// median step, the error of the simulated step against each, and the
// spread of the rounds' medians, (largest - smallest) / their median. On the
// shared development VM the three rounds of one scenario, seconds apart,
// lay up to 80% apart (medians over 24 validations 3-12% by scenario); an
// error inside the rounds' range is not resolved by that run.
struct RoundSpread {
  std::vector<double> round_median_seconds;  // rounds without steps left out
  std::vector<double> round_errors;          // relative_error(simulated, each round's median)
  double min_error = 0, max_error = 0;       // over round_errors; 0 and 0 without rounds
  double spread = 0;                         // 0 with fewer than two rounds
};
RoundSpread round_spread(double simulated_seconds,
                         const std::vector<std::vector<double>>& round_steps);

}  // namespace brigade::realexec
