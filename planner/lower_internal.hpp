// Shared between the lowering files; not a public interface.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "planner/plan.hpp"

namespace brigade::planner::detail {

Result<Plan> lower_transformer(const Scenario& scenario, const LowerOptions& options);
Result<Plan> lower_graph(const Scenario& scenario, const LowerOptions& options);
Result<Plan> lower_collective(const Scenario& scenario);
// The transformer's Plan without its Program (summary, notes, views, roles,
// parameters, FLOPs, the granularity lower() would choose).
Result<Plan> describe_transformer(const Scenario& scenario, const LowerOptions& options);

// "(4, 256)"; "()" for a scalar.
std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace brigade::planner::detail
