// Amdahl, Gustafson and the least-squares fit of p.
#include "costmodel/scaling.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace brigade::cost {
namespace {

// The seed's Amdahl: p = 0.95, N = 8: 1 / (0.05 + 0.95/8) = 1 / 0.16875 = 160/27 = 5.9259...
TEST(Amdahl, SeedByHand) {
  EXPECT_DOUBLE_EQ(amdahl_speedup(0.95, 8), 160.0 / 27.0);
  // efficiency 160/27/8 = 20/27 = 0.7407...
  EXPECT_DOUBLE_EQ(parallel_efficiency(amdahl_speedup(0.95, 8), 8), 20.0 / 27.0);
  // The ceiling 1/(1-p) = 20 is approached, never reached.
  EXPECT_LT(amdahl_speedup(0.95, 1e9), 20.0);
  EXPECT_NEAR(amdahl_speedup(0.95, 1e9), 20.0, 1e-6);
  EXPECT_DOUBLE_EQ(amdahl_speedup(0.95, 1), 1.0);
}

// Gustafson 1988: (1 - p) + pN = 0.05 + 0.95 * 8 = 7.65.
TEST(Gustafson, ByHand) { EXPECT_DOUBLE_EQ(gustafson_speedup(0.95, 8), 7.65); }

// Doubling stops paying 10% beyond N = p(1-g)/(2g(1-p)) = 0.95 * 0.9 / (0.2 * 0.05) = 85.5;
// there S(171)/S(85.5) = 1.1 exactly.
TEST(DoublingLimit, ByHand) {
  EXPECT_NEAR(amdahl_doubling_limit(0.95), 85.5, 1e-12);
  EXPECT_NEAR(amdahl_speedup(0.95, 171) / amdahl_speedup(0.95, 85.5), 1.1, 1e-12);
  EXPECT_TRUE(std::isinf(amdahl_doubling_limit(1.0)));
  EXPECT_EQ(amdahl_doubling_limit(0.0), 1.0);
}

// Exact Amdahl points for p = 0.9 are recovered with R^2 = 1.
TEST(FitAmdahl, RecoversPFromExactPoints) {
  std::vector<SpeedupPoint> pts;
  for (double n : {1.0, 2.0, 4.0, 8.0, 16.0}) pts.push_back({n, amdahl_speedup(0.9, n)});
  auto fit = fit_amdahl(pts);
  ASSERT_TRUE(fit.is_ok()) << fit.message();
  EXPECT_NEAR(fit->p, 0.9, 1e-12);
  EXPECT_NEAR(fit->r_squared, 1.0, 1e-12);
}

// Two measured points (2, 1.6), (4, 2.5): x = 1/N - 1 = -0.5, -0.75; y = 1/S - 1 = -0.375, -0.6;
// p = sum xy / sum x^2 = (0.1875 + 0.45) / (0.25 + 0.5625) = 0.6375 / 0.8125 = 0.78461538...
// fitted S(2) = 1.64557, S(4) = 2.42991; SS_res = 0.0069897, SS_tot = 2 * 0.45^2 = 0.405;
// R^2 = 1 - 0.0069897/0.405 = 0.9827415...
TEST(FitAmdahl, TwoMeasuredPointsByHand) {
  auto fit = fit_amdahl({{2, 1.6}, {4, 2.5}});
  ASSERT_TRUE(fit.is_ok()) << fit.message();
  EXPECT_NEAR(fit->p, 0.6375 / 0.8125, 1e-12);
  EXPECT_NEAR(fit->r_squared, 0.9827415231196188, 1e-12);
}

TEST(FitAmdahl, Errors) {
  EXPECT_EQ(fit_amdahl({{2, 1.5}}).message(), "found 1 speedup point; expected at least 2");
  EXPECT_EQ(fit_amdahl({{0.5, 1}, {2, 1.5}}).message(), "found N = 0.5; expected a device count >= 1");
  EXPECT_EQ(fit_amdahl({{2, 0}, {4, 1.5}}).message(),
            "found speedup 0 at N = 2; expected a positive speedup");
  EXPECT_EQ(fit_amdahl({{1, 1}, {1, 1}}).message(),
            "found only points with N = 1; expected at least one point with N > 1");
}

}  // namespace
}  // namespace brigade::cost
