// The graph search: each method proposes plans (per-op placements, stage
// splits, mesh shardings), every plan is judged by the closed form
// (estimate_plan on the plan written into the scenario) and ranked with the
// hand-written one and the single-device default.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/units.hpp"
#include "planner/search_ilp.hpp"
#include "planner/search_internal.hpp"
#include "planner/search_placement.hpp"

namespace brigade::planner::detail {
namespace {

struct Candidate {
  std::string method;
  std::string label;
  std::shared_ptr<Scenario> scenario;
};

std::string placement_label(const PlacementProblem& p, const std::vector<int>& dev) {
  std::vector<int> used(dev.begin(), dev.end());
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  if (p.ops <= 6) {
    std::string s;
    for (int o = 0; o < p.ops; ++o)
      s += fmt::format("{}{}@{}", o ? " " : "", p.op_names[static_cast<size_t>(o)], dev[static_cast<size_t>(o)]);
    return s;
  }
  int cut = 0;
  for (int o = 0; o < p.ops; ++o)
    for (const auto& in : p.inputs[static_cast<size_t>(o)]) cut += dev[static_cast<size_t>(in.from)] != dev[static_cast<size_t>(o)];
  return fmt::format("{} device{}, {} cut edge{}", used.size(), used.size() == 1 ? "" : "s", cut, cut == 1 ? "" : "s");
}

std::shared_ptr<Scenario> with_placement(const Scenario& sc, const PlacementProblem& p,
                                         const std::vector<int>& dev) {
  auto s = std::make_shared<Scenario>(sc);
  s->mesh.reset();
  s->shardings.clear();
  s->placement.clear();
  for (int o = 0; o < p.ops; ++o) s->placement[p.op_names[static_cast<size_t>(o)]] = dev[static_cast<size_t>(o)];
  return s;
}

std::string mesh_name(const Mesh& m) {
  std::string s;
  for (size_t i = 0; i < m.shape.size(); ++i) s += (i ? "x" : "") + std::to_string(m.shape[i]);
  return s;
}

}  // namespace

Result<SearchResult> search_graph(const Scenario& sc, const SearchOptions& o) {
  Deadline deadline(o);
  ProgressThrottle throttle(o, deadline);
  auto pp_or = placement_problem(sc.graph, sc.topology, sc.profile);
  if (!pp_or.is_ok()) return Status::at(sc.where("model.graph"), pp_or.message());
  const PlacementProblem pp = std::move(pp_or).value();
  const int N = pp.ops, D = pp.devices;
  SearchResult r;
  r.scenario_name = sc.name;
  r.model_kind = "graph";
  r.devices = D;
  r.topology = topology_text(sc.topology);
  r.objective = o.objective;
  r.judge = o.judge_sim ? "sim" : "cost";
  const double placements = std::pow(static_cast<double>(D), N);
  r.space_size = placements < 1.8e19 ? static_cast<std::uint64_t>(placements) : UINT64_MAX;
  r.space.push_back(fmt::format("per-op placement: {}^{} = {:.4g} placements ({} ops on {} devices)", D, N,
                                placements, N, D));
  r.space.push_back(fmt::format("pipeline stage splits: the topological order cut into at most {} "
                                "contiguous stages, stage k on device k",
                                std::min(D, N)));
  // Meshes over every device: one axis, and every two-axis factorisation.
  std::vector<Mesh> meshes;
  if (D >= 2) {
    meshes.push_back(Mesh{{"x"}, {D}});
    for (int a = 2; a * 2 <= D; ++a)
      if (D % a == 0) meshes.push_back(Mesh{{"x", "y"}, {a, D / a}});
  }
  {
    std::string ms;
    for (const Mesh& m : meshes) ms += (ms.empty() ? "" : ", ") + mesh_name(m);
    r.space.push_back(meshes.empty() ? std::string("mesh shardings: none (one device)")
                                     : "mesh shardings: meshes " + ms +
                                           " (the last axis inside a node); one strategy per op, "
                                           "input and weight");
  }

  // Budget shares: placement 40%, the integer programs 40%, the judges the rest.
  const bool budget = deadline.has_budget();
  const double total = o.budget_seconds;
  auto stop_at = [&](double fraction) {
    return [&deadline, budget, total, fraction] { return budget && deadline.elapsed() >= fraction * total; };
  };
  SearchProgress prog;
  prog.total = r.space_size;
  prog.stage = "space";  // the size, before the search starts
  throttle.report(prog, true);
  std::vector<Candidate> cands;

  // 1. Per-op placement: exact when small enough, annealing otherwise.
  if (placements <= kExactPlacementLimit) {
    prog.stage = "branch and bound";
    throttle.report(prog, true);
    const double t0 = deadline.elapsed();
    const PlacementSearch s = branch_and_bound_placement(pp, stop_at(0.4));
    MethodReport m;
    m.name = "branch and bound (per-op placement)";
    m.objective = "critical path";
    m.value = s.step_seconds;
    m.lower_bound = s.lower_bound;
    m.optimal = s.optimal && !s.op_device.empty();
    m.status = s.op_device.empty() ? "no placement fits" : s.status;
    m.explored = s.explored;
    m.seconds = deadline.elapsed() - t0;
    if (!s.optimal)
      m.fallback = "the budget ran out before the branch and bound finished: its best placement so far "
                   "is ranked, with the gap to the bound";
    r.methods.push_back(m);
    if (!s.op_device.empty())
      cands.push_back({"branch and bound", placement_label(pp, s.op_device), with_placement(sc, pp, s.op_device)});
  } else {
    prog.stage = "simulated annealing";
    throttle.report(prog, true);
    const double t0 = deadline.elapsed();
    const std::uint64_t moves = 200000;
    const PlacementSearch s = anneal_placement(pp, o.seed, moves, stop_at(0.4));
    MethodReport m;
    m.name = "simulated annealing (per-op placement)";
    m.objective = "critical path";
    m.value = s.step_seconds;
    m.lower_bound = s.lower_bound;
    m.optimal = s.optimal;
    m.status = s.op_device.empty() ? "no placement that fits was found" : s.status;
    m.explored = s.explored;
    m.seconds = deadline.elapsed() - t0;
    m.fallback = fmt::format(
        "graph too large for the exact search: {} ops on {} devices is {}^{} = {:.3g} placements, above "
        "its limit of 4^12 = 16,777,216 (about 12 ops on 4 devices); simulated annealing instead "
        "(seed {}), whose gap is measured against a lower bound",
        N, D, D, N, placements, o.seed);
    r.methods.push_back(m);
    if (!s.op_device.empty())
      cands.push_back({"annealing", placement_label(pp, s.op_device), with_placement(sc, pp, s.op_device)});
  }

  // 2. Pipeline stage splits (one micro-batch: Brigade's graphs are not micro-batched).
  if (D >= 2 && N >= 2) {
    prog.stage = "dynamic programming";
    throttle.report(prog, true);
    const double t0 = deadline.elapsed();
    const StageSplit s = split_stages(pp, D, 1);
    MethodReport m;
    m.name = "dynamic programming (pipeline stages)";
    m.objective = "sum of stage times, one micro-batch";
    m.value = s.latency_seconds;
    m.optimal = s.found;
    m.lower_bound = s.found ? std::optional<double>(s.latency_seconds) : std::nullopt;
    m.status = s.found ? fmt::format("optimal over contiguous splits, {} stage{}", s.stage_end.size(),
                                     s.stage_end.size() == 1 ? "" : "s")
                       : "no split fits the devices' memory";
    m.explored = s.explored;
    m.seconds = deadline.elapsed() - t0;
    r.methods.push_back(m);
    if (s.found) {
      const std::vector<int> dev = stages_to_placement(pp, s);
      cands.push_back({"stage split", fmt::format("{} stage{}: {}", s.stage_end.size(),
                                                  s.stage_end.size() == 1 ? "" : "s", placement_label(pp, dev)),
                       with_placement(sc, pp, dev)});
    }
  }

  // 3. Shardings over each mesh by the integer program.
  for (size_t mi = 0; mi < meshes.size(); ++mi) {
    const Mesh& mesh = meshes[mi];
    prog.stage = "integer program, mesh " + mesh_name(mesh);
    throttle.report(prog, true);
    const double t0 = deadline.elapsed();
    auto ms = sharding_problem(sc.graph, mesh, sc.topology, sc.profile, sc.strategy.algorithm);
    MethodReport m;
    m.name = "integer program, CBC (shardings on mesh " + mesh_name(mesh) + ")";
    m.objective = "sum of compute and resharding";
    if (!ms.is_ok()) {
      m.status = "not built: " + ms.message();
      r.methods.push_back(m);
      continue;
    }
    double limit = 10.0;
    if (budget) limit = std::max(0.01, (0.8 * total - deadline.elapsed()) / static_cast<double>(meshes.size() - mi));
    const ShardingSolution s = solve_sharding_ilp(ms->problem, limit);
    m.value = s.objective;
    m.optimal = s.optimal;
    if (!s.choice.empty()) m.lower_bound = s.bound;
    m.status = s.status;
    m.explored = s.explored;
    m.seconds = deadline.elapsed() - t0;
    r.methods.push_back(m);
    if (s.choice.empty()) continue;
    auto v = std::make_shared<Scenario>(sc);
    v->placement.clear();
    v->mesh = MeshSpec{mesh.shape, mesh.axes};
    v->shardings = shardings_of(*ms, sc.graph, s.choice, false);
    std::string label = "mesh " + mesh_name(mesh) + ":";
    for (const auto& [t, spec] : shardings_of(*ms, sc.graph, s.choice, true)) {
      std::string d;
      for (const auto& a : spec) d += (d.empty() ? "" : ",") + (a.empty() ? std::string("-") : a);
      label += " " + t + "[" + d + "]";
    }
    cands.push_back({"integer program", label, v});
  }

  // The default (every op on device 0, as JAX runs an unplaced jit) and the hand-written plan.
  cands.push_back({"one device", "every op on device 0", with_placement(sc, pp, std::vector<int>(static_cast<size_t>(N), 0))});
  const bool hand = !sc.placement.empty() || sc.mesh.has_value();

  // Judge every proposal in closed form.
  prog.stage = "closed form";
  auto judge = [&](const Candidate& c, RankedPlan& p) -> Status {
    auto e = cost::estimate_plan(*c.scenario);
    ++r.evaluated;
    if (!e.is_ok()) {
      if (r.invalid++ == 0) r.invalid_example = c.method + ": " + e.message();
      return e.status();
    }
    p.method = c.method;
    p.label = c.label;
    p.scenario = c.scenario;
    fill_figures(*e, p);
    return Status::ok();
  };
  std::vector<RankedPlan> fit, over;
  for (const Candidate& c : cands) {
    // The same plan from two methods is ranked once, under both names.
    bool dup = false;
    for (auto* list : {&fit, &over})
      for (RankedPlan& p : *list)
        if (p.scenario->placement == c.scenario->placement && p.scenario->shardings == c.scenario->shardings &&
            p.scenario->mesh.has_value() == c.scenario->mesh.has_value() &&
            (!p.scenario->mesh || p.scenario->mesh->shape == c.scenario->mesh->shape)) {
          p.method += " = " + c.method;
          dup = true;
        }
    if (dup) continue;
    RankedPlan p;
    if (!judge(c, p).is_ok()) continue;
    (p.fits ? fit : over).push_back(std::move(p));
  }
  r.fitting = fit.size();
  r.infeasible = over.size();
  if (hand) {
    std::string label;
    if (sc.mesh) {
      std::string shape;
      for (auto x : sc.mesh->shape) shape += (shape.empty() ? "" : "x") + std::to_string(x);
      label = "mesh " + shape + ":";
      for (const auto& [t, spec] : sc.shardings) {
        std::string d;
        for (const auto& a : spec) d += (d.empty() ? "" : ",") + (a.empty() ? std::string("-") : a);
        label += " " + t + "[" + d + "]";
      }
    } else {
      std::vector<int> dev(static_cast<size_t>(N), 0);  // unplaced ops run on device 0
      for (int op = 0; op < N; ++op)
        if (auto it = sc.placement.find(pp.op_names[static_cast<size_t>(op)]); it != sc.placement.end())
          dev[static_cast<size_t>(op)] = it->second;
      label = placement_label(pp, dev);
    }
    Candidate hc{"hand-written", label, std::make_shared<Scenario>(sc)};
    RankedPlan hp;
    auto st = judge(hc, hp);
    if (!st.is_ok()) {
      r.notes.push_back("the hand-written plan cannot be judged: " + st.message());
    } else {
      hp.hand_written = true;
      hp.label = hc.label;
      r.hand_written = hp;
    }
  }
  auto by_obj = [&](const RankedPlan& a, const RankedPlan& b) { return better(o.objective, a, b); };
  std::stable_sort(fit.begin(), fit.end(), by_obj);
  std::stable_sort(over.begin(), over.end(), [](const RankedPlan& a, const RankedPlan& b) {
    return a.overflow_bytes < b.overflow_bytes;
  });
  if (r.hand_written && r.hand_written->fits) {
    int rank = 1;
    for (const RankedPlan& p : fit) rank += better(o.objective, p, *r.hand_written) ? 1 : 0;
    r.hand_written_rank = rank;
    fit.push_back(*r.hand_written);
    std::stable_sort(fit.begin(), fit.end(), by_obj);
  }
  const size_t K = static_cast<size_t>(std::max(1, o.top));
  if (fit.size() > K) fit.resize(K);
  if (over.size() > K) over.resize(K);
  r.plans = std::move(fit);
  r.not_fitting = std::move(over);
  explain_ranking(o.objective, r.plans);
  for (RankedPlan& p : r.not_fitting) {
    p.overflow = overflow_text(p, false);
    p.reason = "does not fit: " + p.overflow;
  }
  if (r.hand_written) {
    RankedPlan& hp = *r.hand_written;
    if (!hp.fits)
      hp.overflow = overflow_text(hp, false), hp.reason = "does not fit: " + hp.overflow;
    else if (!r.plans.empty() && !r.plans.front().hand_written)
      hp.reason = loses_because(o.objective, hp, r.plans.front());
    else
      hp.reason = "best";
  }
  r.notes.push_back("every method's plan is judged by the closed form (critical path of a placement; "
                    "compute + collectives of a sharding, propagated from the inputs and weights)");
  if (o.objective == SearchObjective::kMemory)
    r.notes.push_back("the methods minimise step time; --objective memory orders their plans by peak memory");
  if (o.judge_sim) rerank_with_simulator(r, o, deadline);
  r.elapsed_seconds = deadline.elapsed();
  throttle.report(prog, true);
  return r;
}

}  // namespace brigade::planner::detail
