// The timeline's rows: node > device > stream, collapsing, hit testing
// (gui/model/lane_layout.hpp).
#include "gui/model/lane_layout.hpp"

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

// Two nodes of two devices, each device with a compute and a comm stream.
Trace cluster() {
  Trace t;
  t.device_names = {"node0/gpu0", "node0/gpu1", "node1/gpu0", "node1/gpu1"};
  for (int d = 0; d < 4; ++d) {
    t.streams.push_back({d, "compute"});
    t.streams.push_back({d, "comm"});
  }
  t.names = {"k"};
  for (int s = 0; s < 8; ++s) {
    TraceSpan x;
    x.stream = s;
    x.device = s / 2;
    x.start_seconds = s;
    x.end_seconds = s + 1;
    x.name = 0;
    t.spans.push_back(x);
  }
  return t;
}

struct NodeCase {
  const char* name;
  int node;
};

class NodeOfName : public ::testing::TestWithParam<NodeCase> {};

TEST_P(NodeOfName, ComesFromTheNodePrefixOfTheDevicesName) {
  Trace t;
  t.device_names = {GetParam().name};
  EXPECT_EQ(node_of_device(t, 0, nullptr), GetParam().node);
}

INSTANTIATE_TEST_SUITE_P(Names, NodeOfName,
                         ::testing::Values(NodeCase{"node12/gpu3", 12}, NodeCase{"node0/gpu0", 0},
                                           NodeCase{"gpu3", 0}, NodeCase{"node/gpu", 0},
                                           NodeCase{"node7", 0}, NodeCase{"cpu0", 0}));

TEST(LaneLayout, GroupsStreamsUnderDevicesUnderNodes) {
  const Trace t = cluster();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  LaneLayout l;
  l.build(t, ix, nullptr, LaneMetrics{10, 20, 0});
  // node0, gpu0, compute, comm, gpu1, compute, comm, node1, ...
  ASSERT_EQ(l.num_rows(), 2 + 4 + 8);
  EXPECT_EQ(l.row(0).kind, RowKind::kNode);
  EXPECT_EQ(l.row(0).label, "node 0");
  EXPECT_EQ(l.row(1).kind, RowKind::kDevice);
  EXPECT_EQ(l.row(1).label, "node0/gpu0");
  EXPECT_EQ(l.row(2).label, "compute");
  EXPECT_EQ(l.row(2).indent, 2);
  // Heights: 2 node headers + 4 device headers of 10, 8 streams of 20.
  EXPECT_EQ(l.total_height(), 6 * 10 + 8 * 20);
  EXPECT_EQ(l.row_at(0), 0);
  EXPECT_EQ(l.row_at(10), 1);
  EXPECT_EQ(l.row_at(25), 2);
  EXPECT_EQ(l.row_at(-1), -1);
  EXPECT_EQ(l.row_at(1000), -1);
  EXPECT_EQ(l.row_showing_stream(3), 6);
}

TEST(LaneLayout, CollapsedRowsHideTheirChildrenAndShowTheirStreamsMerged) {
  const Trace t = cluster();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  LaneLayout l;
  l.build(t, ix, nullptr, LaneMetrics{10, 20, 0});
  l.toggle(1);  // node0/gpu0 collapsed
  EXPECT_FALSE(l.row(2).visible);
  EXPECT_EQ(l.row_showing_stream(0), 1);
  EXPECT_EQ(l.streams_of_row(1), (std::vector<int>{0, 1}));
  l.toggle(7);  // node 1 collapsed
  EXPECT_EQ(l.row_showing_stream(7), 7);
  EXPECT_EQ(l.streams_of_row(7), (std::vector<int>{4, 5, 6, 7}));
  // node0 (10) + gpu0 collapsed (20) + gpu1 (10) + 2 streams (40) + node1 collapsed (20)
  EXPECT_EQ(l.total_height(), 100);
  EXPECT_EQ(l.rows_in(0, 100).size(), 6u);
  l.reveal_stream(6);
  EXPECT_TRUE(l.row(7).visible);
  EXPECT_FALSE(l.row(7).collapsed);
  EXPECT_EQ(l.row_showing_stream(6), l.row_showing_stream(6));
  EXPECT_EQ(l.row(l.row_showing_stream(6)).kind, RowKind::kStream);
}

// The compare view's click on a device's row: its node and its own row
// open, whatever was collapsed; a device without a row gives -1.
TEST(LaneLayout, RevealDeviceOpensItsNodeAndItsRow) {
  const Trace t = cluster();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  LaneLayout l;
  l.build(t, ix, nullptr, LaneMetrics{10, 20, 0});
  l.toggle(7);   // node 1 collapsed
  l.toggle(11);  // node1/gpu1 collapsed (hidden under its node)
  EXPECT_FALSE(l.row(11).visible);
  EXPECT_EQ(l.reveal_device(3), 11);
  EXPECT_FALSE(l.row(7).collapsed);
  EXPECT_FALSE(l.row(11).collapsed);
  EXPECT_TRUE(l.row(12).visible);  // node1/gpu1's compute stream
  EXPECT_EQ(l.row_showing_stream(6), 12);
  EXPECT_EQ(l.row(8).visible, true);  // node1/gpu0 too: its node is open
  EXPECT_EQ(l.reveal_device(9), -1);
}

TEST(LaneLayout, OverviewCollapsesEveryNodeButTheFirstWhenThereAreManyRows) {
  const Trace t = cluster();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  LaneLayout l;
  l.build(t, ix, nullptr);
  l.collapse_for_overview(8);  // 8 stream rows: nothing to do
  EXPECT_FALSE(l.row(7).collapsed);
  l.collapse_for_overview(4);
  EXPECT_FALSE(l.row(0).collapsed);
  EXPECT_TRUE(l.row(7).collapsed);
}

