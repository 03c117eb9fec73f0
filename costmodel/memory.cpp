#include "costmodel/memory.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace brigade::cost {

OptimizerKind optimizer_kind(Optimizer o) {
  switch (o) {
    case Optimizer::kAdam: return OptimizerKind::kAdam;
    case Optimizer::kSgd: return OptimizerKind::kSgd;
    case Optimizer::kNone: return OptimizerKind::kNone;
  }
  return OptimizerKind::kAdam;
}

// Mixed-precision Adam: 2 + 2 + 12 bytes/parameter (Rajbhandari et al. 2020, ZeRO §3.1, K = 12);
// fp32 Adam 4 + 4 + 8 (m and v); SGD-momentum adds 4 (its buffer); the fp32 master copy adds 4.
// Megatron-LM's fp32 main_grad: gradients of 4 bytes (README, "Distributed Optimizer": 2 + 4 + 12).
OptimizerLayout optimizer_layout(const TrainingSpec& t) {
  return OptimizerLayout{t.optimizer_bf16, t.param_remainders};
}

BytesPerParameter bytes_per_parameter(OptimizerKind optimizer, DType weight_dtype,
                                      bool mixed_precision, bool training, bool fp32_grads,
                                      OptimizerLayout layout) {
  BytesPerParameter b;
  const double w = dtype_bytes(weight_dtype);
  b.params = w;
  if (!training) return b;
  b.grads = fp32_grads ? 4.0 : w;
  if (layout.bf16_state && optimizer == OptimizerKind::kAdam) {
    b.optimizer = 2 + 2;  // bf16 momentum and variance, no master (check_plan: bf16 weights)
    return b;
  }
  const double master = (mixed_precision && w < 4 && optimizer != OptimizerKind::kNone)
                            ? (layout.remainders ? 2.0 : 4.0)
                            : 0.0;
  switch (optimizer) {
    case OptimizerKind::kAdam: b.optimizer = master + 8; break;
    case OptimizerKind::kSgdMomentum: b.optimizer = master + 4; break;
    case OptimizerKind::kSgd: b.optimizer = master; break;
    case OptimizerKind::kNone: b.optimizer = 0; break;
  }
  return b;
}

// A memory-bound step reads weights, gradient and state and writes weights and state.
double optimizer_step_bytes_per_parameter(const BytesPerParameter& per) {
  if (per.grads <= 0) return 0;  // no training step: nothing to update
  return 2 * (per.params + per.optimizer) + per.grads;
}

OptimizerStepBytes megatron_optimizer_step_bytes(OptimizerKind optimizer, DType weight_dtype,
                                                 bool mixed_precision, bool fp32_grads,
                                                 OptimizerLayout layout) {
  OptimizerStepBytes s;
  if (optimizer == OptimizerKind::kNone) return s;
  const BytesPerParameter per =
      bytes_per_parameter(optimizer, weight_dtype, mixed_precision, true, fp32_grads, layout);
  const bool bf16_state = layout.bf16_state && optimizer == OptimizerKind::kAdam;
  const bool master = mixed_precision && per.params < 4 && !bf16_state;
  const bool remainders = master && layout.remainders;
  const double grad = master ? 4.0 : per.grads;  // the gradient the norm, clip and step read
  if (master && per.grads < 4) s.shard += per.grads + 4;      // main_param.grad = grad.float()
  if (master && weight_dtype == DType::kF16) s.shard += 8;  // unscale and inf check (fp16)
  s.shard += grad;                                          // the gradient norm
  s.shard += 2 * grad;                                      // the clip's in-place scale
  if (remainders)
    s.shard += 2 * (per.optimizer + per.params) + 4;  // Apex's step: weight, remainder, moments
  else
    s.shard += master ? 2 * per.optimizer + 4       // fused Adam on the fp32 master
                      : optimizer_step_bytes_per_parameter(per);
  if (master && !remainders) s.shard += 4 + per.params;  // fp32 weights to 16-bit ones
  s.buffer = per.grads;                                     // zero_grad_buffer
  return s;
}

