// The timeline's host lane (Trace::host; docs/simulator.md, "The host
// lane"): each device's host issuing its tasks, a row above the device's
// streams. Its slices are indexed as the streams' spans are (TraceIndex:
// tracks by start, levels of detail), over a Trace of their own whose
// spans are the host slices in Trace::host's order, one stream a device,
// so that a frame touches O(visible) slices however many the step issued.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/trace.hpp"
#include "gui/model/trace_index.hpp"

namespace brigade::gui {

class HostLane {
 public:
  // Null when `trace` has no host slices. `trace` must outlive the lane and
  // stay where it is (the Document keeps both).
  static std::unique_ptr<HostLane> build(const Trace& trace);

  // The track of device `d`'s host slices, -1 if it has none.
  int track_of_device(int d) const;
  const TraceIndex& index() const { return *index_; }
  // Slice `i` (an index into Trace::host and into the index's spans).
  const HostSpan& slice(int i) const { return trace_->host[static_cast<size_t>(i)]; }
  int num_slices() const { return static_cast<int>(trace_->host.size()); }
  // The slice that issued Program task `task`, -1 if none.
  int slice_of_task(TaskId task) const {
    return task >= 0 && static_cast<size_t>(task) < task_slice_.size()
               ? task_slice_[static_cast<size_t>(task)]
               : -1;
  }
  // The slice of device `d`'s host under time `at` (or the nearest within
  // `tolerance_seconds`), -1 if none.
  int slice_at(int d, double at, double tolerance_seconds) const;

  // "gpu3's host issues fwd.qkv: 12.0 us, from 40.0 us to 52.0 us", and,
  // where `spans` (the trace's own index) has the task's span, when it
  // started: "; it started then, waiting for its host" where the issue held
  // it back, else "; it started at 80.0 us". In the app's language.
  std::string describe(int slice, const TraceIndex* spans = nullptr) const;

 private:
  HostLane() = default;
  const Trace* trace_ = nullptr;
  std::vector<std::int32_t> task_slice_;  // task -> its slice, -1 if none
  Trace lanes_;                           // spans: the host slices; stream d: device d's host
  std::unique_ptr<TraceIndex> index_;     // over lanes_
};

}  // namespace brigade::gui
