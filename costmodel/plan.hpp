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
  double bubble_seconds = 0;   // idle: pipeline fill and drain, or waiting for other devices
  double exposed_communication_seconds = 0;
  double optimizer_seconds = 0;
  // The reported device's time waiting for its host (DeviceProfile::
  // host_op_seconds; transformers): per micro-batch, what its host's issue
  // takes beyond the device's work, and the step's first issue. Op graphs
  // count such waits among bubble_seconds (waiting for others). 0: none.
  double host_wait_seconds = 0;
  // A floor under step_seconds from the kernels alone (transformers; 0
  // otherwise): the pipeline schedule's step with every stage's per-micro-batch
  // time cut to its kernels, m max K + (sum K - max K) / v, no communication,
  // no per-step work. On identical devices it is the same for every rank order
  // and gradient bucket (the search's time bound, planner/search_rank.cpp).
  double kernel_floor_seconds = 0;
  std::vector<CommunicationEstimate> communication;
  // The device whose communication `communication` lists (the busiest
  // device the times follow); -1: every device of the plan (a manual
  // placement lists every transfer, each with its sender's exposed part).
  int communication_device = 0;
  // A transformer's communication per pipeline stage (index = stage), seen
  // from one device of it, as `communication` is for the busiest; empty for
  // other models (their devices do alike, or a placement lists every transfer).
  std::vector<std::vector<CommunicationEstimate>> stage_communication;
  std::vector<DeviceMemoryEstimate> memory;  // one per device used

  double parameters = 0;
  // Megatron's terms (Narayanan et al. 2021 §5.1; Korthikanti et al. 2022 §6):
  // model FLOPs are the work (no recomputation), hardware FLOPs what the
  // devices execute (with it). MFU and HFU divide each rate by the peak.
  double model_flops_per_iteration = 0;     // without recomputation
  double hardware_flops_per_iteration = 0;  // with it
  double achieved_flops_per_second_per_device = 0;  // hardware FLOPs / step / devices
  double model_flops_per_second_per_device = 0;     // model FLOPs / step / devices
  double mfu = 0;  // model FLOPs / step / devices / peak
  double hfu = 0;  // hardware FLOPs / step / devices / peak
  // The rate a plain streaming kernel runs at on the device the FLOP rates
  // above are taken on: its profile's peak memory bandwidth x
  // memory_efficiency (what accumulate_seconds and a generic memory-bound
  // kernel are priced at), so that a time per byte of a step reads as bytes.
  double streaming_bytes_per_second = 0;

  // Amdahl's law through this plan: the closed form at the data degrees 1, 2,
  // 4, ... up to twice the plan's, and p fitted to those speedups: exactly
  // `brigade sweep --devices` with the cost judge. estimate_plan leaves it
  // empty (it needs the planner's device scaling): planner::amdahl_through_plan
  // fills it, as `brigade cost` does; amdahl_note says why there is none.
  double amdahl_p = 0;
  double amdahl_r_squared = 0;
  std::vector<AmdahlRow> amdahl;
  std::string amdahl_note;

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
// memory entry per device of a 2,000-GPU cluster, nor the notes (brigade
// search, planner/search_rank.cpp).
struct EstimateOptions {
  // false (transformers): `memory` holds one entry per pipeline stage (its
  // first device) and one per other device whose capacity differs from that
  // one's, in stage order; no notes (neither the judge's own nor
  // plan_warnings nor judge_differences). Every other figure, the largest
  // peak and whether every device fits are the same.
  bool every_device = true;
  // false: `communication` and `stage_communication` are left empty (the
  // search's inner loop reads the step, its parts and the memory alone);
  // every other figure is the same.
  bool communication = true;
};
Result<PlanEstimate> estimate_plan(const Scenario& scenario, const EstimateOptions& options);

// Notes on plans that are valid but probably not what their author meant,
// said by every judge (`cost`, `simulate`, `explain`) and never refused
// (`brigade search` takes such scenarios as its input): `schedule:
// interleaved` with `virtual_stages: 1` is 1F1B; a model without a strategy
// (or a graph without a placement or mesh) on a topology of several devices
// uses one of them.
std::vector<std::string> plan_warnings(const Scenario& scenario);

// A modelling difference between the closed form and the simulator (`brigade
// simulate --network ideal`) that applies to a plan, with how far apart it
// may put the two judges' figures (relative). docs/costmodel.md, "The closed
// form against the simulator", lists them all; estimate_plan adds the text of
// those that apply to its notes, and tests/planner/cross_judge_test.cpp holds
// the judges to these tolerances (and to rounding where none applies).
struct JudgeDifference {
  std::string text;
  double step_tolerance = 0;
  double communication_tolerance = 0;
  double memory_tolerance = 0;
  bool calls_differ = false;  // the simulated Program makes a different number of calls
};

// The differences that apply to `scenario`. `fused_tasks`: the planner lowers
// it at region or step granularity (a huge plan under --granularity auto), which
// merges kernels and collectives that the closed form counts one by one.
std::vector<JudgeDifference> judge_differences(const Scenario& scenario, bool fused_tasks = false);

}  // namespace brigade::cost
