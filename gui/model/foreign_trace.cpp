#include "gui/model/foreign_trace.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "gui/model/palette.hpp"

namespace brigade::gui {

namespace {

using nlohmann::json;

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

// pid and tid may be numbers or strings in the wild.
std::string id_text(const json& ev, const char* key) {
  auto it = ev.find(key);
  if (it == ev.end()) return "0";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
  if (it->is_number()) return std::to_string(static_cast<std::int64_t>(it->get<double>()));
  return it->dump();
}

std::string str_or(const json& o, const char* key, const std::string& fallback) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool contains_word(std::string name, const char* word) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name.find(word) != std::string::npos;
}

class Converter {
 public:
  Converter(const std::string& filename) : who_(filename + ": error: ") {}

  Result<Trace> run(const json& root) {
    const json* events = nullptr;
    if (root.is_array()) {
      events = &root;
    } else if (root.is_object() && root.contains("traceEvents") && root["traceEvents"].is_array()) {
      events = &root["traceEvents"];
    } else {
      return Status::error(who_ + "found " +
                           (root.is_object() ? std::string("an object without a \"traceEvents\" array")
                                             : "a JSON " + std::string(root.type_name())) +
                           "; expected a Chrome trace (an array of events, or an object with "
                           "\"traceEvents\")");
    }
    // Metadata first: names and the order of processes.
    for (const json& ev : *events) {
      if (!ev.is_object() || str_or(ev, "ph", "") != "M") continue;
      const std::string what = str_or(ev, "name", "");
      const json& args = ev.contains("args") && ev["args"].is_object() ? ev["args"] : empty_;
      if (what == "process_name") process_names_[id_text(ev, "pid")] = str_or(args, "name", "");
      if (what == "thread_name")
        thread_names_[{id_text(ev, "pid"), id_text(ev, "tid")}] = str_or(args, "name", "");
    }
    double t0 = INFINITY;
    for (size_t k = 0; k < events->size(); ++k) {
      const json& ev = (*events)[k];
      if (!ev.is_object())
        return Status::error(who_ + "found event " + std::to_string(k) + " of type " +
                             ev.type_name() + "; expected an object");
      const std::string ph = str_or(ev, "ph", "");
      if (ph.empty())
        return Status::error(who_ + "found event " + std::to_string(k) +
                             " without \"ph\"; expected a phase such as \"X\"");
      if (ph != "X" && ph != "B" && ph != "E" && ph != "b" && ph != "e" && ph != "i" && ph != "I")
        continue;
      auto ts = ev.find("ts");
      if (ts == ev.end() || !ts->is_number())
        return Status::error(who_ + "found event " + std::to_string(k) + " (\"" + ph +
                             "\") without a numeric \"ts\"; expected a time in microseconds");
      t0 = std::min(t0, ts->get<double>());
    }
    if (!std::isfinite(t0)) t0 = 0;
    for (size_t k = 0; k < events->size(); ++k) {
      Status st = event((*events)[k], k, t0);
      if (!st.is_ok()) return st;
    }
    // Unclosed "B" events end at the last time seen (as chrome://tracing draws them).
    for (auto& [key, stack] : open_)
      for (const TraceSpan& s : stack) {
        TraceSpan c = s;
        c.end_seconds = std::max(last_seconds_, s.start_seconds);
        spans_.push_back(c);
      }
    return finish();
  }

 private:
  Status event(const json& ev, size_t k, double t0) {
    const std::string ph = str_or(ev, "ph", "");
    const bool span_like = ph == "X" || ph == "B" || ph == "E" || ph == "b" || ph == "e";
    const bool memory = (ph == "i" || ph == "I") && str_or(ev, "name", "") == "[memory]";
    if (!span_like && !memory) return Status::ok();
    const double t = (ev["ts"].get<double>() - t0) / 1e6;
    last_seconds_ = std::max(last_seconds_, t);
    const std::string pid = id_text(ev, "pid");
    const std::string name = str_or(ev, "name", "");
    const json& args = ev.contains("args") && ev["args"].is_object() ? ev["args"] : empty_;
    if (memory) {
      auto it = args.find("Total Allocated");
      if (it != args.end() && it->is_number()) {
        MemorySample m;
        m.device = device(pid);
        m.category = MemoryCategory::kOther;
        m.time_seconds = t;
        m.bytes = it->get<double>();
        trace_.memory.push_back(m);
      }
      return Status::ok();
    }
    if (ph == "X") {
      double dur = 0;
      if (auto d = ev.find("dur"); d != ev.end()) {
        if (!d->is_number() || d->get<double>() < 0)
          return Status::error(who_ + "found event " + std::to_string(k) +
                               " (\"X\") with \"dur\" " + d->dump() +
                               "; expected a duration >= 0 in microseconds");
        dur = d->get<double>() / 1e6;
      }
      spans_.push_back(make_span(pid, id_text(ev, "tid"), name, t, t + dur));
      last_seconds_ = std::max(last_seconds_, t + dur);
    } else if (ph == "B") {
      open_[{pid, id_text(ev, "tid")}].push_back(make_span(pid, id_text(ev, "tid"), name, t, t));
    } else if (ph == "E") {
      auto& stack = open_[{pid, id_text(ev, "tid")}];
      if (!stack.empty()) {  // an unmatched "E" is ignored, as chrome://tracing does
        TraceSpan s = stack.back();
        stack.pop_back();
        s.end_seconds = std::max(t, s.start_seconds);
        spans_.push_back(s);
      }
    } else {  // async "b"/"e", matched by (pid, category, id, name)
      const std::string cat = str_or(ev, "cat", "async");
      const std::string key = pid + '\x1f' + cat + '\x1f' + id_text(ev, "id") + '\x1f' + name;
      if (ph == "b") {
        async_[key] = make_span(pid, "async " + cat, name, t, t);
      } else if (auto it = async_.find(key); it != async_.end()) {
        TraceSpan s = it->second;
        s.end_seconds = std::max(t, s.start_seconds);
        spans_.push_back(s);
        async_.erase(it);
      }
    }
    return Status::ok();
  }

