// Memory of a device in training and inference: the seed's
//   M_peak = M_model + M_grad + M_opt + M_act
// with model states per parameter by dtype and optimizer, ZeRO sharding over
// the data-parallel degree (Rajbhandari et al. 2020), and transformer
// activations per layer (Korthikanti et al. 2022). Bytes throughout.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.hpp"
#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade::cost {

// What the optimizer keeps per parameter. Scenario files' `sgd` is plain SGD
// (the seed's train step w -= lr * g, no momentum buffer); kSgdMomentum is
// for callers that know better.
enum class OptimizerKind { kAdam, kSgdMomentum, kSgd, kNone };
OptimizerKind optimizer_kind(Optimizer o);

// Bytes per parameter of the three model states.
struct BytesPerParameter {
  double params = 0;
  double grads = 0;
  double optimizer = 0;
  double total() const { return params + grads + optimizer; }
};

// Weights and gradients at the weight dtype's width; optimizer: Adam's fp32
// momentum and variance (8 B), SGD-momentum's fp32 momentum (4 B), plus an
// fp32 master copy of the weights (4 B) when `mixed_precision` and the
// weights are narrower than 4 bytes. Mixed-precision Adam on bf16 weights:
// 2 + 2 + 12 (ZeRO's K = 12); fp32 Adam: 4 + 4 + 8. `training` false
// (inference): weights only. `fp32_grads`: Megatron-LM's fp32 gradient
// accumulation buffer (main_grad, --accumulate-allreduce-grads-in-fp32):
// gradients 4 bytes whatever the weights' width, so mixed-precision Adam on
// bf16 weights holds 2 + 4 + 12 = 18 bytes (Megatron-LM README,
// "Distributed Optimizer": "bf16 param, fp32 grads | 18").
//
// `layout`: Apex's DistributedFusedAdam as NeMo 1.x runs it
// (TrainingSpec::optimizer_bf16 and param_remainders): bf16 moments and no
// master copy, 2 + 2 = 4 bytes of state (Adam on bf16 weights: 2 + 2 + 4);
// or the fp32 master kept as its 16-bit remainder, 2 + 8 = 10 (2 + 2 + 10).
struct OptimizerLayout {
  bool bf16_state = false;
  bool remainders = false;
};
OptimizerLayout optimizer_layout(const TrainingSpec& t);
BytesPerParameter bytes_per_parameter(OptimizerKind optimizer, DType weight_dtype,
                                      bool mixed_precision, bool training, bool fp32_grads = false,
                                      OptimizerLayout layout = {});

// Memory traffic of one optimizer step, per parameter: it reads the weights,
// the gradient and the optimizer state and writes the weights and the state
// back, 2 (params + optimizer) + grads bytes (0 for inference's weights-only
// states).
double optimizer_step_bytes_per_parameter(const BytesPerParameter& per);

