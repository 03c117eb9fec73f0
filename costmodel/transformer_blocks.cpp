#include "costmodel/transformer_blocks.hpp"

#include <cmath>
#include <utility>

#include "core/plan_check.hpp"
#include "core/profile.hpp"
#include "core/tr.hpp"

namespace brigade::cost {

namespace {

double prod(const std::vector<std::int64_t>& shape) {
  double n = 1;
  for (std::int64_t d : shape) n *= static_cast<double>(d);
  return n;
}

Kernel gemm(std::string name, OpKind op, std::int64_t m, std::int64_t n, std::int64_t k,
            std::int64_t batch = 1) {
  Kernel x;
  x.name = std::move(name);
  x.op = op;
  x.compute = ComputeKind::kGemm;
  x.m = m;
  x.n = n;
  x.k = k;
  x.batch = batch;
  return x;
}

Kernel memory(std::string name, OpKind op, double bytes) {
  Kernel x;
  x.name = std::move(name);
  x.op = op;
  x.compute = ComputeKind::kMemoryBound;
  x.bytes = bytes;
  return x;
}

Kernel fused(std::string name, OpKind op, double flops, double bytes) {
  Kernel x;
  x.name = std::move(name);
  x.op = op;
  x.compute = ComputeKind::kFixed;
  x.fixed_flops = flops;
  x.bytes = bytes;
  return x;
}

Kernel collective(std::string name, CollectiveKind kind, double bytes, std::string reason) {
  Kernel x;
  x.name = std::move(name);
  x.op = OpKind::kCustom;
  x.is_collective = true;
  x.collective = kind;
  x.collective_bytes = bytes;
  x.reason = std::move(reason);
  return x;
}

ParamTensor tensor(std::string name, std::vector<std::int64_t> global,
                   std::vector<std::int64_t> local) {
  ParamTensor p;
  p.name = std::move(name);
  p.tensor_sharded = global != local;
  p.global_shape = std::move(global);
  p.local_shape = std::move(local);
  return p;
}

// The backward of a memory-bound kernel reads what its forward saved and the
// output gradient and writes the input gradient; each kernel below states
// its bytes (a LayerNorm or GELU of one input: 3 passes to the forward's 2).
Kernel backward_of(const Kernel& fwd, double bytes) {
  return memory(fwd.name + ".bwd", fwd.op, bytes);
}

// The exit of a row-parallel region (or of the vocabulary-parallel lookup):
// each rank holds a partial sum over its shard of the tensor group. Without
// sequence parallelism an AllReduce sums it (Shoeybi et al. 2019 §3, the g
// operator); with it a ReduceScatter sums it into sequence shards
// (Korthikanti et al. 2022 §4.2.2). `name` gets ".allreduce" or
// ".reducescatter"; t = 1 needs neither.
void push_partial_sum_exit(std::vector<Kernel>& ks, bool sp, bool tp, const std::string& name,
                           double bytes, const std::string& sp_reason,
                           const std::string& tp_reason) {
  if (sp)
    ks.push_back(collective(name + ".reducescatter", CollectiveKind::kReduceScatter, bytes, sp_reason));
  else if (tp)
    ks.push_back(collective(name + ".allreduce", CollectiveKind::kAllReduce, bytes, tp_reason));
}

// Problem dimensions, per tensor-parallel rank and micro-batch.
struct Dims {
  std::int64_t b, s, h, a, t, f, v, dh;
  std::int64_t kv;            // key/value heads (a for MHA)
  std::int64_t tokens;        // b*s: rows of every GEMM
  std::int64_t local_tokens;  // rows of memory-bound regions (b*s/t with sequence parallelism)
  double e;                   // bytes per element
  bool sp;
};

// check_plan has checked divisibility (heads, FFN width, vocabulary by t;
// the sequence too under SP): only positivity is guarded here, against
// division by zero from shapes built in code.
Result<Dims> dims_of(const TransformerShape& x) {
  const TransformerSpec& m = x.spec;
  if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.seq <= 0 || m.vocab < 0 ||
      x.micro_batch <= 0 || x.tensor <= 0)
    return Status::error(
        "transformer: found a non-positive dimension; expected layers, hidden, heads, seq, "
        "micro-batch and tensor degree >= 1 and vocab >= 0");
  Dims d{};
  d.b = x.micro_batch;
  d.s = m.seq;
  d.h = m.hidden;
  d.a = m.heads;
  d.t = x.tensor;
  d.f = ffn_width(m);
  d.kv = m.key_value_heads();
  if (d.f <= 0 || d.kv <= 0 || d.kv > d.a)
    return Status::error(
        "transformer: found an FFN width or kv_heads out of range; expected FFN width >= 1 and "
        "1 <= kv_heads <= heads");
  d.v = m.vocab;
  d.e = dtype_bytes(m.dtype);
  d.sp = x.sequence_parallel && x.tensor > 1;
  d.dh = d.h / d.a;
  d.tokens = d.b * d.s;
  d.local_tokens = d.sp ? d.tokens / d.t : d.tokens;
  return d;
}

}  // namespace

