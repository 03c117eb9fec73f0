// The per-op placement problem and its exact searches: brute force and
// branch and bound (planner/search_placement.hpp).
#include "planner/search_placement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "costmodel/placement_cost.hpp"

namespace brigade::planner {

Result<PlacementProblem> placement_problem(const Model& model, const Topology& topology,
                                           const HardwareProfile& profile) {
  PlacementProblem p;
  p.ops = static_cast<int>(model.ops.size());
  p.devices = topology.num_devices();
  const size_t n = model.ops.size(), d = static_cast<size_t>(p.devices);
  p.seconds.assign(n * d, 0.0);
  // Each op's time on each device, as the judge computes it.
  for (int dev = 0; dev < p.devices; ++dev) {
    BRIGADE_ASSIGN_OR_RETURN(cost::PlacementCost c,
                             cost::placement_cost(model, std::vector<int>(n, dev), topology, profile));
    for (size_t o = 0; o < n; ++o) p.seconds[o * d + static_cast<size_t>(dev)] = c.op_seconds[o];
  }
  p.inputs.assign(n, {});
  for (const DataEdge& e : model.edges())
    p.inputs[static_cast<size_t>(e.to)].push_back(
        {e.from, e.tensor, model.tensors[static_cast<size_t>(e.tensor)].bytes()});
  p.alpha_seconds.assign(d * d, 0.0);
  p.bandwidth.assign(d * d, std::numeric_limits<double>::infinity());
  for (int a = 0; a < p.devices; ++a)
    for (int b = 0; b < p.devices; ++b) {
      if (a == b) continue;
      const Route& r = topology.route(a, b);
      p.alpha_seconds[static_cast<size_t>(a) * d + static_cast<size_t>(b)] = route_alpha_seconds(r, profile);
      p.bandwidth[static_cast<size_t>(a) * d + static_cast<size_t>(b)] =
          route_bandwidth_bytes_per_second(r, topology, profile);
    }
  BRIGADE_ASSIGN_OR_RETURN(p.order, cost::topological_order(model));
  p.op_tensors.assign(n, {});
  for (size_t o = 0; o < n; ++o) {
    std::set<int> ts(model.ops[o].inputs.begin(), model.ops[o].inputs.end());
    ts.insert(model.ops[o].outputs.begin(), model.ops[o].outputs.end());
    p.op_tensors[o].assign(ts.begin(), ts.end());
    p.op_names.push_back(model.ops[o].name);
  }
  for (const TensorSpec& t : model.tensors) p.tensor_bytes.push_back(t.bytes());
  for (const Device& dv : topology.devices()) p.capacity_bytes.push_back(dv.memory_bytes);
  // Interchangeable devices: every op as fast on each, every route alike, same capacity.
  p.symmetric = true;
  for (size_t o = 0; o < n && p.symmetric; ++o)
    for (size_t k = 1; k < d; ++k) p.symmetric = p.symmetric && p.seconds[o * d + k] == p.seconds[o * d];
  for (size_t a = 0; a < d && p.symmetric; ++a)
    for (size_t b = 0; b < d; ++b)
      if (a != b && (p.alpha_seconds[a * d + b] != p.alpha_seconds[1 % d] ||
                     p.bandwidth[a * d + b] != p.bandwidth[1 % d]))
        p.symmetric = false;
  for (size_t k = 1; k < d; ++k) p.symmetric = p.symmetric && p.capacity_bytes[k] == p.capacity_bytes[0];
  return p;
}

namespace {

// Per-device memory as ops are added and removed: tensors counted once.
class MemoryTally {
 public:
  explicit MemoryTally(const PlacementProblem& p)
      : p_(p), count_(static_cast<size_t>(p.devices) * p.tensor_bytes.size(), 0),
        used_(static_cast<size_t>(p.devices), 0.0) {}
  // Adds op o on device d; false (and nothing added) when it would not fit.
  bool add(int o, int d, bool enforce) {
    double extra = 0;
    for (int t : p_.op_tensors[static_cast<size_t>(o)])
      if (count_[idx(d, t)] == 0) extra += p_.tensor_bytes[static_cast<size_t>(t)];
    if (enforce && used_[static_cast<size_t>(d)] + extra > p_.capacity_bytes[static_cast<size_t>(d)]) return false;
    for (int t : p_.op_tensors[static_cast<size_t>(o)]) ++count_[idx(d, t)];
    used_[static_cast<size_t>(d)] += extra;
    return true;
  }
  void remove(int o, int d) {
    for (int t : p_.op_tensors[static_cast<size_t>(o)])
      if (--count_[idx(d, t)] == 0) used_[static_cast<size_t>(d)] -= p_.tensor_bytes[static_cast<size_t>(t)];
  }
  double overflow() const {
    double worst = 0;
    for (size_t d = 0; d < used_.size(); ++d) worst = std::max(worst, used_[d] - p_.capacity_bytes[d]);
    return worst;
  }
  double used(int d) const { return used_[static_cast<size_t>(d)]; }

