// Units and ticks of the charts' axes (gui/model/chart_units.hpp).
#include "gui/model/chart_units.hpp"

#include <string>

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

struct UnitCase {
  double value;
  double unit;
  std::string name;
};

class ByteUnits : public ::testing::TestWithParam<UnitCase> {};
TEST_P(ByteUnits, ReadBetweenOneAnd1024) {
  const ByteUnit u = byte_unit_for(GetParam().value);
  EXPECT_DOUBLE_EQ(u.bytes, GetParam().unit);
  EXPECT_EQ(std::string(u.name), GetParam().name);
}
INSTANTIATE_TEST_SUITE_P(Cases, ByteUnits,
                         ::testing::Values(UnitCase{0, 1, "B"}, UnitCase{1023, 1, "B"},
                                           UnitCase{1024, 1024, "KiB"},
                                           UnitCase{80.0 * (1 << 30), 1 << 30, "GiB"},
                                           UnitCase{3e15, 1099511627776.0, "TiB"}));

class TimeUnits : public ::testing::TestWithParam<UnitCase> {};
TEST_P(TimeUnits, ReadBetweenOneAndAThousand) {
  const TimeUnit u = time_unit_for(GetParam().value);
  EXPECT_DOUBLE_EQ(u.seconds, GetParam().unit);
  EXPECT_EQ(std::string(u.name), GetParam().name);
}
INSTANTIATE_TEST_SUITE_P(Cases, TimeUnits,
                         ::testing::Values(UnitCase{17.8, 1, "s"}, UnitCase{0.0123, 1e-3, "ms"},
                                           UnitCase{9.87e-6, 1e-6, "us"},
                                           UnitCase{5e-7, 1e-9, "ns"}));

struct StepCase {
  double span;
  int max_ticks;
  double step;
};

class NiceStep : public ::testing::TestWithParam<StepCase> {};

// 17.84 s in at most 8 intervals: 17.84 / 8 = 2.23 -> 5 (2 would need 9);
// 26.66 ms: 3.33 -> 5; 1024 devices: 128 -> 200; exactly 10 / 5 = 2 -> 2.
TEST_P(NiceStep, IsTheSmallestOneTwoFiveStepThatFits) {
  EXPECT_DOUBLE_EQ(nice_step(GetParam().span, GetParam().max_ticks), GetParam().step);
}
INSTANTIATE_TEST_SUITE_P(Cases, NiceStep,
                         ::testing::Values(StepCase{17.84, 8, 5}, StepCase{26.66, 8, 5},
                                           StepCase{1024, 8, 200}, StepCase{10, 5, 2},
                                           StepCase{9.865, 8, 2}, StepCase{0.003, 3, 0.001},
                                           StepCase{0, 8, 1}));

}  // namespace
}  // namespace brigade::gui
