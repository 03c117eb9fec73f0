// What one run of a plan looked like, in the figures `brigade compare` and
// the app's compare view set side by side: the step, per device its busy,
// communication, exposed-communication and idle time and its peak memory,
// and per task kind the time spent. Read from any Trace (simulated,
// measured on CPU threads or GPUs, or another tool's Chrome trace), or, for
// the closed form, filled in by costmodel (cost::figures_of_estimate).
// Widget-free and Program-free: a Trace alone is enough.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "core/program.hpp"
#include "core/trace.hpp"

namespace brigade {

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

struct DeviceFigures {
  int device = 0;
  std::string name;                      // "gpu3", "node1/gpu5"
  // Definitions as docs/ARCHITECTURE.md's (and the simulator's report):
  double busy_seconds = kUnknown;        // union of its compute spans
  double comm_seconds = kUnknown;        // union of its transfer and collective spans
  double exposed_seconds = kUnknown;     // communication while no compute span runs
  double idle_seconds = kUnknown;        // step - (busy or communicating)
  double peak_memory_bytes = kUnknown;   // highest total of its memory samples; unknown without them
};

// How a run's per-kind times are counted: summed span durations over every
// device (a Trace), or the busiest device's time per step (the closed form).
enum class KindBasis { kDeviceSeconds, kBusiestDevice };

struct KindFigures {
  // "compute fwd", "compute bwd", "compute recompute", "compute opt",
  // "transfer", a collective kind ("allreduce", ...) where the span's name
  // says it, else "collective".
  std::string kind;
  int count = 0;         // spans (calls for the closed form)
  double seconds = 0;    // see KindBasis
  double bytes = 0;      // transfers' bytes whose task is of this kind
};

struct RunFigures {
  std::string label;    // what the user named (a file)
  std::string source;   // "sim:flow", "cpu", "cuda", "cost", or a foreign trace's
  std::string program;  // the Program's (scenario's) name
  double step_seconds = 0;
  KindBasis basis = KindBasis::kDeviceSeconds;
  std::vector<DeviceFigures> devices;  // by device id
  std::vector<KindFigures> kinds;      // sorted by kind
  std::int64_t spans = 0;              // spans read (0 for the closed form)
};

// The figures of a trace. Times are from the step's start (a Brigade trace
// starts at 0; a foreign trace is measured from its first span). Devices
// without a span or a memory sample are left out.
RunFigures figures_of_trace(const Trace& trace, const std::string& label);

// The figures of a simulated run (`brigade compare` of a scenario, the app's
// compare view of an open scenario): `trace`'s, with each collective span
// counted under its Program's kind (a Trace does not record the kind, which
// figures_of_trace guesses from the span's name) and `step_seconds` the
// simulator's step (an input pipeline's wait included), idle time too.
RunFigures figures_of_simulation(const Trace& trace, const Program& program, double step_seconds,
                                 const std::string& label);

// Where one device's compute time goes, kernel by kernel (`brigade simulate
// --kernels DEVICE`): its compute spans summed by name, so each row is a
// kernel of the Program (or a fused task's region at coarser granularity)
// with every layer's and micro-batch's instances together. Its spans on a
// device's compute streams do not overlap in a Brigade trace, so the
// seconds add up to the device's busy time.
struct KernelRow {
  std::string name;  // the task's name ("attn.qkv", "mlp.fc1.wgrad.recompute", ...)
  int count = 0;     // spans
  double seconds = 0;
};

// Rows for `device`, largest first (ties by name); none when the trace holds
// no compute span of it.
std::vector<KernelRow> kernel_rows(const Trace& trace, int device);

// The kind key of a span (RunFigures::kinds), from its kind, phase and name;
// a collective's from `program` when given (the trace's Program).
std::string span_kind_key(const Trace& trace, const TraceSpan& span,
                          const Program* program = nullptr);

}  // namespace brigade
