// The Chrome Trace Event JSON writer (format 3).
//
// File layout (one JSON object):
//   {"displayTimeUnit":"ns",
//    "brigade":{"format":3,"source":..,"program":..,"filter":..,"devices":D,
//               "device_names":[..],"streams":[[device,name],..],"names":[..],"lanes":[..]},
//    "traceEvents":[ metadata ("M") first, then every other event sorted by time ]}
// pid = device (the network's link lanes are process D, "network"), tid =
// stream index (lane index on the network process; the host lane of device
// d is tid S + d, S the streams' count, format 3, with a flow arrow "issue"
// from a host slice to its task's span where the task started at its
// issue). Times ("ts", "dur") are microseconds written as exact decimals
// (core/trace_decimal.hpp), so that reading gives back the same seconds;
// ids and kinds travel in "args".
//
// Memory: the events are not held as text. Each kind of event (memory
// samples, transfer ends, spans, transfer begins, arrow starts, arrow ends,
// host slices, host arrow starts and ends) is an array of (time, index) keys
// sorted on its own; the writer merges the nine arrays and formats each
// event as it goes, into a buffer that is handed to the stream every 1 MiB.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/trace.hpp"
#include "core/trace_decimal.hpp"

namespace brigade {
namespace {

constexpr int kFormat = 3;  // 3: the host lane ("host" slices)
constexpr size_t kFlushBytes = 1 << 20;

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_double(std::string& out, double v) {
  char buf[32];
  if (v == 0) v = 0;  // no "-0"
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

std::string quoted(std::string_view s) {
  std::string q;
  append_string(q, s);
  return q;
}

// Microseconds, exactly.
void append_us(std::string& out, double seconds) {
  if (!std::isfinite(seconds)) {
    append_double(out, 0);
    return;
  }
  trace_decimal::append_us(out, seconds);
}

struct Key {
  double time;
  std::uint32_t index;
};

void sort_keys(std::vector<Key>& keys) {
  const auto less = [](const Key& a, const Key& b) {
    return a.time < b.time || (a.time == b.time && a.index < b.index);
  };
  if (!std::is_sorted(keys.begin(), keys.end(), less)) std::sort(keys.begin(), keys.end(), less);
}

// A flow arrow from the span that sent a transfer to the span that received it.
struct Arrow {
  std::uint32_t transfer;
  std::uint32_t send_span, recv_span;
  double send_time;  // the transfer's start, within the sending span
};

class ChromeWriter {
 public:
  ChromeWriter(const Trace& t, std::ostream& out) : t_(t), os_(out) {}
  Status write();

 private:
  void flush(bool force = false) {
    if (buf_.size() >= kFlushBytes || (force && !buf_.empty())) {
      os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
      buf_.clear();
    }
  }
  void begin_event() {
    if (!first_) buf_ += ",\n";
    first_ = false;
  }
  void header();
  void metadata();
  void arrows();
  bool complete_head(NameId name, std::string_view cat, std::int64_t pid, std::int64_t tid,
                     double start, double end, std::uint32_t i, TaskId task);
  void complete_tail(NameId name, bool exact_dur, double start, double end);
  void span(std::uint32_t i);
  void host(std::uint32_t i);
  void id_event_head(const char* ph_name_cat, std::int64_t id, std::int64_t pid, std::int64_t tid,
                     double time);
  void transfer_event(std::uint32_t i, bool begin);
  void arrow_event(std::uint32_t a, bool start);
  void host_arrow_event(std::uint32_t a, bool start);
  void memory(std::uint32_t i);
  std::int64_t host_tid(std::int64_t device) const {
    return static_cast<std::int64_t>(t_.streams.size()) + device;
  }
  const std::string& lane_name(std::int32_t lane) const {
    return lane >= 0 && static_cast<size_t>(lane) < lanes_.size()
               ? lanes_[static_cast<size_t>(lane)]
               : transfer_name_;
  }

  const Trace& t_;
  std::ostream& os_;
  std::string buf_;
  std::string head_;  // scratch for transfer_event
  bool first_ = true;
  std::int64_t devices_ = 0;
  std::vector<std::string> names_, lanes_;  // quoted
  std::string transfer_name_ = "\"transfer\"";
  std::vector<std::uint8_t> ambiguous_name_;  // by NameId: its text is also an earlier name's
  std::vector<Arrow> arrows_;
  // The host lane's arrows: (host slice, the span of the task it issued),
  // for each task that started at its issue (its host held it back).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> host_arrows_;
  bool memory_in_order_ = true;  // Trace::memory sorted by time: no "i" needed
};

void ChromeWriter::header() {
  devices_ = static_cast<std::int64_t>(t_.device_names.size());
  buf_ += "{\"displayTimeUnit\":\"ns\",\"brigade\":{\"format\":";
  append_int(buf_, kFormat);
  buf_ += ",\"source\":";
  append_string(buf_, t_.source);
  buf_ += ",\"program\":";
  append_string(buf_, t_.program);
  if (!t_.filter.empty()) {
    buf_ += ",\"filter\":";
    append_string(buf_, t_.filter);
  }
  buf_ += ",\"devices\":";
  append_int(buf_, devices_);
  buf_ += ",\"device_names\":[";
  for (size_t i = 0; i < t_.device_names.size(); ++i) {
    if (i) buf_ += ",";
    append_string(buf_, t_.device_names[i]);
  }
  buf_ += "],\"streams\":[";
  for (size_t i = 0; i < t_.streams.size(); ++i) {
    if (i) buf_ += ",";
    buf_ += "[";
    append_int(buf_, t_.streams[i].device);
    buf_ += ",";
    append_string(buf_, t_.streams[i].name);
    buf_ += "]";
  }
  buf_ += "],\"names\":[";
  names_.reserve(t_.names.size());
  std::unordered_map<std::string_view, NameId> first_of;
  ambiguous_name_.assign(t_.names.size(), 0);
  for (size_t i = 0; i < t_.names.size(); ++i) {
    if (i) buf_ += ",";
    names_.push_back(quoted(t_.names[i]));
    buf_ += names_.back();
    if (!first_of.emplace(t_.names[i], static_cast<NameId>(i)).second) ambiguous_name_[i] = 1;
  }
  buf_ += "],\"lanes\":[";
  lanes_.reserve(t_.lanes.size());
  for (size_t i = 0; i < t_.lanes.size(); ++i) {
    if (i) buf_ += ",";
    lanes_.push_back(
        quoted(t_.lanes[i].empty() ? std::string_view("transfer") : std::string_view(t_.lanes[i])));
    append_string(buf_, t_.lanes[i]);
  }
  buf_ += "]},\n\"traceEvents\":[\n";
}

// Names of the processes (devices, the network) and threads (streams) that
// have events; the header names them all.
void ChromeWriter::metadata() {
  std::vector<std::uint8_t> device_used(static_cast<size_t>(devices_), 0),
      stream_used(t_.streams.size(), 0);
  for (const TraceSpan& s : t_.spans) {
    if (s.device >= 0 && s.device < devices_) device_used[static_cast<size_t>(s.device)] = 1;
    if (s.stream >= 0 && static_cast<size_t>(s.stream) < stream_used.size())
      stream_used[static_cast<size_t>(s.stream)] = 1;
  }
  for (const MemorySample& m : t_.memory)
    if (m.device >= 0 && m.device < devices_) device_used[static_cast<size_t>(m.device)] = 1;
  std::vector<std::uint8_t> host_used(static_cast<size_t>(devices_), 0);
  for (const HostSpan& h : t_.host)
    if (h.device >= 0 && h.device < devices_)
      device_used[static_cast<size_t>(h.device)] = host_used[static_cast<size_t>(h.device)] = 1;
  for (std::int64_t d = 0; d < devices_; ++d) {
    if (!device_used[static_cast<size_t>(d)]) continue;
    begin_event();
    buf_ += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
    append_int(buf_, d);
    buf_ += ",\"tid\":0,\"args\":{\"name\":";
    append_string(buf_, t_.device_names[static_cast<size_t>(d)]);
    buf_ += "}}";
  }
  for (size_t s = 0; s < t_.streams.size(); ++s) {
    if (!stream_used[s]) continue;
    begin_event();
    buf_ += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
    append_int(buf_, t_.streams[s].device);
    buf_ += ",\"tid\":";
    append_int(buf_, static_cast<std::int64_t>(s));
    buf_ += ",\"args\":{\"name\":";
    append_string(buf_, t_.streams[s].name);
    buf_ += "}}";
  }
  for (std::int64_t d = 0; d < devices_; ++d) {
    if (!host_used[static_cast<size_t>(d)]) continue;
    begin_event();
    buf_ += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
    append_int(buf_, d);
    buf_ += ",\"tid\":";
    append_int(buf_, host_tid(d));
    buf_ += ",\"args\":{\"name\":\"host\"}}";
    // Above the device's streams, as the host issues what they run.
    begin_event();
    buf_ += "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":";
    append_int(buf_, d);
    buf_ += ",\"tid\":";
    append_int(buf_, host_tid(d));
    buf_ += ",\"args\":{\"sort_index\":-1}}";
  }
  if (!t_.transfers.empty()) {
    begin_event();
    buf_ += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
    append_int(buf_, devices_);
    buf_ += ",\"tid\":0,\"args\":{\"name\":\"network\"}}";
  }
  flush();
}

// An arrow per point-to-point transfer, from its span to the receiver's first
// span that starts once the bytes have arrived; per collective, one arrow for
// each (sender, receiver) pair of its steps (the first step's), from the
// collective's span on the sender to its span on the receiver: a ring of 8
// ranks gets 8 arrows, not its 112 messages' worth.
void ChromeWriter::arrows() {
  const size_t ns = t_.spans.size();
  std::int32_t max_task = -1;
  for (const TraceSpan& s : t_.spans) max_task = std::max(max_task, s.task);
  std::vector<std::uint32_t> span_of_task(static_cast<size_t>(max_task + 1), UINT32_MAX);
  std::unordered_map<std::uint64_t, std::uint32_t> span_of_rank;  // (collective, device)
  std::vector<std::vector<std::uint32_t>> by_device(
      static_cast<size_t>(std::max<std::int64_t>(devices_, 0)));
  auto rank_key = [](CollectiveId c, std::int32_t d) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c)) << 32) |
           static_cast<std::uint32_t>(d);
  };
  size_t collective_spans = 0;
  for (const TraceSpan& s : t_.spans) collective_spans += s.collective >= 0;
  span_of_rank.reserve(collective_spans);
  for (size_t i = 0; i < ns; ++i) {
    const TraceSpan& s = t_.spans[i];
    if (s.task >= 0 && span_of_task[static_cast<size_t>(s.task)] == UINT32_MAX)
      span_of_task[static_cast<size_t>(s.task)] = static_cast<std::uint32_t>(i);
    if (s.collective >= 0)
      span_of_rank.emplace(rank_key(s.collective, s.device), static_cast<std::uint32_t>(i));
  }
  // Spans by start, of the devices that receive point-to-point transfers.
  std::vector<std::uint8_t> receives(by_device.size(), 0);
  for (const TraceTransfer& x : t_.transfers)
    if (x.task >= 0 && x.task <= max_task && x.dst >= 0 && x.dst < devices_) {
      const std::uint32_t send = span_of_task[static_cast<size_t>(x.task)];
      if (send != UINT32_MAX && t_.spans[send].collective < 0)
        receives[static_cast<size_t>(x.dst)] = 1;
    }
  for (size_t i = 0; i < ns; ++i) {
    const TraceSpan& s = t_.spans[i];
    if (s.device >= 0 && s.device < devices_ && receives[static_cast<size_t>(s.device)])
      by_device[static_cast<size_t>(s.device)].push_back(static_cast<std::uint32_t>(i));
  }
  for (auto& v : by_device)
    std::stable_sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) {
      return t_.spans[a].start_seconds < t_.spans[b].start_seconds;
    });
  std::unordered_set<std::uint64_t> pairs;  // (send span, receive span) of collectives' arrows
  pairs.reserve(std::min(t_.transfers.size(), collective_spans * 2));
  arrows_.reserve(std::min(t_.transfers.size(), collective_spans * 2 + 1024));
  for (size_t i = 0; i < t_.transfers.size(); ++i) {
    const TraceTransfer& x = t_.transfers[i];
    if (x.task < 0 || x.task > max_task) continue;
    const std::uint32_t send = span_of_task[static_cast<size_t>(x.task)];
    if (send == UINT32_MAX) continue;
    const TraceSpan& ss = t_.spans[send];
    std::uint32_t recv = UINT32_MAX;
    if (ss.collective >= 0) {
      auto it = span_of_rank.find(rank_key(ss.collective, x.dst));
      if (it == span_of_rank.end()) continue;
      recv = it->second;
      if (!pairs.insert((static_cast<std::uint64_t>(send) << 32) | recv).second) continue;
    } else if (x.dst >= 0 && x.dst < devices_) {
      const auto& v = by_device[static_cast<size_t>(x.dst)];
      auto it = std::lower_bound(
          v.begin(), v.end(), x.end_seconds,
          [&](std::uint32_t a, double time) { return t_.spans[a].start_seconds < time; });
      if (it == v.end()) continue;
      recv = *it;
    } else {
      continue;
    }
    arrows_.push_back(Arrow{static_cast<std::uint32_t>(i), send, recv,
                            std::clamp(x.start_seconds, ss.start_seconds, ss.end_seconds)});
  }
  // The host lane: an arrow from a host slice to its task's span where the
  // task started at its issue, as a profiler draws a launch to its kernel,
  // but only where the launch is why the kernel started then.
  for (size_t h = 0; h < t_.host.size(); ++h) {
    const HostSpan& x = t_.host[h];
    if (x.task < 0 || x.task > max_task) continue;
    const std::uint32_t s = span_of_task[static_cast<size_t>(x.task)];
    if (s != UINT32_MAX && t_.spans[s].start_seconds == x.end_seconds)
      host_arrows_.emplace_back(static_cast<std::uint32_t>(h), s);
  }
}

