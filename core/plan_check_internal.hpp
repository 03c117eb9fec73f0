// Internal to core/plan_check*.cpp: the checks of what the training
// frameworks run (plan_check_frameworks.cpp) and the helpers both files
// use. Not a public interface: check_plan (core/plan_check.hpp) calls
// them in its order.
#pragma once

#include <string>

#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade::detail {

// "an mlp", "a transformer", ...: a model kind as a message names it.
std::string model_kind_name(ModelKind k);

// DeepSpeed's pipeline engine against the rest of the strategy
// (strategy.pipeline_engine).
Status check_pipeline_engine(const Scenario& s);

// What Megatron-LM, DeepSpeed, NeMo's optimizer and Transformer Engine run
// in training, against the model and the strategy: main_grad, the
// distributed optimizer, Apex's optimizer layouts, gradient accumulation
// fusion, the column-parallel backward's overlap, the cross-entropy
// fusion, the layer implementation, FP8 and the tensor-parallel overlap.
Status check_framework_training(const Scenario& s);

}  // namespace brigade::detail
