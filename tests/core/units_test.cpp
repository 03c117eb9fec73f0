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

}  // namespace
}  // namespace brigade
