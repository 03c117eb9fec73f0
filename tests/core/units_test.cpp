#include "core/units.hpp"

#include <gtest/gtest.h>

namespace brigade {
namespace {

struct UnitCase {
  const char* text;
  Dimension dim;
  double expected;
};

void PrintTo(const UnitCase& c, std::ostream* os) { *os << c.text; }

class ParseQuantity : public ::testing::TestWithParam<UnitCase> {};

TEST_P(ParseQuantity, ConvertsToSI) {
  const UnitCase& c = GetParam();
  auto r = parse_quantity(c.text, c.dim);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_DOUBLE_EQ(*r, c.expected) << c.text;
}

// GB = 1e9, GiB = 2^30 (issue 2); Gbps counts bits: 200 Gbps = 200e9/8 B/s.
INSTANTIATE_TEST_SUITE_P(
    Units, ParseQuantity,
    ::testing::Values(UnitCase{"25GB/s", Dimension::kBytesPerSecond, 25e9},
                      UnitCase{"200Gbps", Dimension::kBytesPerSecond, 25e9},
                      UnitCase{"200 Gb/s", Dimension::kBytesPerSecond, 25e9},
                      UnitCase{"5us", Dimension::kSeconds, 5e-6},
                      UnitCase{"2 ms", Dimension::kSeconds, 2e-3},
                      UnitCase{"100ns", Dimension::kSeconds, 1e-7},
                      UnitCase{"80GiB", Dimension::kBytes, 80.0 * 1073741824.0},
                      UnitCase{"1.5GB", Dimension::kBytes, 1.5e9},
                      UnitCase{"1KiB", Dimension::kBytes, 1024},
                      UnitCase{"4096", Dimension::kBytes, 4096},
                      UnitCase{"312TFLOPS", Dimension::kFlopsPerSecond, 312e12},
                      UnitCase{"1e9", Dimension::kBytesPerSecond, 1e9}));

TEST(ParseQuantity, RejectsWrongUnitWithExactMessage) {
  auto r = parse_quantity("5 parsecs", Dimension::kSeconds);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "found '5 parsecs'; expected a duration such as 5us, 2ms or 0.001 (seconds)");
}

TEST(ParseQuantity, RejectsBandwidthUnitForSize) {
  EXPECT_FALSE(parse_quantity("25GB/s", Dimension::kBytes).is_ok());
  EXPECT_FALSE(parse_quantity("inf", Dimension::kBytes).is_ok());
  EXPECT_FALSE(parse_quantity("", Dimension::kBytes).is_ok());
}

TEST(FormatQuantity, ReadableForms) {
  EXPECT_EQ(format_seconds(1.234e-3), "1.23 ms");
  EXPECT_EQ(format_bytes(1073741824.0), "1.00 GiB");
  EXPECT_EQ(format_bandwidth(235e9), "235 GB/s");
}

// What rounding prints picks the prefix and the decimals (a compare's idle
// time of 10 - (6 + 3) ms is 0.99999999999999920 ms in doubles).
TEST(FormatQuantity, RoundingUpTakesTheNextPrefix) {
  EXPECT_EQ(format_seconds(0.0009999999999999992), "1.00 ms");
  EXPECT_EQ(format_seconds(999.4e-6), "999 us");
  EXPECT_EQ(format_bytes(1023.7 * 1024), "1.00 MiB");
  EXPECT_EQ(format_bytes(1023.2 * 1024), "1023 KiB");
  EXPECT_EQ(format_seconds(9.996e-3), "10.0 ms");
  EXPECT_EQ(format_seconds(99.97e-3), "100 ms");
  EXPECT_EQ(format_seconds(-0.0009999999999999992), "-1.00 ms");
}

// Hardening (issue 20, item 4): a value that parses but overflows in its unit
// used to become infinity and pass, although '.inf' itself was refused.
TEST(ParseQuantity, AValueThatOverflowsInItsUnitIsRefusedLikeInfinity) {
  auto r = parse_quantity("1e308GB/s", Dimension::kBytesPerSecond);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), "found '1e308GB/s'; expected a bandwidth from 1 bit/s to 1e18 B/s");
  r = parse_quantity("1e308TiB", Dimension::kBytes);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), "found '1e308TiB'; expected a size of at most 2^60 bytes (1 EiB)");
}

