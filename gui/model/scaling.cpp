#include "gui/model/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "costmodel/plan.hpp"
#include "costmodel/scaling.hpp"
#include "gui/model/loader.hpp"
#include "planner/lower.hpp"
#include "sim/simulator.hpp"

namespace brigade::gui {

namespace {

// The smallest device count of a plan: a transformer's tensor x pipeline
// (sweep_variant scales its data degree), else one device.
int device_unit(const Scenario& s) {
  if (s.model_kind == ModelKind::kTransformer)
    return std::max(1, s.strategy.tensor * s.strategy.pipeline);
  return 1;
}

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load();
}

}  // namespace

std::vector<int> scaling_device_counts(const Scenario& scenario) {
  const int unit = device_unit(scenario);
  const int own = std::max(unit, scenario.topology.num_devices());
  std::vector<int> counts;
  for (int n = unit; n <= own; n *= 2) counts.push_back(n);
  if (counts.back() != own && own % unit == 0) counts.push_back(own);
  for (int n = counts.back() * 2; counts.size() < 4; n *= 2) counts.push_back(n);
  return counts;
}

Result<planner::SweepResult> scaling_sweep(const Scenario& scenario,
                                           const std::vector<int>& devices, ScalingJudge judge,
                                           const std::atomic<bool>* cancel,
                                           const planner::SweepProgress& progress) {
  planner::SweepSpec spec;
  for (int n : devices) spec.values.push_back(std::to_string(n));
  planner::SweepJudge closed_form = [cancel](const Scenario& s) -> Result<planner::SweepJudgement> {
    if (cancelled(cancel)) return cancelled_status();
    auto e = cost::estimate_plan(s);
    if (!e.is_ok()) return e.status();
    return planner::sweep_judgement(*e);
  };
  planner::SweepJudge simulator = [cancel](const Scenario& s) -> Result<planner::SweepJudgement> {
    // The planner's Program through the simulator, as `brigade sweep --judge
    // sim` runs it: the scenario's network, speeds and runtime:, no trace.
    if (cancelled(cancel)) return cancelled_status();
    planner::LowerOptions lo;
    lo.cancel = cancel;
    auto plan = planner::lower(s, lo);
    if (cancelled(cancel)) return cancelled_status();
    if (!plan.is_ok()) return plan.status();
    sim::SimOptions so = scenario_sim_options(s, cancel);
    so.record_task_times = false;
    auto r = sim::simulate(plan->program, s.topology, s.profile, so);
    if (cancelled(cancel)) return cancelled_status();
    if (!r.is_ok()) return r.status();
    return planner::sweep_judgement(*r, s);
  };
  const bool sim = judge == ScalingJudge::kSimulator;
  auto r = planner::run_sweep(scenario, spec, sim ? "sim" : "cost", sim ? simulator : closed_form,
                              progress);
  if (cancelled(cancel)) return cancelled_status();
  return r;
}

ScalingCurves scaling_curves(const planner::SweepResult& sweep, int samples, double extend) {
  ScalingCurves c;
  std::vector<const planner::SweepPoint*> judged;
  for (const planner::SweepPoint& p : sweep.points)
    if (p.error.empty() && p.step_seconds > 0) judged.push_back(&p);
  std::stable_sort(judged.begin(), judged.end(),
                   [](const auto* a, const auto* b) { return a->devices < b->devices; });
  if (judged.empty()) return c;
  // run_sweep's speedups are against its first judged point, in the order
  // the counts were given.
  double base = 0;
  for (const planner::SweepPoint& p : sweep.points)
    if (p.error.empty() && p.step_seconds > 0) {
      base = p.devices;
      break;
    }
  for (const planner::SweepPoint* p : judged) {
    c.speedup.emplace_back(p->devices, p->speedup);
    c.efficiency.emplace_back(p->devices, 100.0 * p->efficiency);
    c.ideal.emplace_back(p->devices, p->devices / base);
  }
  // Only a p in [0, 1] is a parallel fraction; outside it the sweep's
  // amdahl_note says why, and a curve would mislead.
  if (amdahl_curve_drawn(sweep) && samples >= 2) {
    const double lo = std::log(static_cast<double>(judged.front()->devices));
    const double hi = std::log(static_cast<double>(judged.back()->devices) * std::max(1.0, extend));
    for (int i = 0; i < samples; ++i) {
      const double n = std::exp(lo + (hi - lo) * i / (samples - 1));
      const double s = cost::amdahl_speedup(*sweep.amdahl_p, n / base);
      c.amdahl.emplace_back(n, s);
      c.amdahl_efficiency.emplace_back(n, 100.0 * cost::parallel_efficiency(s, n / base));
    }
  }
  return c;
}

bool amdahl_curve_drawn(const planner::SweepResult& sweep) {
  return sweep.amdahl_p && *sweep.amdahl_p >= 0 && *sweep.amdahl_p <= 1;
}

}  // namespace brigade::gui