 private:
  size_t idx(int d, int t) const { return static_cast<size_t>(d) * p_.tensor_bytes.size() + static_cast<size_t>(t); }
  const PlacementProblem& p_;
  std::vector<int> count_;
  std::vector<double> used_;
};

double min_seconds(const PlacementProblem& p, int o) {
  double m = std::numeric_limits<double>::infinity();
  for (int d = 0; d < p.devices; ++d) m = std::min(m, p.op_seconds(o, d));
  return m;
}

// Longest path from each op's end to the graph's end over the fastest kernels.
std::vector<double> tails(const PlacementProblem& p, const std::vector<double>& fastest) {
  std::vector<std::vector<int>> succ(static_cast<size_t>(p.ops));
  for (int o = 0; o < p.ops; ++o)
    for (const auto& in : p.inputs[static_cast<size_t>(o)]) succ[static_cast<size_t>(in.from)].push_back(o);
  std::vector<double> tail(static_cast<size_t>(p.ops), 0.0);
  for (auto it = p.order.rbegin(); it != p.order.rend(); ++it) {
    const auto o = static_cast<size_t>(*it);
    for (int s : succ[o]) tail[o] = std::max(tail[o], fastest[static_cast<size_t>(s)] + tail[static_cast<size_t>(s)]);
  }
  return tail;
}

}  // namespace

PlacementValue evaluate_placement(const PlacementProblem& p, const std::vector<int>& dev) {
  PlacementValue v;
  std::vector<double> finish(static_cast<size_t>(p.ops), 0.0);
  std::vector<double> free(static_cast<size_t>(p.devices), 0.0);
  for (int o : p.order) {
    const auto oi = static_cast<size_t>(o);
    const int d = dev[oi];
    double ready = 0;
    for (const auto& in : p.inputs[oi]) {
      const int a = dev[static_cast<size_t>(in.from)];
      ready = std::max(ready, finish[static_cast<size_t>(in.from)] + (a != d ? p.delay(a, d, in.bytes) : 0.0));
    }
    finish[oi] = std::max(ready, free[static_cast<size_t>(d)]) + p.op_seconds(o, d);
    free[static_cast<size_t>(d)] = finish[oi];
    v.step_seconds = std::max(v.step_seconds, finish[oi]);
  }
  MemoryTally mem(p);
  for (int o = 0; o < p.ops; ++o) mem.add(o, dev[static_cast<size_t>(o)], false);
  v.overflow_bytes = std::max(0.0, mem.overflow());
  v.fits = mem.overflow() <= 0;
  return v;
}

std::vector<int> greedy_placement(const PlacementProblem& p) {
  std::vector<int> dev(static_cast<size_t>(p.ops), 0);
  std::vector<double> finish(static_cast<size_t>(p.ops), 0.0), free(static_cast<size_t>(p.devices), 0.0);
  MemoryTally mem(p);
  for (int o : p.order) {
    const auto oi = static_cast<size_t>(o);
    int best = -1;
    double best_finish = 0;
    for (int d = 0; d < p.devices; ++d) {
      if (!mem.add(o, d, true)) continue;
      mem.remove(o, d);
      double ready = 0;
      for (const auto& in : p.inputs[oi]) {
        const int a = dev[static_cast<size_t>(in.from)];
        ready = std::max(ready, finish[static_cast<size_t>(in.from)] + (a != d ? p.delay(a, d, in.bytes) : 0.0));
      }
      const double f = std::max(ready, free[static_cast<size_t>(d)]) + p.op_seconds(o, d);
      if (best < 0 || f < best_finish) best = d, best_finish = f;
    }
    if (best < 0) {  // fits nowhere: the emptiest device
      best = 0;
      for (int d = 1; d < p.devices; ++d)
        if (mem.used(d) < mem.used(best)) best = d;
      double ready = 0;
      for (const auto& in : p.inputs[oi]) {
        const int a = dev[static_cast<size_t>(in.from)];
        ready = std::max(ready, finish[static_cast<size_t>(in.from)] + (a != best ? p.delay(a, best, in.bytes) : 0.0));
      }
      best_finish = std::max(ready, free[static_cast<size_t>(best)]) + p.op_seconds(o, best);
    }
    mem.add(o, best, false);
    dev[oi] = best;
    finish[oi] = best_finish;
    free[static_cast<size_t>(best)] = best_finish;
  }
  return dev;
}

double placement_lower_bound(const PlacementProblem& p) {
  std::vector<double> fastest(static_cast<size_t>(p.ops));
  double work = 0, path = 0;
  for (int o = 0; o < p.ops; ++o) work += fastest[static_cast<size_t>(o)] = min_seconds(p, o);
  const std::vector<double> tail = tails(p, fastest);
  // Earliest start of each op over the fastest kernels, inputs arriving free.
  std::vector<double> est(static_cast<size_t>(p.ops), 0.0);
  for (int o : p.order) {
    const auto oi = static_cast<size_t>(o);
    for (const auto& in : p.inputs[oi])
      est[oi] = std::max(est[oi], est[static_cast<size_t>(in.from)] + fastest[static_cast<size_t>(in.from)]);
    path = std::max(path, est[oi] + fastest[oi] + tail[oi]);
  }
  return std::max(path, p.devices > 0 ? work / p.devices : work);
}

PlacementSearch brute_force_placement(const PlacementProblem& p) {
  PlacementSearch s;
  std::vector<int> dev(static_cast<size_t>(p.ops), 0);
  while (true) {
    ++s.explored;
    const PlacementValue v = evaluate_placement(p, dev);
    if (v.fits && (s.op_device.empty() || v.step_seconds < s.step_seconds)) {
      s.op_device = dev;
      s.step_seconds = v.step_seconds;
    }
    // Next assignment (the last op varies fastest: lexicographic order).
    int i = p.ops - 1;
    while (i >= 0 && dev[static_cast<size_t>(i)] == p.devices - 1) dev[static_cast<size_t>(i--)] = 0;
    if (i < 0) break;
    ++dev[static_cast<size_t>(i)];
  }
  s.optimal = true;
  s.lower_bound = s.step_seconds;
  s.status = fmt::format("optimal (every one of {} placements)", s.explored);
  return s;
}

namespace {

class BranchAndBound {
 public:
  BranchAndBound(const PlacementProblem& p, const std::function<bool()>& stop)
      : p_(p), stop_(stop), mem_(p), dev_(static_cast<size_t>(p.ops), -1),
        finish_(static_cast<size_t>(p.ops), 0.0), free_(static_cast<size_t>(p.devices), 0.0),
        fastest_(static_cast<size_t>(p.ops)), est_(static_cast<size_t>(p.ops), 0.0) {
    for (int o = 0; o < p.ops; ++o) fastest_[static_cast<size_t>(o)] = min_seconds(p, o);
    tail_ = tails(p, fastest_);
    suffix_work_.assign(p.order.size() + 1, 0.0);
    for (size_t i = p.order.size(); i-- > 0;)
      suffix_work_[i] = suffix_work_[i + 1] + fastest_[static_cast<size_t>(p.order[i])];
  }

