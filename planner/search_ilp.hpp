// Shardings of an op graph over a device mesh chosen by an integer linear
// program, as Alpa's intra-operator pass (Zheng et al. 2022, Sec. 4.2): each
// node (an op, or a graph input or weight) picks one sharding strategy; a
// node's strategy costs its compute on its block plus the collectives it
// implies (a matmul whose contracted dimension is split leaves partial sums:
// a psum); an edge costs the resharding from what its producer's strategy
// yields to what its consumer's strategy needs. Solved with CBC (COIN-OR),
// the solver Alpa used; the linearisation of the edge terms is Alpa's
// (e_uv,ij >= 0 with sum_j e_ij = s_ui and sum_i e_ij = s_vj).
//
// The cost model is the closed form's for shardings (costmodel's
// estimate_sharded): forward only, every collective on the critical path, so
// step = sum of compute + sum of communication.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "planner/sharding.hpp"

namespace brigade::planner {

struct ShardingProblem {
  struct Node {
    std::string name;
    std::vector<double> cost;  // per strategy, seconds
  };
  struct Edge {
    int u = 0, v = 0;
    std::vector<double> cost;  // [i * strategies(v) + j], seconds
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  // sum of the chosen strategies' and edges' costs.
  double objective(const std::vector<int>& choice) const;
  // The number of strategy combinations (saturating).
  double combinations() const;
};

struct ShardingSolution {
  std::vector<int> choice;  // per node; empty when none was found
  double objective = 0;
  double bound = 0;         // CBC's best possible (the optimum when optimal)
  bool optimal = false;
  std::string status;
  std::uint64_t explored = 0;  // CBC's nodes, or combinations (brute force)
};

// CBC with a time limit (seconds > 0). Deterministic.
ShardingSolution solve_sharding_ilp(const ShardingProblem& p, double seconds);
// Every combination (the tests' reference).
ShardingSolution brute_force_sharding(const ShardingProblem& p);

// The sharding problem of a forward graph on a mesh of the topology's
// devices (row-major, the last axis inside a node).
struct MeshSharding {
  Mesh mesh;
  ShardingProblem problem;
  std::vector<int> node_tensor;                   // the tensor each node decides
  std::vector<std::vector<PartitionSpec>> specs;  // per node, per strategy: that tensor's spec
  std::vector<bool> leaf;                         // a graph input or weight
  // Op nodes: the tensors they read, and per strategy the spec each must have.
  std::vector<std::vector<int>> inputs;
  std::vector<std::vector<std::vector<PartitionSpec>>> input_specs;
};
Result<MeshSharding> sharding_problem(const Model& model, const Mesh& mesh, const Topology& topology,
                                      const HardwareProfile& profile, CollectiveAlgorithm algorithm);

// A solution as scenario shardings (tensor -> an axis name or "" per
// dimension), for the graph's inputs and weights (`leaves_only`) or every
// tensor a node decides. An input or weight is written as its first reader
// needs it (the ILP sees no cost in slicing a whole tensor, so its own
// choice for a leaf may be any spec that slices to that one; the closed
// form and the planner take a leaf's spec as written).
std::map<std::string, std::vector<std::string>> shardings_of(const MeshSharding& ms, const Model& model,
                                                              const std::vector<int>& choice,
                                                              bool leaves_only);

}  // namespace brigade::planner
