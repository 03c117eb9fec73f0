// Where the topology view draws each device and switch: a grid of node
// boxes (nodes side by side, as racks in a row), devices in a grid inside
// their node, a node's own switches along the bottom of its box, and
// switches that span nodes (a fabric) in a band above them all. Positions
// are in a unit square ([0, 1] x [0, 1], y down); the view scales them.
// A simple node-grid layout (the issue allows it in place of Boost.Graph's
// force-directed ones): racks read as racks, and the same topology always
// looks the same.
#pragma once

#include <vector>

#include "core/topology.hpp"

namespace brigade::gui {

struct Point2 {
  double x = 0, y = 0;
};

struct NodeBox {
  int node = 0;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct TopologyLayout {
  // By topology vertex id: devices, then switches. NaN for a vertex not
  // drawn (a focused layout draws one node and the fabric).
  std::vector<Point2> vertex;
  std::vector<NodeBox> nodes;  // by node index (the focused node alone when focused)
  double device_size = 0;      // side of a device's square, unit-square units
  // Many nodes: the view draws nodes as boxes with their devices inside and
  // bundles each node's links out of it into one (see topology_usage.hpp).
  bool aggregated = false;
};

// `aspect`: the drawing's width / height, so that node boxes come out
// about square on screen. Nodes beyond `aggregate_above` are aggregated.
// `focus_node` >= 0: that node alone, expanded to the whole grid area with
// every device and link drawn, and the fabric above it (the aggregated
// picture's click-to-expand); the other nodes' vertices are NaN.
TopologyLayout layout_topology(const Topology& t, double aspect = 16.0 / 9.0,
                               int aggregate_above = 16, int focus_node = -1);
// Whether a layout draws a vertex.
inline bool drawn(const TopologyLayout& l, int vertex) {
  const Point2& p = l.vertex[static_cast<size_t>(vertex)];
  return p.x == p.x && p.y == p.y;  // not NaN
}

}  // namespace brigade::gui
