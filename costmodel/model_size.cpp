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
  // hidden, the query heads' width (heads x head_dim: h unless head_dim
  // says otherwise), key/value width, FFN width, sequence, vocabulary
  double h, q, kv, f, s, V;
};
Widths widths_of(const TransformerSpec& spec) {
  const double dh = static_cast<double>(spec.head_width());
  return {static_cast<double>(spec.hidden),
          static_cast<double>(spec.heads) * dh,
          static_cast<double>(spec.key_value_heads()) * dh,
          static_cast<double>(ffn_width(spec)),
          static_cast<double>(spec.seq),
          static_cast<double>(spec.vocab)};
}
double mlp_matrices(const TransformerSpec& spec) {
  return spec.mlp == MlpKind::kSwiglu ? 3 : 2;
}
// Weight elements of the attention's GEMMs. MHA/GQA: Q and output h x d_q
// (d_q = heads x head_dim, h unless head_dim says otherwise), K and V h x d_kv. MLA (DeepSeek-V3, transformers' DeepseekV3Attention):
// q_a h x q_lora and q_b q_lora x H(nope + rope) (or one h x H(nope + rope)
// without q_lora), kv_a h x (kv_lora + rope), kv_b kv_lora x H(nope + v),
// output H v x h.
double attention_weight_elements(const TransformerSpec& spec) {
  const Widths w = widths_of(spec);
  if (!spec.mla.enabled()) return 2 * w.h * w.q + 2 * w.h * w.kv;
  const MlaSpec& a = spec.mla;
  const double H = static_cast<double>(spec.heads);
  const double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
  const double ql = static_cast<double>(a.q_lora_rank), kl = static_cast<double>(a.kv_lora_rank);
  const double q = a.q_lora_rank > 0 ? w.h * ql + ql * H * qk : w.h * H * qk;
  const double kv = w.h * (kl + static_cast<double>(a.qk_rope_head_dim)) +
                    kl * H * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim);
  return q + kv + H * static_cast<double>(a.v_head_dim) * w.h;
}
// One MLP of width f: its weights and (with `bias`) biases.
double mlp_elements(const TransformerSpec& spec, double f) {
  const double h = static_cast<double>(spec.hidden);
  const bool swiglu = spec.mlp == MlpKind::kSwiglu;
  return mlp_matrices(spec) * h * f + (spec.bias ? (swiglu ? 2 * f : f) + h : 0.0);
}
// The MLP part of a layer: the dense MLP, or the router (h x experts, no
// bias), `experts_counted` routed experts and the shared ones.
double ffn_part_elements(const TransformerSpec& spec, bool moe, double experts_counted,
                         bool weights_only) {
  const Widths w = widths_of(spec);
  auto one = [&](double f) {
    return weights_only ? mlp_matrices(spec) * w.h * f : mlp_elements(spec, f);
  };
  if (!moe) return one(w.f);
  const MoeSpec& m = spec.moe;
  const double fe = static_cast<double>(m.ffn_hidden);
  return w.h * static_cast<double>(m.experts) +
         (experts_counted + static_cast<double>(m.shared_experts)) * one(fe);
}
double layer_elements(const TransformerSpec& spec, bool moe, bool active) {
  const Widths w = widths_of(spec);
  const double routed = moe ? static_cast<double>(active ? spec.moe.top_k : spec.moe.experts) : 0;
  double attention_biases = 0;
  if (!spec.mla.enabled()) {
    if (spec.bias || spec.qkv_bias) attention_biases += w.q + 2 * w.kv;  // QKV
    if (spec.bias) attention_biases += w.h;                              // projection
  }
  const double norm = spec.norm == NormKind::kLayerNorm ? 2 : 1;
  // MLA's own RMSNorms of the latents (q_a_layernorm, kv_a_layernorm).
  const double mla_norms =
      spec.mla.enabled() ? static_cast<double>(spec.mla.q_lora_rank + spec.mla.kv_lora_rank) : 0;
  // qk_norm: a norm of head_dim on the queries and one on the keys.
  const double qk_norms = spec.qk_norm ? 2 * norm * static_cast<double>(spec.head_width()) : 0;
  return attention_weight_elements(spec) + attention_biases + mla_norms + qk_norms +
         ffn_part_elements(spec, moe, routed, false) + 2 * norm * w.h;
}
// Forward GEMM FLOPs of the attention core for B sequences: QK^T and PV,
// 2Bs^2 per query head and head dimension of each.
double core_flops(const TransformerSpec& spec, double batch) {
  const Widths w = widths_of(spec);
  if (!spec.mla.enabled()) return attention_core_forward_flops(batch, w.s, w.q);
  const MlaSpec& a = spec.mla;
  const double H = static_cast<double>(spec.heads);
  return 2 * batch * w.s * w.s * H *
         static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim);
}
// Sums f(moe) over the layers, by kind.
template <class F>
double over_layers(const TransformerSpec& spec, F&& f) {
  const double moe_layers = static_cast<double>(spec.moe_layers());
  const double dense_layers = static_cast<double>(spec.layers) - moe_layers;
  return (dense_layers > 0 ? dense_layers * f(false) : 0.0) +
         (moe_layers > 0 ? moe_layers * f(true) : 0.0);
}
double embedding_elements(const TransformerSpec& spec) {
  const Widths w = widths_of(spec);
  return w.V * w.h + (spec.positions == PositionKind::kLearned ? w.s * w.h : 0) +
         (spec.tie_embeddings ? 0 : w.V * w.h);
}
}  // namespace

