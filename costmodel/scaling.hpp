// Scaling laws: Amdahl (the seed's S(N) = 1/((1-p) + p/N)), Gustafson, and
// fitting Amdahl's p to measured or simulated (N, speedup) points.
#pragma once

#include <vector>

#include "core/status.hpp"

namespace brigade::cost {

// Amdahl 1967: S(N) = 1 / ((1 - p) + p/N); p is the parallel fraction at N = 1.
double amdahl_speedup(double p, double n);

// Gustafson 1988: S(N) = (1 - p) + p N (the problem grows with N).
double gustafson_speedup(double p, double n);

// Parallel efficiency S(N) / N.
double parallel_efficiency(double speedup, double n);

// The device count beyond which doubling the devices gains less than
// `min_gain` (relative speedup; default 10%) under Amdahl:
//   S(2N)/S(N) < 1 + g  <=>  N > p(1 - g) / (2g(1 - p)).
// Returns that N (at least 1); infinity when p >= 1 (doubling always pays).
inline constexpr double kDefaultMinDoublingGain = 0.10;
double amdahl_doubling_limit(double p, double min_gain = kDefaultMinDoublingGain);

struct SpeedupPoint {
  double devices = 1;  // N
  double speedup = 1;  // S(N) = T(1) / T(N)
};

struct AmdahlFit {
  double p = 0;          // least-squares parallel fraction (not clamped to [0, 1])
  double r_squared = 0;  // of the fitted S(N) against the points' speedups
};

// Least squares for p on the linearised law 1/S - 1 = p (1/N - 1) (Eigen).
// Errors: fewer than 2 points, N < 1, speedup <= 0, no point with N > 1.
Result<AmdahlFit> fit_amdahl(const std::vector<SpeedupPoint>& points);

}  // namespace brigade::cost
