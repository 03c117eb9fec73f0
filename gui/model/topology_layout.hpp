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
  std::vector<Point2> vertex;  // by topology vertex id: devices, then switches
  std::vector<NodeBox> nodes;  // by node index
  double device_size = 0;      // side of a device's square, unit-square units
  // Many nodes: the view draws nodes as boxes with their devices inside and
  // bundles each node's links out of it into one (see topology_usage.hpp).
  bool aggregated = false;
};

// `aspect`: the drawing's width / height, so that node boxes come out
// about square on screen. Nodes beyond `aggregate_above` are aggregated.
TopologyLayout layout_topology(const Topology& t, double aspect = 16.0 / 9.0,
                               int aggregate_above = 16);

}  // namespace brigade::gui
