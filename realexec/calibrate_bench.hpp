// The benchmark machinery of `calibrate` and the speed probe (internal to
// realexec/: calibrate.cpp and speed_probe.cpp): a Bench that runs programs
// in interleaved rounds and reads their traces, and on_every_device, which
// builds a program of one kernel stream per device.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/program.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "core/trace.hpp"
#include "realexec/calibrate.hpp"
#include "realexec/summary.hpp"

namespace brigade::realexec::calibrate_detail {

// The benchmark machinery shared by every measurement.
class Bench {
 public:
  // `warmup_seconds`: each run's untimed steps before its timed ones go on
  // for at least this long (RunOptions::warmup_seconds).
  Bench(RealExecutor& ex, const Topology& topo, const CalibrateProgress& progress, int total,
        double warmup_seconds, const std::atomic<bool>* interrupted)
      : ex_(ex),
        topo_(topo),
        progress_(progress),
        total_(total),
        warmup_seconds_(warmup_seconds),
        interrupted_(interrupted) {}

  // Whether calibrate was asked to stop (CalibrateOptions::interrupted).
  bool interrupted() const { return interrupted_ && interrupted_->load(); }

  // Runs a warm-up and one timed step; returns the timed step's trace.
  Result<Trace> run(const Program& p, const std::string& what) {
    BRIGADE_ASSIGN_OR_RETURN(std::vector<Trace> steps, run_steps(p, what, 1));
    return std::move(steps.back());
  }

  // A measurement: a program and what to read from a timed step of it; with
  // `steps` > 1, that many timed steps and the median of their readings.
  struct Job {
    Program program;
    std::string what;
    std::function<double(const Trace&)> measure;
    int steps = 1;
    // A second reading of the same steps, if any (run_rounds' `also`).
    std::function<double(const Trace&)> also = nullptr;
  };

  // Runs every job in kRounds interleaved rounds (each job once, a warm-up
  // and a timed step, then each job again, ...) and returns each job's
  // median over its rounds: the machine's other tenants (this is often a
  // shared VM) slow it for spells of a fraction of a second, and a spell
  // then lands in one round of a few jobs, not in every round of one.
  // `also`, if given: each job's median of its second reading (0 for jobs
  // without one); `also_by_round`: each job's second readings, one a round.
  Result<std::vector<double>> run_rounds(
      const std::vector<Job>& jobs, std::vector<double>* also = nullptr,
      std::vector<std::vector<double>>* also_by_round = nullptr) {
    std::vector<std::vector<double>> values(jobs.size()), also_values(jobs.size());
    for (int r = 0; r < kRounds; ++r)
      for (size_t j = 0; j < jobs.size(); ++j) {
        BRIGADE_ASSIGN_OR_RETURN(std::vector<Trace> steps,
                                 run_steps(jobs[j].program,
                                           jobs[j].what + " (round " + std::to_string(r + 1) + "/" +
                                               std::to_string(kRounds) + ")",
                                           std::max(jobs[j].steps, 1)));
        std::vector<double> readings, also_readings;
        for (const Trace& t : steps) {
          readings.push_back(jobs[j].measure(t));
          if (jobs[j].also) also_readings.push_back(jobs[j].also(t));
        }
        values[j].push_back(median(readings));
        if (!also_readings.empty()) also_values[j].push_back(median(also_readings));
      }
    std::vector<double> medians;
    for (const std::vector<double>& v : values) medians.push_back(median(v));
    if (also) {
      also->clear();
      for (const std::vector<double>& v : also_values) also->push_back(v.empty() ? 0.0 : median(v));
    }
    if (also_by_round) *also_by_round = also_values;
    return medians;
  }
  static constexpr int kRounds = 3;

