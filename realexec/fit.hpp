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

// Weighted least squares with weights 1/y^2, i.e. minimising the relative
// residuals (y - a - b x) / y: message sizes span four decades, and plain
// least squares would let the largest messages alone decide a (which is
// then often negative). Needs at least two distinct x and positive y.
Result<LinearFit> fit_line(std::span<const double> x, std::span<const double> y);

}  // namespace brigade::realexec
