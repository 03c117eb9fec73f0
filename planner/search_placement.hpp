// Per-op placement of an explicit op graph (jit(f, device=...) for every op):
// the problem as the closed form judges it, and the searches over it.
//
// A placement's step is the judge's critical path (costmodel's
// placement_cost: ops in its topological order, one at a time per device, a
// crossing edge delaying its consumer by alpha + size / B); the seed's
// Cost(P) = sum compute + sum over cut edges size / B is reported beside it.
// Memory: a device holds every tensor its ops read or write, each once, all
// live at once (the closed form's graph memory); a placement fits when every
// device's sum is within its capacity.
//
// Methods (docs/search.md):
//  - exact: branch and bound over devices op by op, bounded by the longest
//    remaining path and the remaining work spread over every device; limit
//    D^N <= 4^12 (about 12 ops on 4 devices);
//  - brute force: every one of the D^N placements (the tests' reference);
//  - annealing (search_anneal.cpp) and stage splits (search_stages.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/profile.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"

namespace brigade::planner {

struct PlacementProblem {
  int ops = 0, devices = 0;
  std::vector<double> seconds;  // [op * devices + device]: the op's kernel time there
  struct Input {
    int from = 0;       // producing op
    int tensor = 0;
    double bytes = 0;
  };
  std::vector<std::vector<Input>> inputs;   // per op, data edges into it
  std::vector<double> alpha_seconds;        // [a * devices + b], route a -> b
  std::vector<double> bandwidth;            // [a * devices + b], bytes/s
  std::vector<int> order;                   // the judge's topological order
  std::vector<std::vector<int>> op_tensors; // per op, the tensors it reads or writes (distinct)
  std::vector<double> tensor_bytes;
  std::vector<double> capacity_bytes;       // per device
  bool symmetric = false;                   // devices interchangeable (same times, routes, capacity)
  std::vector<std::string> op_names;

  double delay(int a, int b, double bytes) const {
    const size_t i = static_cast<size_t>(a) * static_cast<size_t>(devices) + static_cast<size_t>(b);
    return alpha_seconds[i] + bytes / bandwidth[i];
  }
  double op_seconds(int op, int device) const {
    return seconds[static_cast<size_t>(op) * static_cast<size_t>(devices) + static_cast<size_t>(device)];
  }
};

// The problem of a graph on a topology (every op's time on every device from
// costmodel's placement_cost, the routes' alpha and bandwidth). Errors: the
// judge's (an op without FLOPs, a cycle).
Result<PlacementProblem> placement_problem(const Model& model, const Topology& topology,
                                           const HardwareProfile& profile);

// The critical path of a placement (as placement_cost computes it) and
// whether every device's tensors fit.
struct PlacementValue {
  double step_seconds = 0;
  double overflow_bytes = 0;  // the largest sum - capacity over devices (0: fits)
  bool fits = true;
};
PlacementValue evaluate_placement(const PlacementProblem& p, const std::vector<int>& op_device);

// Earliest finish first, op by op in the judge's order, among the devices
// where the op's tensors still fit (the least-loaded when none fits).
std::vector<int> greedy_placement(const PlacementProblem& p);

// A floor under every placement's step: the longest path of the fastest
// kernels, and all the work spread evenly over the devices.
double placement_lower_bound(const PlacementProblem& p);

struct PlacementSearch {
  std::vector<int> op_device;  // empty when nothing fits
  double step_seconds = 0;
  bool optimal = false;        // proven (exact method finished)
  double lower_bound = 0;      // a floor under the optimum
  std::uint64_t explored = 0;  // nodes (branch and bound), placements (brute force), moves (annealing)
  std::string status;          // "optimal", "stopped at the budget after N nodes", ...
};

// The exact method's size limit: D^N placements.
inline constexpr double kExactPlacementLimit = 16777216.0;  // 4^12

// Every placement, best first by step (ties: the first in lexicographic order).
PlacementSearch brute_force_placement(const PlacementProblem& p);

// Branch and bound; `stop` (may be empty) is polled every few thousand nodes.
// Optimal unless stopped. Symmetric devices are tried in order of first use.
PlacementSearch branch_and_bound_placement(const PlacementProblem& p,
                                           const std::function<bool()>& stop = {});

// Simulated annealing (FlexFlow's MCMC search): from the greedy placement,
// `moves` proposals (one op to another device), Metropolis acceptance under a
// geometric cooling; the same seed gives the same placement.
PlacementSearch anneal_placement(const PlacementProblem& p, std::uint64_t seed, std::uint64_t moves,
                                 const std::function<bool()>& stop = {});

// Pipeline stage splits (Alpa's inter-operator pass): the judge's
// topological order cut into at most `max_stages` contiguous stages, stage k
// on device k, minimising Alpa's pipeline latency with m micro-batches,
//   T = sum_k t_k + (m - 1) max_k t_k,
// t_k = stage k's kernels + its inputs from earlier stages, taken over the
// link from stage k-1's device (exact on uniform topologies), under each
// device's memory. Dynamic programming over (stages, prefix) for each
// candidate max stage time, smallest first, stopping once m t_max >= best.
struct StageSplit {
  std::vector<int> stage_end;  // exclusive end of each stage in the order
  double latency_seconds = 0;  // T above
  bool found = false;
  std::uint64_t explored = 0;  // DP cells
};
StageSplit split_stages(const PlacementProblem& p, int max_stages, int micro_batches);
// Every split (tests): the same objective by enumeration.
StageSplit brute_force_stages(const PlacementProblem& p, int max_stages, int micro_batches);
// A split as a placement (stage k's ops on device k).
std::vector<int> stages_to_placement(const PlacementProblem& p, const StageSplit& s);

}  // namespace brigade::planner
