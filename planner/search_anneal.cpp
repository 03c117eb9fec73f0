// Simulated annealing over per-op placements, as FlexFlow's MCMC search
// (Jia, Zaharia & Aiken 2019, Sec. 6: propose a random change of one op's
// configuration, accept by the Metropolis criterion). Deterministic: its only
// randomness is a splitmix64 stream seeded by --seed.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "planner/search_placement.hpp"

namespace brigade::planner {
namespace {

// splitmix64 (Steele, Lea & Flood 2014): a fixed, portable stream.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : x_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (x_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t x_;
};

// A placement's energy: its step, plus a penalty that grows with the worst
// overflow, so that the walk may cross plans that do not fit but never ends
// on one when one that fits has been seen.
double energy(const PlacementValue& v, double scale, double capacity) {
  return v.step_seconds + (v.fits ? 0.0 : scale * (1.0 + v.overflow_bytes / capacity));
}

}  // namespace

PlacementSearch anneal_placement(const PlacementProblem& p, std::uint64_t seed, std::uint64_t moves,
                                 const std::function<bool()>& stop) {
  PlacementSearch s;
  s.lower_bound = placement_lower_bound(p);
  std::vector<int> cur = greedy_placement(p);
  PlacementValue cv = evaluate_placement(p, cur);
  double cap = 0;
  for (double c : p.capacity_bytes) cap = std::max(cap, c);
  const double scale = 10 * std::max(cv.step_seconds, 1e-12);
  double ce = energy(cv, scale, cap);
  if (cv.fits) s.op_device = cur, s.step_seconds = cv.step_seconds;
  if (p.devices < 2 || p.ops == 0) {
    s.status = "one device: nothing to anneal";
    s.optimal = p.devices < 2 && cv.fits;
    return s;
  }
  Rng rng(seed);
  // Geometric cooling from a temperature that accepts a 5% worse step about
  // a third of the time down to one that accepts almost nothing worse.
  const double t0 = 0.05 * cv.step_seconds / std::log(3.0);
  const double t1 = 1e-4 * t0;
  const double cool = moves > 1 ? std::pow(t1 / t0, 1.0 / static_cast<double>(moves - 1)) : 1.0;
  double temp = t0;
  bool stopped = false;
  for (std::uint64_t i = 0; i < moves; ++i, temp *= cool) {
    if ((i & 1023) == 0 && stop && stop()) {
      stopped = true;
      break;
    }
    ++s.explored;
    const int o = rng.below(p.ops);
    const int old = cur[static_cast<size_t>(o)];
    int d = rng.below(p.devices - 1);
    if (d >= old) ++d;
    cur[static_cast<size_t>(o)] = d;
    const PlacementValue nv = evaluate_placement(p, cur);
    const double ne = energy(nv, scale, cap);
    if (ne <= ce || (temp > 0 && rng.unit() < std::exp(-(ne - ce) / temp))) {
      ce = ne;
      if (nv.fits && (s.op_device.empty() || nv.step_seconds < s.step_seconds)) {
        s.op_device = cur;
        s.step_seconds = nv.step_seconds;
      }
    } else {
      cur[static_cast<size_t>(o)] = old;
    }
  }
  s.status = stopped ? fmt::format("stopped at the budget after {} moves", s.explored)
                     : fmt::format("{} moves from the greedy placement, seed {}", s.explored, seed);
  s.optimal = !s.op_device.empty() && s.step_seconds <= s.lower_bound * (1 + 1e-12);
  return s;
}

}  // namespace brigade::planner
