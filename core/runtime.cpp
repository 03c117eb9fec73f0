#include "core/runtime.hpp"

#include <algorithm>
#include <cmath>
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

std::uint64_t splitmix64(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double unit(std::uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

}  // namespace

double spread_normal(std::uint64_t seed, int device) {
  // Draw 2d of the stream starts from state seed + 2d * gamma.
  std::uint64_t state = seed + 2 * static_cast<std::uint64_t>(device) * 0x9E3779B97F4A7C15ULL;
  const double u1 = unit(splitmix64(state));
  const double u2 = unit(splitmix64(state));
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  return std::sqrt(-2 * std::log(1 - u1)) * std::cos(kTwoPi * u2);
}

double spread_factor(double spread, std::uint64_t seed, int device) {
  if (!(spread > 0)) return 1;
  return 1 / (1 + spread * std::fabs(spread_normal(seed, device)));
}

std::map<int, double> RuntimeConditions::device_speeds(int num_devices) const {
  std::map<int, double> out = speed;
  if (spread > 0)
    for (int d = 0; d < num_devices; ++d) {
      auto it = out.find(d);
      const double f = spread_factor(spread, spread_seed, d);
      if (it == out.end())
        out.emplace(d, f);
      else
        it->second *= f;
    }
  return out;
}

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
  if (runtime.spread > 0 && topology.num_devices() > 0) {
    int slowest = 0;
    double low = 1, sum = 0;
    for (int d = 0; d < topology.num_devices(); ++d) {
      const double f = spread_factor(runtime.spread, runtime.spread_seed, d);
      sum += f;
      if (f < low) low = f, slowest = d;
    }
    add("speed spread " + percent(runtime.spread) + " (seed " +
        std::to_string(runtime.spread_seed) + "): mean " + percent(sum / topology.num_devices()) +
        ", slowest " + topology.device(slowest).name + " at " + percent(low));
  }
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