// A complete ("X") event up to its args' index and task, the part spans and
// host slices share; returns whether ts + dur gives the end exactly (else
// complete_tail writes the ends in args).
bool ChromeWriter::complete_head(NameId name, std::string_view cat, std::int64_t pid,
                                 std::int64_t tid, double start, double end, std::uint32_t i,
                                 TaskId task) {
  begin_event();
  buf_ += "{\"ph\":\"X\",\"name\":";
  buf_ += name >= 0 && static_cast<size_t>(name) < names_.size() ? names_[static_cast<size_t>(name)]
                                                                 : std::string("\"\"");
  buf_ += ",\"cat\":\"";
  buf_ += cat;
  buf_ += "\",\"pid\":";
  append_int(buf_, pid);
  buf_ += ",\"tid\":";
  append_int(buf_, tid);
  buf_ += ",\"ts\":";
  append_us(buf_, start);
  buf_ += ",\"dur\":";
  // ts + dur, added in decimal, is the end exactly; where no such dur fits
  // (times of very different magnitudes) the end travels in args.
  const bool exact_dur = std::isfinite(start) && std::isfinite(end) &&
                         trace_decimal::append_us_difference(buf_, start, end);
  if (!exact_dur) append_double(buf_, (end - start) * 1e6);
  buf_ += ",\"args\":{\"i\":";
  append_int(buf_, i);
  buf_ += ",\"task\":";
  append_int(buf_, task);
  return exact_dur;
}

