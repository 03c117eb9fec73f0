#include "core/topology.hpp"

#include <gtest/gtest.h>

namespace brigade {
namespace {

TEST(Presets, DgxA100HasEightGpusOnNvswitch) {
  auto t = make_preset("dgx-a100");
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_EQ(t->num_devices(), 8);
  ASSERT_TRUE(t->validate().is_ok());
  // gpu0 -> nvswitch -> gpu5: two hops, 300 GB/s, 2 us end to end.
  const Route& r = t->route(0, 5);
  EXPECT_EQ(r.channels.size(), 2u);
  EXPECT_DOUBLE_EQ(r.bandwidth_bytes_per_second, 300e9);
  EXPECT_DOUBLE_EQ(r.latency_seconds, 2e-6);
  EXPECT_EQ(t->channel_from(r.channels[0]), 0);
  EXPECT_EQ(t->channel_to(r.channels[1]), 5);
}

TEST(Presets, ClusterRoutesIntraNodeOverNvlinkAndInterNodeOverFabric) {
  FabricSpec f{25e9, 5e-6, LinkClass::kInfiniband};
  auto t = make_preset("dgx-a100", 2, 0, &f);
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_TRUE(t->validate().is_ok());
  EXPECT_EQ(t->num_devices(), 16);
  EXPECT_EQ(t->num_nodes(), 2);
  // Same node: NVSwitch wins the tie on hops by bandwidth.
  EXPECT_DOUBLE_EQ(t->route(1, 2).bandwidth_bytes_per_second, 300e9);
  EXPECT_EQ(t->route(1, 2).slowest_class, LinkClass::kNvlink);
  // Other node: through the fabric, 25 GB/s, 5 us.
  const Route& r = t->route(1, 9);
  EXPECT_DOUBLE_EQ(r.bandwidth_bytes_per_second, 25e9);
  EXPECT_DOUBLE_EQ(r.latency_seconds, 5e-6);
  EXPECT_EQ(r.slowest_class, LinkClass::kInfiniband);
}

TEST(Presets, CpuHostTakesDeviceCount) {
  auto t = make_preset("cpu-host", 1, 3);
  ASSERT_TRUE(t.is_ok());
  EXPECT_EQ(t->num_devices(), 3);
  EXPECT_EQ(t->device(2).kind, DeviceKind::kCpu);
}

TEST(Presets, UnknownPresetSuggestsClosest) {
  auto t = make_preset("dgx-a10");
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(),
            "found preset 'dgx-a10'; expected one of cpu-host, dgx-a100, dgx-h100, dgx-h200, h200x1, "
            "pcie-4gpu (did you mean 'dgx-a100'?)");
}

TEST(Topology, ZeroBandwidthLinkIsRejected) {
  Topology t;
  t.add_device(Device{0, "a", "m", DeviceKind::kGpu, 0, 0, 1e9, {}, 1e9});
  t.add_device(Device{0, "b", "m", DeviceKind::kGpu, 0, 1, 1e9, {}, 1e9});
  t.add_link(Link{0, 1, 1e-6, 0, LinkClass::kPcie, "a-b"});
  EXPECT_EQ(t.validate().message(), "topology: link 'a-b' has bandwidth 0.000000; expected a positive bandwidth");
}

TEST(Topology, DisconnectedDeviceIsRejected) {
  Topology t;
  t.add_device(Device{0, "a", "m", DeviceKind::kGpu, 0, 0, 1e9, {}, 1e9});
  t.add_device(Device{0, "b", "m", DeviceKind::kGpu, 0, 1, 1e9, {}, 1e9});
  EXPECT_EQ(t.validate().message(),
            "topology: device 'b' cannot reach device 'a'; expected a connected topology");
}

// Issue 16: routes depend on the topology alone, so copies (a search's
// candidates, a sweep's variants) share one cache: a route computed through
// one copy is the very object another copy returns, and a copy that changes
// (a link added) detaches instead of clearing what the others hold.
TEST(Topology, CopiesShareTheRouteCacheUntilOneChanges) {
  FabricSpec f{25e9, 5e-6, LinkClass::kInfiniband};
  auto t = make_preset("dgx-a100", 2, 0, &f);
  ASSERT_TRUE(t.is_ok()) << t.message();
  const Topology copy = *t;
  Topology assigned;
  assigned = *t;
  EXPECT_TRUE(copy.shares_routes_with(*t));
  EXPECT_TRUE(assigned.shares_routes_with(*t));
  const Route& r = t->route(1, 9);
  EXPECT_EQ(&copy.route(1, 9), &r);      // computed once, found by the copy
  EXPECT_EQ(&assigned.route(1, 9), &r);
  Topology changed = *t;
  changed.add_switch(Switch{"spare", -1});
  EXPECT_FALSE(changed.shares_routes_with(*t));
  EXPECT_TRUE(copy.shares_routes_with(*t));
  EXPECT_DOUBLE_EQ(changed.route(1, 9).bandwidth_bytes_per_second, 25e9);
  EXPECT_NE(&changed.route(1, 9), &r);
  EXPECT_EQ(&t->route(1, 9), &r);        // the others keep theirs
}

}  // namespace
}  // namespace brigade