// ZeRO Figure 1: (2+2+K)Psi, 2Psi + 2Psi + K Psi/Nd, 2Psi + (2+K)Psi/Nd, (2+2+K)Psi/Nd.
Result<ModelStateBytes> model_state_bytes(double parameters, const BytesPerParameter& per,
                                          int zero_stage, int data_parallel) {
  if (zero_stage < 0 || zero_stage > 3)
    return Status::error(fmt::format("found ZeRO stage {}; expected 0, 1, 2 or 3", zero_stage));
  if (data_parallel < 1)
    return Status::error(
        fmt::format("found data-parallel degree {}; expected at least 1", data_parallel));
  if (!(parameters >= 0))
    return Status::error(fmt::format("found {:g} parameters; expected a count >= 0", parameters));
  const double nd = data_parallel;
  ModelStateBytes m;
  m.params_bytes = per.params * parameters / (zero_stage >= 3 ? nd : 1.0);
  m.grads_bytes = per.grads * parameters / (zero_stage >= 2 ? nd : 1.0);
  m.optimizer_bytes = per.optimizer * parameters / (zero_stage >= 1 ? nd : 1.0);
  return m;
}

Result<ModelStateBytes> model_state_bytes(const ShardedParameters& p, const BytesPerParameter& per,
                                          int zero_stage) {
  if (!p.split(zero_stage)) return model_state_bytes(p.total, per, zero_stage, p.data);
  BRIGADE_ASSIGN_OR_RETURN(const ModelStateBytes dense,
                           model_state_bytes(p.total - p.experts, per, zero_stage, p.data));
  BRIGADE_ASSIGN_OR_RETURN(const ModelStateBytes expert,
                           model_state_bytes(p.experts, per, zero_stage, p.expert_data));
  ModelStateBytes m;
  m.params_bytes = dense.params_bytes + expert.params_bytes;
  m.grads_bytes = dense.grads_bytes + expert.grads_bytes;
  m.optimizer_bytes = dense.optimizer_bytes + expert.optimizer_bytes;
  return m;
}

double optimizer_step_traffic(const ShardedParameters& p, const OptimizerStepBytes& step,
                              int zero_stage) {
  const double d = p.data;
  const double local = zero_stage < 1 ? p.total
                       : p.split(zero_stage)
                           ? (p.total - p.experts) / d + p.experts / p.expert_data
                           : p.total / d;
  const double buffer = zero_stage >= 2 ? p.total / d : p.total;
  return local * step.shard + buffer * step.buffer;
}

namespace {

struct LayerTerms {
  double sbh, as2b, w, t, t_sp;
};

LayerTerms terms(const LayerActivationQuery& q) {
  LayerTerms x;
  x.sbh = q.seq * q.micro_batch * q.hidden;
  x.as2b = q.heads * q.seq * q.seq * q.micro_batch;
  x.w = dtype_bytes(q.dtype);
  x.t = std::max(1, q.tensor);
  x.t_sp = q.sequence_parallel ? x.t : 1.0;
  return x;
}

}  // namespace

// Korthikanti et al. 2022 §4.1 element by element, Table 2 at w = 2 bytes:
//   replicated (divided by t only with SP): QKV input, fc1 input, two layernorm inputs (4w sbh)
//     and two 1-byte dropout masks (2 sbh) -> 10 sbh;
//   tensor-parallel: Q, K, V, projection input, GeLU input, fc2 input (12w sbh) -> 24 sbh / t;
//   attention core: softmax output, its 1-byte dropout mask, dropout output ((2w+1) as^2 b) -> 5as^2 b / t.
// Selective recomputation drops the attention core; full recomputation keeps the layer input (w sbh).
double layer_activation_bytes(const LayerActivationQuery& q) {
  const LayerTerms x = terms(q);
  if (q.recompute == Recompute::kFull) return x.w * x.sbh / x.t_sp;
  const double replicated = (4 * x.w + 2) * x.sbh / x.t_sp;
  const double parallel = 12 * x.w * x.sbh / x.t;
  const double core = q.recompute == Recompute::kSelective ? 0.0 : (2 * x.w + 1) * x.as2b / x.t;
  return replicated + parallel + core;
}

// Korthikanti §4.3: the embedding dropout's 1-byte mask, sbh/t with sequence parallelism.
double embedding_activation_bytes(const LayerActivationQuery& q) {
  const LayerTerms x = terms(q);
  return x.sbh / x.t_sp;
}

