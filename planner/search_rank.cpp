// The transformer search: every point of the strategy space judged in
// closed form (costmodel's estimate_plan on one reused Scenario, so the
// topology and its routes are shared by every candidate and no candidate is
// held), pruned memory first, then by a time bound, best first.
//
// Pruning (docs/search.md, "Pruning"):
//  - memory: a (time class, ZeRO stage) group whose first plan does not fit
//    is dropped whole: the closed form's memory does not depend on the rank
//    order or the bucket size (checked on every plan judged after it; if a
//    plan ever disagrees the search stops relying on it and says so);
//  - time: a class's kernels are the same for all its plans on identical
//    devices, so the kernel floor of any plan judged in it (its compute, and
//    the pipeline schedule run with kernels alone: PlanEstimate's
//    kernel_floor_seconds) is a floor for every step in it (also checked on
//    every plan). Classes
//    are visited in order of that floor (one plan each first), so once a
//    floor exceeds the K-th best step, every class left is dropped.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "core/units.hpp"
#include "costmodel/plan_memo.hpp"
#include "planner/rank_map.hpp"
#include "planner/search_internal.hpp"

namespace brigade::planner::detail {
namespace {

// A plan kept while streaming: its score and its keys, and the plans folded
// into it (the same figures, other rank orders or buckets).
struct Kept {
  double primary = 0, secondary = 0;
  StrategyPoint point;
  double overflow = 0;  // not_fitting only
  std::vector<StrategyPoint> ties;
};

bool kept_before(const Kept& a, const Kept& b) {
  if (a.primary != b.primary) return a.primary < b.primary;
  if (a.secondary != b.secondary) return a.secondary < b.secondary;
  return a.point < b.point;
}

bool closer(const Kept& a, const Kept& b) {
  if (a.overflow != b.overflow) return a.overflow < b.overflow;
  return kept_before(a, b);
}

// Inserts into a sorted list of at most k rows, folding a plan into a row
// it ties with (ties_with, search_internal.hpp): the better of the two (by
// `less`) stands for both.
template <class Less>
void keep(std::vector<Kept>& v, const Kept& x, size_t k, Less less) {
  for (size_t i = 0; i < v.size(); ++i) {
    Kept& row = v[i];
    if (!ties_with(row.point, row.primary, row.secondary, x.point, x.primary, x.secondary)) continue;
    if (!less(x, row)) {
      row.ties.push_back(x.point);
      return;
    }
    Kept better = x;
    better.ties = std::move(row.ties);
    better.ties.push_back(row.point);
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
    v.insert(std::upper_bound(v.begin(), v.end(), better, less), std::move(better));
    return;
  }
  if (v.size() >= k && !less(x, v.back())) return;
  v.insert(std::upper_bound(v.begin(), v.end(), x, less), x);
  if (v.size() > k) v.pop_back();
}

// Identical devices (model, memory, peaks) and no per-device speed: a time
// class then runs the same kernels for the same time whatever the rank order.
bool identical_devices(const Scenario& sc) {
  const auto& ds = sc.topology.devices();
  if (!sc.simulation.speed.empty()) return false;
  for (const Device& d : ds) {
    const Device& f = ds.front();
    if (d.model != f.model || d.memory_bytes != f.memory_bytes ||
        d.peak_flops_per_second != f.peak_flops_per_second ||
        d.memory_bandwidth_bytes_per_second != f.memory_bandwidth_bytes_per_second)
      return false;
  }
  return true;
}

// Marks which of a transformer plan's collectives leave a node.
void mark_crossings(const Scenario& sc, const StrategyPoint& p, RankedPlan& plan) {
  auto rm = RankMap::make(p.tensor, p.data, p.pipeline, rank_order_names(p.rank_order, p.context),
                          p.context);
  if (!rm.is_ok()) return;
  const Topology& t = sc.topology;
  auto spans = [&](const std::vector<int>& g) {
    for (int dev : g)
      if (t.device(dev).node != t.device(g.front()).node) return true;
    return false;
  };
  const bool tp = spans(rm->tensor_group(0, 0));
  const std::vector<int> replicas = rm->data_group(0, 0);  // data x context, context fastest
  const bool dp = spans(replicas);
  // The first ring of context ranks (data rank 0).
  const bool cp = p.context > 1 && spans({replicas.begin(), replicas.begin() + p.context});
  const bool pp = p.pipeline > 1 && spans({rm->device(0, 0, 0), rm->device(0, 0, 1)});
  for (auto& c : plan.communication) {
    if (c.purpose == "context") c.crosses_nodes = cp;
    if (c.purpose == "tensor") c.crosses_nodes = tp;
    if (c.purpose == "data" || c.purpose == "zero-3 params") c.crosses_nodes = dp;
    if (c.purpose == "pipeline") c.crosses_nodes = pp;
  }
}

}  // namespace

std::string topology_text(const Topology& t) {
  const int nodes = t.num_nodes();
  std::string name = t.preset.empty() ? std::string("custom") : t.preset;
  if (name.rfind("cluster(", 0) == 0) {
    const auto comma = name.find(", ");
    const auto close = name.find_first_of(",)", comma + 2);
    if (comma != std::string::npos) name = name.substr(comma + 2, close - comma - 2);
  }
  if (nodes > 1) return fmt::format("{} x {} nodes ({} devices)", name, nodes, t.num_devices());
  return fmt::format("{} ({} device{})", name, t.num_devices(), t.num_devices() == 1 ? "" : "s");
}

Result<SearchResult> search_transformer(const Scenario& sc, const SearchOptions& o) {
  Deadline deadline(o);
  ProgressThrottle throttle(o, deadline);
  BRIGADE_ASSIGN_OR_RETURN(const StrategySpace space, StrategySpace::make(sc, o.grid));
  const SearchObjective obj = o.objective;
  const size_t K = static_cast<size_t>(std::max(1, o.top));

  SearchResult r;
  r.scenario_name = sc.name;
  r.model_kind = "transformer";
  r.devices = sc.topology.num_devices();
  r.topology = topology_text(sc.topology);
  r.objective = obj;
  r.judge = o.judge_sim ? "sim" : "cost";
  r.space = space.describe();
  r.experts = space.experts();
  r.contexts = space.contexts() || (sc.has_strategy && sc.strategy.context > 1);
  r.refused = space.refused();
  r.space_size = space.size();

  // One scenario for every candidate: its Topology (and the routes cached in
  // it) is the scenario's own, shared, and each candidate only rewrites the
  // strategy and training keys.
  Scenario work = sc;
  // Collectives recur from plan to plan: each priced once (costmodel/plan_memo.hpp).
  cost::PlanMemo memo(work.topology, work.profile);
  cost::ScopedPlanMemo use_memo(memo);
  const bool bound_allowed = obj == SearchObjective::kStepTime && identical_devices(sc);
  bool bound_ok = bound_allowed;
  bool memory_class_ok = true;
  if (!bound_allowed && obj == SearchObjective::kStepTime)
    r.notes.push_back("devices differ (or simulation.speed is set): no time bound, every plan "
                      "that fits is judged");

  // The hand-written plan first, so that the stream can count what beats it.
  std::optional<Kept> hand;
  if (sc.has_strategy) {
    auto e = cost::estimate_plan(sc);
    if (!e.is_ok()) {
      r.notes.push_back("the hand-written plan cannot be judged: " + e.message());
    } else {
      RankedPlan hp;
      hp.point = point_of(sc);
      hp.label = point_label(*hp.point);
      hp.method = "hand-written";
      hp.hand_written = true;
      hp.scenario = std::make_shared<const Scenario>(sc);
      fill_figures(*e, hp);
      mark_crossings(sc, *hp.point, hp);
      if (hp.fits) {
        Kept k;
        k.primary = obj == SearchObjective::kStepTime ? hp.step_seconds : hp.peak_memory_bytes;
        k.secondary = obj == SearchObjective::kStepTime ? hp.peak_memory_bytes : hp.step_seconds;
        k.point = *hp.point;
        hand = k;
      }
      r.hand_written = std::move(hp);
    }
  }
  std::uint64_t beat_hand = 0;

  std::vector<Kept> best, closest;
  SearchProgress prog;
  prog.total = r.space_size;
  prog.stage = "space";  // the size, before the search starts
  throttle.report(prog, true);
  prog.stage = "closed form";
  auto report = [&](bool force) {
    prog.evaluated = r.evaluated;
    prog.pruned = r.pruned_memory + r.pruned_bound;
    if (!best.empty()) {
      prog.best = best.front().primary;
      prog.best_label = point_label(best.front().point);
    }
    throttle.report(prog, force);
  };

  // Per stage, not per device: the same step, parts, peak and fit.
  cost::EstimateOptions lean;
  lean.every_device = false;
  lean.communication = false;  // the loop reads the step, compute and memory alone
  // Judges one point; returns its figures or nothing (invalid).
  struct Judged {
    bool ok = false;
    double step = 0, compute = 0;
    double floor = 0;  // the class's kernel floor: max(compute, kernel_floor_seconds)
    MemoryFigures mem;
  };
  auto judge = [&](const StrategyPoint& p) {
    Judged j;
    apply_point(p, work, sc);
    auto e = cost::estimate_plan(work, lean);
    if (!e.is_ok()) {
      if (r.invalid++ == 0) r.invalid_example = point_label(p) + ": " + e.message();
      return j;
    }
    ++r.evaluated;
    j.ok = true;
    j.step = e->step_seconds;
    j.compute = e->compute_seconds;
    j.floor = std::max(e->compute_seconds, e->kernel_floor_seconds);
    j.mem = memory_figures(*e);
    Kept k;
    k.point = p;
    k.primary = obj == SearchObjective::kStepTime ? j.step : j.mem.peak_bytes;
    k.secondary = obj == SearchObjective::kStepTime ? j.mem.peak_bytes : j.step;
    if (j.mem.fits) {
      ++r.fitting;
      keep(best, k, K, kept_before);
      if (hand && kept_before(k, *hand) && !equivalent(k.point, hand->point)) ++beat_hand;
    } else {
      ++r.infeasible;
      k.overflow = j.mem.overflow_bytes;
      keep(closest, k, K, closer);
    }
    if ((r.evaluated & 255) == 0) report(false);
    return j;
  };
  auto kth = [&]() { return best.size() >= K ? best.back().primary : HUGE_VAL; };
  // A floor must pass the K-th best by more than a tie's rounding (ties_with:
  // 1e-9) to prune: a plan that would fold into the K-th row is still judged.
  constexpr double kBoundSlack = 1 + 2e-9;

  const auto& classes = space.classes();
  std::vector<double> floor(classes.size(), 0.0);
  std::vector<Judged> first(classes.size());
  bool stopped = false;
  std::uint64_t visited = 0;  // points judged or pruned

  // Pass 1: one plan per class (its first ZeRO stage, rank order and bucket)
  // gives the class's compute floor.
  for (size_t i = 0; i < classes.size() && !stopped; ++i) {
    const TimeClass& c = classes[i];
    first[i] = judge(point_in(c, space.zero_values(c).front(), space.rank_orders(c).front(),
                              space.bucket_values(c).front()));
    floor[i] = first[i].ok ? first[i].floor : 0.0;
    ++visited;
    if ((i & 63) == 0 && deadline.expired()) stopped = true;
  }
  std::vector<size_t> order(classes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (bound_ok)
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return floor[a] < floor[b]; });