void ChromeWriter::complete_tail(NameId name, bool exact_dur, double start, double end) {
  // The reader finds a name's id from its text unless two ids share it.
  if (name < 0 || static_cast<size_t>(name) >= names_.size() ||
      ambiguous_name_[static_cast<size_t>(name)]) {
    buf_ += ",\"name_id\":";
    append_int(buf_, name);
  }
  if (!exact_dur) {
    buf_ += ",\"start_s\":";
    append_double(buf_, start);
    buf_ += ",\"end_s\":";
    append_double(buf_, end);
  }
  buf_ += "}}";
}

void ChromeWriter::span(std::uint32_t i) {
  const TraceSpan& s = t_.spans[i];
  const bool exact_dur = complete_head(s.name, task_kind_name(s.kind), s.device, s.stream,
                                       s.start_seconds, s.end_seconds, i, s.task);
  buf_ += ",\"phase\":\"";
  buf_ += phase_name(s.phase);
  buf_ += "\"";
  if (s.collective >= 0) {
    buf_ += ",\"collective\":";
    append_int(buf_, s.collective);
  }
  complete_tail(s.name, exact_dur, s.start_seconds, s.end_seconds);
}

// A host slice: a span's shape, category "host", on the device's host
// thread; its index, task and name id in args as a span's.
void ChromeWriter::host(std::uint32_t i) {
  const HostSpan& h = t_.host[i];
  const bool exact_dur = complete_head(h.name, "host", h.device, host_tid(h.device),
                                       h.start_seconds, h.end_seconds, i, h.task);
  complete_tail(h.name, exact_dur, h.start_seconds, h.end_seconds);
}