  // The mean span of the tasks of `kind` on stream `s`, or on every stream
  // (0 if none): for programs whose kernels alternate with untimed work
  // (eviction copies).
  static double mean_span(const Trace& t, TaskKind kind, std::optional<StreamId> s = {}) {
    double spans = 0;
    int count = 0;
    for (const TraceSpan& sp : t.spans)
      if (sp.kind == kind && (!s || sp.stream == *s)) {
        spans += sp.end_seconds - sp.start_seconds;
        ++count;
      }
    return count > 0 ? spans / count : 0.0;
  }
  // Programs of (untimed copy, then kernels in groups of `group`) on the
  // streams `ss`: each group's kernel spans, over every stream.
  static std::vector<std::vector<double>> kernel_groups(const Trace& t,
                                                        const std::vector<StreamId>& ss,
                                                        size_t group) {
    std::vector<std::vector<double>> groups;
    for (StreamId s : ss) {
      std::vector<const TraceSpan*> kernels;
      for (const TraceSpan& sp : t.spans)
        if (sp.stream == s && sp.kind == TaskKind::kCompute) kernels.push_back(&sp);
      std::sort(kernels.begin(), kernels.end(), [](const TraceSpan* a, const TraceSpan* b) {
        return a->start_seconds < b->start_seconds;
      });
      for (size_t i = 0; i + group <= kernels.size(); i += group) {
        std::vector<double> g;
        for (size_t j = i; j < i + group; ++j)
          g.push_back(kernels[j]->end_seconds - kernels[j]->start_seconds);
        groups.push_back(std::move(g));
      }
    }
    return groups;
  }
  // The median over such groups of f(group).
  template <class F>
  static double median_over_groups(const Trace& t, const std::vector<StreamId>& ss, size_t group,
                                   F&& f) {
    std::vector<double> values;
    for (const std::vector<double>& g : kernel_groups(t, ss, group)) values.push_back(f(g));
    return values.empty() ? 0.0 : median(values);
  }
  // What each task on the streams `ss` costs a step: per stream, the time
  // from its first task's start to its last task's end over the number of
  // tasks (gaps between tasks included, and any time the OS gave the thread
  // to someone else: a step pays those too, where the median of single
  // tasks would not); the mean over the streams.
  static double per_task_seconds(const Trace& t, const std::vector<StreamId>& ss) {
    return per_task_seconds_in(t, ss, 0, std::numeric_limits<size_t>::max());
  }
  // The same over the tasks [from, to) of each stream, in stream order.
  static double per_task_seconds_in(const Trace& t, const std::vector<StreamId>& ss, size_t from,
                                    size_t to) {
    double sum = 0;
    int streams = 0;
    for (StreamId s : ss) {
      double first = 1e300, last = -1e300;
      size_t i = 0;
      int n = 0;
      for (const TraceSpan& sp : t.spans)
        if (sp.stream == s) {
          if (i >= from && i < to) {
            first = std::min(first, sp.start_seconds);
            last = std::max(last, sp.end_seconds);
            ++n;
          }
          ++i;
        }
      if (n == 0) continue;
      sum += (last - first) / n;
      ++streams;
    }
    return streams > 0 ? sum / streams : 0.0;
  }

 private:
  Result<std::vector<Trace>> run_steps(const Program& p, const std::string& what, int timed) {
    if (interrupted()) return Status::error("calibrate: interrupted", ErrorKind::kRuntime);
    if (progress_) progress_(what, done_, total_);
    RunOptions o;
    o.repeat = 1 + timed;
    o.warmup_seconds = warmup_seconds_;
    BRIGADE_ASSIGN_OR_RETURN(std::vector<Trace> steps,
                             ex_.run_steps(p, topo_, HardwareProfile::defaults(), o));
    ++done_;
    return steps;  // the timed ones
  }

  RealExecutor& ex_;
  const Topology& topo_;
  const CalibrateProgress& progress_;
  int done_ = 0;
  int total_;
  double warmup_seconds_;
  const std::atomic<bool>* interrupted_ = nullptr;
};

// A program with one "compute" stream per device, each filled by
// add_tasks(builder, stream, device): kernels measured on every device at
// once, as the devices of a plan run (a device's rate with its siblings
// busy: shared caches, memory bandwidth and, on a CPU, cores). The streams
// by device.
template <class AddTasks>
Result<std::pair<Program, std::vector<StreamId>>> on_every_device(const std::string& name,
                                                                  int devices,
                                                                  AddTasks&& add_tasks) {
  ProgramBuilder b(name, devices);
  std::vector<StreamId> ss;
  for (int d = 0; d < devices; ++d) {
    ss.push_back(b.stream(d, "compute"));
    add_tasks(b, ss.back(), d);
  }
  BRIGADE_ASSIGN_OR_RETURN(Program p, std::move(b).build());
  return std::make_pair(std::move(p), ss);
}

}  // namespace brigade::realexec::calibrate_detail
