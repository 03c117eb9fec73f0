#include "costmodel/transformer_blocks.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "core/plan_check.hpp"
#include "core/profile.hpp"
#include "core/tr.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/transformer_blocks_internal.hpp"

namespace brigade::cost {

namespace {

double prod(const std::vector<std::int64_t>& shape) {
  double n = 1;
  for (std::int64_t d : shape) n *= static_cast<double>(d);
  return n;
}

}  // namespace

// ---- kernel builders and dimensions (transformer_blocks_internal.hpp) ---------

namespace block_detail {

Kernel gemm(std::string name, OpKind op, std::int64_t m, std::int64_t n, std::int64_t k,
            std::int64_t batch) {
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

void add_grad_accumulation(BlockTemplate& block, double bytes_per_element,
                           const std::vector<double>& fused) {
  if (!(bytes_per_element > 0)) return;
  const size_t n = block.backward.size();
  std::vector<Kernel> out;
  out.reserve(n + block.params.size());
  int before = static_cast<int>(n);
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<int>(i) == block.recompute_before) before = static_cast<int>(out.size());
    out.push_back(std::move(block.backward[i]));
    const int g = out.back().completes_grad;
    if (g < 0 || g >= static_cast<int>(block.params.size())) continue;
    const ParamGroup& group = block.params[static_cast<size_t>(g)];
    const double left =
        group.local_elements() -
        (static_cast<size_t>(g) < fused.size() ? fused[static_cast<size_t>(g)] : 0.0);
    if (!(left > 0)) continue;
    Kernel add =
        memory(group.name + ".grad_accumulate", OpKind::kElementwise, left * bytes_per_element);
    add.completes_grad = g;
    out.back().completes_grad = -1;
    out.push_back(std::move(add));
  }
  block.backward = std::move(out);
  block.recompute_before = before;
}

std::vector<double> mark_fused_accumulation(BlockTemplate& block, double bytes_per_element,
                                            std::string_view alias_gemm, std::string_view alias) {
  std::vector<double> fused(block.params.size(), 0.0);
  if (!(bytes_per_element > 0)) return fused;
  constexpr std::string_view kWgrad = ".wgrad";
  for (Kernel& k : block.backward) {
    if (k.compute != ComputeKind::kGemm) continue;
    const std::string_view name = k.name;
    if (name.size() < kWgrad.size() || name.substr(name.size() - kWgrad.size()) != kWgrad) continue;
    if (name.starts_with("moe.router.")) continue;
    const double elements =
        static_cast<double>(k.m) * static_cast<double>(k.n) * static_cast<double>(k.batch);
    k.accumulate_bytes = elements * bytes_per_element;
    // The tensor it adds into: P.weight for P.wgrad (or the alias).
    const std::string_view gemm = name.substr(0, name.size() - kWgrad.size());
    const std::string weight = !alias_gemm.empty() && name == alias_gemm
                                   ? std::string(alias)
                                   : std::string(gemm) + ".weight";
    for (size_t g = 0; g < block.params.size(); ++g)
      for (const ParamTensor& t : block.params[g].tensors)
        if (t.name == weight) fused[g] += t.local_elements();
  }
  return fused;
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

Kernel backward_of(const Kernel& fwd, double bytes) {
  Kernel b = memory(fwd.name + ".bwd", fwd.op, bytes);
  // A norm's or a (gated) activation's backward is a kernel of the backward class.
  if (fwd.kernel_class == KernelClass::kNormForward) b.kernel_class = KernelClass::kNormBackward;
  if (fwd.kernel_class == KernelClass::kActivationForward)
    b.kernel_class = KernelClass::kActivationBackward;
  if (fwd.kernel_class == KernelClass::kGatedForward) b.kernel_class = KernelClass::kGatedBackward;
  return b;
}

void push_partial_sum_exit(std::vector<Kernel>& ks, bool sp, bool tp, const std::string& name,
                           double bytes, const std::string& sp_reason,
                           const std::string& tp_reason) {
  if (sp)
    ks.push_back(collective(name + ".reducescatter", CollectiveKind::kReduceScatter, bytes, sp_reason));
  else if (tp)
    ks.push_back(collective(name + ".allreduce", CollectiveKind::kAllReduce, bytes, tp_reason));
}

Result<Dims> dims_of(const TransformerShape& x) {
  const TransformerSpec& m = x.spec;
  if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.seq <= 0 || m.vocab < 0 ||
      x.micro_batch <= 0 || x.tensor <= 0)
    return Status::error(
        "transformer: found a non-positive dimension; expected layers, hidden, heads, seq, "
        "micro-batch and tensor degree >= 1 and vocab >= 0");
  if (x.context <= 0 || m.seq % x.context != 0)
    return Status::error("transformer: found context " + std::to_string(x.context) + " with seq " +
                         std::to_string(m.seq) + "; expected a divisor of seq");
  Dims d{};
  d.b = x.micro_batch;
  d.cp = x.context;
  d.s = m.seq / x.context;
  d.s_kv = m.seq;
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
  d.dh = m.head_width();
  d.q = d.a * d.dh;
  d.tokens = d.b * d.s;
  d.local_tokens = d.sp ? d.tokens / d.t : d.tokens;
  return d;
}

void set_dtypes(BlockTemplate& b, DType dt) {
  for (auto* ks : {&b.forward, &b.recompute, &b.backward})
    for (Kernel& k : *ks)
      if (k.dtype != DType::kFP8) k.dtype = dt;
}

}  // namespace block_detail