  // Pass 2: every class, best floor first.
  std::uint64_t since_check = 0;
  for (size_t oi = 0; oi < order.size() && !stopped; ++oi) {
    const size_t i = order[oi];
    const TimeClass& c = classes[i];
    if (bound_ok && floor[i] > 0 && floor[i] > kth() * kBoundSlack) {
      // Classes are in order of their floors: this one and every one after it
      // are out (pass 1 visited one plan of each).
      for (size_t rest = oi; rest < order.size(); ++rest) {
        const std::uint64_t n = space.class_size(classes[order[rest]]) - 1;
        r.pruned_bound += n;
        visited += n;
      }
      break;
    }
    const auto zeros = space.zero_values(c);
    const auto orders = space.rank_orders(c);
    const auto buckets = space.bucket_values(c);
    const std::uint64_t group = static_cast<std::uint64_t>(orders.size()) * buckets.size();
    bool class_out = false;
    for (size_t zi = 0; zi < zeros.size() && !class_out && !stopped; ++zi) {
      bool have_group = false;
      double group_peak = 0;
      bool group_fits = true;
      std::uint64_t judged_in_group = 0;
      if (zi == 0) {
        judged_in_group = 1;  // pass 1's plan leads this group
        if (first[i].ok) {
          have_group = true;
          group_peak = first[i].mem.peak_bytes;
          group_fits = first[i].mem.fits;
        }
      }
      for (size_t oj = 0; oj < orders.size() && !stopped; ++oj)
        for (size_t bj = 0; bj < buckets.size() && !stopped; ++bj) {
          if (zi == 0 && oj == 0 && bj == 0) continue;  // judged in pass 1
          // Memory first: a group whose first plan did not fit is out whole.
          if (have_group && memory_class_ok && !group_fits) {
            r.pruned_memory += group - judged_in_group;
            visited += group - judged_in_group;
            oj = orders.size();
            break;
          }
          // Memory objective: a group whose (common) peak is past the K-th best is out.
          if (obj == SearchObjective::kMemory && have_group && memory_class_ok &&
              group_peak > kth() * kBoundSlack) {
            r.pruned_bound += group - judged_in_group;
            visited += group - judged_in_group;
            oj = orders.size();
            break;
          }
          // Time: the heap may have filled while in this class.
          if (bound_ok && floor[i] > 0 && floor[i] > kth() * kBoundSlack) {
            const std::uint64_t left_in_group = group - judged_in_group;
            const std::uint64_t left_after = (zeros.size() - zi - 1) * group;
            r.pruned_bound += left_in_group + left_after;
            visited += left_in_group + left_after;
            class_out = true;
            oj = orders.size();
            break;
          }
          const Judged j = judge(point_in(c, zeros[zi], orders[oj], buckets[bj]));
          ++judged_in_group;
          ++visited;
          if (!j.ok) continue;
          if (bound_ok && j.mem.fits && j.step < j.floor * (1 - 1e-9)) bound_ok = false;
          if (bound_ok && j.step < floor[i] * (1 - 1e-9)) {
            bound_ok = false;
            r.notes.push_back(fmt::format(
                "a plan stepped faster ({}) than its class's kernel floor ({}): the time bound "
                "was dropped from there on",
                format_seconds(j.step), format_seconds(floor[i])));
          }
          floor[i] = std::max(floor[i], j.floor);
          if (!have_group) {
            have_group = true;
            group_peak = j.mem.peak_bytes;
            group_fits = j.mem.fits;
          } else if (memory_class_ok &&
                     std::abs(j.mem.peak_bytes - group_peak) > 1e-9 * std::max(1.0, group_peak)) {
            memory_class_ok = false;
            r.notes.push_back(
                "the closed form's peak memory changed with the rank order or the bucket size: "
                "memory pruning by class was dropped from there on");
          }
          if ((++since_check & 63) == 0 && deadline.expired()) stopped = true;
        }
    }
    report(false);
  }
  if (stopped) {
    r.budget_exhausted = true;
    r.unvisited = r.space_size > visited ? r.space_size - visited : 0;
  }
  r.elapsed_seconds = deadline.elapsed();
  report(true);

