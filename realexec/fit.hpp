// Fitting T = a + b x (and T = sum c_j x_j) to measurements (alpha-beta models of transfers and
// collectives, streaming bandwidth) with Eigen.
#pragma once

#include <span>
#include <vector>

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

struct MultiFit {
  std::vector<double> coefficients;  // one per column; 0 where a column was dropped
  double r_squared = 0;              // weighted, as LinearFit's
  int points = 0;
};

// y = sum_j c_j x_ij with every c_j >= 0, in the same weights w = 1/y^2
// (fit_line's reasons): least squares on all columns, then, while some
// coefficient is negative, that column (the most negative) is dropped and
// the rest refitted (an active-set step of Lawson & Hanson's NNLS, "Solving
// Least Squares Problems", 1974, ch. 23; exact when at most one column goes).
// `rows[i]` holds x_i (every row as long as the first). Needs at least as
// many points as columns and positive y.
Result<MultiFit> fit_nonnegative(const std::vector<std::vector<double>>& rows,
                                 std::span<const double> y);

}  // namespace brigade::realexec
