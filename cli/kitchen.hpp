// `brigade explain --kitchen`: a plan told in the seed text's kitchen
// analogy, for a projector: which chef (device) holds which shard on its
// station (memory), which runner (link) carries what, and when everyone
// waits at the sauce bowl (AllReduce). Read from `explain`'s JSON (the
// planner's describe and the closed form), so it says nothing the plan does
// not; in English or Chinese.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/lesson.hpp"

namespace brigade::cli {

// `explain`: planner::explain_plan_json's object; `device_names`: the
// topology's devices, by id (chefs with nothing to do are named idle).
std::string kitchen_text(const nlohmann::json& explain, const std::vector<std::string>& device_names,
                         Lang lang);

}  // namespace brigade::cli