using namespace block_detail;

std::vector<double> expert_rank_loads(const MoeSpec& moe, int ep) {
  ep = std::max(1, ep);
  std::vector<double> loads(static_cast<size_t>(ep), 1.0);
  if (ep == 1 || !moe.enabled() || moe.capacity_factor > 0) return loads;
  if (!moe.load.empty() && static_cast<std::int64_t>(moe.load.size()) == moe.experts) {
    double total = 0;
    for (double w : moe.load) total += w;
    const std::int64_t per = moe.experts / ep;
    for (int j = 0; j < ep; ++j) {
      double mine = 0;
      for (std::int64_t x = 0; x < per; ++x) mine += moe.load[static_cast<size_t>(j * per + x)];
      loads[static_cast<size_t>(j)] = total > 0 ? mine * ep / total : 1.0;
    }
    return loads;
  }
  // The busiest rank at `imbalance` (at most ep: all tokens), the rest even.
  const double f = std::min(moe.imbalance, static_cast<double>(ep));
  loads[0] = f;
  for (int j = 1; j < ep; ++j) loads[static_cast<size_t>(j)] = (ep - f) / (ep - 1);
  return loads;
}

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

double ParamGroup::fp8_elements() const {
  double n = 0;
  for (const ParamTensor& t : tensors)
    if (t.fp8) n += t.local_elements();
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

double BlockTemplate::fp8_weight_elements() const {
  double n = 0;
  for (const ParamGroup& g : params) n += g.fp8_elements();
  return n;
}

TransformerShape transformer_shape(const Scenario& sc) {
  TransformerShape shape;
  shape.spec = sc.transformer;
  shape.micro_batch = micro_batch_size(sc);
  shape.tensor = sc.strategy.tensor;
  shape.expert = sc.strategy.expert;
  shape.context = sc.strategy.context;
  shape.data = sc.strategy.data;
  shape.amax_over_data = sc.training.fp8_amax_group == Fp8AmaxGroup::kTensorDataContext;
  shape.sequence_parallel = sc.strategy.sequence_parallel;
  shape.recompute = sc.training.inference ? Recompute::kNone : sc.training.recompute;
  shape.recompute_block = shape.recompute == Recompute::kFull &&
                          sc.training.recompute_method == RecomputeMethod::kBlock;
  shape.fp8 = sc.training.fp8;
  shape.fp8_scaling = sc.training.fp8_scaling;
  // Which kernel runs `attention: flash`: FlashAttention-2's under
  // Megatron-LM's own layers or `flash`; Transformer Engine's FusedAttention
  // (cuDNN's kernel) under `fused`, and under `auto` with TE's layers, TE's
  // choice, which the kernel's time makes per device: cuDNN's measured rates
  // where the device's profile has them (the Hopper presets: TE prefers
  // cuDNN's kernel on Hopper), FlashAttention-2's elsewhere (TE runs
  // FlashAttention there) -- flash_attention_rates, core/profile.cpp.
  shape.cudnn_attention =
      sc.training.attention_backend == AttentionBackend::kFused ||
      (sc.training.attention_backend == AttentionBackend::kAuto &&
       sc.training.transformer_impl == TransformerImpl::kTransformerEngine);
  shape.tp_comm_overlap = sc.training.tp_comm_overlap && !sc.training.inference;
  shape.tp_backward_overlap = sc.training.tp_backward_overlap && !sc.training.inference;
  shape.ub = sc.training.tp_overlap;
  if (!sc.training.inference) {
    const double e = dtype_bytes(sc.transformer.dtype);
    const double g = sc.training.main_grad_fp32 ? 4.0 : e;
    // What the fused GEMMs leave to an add of its own (the embedding's,
    // the norms', the biases', the router's gradients), or every gradient
    // without the fusion.
    shape.grad_accumulate_bytes = e + 2 * g;
    if (sc.training.gradient_accumulation_fusion) shape.fused_accumulate_bytes = 2 * g - e;
  }
  shape.loss = !sc.training.inference;
  // An inference step runs the model in eval mode: dropout is the identity
  // whatever its probability (no mask written).
  if (sc.training.inference) shape.spec.hidden_dropout = shape.spec.attention_dropout = 0;
  shape.cross_entropy_fusion = sc.training.cross_entropy_fusion;
  shape.local_layers = sc.training.transformer_impl == TransformerImpl::kLocal;
  return shape;
}

std::int64_t block_recompute_layers(const Scenario& sc) {
  const TrainingSpec& tr = sc.training;
  if (tr.inference || tr.recompute != Recompute::kFull ||
      tr.recompute_method != RecomputeMethod::kBlock)
    return -1;
  return tr.recompute_num_layers;
}

std::int64_t kept_layers_per_chunk(const Scenario& sc, std::int64_t layers_per_chunk) {
  return kept_layers_of(layers_per_chunk, block_recompute_layers(sc));
}

double recomputed_layer_fraction(const Scenario& sc) {
  const PipelineSplit split = pipeline_split(sc);
  const std::int64_t cap = block_recompute_layers(sc);
  const std::int64_t n = split.per_chunk;
  if (!split.uneven())
    return n > 0 ? static_cast<double>(n - kept_layers_of(n, cap)) / static_cast<double>(n) : 1.0;
  std::int64_t recomputing = 0, layers = 0;
  for (int vs = 0; vs < split.virtual_stages; ++vs) {
    recomputing += split.layers(vs) - kept_layers_of(split.layers(vs), cap);
    layers += split.layers(vs);
  }
  return layers > 0 ? static_cast<double>(recomputing) / static_cast<double>(layers) : 1.0;
}

Result<BlockTemplate> transformer_layer_kept(const TransformerShape& shape) {
  TransformerShape plain = shape;
  plain.recompute = Recompute::kNone;
  plain.recompute_block = false;
  return transformer_layer(plain);
}

double fp8_weight_extra_bytes(double elements, double e, bool fp8_params) {
  return (kFp8WeightCacheBytesPerElement - (fp8_params ? e : 0.0)) * elements;
}

double fp8_step_cast_bytes(double elements, double e, Fp8Scaling scaling, bool fp8_params,
                           double shards) {
  if (!fp8_params) return fp8_weight_cast_bytes(elements, e, scaling);
  return 2 * elements + (scaling == Fp8Scaling::kTensorwise ? 4 * elements / shards : 0.0);
}

double fp8_step_cast_bytes(const ShardedParameters& w, double e, Fp8Scaling scaling,
                           bool fp8_params, int zero_stage) {
  if (!w.split(zero_stage))
    return fp8_step_cast_bytes(w.total, e, scaling, fp8_params, zero_stage >= 1 ? w.data : 1.0);
  return fp8_step_cast_bytes(w.total - w.experts, e, scaling, fp8_params, w.data) +
         fp8_step_cast_bytes(w.experts, e, scaling, fp8_params, w.expert_data);
}

double fp8_cast_bytes(double elements, double e) {
  return elements * (e + 2);
}

double fp8_weight_cast_bytes(double elements, double e, Fp8Scaling scaling) {
  return fp8_cast_bytes(elements, e) + (scaling == Fp8Scaling::kTensorwise ? elements * e : 0.0);
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
        {"embedding.position", {tensor("embedding.position", {d.s_kv, d.h}, {d.s_kv, d.h})}});
  // Vocabulary-parallel lookup (rows outside this rank's shard are zeros),
  // plus the learned position embedding (rotary positions are applied in
  // every layer instead), then dropout.
  // (hidden_dropout 0: no mask.)
  const double mask = shape.spec.hidden_dropout > 0 ? 1.0 : 0.0;
  Kernel look =
      memory("embedding", OpKind::kEmbedding, T * h * ((learned ? 3 : 2) * d.e + mask));
  look.saved_bytes = Tl * h * mask;  // dropout mask
  E.forward.push_back(look);
  const double hidden_bytes = T * h * d.e;
  push_partial_sum_exit(
      E.forward, d.sp, d.t > 1, "embedding", hidden_bytes,
      tr_text("Reasons",
              "vocabulary-parallel embedding: each rank looked up only its V/t rows; "
              "reduce-scatter the partial embeddings over 'tensor' into sequence shards"),
      tr_text("Reasons",
              "vocabulary-parallel embedding: each rank looked up only its V/t rows; psum over "
              "'tensor'"));
  if (d.sp)
    E.backward.push_back(collective(
        "embedding.bwd.allgather", CollectiveKind::kAllGather, hidden_bytes,
        tr_text("Reasons",
                "sequence parallel backward: gather the embedding gradient's sequence shards "
                "over 'tensor'")));
  // PyTorch's dense embedding backward (F.embedding, Megatron-Core's
  // VocabParallelEmbedding outside its deterministic mode) builds each
  // table's gradient from at::zeros of the whole table
  // (embedding_backward_cuda_kernel, aten/src/ATen/native/cuda/
  // EmbeddingBackwardKernel.cu): V/t x h written, every micro-batch, before
  // the scatter; the position table's (s x h) likewise.
  E.backward.push_back(
      memory("embedding.bwd.zero", OpKind::kElementwise, static_cast<double>(d.v / d.t) * h * d.e));
  if (learned)
    E.backward.push_back(memory("embedding.position.bwd.zero", OpKind::kElementwise,
                                static_cast<double>(d.s_kv) * h * d.e));
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
  add_grad_accumulation(E, shape.grad_accumulate_bytes,
                        mark_fused_accumulation(E, shape.fused_accumulate_bytes));
  set_dtypes(E, shape.spec.dtype);
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
        tr_text("Reasons",
                "sequence parallel: gather the final hidden states' sequence shards over "
                "'tensor' before the vocabulary-parallel logits GEMM")));
  Kernel logits = gemm("head.logits", OpKind::kMatmul, d.tokens, d.v / d.t, d.h);
  logits.saved_bytes = Tl * h * d.e;  // the logits GEMM's input
  H.forward.push_back(logits);
  // The loss: training only (an inference step stops at the logits).
  if (shape.loss) {
    // The vocabulary-parallel cross-entropy's passes over this rank's T x V/t
    // logits (docs/costmodel.md, "The cross-entropy as Megatron-LM runs it").
    const double n = T * v_local;
    const bool cast = d.e != kF32;  // `.float()` of fp32 logits returns them
    if (shape.cross_entropy_fusion) {
      // fusions/fused_cross_entropy.py (Megatron-LM at d98e8a64), each
      // function one compiled kernel (core/jit.py: torch.compile from torch
      // 2.2): the cast and the max, writing the fp32 logits; the subtraction,
      // exp and sum in place; the division.
      H.forward.push_back(
          memory("head.cross_entropy.max", OpKind::kLoss, n * (cast ? d.e + kF32 : kF32)));
      H.forward.push_back(memory("head.cross_entropy.exp", OpKind::kLoss, n * 2 * kF32));
    } else {
      // tensor_parallel/cross_entropy.py (d98e8a64; mpu/cross_entropy.py and
      // gpt_model.py's `output.float()` at de7dc40f, 2021), each a kernel of
      // its own: the cast to fp32, the max, the in-place subtraction, the
      // in-place exp, the sum, then the division below.
      if (cast)
        H.forward.push_back(memory("head.cross_entropy.cast", OpKind::kLoss, n * (d.e + kF32)));
      H.forward.push_back(memory("head.cross_entropy.max", OpKind::kLoss, n * kF32));
      H.forward.push_back(memory("head.cross_entropy.sub", OpKind::kLoss, n * 2 * kF32));
      H.forward.push_back(memory("head.cross_entropy.exp", OpKind::kLoss, n * 2 * kF32));
      H.forward.push_back(memory("head.cross_entropy.sum", OpKind::kLoss, n * kF32));
    }
    // exp_logits.div_(sum): the softmax, kept in fp32 for the backward.
    Kernel ce = memory("head.cross_entropy.div", OpKind::kLoss, n * 2 * kF32);
    ce.saved_bytes = n * kF32;
    H.forward.push_back(ce);
    if (d.t > 1)
      H.forward.push_back(collective(
          "head.loss.allreduce", CollectiveKind::kAllReduce, 3 * T * kF32,
          tr_text("Reasons",
                  "vocabulary-parallel cross-entropy: max, target logit and sum of exponentials "
                  "over the V/t shards; psum over 'tensor' (Megatron-LM issues three "
                  "all-reduces of b*s values; fused here into one)")));
    if (shape.cross_entropy_fusion) {
      // calculate_gradients: the target's subtraction, the scaling and
      // `.to(torch.bfloat16)` in one kernel; autograd casts a bf16 gradient
      // to the logits' width where that differs.
      constexpr double kBF16 = 2;
      H.backward.push_back(memory("head.cross_entropy.bwd", OpKind::kLoss, n * (kF32 + kBF16)));
      if (shape.spec.dtype != DType::kBF16)
        H.backward.push_back(
            memory("head.cross_entropy.bwd.cast", OpKind::kLoss, n * (kBF16 + d.e)));
    } else {
      // grad_input.mul_(grad_output) in place, then the gradient of `.float()`
      // back to the logits' width.
      H.backward.push_back(memory("head.cross_entropy.bwd", OpKind::kLoss, n * 2 * kF32));
      if (cast)
        H.backward.push_back(
            memory("head.cross_entropy.bwd.cast", OpKind::kLoss, n * (kF32 + d.e)));
    }
  }
  H.backward.push_back(gemm("head.logits.dgrad", OpKind::kMatmul, d.tokens, d.h, d.v / d.t));
  Kernel logits_w = gemm("head.logits.wgrad", OpKind::kMatmul, d.v / d.t, d.h, d.tokens);
  if (untied) logits_w.completes_grad = 0;
  H.backward.push_back(logits_w);
  push_partial_sum_exit(
      H.backward, d.sp, d.t > 1, "head.bwd", hidden_bytes,
      tr_text("Reasons",
              "sequence parallel backward: the logits' input gradient is partial over the "
              "vocabulary shards; reduce-scatter it over 'tensor'"),
      tr_text("Reasons",
              "backward of the vocabulary-parallel logits GEMM: its input gradient is a partial "
              "sum over the vocabulary shards; psum over 'tensor'"));
  add_grad_accumulation(H, shape.grad_accumulate_bytes,
                        mark_fused_accumulation(H, shape.fused_accumulate_bytes,
                                                "head.logits.wgrad", "head.output.weight"));
  set_dtypes(H, shape.spec.dtype);
  return H;
}