// A bandwidth of 1e-300 B/s turned a step time into a 63-digit number of
// seconds, then into infinity; a latency of 1e308 s into 'inf s'.
TEST(ParseQuantity, QuantitiesOutsideTheirDocumentedRangeAreRefused) {
  struct Case {
    const char* text;
    Dimension dim;
    const char* expected;
  };
  const Case cases[] = {
      {"1e-300GB/s", Dimension::kBytesPerSecond, "a bandwidth from 1 bit/s to 1e18 B/s"},
      {"0.1bps", Dimension::kBytesPerSecond, "a bandwidth from 1 bit/s to 1e18 B/s"},
      {"1e308", Dimension::kSeconds, "a duration of at most 1e6 s (11.6 days)"},
      {"1e-300TFLOPS", Dimension::kFlopsPerSecond, "a compute rate from 1 FLOP/s to 1e21 FLOP/s"},
      {"1e31", Dimension::kFlops, "a FLOP count of at most 1e30"},
      {"1e309", Dimension::kNumber, "a number"},
  };
  for (const Case& c : cases) {
    auto r = parse_quantity(c.text, c.dim);
    ASSERT_FALSE(r.is_ok()) << c.text;
    EXPECT_EQ(r.message(), "found '" + std::string(c.text) + "'; expected " + c.expected);
  }
}

TEST(ParseQuantity, TheEndsOfEachRangeAreAccepted) {
  EXPECT_DOUBLE_EQ(*parse_quantity("1bps", Dimension::kBytesPerSecond), 0.125);
  EXPECT_DOUBLE_EQ(*parse_quantity("1e18", Dimension::kBytesPerSecond), 1e18);
  EXPECT_DOUBLE_EQ(*parse_quantity("0", Dimension::kBytesPerSecond), 0);  // the caller's sign rule
  EXPECT_DOUBLE_EQ(*parse_quantity("1152921504606846976", Dimension::kBytes), 0x1p60);
  EXPECT_DOUBLE_EQ(*parse_quantity("1e6", Dimension::kSeconds), 1e6);
  EXPECT_DOUBLE_EQ(*parse_quantity("1e21", Dimension::kFlopsPerSecond), 1e21);
  EXPECT_DOUBLE_EQ(*parse_quantity("-5", Dimension::kBytes), -5);  // the caller's sign rule
  EXPECT_EQ(check_quantity("2^61", Dimension::kBytes, nullptr), QuantityFault::kSyntax);
  EXPECT_EQ(check_quantity("1e300", Dimension::kBytes, nullptr), QuantityFault::kRange);
}

// A message is one line whatever the text holds.
TEST(ParseQuantity, TheMessageQuotesLineBreaksAndBadBytesEscaped) {
  auto r = parse_quantity("5\nms\xff", Dimension::kSeconds);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "found '5\\nms\\xff'; expected a duration such as 5us, 2ms or 0.001 (seconds)");
}

// Large values print in scientific notation, not as 30-digit numbers.
TEST(FormatQuantity, LargeValuesStayShort) {
  EXPECT_EQ(format_seconds(1e30), "1.00e+30 s");
  EXPECT_EQ(format_seconds(123456), "1.23e+05 s");
  EXPECT_EQ(format_seconds(99999), "99999 s");
  EXPECT_EQ(format_bytes(1e30), "8.88e+14 PiB");
  EXPECT_EQ(format_flops(1e40), "1.00e+22 EFLOP");
}

}  // namespace
}  // namespace brigade