double Kernel::flops() const {
  if (is_collective) return 0;
  if (compute == ComputeKind::kFixed) return fixed_flops;
  if (compute != ComputeKind::kGemm) return 0;
  return gemm_flops(m, n, k, batch);
}

double ParamTensor::local_elements() const {
  return prod(local_shape);
}
double ParamTensor::global_elements() const {
  return prod(global_shape);
}

double ParamGroup::local_elements() const {
  double n = 0;
  for (const ParamTensor& t : tensors) n += t.local_elements();
  return n;
}

double ParamGroup::replicated_elements() const {
  double n = 0;
  for (const ParamTensor& t : tensors)
    if (!t.tensor_sharded) n += t.local_elements();
  return n;
}

double BlockTemplate::saved_bytes() const {
  double n = 0;
  for (const Kernel& k : forward) n += k.saved_bytes;
  return n;
}

double BlockTemplate::recompute_saved_bytes() const {
  double n = 0;
  for (const Kernel& k : recompute) n += k.saved_bytes;
  return n;
}

double BlockTemplate::local_param_elements() const {
  double n = 0;
  for (const ParamGroup& g : params) n += g.local_elements();
  return n;
}

namespace {
double sum_flops(const std::vector<Kernel>& ks) {
  double f = 0;
  for (const Kernel& k : ks) f += k.flops();
  return f;
}
}  // namespace

double BlockTemplate::forward_flops() const {
  return sum_flops(forward);
}
double BlockTemplate::backward_flops() const {
  return sum_flops(backward);
}
double BlockTemplate::recompute_flops() const {
  return sum_flops(recompute);
}

// ---- transformer layer ---------------------------------------------------------

namespace {

// FlashAttention-2's tile edges (Dao 2023, §3.3: 128 x 128 blocks for head
// dimension 128 on A100/H100): the forward reads K and V once per block of
// kFlashBlock query rows, the backward Q, dO and dQ once per block of
// kFlashBlock key rows.
constexpr double kFlashBlock = 128;

// The fused attention forward of one micro-batch on one tensor rank (heads
// `ap` of head dimension dh, sequence s, b sequences): scores, softmax and
// values in one kernel (Dao 2023, Algorithm 1). FLOPs: QK^T and PV, 4 s^2 dh
// per head (causal masking's skipped tiles not subtracted, as the unfused
// count does not). Bytes: Q read and O written once, K and V read once per
// query block, the log-sum-exp (fp32) written.
Kernel flash_forward(double b, double ap, double s, double dh, double e) {
  const double blocks = std::ceil(s / kFlashBlock);
  const double flops = 4 * b * ap * s * s * dh;
  const double bytes = b * ap * s * dh * e * (2 + 2 * blocks) + b * ap * s * 4;
  return fused("attn.flash", OpKind::kSoftmax, flops, bytes);
}

// Its backward (Dao 2023, Algorithm 2): recomputes QK^T, then dV = P^T dO,
// dP = dO V^T, dQ = dS K, dK = dS^T Q: 10 s^2 dh per head, 2.5 x the
// forward. Bytes: the preprocessing D = rowsum(dO * O) reads O and dO; per
// key block K, V read and dK, dV written once; per key block Q and dO read
// and dQ read and written; the log-sum-exp and D (fp32) read.
Kernel flash_backward(double b, double ap, double s, double dh, double e) {
  const double blocks = std::ceil(s / kFlashBlock);
  const double flops = 10 * b * ap * s * s * dh;
  const double bytes = b * ap * s * dh * e * (2 + 4 + 4 * blocks) + b * ap * s * 4 * 3;
  return fused("attn.flash.bwd", OpKind::kSoftmax, flops, bytes);
}

}  // namespace

