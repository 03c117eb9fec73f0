// JAX-style sharding: a device mesh with named axes, a PartitionSpec per
// tensor, propagation through ops, and the collectives a placement implies
// (DESIGN.md, "Collectives follow JAX"):
//   - a contracted dimension sharded over axis A leaves partial sums: psum
//     over A (AllReduce), or psum_scatter (ReduceScatter) when the result is
//     wanted sharded over A — the seed's row-sharded y = sum_k x_k W_k;
//   - a dimension sharded over A wanted whole: all_gather over A;
//   - axis A moving from one dimension to another: all_to_all over A;
//   - a whole dimension wanted sharded: a local slice, no communication.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/program.hpp"
#include "core/status.hpp"

namespace brigade::cost {

// Devices are laid out row-major over the axes (the last axis varies
// fastest, so it lands inside a node), like jax.make_mesh on one host.
struct Mesh {
  std::vector<std::string> axes;
  std::vector<std::int64_t> shape;

  int size() const;
  int axis(const std::string& name) const;  // -1 if absent
  std::vector<int> coords(int device) const;
  // The device groups of a collective over `over` (axis indices): devices
  // that agree on every other axis, each group in rank order.
  std::vector<std::vector<int>> groups(const std::vector<int>& over) const;
  // "'data'", "('data', 'model')".
  std::string axes_string(const std::vector<int>& over) const;
};

// Per dimension: the mesh axis index it is split over, or -1 (None).
using PartitionSpec = std::vector<int>;

// "('data', None)"; "()" for a scalar.
std::string spec_string(const PartitionSpec& spec, const Mesh& mesh);

// The shape one device holds. Error (one line, naming the tensor) when a
// sharded dimension does not divide by its axis size.
Result<std::vector<std::int64_t>> local_shape(const std::string& tensor,
                                              const std::vector<std::int64_t>& global,
                                              const PartitionSpec& spec, const Mesh& mesh);

// A value as the program holds it: its spec and the axes over which it is
// still a partial sum (pending psum).
struct Sharded {
  PartitionSpec spec;
  std::vector<int> partial;
};

// One collective of a resharding, per device group of `axes`.
struct ReshardStep {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  std::vector<int> axes;
  double bytes = 0;  // as Collective::bytes (nccl-tests "size"), per rank
  std::string what;  // "psum over 'model'", "all_gather over 'data'", ...
  PartitionSpec spec_after;
};

// The collectives that turn `from` into `to` for a tensor of `global` shape
// and `element_bytes` per element, in order: partial sums first (AllReduce,
// or ReduceScatter onto a dimension `to` shards), then axis moves
// (AllToAll), then gathers (AllGather); slices are free.
std::vector<ReshardStep> reshard(const Sharded& from, const PartitionSpec& to,
                                 const std::vector<std::int64_t>& global, double element_bytes,
                                 const Mesh& mesh);

// An einsum-like op: operands with one label per dimension, an output with
// labels drawn from them (a label absent from the output is contracted).
struct EinsumRule {
  std::vector<std::string> inputs;  // labels per operand, e.g. {"mk", "kn"}
  std::string output;               // "mn"
};

// The result of propagating shardings through one op.
struct Propagation {
  std::vector<PartitionSpec> inputs;  // the spec each operand must have
  Sharded output;                     // the output's spec and pending partial sums
  std::vector<std::string> notes;     // why an operand had to be gathered
};

// Sharding propagation for an einsum: each label takes the axis its
// operands agree on (a sharded operand wins over a whole one: slicing is
// free); conflicts keep the larger operand's sharding and gather the other.
// Contracted labels that are sharded become partial sums of the output.
Propagation propagate_einsum(const EinsumRule& rule, const std::vector<Sharded>& operands,
                             const std::vector<double>& operand_bytes, const Mesh& mesh);

}  // namespace brigade::cost