// One optimizer step as Megatron-LM runs it, per parameter (Brigade's
// transformers; docs/costmodel.md "The optimizer step as Megatron-LM runs
// it"): MixedPrecisionOptimizer.step (megatron/core/optimizer/optimizer.py
// at d98e8a64; the same passes in megatron/optimizer/optimizer.py of 2021,
// aed2f75e) is, over the parameters this rank updates:
//   the 16-bit gradients cast to fp32 main gradients (`.float()`: read g,
//     write 4; none with an fp32 main_grad, where `.float()` is a view),
//   with fp16 only, the grad scaler's unscale and inf check in place (8),
//   the gradient norm for clipping (multi_tensor_l2norm: read 4; clip_grad
//     defaults to 1.0),
//   the clip, scaling the gradients in place by min(1, clip / norm) (8:
//     with Transformer Engine's multi_tensor_scale_tensor the coefficient
//     stays on the GPU and the scale always runs, clip_grads.py),
//   the optimizer's own step (fused Adam: reads the fp32 master weights,
//     its state and the gradient, writes weights and state: 2 x (4 + state)
//     + 4),
//   the updated fp32 weights copied to the 16-bit ones (read 4, write w);
// and, over the whole gradient buffer, DDP's zero_grad_buffer at the next
// step's start (write g). Without a master copy (FP32Optimizer): the norm,
// the clip and the step of optimizer_step_bytes_per_parameter. Under the
// distributed optimizer (ZeRO-1/2) `shard` covers 1/d of the parameters,
// `buffer` all of them (1/d with ZeRO-2's sharded gradients).
struct OptimizerStepBytes {
  double shard = 0;   // bytes per parameter the rank updates
  double buffer = 0;  // bytes per parameter of its gradient buffer
};
//
// With `layout` (Apex's kernels, multi_tensor_adam and its remainder
// variant): bf16 state has no master, so the step is the master-less one
// above over 2 + 4 bytes of weights and state; remainders fold the copy to
// the 16-bit weights into the step, whose kernel reads and writes the bf16
// weight and its remainder, the moments and reads the gradient:
// 2 x (2 + 10) + 4 (no separate copy pass).
OptimizerStepBytes megatron_optimizer_step_bytes(OptimizerKind optimizer, DType weight_dtype,
                                                 bool mixed_precision, bool fp32_grads,
                                                 OptimizerLayout layout = {});

struct ModelStateBytes {
  double params_bytes = 0;
  double grads_bytes = 0;
  double optimizer_bytes = 0;
  double total() const { return params_bytes + grads_bytes + optimizer_bytes; }
};

// Model states of one data-parallel rank holding `parameters` parameters,
// under ZeRO stage 0-3 over `data_parallel` ranks (ZeRO Figure 1): stage 1
// shards the optimizer state, 2 also the gradients, 3 also the parameters.
// Errors: stage outside 0..3, data_parallel < 1, parameters < 0.
Result<ModelStateBytes> model_state_bytes(double parameters, const BytesPerParameter& per,
                                          int zero_stage, int data_parallel);

// A rank's parameters by the group their model states shard over.
// Megatron-Core's DDP keeps the experts' parameters in buffers of their own,
// reduced over the expert-data group (data / expert ranks), and its
// distributed optimizer shards each buffer over its own group; the rest
// shard over 'data'. (ZeRO-2/3 with experts are refused by check_plan.)
// The one statement of that split for both judges: the closed form's
// memory and optimizer step, the planner's resident buffers and optimizer
// task.
struct ShardedParameters {
  double total = 0;     // every parameter the rank holds, the experts' among them
  double experts = 0;   // of which the experts' (0 without expert parallelism)
  int data = 1;         // d, the dense parameters' group
  int expert_data = 1;  // d / ep, the experts' group
  // Whether the experts shard apart: ZeRO >= 1 and experts held.
  bool split(int zero_stage) const { return zero_stage >= 1 && experts > 0; }
};

// model_state_bytes over a rank's dense and expert parameters, each sharded
// over its own group (under ZeRO >= 1; without it the whole over 'data').
Result<ModelStateBytes> model_state_bytes(const ShardedParameters& parameters,
                                          const BytesPerParameter& per, int zero_stage);

// The bytes one optimizer step moves on a rank (megatron_optimizer_step_bytes'
// passes): `step.shard` over the parameters it updates (ZeRO >= 1: 1/d of
// the dense ones and 1/(d/ep) of the experts'), `step.buffer` over its
// gradient buffer (all of it; 1/d under ZeRO-2).
double optimizer_step_traffic(const ShardedParameters& parameters, const OptimizerStepBytes& step,
                              int zero_stage);

// One transformer layer's stored activations, Korthikanti et al. 2022 §4.
struct LayerActivationQuery {
  double seq = 0;         // s
  double micro_batch = 0; // b
  double hidden = 0;      // h
  double heads = 0;       // a
  double vocab = 0;       // v (output layer only)
  int tensor = 1;         // t
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  // Width of activations. The paper assumes 16-bit (2 B) activations and
  // 1-byte dropout masks; other widths scale the tensors, not the masks.
  DType dtype = DType::kBF16;
};

