// The scaling view's data: one scenario swept over device counts
// (planner::run_sweep, strong scaling: the data degree grows, the global
// batch stays) by the simulator and by the closed form, and the curves
// drawn from a sweep: speedup and efficiency as judged, ideal (linear in
// the devices), and Amdahl's law with the fitted p. No Qt.
#pragma once

#include <atomic>
#include <utility>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "gui/model/chart_units.hpp"
#include "planner/sweep.hpp"

namespace brigade::gui {

// The device counts a scaling view sweeps by default: the smallest unit a
// plan can take (tensor x pipeline for a transformer, else 1) doubled while
// it stays within the scenario's devices, then the scenario's own count if
// it is not a power-of-two multiple, then doubled beyond it until there
// are at least 4 counts (a curve needs points to show its shape).
std::vector<int> scaling_device_counts(const Scenario& scenario);

enum class ScalingJudge {
  kSimulator,   // planner::lower + sim::simulate (untraced), the scenario's network model
  kClosedForm,  // costmodel::estimate_plan
};

// run_sweep over `devices` by `judge`. `cancel` (may be null) is polled
// before every point and passed to the planner and the simulator where their
// options take it (LowerOptions, SimOptions::cancel); a cancelled sweep returns the loader's
// cancelled_status(). `progress` as run_sweep's.
Result<planner::SweepResult> scaling_sweep(const Scenario& scenario,
                                           const std::vector<int>& devices, ScalingJudge judge,
                                           const std::atomic<bool>* cancel = nullptr,
                                           const planner::SweepProgress& progress = {});

struct ScalingCurves {
  XY speedup;     // (devices, speedup) of the judged points
  XY efficiency;  // (devices, efficiency in %)
  XY ideal;       // (devices, devices / the first point's devices)
  // Amdahl's S(N / N0) with the sweep's fitted p, at `samples` device
  // counts spaced evenly in log N from the first point to `extend` times the
  // last (its extrapolation: where the law bends); and its efficiency in %.
  // Empty when the sweep has no fit.
  XY amdahl;
  XY amdahl_efficiency;
};

ScalingCurves scaling_curves(const planner::SweepResult& sweep, int samples = 64,
                             double extend = 1);

}  // namespace brigade::gui
