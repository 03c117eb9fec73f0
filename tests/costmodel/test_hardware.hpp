// A toy device and profile with round numbers, so that tests can work
// roofline times out by hand: peak 1e12 FLOP/s in every dtype, 1e11 B/s of
// memory bandwidth, GEMM and memory efficiency 1, no launch overhead.
#pragma once

#include <string>

#include "core/profile.hpp"
#include "core/topology.hpp"

namespace brigade::cost::testing {

inline Device round_device(const std::string& model = "round") {
  Device d;
  d.model = model;
  d.memory_bytes = 80e9;
  d.peak_flops_per_second.fill(1e12);
  d.memory_bandwidth_bytes_per_second = 1e11;
  return d;
}

inline DeviceProfile round_profile(double gemm_efficiency = 1.0, double memory_efficiency = 1.0,
                                   double launch_seconds = 0.0) {
  DeviceProfile p;
  p.model = "*";
  for (auto& curve : p.gemm) curve.fallback = gemm_efficiency;
  p.memory_efficiency = memory_efficiency;
  p.launch_overhead_seconds = launch_seconds;
  p.collective_overhead_seconds = 0;
  return p;
}

// Adds `n` round devices (node 0) to a topology under construction.
inline void add_round_devices(Topology& t, int n, double memory_bandwidth = 1e11,
                              double capacity = 80e9) {
  for (int i = 0; i < n; ++i) {
    Device d = round_device();
    d.name = std::string("dev").append(std::to_string(i));
    d.local_index = i;
    d.memory_bandwidth_bytes_per_second = memory_bandwidth;
    d.memory_bytes = capacity;
    t.add_device(d);
  }
}

// `n` round devices on one node, each linked to its successor directly
// (a chain), links of `alpha` seconds and `bandwidth` B/s; the profile's
// link efficiency is 1 and its alpha defers to the links.
inline Topology round_chain(int n, double alpha, double bandwidth) {
  Topology t;
  t.preset = "custom";
  add_round_devices(t, n);
  for (int i = 0; i + 1 < n; ++i)
    t.add_link(Link{i, i + 1, alpha, bandwidth, LinkClass::kPcie, std::string("l").append(std::to_string(i))});
  return t;
}

// `n` round devices under one switch: every route is two links of alpha/2,
// so alpha per message and `bandwidth` B/s. `memory_bandwidth` 0 makes every
// kernel's memory term vanish (kernel time = FLOPs / 1e12), which lets tests
// check step times against FLOP formulas exactly.
inline Topology round_star(int n, double alpha, double bandwidth, double memory_bandwidth = 1e11,
                           double capacity = 80e9) {
  Topology t;
  t.preset = "custom";
  add_round_devices(t, n, memory_bandwidth, capacity);
  const int sw = t.add_switch(Switch{"switch", 0});
  for (int i = 0; i < n; ++i)
    t.add_link(Link{i, sw, alpha / 2, bandwidth, LinkClass::kNvlink,
                    std::string("l").append(std::to_string(i))});
  return t;
}

inline HardwareProfile round_hardware() {
  HardwareProfile h;
  h.name = "round";
  h.devices.push_back(round_profile());
  for (auto& l : h.links) l = LinkProfile{-1, 1.0};
  return h;
}

}  // namespace brigade::cost::testing