// Bytes one layer keeps for its backward pass (Table 2 at 16 bits):
//   none:      sbh(10 + 24/t + 5as/(ht))        (t = 1: sbh(34 + 5as/h))
//   TP + SP:   sbh/t (34 + 5as/h)
//   selective: the 5as/h term dropped: sbh(10 + 24/t), or 34 sbh/t with SP
//   full:      only the layer input, 2sbh (2sbh/t with SP)
double layer_activation_bytes(const LayerActivationQuery& q);

// The dropout mask after the input embeddings, for one micro-batch: sbh/t
// with SP, sbh without (Korthikanti §4.3).
double embedding_activation_bytes(const LayerActivationQuery& q);

// The final layernorm, the output projection's input and the fp32 logits of
// the cross entropy, for one micro-batch: 4sbh/t (1 + v/h) with SP
// (Korthikanti §4.3); without SP the two sbh terms are not divided by t.
double output_layer_activation_bytes(const LayerActivationQuery& q);

// How many micro-batches' worth of a pipeline stage's layer activations the
// stage holds at its peak (Narayanan et al. 2021 §2.2): GPipe keeps all m;
// 1F1B keeps min(p - stage, m); interleaved 1F1B with v chunks per device
// keeps min(m v, 2(p - stage - 1) + (v - 1)p + 1) chunks of L/(pv) layers,
// i.e. that count / v (stage 0: p(1 + (p-1)/(pv)), Korthikanti §4.2.3).
double in_flight_micro_batches(PipelineSchedule schedule, int pipeline, int micro_batches,
                               int virtual_stages, int stage);

// Interleaved 1F1B in Megatron-LM's order (planner/schedule.cpp): the most
// micro-batches of model chunk `chunk` (0..v-1) that `stage` holds at once
// while it holds the most chunks (before a steady-state backward, or after
// every forward when m = p). The embedding is chunk 0 of stage 0 and the
// output layer chunk v-1 of stage p-1: on 4 stages with 2 chunks and 8
// micro-batches stage 0 holds all 8 micro-batches of chunk 0 at once, not
// p = 4 (tests/costmodel/memory_test.cpp works the counts by hand).
double interleaved_chunk_in_flight(int pipeline, int micro_batches, int virtual_stages, int stage,
                                   int chunk);
// The same order's most of sum_c weights[c] x (micro-batches of chunk c the
// stage holds) at any one time (`weights`: v figures, each chunk's bytes a
// micro-batch): the activations of a stage whose chunks differ (the
// pipeline split's short ends, core/plan_check.hpp), whose peak comes when
// it holds the most of its larger chunks, not simply the most chunks.
double interleaved_weighted_in_flight(int pipeline, int micro_batches, int virtual_stages,
                                      int stage, const std::vector<double>& weights);
// The same order's most of that weighted sum as each backward step starts
// (before it frees anything) plus `extra[c]`, c the backward's chunk: what
// a chunk's backward adds before it frees enough (its first recomputed
// block's activations, less what the blocks above it freed; -infinity for
// a chunk that recomputes nothing). The peak of a stage whose chunks
// recompute differently: the top chunk's backward frees the output layer
// or a kept layer before it recomputes, another chunk's may recompute
// first, at a time the stage holds other micro-batches.
double interleaved_backward_peak(int pipeline, int micro_batches, int virtual_stages, int stage,
                                 const std::vector<double>& weights,
                                 const std::vector<double>& extra);

// Activations an MLP keeps for its backward pass with `rows` rows per device:
// each layer's input and pre-activation output (training), or the widest
// layer's input plus output live at once (inference).
double mlp_activation_bytes(double rows, const std::vector<std::int64_t>& widths, DType dtype,
                            bool training);

// A device's memory by category.
struct MemoryBreakdown {
  double params_bytes = 0;
  double grads_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double other_bytes = 0;  // communication buffers
  // The seed's M_peak = M_model + M_grad + M_opt + M_act (+ buffers).
  double peak_bytes() const;
};

}  // namespace brigade::cost