Result<BlockTemplate> transformer_layer(const TransformerShape& shape) {
  BRIGADE_ASSIGN_OR_RETURN(const Dims d, dims_of(shape));
  const TransformerSpec& spec = shape.spec;
  const double e = d.e;
  const double T = static_cast<double>(d.tokens);
  const double Tl = static_cast<double>(d.local_tokens);
  const double h = static_cast<double>(d.h);
  const double s = static_cast<double>(d.s);
  const double b = static_cast<double>(d.b);
  const double dh = static_cast<double>(d.dh);
  const std::int64_t ap = d.a / d.t;    // query heads on this rank
  const std::int64_t kvp = d.kv / d.t;  // key/value heads on this rank
  const double heads_local = static_cast<double>(ap);
  const double kv_local = static_cast<double>(kvp);
  const std::int64_t fp = d.f / d.t;  // FFN columns on this rank
  const double ffn_local = static_cast<double>(fp);
  const double hidden_bytes = T * h * e;  // one full (b, s, h) activation
  const bool tp = d.t > 1;
  const bool sp = d.sp;
  const bool swiglu = spec.mlp == MlpKind::kSwiglu;
  const bool flash = spec.attention == AttentionKernel::kFlash;
  const bool gqa = d.kv < d.a;
  const double scores = b * heads_local * s * s;  // elements of one (b, a/t, s, s) tensor
  // Columns of the fused QKV GEMM: a query heads, kv key heads, kv value heads.
  const std::int64_t qkv_cols = (d.a + 2 * d.kv) * d.dh;
  // Columns of fc1: up (GeLU), or gate and up (SwiGLU, one column-parallel GEMM).
  const std::int64_t fc1_cols = swiglu ? 2 * d.f : d.f;
  const std::int64_t fc1p = fc1_cols / d.t;
  const double q_bytes = T * heads_local * dh * e;  // Q (or an expanded K or V) on this rank
  const double kv_bytes = T * kv_local * dh * e;    // K or V as projected on this rank

  BlockTemplate L;
  L.name = "layer";
  // Parameters (Megatron-LM: QKV and fc1 column-parallel, projection and fc2
  // row-parallel; norms and row-parallel biases replicated). Without `bias`,
  // no linear layer has one (qkv_bias keeps Q, K, V's); RMSNorm has no bias.
  const bool qkv_bias = spec.bias || spec.qkv_bias;
  auto norm = [&](const std::string& name) {
    ParamGroup g{name, {tensor(name + ".weight", {d.h}, {d.h})}};
    if (spec.norm == NormKind::kLayerNorm) g.tensors.push_back(tensor(name + ".bias", {d.h}, {d.h}));
    return g;
  };
  auto linear = [&](const std::string& name, std::vector<std::int64_t> global,
                    std::vector<std::int64_t> local, bool with_bias, std::int64_t bias_global,
                    std::int64_t bias_local) {
    ParamGroup g{name, {tensor(name + ".weight", std::move(global), std::move(local))}};
    if (with_bias) g.tensors.push_back(tensor(name + ".bias", {bias_global}, {bias_local}));
    return g;
  };
  L.params = {
      linear("mlp.fc2", {d.f, d.h}, {fp, d.h}, spec.bias, d.h, d.h),
      linear("mlp.fc1", {d.h, fc1_cols}, {d.h, fc1p}, spec.bias, fc1_cols, fc1p),
      norm("ln2"),
      linear("attn.proj", {d.h, d.h}, {d.h / d.t, d.h}, spec.bias, d.h, d.h),
      linear("attn.qkv", {d.h, qkv_cols}, {d.h, qkv_cols / d.t}, qkv_bias, qkv_cols,
             qkv_cols / d.t),
      norm("ln1"),
  };
  enum { kFc2, kFc1, kLn2, kProj, kQkv, kLn1 };

  // Activation bytes kept for the backward, per Korthikanti et al. 2022,
  // Section 4.1 (16-bit activations, 1-byte dropout masks): LN inputs,
  // GEMM inputs, Q and K, softmax output, its dropout mask and output, V,
  // the GELU input and the two residual dropout masks.
  const double sh_e = Tl * h * e;  // a (b, s, h) tensor as this rank keeps it
  // Tensors that every tensor rank keeps whole without sequence
  // parallelism (LN inputs, QKV and fc1 inputs, dropout masks), 1/t with it.
  std::vector<Kernel>& F = L.forward;
  // LayerNorm or RMSNorm: one read, one write (Megatron's fused kernels).
  Kernel ln1 = memory("ln1", OpKind::kLayerNorm, 2 * Tl * h * e);
  ln1.saved_bytes = sh_e;  // LN1 input (the layer input)
  F.push_back(ln1);
  if (sp)
    F.push_back(
        collective("attn.allgather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel: gather the LayerNorm output's sequence shards "
                           "over 'tensor' before the column-parallel QKV GEMM")));
  Kernel qkv = gemm("attn.qkv", OpKind::kMatmul, d.tokens, qkv_cols / d.t, d.h);
  qkv.saved_bytes = sh_e;  // QKV input (the shard, re-gathered in backward, with SP)
  F.push_back(qkv);
  // Rotary embeddings (Su et al. 2021): Q and K rotated in place, read and
  // written once; the rotation is linear, so its backward keeps nothing.
  Kernel rope = memory("attn.rotary", OpKind::kElementwise, 2 * (q_bytes + kv_bytes));
  if (spec.positions == PositionKind::kRotary) F.push_back(rope);
  // Megatron-Core's unfused attention repeats each key/value head over its
  // query group (repeat_interleave) before the batched GEMMs: read K and V,
  // write them for every query head.
  Kernel expand = memory("attn.kv_expand", OpKind::kElementwise, 2 * (kv_bytes + q_bytes));
  if (gqa && !flash) F.push_back(expand);
  Kernel sc = gemm("attn.scores", OpKind::kMatmul, d.s, d.s, d.dh, d.b * ap);
  // Fused scale + causal mask + softmax + dropout: reads the scores, writes
  // the probabilities, the dropout mask (1 B) and the dropout output.
  Kernel sm = memory("attn.softmax", OpKind::kSoftmax, scores * (3 * e + 1));
  Kernel av = gemm("attn.values", OpKind::kMatmul, d.s, d.dh, d.s, d.b * ap);
  if (flash) {
    // Q, K, V and the log-sum-exp (fp32) for the backward; no s x s tensor.
    Kernel fa = flash_forward(b, heads_local, s, dh, e);
    fa.saved_bytes = q_bytes + 2 * kv_bytes + b * heads_local * s * 4;
    F.push_back(fa);
  } else {
    sc.saved_bytes = 2 * q_bytes;  // Q and K (K expanded to every query head)
    F.push_back(sc);
    sm.saved_bytes = scores * (e + 1);  // softmax output + dropout mask
    F.push_back(sm);
    av.saved_bytes = scores * e + q_bytes;  // dropout output + V (expanded)
    F.push_back(av);
  }
  Kernel proj = gemm("attn.proj", OpKind::kMatmul, d.tokens, d.h, d.h / d.t);
  proj.saved_bytes = T * (h / static_cast<double>(d.t)) * e;  // projection input
  F.push_back(proj);
  push_partial_sum_exit(
      F, sp, tp, "attn", hidden_bytes,
      tr_text("Reasons",
              "sequence parallel: the row-parallel projection leaves partial sums; "
              "reduce-scatter them over 'tensor' into sequence shards"),
      tr_text("Reasons",
              "Megatron row-parallel attention projection: each rank holds a "
              "partial sum over its heads; psum over 'tensor'"));
  // Bias + dropout + residual add, fused with LayerNorm 2: reads the
  // projection output and the residual, writes the mask, the sum (the next
  // residual and LN2 input) and the LN output.
  Kernel bda1 = memory("attn.residual+ln2", OpKind::kElementwise, Tl * h * (4 * e + 1));
  bda1.saved_bytes = Tl * h * 1 + sh_e;  // dropout mask + LN2 input
  F.push_back(bda1);
  if (sp)
    F.push_back(
        collective("mlp.allgather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel: gather the LayerNorm output's sequence shards "
                           "over 'tensor' before the column-parallel fc1 GEMM")));
  Kernel fc1 = gemm("mlp.fc1", OpKind::kMatmul, d.tokens, fc1p, d.h);
  fc1.saved_bytes = sh_e;  // fc1 input
  F.push_back(fc1);
  // GeLU: bias + GELU, reads and writes (b, s, f/t), keeps its input.
  // SwiGLU: reads gate and up, writes silu(gate) * up, keeps gate and up.
  Kernel act = swiglu ? memory("mlp.swiglu", OpKind::kElementwise, 3 * T * ffn_local * e)
                      : memory("mlp.gelu", OpKind::kElementwise, 2 * T * ffn_local * e);
  act.saved_bytes = (swiglu ? 2 : 1) * T * ffn_local * e;
  F.push_back(act);
  Kernel fc2 = gemm("mlp.fc2", OpKind::kMatmul, d.tokens, d.h, fp);
  fc2.saved_bytes = T * ffn_local * e;  // fc2 input
  F.push_back(fc2);
  push_partial_sum_exit(F, sp, tp, "mlp", hidden_bytes,
                        tr_text("Reasons",
                                "sequence parallel: the row-parallel fc2 leaves partial sums; "
                                "reduce-scatter them over 'tensor' into sequence shards"),
                        tr_text("Reasons",
                                "Megatron row-parallel fc2: each rank holds a partial sum over its "
                                "FFN columns; psum over 'tensor'"));
  // Bias + dropout + residual add: reads fc2 output and residual, writes mask and sum.
  Kernel bda2 = memory("mlp.residual", OpKind::kElementwise, Tl * h * (3 * e + 1));
  bda2.saved_bytes = Tl * h * 1;  // dropout mask
  F.push_back(bda2);

  // Backward, in issue order: the reverse of the forward, each GEMM as its
  // input-gradient (dgrad) and weight-gradient (wgrad) GEMMs.
  std::vector<Kernel>& B = L.backward;
  // Residual add backward: the gradient passes to the residual unchanged;
  // dropout's backward reads it and the mask and writes fc2's output gradient.
  B.push_back(backward_of(bda2, Tl * h * (2 * e + 1)));
  if (sp)
    B.push_back(
        collective("mlp.bwd.allgather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel backward: gather the output gradient's sequence "
                           "shards over 'tensor' (the transpose of the forward reduce-scatter)")));
  B.push_back(gemm("mlp.fc2.dgrad", OpKind::kMatmul, d.tokens, fp, d.h));
  Kernel fc2w = gemm("mlp.fc2.wgrad", OpKind::kMatmul, fp, d.h, d.tokens);
  fc2w.completes_grad = kFc2;
  B.push_back(fc2w);
  // GeLU: reads input and dy, writes dx. SwiGLU: reads gate, up and dy,
  // writes the gradients of gate and up.
  B.push_back(backward_of(act, (swiglu ? 5 : 3) * T * ffn_local * e));
  if (sp)
    B.push_back(
        collective("mlp.bwd.regather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel backward: re-gather fc1's input over 'tensor' for "
                           "its weight gradient (only the sequence shard was kept)")));
  B.push_back(gemm("mlp.fc1.dgrad", OpKind::kMatmul, d.tokens, d.h, fc1p));
  Kernel fc1w = gemm("mlp.fc1.wgrad", OpKind::kMatmul, d.h, fc1p, d.tokens);
  fc1w.completes_grad = kFc1;
  B.push_back(fc1w);
  push_partial_sum_exit(
      B, sp, tp, "mlp.bwd", hidden_bytes,
      tr_text("Reasons",
              "sequence parallel backward: fc1's input gradient is partial over the "
              "FFN shards; reduce-scatter it over 'tensor' (the transpose of the "
              "forward all-gather)"),
      tr_text("Reasons",
              "backward of the column-parallel fc1: its input gradient is a partial "
              "sum over the FFN columns; psum over 'tensor'"));
  // LN2 backward (reads its input and output gradient), plus the residual
  // stream's gradient (read), written once as the residual's gradient and,
  // through dropout (reads the mask), as the projection's output gradient.
  Kernel bda1b = backward_of(bda1, Tl * h * (5 * e + 1));
  bda1b.completes_grad = kLn2;
  B.push_back(bda1b);
  if (sp)
    B.push_back(
        collective("attn.bwd.allgather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel backward: gather the output gradient's sequence "
                           "shards over 'tensor' (the transpose of the forward reduce-scatter)")));
  B.push_back(gemm("attn.proj.dgrad", OpKind::kMatmul, d.tokens, d.h / d.t, d.h));
  Kernel projw = gemm("attn.proj.wgrad", OpKind::kMatmul, d.h / d.t, d.h, d.tokens);
  projw.completes_grad = kProj;
  B.push_back(projw);
  L.recompute_before = static_cast<int>(B.size());
  if (flash) {
    B.push_back(flash_backward(b, heads_local, s, dh, e));
  } else {
    // Attention over values: gradients of the probabilities (dO·Vᵀ) and of V (Pᵀ·dO).
    B.push_back(gemm("attn.values.dgrad", OpKind::kMatmul, d.s, d.s, d.dh, d.b * ap));
    B.push_back(gemm("attn.values.dv", OpKind::kMatmul, d.s, d.dh, d.s, d.b * ap));
    // Dropout + softmax backward: reads the output gradient, the mask and the
    // probabilities, writes the scores' gradient (as many bytes as the forward).
    B.push_back(backward_of(sm, scores * (3 * e + 1)));
    // Scores: dQ = dS·K and dK = dSᵀ·Q.
    B.push_back(gemm("attn.scores.dq", OpKind::kMatmul, d.s, d.dh, d.s, d.b * ap));
    B.push_back(gemm("attn.scores.dk", OpKind::kMatmul, d.s, d.dh, d.s, d.b * ap));
    // The expansion's backward sums each group's dK and dV (the same bytes).
    if (gqa) B.push_back(backward_of(expand, expand.bytes));
  }
  if (spec.positions == PositionKind::kRotary) B.push_back(backward_of(rope, rope.bytes));
  if (sp)
    B.push_back(
        collective("attn.bwd.regather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel backward: re-gather the QKV input over 'tensor' "
                           "for its weight gradient (only the sequence shard was kept)")));
  B.push_back(gemm("attn.qkv.dgrad", OpKind::kMatmul, d.tokens, d.h, qkv_cols / d.t));
  Kernel qkvw = gemm("attn.qkv.wgrad", OpKind::kMatmul, d.h, qkv_cols / d.t, d.tokens);
  qkvw.completes_grad = kQkv;
  B.push_back(qkvw);
  push_partial_sum_exit(B, sp, tp, "attn.bwd", hidden_bytes,
                       "sequence parallel backward: the QKV input gradient is partial over "
                       "the heads; reduce-scatter it over 'tensor' (the transpose of the "
                       "forward all-gather)",
                       "backward of the column-parallel QKV: its input gradient is a partial "
                       "sum over the heads; psum over 'tensor'");
  Kernel ln1b = backward_of(ln1, 3 * Tl * h * e);  // reads input and dy, writes dx
  ln1b.completes_grad = kLn1;
  B.push_back(ln1b);

  // Recomputation (Korthikanti et al. 2022, Section 5).
  if (shape.recompute == Recompute::kSelective && !flash) {
    // Keep Q, K, V; drop the softmax output, its mask and the dropout
    // output (the 5as²b term) and recompute the attention core before its
    // backward. (FlashAttention keeps no s x s tensor and recomputes the
    // scores inside its own backward: nothing left to recompute.)
    const double core = scores * (2 * e + 1);  // softmax out + mask + dropout out
    for (Kernel& k : F) {
      if (k.name == "attn.softmax") k.saved_bytes = 0;
      if (k.name == "attn.values") k.saved_bytes -= scores * e;
    }
    Kernel rs = sc, rm = sm, rv = av;
    rs.saved_bytes = 0;
    rm.saved_bytes = core;
    rv.saved_bytes = 0;
    L.recompute = {rs, rm, rv};
  } else if (shape.recompute == Recompute::kFull) {
    // Keep only the layer input; recompute the whole forward (its
    // tensor-parallel collectives included) before the layer's backward.
    L.recompute = F;
    L.recompute[0].saved_bytes = 0;  // the layer input is kept from the forward
    for (size_t i = 1; i < F.size(); ++i) F[i].saved_bytes = 0;
    L.recompute_before = 0;
  }
  for (Kernel& k : L.recompute) k.name += ".recompute";
  return L;
}