// `{"ph":PH,"name":NAME,"cat":CAT,"id":ID,"pid":PID,"tid":TID,"ts":TIME`,
// the part the async and flow events share; the caller closes it.
void ChromeWriter::id_event_head(const char* ph_name_cat, std::int64_t id, std::int64_t pid,
                                 std::int64_t tid, double time) {
  begin_event();
  buf_ += ph_name_cat;
  buf_ += ",\"id\":";
  append_int(buf_, id);
  buf_ += ",\"pid\":";
  append_int(buf_, pid);
  buf_ += ",\"tid\":";
  append_int(buf_, tid);
  buf_ += ",\"ts\":";
  append_us(buf_, time);
}

void ChromeWriter::transfer_event(std::uint32_t i, bool begin) {
  const TraceTransfer& x = t_.transfers[i];
  std::string& head = head_;
  head = begin ? "{\"ph\":\"b\",\"name\":" : "{\"ph\":\"e\",\"name\":";
  head += lane_name(x.lane);
  head += ",\"cat\":\"transfer\"";
  id_event_head(head.c_str(), i, devices_, x.lane >= 0 ? x.lane : -1,
                begin ? x.start_seconds : x.end_seconds);
  if (!begin) {
    buf_ += "}";
    return;
  }
  buf_ += ",\"args\":{\"task\":";
  append_int(buf_, x.task);
  buf_ += ",\"src\":";
  append_int(buf_, x.src);
  buf_ += ",\"dst\":";
  append_int(buf_, x.dst);
  buf_ += ",\"bytes\":";
  append_double(buf_, x.bytes);
  buf_ += "}}";
}

