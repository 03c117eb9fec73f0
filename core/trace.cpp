// Trace helpers and the Chrome Trace Event JSON writer and reader.
//
// File layout (one JSON object):
//   {"displayTimeUnit":"ns",
//    "brigade":{"format":1,"source":..,"program":..,"devices":D,"names":[..],"lanes":[..]},
//    "traceEvents":[ metadata ("M") first, then every other event sorted by time ]}
// pid = device (the network's link lanes are process D, "network"), tid =
// stream index (lane index on the network process). Times ("ts", "dur") are
// microseconds; the exact seconds, ids and kinds travel in "args" (and, for
// counters, whose args are plotted, in an extra "exact" member that viewers
// ignore), so that reading a file gives back the Trace that was written.
#include "core/trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/file_io.hpp"

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

namespace {

constexpr int kFormat = 1;

std::string_view phase_short(Phase p) { return phase_name(p); }

// ---- writing --------------------------------------------------------------------------

class Writer {
 public:
  void raw(std::string_view s) { out_.append(s.data(), s.size()); }
  void num(double v) {
    char buf[32];
    if (v == 0) v = 0;  // no "-0"
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  void num(std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  void str(std::string_view s) {
    out_.push_back('"');
    for (char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\t': out_ += "\\t"; break;
        case '\r': out_ += "\\r"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_.push_back(ch);
          }
      }
    }
    out_.push_back('"');
  }
  std::string& buffer() { return out_; }

 private:
  std::string out_;
};

struct Pending {
  double time;
  int order;  // at equal times: ends before begins, so lanes and threads nest
  size_t seq;
  std::string text;
};

std::string_view safe(const std::vector<std::string>& v, std::int32_t i) {
  return (i >= 0 && static_cast<size_t>(i) < v.size()) ? std::string_view(v[static_cast<size_t>(i)])
                                                       : std::string_view();
}

}  // namespace