// ---- embedding and head --------------------------------------------------------

Result<BlockTemplate> embedding_block(const TransformerShape& shape) {
  BRIGADE_ASSIGN_OR_RETURN(const Dims d, dims_of(shape));
  const double T = static_cast<double>(d.tokens);
  const double Tl = static_cast<double>(d.local_tokens);
  const double h = static_cast<double>(d.h);
  const bool learned = shape.spec.positions == PositionKind::kLearned;
  BlockTemplate E;
  E.name = "embedding";
  E.params = {
      {"embedding.word", {tensor("embedding.word", {d.v, d.h}, {d.v / d.t, d.h})}},
  };
  if (learned)
    E.params.push_back(
        {"embedding.position", {tensor("embedding.position", {d.s, d.h}, {d.s, d.h})}});
  // Vocabulary-parallel lookup (rows outside this rank's shard are zeros),
  // plus the learned position embedding (rotary positions are applied in
  // every layer instead), then dropout.
  Kernel look =
      memory("embedding", OpKind::kEmbedding, T * h * ((learned ? 3 : 2) * d.e + 1));
  look.saved_bytes = Tl * h * 1;  // dropout mask
  E.forward.push_back(look);
  const double hidden_bytes = T * h * d.e;
  push_partial_sum_exit(
      E.forward, d.sp, d.t > 1, "embedding", hidden_bytes,
      "vocabulary-parallel embedding: each rank looked up only its V/t rows; reduce-scatter "
      "the partial embeddings over 'tensor' into sequence shards",
      "vocabulary-parallel embedding: each rank looked up only its V/t rows; psum over "
      "'tensor'");
  if (d.sp)
    E.backward.push_back(collective(
        "embedding.bwd.allgather", CollectiveKind::kAllGather, hidden_bytes,
        "sequence parallel backward: gather the embedding gradient's sequence shards over "
        "'tensor'"));
  // Scatter-add of the output gradient into the word- and position-embedding gradients.
  Kernel scatter = memory("embedding.bwd", OpKind::kEmbedding, 3 * T * h * d.e);
  scatter.completes_grad = 0;
  E.backward.push_back(scatter);
  // The position-embedding gradient is finished by the same kernel.
  if (learned) {
    Kernel pos = memory("embedding.position.bwd", OpKind::kEmbedding, 2 * T * h * d.e);
    pos.completes_grad = 1;
    E.backward.push_back(pos);
  }
  return E;
}

