#include "core/kernel_summary.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/file_io.hpp"
#include "core/gzip_stream.hpp"
#include "core/json_stream.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"

namespace brigade {
namespace {

using nlohmann::json;

// Sums kernels by name, keeping the order of first sight.
class Summer {
 public:
  // False when the name's sums are no longer finite numbers.
  bool add(const std::string& name, double seconds, double count) {
    auto [it, fresh] = index_.try_emplace(name, out_.size());
    if (fresh) out_.push_back({name, 0, 0});
    MeasuredKernel& k = out_[it->second];
    k.seconds += seconds;
    k.count += count;
    return std::isfinite(k.seconds) && std::isfinite(k.count);
  }
  std::vector<MeasuredKernel> take() { return std::move(out_); }
  bool empty() const { return out_.empty(); }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<MeasuredKernel> out_;
};

// ---- Nsight Systems' CSV ------------------------------------------------------

struct CsvField {
  std::string text;  // unquoted
  int column = 1;    // 1-based, where the field starts
};

// RFC 4180 fields of one line: quoted fields may hold commas and "" for a
// quote (kernel names are C++ signatures: "void f<a, b>(int)"). False when
// a quote is left open.
bool csv_fields(std::string_view line, std::vector<CsvField>* out) {
  out->clear();
  size_t i = 0;
  while (true) {
    CsvField f;
    f.column = static_cast<int>(i) + 1;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f.text += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        f.text += line[i++];
      }
      if (!closed) return false;
      while (i < line.size() && line[i] != ',') ++i;  // text after the closing quote: dropped
    } else {
      const size_t end = std::min(line.find(',', i), line.size());
      f.text = std::string(line.substr(i, end - i));
      i = end;
    }
    out->push_back(std::move(f));
    if (i >= line.size()) return true;
    ++i;  // the comma
  }
}

bool number_at_least_zero(const std::string& text, double* v) {
  const std::string_view t = trim_space(text);
  if (t.empty()) return false;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
  return ec == std::errc() && p == t.data() + t.size() && std::isfinite(*v) && *v >= 0;
}

// A header's columns: the total time (and its unit), the instances, the name.
struct CsvHeader {
  int total = -1, instances = -1, name = -1;
  double seconds_per_unit = 1e-9;  // nsys's default unit, ns, when the header names none
  bool unit_error = false;         // a unit in parentheses that is none of nsys's
  std::string unit;                // what the parentheses held
  int unit_column = 1;
};

std::optional<CsvHeader> header_of(const std::vector<CsvField>& fields) {
  CsvHeader h;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string f = ascii_lower(trim_space(fields[i].text));
    if (f.rfind("total time", 0) == 0) {
      h.total = static_cast<int>(i);
      const size_t open = f.find('('), close = f.find(')', open);
      if (open != std::string::npos && close != std::string::npos) {
        h.unit = f.substr(open + 1, close - open - 1);
        h.unit_column = fields[i].column;
        // nsys --timeunit: nsec, usec, msec, sec, written ns, us (or the
        // micro sign, U+00B5 or U+03BC), ms, s.
        if (h.unit == "ns")
          h.seconds_per_unit = 1e-9;
        else if (h.unit == "us" || h.unit == "\xc2\xb5s" || h.unit == "\xce\xbcs")
          h.seconds_per_unit = 1e-6;
        else if (h.unit == "ms")
          h.seconds_per_unit = 1e-3;
        else if (h.unit == "s")
          h.seconds_per_unit = 1;
        else
          h.unit_error = true;
      }
    } else if (f == "instances" || f == "count") {
      h.instances = static_cast<int>(i);
    } else if (f == "name" || f == "operation") {
      h.name = static_cast<int>(i);
    }
  }
  if (h.total < 0 || h.instances < 0 || h.name < 0) return std::nullopt;
  return h;
}

// ---- Kineto's trace -------------------------------------------------------------