Status write_chrome_trace(const Trace& trace, std::ostream& out) {
  const auto devices = static_cast<std::int64_t>(trace.device_names.size());
  const std::int64_t net_pid = devices;
  Writer w;
  w.raw("{\"displayTimeUnit\":\"ns\",\"brigade\":{\"format\":");
  w.num(std::int64_t{kFormat});
  w.raw(",\"source\":");
  w.str(trace.source);
  w.raw(",\"program\":");
  w.str(trace.program);
  w.raw(",\"devices\":");
  w.num(devices);
  w.raw(",\"names\":[");
  for (size_t i = 0; i < trace.names.size(); ++i) {
    if (i) w.raw(",");
    w.str(trace.names[i]);
  }
  w.raw("],\"lanes\":[");
  for (size_t i = 0; i < trace.lanes.size(); ++i) {
    if (i) w.raw(",");
    w.str(trace.lanes[i]);
  }
  w.raw("]},\n\"traceEvents\":[\n");

  // Metadata: names of processes (devices, the network) and threads (streams, lanes).
  bool first = true;
  auto begin_event = [&]() {
    if (!first) w.raw(",\n");
    first = false;
  };
  for (std::int64_t d = 0; d < devices; ++d) {
    begin_event();
    w.raw("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
    w.num(d);
    w.raw(",\"tid\":0,\"args\":{\"name\":");
    w.str(trace.device_names[static_cast<size_t>(d)]);
    w.raw("}}");
  }
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    begin_event();
    w.raw("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
    w.num(std::int64_t{trace.streams[s].device});
    w.raw(",\"tid\":");
    w.num(static_cast<std::int64_t>(s));
    w.raw(",\"args\":{\"name\":");
    w.str(trace.streams[s].name);
    w.raw("}}");
  }
  if (!trace.transfers.empty()) {
    begin_event();
    w.raw("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
    w.num(net_pid);
    w.raw(",\"tid\":0,\"args\":{\"name\":\"network\"}}");
  }

  // Everything else, sorted by time.
  std::vector<Pending> ev;
  ev.reserve(trace.spans.size() + 4 * trace.transfers.size() + trace.memory.size());
  Writer e;
  auto take = [&](double time, int order) {
    ev.push_back(Pending{time, order, ev.size(), std::move(e.buffer())});
    e.buffer().clear();
  };
  std::unordered_map<TaskId, size_t> span_of_task;
  std::map<std::pair<CollectiveId, std::int32_t>, size_t> span_of_rank;
  std::vector<std::vector<size_t>> spans_by_device(static_cast<size_t>(std::max<std::int64_t>(devices, 0)));
  for (size_t i = 0; i < trace.spans.size(); ++i) {
    const TraceSpan& s = trace.spans[i];
    if (s.task >= 0) span_of_task.emplace(s.task, i);
    if (s.collective >= 0) span_of_rank.emplace(std::make_pair(s.collective, s.device), i);
    if (s.device >= 0 && s.device < devices) spans_by_device[static_cast<size_t>(s.device)].push_back(i);
    e.raw("{\"ph\":\"X\",\"name\":");
    e.str(safe(trace.names, s.name));
    e.raw(",\"cat\":");
    e.str(task_kind_name(s.kind));
    e.raw(",\"pid\":");
    e.num(std::int64_t{s.device});
    e.raw(",\"tid\":");
    e.num(std::int64_t{s.stream});
    e.raw(",\"ts\":");
    e.num(s.start_seconds * 1e6);
    e.raw(",\"dur\":");
    e.num((s.end_seconds - s.start_seconds) * 1e6);
    e.raw(",\"args\":{\"i\":");
    e.num(static_cast<std::int64_t>(i));
    e.raw(",\"task\":");
    e.num(std::int64_t{s.task});
    e.raw(",\"kind\":");
    e.str(task_kind_name(s.kind));
    e.raw(",\"phase\":");
    e.str(phase_short(s.phase));
    e.raw(",\"collective\":");
    e.num(std::int64_t{s.collective});
    e.raw(",\"name_id\":");
    e.num(std::int64_t{s.name});
    e.raw(",\"start_s\":");
    e.num(s.start_seconds);
    e.raw(",\"end_s\":");
    e.num(s.end_seconds);
    e.raw("}}");
    take(s.start_seconds, 2);
  }
  for (auto& v : spans_by_device)
    std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) {
      return trace.spans[a].start_seconds < trace.spans[b].start_seconds;
    });

  std::int64_t next_flow_id = static_cast<std::int64_t>(trace.transfers.size());
  for (size_t i = 0; i < trace.transfers.size(); ++i) {
    const TraceTransfer& t = trace.transfers[i];
    const std::string_view lane = t.lane >= 0 ? safe(trace.lanes, t.lane) : std::string_view("transfer");
    const std::int64_t tid = t.lane >= 0 ? t.lane : -1;
    auto head = [&](const char* ph) {
      e.raw("{\"ph\":\"");
      e.raw(ph);
      e.raw("\",\"name\":");
      e.str(lane.empty() ? std::string_view("transfer") : lane);
      e.raw(",\"cat\":\"transfer\",\"id\":");
      e.num(static_cast<std::int64_t>(i));
      e.raw(",\"pid\":");
      e.num(net_pid);
      e.raw(",\"tid\":");
      e.num(tid);
    };
    head("b");
    e.raw(",\"ts\":");
    e.num(t.start_seconds * 1e6);
    e.raw(",\"args\":{\"i\":");
    e.num(static_cast<std::int64_t>(i));
    e.raw(",\"task\":");
    e.num(std::int64_t{t.task});
    e.raw(",\"src\":");
    e.num(std::int64_t{t.src});
    e.raw(",\"dst\":");
    e.num(std::int64_t{t.dst});
    e.raw(",\"bytes\":");
    e.num(t.bytes);
    e.raw(",\"lane\":");
    e.num(std::int64_t{t.lane});
    e.raw(",\"start_s\":");
    e.num(t.start_seconds);
    e.raw(",\"end_s\":");
    e.num(t.end_seconds);
    e.raw("}}");
    take(t.start_seconds, 3);
    head("e");
    e.raw(",\"ts\":");
    e.num(t.end_seconds * 1e6);
    e.raw("}");
    take(t.end_seconds, 1);

    // A flow arrow from the sending span to the receiving one: the same
    // collective's span on the receiver, or else the receiver's first span
    // that starts once the bytes have arrived.
    auto send = span_of_task.find(t.task);
    if (send == span_of_task.end()) continue;
    const TraceSpan& ss = trace.spans[send->second];
    const TraceSpan* rs = nullptr;
    if (ss.collective >= 0) {
      auto it = span_of_rank.find(std::make_pair(ss.collective, t.dst));
      if (it != span_of_rank.end()) rs = &trace.spans[it->second];
    } else if (t.dst >= 0 && t.dst < devices) {
      const auto& v = spans_by_device[static_cast<size_t>(t.dst)];
      auto it = std::lower_bound(v.begin(), v.end(), t.end_seconds, [&](size_t a, double x) {
        return trace.spans[a].start_seconds < x;
      });
      if (it != v.end()) rs = &trace.spans[*it];
    }
    if (!rs) continue;
    const double s_time = std::clamp(t.start_seconds, ss.start_seconds, ss.end_seconds);
    const std::int64_t id = next_flow_id++;
    e.raw("{\"ph\":\"s\",\"name\":\"transfer\",\"cat\":\"flow\",\"id\":");
    e.num(id);
    e.raw(",\"pid\":");
    e.num(std::int64_t{ss.device});
    e.raw(",\"tid\":");
    e.num(std::int64_t{ss.stream});
    e.raw(",\"ts\":");
    e.num(s_time * 1e6);
    e.raw("}");
    take(s_time, 4);
    e.raw("{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"transfer\",\"cat\":\"flow\",\"id\":");
    e.num(id);
    e.raw(",\"pid\":");
    e.num(std::int64_t{rs->device});
    e.raw(",\"tid\":");
    e.num(std::int64_t{rs->stream});
    e.raw(",\"ts\":");
    e.num(rs->start_seconds * 1e6);
    e.raw("}");
    take(rs->start_seconds, 5);
  }

  for (size_t i = 0; i < trace.memory.size(); ++i) {
    const MemorySample& m = trace.memory[i];
    e.raw("{\"ph\":\"C\",\"name\":\"memory:");
    e.raw(memory_category_name(m.category));
    e.raw("\",\"pid\":");
    e.num(std::int64_t{m.device});
    e.raw(",\"tid\":0,\"ts\":");
    e.num(m.time_seconds * 1e6);
    e.raw(",\"args\":{\"bytes\":");
    e.num(m.bytes);
    e.raw("},\"exact\":{\"i\":");
    e.num(static_cast<std::int64_t>(i));
    e.raw(",\"t_s\":");
    e.num(m.time_seconds);
    e.raw("}}");
    take(m.time_seconds, 0);
  }

  std::stable_sort(ev.begin(), ev.end(), [](const Pending& a, const Pending& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.order != b.order) return a.order < b.order;
    return a.seq < b.seq;
  });
  for (const Pending& p : ev) {
    begin_event();
    w.raw(p.text);
  }
  w.raw("\n]}\n");
  out.write(w.buffer().data(), static_cast<std::streamsize>(w.buffer().size()));
  if (!out) return Status::error("could not write the trace", ErrorKind::kRuntime);
  return Status::ok();
}

