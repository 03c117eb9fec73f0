// fit_accumulate_exposed: calibrate's reading of weight-gradient GEMMs timed
// adding into an FP32 buffer against the same GEMMs writing a fresh 16-bit
// output (realexec/calibrate.hpp), worked by hand on made-up times. The
// profile's key it fits, gemm_accumulate_exposed, is what
// accumulate_seconds multiplies a GEMM's extra bytes' streaming time by
// (core/profile.hpp; docs/costmodel.md, "Fused gradient accumulation").
#include <vector>

#include <gtest/gtest.h>

#include "realexec/calibrate.hpp"

namespace brigade::realexec {
namespace {

AccumulatePoint point(std::int64_t m, std::int64_t n, double plain, double extra) {
  AccumulatePoint a;
  a.m = m, a.n = n, a.k = 8192;
  a.plain_seconds = plain;
  a.extra_seconds = extra;
  a.extra_bytes = static_cast<double>(m) * static_cast<double>(n) * 6;  // 2 x 4 - 2 B an element
  return a;
}

// At 2.5e12 B/s: 4096 x 4096 moves 4096^2 x 6 = 100,663,296 extra bytes,
// 40.265 us at that rate; 20.133 us extra is 0.5 of it. 4096 x 16384: four
// times the bytes, 161.06 us; 161.06 us extra is 1. 9216 x 12288: 679.48 MB,
// 271.79 us; 27.18 us extra is 0.1. Each point gets its own; the median of
// the three is 0.5.
TEST(FitAccumulateExposed, EachPointsExtraOverItsBytesTimeAndTheirMedian) {
  const double rate = 2.5e12;
  std::vector<AccumulatePoint> v = {point(4096, 4096, 1e-3, 4096.0 * 4096 * 6 / rate * 0.5),
                                    point(4096, 16384, 4e-3, 4096.0 * 16384 * 6 / rate),
                                    point(9216, 12288, 3e-3, 9216.0 * 12288 * 6 / rate * 0.1)};
  EXPECT_NEAR(v[0].extra_seconds, 20.133e-6, 1e-9);
  EXPECT_NEAR(v[2].extra_seconds, 27.179e-6, 1e-9);
  EXPECT_NEAR(fit_accumulate_exposed(v, rate), 0.5, 1e-12);
  EXPECT_NEAR(v[0].exposed, 0.5, 1e-12);
  EXPECT_NEAR(v[1].exposed, 1.0, 1e-12);
  EXPECT_NEAR(v[2].exposed, 0.1, 1e-12);
}

// An addition the GEMM hides reads as noise around 0: a median below 0 is 0
// (the key is non-negative), the points keep their signed readings. An
// even count takes the mean of the middle two; a slow epilogue may exceed 1.
TEST(FitAccumulateExposed, NoiseBelowZeroIsZeroAndTwoPointsTakeTheirMean) {
  const double rate = 1e12;
  const double t = 1024.0 * 1024 * 6 / rate;  // 6.29 us
  std::vector<AccumulatePoint> hidden = {point(1024, 1024, 1e-4, -0.3 * t),
                                         point(1024, 1024, 1e-4, 0.1 * t)};
  EXPECT_EQ(fit_accumulate_exposed(hidden, rate), 0.0);
  EXPECT_NEAR(hidden[0].exposed, -0.3, 1e-12);
  std::vector<AccumulatePoint> slow = {point(1024, 1024, 1e-4, 1.2 * t),
                                       point(1024, 1024, 1e-4, 1.6 * t)};
  EXPECT_NEAR(fit_accumulate_exposed(slow, rate), 1.4, 1e-12);
}

// Nothing to fit: no points, no streaming rate, or points that were not
// measured (no plain time: the phase was cut short): -1, and the profile
// keeps its key.
TEST(FitAccumulateExposed, NothingMeasuredIsMinusOne) {
  std::vector<AccumulatePoint> none;
  EXPECT_EQ(fit_accumulate_exposed(none, 1e12), -1.0);
  std::vector<AccumulatePoint> one = {point(1024, 1024, 1e-4, 1e-6)};
  EXPECT_EQ(fit_accumulate_exposed(one, 0), -1.0);
  std::vector<AccumulatePoint> unmeasured = {point(1024, 1024, 0, 0)};
  EXPECT_EQ(fit_accumulate_exposed(unmeasured, 1e12), -1.0);
}

}  // namespace
}  // namespace brigade::realexec
