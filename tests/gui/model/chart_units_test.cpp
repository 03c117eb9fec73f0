// Units and ticks of the charts' axes (gui/model/chart_units.hpp).
#include "gui/model/chart_units.hpp"

#include <cmath>
#include <string>
#include <vector>

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

std::vector<std::string> labels(const std::vector<LogTick>& ticks) {
  std::vector<std::string> out;
  for (const LogTick& t : ticks) out.push_back(t.label);
  return out;
}

TEST(LogTicks, BytesAtPowersOfTwo) {
  // 1 KiB .. 4 GiB is 2^10 .. 2^32: 23 powers, so every 5th (2^10, 2^15,
  // ...): 1 KiB, 32 KiB, 1 MiB, 32 MiB, 1 GiB.
  EXPECT_EQ(labels(log_ticks(1024, 4.0 * (1 << 30), LogUnit::kBytes)),
            (std::vector<std::string>{"1 KiB", "32 KiB", "1 MiB", "32 MiB", "1 GiB"}));
  // 4 KiB .. 1 MiB: 2^12 .. 2^20, 9 powers: every one.
  const auto t = log_ticks(4096, 1048576, LogUnit::kBytes);
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t.front().label, "4 KiB");
  EXPECT_EQ(t[1].label, "8 KiB");
  EXPECT_EQ(t.back().label, "1 MiB");
  EXPECT_NEAR(t.back().position, 20 * std::log10(2.0), 1e-12);
}

TEST(LogTicks, FlopsAndBandwidthAtPowersOfTen) {
  EXPECT_EQ(labels(log_ticks(2e6, 3e12, LogUnit::kFlops)),
            (std::vector<std::string>{"10 MFLOP", "100 MFLOP", "1 GFLOP", "10 GFLOP", "100 GFLOP",
                                      "1 TFLOP"}));
  // Under three decades: 1, 2, 5 in each.
  EXPECT_EQ(labels(log_ticks(1.5e9, 60e9, LogUnit::kBytesPerSecond)),
            (std::vector<std::string>{"2 GB/s", "5 GB/s", "10 GB/s", "20 GB/s", "50 GB/s"}));
  EXPECT_NEAR(log_ticks(1.5e9, 60e9, LogUnit::kBytesPerSecond)[2].position, 10, 1e-12);
  // Within a decade: every whole multiple, on into the next decade.
  EXPECT_EQ(labels(log_ticks(14e9, 45e9, LogUnit::kBytesPerSecond)),
            (std::vector<std::string>{"20 GB/s", "30 GB/s", "40 GB/s"}));
  EXPECT_EQ(labels(log_ticks(7e9, 12e9, LogUnit::kBytesPerSecond)),
            (std::vector<std::string>{"7 GB/s", "8 GB/s", "9 GB/s", "10 GB/s"}));
  EXPECT_TRUE(log_ticks(0, 1, LogUnit::kFlops).empty());
}

}  // namespace
}  // namespace brigade::gui
