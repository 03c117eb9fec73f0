#include "gui/model/topology_layout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace brigade::gui {

namespace {

// Columns of a grid of `n` cells in an area of width/height `aspect`, cells
// about square.
int grid_columns(int n, double aspect) {
  if (n <= 1) return 1;
  const int c = std::clamp(static_cast<int>(std::ceil(std::sqrt(n * aspect))), 1, n);
  // A nearby column count (within 2x) that fills every row beats a ragged
  // last row (8 devices as 4 x 2, not 5 + 3): the divisor of n closest to
  // c in ratio.
  if (n % c == 0) return c;
  int best = c;
  double best_off = std::log(2.0) + 1e-9;
  for (int d = std::max(1, c / 2); d <= std::min(n, 2 * c); ++d) {
    const double off = std::abs(std::log(static_cast<double>(d) / c));
    if (n % d == 0 && off < best_off) best = d, best_off = off;
  }
  return best;
}

}  // namespace

TopologyLayout layout_topology(const Topology& t, double aspect, int aggregate_above,
                               int focus_node) {
  TopologyLayout out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.vertex.assign(static_cast<size_t>(t.num_vertices()), Point2{nan, nan});
  const int nodes = std::max(1, t.num_nodes());
  const bool focus = focus_node >= 0 && focus_node < nodes;
  out.aggregated = !focus && nodes > aggregate_above;
  // The boxes drawn: every node, or the focused one.
  const int boxes = focus ? 1 : nodes;
  auto box_of = [&](int node) { return focus ? (node == focus_node ? 0 : -1) : node; };
  bool fabric = false;
  for (const Switch& s : t.switches()) fabric |= s.node < 0;

  // Node grid below the fabric band.
  const double top = fabric ? 0.16 : 0.02;
  const int cols = grid_columns(boxes, aspect * (1 - top) / 0.98);
  const int rows = (boxes + cols - 1) / cols;
  const double cw = 0.98 / cols, ch = (0.98 - top) / rows;
  const double pad = focus ? 0.02 : 0.08;
  for (int n = 0; n < boxes; ++n) {
    const int r = n / cols, c = n % cols;
    NodeBox b;
    b.node = focus ? focus_node : n;
    b.x0 = 0.01 + c * cw + pad * cw / 2;
    b.x1 = 0.01 + (c + 1) * cw - pad * cw / 2;
    b.y0 = top + r * ch + pad * ch / 2;
    b.y1 = top + (r + 1) * ch - pad * ch / 2;
    out.nodes.push_back(b);
  }

  // Devices in a grid inside their node, below a strip for the node's name;
  // the bottom of the box is for the node's switches when it has any.
  std::map<int, std::vector<int>> devices_of;
  std::map<int, std::vector<int>> switches_of;
  for (const Device& d : t.devices()) devices_of[std::clamp(d.node, 0, nodes - 1)].push_back(d.id);
  for (size_t s = 0; s < t.switches().size(); ++s) {
    const int node = t.switches()[s].node;
    switches_of[node].push_back(t.num_devices() + static_cast<int>(s));
  }
  double size = 1;
  for (const auto& [n, devs] : devices_of) {
    if (box_of(n) < 0) continue;
    const NodeBox& b = out.nodes[static_cast<size_t>(box_of(n))];
    const bool has_switch = switches_of.count(n) > 0;
    const double w = b.x1 - b.x0;
    const double label = (b.y1 - b.y0) * 0.2;
    const double h = (b.y1 - b.y0) * (has_switch ? 0.72 : 1.0) - label;
    const int dc = grid_columns(static_cast<int>(devs.size()), w / h * aspect);
    const int dr = (static_cast<int>(devs.size()) + dc - 1) / dc;
    for (size_t i = 0; i < devs.size(); ++i) {
      const int r = static_cast<int>(i) / dc, c = static_cast<int>(i) % dc;
      out.vertex[static_cast<size_t>(devs[i])] = {b.x0 + (c + 0.5) * w / dc,
                                                  b.y0 + label + (r + 0.5) * h / dr};
    }
    size = std::min(size, std::min(w / dc * 0.55, h / dr * 0.55 * aspect));
  }
  out.device_size = size;
  for (const auto& [n, sws] : switches_of) {
    const int k = static_cast<int>(sws.size());
    for (int i = 0; i < k; ++i) {
      if (n < 0) {  // a fabric: spread over the band at the top
        out.vertex[static_cast<size_t>(sws[static_cast<size_t>(i)])] = {(i + 0.5) / k, top / 2};
      } else {
        if (box_of(std::min(n, nodes - 1)) < 0) continue;
        const NodeBox& b = out.nodes[static_cast<size_t>(box_of(std::min(n, nodes - 1)))];
        out.vertex[static_cast<size_t>(sws[static_cast<size_t>(i)])] = {
            b.x0 + (i + 0.5) * (b.x1 - b.x0) / k, b.y0 + (b.y1 - b.y0) * 0.86};
      }
    }
  }
  return out;
}

}  // namespace brigade::gui
