// The timeline's rows: node > device > stream (one row per nesting depth of
// a stream), collapsible at node and device level, as Perfetto's process
// and thread tracks. A collapsed node or device row draws all the tracks
// beneath it merged into one row. A device whose trace has a host lane
// (Trace::host) has a host row first, above its streams; a collapsed
// device does not merge it (its occupancy is the device's, not the host's).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "core/trace.hpp"
#include "gui/model/model_tr.hpp"
#include "gui/model/trace_index.hpp"

namespace brigade::gui {

enum class RowKind : std::uint8_t { kNode, kDevice, kStream, kHost };

struct LaneRow {
  RowKind kind = RowKind::kStream;
  std::int32_t node = 0;
  std::int32_t device = -1;  // kDevice, kStream, kHost
  std::int32_t stream = -1;  // kStream
  std::int32_t depths = 1;   // kStream: tracks (nesting depths) it shows
  std::int32_t indent = 0;   // 0 node, 1 device, 2 stream or host (node rows absent with one node)
  bool collapsed = false;    // kNode, kDevice
  std::string label;
  // Layout of the visible rows (valid when `visible`).
  bool visible = true;
  double y = 0;
  double height = 0;
};

struct LaneMetrics {
  double header_height = 16;  // an expanded node or device row
  double track_height = 18;   // one depth of a stream; a collapsed row
  double gap = 1;
};

class LaneLayout {
 public:
  // Rows for every device of `trace` with spans or host slices, grouped by
  // node: the topology's node when it has the trace's devices, else the
  // "nodeN/" prefix of the device's name, else node 0. Node rows only when
  // there is more than one node. Streams without spans are left out; a
  // device with host slices gets its host row.
  void build(const Trace& trace, const TraceIndex& index, const Topology* topology,
             LaneMetrics metrics = {});

  // The default for a large trace: with more than `max_rows` stream rows,
  // every node but the first collapsed (and, over 8 devices a node, every
  // device of it too).
  void collapse_for_overview(int max_rows = 48);

  // The rows' labels composed again in the current language (model_tr:
  // "node 3", a device or stream without a name), for a view on
  // QEvent::LanguageChange; `trace` is the one built from.
  void relabel(const Trace& trace);

  std::span<const LaneRow> rows() const { return rows_; }
  const LaneRow& row(int r) const { return rows_[static_cast<size_t>(r)]; }
  int num_rows() const { return static_cast<int>(rows_.size()); }
  void set_collapsed(int r, bool collapsed);
  void toggle(int r) { set_collapsed(r, !rows_[static_cast<size_t>(r)].collapsed); }
  void set_all_collapsed(RowKind kind, bool collapsed);

  // Taller tracks when the visible rows would leave a view `available`
  // pixels high partly empty (four devices in a 900-pixel window filled a
  // third of it): every track (one depth of a stream, a collapsed row) grows
  // by one factor, at most `max_scale`, so that the rows fill the view;
  // headers and gaps keep their height. Kept across collapsing and
  // expanding; 0 (the default) keeps the metrics' height.
  void fit_to_height(double available, double max_scale = 2.5);
  // The height of one track now: the metrics' or the fitted one.
  double track_height() const { return track_h_; }

  double total_height() const { return total_height_; }
  // The visible row at `y` (top of the rows is 0), -1 if none.
  int row_at(double y) const;
  // The visible rows overlapping [y0, y1], in order.
  std::vector<int> rows_in(double y0, double y1) const;
  // The visible row that shows `stream`: its own, or the collapsed device or
  // node row holding it; -1 if the stream has no row.
  int row_showing_stream(int stream) const;
  // Rows of the tracks drawn in a visible row: its stream's tracks, or all
  // of its collapsed device's or node's.
  std::vector<int> streams_of_row(int r) const;
  // Expands the node and device around a stream, so that its row shows.
  void reveal_stream(int stream);
  // Expands a device (and its node), so that its streams show; returns its
  // device row, -1 if the device has none.
  int reveal_device(int device);

 private:
  void relayout();
  LaneMetrics m_;
  std::vector<LaneRow> rows_;
  std::vector<std::int32_t> stream_row_;  // stream -> its kStream row, -1 if none
  std::vector<std::int32_t> visible_;     // visible rows, in order
  double total_height_ = 0;
  double available_ = 0, max_scale_ = 1;
  double track_h_ = LaneMetrics{}.track_height;
};

// A device's node: the topology's when it covers the device, else the number
// in a "node12/..." name prefix, else 0.
int node_of_device(const Trace& trace, int device, const Topology* topology);

}  // namespace brigade::gui
