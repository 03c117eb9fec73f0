// Any Chrome Trace Event JSON as a Trace: Brigade's own files through
// core's exact reader, everyone else's (PyTorch's profiler, Perfetto's JSON
// export, chrome://tracing) through a reader of the format's common part:
//   "X" complete events and "B"/"E" pairs become spans; "b"/"e" async pairs
//   spans on a stream of their own per category; pid -> device, (pid, tid)
//   -> stream, named by "process_name"/"thread_name" metadata; times shift
//   so that the first event starts at 0; a span's class comes from its name
//   (collectives, copies: palette.hpp's class_from_name; "backward",
//   "optimizer" in a name give the phase); PyTorch's "[memory]" instant
//   events become memory samples (category other). Flows, counters and
//   instants carry nothing a Trace keeps and are skipped.
// A file that starts gzip-compressed goes to core's reader too (which
// inflates it where core is built with zlib).
// Errors are one line: invalid JSON at FILE:LINE:COL, or
// "FILE: error: found event 7 (\"X\") without a numeric \"ts\"; expected ...".
#pragma once

#include <string>

#include "core/status.hpp"
#include "core/trace.hpp"

namespace brigade::gui {

// `text` is the whole file; `filename` is used in messages.
Result<Trace> read_any_chrome_trace(const std::string& text, const std::string& filename);
Result<Trace> read_any_chrome_trace_file(const std::string& path);

}  // namespace brigade::gui
