// Strategies -> Program. The head chef reads the whole menu and decides who
// cooks what: `lower` turns a scenario (model, strategy, mesh + shardings or
// manual placement) into per-device streams of tasks.
//
// Streams (docs/ARCHITECTURE.md): `compute` (kernels and tensor-parallel
// collectives), `dp` (data-parallel gradient collectives, ZeRO gathers),
// `pp` (pipeline sends), `xfer` (manual placement / device_put transfers),
// `comm` (a lone collective, model: collective).
#pragma once

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "planner/plan.hpp"

namespace brigade::planner {

// Lowers the scenario. The plan is checked first (check_plan's messages);
// errors are one line. See docs/planner.md for what each strategy becomes.
Result<Plan> lower(const Scenario& scenario, const LowerOptions& options = {});

}  // namespace brigade::planner