  PlacementSearch run() {
    // The greedy placement is the first incumbent.
    const std::vector<int> g = greedy_placement(p_);
    const PlacementValue gv = evaluate_placement(p_, g);
    if (gv.fits) best_dev_ = g, best_ = gv.step_seconds;
    dfs(0, 0.0, -1);
    PlacementSearch s;
    s.op_device = best_dev_;
    s.step_seconds = best_dev_.empty() ? 0.0 : best_;
    s.explored = nodes_;
    s.lower_bound = placement_lower_bound(p_);
    s.optimal = !stopped_;
    s.status = stopped_ ? fmt::format("stopped at the budget after {} nodes", nodes_)
                        : fmt::format("optimal ({} node{})", nodes_, nodes_ == 1 ? "" : "s");
    if (s.optimal && !best_dev_.empty()) s.lower_bound = best_;
    return s;
  }

 private:
  // A floor under every completion of the first k ops' assignment.
  double bound(size_t k, double current) {
    double lb = current;
    double free_sum = 0;
    for (double f : free_) free_sum += f;
    lb = std::max(lb, (free_sum + suffix_work_[k]) / p_.devices);
    for (size_t i = k; i < p_.order.size(); ++i) {
      const auto o = static_cast<size_t>(p_.order[i]);
      double e = 0;
      for (const auto& in : p_.inputs[o]) {
        const auto f = static_cast<size_t>(in.from);
        e = std::max(e, dev_[f] >= 0 ? finish_[f] : est_[f] + fastest_[f]);
      }
      est_[o] = e;
      lb = std::max(lb, e + fastest_[o] + tail_[o]);
      if (lb >= best_) return lb;
    }
    return lb;
  }