// Korthikanti §4.3: layernorm 2sbh/t + projection 2sbh/t + fp32 logits 4sbv/t = 4sbh/t (1 + v/h).
double output_layer_activation_bytes(const LayerActivationQuery& q) {
  const LayerTerms x = terms(q);
  return 2 * x.w * x.sbh / x.t_sp + 4 * q.seq * q.micro_batch * q.vocab / x.t;
}

// Narayanan et al. 2021 §2.2 (GPipe m, 1F1B p - stage) and Megatron-LM's interleaved warm-up
// (2(p - stage - 1) + (v - 1)p forward chunks, plus the one in flight).
double in_flight_micro_batches(PipelineSchedule schedule, int pipeline, int micro_batches,
                               int virtual_stages, int stage) {
  const int p = std::max(1, pipeline), m = std::max(1, micro_batches);
  const int v = std::max(1, virtual_stages);
  switch (schedule) {
    case PipelineSchedule::kGpipe: return m;
    case PipelineSchedule::k1F1B: return std::min(p - stage, m);
    case PipelineSchedule::kInterleaved: {
      if (v == 1) return std::min(p - stage, m);
      // Megatron-LM runs every forward first when m = p (all_warmup_microbatches).
      const int chunks = m == p ? m * v : std::min(m * v, 2 * (p - stage - 1) + (v - 1) * p + 1);
      return static_cast<double>(chunks) / v;
    }
  }
  return m;
}

namespace {

// Of Megatron-LM's first n forward steps of a stage (virtual micro-batch k
// runs chunk (k mod pv) / p), those of chunk c; of its first n backward
// steps, those of chunk v - 1 - c.
std::int64_t steps_of_chunk(std::int64_t n, std::int64_t c, std::int64_t p, std::int64_t group) {
  return (n / group) * p + std::clamp<std::int64_t>(n % group - c * p, 0, p);
}

// x[c], 0 past its end.
double chunk_figure(const std::vector<double>& x, std::int64_t c) {
  return c < static_cast<std::int64_t>(x.size()) ? x[static_cast<size_t>(c)] : 0.0;
}

// sum_c weights[c] x (chunk c's micro-batches held) once the first
// `forwards` forward steps and `backwards` backward steps have run.
double held_weighted(std::int64_t forwards, std::int64_t backwards, std::int64_t p, std::int64_t v,
                     const std::vector<double>& weights) {
  const std::int64_t group = p * v;
  double sum = 0;
  for (std::int64_t c = 0; c < v; ++c)
    sum += static_cast<double>(steps_of_chunk(forwards, c, p, group) -
                               steps_of_chunk(backwards, v - 1 - c, p, group)) *
           chunk_figure(weights, c);
  return sum;
}

}  // namespace

double interleaved_chunk_in_flight(int pipeline, int micro_batches, int virtual_stages, int stage,
                                   int chunk) {
  const std::int64_t p = std::max(1, pipeline), m = std::max(1, micro_batches);
  const std::int64_t v = std::max(1, virtual_stages);
  const std::int64_t total = m * v, group = p * v;
  const std::int64_t warmup =
      m == p ? total : std::min<std::int64_t>(2 * (p - stage - 1) + (v - 1) * p, total);
  // Of the first n forward (backward) steps, those of `chunk`: virtual
  // micro-batch k runs chunk (k mod pv) / p forward and v - 1 - that backward.
  auto of_chunk = [&](std::int64_t n, std::int64_t c) { return steps_of_chunk(n, c, p, group); };
  const std::int64_t remaining = total - warmup;
  if (remaining == 0) return static_cast<double>(of_chunk(total, chunk));
  // Before the j-th backward of the steady state, forwards 0..warmup+j have
  // run and backwards 0..j-1: the count repeats with period pv.
  // (of_chunk's quotients and remainders carried from j to j + 1, not
  // divided again: the same whole numbers.)
  std::int64_t most = 0;
  const std::int64_t steps = std::min(remaining, group), c_back = v - 1 - chunk;
  std::int64_t fq = (warmup + 1) / group,
               fr = (warmup + 1) % group;  // forward count warmup + j + 1
  std::int64_t bq = 0, br = 0;             // backward count j
  for (std::int64_t j = 0; j < steps; ++j) {
    const std::int64_t forwards = fq * p + std::clamp<std::int64_t>(fr - chunk * p, 0, p);
    const std::int64_t backwards = bq * p + std::clamp<std::int64_t>(br - c_back * p, 0, p);
    most = std::max(most, forwards - backwards);
    if (++fr == group) fr = 0, ++fq;
    if (++br == group) br = 0, ++bq;
  }
  return static_cast<double>(most);
}

