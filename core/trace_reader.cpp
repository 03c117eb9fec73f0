// The Chrome Trace Event JSON reader: Brigade's own files (formats 1 to 3,
// read back exactly) and any other Chrome trace, best effort. Streaming: a
// SAX parse (nlohmann::json::sax_parse) that keeps one event at a time, so
// that reading costs the Trace's memory and not the JSON document's; gzip
// input (a file or stream that starts with 1f 8b) is inflated as it is read.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_io.hpp"
#include "core/gzip_stream.hpp"
#include "core/json_stream.hpp"
#include "core/trace.hpp"
#include "core/trace_decimal.hpp"

namespace brigade {
namespace {

using nlohmann::json;

TaskId task_id_or_unknown(const std::optional<std::int64_t>& id) {
  return id && *id >= 0 && *id <= std::numeric_limits<TaskId>::max() ? static_cast<TaskId>(*id)
                                                                     : TaskId{-1};
}

std::optional<TaskKind> parse_task_kind(std::string_view s) {
  for (auto k : {TaskKind::kCompute, TaskKind::kTransfer, TaskKind::kCollective})
    if (task_kind_name(k) == s) return k;
  return std::nullopt;
}

std::optional<Phase> parse_phase(std::string_view s) {
  for (auto p :
       {Phase::kForward, Phase::kBackward, Phase::kRecompute, Phase::kOptimizer, Phase::kOther})
    if (phase_name(p) == s) return p;
  return std::nullopt;
}

std::optional<MemoryCategory> parse_category(std::string_view s) {
  for (int i = 0; i < kNumMemoryCategories; ++i)
    if (memory_category_name(static_cast<MemoryCategory>(i)) == s)
      return static_cast<MemoryCategory>(i);
  return std::nullopt;
}

// One event's members, as far as the Trace needs them.
struct Event {
  std::string ph, name, cat;
  bool has_ph = false;
  std::int64_t pid = 0, tid = 0;
  std::string ts, dur;  // number tokens (microseconds)
  bool has_ts = false, has_dur = false;
  std::string id;  // a number's text, or a string id
  bool has_id = false;
  // args
  std::optional<std::int64_t> i, task, src, dst, lane, collective, name_id;
  std::optional<double> bytes, start_s, end_s;
  std::string kind, phase, arg_name;
  // exact (counters)
  std::optional<std::int64_t> exact_i;
  std::optional<double> exact_t_s;

  void clear() {
    ph.clear();
    name.clear();
    cat.clear();
    has_ph = has_ts = has_dur = has_id = false;
    pid = tid = 0;
    ts.clear();
    dur.clear();
    id.clear();
    i = task = src = dst = lane = collective = name_id = std::nullopt;
    bytes = start_s = end_s = std::nullopt;
    kind.clear();
    phase.clear();
    arg_name.clear();
    exact_i = std::nullopt;
    exact_t_s = std::nullopt;
  }
};

// A scalar as the parser gives it.
struct Scalar {
  enum Type { kNull, kBool, kInt, kFloat, kString } type = kNull;
  std::int64_t i = 0;
  double d = 0;
  std::string_view text;  // the token (numbers) or the value (strings)
};

// Events may carry their index ("i"): a list is filled in index order
// whatever the order of the file. An index past the list's end waits in
// `later` until the end of the file, when the list's length is known (the
// count of its events): growing the list to an index read from the file
// would let one number ask for any amount of memory (a fuzz find).
// The largest process or thread id an event may carry (Linux's PID_MAX_LIMIT).
constexpr std::int64_t kMaxTraceId = std::int64_t{1} << 22;

template <class T>
struct Indexed {
  std::vector<std::uint8_t> filled;
  std::vector<std::pair<std::int64_t, T>> later;
};

template <class T>
void place(std::vector<T>& v, Indexed<T>& ix, std::int64_t i, T x) {
  if (i < 0 || static_cast<size_t>(i) == v.size()) {
    v.push_back(std::move(x));
    ix.filled.push_back(1);
  } else if (static_cast<size_t>(i) < v.size()) {
    v[static_cast<size_t>(i)] = std::move(x);
    ix.filled[static_cast<size_t>(i)] = 1;
  } else {
    ix.later.emplace_back(i, std::move(x));
  }
}

// Places what waited; returns the first index left empty, or -1 if none.
template <class T>
std::int64_t settle(std::vector<T>& v, Indexed<T>& ix) {
  const size_t n = v.size() + ix.later.size();
  std::sort(ix.later.begin(), ix.later.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [i, x] : ix.later) {
    if (static_cast<size_t>(i) >= n) break;  // n events cannot fill index n or more
    if (static_cast<size_t>(i) >= v.size()) {
      v.resize(static_cast<size_t>(i) + 1);
      ix.filled.resize(static_cast<size_t>(i) + 1, 0);
    }
    v[static_cast<size_t>(i)] = std::move(x);
    ix.filled[static_cast<size_t>(i)] = 1;
  }
  ix.later.clear();
  for (size_t i = 0; i < ix.filled.size(); ++i)
    if (!ix.filled[i]) return static_cast<std::int64_t>(i);
  return v.size() < n ? static_cast<std::int64_t>(v.size()) : -1;
}

class TraceSax {
 public:
  explicit TraceSax(std::string filename)
      : who_(filename + ": error: "), filename_(std::move(filename)) {}

