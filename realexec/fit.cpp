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
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd rhs(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = 1.0;
    a(i, 1) = x[static_cast<size_t>(i)];
    rhs(i) = y[static_cast<size_t>(i)];
  }
  const Eigen::Vector2d c = a.colPivHouseholderQr().solve(rhs);
  LinearFit f;
  f.intercept = c(0);
  f.slope = c(1);
  f.points = static_cast<int>(n);
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(n);
  double ss_res = 0, ss_tot = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double yi = y[static_cast<size_t>(i)];
    const double r = yi - f.intercept - f.slope * x[static_cast<size_t>(i)];
    ss_res += r * r;
    ss_tot += (yi - mean) * (yi - mean);
  }
  f.r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  return f;
}

}  // namespace brigade::realexec