  std::int32_t device(const std::string& pid) {
    auto it = devices_.find(pid);
    if (it != devices_.end()) return it->second;
    const auto d = static_cast<std::int32_t>(trace_.device_names.size());
    auto pn = process_names_.find(pid);
    trace_.device_names.push_back(pn != process_names_.end() && !pn->second.empty()
                                      ? pn->second + " (" + pid + ")"
                                      : "process " + pid);
    devices_.emplace(pid, d);
    return d;
  }

  std::int32_t stream(const std::string& pid, const std::string& tid) {
    const auto key = std::make_pair(pid, tid);
    auto it = streams_.find(key);
    if (it != streams_.end()) return it->second;
    const std::int32_t d = device(pid);
    const auto s = static_cast<std::int32_t>(trace_.streams.size());
    auto tn = thread_names_.find(key);
    // Async events' streams are named by their category ("async io").
    std::string name = tid.rfind("async ", 0) == 0 ? tid : "thread " + tid;
    if (tn != thread_names_.end() && !tn->second.empty()) name = tn->second;
    trace_.streams.push_back(Stream{d, std::move(name)});
    streams_.emplace(key, s);
    return s;
  }

  TraceSpan make_span(const std::string& pid, const std::string& tid, const std::string& name,
                      double start, double end) {
    TraceSpan s;
    s.task = -1;
    s.stream = stream(pid, tid);
    s.device = trace_.streams[static_cast<size_t>(s.stream)].device;
    s.start_seconds = start;
    s.end_seconds = end;
    auto it = names_.find(name);
    if (it == names_.end()) {
      it = names_.emplace(name, static_cast<NameId>(trace_.names.size())).first;
      trace_.names.push_back(name);
    }
    s.name = it->second;
    const SpanClass c = class_from_name(name, SpanClass::kCompute);
    s.kind = c == SpanClass::kTransfer  ? TaskKind::kTransfer
             : c == SpanClass::kCompute ? TaskKind::kCompute
                                        : TaskKind::kCollective;
    s.phase = contains_word(name, "backward")    ? Phase::kBackward
              : contains_word(name, "optimizer") ? Phase::kOptimizer
              : contains_word(name, "forward")   ? Phase::kForward
                                                 : Phase::kOther;
    return s;
  }

  Result<Trace> finish() {
    std::stable_sort(spans_.begin(), spans_.end(), [](const TraceSpan& a, const TraceSpan& b) {
      return a.start_seconds < b.start_seconds;
    });
    trace_.spans = std::move(spans_);
    trace_.source = "chrome-trace";
    return std::move(trace_);
  }

  std::string who_;
  const json empty_ = json::object();
  Trace trace_;
  std::vector<TraceSpan> spans_;
  std::map<std::string, std::string> process_names_;
  std::map<std::pair<std::string, std::string>, std::string> thread_names_;
  std::map<std::string, std::int32_t> devices_;
  std::map<std::pair<std::string, std::string>, std::int32_t> streams_;
  std::unordered_map<std::string, NameId> names_;
  std::map<std::pair<std::string, std::string>, std::vector<TraceSpan>> open_;
  std::map<std::string, TraceSpan> async_;
  double last_seconds_ = 0;
};

// Brigade's writer starts every file with its own metadata object.
bool is_brigade_trace(const std::string& text) {
  return text.substr(0, 256).find("\"brigade\":{\"format\"") != std::string::npos;
}

}  // namespace

Result<Trace> read_any_chrome_trace(const std::string& text, const std::string& filename) {
  if (is_brigade_trace(text)) {
    std::istringstream in(text);
    return read_chrome_trace(in, filename);
  }
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto [line, col] = line_col(text, e.byte > 0 ? e.byte - 1 : 0);
    return Status::at(SourcePos{filename, line, col},
                      text.find_first_not_of(" \t\r\n") == std::string::npos
                          ? "found an empty file; expected a Chrome trace"
                          : "found invalid JSON; expected a Chrome trace");
  } catch (const std::exception& e) {
    return Status::error(filename + ": error: found unreadable JSON (" + e.what() +
                         "); expected a Chrome trace");
  }
  try {
    return Converter(filename).run(root);
  } catch (const std::exception& e) {
    return Status::error(filename + ": error: found a malformed event (" + e.what() +
                         "); expected a Chrome trace");
  }
}

Result<Trace> read_any_chrome_trace_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::error(path + ": error: cannot open the file");
  // Brigade's own files and gzip-compressed ones (0x1f 0x8b) go to core's
  // reader by path, which reads them as it goes.
  std::string head(256, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(std::max<std::streamsize>(f.gcount(), 0)));
  const bool gzip = head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
                    static_cast<unsigned char>(head[1]) == 0x8b;
  if (gzip || is_brigade_trace(head)) return read_chrome_trace_file(path);
  f.clear();
  f.seekg(0);
  std::stringstream ss;
  ss << f.rdbuf();
  return read_any_chrome_trace(ss.str(), path);
}

}  // namespace brigade::gui
