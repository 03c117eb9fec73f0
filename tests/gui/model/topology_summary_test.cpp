// The topology view's aggregated picture: a node's summary
// (gui/model/topology_summary.hpp) and one node expanded
// (layout_topology's focus_node).
#include "gui/model/topology_summary.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "gui/model/topology_layout.hpp"

namespace brigade::gui {
namespace {

// Two nodes of two devices, each node a switch, every device a NIC into a
// fabric; every link 100 B/s each way.
Topology two_nodes() {
  Topology t;
  for (int i = 0; i < 4; ++i) {
    Device d;
    d.name = "n" + std::to_string(i / 2) + "/d" + std::to_string(i % 2);
    d.model = "m";
    d.node = i / 2;
    d.local_index = i % 2;
    d.memory_bytes = 1e9;
    t.add_device(d);
  }
  const int s0 = t.add_switch(Switch{"n0/sw", 0});
  const int s1 = t.add_switch(Switch{"n1/sw", 1});
  const int fabric = t.add_switch(Switch{"fabric", -1});
  for (int i = 0; i < 4; ++i) {
    t.add_link(Link{i, i < 2 ? s0 : s1, 0, 100, LinkClass::kNvlink, ""});
    t.add_link(Link{i, fabric, 0, 100, LinkClass::kInfiniband, ""});
  }
  return t;
}

HardwareProfile plain() {
  HardwareProfile h = HardwareProfile::defaults();
  for (auto& l : h.links) l = LinkProfile{-1, 1.0};
  return h;
}

TEST(NodeSummaries, OccupancyTheCollectiveOfMostDevicesAndUplinks) {
  const Topology t = two_nodes();
  ASSERT_TRUE(t.validate().is_ok());
  Trace tr;
  tr.device_names = {"n0/d0", "n0/d1", "n1/d0", "n1/d1"};
  tr.names = {"gemm", "grad allreduce", "pp send"};
  auto span = [&](int device, double s, double e, TaskKind k, NameId name) {
    TraceSpan x;
    x.device = device;
    x.start_seconds = s;
    x.end_seconds = e;
    x.kind = k;
    x.name = name;
    tr.spans.push_back(x);
    return static_cast<std::int32_t>(tr.spans.size() - 1);
  };
  // Compute over [0, 1] on n0/d0, [0, 0.5] on n0/d1: node 0 occupancy
  // (1 + 0.5) / 2 = 0.75; node 1 computes nothing.
  span(0, 0, 1, TaskKind::kCompute, 0);
  span(1, 0, 0.5, TaskKind::kCompute, 0);
  // In flight at the time: n0/d0, n0/d1 and n1/d0 in the gradient
  // AllReduce, n1/d1 in a send.
  const std::int32_t ar0 = span(0, 0, 1, TaskKind::kCollective, 1);
  const std::int32_t ar1 = span(1, 0, 1, TaskKind::kCollective, 1);
  const std::int32_t ar2 = span(2, 0, 1, TaskKind::kCollective, 1);
  const std::int32_t send = span(3, 0, 1, TaskKind::kCollective, 2);
  // n0/d0 -> n1/d0 over the fabric: 50 B in 1 s. Route d0 -> fabric -> d2.
  TraceTransfer x;
  x.src = 0;
  x.dst = 2;
  x.bytes = 50;
  x.end_seconds = 1;
  tr.transfers.push_back(x);
  const TopologyUsage u = TopologyUsage::build(tr, t, plain(), 1);
  const std::vector<std::int32_t> in_flight = {ar0, ar1, ar2, send};
  const std::vector<NodeSummary> s = node_summaries(
      t, u, 0, 0, [&](int d) { return in_flight[static_cast<size_t>(d)]; }, tr);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].devices, 2);
  EXPECT_DOUBLE_EQ(s[0].occupancy, 0.75);
  EXPECT_DOUBLE_EQ(s[1].occupancy, 0);
  EXPECT_EQ(s[0].collective_name, "grad allreduce");
  EXPECT_EQ(s[0].in_collective, 2);
  EXPECT_EQ(s[0].collective_span, ar0);
  // Node 1: one device in each; the first name in order among equals.
  EXPECT_EQ(s[1].in_collective, 1);
  EXPECT_EQ(s[1].collective_name, "grad allreduce");
  // Links out: each node has two NIC links of 100 B/s (capacity 200 B/s).
  // Node 0's busier directions carried 50 B in 1 s: 50 / (200 x 1) = 0.25;
  // node 1 received the same 50 B.
  EXPECT_DOUBLE_EQ(s[0].uplink_utilisation, 0.25);
  EXPECT_DOUBLE_EQ(s[1].uplink_utilisation, 0.25);
  // Without a collective lookup, none is named.
  EXPECT_EQ(node_summaries(t, u, 0, 0, nullptr, tr)[0].collective_span, -1);
}

