#include "costmodel/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>
#include <fmt/format.h>

namespace brigade::cost {

// S(N) = 1 / ((1 - p) + p/N) (Amdahl, "Validity of the single processor approach", 1967).
double amdahl_speedup(double p, double n) { return 1.0 / ((1.0 - p) + p / n); }

// S(N) = (1 - p) + pN (Gustafson, "Reevaluating Amdahl's law", CACM 1988).
double gustafson_speedup(double p, double n) { return (1.0 - p) + p * n; }

double parallel_efficiency(double speedup, double n) { return speedup / n; }

// S(2N)/S(N) = ((1-p) + p/N) / ((1-p) + p/(2N)) < 1 + g  <=>  N > p(1-g) / (2g(1-p)).
double amdahl_doubling_limit(double p, double min_gain) {
  if (p >= 1) return std::numeric_limits<double>::infinity();
  return std::max(1.0, p * (1 - min_gain) / (2 * min_gain * (1 - p)));
}

Result<AmdahlFit> fit_amdahl(const std::vector<SpeedupPoint>& points) {
  if (points.size() < 2)
    return Status::error(
        fmt::format("found {} speedup point{}; expected at least 2", points.size(),
                    points.size() == 1 ? "" : "s"));
  const Eigen::Index k = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd x(k, 1);
  Eigen::VectorXd y(k);
  bool any_parallel = false;
  for (Eigen::Index i = 0; i < k; ++i) {
    const SpeedupPoint& pt = points[static_cast<size_t>(i)];
    if (!(pt.devices >= 1))
      return Status::error(fmt::format("found N = {:g}; expected a device count >= 1", pt.devices));
    if (!(pt.speedup > 0) || !std::isfinite(pt.speedup))
      return Status::error(fmt::format("found speedup {:g} at N = {:g}; expected a positive speedup",
                                       pt.speedup, pt.devices));
    if (pt.devices > 1) any_parallel = true;
    // Amdahl linearised: 1/S - 1 = p (1/N - 1).
    x(i, 0) = 1.0 / pt.devices - 1.0;
    y(i) = 1.0 / pt.speedup - 1.0;
  }
  if (!any_parallel)
    return Status::error("found only points with N = 1; expected at least one point with N > 1");
  AmdahlFit fit;
  fit.p = x.colPivHouseholderQr().solve(y)(0);
  double mean = 0;
  for (const SpeedupPoint& pt : points) mean += pt.speedup;
  mean /= static_cast<double>(points.size());
  double ss_res = 0, ss_tot = 0;
  for (const SpeedupPoint& pt : points) {
    const double r = pt.speedup - amdahl_speedup(fit.p, pt.devices);
    ss_res += r * r;
    ss_tot += (pt.speedup - mean) * (pt.speedup - mean);
  }
  // Coefficient of determination; equal speedups everywhere fit perfectly or not at all.
  fit.r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
  return fit;
}

}  // namespace brigade::cost
