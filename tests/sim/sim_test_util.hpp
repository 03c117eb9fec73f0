// Topologies and Programs built in code for the simulator's tests.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/topology.hpp"
#include "sim/simulator.hpp"

namespace brigade::sim::testing {

inline constexpr double kGiB = 1073741824.0;

// An A100 as the dgx-a100 preset describes it (data-sheet peaks), renamed.
inline Device a100(const std::string& name, double memory_bytes = 80 * kGiB) {
  auto t = make_preset("dgx-a100");
  Device d = t->device(0);
  d.name = name;
  d.memory_bytes = memory_bytes;
  return d;
}

// N devices on one switch; every device link has `bandwidth` per direction
// and `latency` / 2, so a device-to-device route has alpha = `latency`.
inline Topology star(int n, double bandwidth, double latency, LinkClass cls = LinkClass::kNvlink,
                     double memory_bytes = 80 * kGiB) {
  Topology t;
  t.preset = "star";
  for (int i = 0; i < n; ++i) t.add_device(a100("gpu" + std::to_string(i), memory_bytes));
  const int sw = t.add_switch(Switch{"sw", 0});
  for (int i = 0; i < n; ++i)
    t.add_link(Link{i, sw, latency / 2, bandwidth, cls, "gpu" + std::to_string(i) + "<->sw"});
  return t;
}

// A profile whose links achieve exactly their bandwidth (efficiency 1) and
// take their topology latency as alpha; no collective overhead unless given.
// Collectives in the alpha-beta model (the expansion these tests check; the
// A100s' NCCL tables would otherwise time them: tests/sim/nccl_collective_test.cpp).
inline HardwareProfile plain_profile(double collective_overhead_seconds = 0) {
  HardwareProfile h = HardwareProfile::defaults();
  h.collective_model = CollectiveModel::kAlphaBeta;
  for (auto& l : h.links) l = LinkProfile{-1, 1.0};
  for (auto& d : h.devices) d.collective_overhead_seconds = collective_overhead_seconds;
  return h;
}

inline Program build(ProgramBuilder&& b) {
  auto p = std::move(b).build();
  EXPECT_TRUE(p.is_ok()) << p.message();
  return std::move(p).value();
}

inline SimResult run(const Program& p, const Topology& t, const HardwareProfile& h,
                     NetworkModel net = NetworkModel::kFlow, bool exact = false, bool trace = false) {
  SimOptions o;
  o.network = net;
  o.exact = exact;
  o.record_trace = trace;
  auto r = simulate(p, t, h, o);
  EXPECT_TRUE(r.is_ok()) << r.message();
  return std::move(r).value();
}

inline double rel_err(double got, double want) {
  return want == 0 ? std::abs(got) : std::abs(got - want) / std::abs(want);
}

}  // namespace brigade::sim::testing
