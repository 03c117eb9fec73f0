// Statistics of a selected time range and utilisation binning
// (gui/model/range_stats.hpp).
#include "gui/model/range_stats.hpp"

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

// gpu0: compute [0, 2] and [3, 5]; comm [1, 4]. gpu1: comm [1, 4].
// One transfer gpu0 -> gpu1 of 300 B over [1, 4].
Trace example() {
  Trace t;
  t.device_names = {"gpu0", "gpu1"};
  t.streams = {{0, "compute"}, {0, "comm"}, {1, "comm"}};
  t.names = {"gemm", "allreduce"};
  auto span = [&](int stream, int device, double s, double e, TaskKind k) {
    TraceSpan x;
    x.stream = stream;
    x.device = device;
    x.start_seconds = s;
    x.end_seconds = e;
    x.kind = k;
    x.name = k == TaskKind::kCompute ? 0 : 1;
    t.spans.push_back(x);
  };
  span(0, 0, 0, 2, TaskKind::kCompute);
  span(0, 0, 3, 5, TaskKind::kCompute);
  span(1, 0, 1, 4, TaskKind::kCollective);
  span(2, 1, 1, 4, TaskKind::kCollective);
  TraceTransfer x;
  x.src = 0;
  x.dst = 1;
  x.bytes = 300;
  x.start_seconds = 1;
  x.end_seconds = 4;
  t.transfers.push_back(x);
  return t;
}

TEST(RangeStats, BusyCommAndExposedCommPerDevice) {
  const Trace t = example();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  // Range [0, 4]: gpu0 busy [0,2] + [3,4] = 3 s; comm [1,4] = 3 s, of which
  // [2,3] has no compute: exposed 1 s. gpu1: comm 3 s, all exposed.
  // The transfer lies wholly inside: 300 B.
  const RangeStats r = range_stats(t, ix, 0, 4);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(r.devices[0].busy_seconds, 3);
  EXPECT_DOUBLE_EQ(r.devices[0].comm_seconds, 3);
  EXPECT_DOUBLE_EQ(r.devices[0].exposed_comm_seconds, 1);
  EXPECT_DOUBLE_EQ(r.devices[0].bytes_sent, 300);
  EXPECT_DOUBLE_EQ(r.devices[1].comm_seconds, 3);
  EXPECT_DOUBLE_EQ(r.devices[1].exposed_comm_seconds, 3);
  EXPECT_DOUBLE_EQ(r.devices[1].bytes_received, 300);
  EXPECT_DOUBLE_EQ(r.bytes_moved, 300);
  EXPECT_EQ(r.spans, 4);
}

// The host lane: gpu0's host issues over [0, 1] and [1, 2.5]; gpu1's over
// [0, 0.5]. Range [0.5, 2]: gpu0's host 1.5 s (0.5 + 1, clipped), gpu1's 0;
// without the lane, -1 (no column).
TEST(RangeStats, TheHostsIssuingPerDevice) {
  Trace t = example();
  t.host = {HostSpan{0, 0, 0, 1, 0}, HostSpan{1, 1, 0, 0.5, 1}, HostSpan{2, 0, 1, 2.5, 0}};
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  const auto host = HostLane::build(t);
  ASSERT_NE(host, nullptr);
  const RangeStats r = range_stats(t, ix, 0.5, 2, host.get());
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(r.devices[0].host_seconds, 1.5);
  EXPECT_DOUBLE_EQ(r.devices[1].host_seconds, 0);
  EXPECT_DOUBLE_EQ(range_stats(t, ix, 0, 5, host.get()).devices[0].host_seconds, 2.5);
  EXPECT_DOUBLE_EQ(range_stats(t, ix, 0.5, 2).devices[0].host_seconds, -1);
}

TEST(RangeStats, APartialRangeClipsSpansAndTakesTransfersProRata) {
  const Trace t = example();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  // Range [2, 3]: gpu0 no compute, comm 1 s all exposed; the transfer has
  // 1 of its 3 s inside: 100 B.
  const RangeStats r = range_stats(t, ix, 2, 3);
  EXPECT_DOUBLE_EQ(r.devices[0].busy_seconds, 0);
  EXPECT_DOUBLE_EQ(r.devices[0].exposed_comm_seconds, 1);
  EXPECT_DOUBLE_EQ(r.bytes_moved, 100);
}

struct CoverageCase {
  std::vector<std::pair<double, double>> intervals;
  int bins;
  std::vector<double> expected;
};

class Binning : public ::testing::TestWithParam<CoverageCase> {};

TEST_P(Binning, EachBinGetsTheFractionCovered) {
  CoverageCase c = GetParam();
  const std::vector<double> got = bin_coverage(c.intervals, 0, 4, c.bins);
  ASSERT_EQ(got.size(), c.expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], c.expected[i], 1e-12) << i;
}

// Bins of [0, 4]: overlapping intervals count once; intervals outside are clipped.
INSTANTIATE_TEST_SUITE_P(
    Cases, Binning,
    ::testing::Values(CoverageCase{{{0, 1}}, 4, {1, 0, 0, 0}},
                      CoverageCase{{{0.5, 1.5}}, 4, {0.5, 0.5, 0, 0}},
                      CoverageCase{{{0, 3}, {1, 2}}, 2, {1, 0.5}},
                      CoverageCase{{{-5, 0.25}, {3.75, 9}}, 4, {0.25, 0, 0, 0.25}},
                      CoverageCase{{}, 3, {0, 0, 0}}, CoverageCase{{{0, 4}}, 1, {1}}));

TEST(RangeStats, UnionAndDifference) {
  std::vector<std::pair<double, double>> a = {{0, 2}, {1, 3}, {5, 6}};
  std::vector<std::pair<double, double>> b = {{2.5, 5.5}};
  EXPECT_DOUBLE_EQ(union_seconds(a, 0, 10), 4);          // [0,3] + [5,6]
  EXPECT_DOUBLE_EQ(difference_seconds(a, b, 0, 10), 3);  // minus [2.5,3] and [5,5.5]
}

TEST(Utilisation, BinsAverageOverDevices) {
  const Trace t = example();
  // [0, 4] in 4 bins, 2 devices. Compute (gpu0 only): [0,2] and [3,5]:
  // bins 1, 1, 0, 1 s of compute -> 0.5, 0.5, 0, 0.5. Communication:
  // [1,4] on both devices: 0, 2, 2, 2 s -> 0, 1, 1, 1.
  EXPECT_EQ(utilisation_bins(t, 0, 4, 4, true), (std::vector<double>{0.5, 0.5, 0, 0.5}));
  EXPECT_EQ(utilisation_bins(t, 0, 4, 4, false), (std::vector<double>{0, 1, 1, 1}));
}

TEST(FindSpans, MatchesNamesCaseInsensitivelyInTimeOrder) {
  Trace t = example();
  t.spans[1].name = 1;  // the second compute span is also an "allreduce"
  const auto found = find_spans(t, "ALLred");
  EXPECT_EQ(found, (std::vector<std::int32_t>{2, 3, 1}));
  EXPECT_TRUE(find_spans(t, "").empty());
  EXPECT_TRUE(find_spans(t, "nope").empty());
}

}  // namespace
}  // namespace brigade::gui