  // ---- the SAX interface
  bool null() { return scalar(Scalar{}); }
  bool boolean(bool v) {
    Scalar s;
    s.type = Scalar::kBool;
    s.i = v;
    return scalar(s);
  }
  bool number_integer(json::number_integer_t v) { return integer(v); }
  bool number_unsigned(json::number_unsigned_t v) {
    return integer(v > static_cast<json::number_unsigned_t>(INT64_MAX)
                       ? INT64_MAX
                       : static_cast<std::int64_t>(v));
  }
  bool number_float(json::number_float_t v, const json::string_t& token) {
    Scalar s;
    s.type = Scalar::kFloat;
    s.d = v;
    s.text = token;
    return scalar(s);
  }
  bool string(json::string_t& v) {
    Scalar s;
    s.type = Scalar::kString;
    s.text = v;
    return scalar(s);
  }
  bool binary(json::binary_t&) { return scalar(Scalar{}); }
  bool start_object(std::size_t);
  bool end_object();
  bool start_array(std::size_t);
  bool end_array();
  bool key(json::string_t& k) {
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) {
    parse_error_at_ = position;
    return false;
  }

  std::optional<std::size_t> parse_error_at() const { return parse_error_at_; }
  const Status& error() const { return error_; }
  Result<Trace> finish();

 private:
  enum class Ctx : std::uint8_t {
    kRoot,         // the top-level object
    kEvents,       // the event array
    kEvent,        // one event
    kArgs,         // an event's "args"
    kExact,        // a counter's "exact"
    kMeta,         // "brigade"
    kMetaList,     // "names", "lanes" or "device_names"
    kMetaStreams,  // "streams"
    kMetaStream,   // one [device, name]
    kSkip,         // anything else
  };
  bool fail(std::string message) {
    error_ = Status::error(who_ + std::move(message));
    return false;
  }
  bool integer(std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    number_text_.assign(buf, r.ptr);
    Scalar s;
    s.type = Scalar::kInt;
    s.i = v;
    s.d = static_cast<double>(v);
    s.text = number_text_;
    return scalar(s);
  }
  bool scalar(const Scalar& s);
  bool event_scalar(const Scalar& s);
  bool args_scalar(const Scalar& s);
  bool meta_scalar(const Scalar& s);
  bool event_done();
  bool element_is_not_an_object(const char* type) {
    return fail("found event " + std::to_string(event_index_) + " of type " + type +
                "; expected an object");
  }
  static std::optional<std::int64_t> as_int(const Scalar& s) {
    if (s.type == Scalar::kInt) return s.i;
    // A float beyond int64's range (or NaN) converts with undefined
    // behaviour: it is no integer at all (a fuzz find, issue 20).
    if (s.type == Scalar::kFloat)
      return std::fabs(s.d) < 9.2e18 ? std::optional<std::int64_t>(static_cast<std::int64_t>(s.d))
                                     : std::nullopt;
    return std::nullopt;
  }
  static std::optional<double> as_double(const Scalar& s) {
    if (s.type == Scalar::kInt || s.type == Scalar::kFloat) return s.d;
    return std::nullopt;
  }
  NameId intern(const std::string& s) {
    auto it = name_index_.find(s);
    if (it != name_index_.end()) return it->second;
    t_.names.push_back(s);
    const auto id = static_cast<NameId>(t_.names.size() - 1);
    name_index_.emplace(s, id);
    return id;
  }