std::string transformer_variant_label(const TransformerSpec& spec) {
  // Each part through tr_text ("Summary": the plan's one line, shown by the
  // app's teach view); the CLI, without a translator, keeps its words.
  std::vector<std::string> parts;
  const std::int64_t kv = spec.key_value_heads();
  if (kv == 1 && spec.heads > 1)
    parts.push_back(tr_text("Summary", "MQA (1 key/value head)"));
  else if (kv < spec.heads)
    parts.push_back(
        fill_args(tr_text("Summary", "GQA with %1 key/value heads"), {std::to_string(kv)}));
  if (spec.head_dim > 0 && spec.attention_width() != spec.hidden)
    parts.push_back(
        fill_args(tr_text("Summary", "heads of %1"), {std::to_string(spec.head_dim)}));
  if (spec.mlp == MlpKind::kSwiglu)
    parts.push_back(
        fill_args(tr_text("Summary", "SwiGLU FFN %1"), {std::to_string(ffn_width(spec))}));
  else if (spec.ffn_hidden > 0)
    parts.push_back(fill_args(tr_text("Summary", "FFN %1"), {std::to_string(spec.ffn_hidden)}));
  if (spec.moe.enabled()) {
    const MoeSpec& m = spec.moe;
    std::string moe = fill_args(
        tr_text("Summary", "MoE: %1 experts, top-%2, expert FFN %3"),
        {std::to_string(m.experts), std::to_string(m.top_k), std::to_string(m.ffn_hidden)});
    if (m.shared_experts > 0)
      moe += fill_args(tr_text("Summary", ", %1 shared"), {std::to_string(m.shared_experts)});
    if (m.capacity_factor > 0) {
      char cf[32];
      std::snprintf(cf, sizeof cf, "%g", m.capacity_factor);
      moe += fill_args(tr_text("Summary", ", capacity factor %1"), {cf});
    }
    if (m.first_dense > 0 && m.first_dense < spec.layers)
      moe += fill_args(tr_text("Summary", ", first %1 dense"), {std::to_string(m.first_dense)});
    if (m.every > 1)
      moe += fill_args(tr_text("Summary", ", MoE every %1 layers"), {std::to_string(m.every)});
    parts.push_back(moe);
  }
  if (spec.mla.enabled())
    parts.push_back(
        fill_args(tr_text("Summary", "MLA (latent %1)"), {std::to_string(spec.mla.kv_lora_rank)}));
  if (spec.norm == NormKind::kRmsNorm) parts.push_back("RMSNorm");  // a name
  if (spec.qk_norm) parts.push_back(tr_text("Summary", "QK norm"));
  if (spec.positions == PositionKind::kRotary)
    parts.push_back(tr_text("Summary", "rotary positions"));
  if (!spec.tie_embeddings) parts.push_back(tr_text("Summary", "untied output"));
  if (!spec.bias)
    parts.push_back(spec.qkv_bias ? tr_text("Summary", "biases on QKV only")
                                  : tr_text("Summary", "no biases"));
  if (spec.attention == AttentionKernel::kFlash) parts.push_back("FlashAttention");
  const std::string comma = tr_text("Summary", ", ");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : comma) + p;
  return out;
}

