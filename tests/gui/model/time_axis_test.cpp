// The timeline's time <-> pixel mapping, zoom and pan (gui/model/time_axis.hpp).
#include "gui/model/time_axis.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

struct MapCase {
  double start, end, width;
};

class TimeToPixel : public ::testing::TestWithParam<MapCase> {};

// x = (t - start) * width / duration, and back, for windows from 1 ps to 100 s.
TEST_P(TimeToPixel, RoundTripsEveryPixel) {
  const MapCase c = GetParam();
  TimeAxis a;
  a.set_extent(0, c.end < 4 ? 4 : 1000);
  a.set_width_pixels(c.width);
  a.set_window({c.start, c.end});
  ASSERT_EQ(a.window().start_seconds, c.start);
  ASSERT_EQ(a.window().end_seconds, c.end);
  EXPECT_DOUBLE_EQ(a.time_to_x(c.start), 0);
  EXPECT_NEAR(a.time_to_x(c.end), c.width, 1e-9 * c.width);
  for (double x = 0; x <= c.width; x += c.width / 7) {
    const double t = a.x_to_time(x);
    EXPECT_NEAR(a.time_to_x(t), x, 1e-4) << "x " << x;
  }
}

INSTANTIATE_TEST_SUITE_P(Windows, TimeToPixel,
                         ::testing::Values(MapCase{0, 1, 1000}, MapCase{0.25, 0.75, 800},
                                           MapCase{10, 110, 1920},
                                           MapCase{3.000001, 3.000001 + 1e-8, 500},
                                           MapCase{999, 1000, 123}));

struct ZoomCase {
  double factor, anchor_x;
};

class ZoomRoundTrip : public ::testing::TestWithParam<ZoomCase> {};

// Zooming in by f and out by 1/f at the same pixel gives the window back,
// and the time under the anchor stays under it.
TEST_P(ZoomRoundTrip, InThenOutGivesTheWindowBack) {
  const ZoomCase c = GetParam();
  TimeAxis a;
  a.set_extent(0, 10);
  a.set_width_pixels(1000);
  a.set_window({2, 6});
  const TimeWindow before = a.window();
  const double anchor_t = a.x_to_time(c.anchor_x);
  a.zoom(c.factor, c.anchor_x);
  EXPECT_NEAR(a.window().duration_seconds(), 4 / c.factor, 1e-12);
  EXPECT_NEAR(a.x_to_time(c.anchor_x), anchor_t, 1e-12);
  a.zoom(1 / c.factor, c.anchor_x);
  // The zoomed window's times carry rounding of about 1e-16 of 6 s, which
  // zooming out by f magnifies f times.
  const double tolerance = 1e-12 + 6e-15 * c.factor;
  EXPECT_NEAR(a.window().start_seconds, before.start_seconds, tolerance);
  EXPECT_NEAR(a.window().end_seconds, before.end_seconds, tolerance);
}

INSTANTIATE_TEST_SUITE_P(Factors, ZoomRoundTrip,
                         ::testing::Values(ZoomCase{1.25, 0}, ZoomCase{1.25, 500},
                                           ZoomCase{1.25, 1000}, ZoomCase{2, 137},
                                           ZoomCase{1000, 999}, ZoomCase{1e6, 250}));

TEST(TimeAxis, ZoomOutStopsAtTheExtent) {
  TimeAxis a;
  a.set_extent(0, 10);
  a.set_width_pixels(100);
  a.set_window({4, 5});
  for (int i = 0; i < 50; ++i) a.zoom(0.5, 50);
  EXPECT_EQ(a.window(), (TimeWindow{0, 10}));
}

// The smallest window: a billionth of the extent's largest time (1 ns for a
// 1 s trace), or 1 ps.
TEST(TimeAxis, ZoomInStopsAtTheSmallestWindowItsTimesResolve) {
  TimeAxis a;
  a.set_extent(0, 1);
  a.set_width_pixels(100);
  for (int i = 0; i < 100; ++i) a.zoom(10, 50);
  EXPECT_NEAR(a.window().duration_seconds(), 1e-9, 1e-15);
  a.set_extent(0, 1e-6);
  for (int i = 0; i < 100; ++i) a.zoom(10, 50);
  EXPECT_NEAR(a.window().duration_seconds(), TimeAxis::kMinDurationSeconds, 1e-18);
}

TEST(TimeAxis, PanStopsAtBothEnds) {
  TimeAxis a;
  a.set_extent(0, 10);
  a.set_width_pixels(100);  // 0.01 s per pixel in a 1 s window
  a.set_window({1, 2});
  a.pan_pixels(50);  // 0.5 s later
  EXPECT_NEAR(a.window().start_seconds, 1.5, 1e-12);
  a.pan_pixels(-1e6);
  EXPECT_EQ(a.window(), (TimeWindow{0, 1}));
  a.pan_pixels(1e6);
  EXPECT_EQ(a.window(), (TimeWindow{9, 10}));
}

TEST(TimeAxis, NonFiniteWindowsAndFactorsAreIgnored) {
  TimeAxis a;
  a.set_extent(0, 10);
  a.set_width_pixels(100);
  a.set_window({NAN, NAN});
  EXPECT_TRUE(std::isfinite(a.window().start_seconds));
  const TimeWindow w = a.window();
  a.zoom(NAN, 10);
  a.zoom(0, 10);
  EXPECT_EQ(a.window(), w);
}

TEST(ZoomStack, PopGivesBackExactlyWhatWasPushedLastFirst) {
  ZoomStack z;
  EXPECT_FALSE(z.pop().has_value());
  z.push({0.1, 0.30000000000000004});
  z.push({1.0 / 3, 2.0 / 3});
  EXPECT_EQ(z.size(), 2u);
  EXPECT_EQ(*z.pop(), (TimeWindow{1.0 / 3, 2.0 / 3}));
  EXPECT_EQ(*z.pop(), (TimeWindow{0.1, 0.30000000000000004}));
  EXPECT_TRUE(z.empty());
}

}  // namespace
}  // namespace brigade::gui