// Four devices in a tall window filled a third of it: the tracks grow to
// fill the view, by one factor and at most 2.5 times their height; headers keep
// theirs; a view too short for the rows keeps the metrics' height.
TEST(LaneLayout, TracksGrowToFillAViewTheRowsLeavePartlyEmpty) {
  const Trace t = cluster();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  LaneLayout l;
  l.build(t, ix, nullptr, LaneMetrics{10, 20, 0});
  // Rows: 6 headers of 10 (60) + 8 tracks of 20 (160) = 220.
  l.fit_to_height(380);  // (380 - 60) / 8 = 40 a track: twice 20
  EXPECT_DOUBLE_EQ(l.track_height(), 40);
  EXPECT_DOUBLE_EQ(l.total_height(), 380);
  EXPECT_DOUBLE_EQ(l.row(2).height, 40);
  EXPECT_DOUBLE_EQ(l.row(1).height, 10);
  EXPECT_EQ(l.row_at(10 + 10 + 40), 3);  // node0, gpu0, compute: comm starts at 60
  l.fit_to_height(300);  // (300 - 60) / 8 = 30
  EXPECT_DOUBLE_EQ(l.track_height(), 30);
  EXPECT_DOUBLE_EQ(l.total_height(), 300);
  l.fit_to_height(1000);  // at most 2.5 times: 50
  EXPECT_DOUBLE_EQ(l.track_height(), 50);
  EXPECT_DOUBLE_EQ(l.total_height(), 60 + 8 * 50);
  l.fit_to_height(100);  // too short: the metrics' height, and a scroll bar
  EXPECT_DOUBLE_EQ(l.track_height(), 20);
  EXPECT_DOUBLE_EQ(l.total_height(), 220);
  // Collapsing refits: node 1 collapsed is one track, its devices hidden.
  l.fit_to_height(300);
  l.toggle(7);
  // Visible: node0, gpu0, 2 streams, gpu1, 2 streams, node1 (collapsed):
  // headers 30, tracks 5: (300 - 30) / 5 = 54, clamped to 50.
  EXPECT_DOUBLE_EQ(l.track_height(), 50);
  EXPECT_DOUBLE_EQ(l.row(7).height, 50);
  l.fit_to_height(0);  // off
  EXPECT_DOUBLE_EQ(l.track_height(), 20);
}

TEST(LaneLayout, OneNodeHasNoNodeRow) {
  Trace t = cluster();
  t.device_names = {"gpu0", "gpu1", "gpu2", "gpu3"};
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  LaneLayout l;
  l.build(t, ix, nullptr);
  EXPECT_EQ(l.num_rows(), 4 + 8);
  EXPECT_EQ(l.row(0).kind, RowKind::kDevice);
  EXPECT_EQ(l.row(1).indent, 1);
}

// The host lane (Trace::host): a "host" row first under each device that
// has host slices, above its streams, one track high; a device with host
// slices and no spans still gets its device row; collapsing the device
// hides the host row and does not merge it into the device's occupancy.
TEST(LaneLayout, AHostRowComesFirstUnderItsDevice) {
  Trace t = cluster();
  t.device_names = {"gpu0", "gpu1", "gpu2", "gpu3", "gpu4"};
  t.host.push_back(HostSpan{0, 1, 0.0, 0.5, 0});
  t.host.push_back(HostSpan{1, 1, 0.5, 1.0, 0});
  t.host.push_back(HostSpan{2, 4, 0.0, 0.5, 0});  // device 4: host slices, no spans
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  LaneLayout l;
  l.build(t, ix, nullptr, LaneMetrics{10, 20, 0});
  // gpu0 compute comm, gpu1 host compute comm, gpu2 .., gpu3 .., gpu4 host.
  ASSERT_EQ(l.num_rows(), 4 + 8 + 1 + 2);
  EXPECT_EQ(l.row(3).kind, RowKind::kDevice);
  EXPECT_EQ(l.row(3).device, 1);
  EXPECT_EQ(l.row(4).kind, RowKind::kHost);
  EXPECT_EQ(l.row(4).device, 1);
  EXPECT_EQ(l.row(4).label, "host");
  EXPECT_EQ(l.row(4).indent, 1);
  EXPECT_EQ(l.row(5).kind, RowKind::kStream);
  EXPECT_EQ(l.row(5).stream, 2);
  EXPECT_EQ(l.row(13).kind, RowKind::kDevice);
  EXPECT_EQ(l.row(13).device, 4);
  EXPECT_EQ(l.row(14).kind, RowKind::kHost);
  // One track high, like a stream of depth 1.
  EXPECT_DOUBLE_EQ(l.row(4).height, 20);
  EXPECT_DOUBLE_EQ(l.row(5).y - l.row(4).y, 20);
  // The host row draws no stream's spans; a collapsed device merges its
  // streams but not its host, and hides the host row.
  EXPECT_TRUE(l.streams_of_row(4).empty());
  l.toggle(4);  // a host row does not collapse
  EXPECT_FALSE(l.row(4).collapsed);
  l.toggle(3);
  EXPECT_FALSE(l.row(4).visible);
  EXPECT_EQ(l.streams_of_row(3), (std::vector<int>{2, 3}));
  // Stream rows are still found through the host row in between.
  EXPECT_EQ(l.row_showing_stream(2), 3);
}

}  // namespace
}  // namespace brigade::gui
