// Reports of a PlanEstimate: JSON for machines (SI units) and a readable
// table for people (units from core/units.hpp). `brigade cost` prints them.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "costmodel/plan.hpp"

namespace brigade::cost {

// Keys (SI): name, model_kind, devices, step_seconds, compute_seconds,
// bubble_seconds, exposed_communication_seconds, optimizer_seconds,
// communication[] {purpose, kind, group_size, count, bytes, seconds,
// exposed_seconds}, memory {peak_bytes, fits, per_device[] {device, stage,
// params_bytes, grads_bytes, optimizer_bytes, activations_bytes, other_bytes,
// peak_bytes, capacity_bytes, fits}}, parameters, model_flops_per_iteration,
// hardware_flops_per_iteration, achieved_flops_per_second_per_device, mfu,
// amdahl {p, rows[] {devices, speedup, efficiency}}, placement {...} when the
// plan is a graph with a placement, notes[].
nlohmann::json plan_estimate_json(const PlanEstimate& estimate);

// A few short tables: step breakdown, communication, memory per device
// (identical devices grouped), FLOPs, Amdahl, and the notes.
std::string plan_estimate_text(const PlanEstimate& estimate);

}  // namespace brigade::cost
