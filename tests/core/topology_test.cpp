#include "core/topology.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/topology_stats.hpp"

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

// Routes are found two ways (core/topology.cpp): a search from both ends
// over the shortest-path vertices alone for a source's first destinations,
// the source's whole tree after that. Both must give the same route bit
// for bit: two fresh copies of each topology are asked every pair, one in
// increasing and one in decreasing order of destination, so each pair is
// answered one way in one copy and the other way in the other. The
// irregular topology has ties on hops, bandwidth and latency, parallel
// links and switches, to exercise every tie-break.
Topology irregular_topology() {
  Topology t;
  const int n = 40;
  for (int i = 0; i < n; ++i)
    t.add_device(Device{0, "d" + std::to_string(i), "m", DeviceKind::kGpu, i / 8, 0, 1e9, {}, 1e9});
  const int s0 = t.add_switch(Switch{"s0", -1});
  const int s1 = t.add_switch(Switch{"s1", -1});
  std::uint32_t x = 12345;
  auto next = [&] {
    x = x * 1103515245u + 12345u;
    return (x >> 16) & 0x7fff;
  };
  const double bws[] = {10e9, 20e9, 20e9};
  const double lats[] = {1e-6, 2e-6};
  int k = 0;
  auto link = [&](int a, int b) {
    t.add_link(Link{a, b, lats[next() % 2], bws[next() % 3], LinkClass::kPcie, "l" + std::to_string(k++)});
  };
  for (int i = 0; i < n; ++i) link(i, (i + 1) % n);                     // a ring
  for (int i = 0; i < n; i += 3) link(i, (i + 7) % n);                  // chords
  for (int i = 0; i < n; i += 5) link(i, i % 2 == 0 ? s0 : s1);         // two switches
  link(s0, s1);
  for (int i = 0; i < n; i += 9) link(i, (i + 1) % n);                  // parallel links
  return t;
}

TEST(Topology, PairSearchAndSourceTreeGiveTheSameRoutes) {
  FabricSpec f{25e9, 5e-6, LinkClass::kInfiniband};
  std::vector<std::pair<std::string, std::function<Topology()>>> cases = {
      {"irregular", [] { return irregular_topology(); }},
      {"dgx-a100 x 5", [&] { return make_preset("dgx-a100", 5, 0, &f).value(); }},
      {"dgx-h100 x 4", [] { return make_preset("dgx-h100", 4).value(); }},
      {"pcie-4gpu", [] { return make_preset("pcie-4gpu").value(); }},
  };
  for (const auto& [name, make] : cases) {
    const Topology up = make(), down = make();
    ASSERT_TRUE(up.validate().is_ok()) << name << ": " << up.validate().message();
    const int n = up.num_devices();
    ASSERT_GT(n, 1) << name;
    for (int s = 0; s < n; ++s)
      for (int i = 0; i < n; ++i) {
        const int d = i, e = n - 1 - i;
        const Route& a = up.route(s, d);
        const Route& b = down.route(s, e);
        (void)b;
        (void)a;
      }
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        const Route& a = up.route(s, d);
        const Route& b = down.route(s, d);
        ASSERT_EQ(a.channels, b.channels) << name << " " << s << " -> " << d;
        ASSERT_EQ(a.bandwidth_bytes_per_second, b.bandwidth_bytes_per_second) << name << " " << s << " -> " << d;
        ASSERT_EQ(a.latency_seconds, b.latency_seconds) << name << " " << s << " -> " << d;
        ASSERT_EQ(a.slowest_class, b.slowest_class) << name << " " << s << " -> " << d;
        if (s != d) {
          ASSERT_FALSE(a.channels.empty()) << name << " " << s << " -> " << d;
        }
      }
  }
}

// Issue 18, item 16: a cluster's routes are one or two hops (a node's switch
// or the fabric), found from the endpoints' links alone. Before, each source
// built a shortest-path tree over every vertex: the 405B scenario's groups
// asked from about 2,400 sources of a 16,384-GPU cluster (1 GB of trees), its
// Amdahl table from more on clusters up to 32,768 GPUs (4.6 GB).
TEST(Topology, ClusterRoutesNeedNoShortestPathTree) {
  auto t = make_preset("dgx-h100", 128);  // 1024 GPUs behind the preset's own NICs
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_TRUE(t->validate().is_ok());
  const std::uint64_t trees_before = route_trees_built();
  for (int n = 0; n < 128; ++n) {
    const int a = 8 * n + 3, b = 8 * ((n + 1) % 128) + 3;
    EXPECT_EQ(t->route(a, b).channels.size(), 2u);      // device -> fabric -> device
    EXPECT_EQ(t->route(a, 8 * n).channels.size(), 2u);  // device -> NVSwitch -> device
    EXPECT_EQ(t->route(a, 8 * n).slowest_class, LinkClass::kNvlink);
  }
  EXPECT_EQ(route_trees_built(), trees_before);
}

