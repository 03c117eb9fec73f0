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

// The Plan without its Program (Plan::program stays empty): the summary,
// notes, each device's view (the shapes it holds) and role, parameters,
// counted FLOPs and the granularity lower() would choose. A transformer is
// described from its setup alone, without emitting a task (GPT-3 175B on
// 1024 GPUs lowers to 2 million tasks; docs/PERFORMANCE.md); op graphs and
// lone collectives are lowered, their Programs being ops x devices small,
// and the Program dropped. `brigade explain` without --program reads this.
Result<Plan> describe(const Scenario& scenario, const LowerOptions& options = {});

}  // namespace brigade::planner
