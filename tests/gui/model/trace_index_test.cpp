// The timeline's index: tracks by nesting depth, level of detail, hit
// testing and transfers in a window (gui/model/trace_index.hpp).
#include "gui/model/trace_index.hpp"

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

Trace two_streams() {
  Trace t;
  t.device_names = {"gpu0"};
  t.streams = {{0, "compute"}, {0, "comm"}};
  t.names = {"a", "b", "c"};
  auto span = [&](int stream, double s, double e, NameId name, TaskKind kind = TaskKind::kCompute) {
    TraceSpan x;
    x.stream = stream;
    x.start_seconds = s;
    x.end_seconds = e;
    x.name = name;
    x.kind = kind;
    x.task = static_cast<TaskId>(t.spans.size());
    t.spans.push_back(x);
  };
  span(0, 0, 10, 0);   // parent
  span(0, 1, 3, 1);    // child of 0
  span(0, 2, 2.5, 2);  // grandchild
  span(0, 4, 6, 1);    // child of 0
  span(0, 12, 13, 0);  // after the parent: depth 0 again
  span(1, 5, 8, 2, TaskKind::kCollective);
  return t;
}

TEST(TraceIndex, NestedSpansGoOneDepthBelowTheirParent) {
  const Trace t = two_streams();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  ASSERT_EQ(ix.tracks_of_stream(0).size(), 3u);
  ASSERT_EQ(ix.tracks_of_stream(1).size(), 1u);
  EXPECT_EQ(ix.depth_of_span(0), 0);
  EXPECT_EQ(ix.depth_of_span(1), 1);
  EXPECT_EQ(ix.depth_of_span(2), 2);
  EXPECT_EQ(ix.depth_of_span(3), 1);
  EXPECT_EQ(ix.depth_of_span(4), 0);
  const auto d0 = ix.track_spans(ix.tracks_of_stream(0)[0]);
  EXPECT_EQ(std::vector<std::int32_t>(d0.begin(), d0.end()), (std::vector<std::int32_t>{0, 4}));
  EXPECT_EQ(ix.start_seconds(), 0);
  EXPECT_EQ(ix.end_seconds(), 13);
  EXPECT_EQ(ix.span_class(5), SpanClass::kCollective);
  EXPECT_TRUE(ix.classes_present() & class_bit(SpanClass::kForward));
}

TEST(TraceIndex, SpanAtFindsTheSpanUnderATimeOrTheNearestWithinTolerance) {
  const Trace t = two_streams();
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  const int d1 = ix.tracks_of_stream(0)[1];
  EXPECT_EQ(ix.span_at(d1, 2, 0), 1);
  EXPECT_EQ(ix.span_at(d1, 5, 0), 3);
  EXPECT_EQ(ix.span_at(d1, 3.5, 0), -1);
  EXPECT_EQ(ix.span_at(d1, 3.2, 0.25), 1);  // 0.2 after span 1's end
  EXPECT_EQ(ix.span_at(d1, 3.9, 0.25), 3);  // 0.1 before span 3's start
  EXPECT_EQ(ix.span_of_task(3), 3);
  EXPECT_EQ(ix.span_of_task(99), -1);
}

// N back-to-back spans of 1 us on one stream, every tenth 50 us long.
Trace dense(int n) {
  Trace t;
  t.device_names = {"gpu0"};
  t.streams = {{0, "compute"}};
  t.names = {"k"};
  double now = 0;
  for (int i = 0; i < n; ++i) {
    TraceSpan s;
    s.name = 0;
    s.start_seconds = now;
    now += (i % 10 == 0) ? 50e-6 : 1e-6;
    s.end_seconds = now;
    s.phase = i % 2 ? Phase::kBackward : Phase::kForward;
    t.spans.push_back(s);
  }
  return t;
}

struct LodCase {
  int spans;
  double pixels;
};

class LevelOfDetail : public ::testing::TestWithParam<LodCase> {};

