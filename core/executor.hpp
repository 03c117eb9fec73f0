// One interface for everything that runs a Program and returns a Trace: the
// simulator (sim/) and the real executors (realexec/). Reports, views and
// `brigade validate` depend only on this.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "core/program.hpp"
#include "core/runtime.hpp"
#include "core/status.hpp"
#include "core/trace.hpp"

namespace brigade {

class Topology;
struct HardwareProfile;

struct RunOptions {
  bool record_trace = true;      // spans/transfers/memory samples (costly at scale)
  int repeat = 1;                // real executors: steps to run (first is warm-up if > 1)
  // Real executors, repeat > 1: after the first (warm-up) step, more untimed
  // steps until the warm-up steps have taken this long in all (at most 1000
  // of them): clocks ramped up, caches, TLBs and the allocator's free lists
  // in their steady state before a step is timed.
  double warmup_seconds = 0;
  // Progress for long work: called with (done, total) now and then, from the
  // calling thread. May be empty.
  std::function<void(double done, double total)> on_progress;
  // Cancellation: when set, the run polls it (the simulator every few
  // thousand events and after each progress call, real executors between
  // steps) and, once it reads true, stops and returns
  // Status::error("cancelled", ErrorKind::kCancelled). Owned by the caller,
  // who may set it from any thread (or from on_progress); must outlive the run.
  const std::atomic<bool>* cancel = nullptr;
  // What happens at run time that the plan did not see (the scenario's
  // runtime:, core/runtime.hpp). The simulator and the CPU executor inject
  // it (docs/executors.md, "Runtime conditions"); the CUDA executor does not
  // and says so in a warning.
  RuntimeConditions runtime;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // "sim:flow", "cpu", "cuda", ...
  virtual std::string name() const = 0;
  virtual Result<Trace> run(const Program& program, const Topology& topology,
                            const HardwareProfile& profile, const RunOptions& options) = 0;
};

}  // namespace brigade
