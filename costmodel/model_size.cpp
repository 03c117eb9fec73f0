#include "costmodel/model_size.hpp"

#include "core/plan_check.hpp"
#include "costmodel/compute.hpp"

namespace brigade::cost {

double transformer_layer_parameters(double hidden, double ffn_ratio) {
  return transformer_layer_parameters_per_rank(hidden, ffn_ratio, 1);
}

// 12h^2 + 13h per layer at r = 4, t = 1 (Narayanan et al. 2021, derivation of Eq. 2):
// attention 4h^2 + 4h, MLP 2rh^2 + (r+1)h, layernorms 4h; split as in Shoeybi et al. 2019 §3.
double transformer_layer_parameters_per_rank(double hidden, double ffn_ratio, int tensor) {
  const double h = hidden, r = ffn_ratio, t = tensor;
  const double weights = (4 + 2 * r) * h * h;      // QKV 3h^2, projection h^2, fc1 rh^2, fc2 rh^2
  const double column_biases = (3 + r) * h;        // QKV and fc1: split with their columns
  const double row_biases = 2 * h;                 // projection and fc2: whole on every rank
  const double layernorms = 4 * h;                 // two (gain, bias) pairs
  return (weights + column_biases) / t + row_biases + layernorms;
}

double embedding_parameters(double vocab, double seq, double hidden) {
  return embedding_parameters_per_rank(vocab, seq, hidden, 1);
}

// (V + s) h at t = 1 (Narayanan et al. 2021, Eq. 2's embedding term); V h is vocabulary-parallel.
double embedding_parameters_per_rank(double vocab, double seq, double hidden, int tensor) {
  return vocab * hidden / tensor + seq * hidden;
}

double transformer_parameters(double layers, double hidden, double vocab, double seq,
                              double ffn_ratio) {
  return layers * transformer_layer_parameters(hidden, ffn_ratio) +
         embedding_parameters(vocab, seq, hidden);
}

// 24Bsh^2 + 4Bs^2h at r = 4 (Narayanan et al. 2021 §5.1, forward GEMMs of one layer).
double transformer_layer_forward_flops(double batch, double seq, double hidden, double ffn_ratio) {
  const double b = batch, s = seq, h = hidden;
  const double qkv = 6 * b * s * h * h, projection = 2 * b * s * h * h;
  const double mlp = 4 * ffn_ratio * b * s * h * h;
  return qkv + projection + mlp + attention_core_forward_flops(batch, seq, hidden);
}

// QK^T (2Bs^2h) + attention over values (2Bs^2h) (Korthikanti et al. 2022 §5).
double attention_core_forward_flops(double batch, double seq, double hidden) {
  return 4 * batch * seq * seq * hidden;
}

// 2BshV (Narayanan et al. 2021 §5.1, the logit layer).
double logits_forward_flops(double batch, double seq, double hidden, double vocab) {
  return 2 * batch * seq * hidden * vocab;
}

// 3 x forward (backward = 2 x forward) + recomputed forward work (Narayanan et al. 2021 Eq. 3).
double transformer_flops_per_iteration(double batch, double seq, double layers, double hidden,
                                       double vocab, Recompute recompute, double ffn_ratio) {
  const double layer = transformer_layer_forward_flops(batch, seq, hidden, ffn_ratio);
  double recomputed = 0;
  if (recompute == Recompute::kFull) recomputed = layer;
  if (recompute == Recompute::kSelective) recomputed = attention_core_forward_flops(batch, seq, hidden);
  return layers * (3 * layer + recomputed) + 3 * logits_forward_flops(batch, seq, hidden, vocab);
}

// ---- any transformer a TransformerSpec describes (model_size.hpp) ----------

namespace {
struct Widths {
  double h, kv, f, s, V;  // hidden, key/value width, FFN width, sequence, vocabulary
};
Widths widths_of(const TransformerSpec& spec) {
  const double h = static_cast<double>(spec.hidden);
  const double heads = static_cast<double>(spec.heads);
  return {h, static_cast<double>(spec.key_value_heads()) * h / heads,
          static_cast<double>(ffn_width(spec)), static_cast<double>(spec.seq),
          static_cast<double>(spec.vocab)};
}
// Weight elements of one layer's GEMMs (what 2Bs x multiplies).
double layer_weight_elements(const TransformerSpec& spec) {
  const Widths w = widths_of(spec);
  const double attention = 2 * w.h * w.h + 2 * w.h * w.kv;  // Q, output; K, V
  const double mlp = (spec.mlp == MlpKind::kSwiglu ? 3 : 2) * w.h * w.f;
  return attention + mlp;
}
}  // namespace

double transformer_layer_parameters(const TransformerSpec& spec) {
  const Widths w = widths_of(spec);
  const bool swiglu = spec.mlp == MlpKind::kSwiglu;
  double biases = 0;
  if (spec.bias || spec.qkv_bias) biases += w.h + 2 * w.kv;        // QKV
  if (spec.bias) biases += w.h + (swiglu ? 2 * w.f : w.f) + w.h;  // projection, fc1, fc2
  const double norms = (spec.norm == NormKind::kLayerNorm ? 4 : 2) * w.h;
  return layer_weight_elements(spec) + biases + norms;
}

double transformer_parameters(const TransformerSpec& spec) {
  const Widths w = widths_of(spec);
  const double embeddings = w.V * w.h + (spec.positions == PositionKind::kLearned ? w.s * w.h : 0) +
                            (spec.tie_embeddings ? 0 : w.V * w.h);
  return static_cast<double>(spec.layers) * transformer_layer_parameters(spec) + embeddings;
}

double transformer_layer_forward_flops(const TransformerSpec& spec, double batch) {
  const Widths w = widths_of(spec);
  return 2 * batch * w.s * layer_weight_elements(spec) +
         attention_core_forward_flops(batch, w.s, w.h);
}

double transformer_model_flops(const TransformerSpec& spec, double batch, bool training) {
  const Widths w = widths_of(spec);
  const double forward = static_cast<double>(spec.layers) * transformer_layer_forward_flops(spec, batch) +
                         logits_forward_flops(batch, w.s, w.h, w.V);
  return (training ? 3 : 1) * forward;
}

double transformer_hardware_flops(const TransformerSpec& spec, double batch, bool training,
                                  Recompute recompute) {
  const double model = transformer_model_flops(spec, batch, training);
  if (!training) return model;
  const Widths w = widths_of(spec);
  const bool flash = spec.attention == AttentionKernel::kFlash;
  const double core = attention_core_forward_flops(batch, w.s, w.h);
  double again = flash ? core / 2 : 0;  // FlashAttention-2's backward recomputes QK^T
  if (recompute == Recompute::kFull) again += transformer_layer_forward_flops(spec, batch);
  if (recompute == Recompute::kSelective && !flash) again += core;
  return model + static_cast<double>(spec.layers) * again;
}

double mlp_parameters(const std::vector<std::int64_t>& widths, bool bias) {
  double n = 0;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    const double in = static_cast<double>(widths[i]), out = static_cast<double>(widths[i + 1]);
    n += in * out + (bias ? out : 0.0);
  }
  return n;
}

// The layer's GEMM (rows x in) x (in x out) + rows out for the bias add.
double mlp_forward_flops(double rows, const std::vector<std::int64_t>& widths, bool bias) {
  double f = 0;
  const auto r = static_cast<std::int64_t>(rows);
  for (size_t i = 0; i + 1 < widths.size(); ++i)
    f += gemm_flops(r, widths[i + 1], widths[i]) + (bias ? rows * static_cast<double>(widths[i + 1]) : 0.0);
  return f;
}

// dX and dW GEMMs (each as many FLOPs as the forward GEMM) + the bias gradient's rows x out sum.
double mlp_backward_flops(double rows, const std::vector<std::int64_t>& widths, bool bias) {
  double f = 0;
  const auto r = static_cast<std::int64_t>(rows);
  for (size_t i = 0; i + 1 < widths.size(); ++i)
    f += 2 * gemm_flops(r, widths[i + 1], widths[i]) +
         (bias ? rows * static_cast<double>(widths[i + 1]) : 0.0);
  return f;
}

}  // namespace brigade::cost