// A topology of parallel links, ties and routes of one to four hops: the
// endpoints' short answer picks what the tree picks (the widest bottleneck,
// the lowest latency, the lowest middle vertex, the lowest link index).
Topology tied_topology() {
  Topology t;
  for (int i = 0; i < 6; ++i)
    t.add_device(
        Device{0, "d" + std::to_string(i), "m", DeviceKind::kGpu, i / 2, i % 2, 1e9, {}, 1e9});
  const int s0 = t.add_switch(Switch{"s0", 0});
  const int s1 = t.add_switch(Switch{"s1", 0});
  const int s2 = t.add_switch(Switch{"s2", -1});
  t.add_link(Link{0, 1, 1e-6, 10e9, LinkClass::kNvlink, "0-1a"});
  t.add_link(Link{0, 1, 1e-6, 10e9, LinkClass::kPcie, "0-1b"});  // a tie: the first link wins
  t.add_link(Link{0, s0, 1e-6, 20e9, LinkClass::kPcie, "0-s0"});
  t.add_link(Link{0, s1, 1e-6, 20e9, LinkClass::kNvlink, "0-s1"});
  t.add_link(Link{2, s1, 1e-6, 20e9, LinkClass::kNvlink, "2-s1"});
  t.add_link(Link{2, s0, 1e-6, 20e9, LinkClass::kPcie, "2-s0"});  // a tie between s0 and s1
  t.add_link(Link{1, s0, 2e-6, 20e9, LinkClass::kPcie, "1-s0"});
  t.add_link(Link{1, s1, 1e-6, 20e9, LinkClass::kPcie, "1-s1"});  // lower latency wins
  t.add_link(Link{3, 2, 1e-6, 5e9, LinkClass::kEthernet, "3-2"});
  t.add_link(Link{3, s2, 1e-6, 5e9, LinkClass::kEthernet, "3-s2"});
  t.add_link(Link{4, s2, 1e-6, 5e9, LinkClass::kEthernet, "4-s2"});
  t.add_link(Link{5, 4, 3e-6, 8e9, LinkClass::kEthernet, "5-4"});
  t.add_link(Link{5, 4, 1e-6, 8e9, LinkClass::kEthernet, "5-4b"});
  return t;
}

TEST(Topology, ShortRoutesPickWhatTheTreePicks) {
  // The reference: the same topology with the shortcut off, its routes from
  // the pair search (the tree's bit for bit:
  // PairSearchAndSourceTreeGiveTheSameRoutes).
  for (int src = 0; src < 6; ++src) {
    set_route_shortcut_enabled(false);
    const Topology searched = tied_topology();
    ASSERT_TRUE(searched.validate().is_ok());
    std::vector<Route> reference;
    for (int dst = 0; dst < 6; ++dst) reference.push_back(searched.route(src, dst));
    set_route_shortcut_enabled(true);
    const Topology short_first = tied_topology();
    for (int dst = 0; dst < 6; ++dst) {
      const Route& a = reference[static_cast<size_t>(dst)];
      const Route& b = short_first.route(src, dst);
      EXPECT_EQ(a.channels, b.channels) << src << " -> " << dst;
      EXPECT_EQ(a.latency_seconds, b.latency_seconds) << src << " -> " << dst;
      EXPECT_EQ(a.bandwidth_bytes_per_second, b.bandwidth_bytes_per_second) << src << " -> " << dst;
      EXPECT_EQ(a.slowest_class, b.slowest_class) << src << " -> " << dst;
    }
  }
  const Topology t = tied_topology();
  const std::uint64_t trees_before = route_trees_built();
  EXPECT_EQ(t.route(0, 1).channels, std::vector<ChannelId>{channel_of(0, false)});
  EXPECT_EQ(t.route(0, 2).channels,
            (std::vector<ChannelId>{channel_of(2, false), channel_of(5, true)}));
  EXPECT_DOUBLE_EQ(t.route(4, 5).latency_seconds, 1e-6);
  EXPECT_EQ(route_trees_built(), trees_before);
}

}  // namespace
}  // namespace brigade
