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

// "(4, 256)"; "()" for a scalar.
std::string shape_string(const std::vector<std::int64_t>& shape);

// Bytes of optimizer state kept per parameter (not counting the 16-bit
// working weights and gradients): mixed-precision Adam keeps an fp32 master
// copy, m and v (12 B, Rajbhandari et al. 2020, Section 3.1); plain Adam m
// and v; mixed-precision SGD the fp32 master copy.
double optimizer_state_bytes_per_param(Optimizer optimizer, bool mixed_precision, DType dtype);

}  // namespace brigade::planner::detail