double transformer_layer_parameters(const TransformerSpec& spec) {
  return layer_elements(spec, false, false);
}
double transformer_layer_parameters(const TransformerSpec& spec, bool moe, bool active) {
  return layer_elements(spec, moe && spec.moe.enabled(), active);
}

double transformer_parameters(const TransformerSpec& spec) {
  return over_layers(spec, [&](bool moe) { return layer_elements(spec, moe, false); }) +
         embedding_elements(spec);
}

double transformer_active_parameters(const TransformerSpec& spec) {
  return over_layers(spec, [&](bool moe) { return layer_elements(spec, moe, true); }) +
         embedding_elements(spec);
}

double transformer_layer_forward_flops(const TransformerSpec& spec, double batch, bool moe) {
  const Widths w = widths_of(spec);
  moe = moe && spec.moe.enabled();
  const double routed = moe ? static_cast<double>(spec.moe.top_k) : 0;
  const double weights =
      attention_weight_elements(spec) + ffn_part_elements(spec, moe, routed, true);
  return 2 * batch * w.s * weights + core_flops(spec, batch);
}

double transformer_model_flops(const TransformerSpec& spec, double batch, bool training) {
  const Widths w = widths_of(spec);
  const double forward =
      over_layers(spec,
                  [&](bool moe) { return transformer_layer_forward_flops(spec, batch, moe); }) +
      logits_forward_flops(batch, w.s, w.h, w.V);
  return (training ? 3 : 1) * forward;
}

double transformer_hardware_flops(const TransformerSpec& spec, double batch, bool training,
                                  Recompute recompute, double recomputed_fraction,
                                  bool fp8_linears) {
  double model = transformer_model_flops(spec, batch, training);
  // A capacity factor pads every expert's buffer to capacity: the routed
  // experts' GEMMs run capacity_factor x the routed tokens.
  const MoeSpec& m = spec.moe;
  if (m.enabled() && m.capacity_factor > 0) {
    const Widths w = widths_of(spec);
    const double routed = 2 * batch * w.s * static_cast<double>(m.top_k) * mlp_matrices(spec) *
                          w.h * static_cast<double>(m.ffn_hidden);
    model += (training ? 3 : 1) * static_cast<double>(spec.moe_layers()) * (m.capacity_factor - 1) *
             routed;
  }
  if (!training) return model;
  const bool flash = spec.attention == AttentionKernel::kFlash;
  const double core = core_flops(spec, batch);
  // FlashAttention-2's backward recomputes QK^T (half the core for MHA).
  double qk = core / 2;
  if (spec.mla.enabled()) {
    const Widths w = widths_of(spec);
    qk = 2 * batch * w.s * w.s * static_cast<double>(spec.heads) *
         static_cast<double>(spec.mla.qk_nope_head_dim + spec.mla.qk_rope_head_dim);
  }
  const double again_core =
      (flash ? qk : 0) + (recompute == Recompute::kSelective && !flash ? core : 0);
  double again = static_cast<double>(spec.layers) * again_core;
  if (recompute == Recompute::kFull)
    again += recomputed_fraction *
             over_layers(spec,
                         [&](bool moe) { return transformer_layer_forward_flops(spec, batch, moe); });
  if (recompute == Recompute::kOp) {
    // Dense layers only (plan_check_frameworks.cpp refuses MoE and MLA).
    const Widths w = widths_of(spec);
    const double replayed = fp8_linears
                                ? attention_weight_elements(spec) + mlp_matrices(spec) * w.h * w.f
                                : w.h * w.kv + w.q * w.h + w.h * w.f;
    again += static_cast<double>(spec.layers) * 2 * batch * w.s * replayed;
  }
  return model + again;
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
