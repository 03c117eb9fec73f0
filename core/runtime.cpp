#include "core/runtime.hpp"

#include <algorithm>
#include <cstdio>

#include "core/topology.hpp"
#include "core/units.hpp"

namespace brigade {
namespace {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", 100 * fraction);
  return buf;
}

}  // namespace

std::string describe_runtime(const RuntimeConditions& runtime, const Topology& topology) {
  std::string out;
  auto add = [&](const std::string& phrase) { out += (out.empty() ? "" : "; ") + phrase; };
  for (const auto& [device, f] : runtime.speed) {
    const std::string name = device >= 0 && device < topology.num_devices()
                                 ? topology.device(device).name
                                 : "device " + std::to_string(device);
    add(name + " at " + percent(f) + " speed");
  }
  for (const auto& [link, load] : runtime.link_load) {
    const bool known = link >= 0 && link < static_cast<int>(topology.links().size());
    std::string name = known ? topology.links()[static_cast<size_t>(link)].name : "";
    if (name.empty()) name = std::to_string(link);
    add("link " + name + " " + percent(load) + " loaded");
  }
  if (runtime.input_seconds > 0)
    add("input pipeline " + format_seconds(runtime.input_seconds) + " per step");
  return out;
}

Topology loaded_topology(const Topology& topology, const RuntimeConditions& runtime) {
  if (runtime.link_load.empty()) return topology;
  Topology t;
  t.preset = topology.preset;
  for (Device d : topology.devices()) t.add_device(std::move(d));
  for (const Switch& s : topology.switches()) t.add_switch(s);
  for (int i = 0; i < static_cast<int>(topology.links().size()); ++i) {
    Link l = topology.links()[static_cast<size_t>(i)];
    if (auto it = runtime.link_load.find(i); it != runtime.link_load.end())
      l.bandwidth_bytes_per_second *= 1 - it->second;
    t.add_link(std::move(l));
  }
  return t;
}

double route_load(const Topology& topology, const RuntimeConditions& runtime, int src, int dst) {
  if (runtime.link_load.empty() || src == dst) return 0;
  double load = 0;
  for (ChannelId c : topology.route(src, dst).channels)
    if (auto it = runtime.link_load.find(link_of(c)); it != runtime.link_load.end())
      load = std::max(load, it->second);
  return load;
}

}  // namespace brigade
