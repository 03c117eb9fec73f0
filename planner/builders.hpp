// Model builders: the op sequences a model really runs, per device and
// micro-batch, from which the lowering emits tasks. The transformer's
// kernels are costmodel/transformer_blocks.hpp's (one description for the
// closed form and the planner); this header adds the whole-model views.
//
// Counted FLOPs: GEMMs only (2mnk each). Memory-bound kernels (norms,
// softmax, elementwise, embedding lookup, loss, optimizer) carry 0 FLOPs:
// Megatron-LM's Eq. 3 ignores them, and their roofline time is the bytes
// term anyway (arithmetic intensity of a few FLOP/B against ridge points of
// ~100+ FLOP/B). So Program::total_flops() of a lowered transformer equals
// Eq. 3 exactly (see docs/planner.md, "Counted FLOPs").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/program.hpp"
#include "core/scenario.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::planner {

// The transformer's block templates (kernels, collectives, parameters per
// tensor-parallel rank and micro-batch) live in costmodel/transformer_blocks.hpp,
// shared with the closed-form judge; the planner lowers them.
using cost::BlockTemplate;
using cost::embedding_block;
using cost::head_block;
using cost::Kernel;
using cost::ParamGroup;
using cost::ParamTensor;
using cost::transformer_layer;
using cost::TransformerShape;

// The whole transformer as a core Model graph (tensors with shapes, ops with
// phases fwd / recompute / bwd / opt) for a batch of `batch` sequences on one
// device: parameter_count() is Megatron-LM Eq. 2 and total_flops() Eq. 3
// (with `recompute`). Built from the same block templates as the lowering.
Result<Model> build_transformer_model(const TransformerSpec& spec, std::int64_t batch,
                                      Recompute recompute, Optimizer optimizer);

// An MLP as a core Model: tensors x, w1, b1, h1, a1, w2, ..., y; ops mm1,
// bias1, act1, ...; an mse loss on y when `training`, then its backward
// (dgrad is skipped for the input x, which needs no gradient) and one
// optimizer op per parameter. Shapes and FLOPs filled in (infer() passes).
Result<Model> build_mlp_model(const MlpSpec& spec, bool training, Optimizer optimizer);

// Parameters of the transformer (sum over the block templates at t = 1).
double transformer_parameters(const TransformerSpec& spec);

// Bytes moved per parameter by one optimizer step of `optimizer` on `dtype`
// weights: cost::optimizer_step_bytes_per_parameter (costmodel/memory.hpp);
// 0 for none.
double optimizer_traffic_bytes_per_param(Optimizer optimizer, bool mixed_precision, DType dtype,
                                         bool fp32_grads = false);

}  // namespace brigade::planner
