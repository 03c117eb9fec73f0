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
  std::vector<std::string> device_names;  // by device id
  std::vector<Stream> streams;            // (device, name), as in the Program
  std::vector<std::string> lanes;         // link lanes for transfers ("gpu0->nvswitch")
  std::vector<std::string> names;         // task names
  std::vector<TraceSpan> spans;
  std::vector<TraceTransfer> transfers;
  std::vector<MemorySample> memory;

  // Latest end minus earliest start over all spans (0 if none).
  double step_seconds() const;
  NameId intern(const std::string& name);  // linear; for small traces and readers
};

// Chrome Trace Event JSON (opens in Perfetto and chrome://tracing):
//   pid = device, tid = stream; spans as complete ("X") events; transfers as
//   async ("b"/"e") events on per-link lanes with flow ("s"/"f") arrows from
//   the sending span to the receiving span; memory as counter ("C") tracks;
//   process/thread names as metadata ("M") events. Times in microseconds.
// Exact seconds, task ids and kinds travel in each event's "args" so that
// read_chrome_trace gives back the same Trace.
// The writer is deterministic: the same Trace gives the same bytes.
Status write_chrome_trace(const Trace& trace, std::ostream& out);
Status write_chrome_trace_file(const Trace& trace, const std::string& path);  // atomic: temp + rename
Result<Trace> read_chrome_trace(std::istream& in, const std::string& filename);
Result<Trace> read_chrome_trace_file(const std::string& path);

}  // namespace brigade
