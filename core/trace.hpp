// The Trace: what happened when a Program ran, in the simulator or on real
// hardware. Both judges produce this same type so that every report, view
// and comparison works on either. Times are seconds from the step's start.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/program.hpp"
#include "core/status.hpp"

namespace brigade {

// Memory layout (docs/ARCHITECTURE.md, "Trace"): plain arrays of small
// fixed-size records, no strings in them; names, streams and lanes are
// indices into the Trace's tables. A span takes 48 bytes, a transfer 48, a
// memory sample 24: a 1.4 M-task step with 5 M messages is about 0.3 GB.
struct TraceSpan {
  TaskId task = -1;          // the Program's task, -1 if unknown (read from a foreign file)
  std::int32_t device = 0;
  std::int32_t stream = 0;   // index into Trace::streams
  double start_seconds = 0;
  double end_seconds = 0;
  NameId name = -1;          // into Trace::names
  TaskKind kind = TaskKind::kCompute;
  Phase phase = Phase::kForward;
  CollectiveId collective = -1;
};

// Bytes that crossed between two devices (one transfer, or one step of a
// collective's algorithm), optionally on a known link lane.
struct TraceTransfer {
  TaskId task = -1;          // the transfer or collective task it belongs to
  std::int32_t src = 0, dst = 0;
  double bytes = 0;
  double start_seconds = 0;
  double end_seconds = 0;
  std::int32_t lane = -1;    // index into Trace::lanes (a link or channel), -1 if none
};

// The host lane (docs/simulator.md, "The host lane"): a device's host
// issuing one task's operations (its kernels, a collective's launch), from
// the host's previous issue to this task's: the task can start no earlier
// than `end_seconds`. The simulator records one per task where a host time
// per operation is set (simulation.host_op_time); the executors, none yet.
struct HostSpan {
  TaskId task = -1;
  std::int32_t device = 0;
  double start_seconds = 0;
  double end_seconds = 0;  // the task's issue time
  NameId name = -1;        // the task's name, into Trace::names
};

// Bytes live on a device in one memory category from `time_seconds` on
// (a step function: the value holds until the next sample of that device
// and category).
struct MemorySample {
  std::int32_t device = 0;
  MemoryCategory category = MemoryCategory::kOther;
  double time_seconds = 0;
  double bytes = 0;
};

struct Trace {
  std::string source;                     // "sim:flow", "sim:ideal", "cpu", "cuda"
  std::string program;                    // the Program's name
  // What the recorder left out, in words ("devices 0-7,64; window 0 s to
  // 50.0 ms": core/trace_filter.hpp); "" when it kept everything.
  std::string filter;
  std::vector<std::string> device_names;  // by device id
  std::vector<Stream> streams;            // (device, name), as in the Program
  std::vector<std::string> lanes;         // link lanes for transfers ("gpu0->nvswitch")
  std::vector<std::string> names;         // task names
  std::vector<TraceSpan> spans;
  std::vector<TraceTransfer> transfers;
  std::vector<MemorySample> memory;
  std::vector<HostSpan> host;  // the host lane, in issue order; empty without one

  // Latest end minus earliest start over all spans (0 if none).
  double step_seconds() const;
  NameId intern(const std::string& name);  // linear; for small traces and readers
};

// Chrome Trace Event JSON (opens in Perfetto and chrome://tracing):
//   pid = device, tid = stream; spans as complete ("X") events; transfers as
//   async ("b"/"e") events on per-link lanes of a "network" process, with
//   flow ("s"/"f") arrows from the sending span to the receiving span (one
//   per point-to-point transfer; one per sender and receiver of a
//   collective, not one per step); memory as counter ("C") tracks; the host
//   lane as complete events of category "host" on a thread "host" of its
//   device (tid: the streams' count plus the device);
//   process/thread names as metadata ("M") events for the devices and
//   streams that have events. Times in microseconds, written as exact
//   decimals of the seconds (core/trace_decimal.hpp); task ids, kinds and the
//   full name tables travel in "args" and in a "brigade" header, so that
//   read_chrome_trace gives back the same Trace, bit for bit.
// The writer is deterministic (the same Trace gives the same bytes) and
// streams: it holds sorted (time, index) keys, 16 bytes an event, never the
// text. File layout: core/trace_writer.cpp.
Status write_chrome_trace(const Trace& trace, std::ostream& out);
// The same, gzip-compressed as it is written (zlib; level 1 fastest .. 9
// smallest). Perfetto and chrome://tracing open .json.gz files.
Status write_chrome_trace_gzip(const Trace& trace, std::ostream& out, int level = 1);
// Atomic (temporary + rename); gzip when `path` ends in ".gz".
Status write_chrome_trace_file(const Trace& trace, const std::string& path);
// Brigade's files (any format version) exactly, other Chrome traces best
// effort (an array of events or {"traceEvents": [...]}). Gzip input is
// recognised by its first bytes and inflated as it is read. Streaming: the
// memory used is the Trace's. Errors: "FILE:LINE:COL: error: found invalid
// JSON; expected a Chrome trace", and one line for each wrong shape.
Result<Trace> read_chrome_trace(std::istream& in, const std::string& filename);
Result<Trace> read_chrome_trace_file(const std::string& path);

}  // namespace brigade