  std::string who_, filename_;
  Status error_;
  std::optional<std::size_t> parse_error_at_;
  std::vector<Ctx> stack_;
  std::string key_, list_key_, number_text_;
  bool root_array_ = false, saw_root_ = false, saw_events_ = false;
  const char* root_type_ = nullptr;  // a scalar root's JSON type
  std::size_t event_index_ = 0;
  Event ev_;
  // The Trace and what reading it needs.
  Trace t_;
  int format_ = 0;  // Brigade's format, 0: a foreign trace
  std::int64_t devices_ = -1;
  bool header_names_devices_ = false, header_names_streams_ = false;
  std::int64_t stream_device_ = 0;
  std::string stream_name_;
  int stream_field_ = 0;
  Indexed<TraceSpan> span_ok_;
  Indexed<TraceTransfer> xfer_ok_;
  Indexed<MemorySample> mem_ok_;
  Indexed<HostSpan> host_ok_;
  std::vector<std::pair<std::int64_t, double>>
      late_ends_;  // "e" events of transfers not yet placed
  std::map<std::int64_t, std::string> process_names_;
  std::map<std::int64_t, Stream> threads_;
  std::unordered_map<std::string, NameId> name_index_;
  std::unordered_map<std::string, std::uint32_t> open_async_;  // foreign "b" events by cat + id
};

bool TraceSax::start_object(std::size_t) {
  if (!saw_root_) {
    saw_root_ = true;
    stack_.push_back(Ctx::kRoot);
    return true;
  }
  switch (stack_.back()) {
    case Ctx::kRoot:
      if (key_ == "brigade")
        stack_.push_back(Ctx::kMeta);
      else
        stack_.push_back(Ctx::kSkip);  // "traceEvents" as an object is no event array
      return true;
    case Ctx::kEvents:
      ev_.clear();
      stack_.push_back(Ctx::kEvent);
      return true;
    case Ctx::kEvent:
      if (key_ == "args")
        stack_.push_back(Ctx::kArgs);
      else if (key_ == "exact")
        stack_.push_back(Ctx::kExact);
      else
        stack_.push_back(Ctx::kSkip);
      return true;
    default:
      stack_.push_back(Ctx::kSkip);
      return true;
  }
}

bool TraceSax::end_object() {
  const Ctx c = stack_.back();
  stack_.pop_back();
  if (c == Ctx::kEvent) return event_done();
  if (c == Ctx::kMeta) {
    // The header comes before the events: from here on the file is Brigade's.
    name_index_.clear();
    for (size_t i = 0; i < t_.names.size(); ++i)
      name_index_.emplace(t_.names[i], static_cast<NameId>(i));
  }
  return true;
}

bool TraceSax::start_array(std::size_t) {
  if (!saw_root_) {
    saw_root_ = true;
    root_array_ = true;
    saw_events_ = true;
    stack_.push_back(Ctx::kEvents);
    return true;
  }
  switch (stack_.back()) {
    case Ctx::kRoot:
      if (key_ == "traceEvents") {
        saw_events_ = true;
        stack_.push_back(Ctx::kEvents);
      } else {
        stack_.push_back(Ctx::kSkip);
      }
      return true;
    case Ctx::kEvents:
      return element_is_not_an_object("array");
    case Ctx::kMeta:
      if (key_ == "names" || key_ == "lanes" || key_ == "device_names") {
        list_key_ = key_;
        if (key_ == "device_names") header_names_devices_ = true;
        stack_.push_back(Ctx::kMetaList);
      } else if (key_ == "streams") {
        header_names_streams_ = true;
        stack_.push_back(Ctx::kMetaStreams);
      } else {
        stack_.push_back(Ctx::kSkip);
      }
      return true;
    case Ctx::kMetaStreams:
      stream_field_ = 0;
      stream_device_ = 0;
      stream_name_.clear();
      stack_.push_back(Ctx::kMetaStream);
      return true;
    default:
      stack_.push_back(Ctx::kSkip);
      return true;
  }
}

bool TraceSax::end_array() {
  const Ctx c = stack_.back();
  stack_.pop_back();
  if (c == Ctx::kMetaStream)
    t_.streams.push_back(Stream{static_cast<std::int32_t>(stream_device_), stream_name_});
  return true;
}

bool TraceSax::scalar(const Scalar& s) {
  if (!saw_root_) {
    saw_root_ = true;
    root_type_ = s.type == Scalar::kNull     ? "null"
                 : s.type == Scalar::kBool   ? "boolean"
                 : s.type == Scalar::kString ? "string"
                                             : "number";
    return true;
  }
  switch (stack_.back()) {
    case Ctx::kEvents:
      return element_is_not_an_object(s.type == Scalar::kNull     ? "null"
                                      : s.type == Scalar::kBool   ? "boolean"
                                      : s.type == Scalar::kString ? "string"
                                                                  : "number");
    case Ctx::kEvent:
      return event_scalar(s);
    case Ctx::kArgs:
    case Ctx::kExact:
      return args_scalar(s);
    case Ctx::kMeta:
    case Ctx::kMetaList:
    case Ctx::kMetaStream:
      return meta_scalar(s);
    default:
      return true;
  }
}

bool TraceSax::event_scalar(const Scalar& s) {
  const std::string& k = key_;
  if (k == "ph") {
    if (s.type == Scalar::kString) {
      ev_.ph = s.text;
      ev_.has_ph = !ev_.ph.empty();
    }
  } else if (k == "name") {
    if (s.type == Scalar::kString) ev_.name = s.text;
  } else if (k == "cat") {
    if (s.type == Scalar::kString) ev_.cat = s.text;
  } else if (k == "pid") {
    if (auto v = as_int(s)) ev_.pid = *v;
  } else if (k == "tid") {
    if (auto v = as_int(s)) ev_.tid = *v;
  } else if (k == "ts") {
    if (s.type == Scalar::kInt || s.type == Scalar::kFloat) {
      ev_.ts = s.text;
      ev_.has_ts = true;
    }
  } else if (k == "dur") {
    if (s.type == Scalar::kInt || s.type == Scalar::kFloat) {
      ev_.dur = s.text;
      ev_.has_dur = true;
    }
  } else if (k == "id") {
    if (s.type == Scalar::kInt || s.type == Scalar::kString || s.type == Scalar::kFloat) {
      ev_.id = s.text;
      ev_.has_id = true;
    }
  }
  return true;
}

bool TraceSax::args_scalar(const Scalar& s) {
  const std::string& k = key_;
  if (stack_.back() == Ctx::kExact) {
    if (k == "i")
      ev_.exact_i = as_int(s);
    else if (k == "t_s")
      ev_.exact_t_s = as_double(s);
    return true;
  }
  switch (k.empty() ? '\0' : k[0]) {
    case 'i':
      if (k == "i") ev_.i = as_int(s);
      break;
    case 't':
      if (k == "task") ev_.task = as_int(s);
      break;
    case 's':
      if (k == "src")
        ev_.src = as_int(s);
      else if (k == "start_s")
        ev_.start_s = as_double(s);
      break;
    case 'd':
      if (k == "dst") ev_.dst = as_int(s);
      break;
    case 'b':
      if (k == "bytes") ev_.bytes = as_double(s);
      break;
    case 'l':
      if (k == "lane") ev_.lane = as_int(s);
      break;
    case 'c':
      if (k == "collective") ev_.collective = as_int(s);
      break;
    case 'n':
      if (k == "name_id")
        ev_.name_id = as_int(s);
      else if (k == "name" && s.type == Scalar::kString)
        ev_.arg_name = s.text;
      break;
    case 'e':
      if (k == "end_s") ev_.end_s = as_double(s);
      break;
    case 'k':
      if (k == "kind" && s.type == Scalar::kString) ev_.kind = s.text;
      break;
    case 'p':
      if (k == "phase" && s.type == Scalar::kString) ev_.phase = s.text;
      break;
    default:
      break;
  }
  return true;
}

bool TraceSax::meta_scalar(const Scalar& s) {
  const Ctx c = stack_.back();
  if (c == Ctx::kMetaList) {
    const std::string v = s.type == Scalar::kString ? std::string(s.text) : std::string();
    if (list_key_ == "names")
      t_.names.push_back(v);
    else if (list_key_ == "lanes")
      t_.lanes.push_back(v);
    else
      t_.device_names.push_back(v);
    return true;
  }
  if (c == Ctx::kMetaStream) {
    if (stream_field_ == 0)
      stream_device_ = as_int(s).value_or(0);
    else if (stream_field_ == 1 && s.type == Scalar::kString)
      stream_name_ = s.text;
    ++stream_field_;
    return true;
  }
  if (key_ == "format")
    format_ = static_cast<int>(as_int(s).value_or(1));
  else if (key_ == "source" && s.type == Scalar::kString)
    t_.source = s.text;
  else if (key_ == "program" && s.type == Scalar::kString)
    t_.program = s.text;
  else if (key_ == "filter" && s.type == Scalar::kString)
    t_.filter = s.text;
  else if (key_ == "devices") {
    devices_ = as_int(s).value_or(-1);
    if (devices_ > kMaxTraceId)
      return fail("found \"devices\": " + std::to_string(devices_) + "; expected at most " +
                  std::to_string(kMaxTraceId));
  }
  return true;
}

bool TraceSax::event_done() {
  const std::size_t k = event_index_++;
  Event& e = ev_;
  if (!e.has_ph)
    return fail("found event " + std::to_string(k) +
                " without \"ph\"; expected a phase such as \"X\"");
  const double ts = e.has_ts ? trace_decimal::seconds_from_us(e.ts).value_or(0) : 0;
  const char ph = e.ph.size() == 1 ? e.ph[0] : '\0';
  // A device and a stream index the Trace's lists: a number read from the
  // file must not size them beyond reason (Linux's largest process id).
  if (ph == 'M' || ph == 'X' || ph == 'C') {
    for (const auto& [what, id] :
         {std::pair<const char*, std::int64_t>{"pid", e.pid}, {"tid", e.tid}})
      if (id < 0 || id > kMaxTraceId)
        return fail("found \"" + std::string(what) + "\": " + std::to_string(id) + " in event " +
                    std::to_string(k) + "; expected a number from 0 to " +
                    std::to_string(kMaxTraceId));
  }
  if (ph == 'M') {
    if (e.name == "process_name") process_names_[e.pid] = e.arg_name;
    // Format 3's host threads are no streams (the header names the streams).
    if (e.name == "thread_name" && (devices_ < 0 || e.pid < devices_) &&
        !(format_ >= 3 && e.arg_name == "host"))
      threads_[e.tid] = Stream{static_cast<std::int32_t>(e.pid), e.arg_name};
  } else if (ph == 'X') {
    // A complete event: a span's or (format 3, category "host") a host
    // slice's start, end, task and name, read alike.
    const double start = e.start_s ? *e.start_s : ts;
    double end = start + (e.has_dur ? trace_decimal::seconds_from_us(e.dur).value_or(0) : 0);
    if (e.end_s)
      end = *e.end_s;
    else if (e.has_ts && e.has_dur)
      end = trace_decimal::seconds_from_us_sum(e.ts, e.dur).value_or(ts);
    // A task id a Program cannot have (outside 0..2^31-1) is unknown, not
    // truncated into another task's.
    const TaskId task = task_id_or_unknown(e.task);
    const std::int64_t name_id = e.name_id.value_or(-2);
    const NameId name = name_id >= -1 && name_id < static_cast<std::int64_t>(t_.names.size())
                            ? static_cast<NameId>(name_id)
                            : intern(e.name);
    if (format_ >= 3 && e.cat == "host") {
      place(t_.host, host_ok_, e.i.value_or(-1),
            HostSpan{task, static_cast<std::int32_t>(e.pid), start, end, name});
    } else {
      TraceSpan s;
      s.device = static_cast<std::int32_t>(e.pid);
      s.stream = static_cast<std::int32_t>(e.tid);
      s.task = task;
      s.start_seconds = start;
      s.end_seconds = end;
      s.kind = parse_task_kind(e.kind.empty() ? std::string_view(e.cat) : std::string_view(e.kind))
                   .value_or(TaskKind::kCompute);
      s.phase = parse_phase(e.phase).value_or(Phase::kForward);
      s.collective = static_cast<CollectiveId>(e.collective.value_or(-1));
      s.name = name;
      place(t_.spans, span_ok_, e.i.value_or(-1), s);
    }
  } else if (ph == 'b') {
    TraceTransfer x;
    x.task = task_id_or_unknown(e.task);
    x.src = static_cast<std::int32_t>(e.src.value_or(0));
    x.dst = static_cast<std::int32_t>(e.dst.value_or(0));
    x.bytes = e.bytes.value_or(0);
    // Format 2: the lane is the thread on the network process; before, args.
    x.lane = static_cast<std::int32_t>(e.lane ? *e.lane : (format_ >= 2 ? e.tid : -1));
    x.start_seconds = e.start_s ? *e.start_s : ts;
    x.end_seconds = e.end_s ? *e.end_s : x.start_seconds;
    std::int64_t index = e.i.value_or(-1);
    if (index < 0 && format_ >= 2 && e.has_id) {
      std::int64_t id = -1;
      std::from_chars(e.id.data(), e.id.data() + e.id.size(), id);
      index = id;
    }
    place(t_.transfers, xfer_ok_, index, x);
    if (format_ == 0 && e.has_id)
      open_async_[e.cat + '\x1f' + e.id] = static_cast<std::uint32_t>(
          index >= 0 ? index : static_cast<std::int64_t>(t_.transfers.size()) - 1);
  } else if (ph == 'e') {
    // Format 2 gives a transfer's end here; other files' ends close their begin.
    if (e.has_ts && e.has_id) {
      std::int64_t index = -1;
      if (format_ >= 2) {
        std::from_chars(e.id.data(), e.id.data() + e.id.size(), index);
      } else if (auto it = open_async_.find(e.cat + '\x1f' + e.id);
                 it != open_async_.end() && format_ == 0) {
        index = it->second;
        open_async_.erase(it);
      }
      if (index >= 0 && static_cast<size_t>(index) < t_.transfers.size() &&
          xfer_ok_.filled[static_cast<size_t>(index)])
        t_.transfers[static_cast<size_t>(index)].end_seconds = ts;
      else if (index >= 0)
        late_ends_.emplace_back(index, ts);  // its begin may still wait in xfer_ok_.later
    }
  } else if (ph == 'C') {
    if (e.name.rfind("memory:", 0) == 0) {
      if (auto cat = parse_category(std::string_view(e.name).substr(7))) {
        MemorySample m;
        m.device = static_cast<std::int32_t>(e.pid);
        m.category = *cat;
        m.time_seconds = e.exact_t_s ? *e.exact_t_s : ts;
        m.bytes = e.bytes.value_or(0);
        place(t_.memory, mem_ok_, e.exact_i.value_or(-1), m);
      }
    }
  }
  // "s", "f" and anything else carry nothing the Trace keeps.
  return true;
}

Result<Trace> TraceSax::finish() {
  const std::string shape =
      "expected a Chrome trace (an array of events, or an object with \"traceEvents\")";
  if (root_type_) return Status::error(who_ + "found a JSON " + root_type_ + "; " + shape);
  if (!saw_events_) return Status::error(who_ + "found no \"traceEvents\" array; " + shape);
  for (std::int64_t gap : {settle(t_.spans, span_ok_), settle(t_.transfers, xfer_ok_),
                           settle(t_.memory, mem_ok_), settle(t_.host, host_ok_)})
    if (gap >= 0)
      return Status::error(who_ + "found a gap at index " + std::to_string(gap) +
                           " of the events' \"i\" numbering; expected every index once");
  for (const auto& [index, end] : late_ends_)
    if (static_cast<size_t>(index) < t_.transfers.size())
      t_.transfers[static_cast<size_t>(index)].end_seconds = end;
  std::int64_t devices = devices_;
  if (devices < 0) {
    devices = 0;
    for (const auto& [pid, name] : process_names_) devices = std::max(devices, pid + 1);
    for (const TraceSpan& s : t_.spans) devices = std::max<std::int64_t>(devices, s.device + 1);
  }
  if (!header_names_devices_) {
    t_.device_names.assign(static_cast<size_t>(devices), "");
    for (const auto& [pid, name] : process_names_)
      if (pid >= 0 && pid < devices) t_.device_names[static_cast<size_t>(pid)] = name;
  }
  if (!header_names_streams_) {
    std::int64_t nstreams = 0;
    for (const auto& [tid, s] : threads_) nstreams = std::max(nstreams, tid + 1);
    for (const TraceSpan& s : t_.spans) nstreams = std::max<std::int64_t>(nstreams, s.stream + 1);
    t_.streams.assign(static_cast<size_t>(nstreams), Stream{});
    for (const auto& [tid, s] : threads_)
      if (tid >= 0) t_.streams[static_cast<size_t>(tid)] = s;
  }
  // The header's lists, when it has them, must cover every event's ids.
  const auto over = [&](const char* what, const char* list, std::int64_t id, size_t n) {
    return Status::error(who_ + "found a span on " + what + " " + std::to_string(id) +
                         "; expected an index below " + std::to_string(n) +
                         ", the length of the header's \"" + list + "\"");
  };
  for (const TraceSpan& s : t_.spans) {
    if (static_cast<size_t>(s.device) >= t_.device_names.size())
      return over("device", "device_names", s.device, t_.device_names.size());
    if (static_cast<size_t>(s.stream) >= t_.streams.size())
      return over("stream", "streams", s.stream, t_.streams.size());
  }
  for (const HostSpan& h : t_.host)
    if (h.device < 0 || static_cast<size_t>(h.device) >= t_.device_names.size())
      return Status::error(who_ + "found a host slice on device " + std::to_string(h.device) +
                           "; expected an index below " + std::to_string(t_.device_names.size()) +
                           ", the length of the header's \"device_names\"");
  return std::move(t_);
}

Result<Trace> read_stream(std::streambuf* sb, const std::string& filename, const GzipReadBuf* gz) {
  TraceSax sax(filename);
  BlockSource source(sb);
  bool ok = false;
  try {
    ok = json::sax_parse(SourceIterator(&source), SourceIterator(), &sax);
  } catch (const std::exception& e) {
    return Status::error(filename + ": error: found unreadable JSON (" + e.what() +
                         "); expected a Chrome trace");
  }
  if (gz && !gz->error().empty())
    return Status::error(filename + ": error: found " + gz->error() +
                         "; expected a gzip-compressed Chrome trace");
  if (!sax.error().is_ok()) return sax.error();
  if (!ok || sax.parse_error_at()) {
    // The parser's offset counts the bytes read, the offending one included.
    const std::size_t at = sax.parse_error_at().value_or(1);
    const auto [line, column] = source.line_column(at > 0 ? at - 1 : 0);
    return Status::at(SourcePos{filename, line, column},
                      "found invalid JSON; expected a Chrome trace");
  }
  return sax.finish();
}

}  // namespace

Result<Trace> read_chrome_trace(std::istream& in, const std::string& filename) {
  if (starts_with_gzip_magic(in)) {
    GzipReadBuf gz(in);
    return read_stream(&gz, filename, &gz);
  }
  return read_stream(in.rdbuf(), filename, nullptr);
}

Result<Trace> read_chrome_trace_file(const std::string& path) {
  BRIGADE_ASSIGN_OR_RETURN(const InputFile file,
                           open_input_file(path, "a readable Chrome trace (.json or .json.gz)"));
  FdReadBuf buf(file.fd());
  std::istream in(&buf);
  return read_chrome_trace(in, path);
}

}  // namespace brigade
