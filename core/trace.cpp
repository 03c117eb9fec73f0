// Trace helpers and the file-level entry points of the Chrome JSON writer
// (core/trace_writer.cpp) and reader (core/trace_reader.cpp).
#include "core/trace.hpp"

#include <algorithm>
#include <ostream>

#include "core/file_io.hpp"
#include "core/gzip_stream.hpp"

namespace brigade {

double Trace::step_seconds() const {
  if (spans.empty()) return 0;
  double lo = spans.front().start_seconds, hi = spans.front().end_seconds;
  for (const TraceSpan& s : spans) {
    lo = std::min(lo, s.start_seconds);
    hi = std::max(hi, s.end_seconds);
  }
  return hi - lo;
}

NameId Trace::intern(const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<NameId>(i);
  names.push_back(name);
  return static_cast<NameId>(names.size() - 1);
}

Status write_chrome_trace_gzip(const Trace& trace, std::ostream& out, int level) {
  GzipWriteBuf gz(out, level);
  std::ostream zout(&gz);
  BRIGADE_RETURN_IF_ERROR(write_chrome_trace(trace, zout));
  BRIGADE_RETURN_IF_ERROR(gz.finish());
  if (!out) return Status::error("could not write the trace", ErrorKind::kRuntime);
  return Status::ok();
}

Status write_chrome_trace_file(const Trace& trace, const std::string& path) {
  const bool gzip = is_gzip_path(path);
  return write_file_atomically(path, [&](std::ostream& out) {
    return gzip ? write_chrome_trace_gzip(trace, out) : write_chrome_trace(trace, out);
  });
}

}  // namespace brigade
