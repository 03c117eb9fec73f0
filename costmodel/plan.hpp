// The closed-form judge of a whole plan (`brigade cost SCENARIO`): step
// time, where it goes, memory per device, FLOPs and an Amdahl table, from
// the scenario's parameters alone (it never builds a Program). The model of
// each case and its approximations are in docs/costmodel.md, "The plan judge".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "costmodel/placement_cost.hpp"

namespace brigade::cost {

// One kind of communication a plan does, per step, seen from the busiest
// device.
struct CommunicationEstimate {
  std::string purpose;  // "tensor", "pipeline", "data", "zero-3 params", "collective", "transfer", "sharding"
  std::string kind;     // collective_kind_name(...) or "p2p"
  int group_size = 0;   // ranks per call (2 for p2p)
  double count = 0;     // calls per step
  double bytes = 0;     // sum of M (nccl-tests "size") over those calls
  double seconds = 0;   // their time in flight
  double exposed_seconds = 0;  // the part during which the device's compute is idle
};

struct DeviceMemoryEstimate {
  int device = 0;
  int stage = 0;  // pipeline stage (0 without a pipeline)
  double params_bytes = 0;
  double grads_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double other_bytes = 0;  // communication buffers
  double peak_bytes = 0;   // M_peak, the sum of the above
  double capacity_bytes = 0;
  bool fits = true;
};

struct AmdahlRow {
  int devices = 1;
  double speedup = 1;
  double efficiency = 1;
};

struct PlanEstimate {
  std::string name;
  std::string model_kind;  // "transformer", "mlp", "graph", "collective"
  int devices = 0;         // devices the plan uses

  double step_seconds = 0;
  double compute_seconds = 0;  // kernels of the busiest device per step
  double bubble_seconds = 0;   // pipeline fill and drain
  double exposed_communication_seconds = 0;
  double optimizer_seconds = 0;
  std::vector<CommunicationEstimate> communication;
  std::vector<DeviceMemoryEstimate> memory;  // one per device used

  double parameters = 0;
  double model_flops_per_iteration = 0;     // without recomputation
  double hardware_flops_per_iteration = 0;  // with it
  double achieved_flops_per_second_per_device = 0;  // hardware FLOPs / step / devices
  double mfu = 0;  // model FLOPs / step / devices / peak

  // Amdahl's law through this plan: p such that the plan's compute share at
  // its own device count is what Amdahl predicts; S(N) for N = 1, 2, 4, ...
  // up to twice the devices. Empty for a lone collective.
  double amdahl_p = 0;
  std::vector<AmdahlRow> amdahl;

  std::optional<PlacementCost> placement;  // explicit graph + placement
  // The approximations this estimate rests on, in words, for the report.
  std::vector<std::string> notes;
};

// Judges a scenario. Calls check_plan (core/plan_check.hpp) first. Errors:
// plans the file format accepts but no device count or shape can realise
// ("FILE:LINE:COL: error: found X; expected Y" at the offending key), and
// kUnsupported for combinations the closed form does not judge (said so).
Result<PlanEstimate> estimate_plan(const Scenario& scenario);

// How much an estimate says. A search judging 10^5 plans a second needs the
// step, its parts, the communication and each stage's memory and fit, not one
// memory entry per device of a 2,000-GPU cluster, nor the notes and the
// Amdahl table (brigade search, planner/search_rank.cpp).
struct EstimateOptions {
  // false (transformers): `memory` holds one entry per pipeline stage (its
  // first device) and one per other device whose capacity differs from that
  // one's, in stage order; no notes; no Amdahl table. Every other figure,
  // the largest peak and whether every device fits are the same.
  bool every_device = true;
};
Result<PlanEstimate> estimate_plan(const Scenario& scenario, const EstimateOptions& options);

}  // namespace brigade::cost
