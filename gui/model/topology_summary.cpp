#include "gui/model/topology_summary.hpp"

#include <algorithm>
#include <map>

#include "gui/model/model_tr.hpp"

namespace brigade::gui {

std::vector<NodeSummary> node_summaries(const Topology& topology, const TopologyUsage& usage,
                                        int b0, int b1,
                                        const std::function<std::int32_t(int)>& collective_at,
                                        const Trace& trace) {
  const int nodes = std::max(1, topology.num_nodes());
  std::vector<NodeSummary> out(static_cast<size_t>(nodes));
  for (int n = 0; n < nodes; ++n) out[static_cast<size_t>(n)].node = n;
  auto node_of = [&](const Device& d) { return std::clamp(d.node, 0, nodes - 1); };
  // Devices: occupancy, and the collectives they are in, counted by name.
  std::vector<std::map<std::string, std::pair<int, std::int32_t>>> by_name(
      static_cast<size_t>(nodes));
  for (const Device& d : topology.devices()) {
    NodeSummary& s = out[static_cast<size_t>(node_of(d))];
    ++s.devices;
    s.occupancy += usage.device_occupancy(d.id, b0, b1);
    const std::int32_t span = collective_at ? collective_at(d.id) : -1;
    if (span < 0 || static_cast<size_t>(span) >= trace.spans.size()) continue;
    const NameId name = trace.spans[static_cast<size_t>(span)].name;
    const std::string n = name >= 0 && static_cast<size_t>(name) < trace.names.size()
                              ? trace.names[static_cast<size_t>(name)]
                              : model_word("collective");
    auto& [count, first] = by_name[static_cast<size_t>(node_of(d))][n];
    if (count++ == 0) first = span;
  }
  for (int n = 0; n < nodes; ++n) {
    NodeSummary& s = out[static_cast<size_t>(n)];
    if (s.devices > 0) s.occupancy /= s.devices;
    for (const auto& [name, v] : by_name[static_cast<size_t>(n)])
      if (v.first > s.in_collective) {  // the most devices; the first name among equals
        s.in_collective = v.first;
        s.collective_span = v.second;
        s.collective_name = name;
      }
  }
  // Links out of a node: one end in it, the other a vertex of another node
  // or of none (a fabric switch).
  auto vertex_node = [&](int v) {
    return v < topology.num_devices()
               ? node_of(topology.device(v))
               : topology.switches()[static_cast<size_t>(v - topology.num_devices())].node;
  };
  std::vector<double> bytes(static_cast<size_t>(nodes), 0.0),
      capacity(static_cast<size_t>(nodes), 0.0);
  const double time = (std::min(b1, usage.bins() - 1) - std::max(0, b0) + 1) * usage.bin_seconds();
  for (size_t l = 0; l < topology.links().size(); ++l) {
    const Link& k = topology.links()[l];
    const int na = vertex_node(k.a), nb = vertex_node(k.b);
    if (na == nb) continue;
    const ChannelId c0 = channel_of(static_cast<int>(l), false);
    const double b = std::max(usage.channel_bytes(c0, b0, b1), usage.channel_bytes(c0 + 1, b0, b1));
    for (int n : {na, nb}) {
      if (n < 0 || n >= nodes) continue;
      bytes[static_cast<size_t>(n)] += b;
      capacity[static_cast<size_t>(n)] += usage.channel_capacity_bytes_per_second(c0);
    }
  }
  for (int n = 0; n < nodes; ++n)
    if (capacity[static_cast<size_t>(n)] > 0 && time > 0)
      out[static_cast<size_t>(n)].uplink_utilisation =
          bytes[static_cast<size_t>(n)] / (capacity[static_cast<size_t>(n)] * time);
  return out;
}

}  // namespace brigade::gui
