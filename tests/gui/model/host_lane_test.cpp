// The timeline's host lane (gui/model/host_lane.hpp): each device's host
// slices as one track, hit testing, and the words of a slice.
#include "gui/model/host_lane.hpp"

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

// Device 0 runs task 0 (issued over [0, 1] ms, started at 1 ms: it waited
// for its host) and task 1 (issued over [1, 2] ms, started at 5 ms, after
// task 0); device 1's host issues task 2 over [0, 1] ms.
Trace host_bound() {
  Trace t;
  t.device_names = {"gpu0", "gpu1"};
  t.streams = {{0, "compute"}, {1, "compute"}};
  t.names = {"fwd.qkv", "fwd.proj", "recv"};
  auto span = [&](TaskId task, int device, double s, double e) {
    TraceSpan x;
    x.task = task;
    x.device = device;
    x.stream = device;
    x.start_seconds = s;
    x.end_seconds = e;
    x.name = static_cast<NameId>(task);
    t.spans.push_back(x);
  };
  span(0, 0, 1e-3, 5e-3);
  span(1, 0, 5e-3, 6e-3);
  span(2, 1, 5e-3, 6e-3);
  t.host = {HostSpan{0, 0, 0, 1e-3, 0}, HostSpan{2, 1, 0, 1e-3, 2}, HostSpan{1, 0, 1e-3, 2e-3, 1}};
  return t;
}

TEST(HostLane, NoHostSlicesNoLane) {
  Trace t = host_bound();
  t.host.clear();
  EXPECT_EQ(HostLane::build(t), nullptr);
}

TEST(HostLane, EachDevicesSlicesAreOneTrack) {
  const Trace t = host_bound();
  auto lane = HostLane::build(t);
  ASSERT_NE(lane, nullptr);
  EXPECT_EQ(lane->num_slices(), 3);
  const int t0 = lane->track_of_device(0), t1 = lane->track_of_device(1);
  ASSERT_GE(t0, 0);
  ASSERT_GE(t1, 0);
  EXPECT_NE(t0, t1);
  EXPECT_EQ(lane->track_of_device(2), -1);
  EXPECT_EQ(lane->track_of_device(-1), -1);
  // The slices' indices are Trace::host's.
  auto spans = lane->index().track_spans(t0);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0], 0);
  EXPECT_EQ(spans[1], 2);
  EXPECT_EQ(lane->slice_at(0, 1.5e-3, 0), 2);
  EXPECT_EQ(lane->slice_at(1, 0.5e-3, 0), 1);
  EXPECT_EQ(lane->slice_at(1, 3e-3, 1e-4), -1);
  // A whole-window query at a coarse resolution merges device 0's two
  // back-to-back slices into one fully busy item.
  std::vector<LodItem> items;
  lane->index().query(t0, 0, 6e-3, 1e-2, items);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].count, 2);
  EXPECT_DOUBLE_EQ(items[0].busy_seconds, 2e-3);
}

TEST(HostLane, ASliceSaysWhenItsTaskStarted) {
  const Trace t = host_bound();
  auto lane = HostLane::build(t);
  ASSERT_NE(lane, nullptr);
  const TraceIndex spans = TraceIndex::build(t, nullptr);
  EXPECT_EQ(lane->describe(0, &spans),
            "gpu0's host issues fwd.qkv: 1.00 ms, from 0 s to 1.00 ms; it started then, waiting "
            "for its host");
  EXPECT_EQ(lane->describe(2, &spans),
            "gpu0's host issues fwd.proj: 1.00 ms, from 1.00 ms to 2.00 ms; it started at 5.00 ms");
  EXPECT_EQ(lane->describe(1), "gpu1's host issues recv: 1.00 ms, from 0 s to 1.00 ms");
}

}  // namespace
}  // namespace brigade::gui
