// The seed's placement cost of an op graph with a per-op device assignment,
//   Cost(P) = sum_i T_compute(i) + sum_(u,v) in E [P(u) != P(v)] size(u->v) / B(P(u), P(v)),
// its alpha-inclusive variant, and the critical-path time a user feels.
#pragma once

#include <vector>

#include "core/model.hpp"
#include "core/profile.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"

namespace brigade::cost {

struct PlacementCost {
  // sum of every op's kernel_seconds on its device.
  double compute_seconds = 0;
  // Crossing edges, the seed's way: size / B, no alpha.
  double transfer_seconds = 0;
  // The seed's exact Cost(P) = compute_seconds + transfer_seconds.
  double seed_cost_seconds = 0;
  // Crossing edges with the route's alpha: alpha + size / B each.
  double transfer_with_alpha_seconds = 0;
  // compute_seconds + transfer_with_alpha_seconds.
  double cost_with_alpha_seconds = 0;
  // Longest path when every op runs on its device, a device runs one op at a
  // time in topological order, and a crossing edge delays its consumer by
  // alpha + size / B (transfers do not contend).
  double critical_path_seconds = 0;
  int crossing_edges = 0;
  double crossing_bytes = 0;
  std::vector<double> op_seconds;             // per op
  std::vector<double> op_finish_seconds;      // per op, on the critical-path schedule
  std::vector<double> device_compute_seconds; // per device of the topology
};

// Evaluates a placement. `model`'s ops must carry FLOPs and bytes (after
// Model::infer or set by hand); an op's dtype is its first output's (f32 if
// none). `op_device[i]` is op i's device. Errors: size mismatch, device out of
// range, an op without FLOPs or bytes, a cycle.
Result<PlacementCost> placement_cost(const Model& model, const std::vector<int>& op_device,
                                     const Topology& topology, const HardwareProfile& profile);

// Op indices in a deterministic topological order (Kahn's algorithm, lowest
// index first among the ready ops). Error on a cycle.
Result<std::vector<int>> topological_order(const Model& model);

}  // namespace brigade::cost