// A SAX handler that keeps one event at a time (nlohmann::json::sax_parse's
// interface): the events are the objects of the top-level array, or of the
// top-level object's "traceEvents".
class KinetoSax {
 public:
  explicit KinetoSax(std::optional<int> device) : device_(device) {}

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t v) { return number(static_cast<double>(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<double>(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return number(v); }
  bool string(json::string_t& v) {
    if (in_event_level()) {
      if (key_ == "ph")
        ev_.ph = v;
      else if (key_ == "cat")
        ev_.cat = ascii_lower(v);
      else if (key_ == "name")
        ev_.name = std::move(v);
    }
    return true;
  }
  bool binary(json::binary_t&) { return true; }
  bool key(json::string_t& k) {
    // Brigade's own trace: read whole by read_chrome_trace, which knows
    // its task ids (read_measured_kernels), so the parse stops here.
    if (depth_ == 1 && top_object_ && k == "brigade") {
      brigade_ = true;
      return false;
    }
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) {
    ++depth_;
    if (in_event_level()) {
      ev_ = Event{};
    } else if (events_ > 0 && depth_ == events_ + 2 && key_ == "args") {
      in_args_ = true;
    }
    if (depth_ == 1 && events_ == 0) top_object_ = true;
    return true;
  }
  bool end_object() {
    if (in_event_level()) finish_event();
    if (events_ > 0 && depth_ == events_ + 2) in_args_ = false;
    --depth_;
    return true;
  }
  bool start_array(std::size_t) {
    if (events_ == 0 && ((depth_ == 0) || (depth_ == 1 && top_object_ && key_ == "traceEvents")))
      events_ = depth_ + 1;
    ++depth_;
    return true;
  }
  bool end_array() {
    if (depth_ == events_) events_done_ = true;
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) {
    parse_error_at_ = position;
    return false;
  }

  std::optional<std::size_t> parse_error_at() const { return parse_error_at_; }
  MeasuredKernels finish() {
    MeasuredKernels m;
    m.format = "kineto";
    m.kernels = sum_.take();
    m.steps = static_cast<int>(steps_.size());
    m.devices.assign(devices_.begin(), devices_.end());
    return m;
  }
  bool overflow() const { return overflow_; }
  bool brigade() const { return brigade_; }

 private:
  struct Event {
    std::string ph, cat, name;
    double dur_us = -1, pid = -1, device = -1;
  };

  bool in_event_level() const { return events_ > 0 && !events_done_ && depth_ == events_ + 1; }
  bool number(double v) {
    if (in_event_level()) {
      if (key_ == "dur")
        ev_.dur_us = v;
      else if (key_ == "pid")
        ev_.pid = v;
    } else if (in_args_ && events_ > 0 && !events_done_ && depth_ == events_ + 2 &&
               key_ == "device") {
      ev_.device = v;
    }
    return true;
  }
  void finish_event() {
    if (ev_.ph != "X") return;
    if (ev_.name.rfind("ProfilerStep#", 0) == 0) steps_.insert(ev_.name);
    const bool kernel = ev_.cat == "kernel";
    const bool copy = ev_.cat == "gpu_memcpy" || ev_.cat == "gpu_memset" || ev_.cat == "memcpy" ||
                      ev_.cat == "memset";
    if ((!kernel && !copy) || !(ev_.dur_us >= 0) || !std::isfinite(ev_.dur_us)) return;
    const double dev = ev_.device >= 0 ? ev_.device : ev_.pid;
    const int device = dev >= 0 && dev < 1e6 ? static_cast<int>(dev) : -1;
    if (device_ && device != *device_) return;
    if (device >= 0) devices_.insert(device);
    if (!sum_.add(ev_.name, ev_.dur_us * 1e-6, 1)) overflow_ = true;
  }

  std::optional<int> device_;
  int depth_ = 0;
  int events_ = 0;  // the depth of the events' array, 0 until found
  bool top_object_ = false;
  bool events_done_ = false;
  bool in_args_ = false;
  std::string key_;
  Event ev_;
  Summer sum_;
  std::set<std::string> steps_;
  std::set<int> devices_;
  std::optional<std::size_t> parse_error_at_;
  bool overflow_ = false;
  bool brigade_ = false;
};

Result<MeasuredKernels> read_kineto_stream(std::streambuf* sb, const std::string& path,
                                           const GzipReadBuf* gz, std::optional<int> device) {
  KinetoSax sax(device);
  BlockSource source(sb);
  bool ok = false;
  try {
    ok = json::sax_parse(SourceIterator(&source), SourceIterator(), &sax);
  } catch (const std::exception& e) {
    return Status::error(
        fmt::format("{}: error: found unreadable JSON ({}); expected PyTorch's profiler trace",
                    path, e.what()));
  }
  if (sax.brigade()) {  // told to the caller by its format alone
    MeasuredKernels m;
    m.format = "brigade";
    return m;
  }
  if (gz && !gz->error().empty())
    return Status::error(
        fmt::format("{}: error: found {}; expected a gzip-compressed PyTorch profiler trace", path,
                    gz->error()));
  if (!ok || sax.parse_error_at()) {
    const std::size_t at = sax.parse_error_at().value_or(1);
    const auto [line, column] = source.line_column(at > 0 ? at - 1 : 0);
    return Status::at(SourcePos{path, line, column},
                      "found invalid JSON; expected PyTorch's profiler trace (Chrome trace JSON)");
  }
  if (sax.overflow())
    return Status::error(fmt::format(
        "{}: error: found kernel durations whose sum is not a finite number; expected durations "
        "in microseconds that a double can sum",
        path));
  MeasuredKernels m = sax.finish();
  if (m.kernels.empty())
    return Status::error(fmt::format(
        "{}: error: found no {}kernel event (complete events of category \"kernel\", "
        "\"gpu_memcpy\" or \"gpu_memset\"); expected PyTorch's profiler trace of GPU work "
        "(torch.profiler with ProfilerActivity.CUDA)",
        path, device ? fmt::format("device-{} ", *device) : std::string()));
  return m;
}

// `prefix`, then the rest of `rest`: the blank bytes read to tell the
// format, given back so that JSON errors count their lines.
class PrefixBuf : public std::streambuf {
 public:
  PrefixBuf(std::string prefix, std::streambuf* rest) : prefix_(std::move(prefix)), rest_(rest) {
    setg(prefix_.data(), prefix_.data(), prefix_.data() + prefix_.size());
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::streamsize n = rest_->sgetn(block_, sizeof block_);
    if (n <= 0) return traits_type::eof();
    setg(block_, block_, block_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string prefix_;
  std::streambuf* rest_;
  char block_[1 << 16];
};

}  // namespace

Result<MeasuredKernels> parse_nsys_kernel_summary(std::string_view text, const std::string& path) {
  Summer sum;
  std::optional<CsvHeader> header;
  std::vector<CsvField> fields;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim_space(line).empty()) {
      header.reset();  // a blank line ends a table
      if (end == text.size()) break;
      continue;
    }
    const bool whole = csv_fields(line, &fields);
    // A header's unit, refused at the header when nsys would not write it.
    const auto unit_error = [&](const CsvHeader& h) {
      return Status::at(SourcePos{path, line_no, h.unit_column},
                        fmt::format("found {}; expected a time unit of ns, us, ms or s in the "
                                    "total time's column",
                                    brigade::quoted(h.unit)));
    };
    if (!header) {
      if (whole) header = header_of(fields);
      if (header && header->unit_error) return unit_error(*header);
      if (end == text.size()) break;
      continue;
    }
    const auto bad = [&](int column, const std::string& found, const std::string& expected) {
      return Status::at(SourcePos{path, line_no, column},
                        fmt::format("found {}; expected {}", found, expected));
    };
    if (!whole)
      return bad(static_cast<int>(line.size()) + 1, "a quoted field left open",
                 "its closing quote");
    // A header again without a blank line before it: a new table.
    if (auto again = header_of(fields)) {
      if (again->unit_error) return unit_error(*again);
      header = again;
      if (end == text.size()) break;
      continue;
    }
    const int need = std::max({header->total, header->instances, header->name}) + 1;
    if (static_cast<int>(fields.size()) < need)
      return bad(static_cast<int>(line.size()) + 1, fmt::format("{} fields", fields.size()),
                 fmt::format("{} (the header's columns)", need));
    const CsvField& total = fields[static_cast<size_t>(header->total)];
    const CsvField& count = fields[static_cast<size_t>(header->instances)];
    double total_units = 0, instances = 0;
    if (!number_at_least_zero(total.text, &total_units))
      return bad(total.column, brigade::quoted(total.text), "the total time, a number >= 0");
    if (!number_at_least_zero(count.text, &instances) || instances != std::floor(instances))
      return bad(count.column, brigade::quoted(count.text), "the instances, a whole number >= 0");
    if (!sum.add(fields[static_cast<size_t>(header->name)].text,
                 total_units * header->seconds_per_unit, instances))
      return bad(total.column, brigade::quoted(total.text),
                 "a total time its kernel's sum can take (the sum is no longer a finite number)");
    if (end == text.size()) break;
  }
  if (sum.empty())
    return Status::error(fmt::format(
        "{}: error: found no kernel row under a header with \"Total Time\", \"Instances\" and "
        "\"Name\"; expected Nsight Systems' kernel summary (nsys stats --report cuda_gpu_kern_sum "
        "--format csv) or PyTorch's profiler trace (.json, .json.gz)",
        path));
  MeasuredKernels m;
  m.format = "nsys";
  m.kernels = sum.take();
  return m;
}

namespace {

// Kineto's trace, or format "brigade" with no kernel when the file is
// Brigade's own trace.
Result<MeasuredKernels> read_kineto_or_brigade(std::istream& in, const std::string& path,
                                               std::optional<int> device) {
  if (starts_with_gzip_magic(in)) {
    GzipReadBuf gz(in);
    return read_kineto_stream(&gz, path, &gz, device);
  }
  return read_kineto_stream(in.rdbuf(), path, nullptr, device);
}

}  // namespace

Result<MeasuredKernels> read_kineto_kernels(std::istream& in, const std::string& path,
                                            std::optional<int> device) {
  auto m = read_kineto_or_brigade(in, path, device);
  if (m.is_ok() && m->format == "brigade")
    return Status::error(fmt::format(
        "{}: error: found Brigade's own trace (its \"brigade\" header); expected PyTorch's "
        "profiler trace (read_measured_kernels reads both)",
        path));
  return m;
}

MeasuredKernels measured_kernels_of_trace(const Trace& trace, std::optional<int> device) {
  MeasuredKernels m;
  m.format = "brigade";
  m.source = trace.source;
  m.program = trace.program;
  m.steps = 1;
  // One kernel a (task, device, name): spans that share a task id but not
  // its device or name stay apart, so that check_record_plan sees each.
  std::map<std::tuple<TaskId, std::int32_t, NameId>, size_t> index;
  std::set<int> devices;
  for (const TraceSpan& span : trace.spans) {
    if (device && span.device != *device) continue;
    const std::string_view name =
        span.name >= 0 && static_cast<size_t>(span.name) < trace.names.size()
            ? std::string_view(trace.names[static_cast<size_t>(span.name)])
            : std::string_view();
    auto [it, fresh] = index.try_emplace({span.task, span.device, span.name}, m.kernels.size());
    if (fresh) {
      MeasuredKernel k;
      k.name = std::string(name);
      k.task = span.task;
      k.device = span.device;
      m.kernels.push_back(std::move(k));
    }
    MeasuredKernel& k = m.kernels[it->second];
    k.seconds += span.end_seconds - span.start_seconds;
    k.count += 1;
    devices.insert(span.device);
  }
  m.devices.assign(devices.begin(), devices.end());
  return m;
}

bool MeasuredKernels::has_device(int device) const {
  return device >= 0 &&
         std::any_of(kernels.begin(), kernels.end(),
                     [device](const MeasuredKernel& k) { return k.device == device; });
}

Result<MeasuredKernels> read_measured_kernels(const std::string& path, std::optional<int> device) {
  BRIGADE_ASSIGN_OR_RETURN(
      const InputFile file,
      open_input_file(path,
                      "a profiler's kernel record (nsys stats CSV, PyTorch's profiler "
                      "trace .json / .json.gz) or Brigade's trace"));
  FdReadBuf buf(file.fd());
  std::istream in(&buf);
  // The first non-blank byte decides: JSON or gzip is Kineto's, else CSV.
  int c = in.peek();
  // Brigade's own trace: told by the Kineto reader from its header, then
  // read whole by the trace reader, which knows its task ids.
  const auto brigade_or = [&](Result<MeasuredKernels> m) -> Result<MeasuredKernels> {
    if (!m.is_ok() || m->format != "brigade") return m;
    auto trace = read_chrome_trace_file(path);
    if (!trace.is_ok()) return trace.status();
    // A window of the step is not a step (a device filter keeps whole
    // devices: their steps are whole).
    if (trace->filter.find("window") != std::string::npos)
      return Status::error(fmt::format(
          "{}: error: found a trace of part of the step (its filter: {}); expected a whole "
          "step's trace (written without --trace-window)",
          path, brigade::quoted(trace->filter, 200)));
    MeasuredKernels b = measured_kernels_of_trace(*trace, device);
    if (b.kernels.empty())
      return Status::error(
          fmt::format("{}: error: found no span{} in Brigade's trace; expected a trace of a step "
                      "(brigade execute --trace, brigade simulate --trace)",
                      path, device ? fmt::format(" of device {}", *device) : std::string()));
    return b;
  };
  if (c == 0x1f) return brigade_or(read_kineto_or_brigade(in, path, device));
  std::string head;
  // A UTF-8 byte order mark, then blanks (editors on Windows write one).
  if (c == 0xef) {
    for (int i = 0; i < 3 && c != std::char_traits<char>::eof(); ++i) {
      head += static_cast<char>(in.get());
      c = in.peek();
    }
  }
  while (c != std::char_traits<char>::eof() && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
    head += static_cast<char>(in.get());
    c = in.peek();
  }
  if (c == '{' || c == '[') {
    PrefixBuf whole(std::move(head), in.rdbuf());
    std::istream again(&whole);
    return brigade_or(read_kineto_or_brigade(again, path, device));
  }
  if (device)
    return Status::error(fmt::format(
        "{}: error: found Nsight Systems' summary with a device asked for; expected PyTorch's "
        "profiler trace (an nsys summary sums every GPU: filter it with nsys stats' own options)",
        path));
  std::string text = head;
  text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return parse_nsys_kernel_summary(text, path);
}

}  // namespace brigade
