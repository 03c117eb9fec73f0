// Trace times as exact microsecond decimals (core/trace_decimal.hpp): what
// the writer puts in "ts" and "dur" reads back as the same seconds.
#include "core/trace_decimal.hpp"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace brigade::trace_decimal {
namespace {

std::string us(double seconds) {
  std::string s;
  append_us(s, seconds);
  return s;
}

std::string us_difference(double a, double b) {
  std::string s;
  EXPECT_TRUE(append_us_difference(s, a, b));
  return s;
}

TEST(TraceDecimal, MovesTheDecimalPointSixPlaces) {
  EXPECT_EQ(us(0), "0");
  EXPECT_EQ(us(0.1), "100000");
  EXPECT_EQ(us(1.0 / 3), "333333.3333333333");  // 0.3333333333333333 s
  EXPECT_EQ(us(1.5e-7), "0.15");
  EXPECT_EQ(us(5), "5000000");
  EXPECT_EQ(us(2.5e-13), "0.00000025");  // 2.5e-7 us: up to 6 zeros after the point
  EXPECT_EQ(us(2.5e-14), "2.5e-8");
  EXPECT_EQ(us(2.5e-15), "2.5e-9");
  EXPECT_EQ(us(1e20), "1e26");
}

TEST(TraceDecimal, DifferencesAreExactInDecimal) {
  // 0.7000000000000001 - 0.3333333333333333 = 0.3666666666666668 (s), exactly.
  EXPECT_EQ(us_difference(1.0 / 3, 0.7000000000000001), "366666.6666666668");
  EXPECT_EQ(us_difference(0.1, 0.1), "0");
  EXPECT_EQ(us_difference(0, 0.25), "250000");
  // Very different magnitudes do not fit in 38 digits: the caller says so.
  std::string s;
  EXPECT_FALSE(append_us_difference(s, 1e-300, 1.0));
  EXPECT_TRUE(s.empty());
}

TEST(TraceDecimal, ReadsTokensBackToTheSameSeconds) {
  EXPECT_EQ(seconds_from_us("100000"), 0.1);
  EXPECT_EQ(seconds_from_us("333333.3333333333"), 1.0 / 3);
  EXPECT_EQ(seconds_from_us("2.5e-9"), 2.5e-15);
  EXPECT_EQ(seconds_from_us("1E3"), 1e-3);
  EXPECT_EQ(seconds_from_us("-10"), -1e-5);
  EXPECT_FALSE(seconds_from_us("x").has_value());
  EXPECT_EQ(seconds_from_us_sum("333333.3333333333", "366666.6666666668"), 0.7000000000000001);
  // 10 us + 5 us, a foreign trace's integers.
  EXPECT_EQ(seconds_from_us_sum("10", "5"), 15e-6);
}

// 200,000 random times of a step's magnitudes: written and read back, the
// same double; ts + dur, the same end.
TEST(TraceDecimal, RoundTripsRandomTimesBitForBit) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mag(-9, 3);
  std::uniform_real_distribution<double> frac(0, 1);
  for (int i = 0; i < 200000; ++i) {
    const double a = std::pow(10.0, mag(rng)) * frac(rng);
    const double b = a + std::pow(10.0, mag(rng)) * frac(rng);
    const std::string ta = us(a), tb = us(b);
    ASSERT_EQ(seconds_from_us(ta), a) << ta;
    ASSERT_EQ(seconds_from_us(tb), b) << tb;
    std::string d;
    ASSERT_TRUE(append_us_difference(d, a, b));
    ASSERT_EQ(seconds_from_us_sum(ta, d), b) << ta << " + " << d;
  }
}

}  // namespace
}  // namespace brigade::trace_decimal
