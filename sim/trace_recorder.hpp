// Internal to sim/: what the engine puts into SimResult::trace, with the
// trace filter (core/trace_filter.hpp) applied as it records, so that a
// filtered trace of a large run costs memory in proportion to what it keeps.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/program.hpp"
#include "core/topology.hpp"
#include "core/trace.hpp"
#include "core/trace_filter.hpp"

namespace brigade::sim {

class TraceRecorder {
 public:
  enum class Mode {
    kOff,
    kFull,           // spans, transfers, memory samples and the tables naming them
    kTransfersOnly,  // transfers alone (the shortcut's isolated runs): no tables, no filter
  };

  // Sets the tables (device, stream, lane and task names) up; `source` is
  // "sim:flow" or "sim:ideal".
  // `merge_steps`: a message that starts as the previous one of the same
  // task between the same devices ends extends it (SimOptions::trace_steps).
  void start(Mode mode, const Program& program, const Topology& topology, std::string source,
             const TraceFilter& filter, bool merge_steps);
  bool on() const { return mode_ != Mode::kOff; }
  bool full() const { return mode_ == Mode::kFull; }
  // Room for what the run will record, before any filter (exact counts
  // where the engine knows them: one span per task).
  void reserve(std::size_t spans, std::size_t transfers);

  bool keeps_device(std::int32_t d) const {
    return all_devices_ || (d >= 0 && static_cast<std::size_t>(d) < keep_.size() &&
                            keep_[static_cast<std::size_t>(d)]);
  }
  bool keeps_time(double start, double end) const { return end >= lo_ && start <= hi_; }

  void span(TaskId task, const Task& x, double start_seconds, double end_seconds) {
    if (mode_ != Mode::kFull || !keeps_device(x.device) || !keeps_time(start_seconds, end_seconds))
      return;
    TraceSpan s;
    s.task = task;
    s.device = x.device;
    s.stream = x.stream;
    s.start_seconds = start_seconds;
    s.end_seconds = end_seconds;
    s.name = x.name;
    s.kind = x.kind;
    s.phase = x.phase;
    s.collective = x.collective;
    trace_.spans.push_back(s);
  }
  // The host lane: the host of `x`'s device issued `task` over [start, end].
  void host(TaskId task, const Task& x, double start_seconds, double end_seconds) {
    if (mode_ != Mode::kFull || !keeps_device(x.device) || !keeps_time(start_seconds, end_seconds))
      return;
    trace_.host.push_back(HostSpan{task, x.device, start_seconds, end_seconds, x.name});
  }
  // `lane`: the first channel of the message's route; a channel past the
  // topology's (a pair's reduction channel) is no lane (-1).
  void transfer(TaskId task, std::int32_t src, std::int32_t dst, double bytes, double start_seconds,
                double end_seconds, ChannelId lane) {
    if (!on() || !(keeps_device(src) || keeps_device(dst)) ||
        !keeps_time(start_seconds, end_seconds))
      return;
    if (lane < 0 || lane >= channels_) lane = -1;
    if (merge_ && merge(task, src, dst, bytes, start_seconds, end_seconds, lane)) return;
    trace_.transfers.push_back(
        TraceTransfer{task, src, dst, bytes, start_seconds, end_seconds, lane});
  }
  // A shortcut collective's message, replayed from its memoised run: as
  // transfer(), without merging (the run merged its own messages, and no
  // other message has the task).
  void replayed_transfer(TaskId task, std::int32_t src, std::int32_t dst, double bytes,
                         double start_seconds, double end_seconds, ChannelId lane) {
    if (!(keeps_device(src) || keeps_device(dst)) || !keeps_time(start_seconds, end_seconds))
      return;
    trace_.transfers.push_back(TraceTransfer{task, src, dst, bytes, start_seconds, end_seconds,
                                             lane >= 0 && lane < channels_ ? lane : -1});
  }
  // The live bytes of (device, category) from `now` on: one sample per
  // series and instant; before the window only each series' latest.
  void memory(std::int32_t device, MemoryCategory category, double now, double bytes);

  Trace take() {
    last_of_.clear();
    return std::move(trace_);
  }

 private:
  bool merge(TaskId task, std::int32_t src, std::int32_t dst, double bytes, double start_seconds,
             double end_seconds, ChannelId lane);

  Mode mode_ = Mode::kOff;
  bool all_devices_ = true;
  std::vector<std::uint8_t> keep_;  // by device, when !all_devices_
  double lo_ = 0, hi_ = 0;          // the window
  ChannelId channels_ = 0;          // the topology's channels (lanes)
  bool merge_ = false;
  std::unordered_map<std::uint64_t, std::uint32_t>
      last_of_;                            // (task, dst) -> its last transfer, when merging
  std::vector<std::int32_t> last_sample_;  // device * categories + category -> Trace::memory index
  Trace trace_;
};

}  // namespace brigade::sim
