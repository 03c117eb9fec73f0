// A node's summary for the topology view's aggregated picture (a cluster
// of many nodes drawn as boxes): its devices' mean compute occupancy, the
// collective most of its devices are in at the time (named once on the
// node rather than on each of its devices), and how busy its links out
// are. No Qt.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "core/trace.hpp"
#include "gui/model/topology_usage.hpp"

namespace brigade::gui {

struct NodeSummary {
  int node = 0;
  int devices = 0;
  double occupancy = 0;  // mean over its devices, in [0, 1]
  // The collective span (a span index) that the most devices of the node
  // are in, by name; -1 if none. `in_collective`: how many devices are in
  // that one; `name` its name.
  std::int32_t collective_span = -1;
  int in_collective = 0;
  std::string collective_name;
  // Its links to vertices outside the node (a fabric's NICs): bytes over
  // (summed capacity x time), the busier direction of each link.
  double uplink_utilisation = 0;
};

// One summary per node (by node index) over bins [b0, b1] of `usage`.
// `collective_at(device)` gives the collective span a device is in at the
// time (-1: none); its name is read from `trace`.
std::vector<NodeSummary> node_summaries(const Topology& topology, const TopologyUsage& usage,
                                        int b0, int b1,
                                        const std::function<std::int32_t(int)>& collective_at,
                                        const Trace& trace);

}  // namespace brigade::gui
