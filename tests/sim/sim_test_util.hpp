// Topologies and Programs built in code for the simulator's tests.
#pragma once

#include <algorithm>
#include <cmath>
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

// Two runs' figures within `tolerance` (relative; 0: equal): step, every
// device's busy / comm / idle / exposed time, every link's bytes and busy
// time (sums of many terms: a slack of `tolerance` of the larger of the
// figure and 1 B or 1 ms), and, where both kept them, every task's start
// and end.
inline void expect_close_figures(const SimResult& a, const SimResult& e, double tolerance) {
  EXPECT_LE(rel_err(a.step_seconds, e.step_seconds), tolerance);
  ASSERT_EQ(a.devices.size(), e.devices.size());
  for (size_t d = 0; d < a.devices.size(); ++d) {
    EXPECT_LE(rel_err(a.devices[d].busy_seconds, e.devices[d].busy_seconds), tolerance) << d;
    EXPECT_LE(rel_err(a.devices[d].comm_seconds, e.devices[d].comm_seconds), tolerance) << d;
    EXPECT_LE(rel_err(a.devices[d].idle_seconds, e.devices[d].idle_seconds), tolerance) << d;
    EXPECT_LE(rel_err(a.devices[d].exposed_comm_seconds, e.devices[d].exposed_comm_seconds), tolerance) << d;
  }
  EXPECT_NEAR(a.off_link_bytes, e.off_link_bytes, tolerance * std::max(1.0, e.off_link_bytes));
  ASSERT_EQ(a.links.size(), e.links.size());
  for (size_t l = 0; l < a.links.size(); ++l) {
    EXPECT_NEAR(a.links[l].bytes, e.links[l].bytes, tolerance * std::max(1.0, e.links[l].bytes)) << l;
    EXPECT_NEAR(a.links[l].busy_seconds, e.links[l].busy_seconds,
                tolerance * std::max(1e-3, e.links[l].busy_seconds))
        << l;
  }
  ASSERT_EQ(a.task_end_seconds.size(), e.task_end_seconds.size());
  ASSERT_EQ(a.task_start_seconds.size(), e.task_start_seconds.size());
  for (size_t i = 0; i < a.task_end_seconds.size(); ++i) {
    EXPECT_LE(rel_err(a.task_start_seconds[i], e.task_start_seconds[i]), tolerance) << i;
    EXPECT_LE(rel_err(a.task_end_seconds[i], e.task_end_seconds[i]), tolerance) << i;
  }
}

}  // namespace brigade::sim::testing