bool scatter_gathers_boundary(const StrategySpec& st) {
  return st.pipeline > 1 && st.tensor > 1 && st.pipeline_scatter_gather &&
         st.pipeline_engine == PipelineEngine::kMegatron && !st.sequence_parallel;
}

bool blocks_on_pipeline_sends(const StrategySpec& st) {
  return st.pipeline > 1 && st.pipeline_blocking_sends &&
         st.pipeline_engine == PipelineEngine::kMegatron;
}

RingMergeBytes ring_merge_bytes(int cp, double q, double kv, double lse) {
  RingMergeBytes most;
  if (cp <= 1) return most;
  for (int r = 0; r < cp; ++r) {
    // Forward (AttnFuncWithCP.forward): steps i >= 1 take K and V's first
    // half (i <= r) or Q's second half; the merges follow the steps.
    double f = 4 * kv + q;
    for (int i = 1; i < cp; ++i) f += i <= r ? 2 * kv : q;
    for (int i = 0; i < cp; ++i) f += i <= r ? 3 * q + 2 * lse : 1.5 * q + lse;
    // Backward (AttnFuncWithCP.backward), its steps in the forward's
    // reverse order: step cp - 1 the rank's own (causal) block; from
    // j = cp - r - 1 on, K and V's first half; before j, Q's second half.
    const int j = cp - r - 1;
    double g = 4 * kv + lse;
    for (int i = 0; i < cp; ++i) {
      if (i == cp - 1)
        g += 4 * kv;  // dK, dV concatenated
      else if (i >= j)
        g += 2 * kv + 2 * kv;  // K, V's halves copied; their gradients concatenated
      else
        g += 3 * q + 4 * kv;  // Q's, O's, dO's halves copied; dK, dV concatenated
      // dQ: added whole, copied whole (the last rank's first step), the
      // first half copied and the second added, the second half added or copied.
      if (i > j)
        g += 3 * q;
      else if (i == j)
        g += r == cp - 1 ? 2 * q : q + 1.5 * q;
      else
        g += i > 0 ? 1.5 * q : q;
      // dKV: at the last step added whole (rank 0: its first half added,
      // its second copied); from j on its first half added (copied at the
      // last rank's first step); before j added whole, copied at step 0.
      if (i == cp - 1)
        g += r == 0 ? 3 * kv + 2 * kv : 6 * kv;
      else if (i >= j)
        g += i == 0 && r == cp - 1 ? 2 * kv : 3 * kv;
      else
        g += i > 0 ? 6 * kv : 4 * kv;
    }
    most.forward = std::max(most.forward, f);
    most.backward = std::max(most.backward, g);
  }
  return most;
}