Status write_chrome_trace_file(const Trace& trace, const std::string& path) {
  return write_file_atomically(path, [&](std::ostream& out) { return write_chrome_trace(trace, out); });
}

// ---- reading ---------------------------------------------------------------------------

namespace {

using nlohmann::json;

std::optional<TaskKind> parse_task_kind(std::string_view s) {
  for (auto k : {TaskKind::kCompute, TaskKind::kTransfer, TaskKind::kCollective})
    if (task_kind_name(k) == s) return k;
  return std::nullopt;
}

std::optional<Phase> parse_phase(std::string_view s) {
  for (auto p : {Phase::kForward, Phase::kBackward, Phase::kRecompute, Phase::kOptimizer, Phase::kOther})
    if (phase_name(p) == s) return p;
  return std::nullopt;
}

std::optional<MemoryCategory> parse_category(std::string_view s) {
  for (int i = 0; i < kNumMemoryCategories; ++i)
    if (memory_category_name(static_cast<MemoryCategory>(i)) == s) return static_cast<MemoryCategory>(i);
  return std::nullopt;
}

// 1-based line and column of a byte offset.
std::pair<int, int> line_col(const std::string& text, size_t offset) {
  int line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

double num_or(const json& o, const char* key, double fallback) {
  auto it = o.find(key);
  return (it != o.end() && it->is_number()) ? it->get<double>() : fallback;
}

std::int64_t int_or(const json& o, const char* key, std::int64_t fallback) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return fallback;
  // A float beyond int64's range converts with undefined behaviour (a fuzz find).
  if (it->is_number_float() && !(std::fabs(it->get<double>()) < 9.2e18)) return fallback;
  return it->get<std::int64_t>();
}

std::string str_or(const json& o, const char* key, const std::string& fallback) {
  auto it = o.find(key);
  return (it != o.end() && it->is_string()) ? it->get<std::string>() : fallback;
}

template <class T>
void place(std::vector<T>& v, std::vector<std::uint8_t>& filled, std::int64_t i, T x) {
  if (i < 0) {
    v.push_back(std::move(x));
    filled.push_back(1);
    return;
  }
  if (static_cast<size_t>(i) >= v.size()) {
    v.resize(static_cast<size_t>(i) + 1);
    filled.resize(static_cast<size_t>(i) + 1, 0);
  }
  v[static_cast<size_t>(i)] = std::move(x);
  filled[static_cast<size_t>(i)] = 1;
}

Result<Trace> read_events(const json& root, const std::string& filename) {
  const std::string who = filename + ": error: ";
  const json* events = nullptr;
  const json* meta = nullptr;
  if (root.is_array()) {
    events = &root;
  } else if (root.is_object()) {
    auto it = root.find("traceEvents");
    if (it == root.end() || !it->is_array())
      return Status::error(who + "found no \"traceEvents\" array; expected a Chrome trace (an array of events, or an object with \"traceEvents\")");
    events = &*it;
    auto m = root.find("brigade");
    if (m != root.end() && m->is_object()) meta = &*m;
  } else {
    return Status::error(who + "found a JSON " + std::string(root.type_name()) +
                         "; expected a Chrome trace (an array of events, or an object with \"traceEvents\")");
  }

  Trace t;
  std::int64_t devices = -1;
  if (meta) {
    t.source = str_or(*meta, "source", "");
    t.program = str_or(*meta, "program", "");
    devices = int_or(*meta, "devices", -1);
    if (auto n = meta->find("names"); n != meta->end() && n->is_array())
      for (const json& x : *n) t.names.push_back(x.is_string() ? x.get<std::string>() : "");
    if (auto l = meta->find("lanes"); l != meta->end() && l->is_array())
      for (const json& x : *l) t.lanes.push_back(x.is_string() ? x.get<std::string>() : "");
  }
  std::vector<std::uint8_t> span_ok, xfer_ok, mem_ok;
  std::map<std::int64_t, std::string> process_names;
  std::map<std::int64_t, Stream> threads;
  std::unordered_map<std::string, NameId> name_index;
  for (size_t i = 0; i < t.names.size(); ++i) name_index.emplace(t.names[i], static_cast<NameId>(i));
  auto intern = [&](const std::string& s) {
    auto it = name_index.find(s);
    if (it != name_index.end()) return it->second;
    t.names.push_back(s);
    const auto id = static_cast<NameId>(t.names.size() - 1);
    name_index.emplace(s, id);
    return id;
  };

  for (size_t k = 0; k < events->size(); ++k) {
    const json& ev = (*events)[k];
    if (!ev.is_object())
      return Status::error(who + "found event " + std::to_string(k) + " of type " + ev.type_name() +
                           "; expected an object");
    const std::string ph = str_or(ev, "ph", "");
    if (ph.empty())
      return Status::error(who + "found event " + std::to_string(k) + " without \"ph\"; expected a phase such as \"X\"");
    const std::int64_t pid = int_or(ev, "pid", 0);
    const std::int64_t tid = int_or(ev, "tid", 0);
    const json empty = json::object();
    const json& args = (ev.contains("args") && ev["args"].is_object()) ? ev["args"] : empty;
    if (ph == "M") {
      const std::string what = str_or(ev, "name", "");
      if (what == "process_name") process_names[pid] = str_or(args, "name", "");
      if (what == "thread_name" && (devices < 0 || pid < devices))
        threads[tid] = Stream{static_cast<std::int32_t>(pid), str_or(args, "name", "")};
    } else if (ph == "X") {
      TraceSpan s;
      s.device = static_cast<std::int32_t>(pid);
      s.stream = static_cast<std::int32_t>(tid);
      s.task = static_cast<TaskId>(int_or(args, "task", -1));
      const double ts = num_or(ev, "ts", 0) / 1e6;
      s.start_seconds = num_or(args, "start_s", ts);
      s.end_seconds = num_or(args, "end_s", ts + num_or(ev, "dur", 0) / 1e6);
      s.kind = parse_task_kind(str_or(args, "kind", "")).value_or(TaskKind::kCompute);
      s.phase = parse_phase(str_or(args, "phase", "")).value_or(Phase::kForward);
      s.collective = static_cast<CollectiveId>(int_or(args, "collective", -1));
      const std::int64_t name_id = int_or(args, "name_id", -2);
      if (name_id >= -1 && name_id < static_cast<std::int64_t>(t.names.size()))
        s.name = static_cast<NameId>(name_id);
      else
        s.name = intern(str_or(ev, "name", ""));
      place(t.spans, span_ok, int_or(args, "i", -1), s);
    } else if (ph == "b") {
      TraceTransfer x;
      const double ts = num_or(ev, "ts", 0) / 1e6;
      x.task = static_cast<TaskId>(int_or(args, "task", -1));
      x.src = static_cast<std::int32_t>(int_or(args, "src", 0));
      x.dst = static_cast<std::int32_t>(int_or(args, "dst", 0));
      x.bytes = num_or(args, "bytes", 0);
      x.lane = static_cast<std::int32_t>(int_or(args, "lane", -1));
      x.start_seconds = num_or(args, "start_s", ts);
      x.end_seconds = num_or(args, "end_s", ts);
      place(t.transfers, xfer_ok, int_or(args, "i", -1), x);
    } else if (ph == "C") {
      const std::string name = str_or(ev, "name", "");
      if (name.rfind("memory:", 0) != 0) continue;
      auto cat = parse_category(std::string_view(name).substr(7));
      if (!cat) continue;
      const json& exact = (ev.contains("exact") && ev["exact"].is_object()) ? ev["exact"] : empty;
      MemorySample m;
      m.device = static_cast<std::int32_t>(pid);
      m.category = *cat;
      m.time_seconds = num_or(exact, "t_s", num_or(ev, "ts", 0) / 1e6);
      m.bytes = num_or(args, "bytes", 0);
      place(t.memory, mem_ok, int_or(exact, "i", -1), m);
    }
    // "e", "s", "f" and anything else carry nothing the Trace keeps.
  }
  for (auto* ok : {&span_ok, &xfer_ok, &mem_ok})
    for (size_t i = 0; i < ok->size(); ++i)
      if (!(*ok)[i])
        return Status::error(who + "found a gap at index " + std::to_string(i) +
                             " of the events' \"i\" numbering; expected every index once");
  if (devices < 0) {
    devices = 0;
    for (const auto& [pid, name] : process_names) devices = std::max(devices, pid + 1);
    for (const TraceSpan& s : t.spans) devices = std::max<std::int64_t>(devices, s.device + 1);
  }
  t.device_names.resize(static_cast<size_t>(devices));
  for (const auto& [pid, name] : process_names)
    if (pid >= 0 && pid < devices) t.device_names[static_cast<size_t>(pid)] = name;
  std::int64_t nstreams = 0;
  for (const auto& [tid, s] : threads) nstreams = std::max(nstreams, tid + 1);
  for (const TraceSpan& s : t.spans) nstreams = std::max<std::int64_t>(nstreams, s.stream + 1);
  t.streams.resize(static_cast<size_t>(nstreams));
  for (const auto& [tid, s] : threads)
    if (tid >= 0) t.streams[static_cast<size_t>(tid)] = s;
  return t;
}

}  // namespace

Result<Trace> read_chrome_trace(std::istream& in, const std::string& filename) {
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto [line, col] = line_col(text, e.byte > 0 ? e.byte - 1 : 0);
    return Status::at(SourcePos{filename, line, col}, "found invalid JSON; expected a Chrome trace");
  } catch (const std::exception& e) {
    return Status::error(filename + ": error: found unreadable JSON (" + e.what() + "); expected a Chrome trace");
  }
  try {
    return read_events(root, filename);
  } catch (const std::exception& e) {
    return Status::error(filename + ": error: found a malformed event (" + e.what() + "); expected a Chrome trace");
  }
}

Result<Trace> read_chrome_trace_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::error(path + ": error: cannot open the file", ErrorKind::kBadInput);
  return read_chrome_trace(f, path);
}

}  // namespace brigade
