// Pipeline stage splits by dynamic programming, as Alpa's inter-operator
// pass (Zheng et al. 2022, Sec. 5.1, Eq. 2-3): for each candidate bound on
// the slowest stage t_max, the cheapest split whose stages all stay within
// it, so that T* = min over t_max of (sum_k t_k + (m - 1) t_max); the
// candidates are visited smallest first and the loop stops once
// m t_max >= T* (no later candidate can win).
#include <algorithm>
#include <cmath>
#include <limits>

#include "planner/search_placement.hpp"

namespace brigade::planner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// t(i, j, k): order positions [i, j) as stage k on device k; +inf where the
// stage's tensors do not fit its device.
class StageCosts {
 public:
  StageCosts(const PlacementProblem& p, int stages) : n_(static_cast<int>(p.order.size())), s_(stages) {
    cost_.assign(static_cast<size_t>(n_ + 1) * static_cast<size_t>(n_ + 1) * static_cast<size_t>(s_), kInf);
    std::vector<int> pos(static_cast<size_t>(p.ops), 0);
    for (int x = 0; x < n_; ++x) pos[static_cast<size_t>(p.order[static_cast<size_t>(x)])] = x;
    std::vector<int> mark(p.tensor_bytes.size(), -1);
    for (int i = 0; i < n_; ++i) {
      std::vector<double> compute(static_cast<size_t>(s_), 0.0);
      double in_bytes = 0, in_alpha_count = 0, mem = 0;
      for (int j = i + 1; j <= n_; ++j) {
        const int o = p.order[static_cast<size_t>(j - 1)];
        for (int k = 0; k < s_; ++k) compute[static_cast<size_t>(k)] += p.op_seconds(o, k);
        for (const auto& in : p.inputs[static_cast<size_t>(o)])
          if (pos[static_cast<size_t>(in.from)] < i) in_bytes += in.bytes, in_alpha_count += 1;
        for (int t : p.op_tensors[static_cast<size_t>(o)])
          if (mark[static_cast<size_t>(t)] != i) {
            mark[static_cast<size_t>(t)] = i;
            mem += p.tensor_bytes[static_cast<size_t>(t)];
          }
        for (int k = 0; k < s_; ++k) {
          if (k == 0 && i > 0) continue;
          if (k > 0 && i == 0) continue;
          if (mem > p.capacity_bytes[static_cast<size_t>(k)]) continue;
          double comm = 0;
          if (k > 0 && in_alpha_count > 0) {
            const size_t ab = static_cast<size_t>(k - 1) * static_cast<size_t>(p.devices) + static_cast<size_t>(k);
            comm = in_alpha_count * p.alpha_seconds[ab] + in_bytes / p.bandwidth[ab];
          }
          at(i, j, k) = compute[static_cast<size_t>(k)] + comm;
        }
      }
    }
  }
  double t(int i, int j, int k) const {
    return cost_[(static_cast<size_t>(i) * static_cast<size_t>(n_ + 1) + static_cast<size_t>(j)) * static_cast<size_t>(s_) + static_cast<size_t>(k)];
  }
  int n() const { return n_; }
  int stages() const { return s_; }
  const std::vector<double>& all() const { return cost_; }

 private:
  double& at(int i, int j, int k) {
    return cost_[(static_cast<size_t>(i) * static_cast<size_t>(n_ + 1) + static_cast<size_t>(j)) * static_cast<size_t>(s_) + static_cast<size_t>(k)];
  }
  int n_, s_;
  std::vector<double> cost_;
};

// Alpa's objective of a split given its stage ends.
double latency(const StageCosts& c, const std::vector<int>& ends, int m) {
  double sum = 0, mx = 0;
  int start = 0;
  for (size_t k = 0; k < ends.size(); ++k) {
    const double t = c.t(start, ends[k], static_cast<int>(k));
    if (!std::isfinite(t)) return kInf;
    sum += t;
    mx = std::max(mx, t);
    start = ends[k];
  }
  return sum + (m - 1) * mx;
}

}  // namespace

