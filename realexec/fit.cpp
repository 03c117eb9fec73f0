#include "realexec/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>

namespace brigade::realexec {

Result<LinearFit> fit_line(std::span<const double> x, std::span<const double> y) {
  const auto n = static_cast<Eigen::Index>(x.size());
  if (x.size() != y.size() || n < 2)
    return Status::error("a line fit needs at least two points; found " + std::to_string(x.size()),
                         ErrorKind::kInternal);
  if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x[0]; }))
    return Status::error("a line fit needs two distinct sizes", ErrorKind::kInternal);
  if (std::any_of(y.begin(), y.end(), [](double v) { return !(v > 0); }))
    return Status::error("a line fit needs positive times", ErrorKind::kInternal);
  // Rows scaled by sqrt(w) = 1/y.
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd rhs(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double s = 1.0 / y[static_cast<size_t>(i)];
    a(i, 0) = s;
    a(i, 1) = s * x[static_cast<size_t>(i)];
    rhs(i) = 1.0;  // s * y
  }
  const Eigen::Vector2d c = a.colPivHouseholderQr().solve(rhs);
  LinearFit f;
  f.intercept = c(0);
  f.slope = c(1);
  f.points = static_cast<int>(n);
  double sw = 0, swy = 0;
  for (double v : y) {
    sw += 1.0 / (v * v);
    swy += 1.0 / v;
  }
  const double mean = swy / sw;
  double ss_res = 0, ss_tot = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double yi = y[static_cast<size_t>(i)], w = 1.0 / (yi * yi);
    const double r = yi - f.intercept - f.slope * x[static_cast<size_t>(i)];
    ss_res += w * r * r;
    ss_tot += w * (yi - mean) * (yi - mean);
  }
  f.r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  return f;
}

}  // namespace brigade::realexec
