#include "realexec/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>

namespace brigade::realexec {

namespace {

// R² of a fit weighted as the fits are (w = 1/y², relative residuals), with
// the weighted mean as the baseline; `predict(i)` is the fit at point i.
template <class Predict>
double weighted_r_squared(std::span<const double> y, Predict predict) {
  double sw = 0, swy = 0;
  for (double v : y) {
    sw += 1.0 / (v * v);
    swy += 1.0 / v;
  }
  const double mean = swy / sw;
  double ss_res = 0, ss_tot = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double yi = y[i], w = 1.0 / (yi * yi), r = yi - predict(i);
    ss_res += w * r * r;
    ss_tot += w * (yi - mean) * (yi - mean);
  }
  return ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
}

}  // namespace

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
  f.r_squared = weighted_r_squared(y, [&](size_t i) { return f.intercept + f.slope * x[i]; });
  return f;
}

Result<MultiFit> fit_nonnegative(const std::vector<std::vector<double>>& rows,
                                 std::span<const double> y) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  const size_t cols = rows.empty() ? 0 : rows.front().size();
  if (rows.size() != y.size() || cols == 0 || rows.size() < cols)
    return Status::error("a fit of " + std::to_string(cols) + " coefficients needs at least as many points; found " +
                             std::to_string(rows.size()),
                         ErrorKind::kInternal);
  for (const auto& r : rows)
    if (r.size() != cols) return Status::error("a fit needs rows of one length", ErrorKind::kInternal);
  if (std::any_of(y.begin(), y.end(), [](double v) { return !(v > 0); }))
    return Status::error("a fit needs positive times", ErrorKind::kInternal);
  std::vector<char> active(cols, 1);
  Eigen::VectorXd c = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(cols));
  for (;;) {
    std::vector<size_t> use;
    for (size_t j = 0; j < cols; ++j)
      if (active[j]) use.push_back(j);
    c.setZero();
    if (use.empty()) break;
    Eigen::MatrixXd a(n, static_cast<Eigen::Index>(use.size()));
    Eigen::VectorXd rhs = Eigen::VectorXd::Ones(n);  // s * y with s = 1/y
    for (Eigen::Index i = 0; i < n; ++i)
      for (size_t k = 0; k < use.size(); ++k)
        a(i, static_cast<Eigen::Index>(k)) = rows[static_cast<size_t>(i)][use[k]] / y[static_cast<size_t>(i)];
    const Eigen::VectorXd sol = a.colPivHouseholderQr().solve(rhs);
    size_t worst = cols;
    for (size_t k = 0; k < use.size(); ++k) {
      c(static_cast<Eigen::Index>(use[k])) = sol(static_cast<Eigen::Index>(k));
      if (sol(static_cast<Eigen::Index>(k)) < 0 &&
          (worst == cols || sol(static_cast<Eigen::Index>(k)) < c(static_cast<Eigen::Index>(worst))))
        worst = use[k];
    }
    if (worst == cols) break;
    active[worst] = 0;
  }
  MultiFit f;
  f.points = static_cast<int>(n);
  for (size_t j = 0; j < cols; ++j) f.coefficients.push_back(c(static_cast<Eigen::Index>(j)));
  f.r_squared = weighted_r_squared(y, [&](size_t i) {
    double pred = 0;
    for (size_t j = 0; j < cols; ++j) pred += f.coefficients[j] * rows[i][j];
    return pred;
  });
  return f;
}

}  // namespace brigade::realexec
