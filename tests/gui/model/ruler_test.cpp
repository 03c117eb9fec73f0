// The ruler's ticks and labels (gui/model/ruler.hpp).
#include "gui/model/ruler.hpp"

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

struct StepCase {
  double duration_seconds;
  double width_pixels;
  double step_seconds;  // the 1-2-5 step >= 90 px of time
};

class TickStep : public ::testing::TestWithParam<StepCase> {};

// 90 px of a window: 10 us over 1000 px is 0.9 us -> 1 us; 1 s over 1000 px
// is 90 ms -> 100 ms; 3 ms over 1500 px is 0.18 ms -> 0.2 ms; 7 ns over
// 700 px is 0.9 ns -> 1 ns; 40 s over 800 px is 4.5 s -> 5 s.
TEST_P(TickStep, IsTheSmallestOneTwoFiveStepNinetyPixelsApart) {
  const StepCase c = GetParam();
  TimeAxis a;
  a.set_extent(0, c.duration_seconds);
  a.set_width_pixels(c.width_pixels);
  a.set_window({0, c.duration_seconds});
  EXPECT_NEAR(tick_step_seconds(a, 90), c.step_seconds, c.step_seconds * 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Windows, TickStep,
                         ::testing::Values(StepCase{10e-6, 1000, 1e-6}, StepCase{1, 1000, 0.1},
                                           StepCase{3e-3, 1500, 0.2e-3},
                                           StepCase{7e-9, 700, 1e-9}, StepCase{40, 800, 5}));

struct LabelCase {
  double t, step;
  const char* label;
};

class TickLabel : public ::testing::TestWithParam<LabelCase> {};

TEST_P(TickLabel, UsesTheStepsUnitAndDecimals) {
  const LabelCase c = GetParam();
  EXPECT_EQ(format_tick(c.t, c.step), c.label);
}

INSTANTIATE_TEST_SUITE_P(Units, TickLabel,
                         ::testing::Values(LabelCase{0, 1e-9, "0 ns"}, LabelCase{50e-9, 10e-9, "50 ns"},
                                           LabelCase{1.2e-6, 200e-9, "1.2 us"},
                                           LabelCase{3e-6, 1e-6, "3 us"},
                                           LabelCase{1.5e-3, 0.5e-3, "1.5 ms"},
                                           LabelCase{0.04, 0.02, "40 ms"},
                                           LabelCase{0.3, 0.1, "0.3 s"},
                                           LabelCase{12, 5, "12 s"},
                                           LabelCase{-1e-18, 1e-6, "0 us"}));

TEST(Ruler, MajorTicksAreOneStepApartInsideTheWindowWithFourMinorBetween) {
  TimeAxis a;
  a.set_extent(0, 1);
  a.set_width_pixels(1000);
  a.set_window({0.05, 0.55});  // 500 ms, 45 ms per 90 px -> 50 ms steps, 100 px apart
  const std::vector<Tick> ticks = ruler_ticks(a, 90);
  std::vector<std::string> labels;
  int minor = 0;
  for (const Tick& t : ticks) {
    EXPECT_GE(t.time_seconds, 0.05 - 1e-12);
    EXPECT_LE(t.time_seconds, 0.55 + 1e-12);
    if (t.major)
      labels.push_back(t.label);
    else
      ++minor;
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"50 ms", "100 ms", "150 ms", "200 ms", "250 ms",
                                              "300 ms", "350 ms", "400 ms", "450 ms", "500 ms",
                                              "550 ms"}));
  EXPECT_EQ(minor, 10 * 4);  // 20 px apart: drawn
  EXPECT_NEAR(ticks.front().x, 0, 1e-9);
}

TEST(Ruler, FormatDurationPicksAUnit) {
  EXPECT_EQ(format_duration(0), "0 s");
  EXPECT_EQ(format_duration(850e-9), "850 ns");
  EXPECT_EQ(format_duration(1.234e-3), "1.23 ms");
  EXPECT_EQ(format_duration(2.5), "2.5 s");
}

}  // namespace
}  // namespace brigade::gui
