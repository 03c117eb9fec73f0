// The closed form's estimate of a plan as RunFigures (core/run_figures.hpp),
// for `brigade compare --judge cost` and the app's compare view.
#pragma once

#include <string>

#include "core/run_figures.hpp"
#include "core/topology.hpp"
#include "costmodel/plan.hpp"

namespace brigade::cost {

// Step time; per device its peak memory (the closed form's other times are
// the busiest device's, so they are kinds, not device rows); per kind the
// busiest device's time per step: "compute" (its kernels), "compute opt"
// (the optimizer step) and each kind of communication as "KIND (PURPOSE)",
// e.g. "allreduce (data)", with its calls and bytes. KindBasis::kBusiestDevice.
RunFigures figures_of_estimate(const PlanEstimate& estimate, const Topology& topology,
                               const std::string& label);

}  // namespace brigade::cost
