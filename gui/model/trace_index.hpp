// The timeline's index of a Trace, built once per trace (on the loading
// thread) and queried per frame in O(visible):
//   - tracks: the spans of one stream at one nesting depth, sorted by start
//     (a foreign trace's nested or overlapping spans go one depth down, as
//     Perfetto draws slices; the simulator's streams have depth 1);
//   - level of detail: per track, precomputed levels at resolutions growing
//     by 4x, where runs of spans shorter than the resolution (with gaps
//     shorter than it) are merged into one item; a query at resolution r
//     reads the coarsest level finer than r and merges the rest on the fly,
//     so it touches at most about 4 items per pixel however many spans the
//     track holds (docs/ARCHITECTURE.md, "Level of detail");
//   - each span's colour class, the transfers by start, task -> span.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/program.hpp"
#include "core/trace.hpp"
#include "gui/model/palette.hpp"

namespace brigade::gui {

struct Track {
  std::int32_t stream = 0;
  std::int32_t depth = 0;
};

// One drawable item: a span (count 1) or a run of spans merged below the
// resolution. `rep` is the longest member span (its colour and name stand
// for the run); busy_seconds / (end - start) is how full the run is.
struct LodItem {
  double start_seconds = 0;
  double end_seconds = 0;
  double busy_seconds = 0;
  std::int32_t rep = -1;
  std::int32_t count = 0;
};

class TraceIndex {
 public:
  TraceIndex() = default;
  TraceIndex(const TraceIndex&) = delete;
  TraceIndex& operator=(const TraceIndex&) = delete;
  TraceIndex(TraceIndex&&) noexcept;
  TraceIndex& operator=(TraceIndex&&) noexcept;
  ~TraceIndex();

  // O(N log N) in spans, plus O(N) per level that still merges something.
  // `program` (may be null) names collective kinds for the colours.
  static TraceIndex build(const Trace& trace, const Program* program);

  int num_tracks() const { return static_cast<int>(tracks_.size()); }
  const Track& track(int t) const { return tracks_[static_cast<size_t>(t)]; }
  // The tracks of a stream, by depth (empty when the stream has no spans).
  std::span<const std::int32_t> tracks_of_stream(int stream) const;
  // Spans of a track, by start.
  std::span<const std::int32_t> track_spans(int t) const;

  SpanClass span_class(int span) const { return classes_[static_cast<size_t>(span)]; }
  // The nesting depth of a span within its stream (its track's depth).
  int depth_of_span(int span) const { return depths_[static_cast<size_t>(span)]; }
  ClassSet classes_present() const { return classes_present_; }
  double start_seconds() const { return start_; }
  double end_seconds() const { return end_; }
  std::int64_t num_spans() const { return static_cast<std::int64_t>(classes_.size()); }
  int levels() const { return static_cast<int>(level_width_.size()); }

  // Items of track `t` overlapping [t0, t1], merged so that runs of spans
  // shorter than `resolution_seconds` (with gaps shorter than it) come as
  // one item. Appends to `out` in time order.
  void query(int t, double t0, double t1, double resolution_seconds,
             std::vector<LodItem>& out) const;
  // Spans of track `t` overlapping [t0, t1], appended by start.
  void spans_in(int t, double t0, double t1, std::vector<std::int32_t>& out) const;
  // The span of track `t` under time `at` (or the nearest within
  // `tolerance_seconds`), -1 if none.
  std::int32_t span_at(int t, double at, double tolerance_seconds) const;

  // Transfers overlapping [t0, t1] (indices into Trace::transfers), by start.
  void transfers_in(double t0, double t1, std::vector<std::int32_t>& out) const;
  // The span of a Program task, -1 if the trace has none for it.
  std::int32_t span_of_task(TaskId task) const;

 private:
  struct Level;
  struct TrackData;
  std::vector<Track> tracks_;
  std::vector<std::int64_t> stream_track_offsets_;  // CSR: stream -> tracks
  std::vector<std::int32_t> stream_tracks_;
  std::vector<TrackData> data_;
  std::vector<double> level_width_;  // resolution of level k+1 (level 0 is the raw spans)
  std::vector<SpanClass> classes_;
  std::vector<std::uint16_t> depths_;
  ClassSet classes_present_ = 0;
  double start_ = 0, end_ = 0;
  std::vector<std::int32_t> transfers_by_start_;
  std::vector<double> transfer_max_end_;  // prefix maximum of end over transfers_by_start_
  std::vector<std::int32_t> task_span_;
  const Trace* trace_ = nullptr;  // spans' times; the Document keeps both alive together
};

}  // namespace brigade::gui