// Flow ids follow the transfers' ids (async and flow ids are distinct).
void ChromeWriter::arrow_event(std::uint32_t a, bool start) {
  const Arrow& w = arrows_[a];
  const TraceSpan& s = t_.spans[start ? w.send_span : w.recv_span];
  id_event_head(start ? "{\"ph\":\"s\",\"name\":\"transfer\",\"cat\":\"flow\""
                      : "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"transfer\",\"cat\":\"flow\"",
                static_cast<std::int64_t>(t_.transfers.size()) + a, s.device, s.stream,
                start ? w.send_time : s.start_seconds);
  buf_ += "}";
}

// A host arrow starts in the middle of its slice (a flow binds to the slice
// enclosing its time) and ends at the span's start; its ids follow the
// transfer arrows'.
void ChromeWriter::host_arrow_event(std::uint32_t a, bool start) {
  const auto [h, s] = host_arrows_[a];
  const HostSpan& x = t_.host[h];
  const TraceSpan& sp = t_.spans[s];
  const std::int64_t id = static_cast<std::int64_t>(t_.transfers.size() + arrows_.size()) +
                          static_cast<std::int64_t>(a);
  if (start)
    id_event_head("{\"ph\":\"s\",\"name\":\"issue\",\"cat\":\"host\"", id, x.device,
                  host_tid(x.device), 0.5 * (x.start_seconds + x.end_seconds));
  else
    id_event_head("{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"issue\",\"cat\":\"host\"", id, sp.device,
                  sp.stream, sp.start_seconds);
  buf_ += "}";
}

void ChromeWriter::memory(std::uint32_t i) {
  const MemorySample& m = t_.memory[i];
  begin_event();
  buf_ += "{\"ph\":\"C\",\"name\":\"memory:";
  buf_ += memory_category_name(m.category);
  buf_ += "\",\"pid\":";
  append_int(buf_, m.device);
  buf_ += ",\"tid\":0,\"ts\":";
  append_us(buf_, m.time_seconds);
  buf_ += ",\"args\":{\"bytes\":";
  append_double(buf_, m.bytes);
  buf_ += "}";
  // Counters' args are plotted: the index, where the order needs it, goes
  // beside them.
  if (!memory_in_order_) {
    buf_ += ",\"exact\":{\"i\":";
    append_int(buf_, i);
    buf_ += "}";
  }
  buf_ += "}";
}

