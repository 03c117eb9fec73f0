// The topology view's model: node-grid layout, link utilisation and device
// occupancy (gui/model/topology_layout.hpp, topology_usage.hpp), and the
// utilisation colour ramp (palette.hpp).
#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "gui/model/palette.hpp"
#include "gui/model/topology_layout.hpp"
#include "gui/model/topology_usage.hpp"

namespace brigade::gui {
namespace {

struct PresetCase {
  const char* preset;
  int nodes;
  bool aggregated;
};

class Layout : public ::testing::TestWithParam<PresetCase> {};

// Every device lies inside its node's box; boxes do not overlap; every
// vertex is inside the unit square.
TEST_P(Layout, DevicesSitInsideTheirOwnNodesBox) {
  const PresetCase c = GetParam();
  auto t = make_preset(c.preset, c.nodes);
  ASSERT_TRUE(t.is_ok()) << t.message();
  const TopologyLayout l = layout_topology(*t);
  ASSERT_EQ(l.vertex.size(), static_cast<size_t>(t->num_vertices()));
  ASSERT_EQ(l.nodes.size(), static_cast<size_t>(t->num_nodes()));
  EXPECT_EQ(l.aggregated, c.aggregated);
  EXPECT_GT(l.device_size, 0);
  for (const Point2& p : l.vertex) {
    EXPECT_GE(p.x, 0);
    EXPECT_LE(p.x, 1);
    EXPECT_GE(p.y, 0);
    EXPECT_LE(p.y, 1);
  }
  for (const Device& d : t->devices()) {
    const NodeBox& b = l.nodes[static_cast<size_t>(d.node)];
    const Point2 p = l.vertex[static_cast<size_t>(d.id)];
    EXPECT_TRUE(p.x > b.x0 && p.x < b.x1 && p.y > b.y0 && p.y < b.y1) << d.name;
  }
  for (size_t i = 0; i < l.nodes.size(); ++i)
    for (size_t j = i + 1; j < l.nodes.size(); ++j) {
      const NodeBox &a = l.nodes[i], &b = l.nodes[j];
      EXPECT_TRUE(a.x1 <= b.x0 || b.x1 <= a.x0 || a.y1 <= b.y0 || b.y1 <= a.y0) << i << " " << j;
    }
}

INSTANTIATE_TEST_SUITE_P(Presets, Layout,
                         ::testing::Values(PresetCase{"dgx-a100", 1, false},
                                           PresetCase{"pcie-4gpu", 1, false},
                                           PresetCase{"cpu-host", 1, false},
                                           PresetCase{"dgx-a100", 4, false},
                                           PresetCase{"dgx-a100", 128, true}));

// Two devices on one switch, each link 100 B/s each way (efficiency 1).
Topology pair() {
  Topology t;
  for (int i = 0; i < 2; ++i) {
    Device d;
    d.name = "d" + std::to_string(i);
    d.model = "m";
    d.memory_bytes = 1e9;
    t.add_device(d);
  }
  const int sw = t.add_switch(Switch{"sw", 0});
  t.add_link(Link{0, sw, 0, 100, LinkClass::kNvlink, "d0<->sw"});
  t.add_link(Link{1, sw, 0, 100, LinkClass::kNvlink, "d1<->sw"});
  return t;
}

HardwareProfile plain() {
  HardwareProfile h = HardwareProfile::defaults();
  for (auto& l : h.links) l = LinkProfile{-1, 1.0};
  return h;
}

TEST(TopologyUsage, UtilisationIsBytesOverCapacityTimesTime) {
  const Topology t = pair();
  Trace tr;
  tr.device_names = {"d0", "d1"};
  tr.streams = {{0, "compute"}, {1, "compute"}};
  // d0 computes over [0, 1]; d1 over [0, 0.5]. d0 sends 50 B to d1 over [0, 1].
  TraceSpan s;
  s.stream = 0;
  s.device = 0;
  s.end_seconds = 1;
  tr.spans.push_back(s);
  s.stream = 1;
  s.device = 1;
  s.end_seconds = 0.5;
  tr.spans.push_back(s);
  TraceTransfer x;
  x.src = 0;
  x.dst = 1;
  x.bytes = 50;
  x.end_seconds = 1;
  tr.transfers.push_back(x);
  const TopologyUsage u = TopologyUsage::build(tr, t, plain(), 4);
  ASSERT_EQ(u.bins(), 4);
  EXPECT_DOUBLE_EQ(u.bin_seconds(), 0.25);
  // The route d0 -> sw -> d1: channel 0 (d0->sw) and channel 3 (sw->d1,
  // link 1 reversed) each carry 50 B in 1 s of a 100 B/s channel: 0.5.
  EXPECT_DOUBLE_EQ(u.channel_bytes(0, 0, 3), 50);
  EXPECT_DOUBLE_EQ(u.channel_utilisation(0, 0, 3), 0.5);
  EXPECT_DOUBLE_EQ(u.channel_utilisation(3, 0, 3), 0.5);
  EXPECT_DOUBLE_EQ(u.channel_utilisation(1, 0, 3), 0);  // sw -> d0 carries nothing
  EXPECT_DOUBLE_EQ(u.link_utilisation(1, 0, 3), 0.5);
  EXPECT_DOUBLE_EQ(u.channel_bytes(0, 1, 1), 12.5);  // a quarter of the time, a quarter of the bytes
  EXPECT_DOUBLE_EQ(u.device_occupancy(0, 0, 3), 1);
  EXPECT_DOUBLE_EQ(u.device_occupancy(1, 0, 3), 0.5);
  EXPECT_DOUBLE_EQ(u.device_occupancy(1, 0, 1), 1);
  EXPECT_DOUBLE_EQ(u.device_occupancy(1, 2, 3), 0);
  EXPECT_EQ(u.bin_of(-5), 0);
  EXPECT_EQ(u.bin_of(0.6), 2);
  EXPECT_EQ(u.bin_of(99), 3);
}

struct RampCase {
  double u;
  std::uint32_t rgb;
};

class UtilisationRamp : public ::testing::TestWithParam<RampCase> {};

TEST_P(UtilisationRamp, GreyAmberRed) {
  EXPECT_EQ(utilisation_rgb(GetParam().u), GetParam().rgb) << GetParam().u;
}

// 0.25 is halfway from grey (c8 cc d2) to amber (f2 c1 4e): dd c7 90.
INSTANTIATE_TEST_SUITE_P(Stops, UtilisationRamp,
                         ::testing::Values(RampCase{0, 0xc8ccd2}, RampCase{-1, 0xc8ccd2},
                                           RampCase{0.25, 0xddc790}, RampCase{0.5, 0xf2c14e},
                                           RampCase{1, 0xd7263d}, RampCase{1.5, 0x7a0f1e}));

}  // namespace
}  // namespace brigade::gui
