// `brigade explain`: what the head chef decided. For each device (chef):
// the shapes it holds, each collective and why it is there, memory by
// category; for the plan: parameters and FLOPs per iteration.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "planner/plan.hpp"

namespace brigade::planner {

// Machine-readable explanation. Keys: "scenario", "summary", "notes",
// "parameters", "flops_per_iteration", "granularity", "program" (task,
// collective and transfer counts), "warnings" (devices over their memory),
// "devices"[] with "id", "name", "role", "view", "shapes"[] ({name, role,
// global, local, dtype, sharding, count}), "collectives"[] ({kind, stream,
// group, count, bytes, reason}), "transfers"[] ({to, stream, count, bytes}),
// "memory" (bytes per category, "resident", "peak") and "tasks".
nlohmann::json explain_json(const Plan& plan, const Scenario& scenario);

// The same for people, grouping devices that hold and do the same things.
std::string explain_text(const Plan& plan, const Scenario& scenario);

// The explanation from the plan alone (`brigade explain` without --program):
// `described` from planner::describe (no Program), communication and memory
// per device from the closed form `estimate` (cost::estimate_plan). The same
// keys as explain_json, except "program" (null), "tasks" (none), and per
// collective {kind, purpose, group_size, count, bytes, seconds, reason};
// "memory" {params, grads, optimizer, activations, comm, peak, capacity}; a
// placement's transfers plan-wide in "transfers".
//
// DeviceListing::kGroups (`brigade explain --json`): instead of "devices",
// "device_groups"[], one per set of devices alike in view, collectives and
// memory, in the order of their first device: {"devices" ([[first, last],
// ...] inclusive id ranges), "device_list" ("0-7, 16-23"), "count",
// "example" {id, name, role: the first device's}, "view", "shapes",
// "collectives", "memory"}; "warnings" name each group over its memory
// once (`--kitchen` narrates from these groups). kPerDevice (`--per-device`,
// the quiz): "devices"[], one entry per device, as above.
enum class DeviceListing { kGroups, kPerDevice };
nlohmann::json explain_plan_json(const Plan& described, const Scenario& scenario,
                                 const cost::PlanEstimate& estimate,
                                 DeviceListing listing = DeviceListing::kPerDevice);
// explain_plan_json(described, scenario, estimate, kPerDevice).dump(2) and
// a newline, byte for byte, written to `out` one device's entry at a time
// (`brigade explain --json --per-device`): a 16,384-GPU plan's 100 MB
// listing without holding its tree (about seven times the text) in memory.
void write_explain_plan_json_per_device(std::ostream& out, const Plan& described,
                                        const Scenario& scenario,
                                        const cost::PlanEstimate& estimate);
std::string explain_plan_text(const Plan& described, const Scenario& scenario,
                              const cost::PlanEstimate& estimate);

}  // namespace brigade::planner