double pipeline_boundary_bytes(const TransformerShape& shape) {
  const TransformerSpec& m = shape.spec;
  const bool sp = shape.sequence_parallel && shape.tensor > 1;
  return static_cast<double>(shape.micro_batch * (m.seq / std::max(1, shape.context))) *
         static_cast<double>(m.hidden) * dtype_bytes(m.dtype) / (sp ? shape.tensor : 1);
}

bool reduces_fp8_amax(const TransformerShape& shape, bool training) {
  return training && shape.fp8 != Fp8Recipe::kNone && shape.fp8_scaling == Fp8Scaling::kDelayed;
}

double fp8_modules_per_layer(const BlockTemplate& layer) {
  double n = 0;
  for (const ParamGroup& g : layer.params)
    if (g.fp8_elements() > 0) n += 1;
  return n;
}

Fp8AmaxReduction fp8_amax_reduction(const TransformerShape& shape, double fp8_modules) {
  Fp8AmaxReduction r;
  if (!(fp8_modules > 0)) return r;
  constexpr double kF32 = 4;
  auto one = [&](std::vector<Kernel>& ks, const char* pass, double entries) {
    const std::string prefix = std::string("fp8.amax.") + pass;
    // The cat: each amax read, the contiguous buffer written.
    ks.push_back(memory(prefix + ".cat", OpKind::kCustom, 2 * kF32 * entries));
    // The AllReduce over the amax group, where it has more than one rank
    // (TE skips a group of one).
    const Kernel::Group group = shape.amax_over_data ? Kernel::Group::kStage
                                : shape.context > 1  ? Kernel::Group::kTensorContext
                                                     : Kernel::Group::kTensor;
    const int ranks = shape.tensor * (group == Kernel::Group::kTensor ? 1 : shape.context) *
                      (group == Kernel::Group::kStage ? shape.data : 1);
    if (ranks > 1) {
      Kernel all = collective(
          prefix + ".allreduce", CollectiveKind::kAllReduce, kF32 * entries,
          group == Kernel::Group::kStage
              ? tr_text("Reasons",
                        "FP8 delayed scaling: the amaxes of the device's FP8 tensors reduced "
                        "(MAX) over 'tensor', 'data' and 'context' once a chunk's pass "
                        "(Transformer Engine's reduce_and_update_fp8_tensors)")
          : group == Kernel::Group::kTensorContext
              ? tr_text("Reasons",
                        "FP8 delayed scaling: the amaxes of the device's FP8 tensors reduced "
                        "(MAX) over 'tensor' and 'context' once a chunk's pass (Transformer "
                        "Engine's reduce_and_update_fp8_tensors)")
              : tr_text("Reasons",
                        "FP8 delayed scaling: the amaxes of the device's FP8 tensors reduced "
                        "(MAX) over 'tensor' once a chunk's pass (Transformer Engine's "
                        "reduce_and_update_fp8_tensors)"));
      all.group = group;
      ks.push_back(std::move(all));
    }
    // The update: the reduced amax read, each history read and written
    // rolled, the scale and its inverse read and written.
    ks.push_back(memory(prefix + ".update", OpKind::kCustom,
                        entries * (kF32 + 2 * kF32 * kFp8AmaxHistory + 4 * kF32)));
    for (Kernel& k : ks) k.dtype = DType::kF32;
  };
  one(r.forward, "fwd", 3 * fp8_modules);
  one(r.backward, "bwd", 2 * fp8_modules);
  return r;
}

}  // namespace brigade::cost
