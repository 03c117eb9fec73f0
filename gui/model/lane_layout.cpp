#include "gui/model/lane_layout.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include "gui/model/model_tr.hpp"

namespace brigade::gui {

int node_of_device(const Trace& trace, int device, const Topology* topology) {
  if (topology && device < topology->num_devices() &&
      topology->num_devices() == static_cast<int>(trace.device_names.size()))
    return topology->device(device).node;
  if (device >= 0 && static_cast<size_t>(device) < trace.device_names.size()) {
    const std::string& name = trace.device_names[static_cast<size_t>(device)];
    if (name.rfind("node", 0) == 0) {
      int v = 0;
      const char* b = name.data() + 4;
      const char* e = name.data() + name.size();
      auto [p, ec] = std::from_chars(b, e, v);
      if (ec == std::errc() && p != b && p < e && *p == '/') return v;
    }
  }
  return 0;
}

namespace {

// A row's label: the trace's name for a device or stream, else its number.
std::string row_label(const Trace& trace, const LaneRow& r) {
  switch (r.kind) {
    case RowKind::kNode:
      return fill_args(model_tr("LaneLayout", "node %1"), {std::to_string(r.node)});
    case RowKind::kDevice:
      if (r.device >= 0 && static_cast<size_t>(r.device) < trace.device_names.size() &&
          !trace.device_names[static_cast<size_t>(r.device)].empty())
        return trace.device_names[static_cast<size_t>(r.device)];
      return fill_args(model_tr("LaneLayout", "device %1"), {std::to_string(r.device)});
    case RowKind::kStream:
      if (r.stream >= 0 && static_cast<size_t>(r.stream) < trace.streams.size() &&
          !trace.streams[static_cast<size_t>(r.stream)].name.empty())
        return trace.streams[static_cast<size_t>(r.stream)].name;
      return fill_args(model_tr("LaneLayout", "stream %1"), {std::to_string(r.stream)});
    case RowKind::kHost:
      return model_tr("LaneLayout", "host");
  }
  return {};
}

}  // namespace

void LaneLayout::relabel(const Trace& trace) {
  for (LaneRow& r : rows_) r.label = row_label(trace, r);
}

void LaneLayout::build(const Trace& trace, const TraceIndex& index, const Topology* topology,
                       LaneMetrics metrics) {
  m_ = metrics;
  rows_.clear();
  const int nstreams = static_cast<int>(trace.streams.size());
  stream_row_.assign(static_cast<size_t>(std::max(nstreams, 0)), -1);
  // device -> its streams with spans, in stream order.
  std::map<int, std::map<int, std::vector<int>>> by_node;  // node -> device -> streams
  for (int s = 0; s < nstreams; ++s) {
    if (index.tracks_of_stream(s).empty()) continue;
    const int d = trace.streams[static_cast<size_t>(s)].device;
    by_node[node_of_device(trace, d, topology)][d].push_back(s);
  }
  std::vector<std::uint8_t> has_host;  // by device
  for (const HostSpan& h : trace.host) {
    if (h.device < 0) continue;
    if (static_cast<size_t>(h.device) >= has_host.size())
      has_host.resize(static_cast<size_t>(h.device) + 1, 0);
    if (has_host[static_cast<size_t>(h.device)]) continue;
    has_host[static_cast<size_t>(h.device)] = 1;
    by_node[node_of_device(trace, h.device, topology)][h.device];  // a device row, streams or not
  }
  const bool node_rows = by_node.size() > 1;
  for (const auto& [node, devices] : by_node) {
    if (node_rows) {
      LaneRow r;
      r.kind = RowKind::kNode;
      r.node = node;
      r.indent = 0;
      r.label = row_label(trace, r);
      rows_.push_back(r);
    }
    for (const auto& [device, streams] : devices) {
      LaneRow r;
      r.kind = RowKind::kDevice;
      r.node = node;
      r.device = device;
      r.indent = node_rows ? 1 : 0;
      r.label = row_label(trace, r);
      rows_.push_back(r);
      if (static_cast<size_t>(device) < has_host.size() && has_host[static_cast<size_t>(device)]) {
        LaneRow hr;
        hr.kind = RowKind::kHost;
        hr.node = node;
        hr.device = device;
        hr.indent = r.indent + 1;
        hr.label = row_label(trace, hr);
        rows_.push_back(hr);
      }
      for (int s : streams) {
        LaneRow sr;
        sr.kind = RowKind::kStream;
        sr.node = node;
        sr.device = device;
        sr.stream = s;
        sr.indent = r.indent + 1;
        sr.depths = static_cast<std::int32_t>(index.tracks_of_stream(s).size());
        sr.label = row_label(trace, sr);
        stream_row_[static_cast<size_t>(s)] = static_cast<std::int32_t>(rows_.size());
        rows_.push_back(sr);
      }
    }
  }
  relayout();
}

void LaneLayout::fit_to_height(double available, double max_scale) {
  available_ = std::max(0.0, available);
  max_scale_ = std::max(1.0, max_scale);
  relayout();
}

void LaneLayout::relayout() {
  visible_.clear();
  bool node_collapsed = false, device_collapsed = false;
  double tracks = 0, fixed = 0;  // of the visible rows
  for (size_t i = 0; i < rows_.size(); ++i) {
    LaneRow& r = rows_[i];
    switch (r.kind) {
      case RowKind::kNode:
        r.visible = true;
        node_collapsed = r.collapsed;
        device_collapsed = false;
        break;
      case RowKind::kDevice:
        r.visible = !node_collapsed;
        device_collapsed = r.collapsed;
        break;
      case RowKind::kStream:
      case RowKind::kHost:
        r.visible = !node_collapsed && !device_collapsed;
        break;
    }
    if (!r.visible) continue;
    visible_.push_back(static_cast<std::int32_t>(i));
    fixed += m_.gap;
    if (r.kind == RowKind::kStream || r.kind == RowKind::kHost)
      tracks += std::max(1, r.depths);
    else if (r.collapsed)
      tracks += 1;
    else
      fixed += m_.header_height;
  }
  track_h_ = m_.track_height;
  if (available_ > 0 && tracks > 0 && m_.track_height > 0)
    track_h_ = m_.track_height *
               std::clamp((available_ - fixed) / (tracks * m_.track_height), 1.0, max_scale_);
  double y = 0;
  for (std::int32_t i : visible_) {
    LaneRow& r = rows_[static_cast<size_t>(i)];
    r.y = y;
    if (r.kind == RowKind::kStream || r.kind == RowKind::kHost)
      r.height = track_h_ * std::max(1, r.depths);
    else
      r.height = r.collapsed ? track_h_ : m_.header_height;
    y += r.height + m_.gap;
  }
  total_height_ = y;
}

void LaneLayout::collapse_for_overview(int max_rows) {
  int streams = 0, max_devices_per_node = 0, devices = 0;
  for (const LaneRow& r : rows_) {
    if (r.kind == RowKind::kStream || r.kind == RowKind::kHost) ++streams;
    if (r.kind == RowKind::kNode) devices = 0;
    if (r.kind == RowKind::kDevice)
      max_devices_per_node = std::max(max_devices_per_node, ++devices);
  }
  if (streams <= max_rows) return;
  bool first_node = true;
  for (LaneRow& r : rows_) {
    if (r.kind == RowKind::kNode) {
      r.collapsed = !first_node;
      first_node = false;
    }
    if (r.kind == RowKind::kDevice && max_devices_per_node > 8) r.collapsed = true;
  }
  relayout();
}

void LaneLayout::set_collapsed(int r, bool collapsed) {
  if (r < 0 || r >= num_rows()) return;
  LaneRow& row = rows_[static_cast<size_t>(r)];
  if (row.kind == RowKind::kStream || row.kind == RowKind::kHost) return;
  row.collapsed = collapsed;
  relayout();
}

void LaneLayout::set_all_collapsed(RowKind kind, bool collapsed) {
  for (LaneRow& r : rows_)
    if (r.kind == kind) r.collapsed = collapsed;
  relayout();
}

int LaneLayout::row_at(double y) const {
  auto it = std::upper_bound(visible_.begin(), visible_.end(), y, [&](double v, std::int32_t r) {
    return v < rows_[static_cast<size_t>(r)].y;
  });
  if (it == visible_.begin()) return -1;
  const LaneRow& r = rows_[static_cast<size_t>(*(it - 1))];
  return y < r.y + r.height ? *(it - 1) : -1;
}

std::vector<int> LaneLayout::rows_in(double y0, double y1) const {
  std::vector<int> out;
  auto it = std::upper_bound(visible_.begin(), visible_.end(), y0, [&](double v, std::int32_t r) {
    return v < rows_[static_cast<size_t>(r)].y;
  });
  if (it != visible_.begin()) --it;
  for (; it != visible_.end(); ++it) {
    const LaneRow& r = rows_[static_cast<size_t>(*it)];
    if (r.y > y1) break;
    if (r.y + r.height >= y0) out.push_back(*it);
  }
  return out;
}

int LaneLayout::row_showing_stream(int stream) const {
  if (stream < 0 || static_cast<size_t>(stream) >= stream_row_.size()) return -1;
  int r = stream_row_[static_cast<size_t>(stream)];
  if (r < 0) return -1;
  // Walk up to the first visible ancestor: the device row, then the node row.
  while (r >= 0 && !rows_[static_cast<size_t>(r)].visible) {
    const RowKind k = rows_[static_cast<size_t>(r)].kind;
    const RowKind parent = k == RowKind::kStream ? RowKind::kDevice : RowKind::kNode;
    int p = r - 1;
    while (p >= 0 && rows_[static_cast<size_t>(p)].kind != parent) --p;
    r = p;
  }
  return r;
}

std::vector<int> LaneLayout::streams_of_row(int r) const {
  std::vector<int> out;
  if (r < 0 || r >= num_rows()) return out;
  const LaneRow& row = rows_[static_cast<size_t>(r)];
  if (row.kind == RowKind::kStream) {
    out.push_back(row.stream);
    return out;
  }
  if (!row.collapsed) return out;
  for (size_t i = static_cast<size_t>(r) + 1; i < rows_.size(); ++i) {
    const LaneRow& c = rows_[i];
    if (c.kind == RowKind::kNode) break;
    if (row.kind == RowKind::kDevice && c.kind == RowKind::kDevice) break;
    if (c.kind == RowKind::kStream) out.push_back(c.stream);
  }
  return out;
}

void LaneLayout::reveal_stream(int stream) {
  if (stream < 0 || static_cast<size_t>(stream) >= stream_row_.size()) return;
  const int sr = stream_row_[static_cast<size_t>(stream)];
  if (sr < 0) return;
  for (int p = sr - 1; p >= 0; --p) {
    LaneRow& r = rows_[static_cast<size_t>(p)];
    if (r.kind == RowKind::kDevice && r.device == rows_[static_cast<size_t>(sr)].device)
      r.collapsed = false;
    if (r.kind == RowKind::kNode) {
      r.collapsed = false;
      break;
    }
  }
  relayout();
}

int LaneLayout::reveal_device(int device) {
  for (size_t r = 0; r < rows_.size(); ++r) {
    if (rows_[r].kind != RowKind::kDevice || rows_[r].device != device) continue;
    rows_[r].collapsed = false;
    for (size_t p = r; p-- > 0;)
      if (rows_[p].kind == RowKind::kNode) {
        rows_[p].collapsed = false;
        break;
      }
    relayout();
    return static_cast<int>(r);
  }
  return -1;
}

}  // namespace brigade::gui
