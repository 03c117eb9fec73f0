// The scenario's `training:` section (TrainingSpec, core/scenario.hpp), read
// apart from the rest of the scenario (core/scenario.cpp calls it). Private
// to core/: it takes a yamlio::Cursor.
#pragma once

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {

// Reads
//   training: {mode, global_batch, micro_batch, optimizer, mixed_precision,
//              recompute, main_grad, optimizer_dtype, param_remainders,
//              distributed_optimizer, fp8, fp8_recipe,
//              gradient_accumulation_fusion, cross_entropy_fusion,
//              transformer_impl, attention_backend, tp_comm_overlap,
//              tp_backward_overlap}
// into `out` (docs/scenario-format.md, "training"); what the keys may be
// together is check_plan's (core/plan_check.cpp).
Status read_training_spec(const yamlio::Cursor& c, TrainingSpec* out);

}  // namespace brigade