Result<BlockTemplate> head_block(const TransformerShape& shape) {
  BRIGADE_ASSIGN_OR_RETURN(const Dims d, dims_of(shape));
  const double T = static_cast<double>(d.tokens);
  const double Tl = static_cast<double>(d.local_tokens);
  const double h = static_cast<double>(d.h);
  const double v_local = static_cast<double>(d.v / d.t);
  const double hidden_bytes = T * h * d.e;
  constexpr double kF32 = 4;  // the cross-entropy works in fp32 (Megatron-LM)
  BlockTemplate H;
  H.name = "head";
  if (d.v == 0) return H;  // no vocabulary: no logits, no loss
  // Tied weights: the logits GEMM uses the word embedding, no parameters of
  // its own (the lowering adds a copy when the head sits on another
  // pipeline stage than the embedding). Untied (Llama): its own
  // vocabulary-parallel V x h output matrix, whose gradient the logits'
  // weight-gradient GEMM completes.
  const bool untied = !shape.spec.tie_embeddings;
  if (untied)
    H.params = {{"head.output", {tensor("head.output.weight", {d.v, d.h}, {d.v / d.t, d.h})}}};
  if (d.sp)
    H.forward.push_back(collective(
        "head.allgather", CollectiveKind::kAllGather, hidden_bytes,
        "sequence parallel: gather the final hidden states' sequence shards over 'tensor' "
        "before the vocabulary-parallel logits GEMM"));
  Kernel logits = gemm("head.logits", OpKind::kMatmul, d.tokens, d.v / d.t, d.h);
  logits.saved_bytes = Tl * h * d.e;  // the logits GEMM's input
  H.forward.push_back(logits);
  Kernel ce = memory("head.cross_entropy", OpKind::kLoss, T * v_local * (d.e + kF32));
  ce.saved_bytes = T * v_local * kF32;  // softmax of the logits, for the backward
  H.forward.push_back(ce);
  if (d.t > 1)
    H.forward.push_back(collective(
        "head.loss.allreduce", CollectiveKind::kAllReduce, 3 * T * kF32,
        "vocabulary-parallel cross-entropy: max, target logit and sum of exponentials over "
        "the V/t shards; psum over 'tensor' (Megatron-LM issues three all-reduces of b*s "
        "values; fused here into one)"));
  H.backward.push_back(memory("head.cross_entropy.bwd", OpKind::kLoss, T * v_local * (kF32 + d.e)));
  H.backward.push_back(gemm("head.logits.dgrad", OpKind::kMatmul, d.tokens, d.h, d.v / d.t));
  Kernel logits_w = gemm("head.logits.wgrad", OpKind::kMatmul, d.v / d.t, d.h, d.tokens);
  if (untied) logits_w.completes_grad = 0;
  H.backward.push_back(logits_w);
  push_partial_sum_exit(
      H.backward, d.sp, d.t > 1, "head.bwd", hidden_bytes,
      "sequence parallel backward: the logits' input gradient is partial over the "
      "vocabulary shards; reduce-scatter it over 'tensor'",
      "backward of the vocabulary-parallel logits GEMM: its input gradient is a partial sum "
      "over the vocabulary shards; psum over 'tensor'");
  return H;
}

