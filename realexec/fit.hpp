// Fitting T = a + b x to measurements (alpha-beta models of transfers and
// collectives, streaming bandwidth) with Eigen.
#pragma once

#include <span>

#include "core/status.hpp"

namespace brigade::realexec {

struct LinearFit {
  double intercept = 0;  // a
  double slope = 0;      // b
  // Weighted coefficient of determination, in the fit's own weights w:
  // 1 - sum w (y - a - b x)^2 / sum w (y - mean_w y)^2, mean_w y = sum w y / sum w.
  double r_squared = 0;
  int points = 0;
};

// Weighted least squares (Eigen, column-pivoting QR) with weights w = 1/y^2,
// i.e. minimising the relative residuals (y - a - b x) / y. A calibration
// predicts single tasks whose sizes span four decades, and validation judges
// them by relative error; plain least squares would let the largest sizes
// alone decide, leaving the intercept (the alpha of small messages) to noise
// and often negative. Where the data is not a line (caches: small sizes run
// faster per byte), R^2 says so. Needs at least two distinct x and positive y.
Result<LinearFit> fit_line(std::span<const double> x, std::span<const double> y);

}  // namespace brigade::realexec