TEST(LayoutFocus, OneNodeFillsTheGridAndTheOthersAreNotDrawn) {
  auto t = make_preset("dgx-a100", 128);
  ASSERT_TRUE(t.is_ok());
  const TopologyLayout all = layout_topology(*t);
  EXPECT_TRUE(all.aggregated);
  const TopologyLayout l = layout_topology(*t, 16.0 / 9.0, 16, 5);
  EXPECT_FALSE(l.aggregated);
  ASSERT_EQ(l.nodes.size(), 1u);
  EXPECT_EQ(l.nodes[0].node, 5);
  EXPECT_GT(l.nodes[0].x1 - l.nodes[0].x0, 0.9);
  for (const Device& d : t->devices()) {
    EXPECT_EQ(drawn(l, d.id), d.node == 5) << d.name;
    if (d.node != 5) continue;
    const Point2 p = l.vertex[static_cast<size_t>(d.id)];
    EXPECT_TRUE(p.x > l.nodes[0].x0 && p.x < l.nodes[0].x1 && p.y > l.nodes[0].y0 &&
                p.y < l.nodes[0].y1);
  }
  // The node's switch and the fabric are drawn; other nodes' switches not.
  for (size_t s = 0; s < t->switches().size(); ++s) {
    const int v = t->num_devices() + static_cast<int>(s);
    const int node = t->switches()[s].node;
    EXPECT_EQ(drawn(l, v), node == 5 || node < 0) << t->switches()[s].name;
  }
  // The expanded node's devices are far bigger than in the grid.
  EXPECT_GT(l.device_size, 5 * all.device_size);
  // An out-of-range node is no focus.
  EXPECT_TRUE(layout_topology(*t, 16.0 / 9.0, 16, 500).aggregated);
}

struct ColumnsCase {
  const char* preset;
  int devices;
  int rows;  // distinct device rows in a node
};

class DeviceRows : public ::testing::TestWithParam<ColumnsCase> {};

// Full rows rather than a ragged last one: 8 GPUs as 4 x 2 (not 5 + 3), 4
// as one row of 4.
TEST_P(DeviceRows, FillEveryRow) {
  auto t = make_preset(GetParam().preset, 128, GetParam().devices);
  ASSERT_TRUE(t.is_ok());
  const TopologyLayout l = layout_topology(*t);
  std::vector<double> ys;
  for (const Device& d : t->devices())
    if (d.node == 0) ys.push_back(l.vertex[static_cast<size_t>(d.id)].y);
  std::sort(ys.begin(), ys.end());
  ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
  EXPECT_EQ(static_cast<int>(ys.size()), GetParam().rows);
}

INSTANTIATE_TEST_SUITE_P(Cases, DeviceRows,
                         ::testing::Values(ColumnsCase{"dgx-a100", 0, 2},
                                           ColumnsCase{"pcie-4gpu", 0, 1}));

}  // namespace
}  // namespace brigade::gui