std::string transformer_variant_label(const TransformerSpec& spec) {
  std::vector<std::string> parts;
  const std::int64_t kv = spec.key_value_heads();
  if (kv == 1 && spec.heads > 1)
    parts.push_back("MQA (1 key/value head)");
  else if (kv < spec.heads)
    parts.push_back("GQA with " + std::to_string(kv) + " key/value heads");
  if (spec.mlp == MlpKind::kSwiglu)
    parts.push_back("SwiGLU FFN " + std::to_string(ffn_width(spec)));
  else if (spec.ffn_hidden > 0)
    parts.push_back("FFN " + std::to_string(spec.ffn_hidden));
  if (spec.norm == NormKind::kRmsNorm) parts.push_back("RMSNorm");
  if (spec.positions == PositionKind::kRotary) parts.push_back("rotary positions");
  if (!spec.tie_embeddings) parts.push_back("untied output");
  if (!spec.bias) parts.push_back(spec.qkv_bias ? "biases on QKV only" : "no biases");
  if (spec.attention == AttentionKernel::kFlash) parts.push_back("FlashAttention");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

double pipeline_boundary_bytes(const TransformerShape& shape) {
  const TransformerSpec& m = shape.spec;
  const bool sp = shape.sequence_parallel && shape.tensor > 1;
  return static_cast<double>(shape.micro_batch * m.seq) * static_cast<double>(m.hidden) *
         dtype_bytes(m.dtype) / (sp ? shape.tensor : 1);
}

}  // namespace brigade::cost
