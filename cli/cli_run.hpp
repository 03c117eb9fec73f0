// What `execute` and `validate` share: a scenario prepared for a real
// backend (profile, device kinds, the planner's kernel-level Program) and
// the executor to run it.
#pragma once

#include <memory>
#include <string>

#include "core/scenario.hpp"
#include "planner/plan.hpp"
#include "realexec/executor.hpp"

namespace brigade::cli {

struct RunFlags {
  std::string backend = "cpu";
  std::string profile;            // --profile: replaces the scenario's profile
  bool compute_16bit_in_f32 = false;
};

struct PreparedRun {
  Scenario scenario;
  planner::Plan plan;
};

// Loads the scenario, applies --profile (a profile calibrated on another
// backend is bad input), checks that its devices suit the backend (cpu:
// host-thread devices only) and lowers it one task per kernel, the
// granularity the executors run. Throws BadInput / RuntimeFailure.
PreparedRun prepare_run(const std::string& scenario_path, const RunFlags& flags);

// The executor for --backend (BadInput: "no CUDA device: ..." without a GPU).
std::unique_ptr<realexec::RealExecutor> make_backend_executor(const RunFlags& flags);

}  // namespace brigade::cli