double interleaved_weighted_in_flight(int pipeline, int micro_batches, int virtual_stages,
                                      int stage, const std::vector<double>& weights) {
  const std::int64_t p = std::max(1, pipeline), m = std::max(1, micro_batches);
  const std::int64_t v = std::max(1, virtual_stages);
  const std::int64_t total = m * v, group = p * v;
  const std::int64_t warmup =
      m == p ? total : std::min<std::int64_t>(2 * (p - stage - 1) + (v - 1) * p, total);
  auto weight = [&](std::int64_t c) { return chunk_figure(weights, c); };
  // (interleaved_chunk_in_flight's counts, chunk by chunk, at each step.)
  auto held = [&](std::int64_t forwards, std::int64_t backwards) {
    return held_weighted(forwards, backwards, p, v, weights);
  };

  const std::int64_t remaining = total - warmup;
  if (remaining == 0) return held(total, 0);
  // Step j holds forwards 0..warmup+j and backwards 0..j-1: from one step
  // to the next, forward warmup + j's chunk comes in and backward j - 1's
  // leaves (O(1) a step, where the sum over chunks is O(v)).
  const std::int64_t steps = std::min(remaining, group);
  double now = held(warmup + 1, 0), most = now;
  for (std::int64_t j = 1; j < steps; ++j) {
    now += weight(((warmup + j) % group) / p) - weight(v - 1 - ((j - 1) % group) / p);
    most = std::max(most, now);
  }
  return most;
}

double interleaved_backward_peak(int pipeline, int micro_batches, int virtual_stages, int stage,
                                 const std::vector<double>& weights,
                                 const std::vector<double>& extra) {
  const std::int64_t p = std::max(1, pipeline), m = std::max(1, micro_batches);
  const std::int64_t v = std::max(1, virtual_stages);
  const std::int64_t total = m * v, group = p * v;
  const std::int64_t warmup =
      m == p ? total : std::min<std::int64_t>(2 * (p - stage - 1) + (v - 1) * p, total);
  auto at = [](const std::vector<double>& x, std::int64_t c) { return chunk_figure(x, c); };
  // Backward j runs chunk v - 1 - (j mod pv) / p; before it, forwards
  // 0..min(total, warmup + j + 1) - 1 and backwards 0..j-1 have run.
  auto chunk_of_backward = [&](std::int64_t j) { return v - 1 - (j % group) / p; };
  auto held = [&](std::int64_t forwards, std::int64_t backwards) {
    return held_weighted(forwards, backwards, p, v, weights);
  };
  double most = -std::numeric_limits<double>::infinity();
  const std::int64_t remaining = total - warmup;
  // The steady state (a forward, then a backward) repeats every pv steps.
  const std::int64_t steady = std::min(remaining, group);
  double now = held(std::min(total, warmup + 1), 0);
  for (std::int64_t j = 0; j < steady; ++j) {
    if (j > 0)
      now += at(weights, ((warmup + j) % group) / p) - at(weights, chunk_of_backward(j - 1));
    most = std::max(most, now + at(extra, chunk_of_backward(j)));
  }
  // The cool-down: the rest of the backwards, every forward run.
  now = held(total, remaining);
  for (std::int64_t j = remaining; j < total; ++j) {
    if (j > remaining) now -= at(weights, chunk_of_backward(j - 1));
    most = std::max(most, now + at(extra, chunk_of_backward(j)));
  }
  return most;
}

double mlp_activation_bytes(double rows, const std::vector<std::int64_t>& widths, DType dtype,
                            bool training) {
  const double w = dtype_bytes(dtype);
  double total = 0;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    const double io = rows * static_cast<double>(widths[i] + widths[i + 1]) * w;
    total = training ? total + io : std::max(total, io);
  }
  return total;
}

// M_peak = M_model + M_grad + M_opt + M_act (the seed text, "显存利用率").
double MemoryBreakdown::peak_bytes() const {
  return params_bytes + grads_bytes + optimizer_bytes + activations_bytes + other_bytes;
}

}  // namespace brigade::cost
