// Semantic checks of a plan: what every judge (the closed-form `brigade
// cost`, the simulator's planner, the executors) calls first, right after
// load_scenario. Parsing has already checked syntax, types, units, names
// and device indices; these checks need the scenario as a whole (degrees
// against the topology, batch against degrees, shardings against the mesh).
//
// Messages are one line with the position of the key at fault:
//   "FILE:LINE:COL: error: found batch 30 over 8 data-parallel devices;
//    expected a multiple of 8, such as 24 or 32"
// Unsupported combinations (pipeline parallelism of an MLP, ...) come back
// with ErrorKind::kUnsupported; everything else is kBadInput.
#pragma once

#include <cstdint>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade {

// OK when the plan can be judged; otherwise the first problem found.
Status check_plan(const Scenario& s);

// The FFN width of a transformer, round(ffn_ratio x hidden): the columns of
// fc1 that tensor parallelism splits.
std::int64_t ffn_width(const TransformerSpec& t);

// The global batch (rows or sequences per step): training.global_batch when
// given, else the MLP's batch; 0 when the scenario has none.
std::int64_t global_batch(const Scenario& s);

// Rows (sequences) one data-parallel replica processes per step: global
// batch / data under batch sharding; 1 under pmap (device i gets x[i]).
// Requires check_plan to have passed.
std::int64_t per_replica_batch(const Scenario& s);

// Sequences (rows) per micro-batch: training.micro_batch when given, else a
// replica's whole batch (per_replica_batch). Requires check_plan to have passed.
std::int64_t micro_batch_size(const Scenario& s);

// The layers of each virtual pipeline stage as Megatron-Core splits them
// (transformer_block.py, get_num_layers_to_build): with
// strategy.embedding_in_pipeline_split and loss_in_pipeline_split the
// embedding and the loss count as one layer each, per_chunk = (layers + e +
// l) / (p v), and the first virtual stage (vs 0: chunk 0 of stage 0)
// builds one layer fewer, the last (vs p v - 1) one fewer; without them
// every chunk builds layers / (p v). Virtual stage vs is chunk vs / p of
// stage vs % p. Requires check_plan to have passed.
struct PipelineSplit {
  std::int64_t per_chunk = 0;
  int virtual_stages = 1;  // p x v
  bool embedding = false, loss = false;
  // The layers virtual stage `vs` builds.
  std::int64_t layers(int vs) const {
    return per_chunk - (embedding && vs == 0 ? 1 : 0) -
           (loss && vs == virtual_stages - 1 ? 1 : 0);
  }
  // The model's index of its first layer.
  std::int64_t first_layer(int vs) const {
    return static_cast<std::int64_t>(vs) * per_chunk - (embedding && vs > 0 ? 1 : 0);
  }
  // Whether any chunk differs from the others.
  bool uneven() const { return embedding || loss; }
};
PipelineSplit pipeline_split(const Scenario& s);

// The block of an input of `shape` (leading axis = batch) that each of
// `devices` data-parallel devices holds:
//   DataMode::kBatch: [B/devices, ...]; B must be a multiple of devices
//     (NamedSharding(mesh, P('data')), shard_map);
//   DataMode::kPmap: x[i], the shape without its leading axis, which must
//     equal devices (jax.pmap maps over the leading axis).
// The message, without a position, says what was found and what would work:
//   "found batch 30 over 8 data-parallel devices; expected a multiple of 8, such as 24 or 32"
Result<std::vector<std::int64_t>> per_device_input_shape(const std::vector<std::int64_t>& shape,
                                                         int devices, DataMode mode);

}  // namespace brigade