  // The kept plans in full.
  auto full = [&](const Kept& k, const std::string& method) -> std::optional<RankedPlan> {
    auto s = std::make_shared<Scenario>(sc);
    apply_point(k.point, *s, sc);
    auto e = cost::estimate_plan(*s);
    if (!e.is_ok()) return std::nullopt;
    RankedPlan p;
    p.point = k.point;
    p.label = point_label(k.point);
    p.method = method;
    p.ties = k.ties;
    std::sort(p.ties.begin(), p.ties.end());
    p.scenario = s;
    fill_figures(*e, p);
    mark_crossings(sc, k.point, p);
    return p;
  };
  for (const Kept& k : best)
    if (auto p = full(k, "grid")) r.plans.push_back(std::move(*p));
  for (const Kept& k : closest)
    if (auto p = full(k, "grid")) r.not_fitting.push_back(std::move(*p));

  // The hand-written plan's place among them.
  if (r.hand_written && r.hand_written->fits) {
    RankedPlan& hp = *r.hand_written;
    const bool same_as_grid = hp.point && sc.strategy.data_mode == DataMode::kBatch;
    bool listed = false;
    for (RankedPlan& p : r.plans) {
      if (same_as_grid && p.point && equivalent(*p.point, *hp.point)) {
        p.hand_written = true;
        p.method = "grid = hand-written";
        listed = true;
      }
      for (const StrategyPoint& t : p.ties)
        if (same_as_grid && !listed && equivalent(t, *hp.point)) {
          p.hand_written = true;
          p.method = "grid, ties with the hand-written plan";
          listed = true;
        }
    }
    r.hand_written_in_space = same_as_grid && space.contains(*hp.point);
    if (!listed) {
      r.plans.push_back(hp);
      std::stable_sort(r.plans.begin(), r.plans.end(),
                       [&](const RankedPlan& a, const RankedPlan& b) { return better(obj, a, b); });
      if (r.plans.size() > K) r.plans.pop_back();
    }
    r.hand_written_rank = static_cast<int>(beat_hand) + 1;
    const bool within_top = best.size() < K || !kept_before(best.back(), *hand);
    r.hand_written_rank_exact = !r.budget_exhausted && (r.pruned_bound == 0 || within_top);
  }
  explain_ranking(obj, r.plans);
  if (r.hand_written) {
    RankedPlan& hp = *r.hand_written;
    if (!hp.fits)
      hp.overflow = overflow_text(hp, true), hp.reason = "does not fit: " + hp.overflow;
    else if (!r.plans.empty() && !r.plans.front().hand_written)
      hp.reason = loses_because(obj, hp, r.plans.front());
    else
      hp.reason = "best";
    for (const RankedPlan& p : r.plans)
      if (p.hand_written) hp.cost_rank = p.cost_rank;
  }
  for (RankedPlan& p : r.not_fitting) {
    p.overflow = overflow_text(p, true);
    p.reason = "does not fit: " + p.overflow;
  }

