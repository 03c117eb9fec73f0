// fit_split_accumulator_efficiency: calibrate's reading of FP8 squares
// measured with cuBLASLt's fast accumulation on and off (realexec/
// calibrate.hpp), worked by hand on made-up rates.
#include <vector>

#include <gtest/gtest.h>

#include "realexec/calibrate.hpp"

namespace brigade::realexec {
namespace {

GemmPoint point(DType t, std::int64_t size, double rate) {
  GemmPoint g;
  g.dtype = t;
  g.size = size;
  g.flops = 2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size);
  g.flops_per_second = rate;
  return g;
}

// Sizes 1024, 2048, 4096, 8192 at 1200/1000, 1300/1150, 1380/1200 and
// 1400/1260 TFLOP/s (fast/split): ratios 0.8333, 0.8846, 0.8696, 0.9; the
// median of four is the mean of the middle two, (0.8696 + 0.8846) / 2 =
// 0.8771. The 256 point (0.5: launch-bound) is left out, sizes of 1024 and
// more being there; a bf16 point of the same size does not pair.
TEST(FitSplitAccumulator, TheMedianOfTheLargeSizesRatios) {
  const std::vector<GemmPoint> fast = {
      point(DType::kFP8, 256, 100e12),   point(DType::kFP8, 1024, 1200e12),
      point(DType::kFP8, 2048, 1300e12), point(DType::kFP8, 4096, 1380e12),
      point(DType::kFP8, 8192, 1400e12), point(DType::kBF16, 8192, 700e12)};
  const std::vector<GemmPoint> split = {
      point(DType::kFP8, 256, 50e12), point(DType::kFP8, 1024, 1000e12),
      point(DType::kFP8, 2048, 1150e12), point(DType::kFP8, 4096, 1200e12),
      point(DType::kFP8, 8192, 1260e12)};
  const double want = 0.5 * (1200.0 / 1380.0 + 1150.0 / 1300.0);
  EXPECT_NEAR(fit_split_accumulator_efficiency(fast, split), want, 1e-12);
  EXPECT_NEAR(want, 0.8771, 5e-5);
}

// Only small sizes (--quick: 256 and 1024 are there, so 1024 alone counts;
// here 256 and 512): all of them, the median of two.
TEST(FitSplitAccumulator, SmallSizesCountWhenThereAreNoOthers) {
  const std::vector<GemmPoint> fast = {point(DType::kFP8, 256, 100e12),
                                       point(DType::kFP8, 512, 400e12)};
  const std::vector<GemmPoint> split = {point(DType::kFP8, 256, 90e12),
                                        point(DType::kFP8, 512, 300e12)};
  EXPECT_NEAR(fit_split_accumulator_efficiency(fast, split), 0.5 * (0.9 + 0.75), 1e-12);
}

// Split faster than fast (noise): at most 1. Nothing measured both ways
// (an unmeasured split point, a size the fast series lacks, or no split
// series): 0, and the profile gets no key.
TEST(FitSplitAccumulator, AtMostOneAndZeroWithoutAPair) {
  EXPECT_EQ(fit_split_accumulator_efficiency({point(DType::kFP8, 4096, 1000e12)},
                                             {point(DType::kFP8, 4096, 1010e12)}),
            1.0);
  EXPECT_EQ(fit_split_accumulator_efficiency({point(DType::kFP8, 4096, 1000e12)},
                                             {point(DType::kFP8, 4096, 0)}),
            0.0);
  EXPECT_EQ(fit_split_accumulator_efficiency({point(DType::kFP8, 4096, 1000e12)},
                                             {point(DType::kFP8, 2048, 900e12)}),
            0.0);
  EXPECT_EQ(fit_split_accumulator_efficiency({point(DType::kFP8, 4096, 1000e12)}, {}), 0.0);
}

}  // namespace
}  // namespace brigade::realexec