  void dfs(size_t k, double current, int max_used) {
    if (stopped_) return;
    if ((++nodes_ & 4095) == 0 && stop_ && stop_()) {
      stopped_ = true;
      return;
    }
    if (k == p_.order.size()) {
      if (current < best_) {
        best_ = current;
        best_dev_ = dev_;
      }
      return;
    }
    if (bound(k, current) >= best_) return;
    const int o = p_.order[k];
    const auto oi = static_cast<size_t>(o);
    // Candidate devices, earliest finish first.
    const int limit = p_.symmetric ? std::min(p_.devices - 1, max_used + 1) : p_.devices - 1;
    struct Cand {
      double finish;
      int device;
    };
    std::vector<Cand> cands;
    for (int d = 0; d <= limit; ++d) {
      double ready = 0;
      for (const auto& in : p_.inputs[oi]) {
        const int a = dev_[static_cast<size_t>(in.from)];
        ready = std::max(ready, finish_[static_cast<size_t>(in.from)] + (a != d ? p_.delay(a, d, in.bytes) : 0.0));
      }
      cands.push_back({std::max(ready, free_[static_cast<size_t>(d)]) + p_.op_seconds(o, d), d});
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.finish < b.finish; });
    for (const Cand& c : cands) {
      if (std::max(current, c.finish) >= best_) continue;
      if (!mem_.add(o, c.device, true)) continue;
      const double saved_free = free_[static_cast<size_t>(c.device)];
      dev_[oi] = c.device;
      finish_[oi] = c.finish;
      free_[static_cast<size_t>(c.device)] = c.finish;
      dfs(k + 1, std::max(current, c.finish), std::max(max_used, c.device));
      free_[static_cast<size_t>(c.device)] = saved_free;
      dev_[oi] = -1;
      mem_.remove(o, c.device);
      if (stopped_) return;
    }
  }

  const PlacementProblem& p_;
  const std::function<bool()>& stop_;
  MemoryTally mem_;
  std::vector<int> dev_;
  std::vector<double> finish_, free_, fastest_, tail_, est_, suffix_work_;
  std::vector<int> best_dev_;
  double best_ = std::numeric_limits<double>::infinity();
  std::uint64_t nodes_ = 0;
  bool stopped_ = false;
};

}  // namespace

PlacementSearch branch_and_bound_placement(const PlacementProblem& p, const std::function<bool()>& stop) {
  return BranchAndBound(p, stop).run();
}

}  // namespace brigade::planner