  if (r.pruned_memory > 0)
    r.notes.push_back(fmt::format(
        "memory first: {} plans never judged, because the first plan of their group (same "
        "tensor, pipeline, data, expert, context, sequence parallelism, micro-batch, schedule, "
        "recomputation and ZeRO stage: rank order and bucket change no memory in the closed form) "
        "did not fit",
        r.pruned_memory));
  if (r.pruned_bound > 0)
    r.notes.push_back(
        obj == SearchObjective::kStepTime
            ? fmt::format("time bound: {} plans never judged, because the kernels alone of their "
                          "class (its compute, with the pipeline's fill and drain: a floor under "
                          "every step in it) were slower than the {} best steps found",
                          r.pruned_bound, K)
            : fmt::format("memory bound: {} plans never judged, because their group's peak "
                          "memory was above the {} smallest found",
                          r.pruned_bound, K));
  if (r.budget_exhausted)
    r.notes.push_back(fmt::format("budget: stopped after {}, {} plans not visited; the ranking "
                                  "covers the plans judged",
                                  format_seconds(r.elapsed_seconds), r.unvisited));
  if (o.judge_sim) rerank_with_simulator(r, o, deadline);
  r.elapsed_seconds = deadline.elapsed();
  return r;
}

}  // namespace brigade::planner::detail