Status ChromeWriter::write() {
  if (t_.spans.size() >= UINT32_MAX || t_.transfers.size() >= UINT32_MAX / 2 ||
      t_.memory.size() >= UINT32_MAX || t_.host.size() >= UINT32_MAX)
    return Status::error(
        "the trace has more than 2^31 events of a kind; expected fewer (filter it: "
        "--trace-devices, --trace-window)",
        ErrorKind::kUnsupported);
  header();
  metadata();
  arrows();

  // The nine kinds of events, each sorted by (time, index); at equal times
  // they come in this order, so that lanes and threads nest: memory samples,
  // transfer ends, spans, transfer begins, arrow starts, arrow ends, host
  // slices (on threads of their own: nothing nests in them), host arrow
  // starts and ends (after the slices and spans they bind to).
  constexpr int kKinds = 9;
  std::vector<Key> lists[kKinds];
  lists[0].reserve(t_.memory.size());
  for (size_t i = 0; i < t_.memory.size(); ++i)
    lists[0].push_back(Key{t_.memory[i].time_seconds, static_cast<std::uint32_t>(i)});
  for (size_t i = 1; i < t_.memory.size() && memory_in_order_; ++i)
    memory_in_order_ = t_.memory[i - 1].time_seconds <= t_.memory[i].time_seconds;
  lists[1].reserve(t_.transfers.size());
  for (size_t i = 0; i < t_.transfers.size(); ++i)
    lists[1].push_back(Key{t_.transfers[i].end_seconds, static_cast<std::uint32_t>(i)});
  lists[2].reserve(t_.spans.size());
  for (size_t i = 0; i < t_.spans.size(); ++i)
    lists[2].push_back(Key{t_.spans[i].start_seconds, static_cast<std::uint32_t>(i)});
  lists[3].reserve(t_.transfers.size());
  for (size_t i = 0; i < t_.transfers.size(); ++i)
    lists[3].push_back(Key{t_.transfers[i].start_seconds, static_cast<std::uint32_t>(i)});
  lists[4].reserve(arrows_.size());
  lists[5].reserve(arrows_.size());
  for (size_t a = 0; a < arrows_.size(); ++a) {
    lists[4].push_back(Key{arrows_[a].send_time, static_cast<std::uint32_t>(a)});
    lists[5].push_back(
        Key{t_.spans[arrows_[a].recv_span].start_seconds, static_cast<std::uint32_t>(a)});
  }
  lists[6].reserve(t_.host.size());
  for (size_t i = 0; i < t_.host.size(); ++i)
    lists[6].push_back(Key{t_.host[i].start_seconds, static_cast<std::uint32_t>(i)});
  lists[7].reserve(host_arrows_.size());
  lists[8].reserve(host_arrows_.size());
  for (size_t a = 0; a < host_arrows_.size(); ++a) {
    const HostSpan& x = t_.host[host_arrows_[a].first];
    lists[7].push_back(Key{0.5 * (x.start_seconds + x.end_seconds), static_cast<std::uint32_t>(a)});
    lists[8].push_back(
        Key{t_.spans[host_arrows_[a].second].start_seconds, static_cast<std::uint32_t>(a)});
  }
  for (auto& l : lists) sort_keys(l);

  size_t head[kKinds] = {};
  for (;;) {
    int best = -1;
    double best_time = 0;
    for (int k = 0; k < kKinds; ++k) {
      if (head[k] >= lists[k].size()) continue;
      const double time = lists[k][head[k]].time;
      if (best < 0 || time < best_time) {
        best = k;
        best_time = time;
      }
    }
    if (best < 0) break;
    const std::uint32_t i = lists[best][head[best]++].index;
    switch (best) {
      case 0:
        memory(i);
        break;
      case 1:
        transfer_event(i, /*begin=*/false);
        break;
      case 2:
        span(i);
        break;
      case 3:
        transfer_event(i, /*begin=*/true);
        break;
      case 4:
        arrow_event(i, /*start=*/true);
        break;
      case 5:
        arrow_event(i, /*start=*/false);
        break;
      case 6:
        host(i);
        break;
      case 7:
        host_arrow_event(i, /*start=*/true);
        break;
      default:
        host_arrow_event(i, /*start=*/false);
        break;
    }
    flush();
    if (!os_) break;
  }
  buf_ += "\n]}\n";
  flush(true);
  if (!os_) return Status::error("could not write the trace", ErrorKind::kRuntime);
  return Status::ok();
}

}  // namespace

Status write_chrome_trace(const Trace& trace, std::ostream& out) {
  return ChromeWriter(trace, out).write();
}

}  // namespace brigade
