// Fitting T = a + b x to measurements (alpha-beta models of transfers and
// collectives, streaming bandwidth) with Eigen.
#pragma once

#include <span>

#include "core/status.hpp"

namespace brigade::realexec {

struct LinearFit {
  double intercept = 0;  // a
  double slope = 0;      // b
  // Coefficient of determination of the fitted line on the data as measured:
  // 1 - sum (y - a - b x)^2 / sum (y - mean y)^2.
  double r_squared = 0;
  int points = 0;
};

// Ordinary least squares (Eigen, column-pivoting QR). It minimises absolute
// residuals, so the largest sizes weigh most: right for step times, which
// the large messages dominate. Where small sizes run faster than the line
// (caches), the intercept can come out negative; callers clamp it and say
// so. Needs at least two distinct x.
Result<LinearFit> fit_line(std::span<const double> x, std::span<const double> y);

}  // namespace brigade::realexec