StageSplit split_stages(const PlacementProblem& p, int max_stages, int micro_batches) {
  StageSplit best;
  const int S = std::max(1, std::min({max_stages, p.devices, static_cast<int>(p.order.size())}));
  const int m = std::max(1, micro_batches);
  if (p.order.empty()) return best;
  const StageCosts c(p, S);
  const int n = c.n();
  std::vector<double> cands;
  if (m == 1) {
    cands.push_back(kInf);  // no bound: the sum alone
  } else {
    for (double x : c.all())
      if (std::isfinite(x)) cands.push_back(x);
    std::sort(cands.begin(), cands.end());
    cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
  }
  // F[k][j]: the least sum of stage times splitting [0, j) into k stages within t_max.
  std::vector<double> F(static_cast<size_t>(S + 1) * static_cast<size_t>(n + 1));
  std::vector<int> from(F.size());
  auto at = [&](int k, int j) -> size_t { return static_cast<size_t>(k) * static_cast<size_t>(n + 1) + static_cast<size_t>(j); };
  double best_value = kInf;
  for (double tmax : cands) {
    if (m > 1 && m * tmax >= best_value) break;
    std::fill(F.begin(), F.end(), kInf);
    F[at(0, 0)] = 0;
    for (int k = 1; k <= S; ++k)
      for (int j = k; j <= n; ++j)
        for (int i = k - 1; i < j; ++i) {
          ++best.explored;
          const double prev = F[at(k - 1, i)];
          if (!std::isfinite(prev)) continue;
          const double t = c.t(i, j, k - 1);
          if (!(t <= tmax)) continue;
          if (prev + t < F[at(k, j)]) {
            F[at(k, j)] = prev + t;
            from[at(k, j)] = i;
          }
        }
    for (int k = 1; k <= S; ++k) {
      if (!std::isfinite(F[at(k, n)])) continue;
      std::vector<int> ends(static_cast<size_t>(k));
      for (int kk = k, j = n; kk >= 1; --kk) {
        ends[static_cast<size_t>(kk - 1)] = j;
        j = from[at(kk, j)];
      }
      const double v = latency(c, ends, m);
      if (v < best_value) {
        best_value = v;
        best.stage_end = ends;
      }
    }
  }
  best.found = std::isfinite(best_value);
  best.latency_seconds = best.found ? best_value : 0;
  return best;
}

StageSplit brute_force_stages(const PlacementProblem& p, int max_stages, int micro_batches) {
  StageSplit best;
  const int S = std::max(1, std::min({max_stages, p.devices, static_cast<int>(p.order.size())}));
  const int m = std::max(1, micro_batches);
  if (p.order.empty()) return best;
  const StageCosts c(p, S);
  const int n = c.n();
  double best_value = kInf;
  std::vector<int> ends;
  // Every way to cut [0, n) into 1..S non-empty runs.
  auto rec = [&](auto&& self, int start) -> void {
    if (start == n) {
      ++best.explored;
      const double v = latency(c, ends, m);
      if (v < best_value) best_value = v, best.stage_end = ends;
      return;
    }
    if (static_cast<int>(ends.size()) == S) return;
    for (int j = start + 1; j <= n; ++j) {
      ends.push_back(j);
      self(self, j);
      ends.pop_back();
    }
  };
  rec(rec, 0);
  best.found = std::isfinite(best_value);
  best.latency_seconds = best.found ? best_value : 0;
  return best;
}

std::vector<int> stages_to_placement(const PlacementProblem& p, const StageSplit& s) {
  std::vector<int> dev(static_cast<size_t>(p.ops), 0);
  int start = 0;
  for (size_t k = 0; k < s.stage_end.size(); ++k) {
    for (int x = start; x < s.stage_end[k]; ++x) dev[static_cast<size_t>(p.order[static_cast<size_t>(x)])] = static_cast<int>(k);
    start = s.stage_end[k];
  }
  return dev;
}

}  // namespace brigade::planner
