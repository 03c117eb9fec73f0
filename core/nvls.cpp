#include "core/nvls.hpp"

#include <algorithm>

namespace brigade {
namespace {

// "" when a and b meet in one switch over NVLink, else what joins them.
std::string not_nvswitch(const Topology& t, int a, int b) {
  const Route& r = t.route(a, b);
  bool nvlink = !r.channels.empty();
  for (ChannelId c : r.channels)
    nvlink &= t.links()[static_cast<size_t>(link_of(c))].link_class == LinkClass::kNvlink;
  if (nvlink && r.channels.size() == 2) return "";
  std::string what;
  if (r.channels.empty()) return "no route";
  if (!nvlink) {
    const Link& l = t.links()[static_cast<size_t>(link_of(r.channels.front()))];
    what = std::string(link_class_name(l.link_class));
    if (r.channels.size() == 2) {
      const int sw = l.a == a ? l.b : l.a;
      what += " through " + t.vertex_name(sw);
    }
    return what;
  }
  return r.channels.size() == 1 ? "a direct NVLink, no switch" : "NVLink through several switches";
}

}  // namespace

std::vector<std::vector<int>> group_by_node(const Topology& t, const std::vector<int>& group) {
  std::vector<int> ids;
  std::vector<std::vector<int>> out;
  for (int d : group) {
    const int node = t.device(d).node;
    auto it = std::find(ids.begin(), ids.end(), node);
    if (it == ids.end()) {
      ids.push_back(node);
      out.push_back({d});
    } else {
      out[static_cast<size_t>(it - ids.begin())].push_back(d);
    }
  }
  return out;
}

bool on_nvswitch(const Topology& t, const std::vector<int>& group) {
  bool any = false;
  for (const auto& v : group_by_node(t, group))
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      any = true;
      if (!not_nvswitch(t, v[i], v[i + 1]).empty()) return false;
    }
  return any;
}

std::string nvls_refusal(const Topology& t, const HardwareProfile& p, const std::vector<int>& group) {
  if (p.collective_model == CollectiveModel::kAlphaBeta)
    return "NVLS is timed by the NCCL model, and the profile's collective_model is alpha-beta";
  for (int d : group) {
    const Device& dev = t.device(d);
    const NcclTable& table = p.for_device(dev).nccl;
    if (!table.present())
      return "device '" + dev.name + "' (" + dev.model + ") has no NCCL table in profile '" +
             p.name + "'";
    if (!table.has(NcclAlgorithm::kNvls))
      return "device '" + dev.name + "' (" + dev.model +
             ") has no NVLS: NVLink SHARP needs a third-generation NVSwitch (Hopper or later), "
             "and its NCCL table has no nvls";
  }
  const auto nodes = group_by_node(t, group);
  for (const auto& v : nodes)
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      const std::string why = not_nvswitch(t, v[i], v[i + 1]);
      if (!why.empty())
        return "devices '" + t.device(v[i]).name + "' and '" + t.device(v[i + 1]).name +
               "' share no NVSwitch (" + why + "); NVLS reduces in the NVSwitch";
    }
  if (nodes.size() > 1) {
    // Across nodes NCCL runs NVLS-tree: NVLS in each node, a tree between.
    for (int d : group) {
      const Device& dev = t.device(d);
      if (!p.for_device(dev).nccl.has(NcclAlgorithm::kNvlsTree))
        return "the group spans " + std::to_string(nodes.size()) + " nodes and device '" +
               dev.name + "' (" + dev.model +
               ") has no nvls_tree in its NCCL table; across nodes NCCL runs NVLS as NVLS-tree";
    }
    for (const auto& v : nodes)
      if (v.size() < 2)
        return "device '" + t.device(v.front()).name +
               "' is its node's only device in the group; NVLS-tree reduces in each node's "
               "NVSwitch and needs at least two devices on every node";
  }
  if (group.size() < 2) return "a group of one device has nothing to reduce";
  return "";
}

}  // namespace brigade