// Over the whole trace at one pixel's resolution, a query returns at most
// a few items per pixel, and they account for every span and all their busy
// time once.
TEST_P(LevelOfDetail, QueryIsBoundedByPixelsAndLosesNothing) {
  const LodCase c = GetParam();
  const Trace t = dense(c.spans);
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  const double extent = ix.end_seconds() - ix.start_seconds();
  const double r = extent / c.pixels;
  std::vector<LodItem> items;
  ix.query(0, ix.start_seconds(), ix.end_seconds(), r, items);
  EXPECT_LE(static_cast<double>(items.size()), 2 * c.pixels + 3);
  std::int64_t count = 0;
  double busy = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    count += items[i].count;
    busy += items[i].busy_seconds;
    if (i > 0) {
      EXPECT_GE(items[i].start_seconds, items[i - 1].end_seconds);
    }
    // A merged item is a run of spans shorter than the resolution.
    if (items[i].count > 1) {
      const TraceSpan& rep = t.spans[static_cast<size_t>(items[i].rep)];
      EXPECT_LT(rep.end_seconds - rep.start_seconds, r);
    }
  }
  EXPECT_EQ(count, c.spans);
  EXPECT_NEAR(busy, extent, extent * 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Sizes, LevelOfDetail,
                         ::testing::Values(LodCase{10, 1000}, LodCase{1000, 100},
                                           LodCase{100000, 1000}, LodCase{100000, 50},
                                           LodCase{200000, 3000}));

TEST(LevelOfDetail, ZoomedInQueriesReturnTheSpansThemselves) {
  const Trace t = dense(1000);
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  std::vector<LodItem> items;
  // 20 us over 2000 px: 10 ns a pixel; every span is wider than a pixel.
  ix.query(0, 100e-6, 120e-6, 10e-9, items);
  ASSERT_FALSE(items.empty());
  for (const LodItem& it : items) EXPECT_EQ(it.count, 1);
  EXPECT_LE(items.front().start_seconds, 100e-6);
  EXPECT_GE(items.back().end_seconds, 120e-6);
  EXPECT_GT(ix.levels(), 0);
}

// A zoomed-out row is coloured per pixel by what runs there: merged items
// stay within about one resolution, so one long span early in a busy row
// does not lend its colour to the whole row. (Before, a run of spans each
// shorter than the resolution merged into one item over the whole track,
// coloured by its longest member: the Mixtral scenario's expert GPUs drew
// one solid "recompute" band over a step of forward and backward kernels.)
TEST(LevelOfDetail, MergedItemsStayWithinAboutOneResolution) {
  Trace t;
  t.device_names = {"gpu0"};
  t.streams = {{0, "compute"}};
  t.names = {"k"};
  double now = 0;
  // One 8 us recompute span, then 2000 forward spans of 5 us, 1 us apart.
  auto add = [&](double len, Phase ph) {
    TraceSpan s;
    s.name = 0;
    s.start_seconds = now;
    s.end_seconds = now + len;
    s.phase = ph;
    s.task = static_cast<TaskId>(t.spans.size());
    t.spans.push_back(s);
    now += len + 1e-6;
  };
  add(8e-6, Phase::kRecompute);
  for (int i = 0; i < 2000; ++i) add(5e-6, Phase::kForward);
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  // 12 ms over 100 pixels: 120 us a pixel; every span is below it.
  const double r = (ix.end_seconds() - ix.start_seconds()) / 100;
  std::vector<LodItem> items;
  ix.query(0, ix.start_seconds(), ix.end_seconds(), r, items);
  ASSERT_GE(items.size(), 90u);
  std::int64_t count = 0;
  int recompute = 0;
  for (const LodItem& it : items) {
    count += it.count;
    EXPECT_LT(it.end_seconds - it.start_seconds, 2 * r);
    if (ix.span_class(it.rep) == SpanClass::kRecompute) ++recompute;
  }
  EXPECT_EQ(count, 2001);
  EXPECT_EQ(recompute, 1);  // the first item only
  EXPECT_EQ(ix.span_class(items.back().rep), SpanClass::kForward);
}

TEST(TraceIndex, TransfersInAWindowIncludeThoseThatStartedBefore) {
  Trace t = two_streams();
  for (auto [s, e] : {std::pair{0.0, 100.0}, {1.0, 2.0}, {5.0, 6.0}, {50.0, 60.0}}) {
    TraceTransfer x;
    x.start_seconds = s;
    x.end_seconds = e;
    t.transfers.push_back(x);
  }
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  std::vector<std::int32_t> out;
  ix.transfers_in(4, 7, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{0, 2}));
  EXPECT_EQ(ix.end_seconds(), 100);
}

TEST(TraceIndex, AnEmptyTraceHasNoTracks) {
  Trace t;
  const TraceIndex ix = TraceIndex::build(t, nullptr);
  EXPECT_EQ(ix.num_tracks(), 0);
  EXPECT_EQ(ix.num_spans(), 0);
  EXPECT_TRUE(ix.tracks_of_stream(0).empty());
}

}  // namespace
}  // namespace brigade::gui
