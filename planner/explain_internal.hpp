// Pieces the two explanations share (planner/explain.cpp from a Program,
// planner/explain_plan.cpp from the plan alone). Not a public interface.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/plan.hpp"

namespace brigade::planner::detail {

// "0-7, 9, 12-13".
std::string device_ranges(const std::vector<int>& devices);

// The tensors a view holds: [{name, role, global, local, dtype, sharding, count}].
nlohmann::json view_shapes_json(const DeviceView& view);

// "  holds (global shape -> on this device):" and a line per tensor.
std::string view_holds_text(const DeviceView& view);

}  // namespace brigade::planner::detail
