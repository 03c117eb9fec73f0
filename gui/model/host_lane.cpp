#include "gui/model/host_lane.hpp"

#include <algorithm>

#include "core/units.hpp"
#include "gui/model/model_tr.hpp"

namespace brigade::gui {

std::unique_ptr<HostLane> HostLane::build(const Trace& trace) {
  if (trace.host.empty()) return nullptr;
  std::unique_ptr<HostLane> lane(new HostLane());
  lane->trace_ = &trace;
  // The index needs the slices and a stream a device; names are read from
  // `trace` where they are shown.
  Trace& t = lane->lanes_;
  int devices = static_cast<int>(trace.device_names.size());
  for (const HostSpan& h : trace.host) devices = std::max(devices, h.device + 1);
  t.streams.reserve(static_cast<size_t>(devices));
  for (int d = 0; d < devices; ++d) t.streams.push_back(Stream{d, "host"});
  t.spans.reserve(trace.host.size());
  TaskId max_task = -1;
  for (const HostSpan& h : trace.host) max_task = std::max(max_task, h.task);
  lane->task_slice_.assign(static_cast<size_t>(max_task + 1), -1);
  for (size_t i = 0; i < trace.host.size(); ++i)
    if (trace.host[i].task >= 0)
      lane->task_slice_[static_cast<size_t>(trace.host[i].task)] = static_cast<std::int32_t>(i);
  for (const HostSpan& h : trace.host) {
    TraceSpan s;
    s.task = h.task;
    s.device = h.device;
    s.stream = h.device;
    s.start_seconds = h.start_seconds;
    s.end_seconds = h.end_seconds;
    s.name = h.name;
    t.spans.push_back(s);
  }
  lane->index_ = std::make_unique<TraceIndex>(TraceIndex::build(t, nullptr));
  return lane;
}

int HostLane::track_of_device(int d) const {
  if (d < 0) return -1;
  const auto tracks = index_->tracks_of_stream(d);
  return tracks.empty() ? -1 : tracks.front();  // a host's slices never overlap: one depth
}

int HostLane::slice_at(int d, double at, double tolerance_seconds) const {
  const int t = track_of_device(d);
  return t < 0 ? -1 : index_->span_at(t, at, tolerance_seconds);
}

std::string HostLane::describe(int slice, const TraceIndex* spans) const {
  const HostSpan& h = this->slice(slice);
  const Trace& t = *trace_;
  const std::string device =
      h.device >= 0 && static_cast<size_t>(h.device) < t.device_names.size() &&
              !t.device_names[static_cast<size_t>(h.device)].empty()
          ? t.device_names[static_cast<size_t>(h.device)]
          : fill_args(model_tr("HostLane", "device %1"), {std::to_string(h.device)});
  const std::string task =
      h.name >= 0 && static_cast<size_t>(h.name) < t.names.size()
          ? t.names[static_cast<size_t>(h.name)]
          : fill_args(model_tr("HostLane", "task %1"), {std::to_string(h.task)});
  std::string text = fill_args(model_tr("HostLane", "%1's host issues %2: %3, from %4 to %5"),
                               {device, task, format_seconds(h.end_seconds - h.start_seconds),
                                format_seconds(h.start_seconds), format_seconds(h.end_seconds)});
  const std::int32_t span = spans ? spans->span_of_task(h.task) : -1;
  if (span >= 0) {
    const double start = t.spans[static_cast<size_t>(span)].start_seconds;
    // The simulator starts a task that waited for its host at its issue
    // time exactly (its release event).
    text += start <= h.end_seconds
                ? model_tr("HostLane", "; it started then, waiting for its host")
                : fill_args(model_tr("HostLane", "; it started at %1"), {format_seconds(start)});
  }
  return text;
}

}  // namespace brigade::gui
