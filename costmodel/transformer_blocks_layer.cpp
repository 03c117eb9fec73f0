// The transformer layer's block template (transformer_blocks.hpp): its
// kernels, collectives, parameters and recomputation, as Megatron-LM runs them.
#include "costmodel/transformer_blocks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tr.hpp"
#include "costmodel/transformer_blocks_internal.hpp"

namespace brigade::cost {

using namespace block_detail;

namespace {

// FlashAttention-2's tile edges (Dao 2023, §3.3: 128 x 128 blocks for head
// dimension 128 on A100/H100): the forward reads K and V once per block of
// kFlashBlock query rows, the backward Q, dO and dQ once per block of
// kFlashBlock key rows.
constexpr double kFlashBlock = 128;

// Marks a fused kernel as FlashAttention's, with its shape for the
// profile's measured rates: m = sequence length, k = head dimension.
Kernel flash_kernel(Kernel x, KernelClass c, double s, double dh) {
  x.kernel_class = c;
  x.m = static_cast<std::int64_t>(s);
  x.k = static_cast<std::int64_t>(dh);
  return x;
}

// The fused attention forward of one micro-batch on one tensor rank (heads
// `ap` of head dimension dh, `s` query positions against `skv` keys, b
// sequences; s = skv but under context parallelism): scores, softmax and
// values in one kernel (Dao 2023, Algorithm 1). FLOPs: QK^T and PV, 4 s skv dh
// per head (causal masking's skipped tiles not subtracted, as the unfused
// count does not). Bytes: Q read and O written once, K and V read once per
// query block, the log-sum-exp (fp32) written.
Kernel flash_forward(double b, double ap, double s, double skv, double dh, double e,
                     bool cudnn) {
  const double blocks = std::ceil(s / kFlashBlock);
  const double flops = 4 * b * ap * s * skv * dh;
  const double bytes = b * ap * dh * e * (2 * s + 2 * skv * blocks) + b * ap * s * 4;
  // The rate by the queries' length (s: the rank's positions under context
  // parallelism, whose blocks are that long).
  return flash_kernel(fused("attn.flash", OpKind::kSoftmax, flops, bytes),
                      cudnn ? KernelClass::kFusedAttentionForward : KernelClass::kFlashForward, s,
                      dh);
}

// Its backward (Dao 2023, Algorithm 2): recomputes QK^T, then dV = P^T dO,
// dP = dO V^T, dQ = dS K, dK = dS^T Q: 10 s skv dh per head, 2.5 x the
// forward. Bytes: the preprocessing D = rowsum(dO * O) reads O and dO; per
// key block K, V read and dK, dV written once; per key block Q and dO read
// and dQ read and written; the log-sum-exp and D (fp32) read.
Kernel flash_backward(double b, double ap, double s, double skv, double dh, double e,
                      bool cudnn) {
  const double blocks = std::ceil(skv / kFlashBlock);
  const double flops = 10 * b * ap * s * skv * dh;
  const double bytes = b * ap * dh * e * (2 * s + 4 * skv + 4 * s * blocks) + b * ap * s * 4 * 3;
  return flash_kernel(fused("attn.flash.bwd", OpKind::kSoftmax, flops, bytes),
                      cudnn ? KernelClass::kFusedAttentionBackward : KernelClass::kFlashBackward,
                      s, dh);
}

// What op-level checkpointing needs of a dense layer's shape (bytes are
// this rank's, per micro-batch).
struct OpLevelShape {
  bool fp8;            // the linears run FP8 GEMMs (not aten.mm)
  bool gated;          // SwiGLU: w1, w3, w2; else fc1, fc2
  bool q_transformed;  // RoPE or QK-norm stands between Q's GEMM and the attention
  double q_bytes, kv_bytes, lse_bytes;
  double ffn_bytes;      // one (b, s, f/t) GEMM output
  double hidden_bytes;   // one (b, s, h) GEMM output (partial sums under 'tensor')
  double shard_bytes;    // one reduce-scatter's output (b, s/t, h)
  std::int64_t k_cols;   // K's columns of the fused QKV GEMM on this rank
  std::int64_t w3_cols;  // w3's columns of the fused fc1 GEMM on this rank
};

// torchtitan's op-level selective checkpointing (activation_checkpoint mode
// selective, selective_ac_option 'op'; torchtitan/models/llama3/
// parallelize_llama.py at e7c0cae: _save_list, _custom_policy). PyTorch's
// checkpoint replays the layer's forward before its backward and takes
// from its cache the outputs the policy saves: aten.mm's but every second
// one's, counted in the order the layer calls its linears (wq, wk, wv, wo,
// then w1, w3, w2, or fc1, fc2 ungated: Q, V, w1 or fc1 and w2 kept; K, the
// output projection, w3 or fc2 replayed), SDPA's flash kernel's (output and
// log-sum-exp), the functional reduce-scatters' (sequence parallelism's).
// FP8 GEMMs are not aten.mm (torch._scaled_mm, Transformer Engine's own
// GEMM): the policy keeps none of them and every linear replays. The fused
// QKV and fc1 GEMMs of the template replay K's and w3's columns only.
//
// Memory: between the passes the layer keeps its input and those outputs
// (the forward's saved_bytes); the replay makes what the backward reads
// and the cache does not hold, taken as the layer's unrecomputed
// activations less what is kept and read (the recompute's saved_bytes,
// spread over the replayed kernels by their own), so that during its
// backward a layer holds what it would hold without recomputation, plus
// the kept outputs no backward reads (Q before RoPE, w2's output, the
// reduce-scatters' shards).
void op_level_recompute(BlockTemplate& L, const OpLevelShape& x) {
  std::vector<Kernel>& F = L.forward;
  double unrecomputed = 0;
  for (const Kernel& k : F) unrecomputed += k.saved_bytes;
  double unread = 0;  // kept outputs that no backward reads
  std::vector<Kernel> replay;
  for (size_t i = 0; i < F.size(); ++i) {
    Kernel& k = F[i];
    Kernel r = k;
    bool replayed = true;
    double keep = 0;
    if (i == 0) {
      keep = k.saved_bytes;  // the layer input
      r.saved_bytes = 0;
    } else if (k.name == "attn.flash") {
      replayed = false;
      keep = x.q_bytes + x.lse_bytes;
    } else if (k.is_collective && k.collective == CollectiveKind::kReduceScatter) {
      replayed = false;
      keep = x.shard_bytes;
      unread += keep;
    } else if (!x.fp8 && k.name == "attn.qkv") {
      keep = x.q_bytes + x.kv_bytes;  // Q (mm 1) and V (mm 3)
      if (x.q_transformed) unread += x.q_bytes;
      r.n = x.k_cols;  // K (mm 2)
    } else if (!x.fp8 && k.name == "mlp.fc1") {
      keep = x.ffn_bytes;  // w1's (mm 5) or fc1's output
      if (x.gated)
        r.n = x.w3_cols;  // w3 (mm 6)
      else
        replayed = false;
    } else if (!x.fp8 && k.name == "mlp.fc2" && x.gated) {
      replayed = false;  // w2 (mm 7)
      keep = x.hidden_bytes;
      unread += keep;
    }
    k.saved_bytes = keep;
    if (replayed) replay.push_back(std::move(r));
  }
  double kept = 0;
  for (const Kernel& k : F) kept += k.saved_bytes;
  const double made = std::max(0.0, unrecomputed - (kept - unread));
  double own = 0;
  for (const Kernel& r : replay) own += r.saved_bytes;
  if (own > 0) {
    for (Kernel& r : replay) r.saved_bytes *= made / own;
  } else if (!replay.empty()) {
    replay.back().saved_bytes = made;
  }
  L.recompute = std::move(replay);
  L.recompute_before = 0;
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
  // Elements of one (b, a/t, s, s) tensor (s x seq positions under context parallelism).
  const double scores = b * heads_local * s * static_cast<double>(d.s_kv);
  // Columns of the fused QKV GEMM: a query heads, kv key heads, kv value heads.
  const std::int64_t qkv_cols = (d.a + 2 * d.kv) * d.dh;
  // Columns of fc1: up (GeLU), or gate and up (SwiGLU, one column-parallel GEMM).
  const std::int64_t fc1_cols = swiglu ? 2 * d.f : d.f;
  const std::int64_t fc1p = fc1_cols / d.t;
  const double q_bytes = T * heads_local * dh * e;  // Q (or an expanded K or V) on this rank
  const double kv_bytes = T * kv_local * dh * e;    // K or V as projected on this rank
  // Transformer Engine's copies and merges around a context ring's
  // attention kernels, on the rank that moves the most (none for cp = 1).
  const RingMergeBytes merge = ring_merge_bytes(d.cp, q_bytes, kv_bytes, T * heads_local * 4);
  // FP8 (Transformer Engine, Megatron-Core's TE linear layers; Micikevicius
  // et al. 2022): each linear layer's GEMMs (forward, dgrad, wgrad) in FP8;
  // before the forward GEMM its input, before the dgrad its output gradient
  // cast to FP8 (fp8_cast_bytes); the input saved for the wgrad in FP8
  // (a_e bytes an element instead of e).
  const bool fp8 = shape.fp8 != Fp8Recipe::kNone;
  const double a_e = fp8 ? 1.0 : e;
  auto linear_gemm = [&](Kernel g) {
    if (fp8) g.dtype = DType::kFP8;
    return g;
  };
  // Their input- and weight-gradient GEMMs promote the FP8 partial sums to
  // FP32 every few instructions (TE's _2X_ACC_DGRAD and _2X_ACC_WGRAD, v1.8
  // module/base.py; its recipes' fp8_gemm_dgrad and fp8_gemm_wgrad in 2.x:
  // cuBLASLt's fast accumulation off), where the forward's accumulate fast
  // (KernelClass::kGemmSplitAccumulator; docs/costmodel.md, "FP8 training").
  auto linear_grad_gemm = [&](Kernel g) {
    g = linear_gemm(std::move(g));
    if (fp8) g.kernel_class = KernelClass::kGemmSplitAccumulator;
    return g;
  };
  // Delayed scaling as Transformer Engine 1.x runs it (v1.8 to v1.13, the
  // NeMo 24.x containers'): a LayerNormLinear's norm writes FP8 itself, no
  // cast of its own; under sequence parallelism a Linear's input and a
  // row-parallel output gradient are cast without their transposes, which
  // the weight gradients make of the gathered FP8 (docs/costmodel.md,
  // "Where TE 1.x casts and transposes"; the transposes below). Current
  // scaling (TE 2.x) casts every input after a 16-bit norm, with its
  // transpose.
  const bool te1 = fp8 && shape.fp8_scaling == Fp8Scaling::kDelayed;
  const bool cast_alone = te1 && sp && tp;  // cast_to_fp8, the transpose later
  auto push_cast = [&](std::vector<Kernel>& ks, const std::string& name, double elements,
                       bool transposed = true) {
    if (fp8)
      ks.push_back(memory(name + ".cast", OpKind::kElementwise,
                          transposed ? fp8_cast_bytes(elements, e) : elements * (e + 1)));
  };

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
    g.tensors[0].fp8 = fp8;  // every `linear` here is one of Transformer Engine's
    if (with_bias) g.tensors.push_back(tensor(name + ".bias", {bias_global}, {bias_local}));
    return g;
  };
  // Mixture of experts (every layer MoE: check_plan refuses mixed layers
  // and expert parallelism for now): E experts of width fe on every rank,
  // their columns split over 'tensor' as Megatron-Core's experts with
  // expert_tensor_parallel_size = tensor; the router h x E replicated.
  const MoeSpec& moe = spec.moe;
  const bool is_moe = moe.enabled();
  const std::int64_t E = is_moe ? moe.experts : 0;
  const std::int64_t fe = is_moe ? moe.ffn_hidden : 0;
  const std::int64_t fep = fe / d.t;                // one expert's FFN columns on this rank
  const std::int64_t fc1e = (swiglu ? 2 : 1) * fe;  // one expert's fc1 columns
  const std::int64_t fc1ep = fc1e / d.t;
  const std::int64_t ns = is_moe ? moe.shared_experts : 0;
  // Routed rows per expert (balanced, dropless: T k / E; with a capacity
  // factor c, padded to c T k / E), rounded up to whole rows.
  // Expert parallelism (ep ranks of the data group, tensor 1: check_plan):
  // each rank holds El = E/ep experts and receives, on average, the ep x T k
  // / E tokens its experts were routed from the ep ranks' micro-batches.
  const int ep = is_moe ? std::max(1, shape.expert) : 1;
  const std::int64_t El = is_moe ? E / ep : 0;
  const double cf = moe.capacity_factor > 0 ? moe.capacity_factor : 1.0;
  const double rows_mean = is_moe ? static_cast<double>(ep) * T * static_cast<double>(moe.top_k) *
                                        cf / static_cast<double>(E)
                                  : 0;
  double busiest = 1;
  if (is_moe)
    for (double x : expert_rank_loads(moe, ep)) busiest = std::max(busiest, x);
  const std::int64_t rows = static_cast<std::int64_t>(std::ceil(rows_mean * busiest));
  const double routed_elems =
      static_cast<double>(rows) * static_cast<double>(El);  // rows over local experts
  // The dispatch and combine AllToAll: each rank sends its T k token copies
  // (padded to capacity c T k) of h elements (Megatron-Core's
  // MoEAlltoAllTokenDispatcher; nccl-tests' size: what each rank holds).
  const double a2a_bytes = T * static_cast<double>(is_moe ? moe.top_k : 0) * cf * h * e;
  if (is_moe) {
    auto experts = [&](const std::string& name, std::int64_t in, std::int64_t out,
                       std::int64_t out_local, bool column) {
      ParamGroup g{name,
                   {tensor(name + ".weight", {E, in, out},
                           {El, column ? in : in / d.t, column ? out_local : out})}};
      if (spec.bias) {
        const std::int64_t bias_local = column ? out_local : out;
        g.tensors.push_back(tensor(name + ".bias", {E, out}, {El, bias_local}));
      }
      // Split over experts, not over 'tensor': replicated_elements (what
      // sequence parallelism sums over 'tensor') must not count them.
      for (ParamTensor& pt : g.tensors)
        pt.tensor_sharded = d.t > 1 || pt.global_shape != pt.local_shape;
      g.tensors[0].fp8 = fp8;
      g.expert = ep > 1;
      return g;
    };
    L.params = {experts("moe.experts.fc2", fe, d.h, d.h, false),
                experts("moe.experts.fc1", d.h, fc1e, fc1ep, true),
                ParamGroup{"moe.router", {tensor("moe.router.weight", {d.h, E}, {d.h, E})}}};
    if (ns > 0) {
      L.params.push_back(
          linear("moe.shared.fc2", {ns * fe, d.h}, {ns * fep, d.h}, spec.bias, d.h, d.h));
      L.params.push_back(linear("moe.shared.fc1", {d.h, ns * fc1e}, {d.h, ns * fc1ep}, spec.bias,
                                ns * fc1e, ns * fc1ep));
    }
  } else {
    L.params = {
        linear("mlp.fc2", {d.f, d.h}, {fp, d.h}, spec.bias, d.h, d.h),
        linear("mlp.fc1", {d.h, fc1_cols}, {d.h, fc1p}, spec.bias, fc1_cols, fc1p),
    };
  }
  const int mlp_groups = static_cast<int>(L.params.size());
  L.params.push_back(norm("ln2"));
  L.params.push_back(linear("attn.proj", {d.q, d.h}, {d.q / d.t, d.h}, spec.bias, d.h, d.h));
  L.params.push_back(linear("attn.qkv", {d.h, qkv_cols}, {d.h, qkv_cols / d.t}, qkv_bias, qkv_cols,
                            qkv_cols / d.t));
  L.params.push_back(norm("ln1"));
  // QK normalization (qk_norm; Megatron-Core's q_layernorm and k_layernorm,
  // the layer's norm over each head's head_dim): a gain (and a bias under
  // LayerNorm) of head_dim each, whole on every tensor rank.
  if (spec.qk_norm) {
    ParamGroup g{"attn.qk_norm",
                 {tensor("attn.q_norm.weight", {d.dh}, {d.dh}),
                  tensor("attn.k_norm.weight", {d.dh}, {d.dh})}};
    if (spec.norm == NormKind::kLayerNorm) {
      g.tensors.push_back(tensor("attn.q_norm.bias", {d.dh}, {d.dh}));
      g.tensors.push_back(tensor("attn.k_norm.bias", {d.dh}, {d.dh}));
    }
    L.params.push_back(std::move(g));
  }
  // Indices of the groups (the dense MLP's fc2, fc1; a MoE's experts' fc2,
  // fc1, router, shared fc2, shared fc1), then the attention's.
  const int kFc2 = 0, kFc1 = 1, kRouter = 2, kSharedFc2 = 3, kSharedFc1 = 4;
  const int kLn2 = mlp_groups, kProj = mlp_groups + 1, kQkv = mlp_groups + 2, kLn1 = mlp_groups + 3;
  const int kQkNorm = mlp_groups + 4;

  // Activation bytes kept for the backward, per Korthikanti et al. 2022,
  // Section 4.1 (16-bit activations, 1-byte dropout masks): LN inputs,
  // GEMM inputs, Q and K, softmax output, its dropout mask and output, V,
  // the GELU input and the two residual dropout masks.
  const double sh_e = Tl * h * e;  // a (b, s, h) tensor as this rank keeps it
  // Tensors that every tensor rank keeps whole without sequence
  // parallelism (LN inputs, QKV and fc1 inputs, dropout masks), 1/t with it.
  std::vector<Kernel>& F = L.forward;
  // LayerNorm or RMSNorm: one read, one write (Megatron's fused kernels;
  // TE 1.x's writes FP8 under delayed scaling).
  Kernel ln1 = memory("ln1", OpKind::kLayerNorm, Tl * h * (te1 ? e + 1 : 2 * e));
  ln1.kernel_class = KernelClass::kNormForward;  // a profile's norm efficiency
  ln1.saved_bytes = sh_e;  // LN1 input (the layer input)
  F.push_back(ln1);
  if (sp)
    F.push_back(
        collective("attn.allgather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel: gather the LayerNorm output's sequence shards "
                           "over 'tensor' before the column-parallel QKV GEMM")));
  if (!te1) push_cast(F, "attn.qkv", T * h);
  Kernel qkv = linear_gemm(gemm("attn.qkv", OpKind::kMatmul, d.tokens, qkv_cols / d.t, d.h));
  qkv.saved_bytes = Tl * h * a_e;  // QKV input (the shard, re-gathered in backward, with SP)
  F.push_back(qkv);
  // Bias gradients (docs/costmodel.md, "Bias gradients and the LayerNorm
  // backward"). Megatron-LM's own QKV layer adds its bias by a pass of its
  // own (mpu/layers.py at de7dc40f: F.linear of a 3-D input, PyTorch's
  // matmul then `add_`; core/tensor_parallel/layers.py: `output + bias`)
  // and reduces its gradient by another (autograd's sum_to; `grad_output.
  // sum(dim=0)`); Transformer Engine's adds it in the GEMM and reduces it
  // in the weight-gradient GEMM's epilogue. The projection's, fc1's and
  // fc2's biases are returned unadded (skip_bias_add) under both and added
  // in the fused bias-dropout-add and bias-GeLU kernels; autograd reduces
  // their gradients over the tokens, a pass each in the backward.
  const bool qkv_bias_passes = shape.local_layers && qkv_bias;
  const double qkv_out = T * static_cast<double>(qkv_cols / d.t);
  if (qkv_bias_passes) F.push_back(memory("attn.qkv.bias", OpKind::kElementwise, 2 * qkv_out * e));
  auto bias_grad = [&](const std::string& name, double elements) {
    return memory(name + ".bias_grad", OpKind::kElementwise, elements * e);
  };
  // Transformer Engine's attention (flash, under Megatron-Core's TE spec):
  // Megatron-Core splits the QKV output into views of it
  // (get_query_key_value_tensors: SplitAlongDim, then query.reshape to
  // [s, b, np, hn], a copy where the query heads are grouped: under GQA a
  // group's heads are not evenly strided); TE's get_qkv_layout finds a
  // layout for views only in MHA's interleaved sbh3d and otherwise makes
  // each tensor contiguous: V (the rotary embedding gave Q and K new
  // tensors, or the query was copied), K too without the rotary embedding
  // under GQA. The backward's split puts the separate dQ, dK, dV back
  // together (torch.cat in TE's _SplitAlongDim.backward). Megatron-Core
  // core_r0.10.0 (attention.py) and d98e8a64; TE v1.12 attention.py and
  // v2.9 dot_product_attention/utils.py (docs/costmodel.md, "The query, key
  // and value as Megatron-Core hands them to Transformer Engine").
  const bool rotary = spec.positions == PositionKind::kRotary;
  const bool te_split = flash && !shape.local_layers && (gqa || rotary);
  if (te_split && gqa) F.push_back(memory("attn.query.reshape", OpKind::kElementwise, 2 * q_bytes));
  const double kv_copied = (gqa && !rotary ? 2 : 1) * kv_bytes;
  // QK normalization (qk_norm): Q and K as projected on this rank, each
  // normalized over its heads' head_dim before the rotary embedding
  // (Megatron-Core's SelfAttention.get_query_key_value_tensors: the norms,
  // then apply_rotary_pos_emb), a norm kernel each: one read, one write;
  // each keeps its input for the backward.
  Kernel q_norm = memory("attn.q_norm", OpKind::kLayerNorm, 2 * q_bytes);
  Kernel k_norm = memory("attn.k_norm", OpKind::kLayerNorm, 2 * kv_bytes);
  q_norm.kernel_class = k_norm.kernel_class = KernelClass::kNormForward;
  q_norm.saved_bytes = q_bytes;
  k_norm.saved_bytes = kv_bytes;
  if (spec.qk_norm) {
    F.push_back(q_norm);
    F.push_back(k_norm);
  }
  // Rotary embeddings (Su et al. 2021): Q and K rotated in place, read and
  // written once; the rotation is linear, so its backward keeps nothing.
  Kernel rope = memory("attn.rotary", OpKind::kElementwise, 2 * (q_bytes + kv_bytes));
  if (spec.positions == PositionKind::kRotary) F.push_back(rope);
  // Megatron-Core's unfused attention repeats each key/value head over its
  // query group (repeat_interleave) before the batched GEMMs: read K and V,
  // write them for every query head.
  Kernel expand = memory("attn.kv_expand", OpKind::kElementwise, 2 * (kv_bytes + q_bytes));
  if (gqa && !flash) F.push_back(expand);
  Kernel sc = gemm("attn.scores", OpKind::kMatmul, d.s, d.s_kv, d.dh, d.b * ap);
  // Megatron-LM's unfused attention core (megatron/model/transformer.py,
  // CoreAttention.forward, read at 00baee46): the fused scale + causal mask
  // + softmax kernel (FusedScaleMaskSoftmax) reads the scores and writes the
  // probabilities; torch's dropout, a kernel of its own, reads them and
  // writes its output and its 1-byte mask.
  Kernel sm = memory("attn.softmax", OpKind::kSoftmax, scores * 2 * e);
  Kernel dp = memory("attn.dropout", OpKind::kElementwise, scores * (2 * e + 1));
  const bool attention_dropout = spec.attention_dropout > 0;
  Kernel av = gemm("attn.values", OpKind::kMatmul, d.s, d.dh, d.s_kv, d.b * ap);
  // The four are the core's forward pass over its s x s matrices, which a
  // profile may stream at a measured efficiency of its own (the A100's:
  // FlashAttention paper, Appendix E, Megatron's attention; docs/costmodel.md).
  for (Kernel* k : {&sc, &sm, &dp, &av}) k->kernel_class = KernelClass::kAttentionForward;
  // The context layer, (b, a/t, s, d_h) out of the batched GEMM, copied to
  // Megatron's (s, b, a/t·d_h) layout (the same file: permute(2, 0, 1, 3)
  // .contiguous()): read and written once; its backward copies the gradient
  // back.
  Kernel ctx = memory("attn.context", OpKind::kElementwise, 2 * q_bytes);
  if (flash) {
    // Q, K, V and the log-sum-exp (fp32) for the backward; no s x s tensor.
    Kernel fa =
        flash_forward(b, heads_local, s, static_cast<double>(d.s_kv), dh, e, shape.cudnn_attention);
    fa.saved_bytes = q_bytes + 2 * kv_bytes + b * heads_local * s * 4;
    if (d.cp > 1) {
      // Ring attention (Megatron-Core's context parallelism): this rank's K
      // and V chunk goes round the ring, one hop per attention block.
      fa.ring_steps = d.cp;
      fa.ring_bytes = 2 * kv_bytes;
    }
    if (te_split) F.push_back(memory("attn.kv.contiguous", OpKind::kElementwise, 2 * kv_copied));
    F.push_back(fa);
    if (d.cp > 1) F.push_back(memory("attn.ring_merge", OpKind::kElementwise, merge.forward));
  } else {
    sc.saved_bytes = 2 * q_bytes;  // Q and K (K expanded to every query head)
    F.push_back(sc);
    sm.saved_bytes = scores * e;  // softmax output
    F.push_back(sm);
    // (attention_dropout 0: no dropout kernel; the values GEMM reads the
    // softmax output, kept above.)
    if (attention_dropout) {
      dp.saved_bytes = scores * 1;  // dropout mask
      F.push_back(dp);
    }
    av.saved_bytes = (attention_dropout ? scores * e : 0) + q_bytes;  // dropout output + V (expanded)
    F.push_back(av);
    F.push_back(ctx);
  }
  // The projection's input is the heads' outputs, a/t x d_h wide on this
  // rank (h/t unless head_dim says otherwise).
  const double q_local = static_cast<double>(d.q / d.t);
  push_cast(F, "attn.proj", T * q_local, !cast_alone);
  Kernel proj = linear_gemm(gemm("attn.proj", OpKind::kMatmul, d.tokens, d.h, d.q / d.t));
  proj.saved_bytes = T * q_local * a_e;  // projection input
  F.push_back(proj);
  push_partial_sum_exit(
      F, sp, tp, "attn", hidden_bytes,
      tr_text("Reasons",
              "sequence parallel: the row-parallel projection leaves partial sums; "
              "reduce-scatter them over 'tensor' into sequence shards"),
      tr_text("Reasons",
              "Megatron row-parallel attention projection: each rank holds a "
              "partial sum over its heads; psum over 'tensor'"));
  // Bias + dropout + residual add (Megatron's fused bias_dropout_add): reads
  // the projection output and the residual, writes the sum (the next
  // residual and LN2's input) and the mask. Then LayerNorm 2, a kernel of its
  // own (megatron/model/transformer.py, ParallelTransformerLayer.forward:
  // bias_dropout_add_func, then post_attention_layernorm): reads the sum,
  // writes its output.
  // Without hidden dropout (hidden_dropout 0: PyTorch's dropout returns
  // its input) no mask is written or kept, and the backward has no kernel
  // (the sum's gradient goes to both inputs as it is).
  const bool hidden_dropout = spec.hidden_dropout > 0;
  const double mask = hidden_dropout ? 1.0 : 0.0;
  Kernel bda1 = memory("attn.residual", OpKind::kElementwise, Tl * h * (3 * e + mask));
  bda1.saved_bytes = Tl * h * mask;  // dropout mask
  F.push_back(bda1);
  Kernel ln2 = memory("ln2", OpKind::kLayerNorm, Tl * h * (te1 && !is_moe ? e + 1 : 2 * e));
  ln2.kernel_class = KernelClass::kNormForward;
  ln2.saved_bytes = sh_e;  // LN2 input
  F.push_back(ln2);
  if (sp)
    F.push_back(
        collective("mlp.allgather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel: gather the LayerNorm output's sequence shards "
                           "over 'tensor' before the column-parallel fc1 GEMM")));
  Kernel act = swiglu ? memory("mlp.swiglu", OpKind::kElementwise, 3 * T * ffn_local * e)
                      : memory("mlp.gelu", OpKind::kElementwise, 2 * T * ffn_local * e);
  // A MoE layer's kernels (Megatron-Core's MoELayer with its alltoall token
  // dispatcher, grouped GEMMs; Gale et al. 2023, MegaBlocks): the router
  // GEMM (h x E logits), softmax/sigmoid and top-k (fp32 scores), the
  // permutation of each token's k copies into expert order, each expert's
  // fc1, activation and fc2 as one batched GEMM of `rows` rows per expert,
  // the un-permutation weighted by the router's probabilities, and the
  // shared experts as one dense MLP on every token, added in.
  const double permuted_bytes = routed_elems * h * e;  // the tokens in expert order
  const double expert_act =
      routed_elems * static_cast<double>(fep);  // one expert activation's elements
  Kernel router = gemm("moe.router", OpKind::kMatmul, d.tokens, E, d.h);
  Kernel topk = memory("moe.router.topk", OpKind::kSoftmax, T * static_cast<double>(E) * (e + 4));
  Kernel permute = memory("moe.permute", OpKind::kElementwise, T * h * e + permuted_bytes);
  auto routed = [&](Kernel k, int dim) {
    k.routed_rows = rows_mean;
    k.routed_dim = dim;
    return k;
  };
  Kernel efc1 =
      linear_gemm(routed(gemm("moe.experts.fc1", OpKind::kMatmul, rows, fc1ep, d.h, El), 1));
  Kernel eact = swiglu ? memory("moe.experts.swiglu", OpKind::kElementwise, 3 * expert_act * e)
                       : memory("moe.experts.gelu", OpKind::kElementwise, 2 * expert_act * e);
  Kernel efc2 =
      linear_gemm(routed(gemm("moe.experts.fc2", OpKind::kMatmul, rows, d.h, fep, El), 1));
  const std::string ep_s = std::to_string(ep);
  auto alltoall = [&](const std::string& name, const std::string& why) {
    return collective(name, CollectiveKind::kAllToAll, a2a_bytes, why);
  };
  Kernel unpermute = memory("moe.unpermute", OpKind::kElementwise,
                            permuted_bytes + T * h * e + T * static_cast<double>(moe.top_k) * 4);
  const double shared_local = static_cast<double>(ns * fep);
  Kernel sfc1 = linear_gemm(gemm("moe.shared.fc1", OpKind::kMatmul, d.tokens, ns * fc1ep, d.h));
  Kernel sact = swiglu ? memory("moe.shared.swiglu", OpKind::kElementwise, 3 * T * shared_local * e)
                       : memory("moe.shared.gelu", OpKind::kElementwise, 2 * T * shared_local * e);
  Kernel sfc2 = linear_gemm(gemm("moe.shared.fc2", OpKind::kMatmul, d.tokens, d.h, ns * fep));
  // The activations stream at a profile's activation efficiency, SwiGLU at
  // its gated activation's (their backward_of at the backward's).
  for (Kernel* k : {&act, &eact, &sact})
    k->kernel_class = swiglu ? KernelClass::kGatedForward : KernelClass::kActivationForward;
  Kernel sadd = memory("moe.shared.add", OpKind::kElementwise, 3 * T * h * e);
  if (is_moe) {
    router.saved_bytes = sh_e;  // the MLP input (router and shared fc1 weight gradients)
    F.push_back(router);
    topk.saved_bytes = T * static_cast<double>(E) * 4;  // the router's probabilities
    F.push_back(topk);
    F.push_back(permute);
    if (ep > 1)
      F.push_back(alltoall("moe.dispatch.alltoall",
                           fill_args(tr_text("Reasons",
                                             "expert parallel: send each token's top-%1 copies "
                                             "to the ranks of 'expert' (%2 ranks, %3 experts "
                                             "each) that hold their experts"),
                                     {std::to_string(moe.top_k), ep_s, std::to_string(El)})));
    push_cast(F, "moe.experts.fc1", routed_elems * h);
    efc1.saved_bytes = routed_elems * h * a_e;  // the experts' fc1 input
    F.push_back(efc1);
    eact.saved_bytes = (swiglu ? 2 : 1) * expert_act * e;
    F.push_back(eact);
    push_cast(F, "moe.experts.fc2", expert_act);
    efc2.saved_bytes = expert_act * a_e;  // the experts' fc2 input
    F.push_back(efc2);
    if (ep > 1)
      F.push_back(alltoall("moe.combine.alltoall",
                           tr_text("Reasons",
                                   "expert parallel: return the experts' outputs over 'expert' "
                                   "to the ranks whose tokens they were")));
    F.push_back(unpermute);
    if (ns > 0) {
      push_cast(F, "moe.shared.fc1", T * h);
      F.push_back(sfc1);
      sact.saved_bytes = (swiglu ? 2 : 1) * T * shared_local * e;
      F.push_back(sact);
      push_cast(F, "moe.shared.fc2", T * shared_local);
      sfc2.saved_bytes = T * shared_local * a_e;
      F.push_back(sfc2);
      F.push_back(sadd);
    }
  } else {
    if (!te1) push_cast(F, "mlp.fc1", T * h);
    Kernel fc1 = linear_gemm(gemm("mlp.fc1", OpKind::kMatmul, d.tokens, fc1p, d.h));
    fc1.saved_bytes = Tl * h * a_e;  // fc1 input
    F.push_back(fc1);
    // GeLU: bias + GELU, reads and writes (b, s, f/t), keeps its input.
    // SwiGLU: reads gate and up, writes silu(gate) * up, keeps gate and up.
    act.saved_bytes = (swiglu ? 2 : 1) * T * ffn_local * e;
    F.push_back(act);
    push_cast(F, "mlp.fc2", T * ffn_local, !cast_alone);
    Kernel fc2 = linear_gemm(gemm("mlp.fc2", OpKind::kMatmul, d.tokens, d.h, fp));
    fc2.saved_bytes = T * ffn_local * a_e;  // fc2 input
    F.push_back(fc2);
  }
  push_partial_sum_exit(F, sp, tp, "mlp", hidden_bytes,
                        tr_text("Reasons",
                                "sequence parallel: the row-parallel fc2 leaves partial sums; "
                                "reduce-scatter them over 'tensor' into sequence shards"),
                        tr_text("Reasons",
                                "Megatron row-parallel fc2: each rank holds a partial sum over its "
                                "FFN columns; psum over 'tensor'"));
  // Bias + dropout + residual add: reads fc2 output and residual, writes mask and sum.
  Kernel bda2 = memory("mlp.residual", OpKind::kElementwise, Tl * h * (3 * e + mask));
  bda2.saved_bytes = Tl * h * mask;  // dropout mask
  F.push_back(bda2);

  // Backward, in issue order: the reverse of the forward, each GEMM as its
  // input-gradient (dgrad) and weight-gradient (wgrad) GEMMs.
  std::vector<Kernel>& B = L.backward;
  // Residual add backward: the gradient passes to the residual unchanged;
  // dropout's backward reads it and the mask and writes fc2's output gradient.
  if (hidden_dropout) B.push_back(backward_of(bda2, Tl * h * (2 * e + 1)));
  if (spec.bias && !is_moe) B.push_back(bias_grad("mlp.fc2", Tl * h));
  if (sp)
    B.push_back(
        collective("mlp.bwd.allgather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel backward: gather the output gradient's sequence "
                           "shards over 'tensor' (the transpose of the forward reduce-scatter)")));

  if (is_moe) {
    // The un-permutation's backward: reads the output gradient and the
    // probabilities, writes the experts' output gradient in expert order and
    // the probabilities' gradient.
    B.push_back(backward_of(unpermute,
                            T * h * e + permuted_bytes + T * static_cast<double>(moe.top_k) * 8));
    if (ep > 1)
      B.push_back(alltoall("moe.combine.bwd.alltoall",
                           tr_text("Reasons",
                                   "expert parallel backward: send the output gradients of the "
                                   "token copies over 'expert' to the ranks holding their "
                                   "experts (the transpose of the combine)")));
    push_cast(B, "moe.experts.fc2.bwd", routed_elems * h);
    B.push_back(linear_grad_gemm(
        routed(gemm("moe.experts.fc2.dgrad", OpKind::kMatmul, rows, fep, d.h, El), 1)));
    Kernel efc2w = linear_grad_gemm(
        routed(gemm("moe.experts.fc2.wgrad", OpKind::kMatmul, fep, d.h, rows, El), 3));
    efc2w.completes_grad = kFc2;
    B.push_back(efc2w);
    B.push_back(backward_of(eact, (swiglu ? 5 : 3) * expert_act * e));
    push_cast(B, "moe.experts.fc1.bwd", routed_elems * static_cast<double>(fc1ep));
    B.push_back(linear_grad_gemm(
        routed(gemm("moe.experts.fc1.dgrad", OpKind::kMatmul, rows, d.h, fc1ep, El), 1)));
    Kernel efc1w = linear_grad_gemm(
        routed(gemm("moe.experts.fc1.wgrad", OpKind::kMatmul, d.h, fc1ep, rows, El), 3));
    efc1w.completes_grad = kFc1;
    B.push_back(efc1w);
    if (ep > 1)
      B.push_back(alltoall("moe.dispatch.bwd.alltoall",
                           tr_text("Reasons",
                                   "expert parallel backward: return the input gradients of the "
                                   "token copies over 'expert' (the transpose of the dispatch)")));
    // Scatter-add of the k copies' gradients back to the tokens.
    B.push_back(backward_of(permute, permuted_bytes + T * h * e));
    B.push_back(backward_of(topk, T * static_cast<double>(E) * (8 + e)));
    if (sp)
      B.push_back(collective("mlp.bwd.regather", CollectiveKind::kAllGather, hidden_bytes,
                             tr_text("Reasons",
                                     "sequence parallel backward: re-gather the MLP input over "
                                     "'tensor' for the weight gradients (only the sequence "
                                     "shard was kept)")));
    B.push_back(gemm("moe.router.dgrad", OpKind::kMatmul, d.tokens, d.h, E));
    Kernel routerw = gemm("moe.router.wgrad", OpKind::kMatmul, d.h, E, d.tokens);
    routerw.completes_grad = kRouter;
    B.push_back(routerw);
    if (ns > 0) {
      push_cast(B, "moe.shared.fc2.bwd", T * h);
      B.push_back(
          linear_grad_gemm(gemm("moe.shared.fc2.dgrad", OpKind::kMatmul, d.tokens, ns * fep, d.h)));
      Kernel sfc2w =
          linear_grad_gemm(gemm("moe.shared.fc2.wgrad", OpKind::kMatmul, ns * fep, d.h, d.tokens));
      sfc2w.completes_grad = kSharedFc2;
      B.push_back(sfc2w);
      B.push_back(backward_of(sact, (swiglu ? 5 : 3) * T * shared_local * e));
      push_cast(B, "moe.shared.fc1.bwd", T * static_cast<double>(ns * fc1ep));
      B.push_back(linear_grad_gemm(
          gemm("moe.shared.fc1.dgrad", OpKind::kMatmul, d.tokens, d.h, ns * fc1ep)));
      Kernel sfc1w = linear_grad_gemm(
          gemm("moe.shared.fc1.wgrad", OpKind::kMatmul, d.h, ns * fc1ep, d.tokens));
      sfc1w.completes_grad = kSharedFc1;
      B.push_back(sfc1w);
    }
  } else {
    push_cast(B, "mlp.fc2.bwd", T * h, !cast_alone);
    B.push_back(linear_grad_gemm(gemm("mlp.fc2.dgrad", OpKind::kMatmul, d.tokens, fp, d.h)));
    Kernel fc2w = linear_grad_gemm(gemm("mlp.fc2.wgrad", OpKind::kMatmul, fp, d.h, d.tokens));
    fc2w.completes_grad = kFc2;
    B.push_back(fc2w);
    // GeLU: reads input and dy, writes dx. SwiGLU: reads gate, up and dy,
    // writes the gradients of gate and up.
    B.push_back(backward_of(act, (swiglu ? 5 : 3) * T * ffn_local * e));
    if (spec.bias) B.push_back(bias_grad("mlp.fc1", T * static_cast<double>(fc1p)));
    if (sp)
      B.push_back(collective("mlp.bwd.regather", CollectiveKind::kAllGather, T * h * a_e,
                             tr_text("Reasons",
                                     "sequence parallel backward: re-gather fc1's input over "
                                     "'tensor' for its weight gradient (only the sequence shard "
                                     "was kept)")));
    push_cast(B, "mlp.fc1.bwd", T * static_cast<double>(fc1p));
    B.push_back(linear_grad_gemm(gemm("mlp.fc1.dgrad", OpKind::kMatmul, d.tokens, d.h, fc1p)));
    Kernel fc1w = linear_grad_gemm(gemm("mlp.fc1.wgrad", OpKind::kMatmul, d.h, fc1p, d.tokens));
    fc1w.completes_grad = kFc1;
    B.push_back(fc1w);
  }
  push_partial_sum_exit(
      B, sp, tp, "mlp.bwd", hidden_bytes,
      tr_text("Reasons",
              "sequence parallel backward: fc1's input gradient is partial over the "
              "FFN shards; reduce-scatter it over 'tensor' (the transpose of the "
              "forward all-gather)"),
      tr_text("Reasons",
              "backward of the column-parallel fc1: its input gradient is a partial "
              "sum over the FFN columns; psum over 'tensor'"));
  // LN2 backward (reads its input and output gradient, writes the input
  // gradient); autograd then sums that with the residual stream's gradient
  // (LN2's input feeds the second residual add too: read both, write one);
  // the dropout's backward reads the sum and the mask and writes the
  // projection's output gradient (the residual's gradient passes unchanged).
  // apex's LayerNorm backward (Megatron-LM's own, fused_kernels/layer_norm_
  // cuda_kernel.cu at de7dc40f) reads the input and the output gradient
  // twice, in cuComputePartGradGammaBeta and in cuComputeGradInput;
  // Transformer Engine's once.
  const double norm_bwd_passes = shape.local_layers ? 5 : 3;
  Kernel ln2b = backward_of(ln2, norm_bwd_passes * Tl * h * e);
  ln2b.completes_grad = kLn2;
  B.push_back(ln2b);
  B.push_back(memory("ln2.grad_add", OpKind::kElementwise, 3 * Tl * h * e));
  if (hidden_dropout) B.push_back(backward_of(bda1, Tl * h * (2 * e + 1)));
  if (spec.bias) B.push_back(bias_grad("attn.proj", Tl * h));
  if (sp)
    B.push_back(
        collective("attn.bwd.allgather", CollectiveKind::kAllGather, hidden_bytes,
                   tr_text("Reasons",
                           "sequence parallel backward: gather the output gradient's sequence "
                           "shards over 'tensor' (the transpose of the forward reduce-scatter)")));
  push_cast(B, "attn.proj.bwd", T * h, !cast_alone);
  B.push_back(linear_grad_gemm(gemm("attn.proj.dgrad", OpKind::kMatmul, d.tokens, d.q / d.t, d.h)));
  Kernel projw =
      linear_grad_gemm(gemm("attn.proj.wgrad", OpKind::kMatmul, d.q / d.t, d.h, d.tokens));
  projw.completes_grad = kProj;
  B.push_back(projw);
  L.recompute_before = static_cast<int>(B.size());
  if (flash) {
    Kernel fb = flash_backward(b, heads_local, s, static_cast<double>(d.s_kv), dh, e,
                               shape.cudnn_attention);
    if (d.cp > 1) {
      // K and V go round again, with their gradients (dK, dV) accumulating
      // on the way back to their owner.
      fb.ring_steps = d.cp;
      fb.ring_bytes = 4 * kv_bytes;
    }
    B.push_back(fb);
    if (d.cp > 1) B.push_back(memory("attn.ring_merge.bwd", OpKind::kElementwise, merge.backward));
  } else {
    // The context layer's gradient back to (b, a/t, s, d_h).
    B.push_back(backward_of(ctx, ctx.bytes));
    // The core's backward pass over its s x s matrices (its own measured
    // efficiency where the profile has one, as the forward's).
    auto core = [&](Kernel k) {
      k.kernel_class = KernelClass::kAttentionBackward;
      B.push_back(std::move(k));
    };
    // Attention over values: gradients of the probabilities (dO·Vᵀ) and of V (Pᵀ·dO).
    core(gemm("attn.values.dgrad", OpKind::kMatmul, d.s, d.s_kv, d.dh, d.b * ap));
    core(gemm("attn.values.dv", OpKind::kMatmul, d.s_kv, d.dh, d.s, d.b * ap));
    // Dropout backward (reads the gradient and the mask, writes the
    // probabilities' gradient), then the fused softmax backward (reads that
    // gradient and the probabilities, writes the scores' gradient).
    if (attention_dropout) core(backward_of(dp, scores * (2 * e + 1)));
    core(backward_of(sm, scores * 3 * e));
    // Scores: dQ = dS·K and dK = dSᵀ·Q.
    core(gemm("attn.scores.dq", OpKind::kMatmul, d.s, d.dh, d.s_kv, d.b * ap));
    core(gemm("attn.scores.dk", OpKind::kMatmul, d.s_kv, d.dh, d.s, d.b * ap));
    // The expansion's backward sums each group's dK and dV (the same bytes).
    if (gqa) B.push_back(backward_of(expand, expand.bytes));
  }
  if (spec.positions == PositionKind::kRotary) B.push_back(backward_of(rope, rope.bytes));
  if (spec.qk_norm) {
    // Each norm's backward reads its input and the output gradient and
    // writes the input gradient (norm_bwd_passes, as the layer's norms);
    // the second completes the two gains' gradients.
    B.push_back(backward_of(k_norm, norm_bwd_passes * kv_bytes));
    Kernel qb = backward_of(q_norm, norm_bwd_passes * q_bytes);
    qb.completes_grad = kQkNorm;
    B.push_back(qb);
  }
  if (te_split)
    B.push_back(
        memory("attn.qkv.split.bwd", OpKind::kElementwise, 2 * (q_bytes + 2 * kv_bytes)));
  if (qkv_bias_passes) B.push_back(bias_grad("attn.qkv", qkv_out));
  if (sp)
    B.push_back(
        collective("attn.bwd.regather", CollectiveKind::kAllGather, T * h * a_e,
                   tr_text("Reasons",
                           "sequence parallel backward: re-gather the QKV input over 'tensor' "
                           "for its weight gradient (only the sequence shard was kept)")));
  push_cast(B, "attn.qkv.bwd", T * static_cast<double>(qkv_cols / d.t));
  B.push_back(
      linear_grad_gemm(gemm("attn.qkv.dgrad", OpKind::kMatmul, d.tokens, d.h, qkv_cols / d.t)));
  Kernel qkvw =
      linear_grad_gemm(gemm("attn.qkv.wgrad", OpKind::kMatmul, d.h, qkv_cols / d.t, d.tokens));
  qkvw.completes_grad = kQkv;
  B.push_back(qkvw);
  push_partial_sum_exit(B, sp, tp, "attn.bwd", hidden_bytes,
                        tr_text("Reasons",
                                "sequence parallel backward: the QKV input gradient is partial "
                                "over the heads; reduce-scatter it over 'tensor' (the transpose "
                                "of the forward all-gather)"),
                        tr_text("Reasons",
                                "backward of the column-parallel QKV: its input gradient is a "
                                "partial sum over the heads; psum over 'tensor'"));
  Kernel ln1b = backward_of(ln1, norm_bwd_passes * Tl * h * e);  // reads input and dy, writes dx
  ln1b.completes_grad = kLn1;
  B.push_back(ln1b);
  // The layer's input feeds LN1 and the first residual add: autograd sums
  // the two gradients (read both, write one).
  B.push_back(memory("ln1.grad_add", OpKind::kElementwise, 3 * Tl * h * e));

  // Transformer Engine's tensor-parallel overlap (the dense layer's four
  // linear layers; a MoE layer's experts keep their collectives apart).
  if (shape.tp_comm_overlap && sp && tp) {
    const auto& ub = shape.ub;
    auto u = [&](int layer) -> const UbOverlap& { return ub[static_cast<size_t>(layer)]; };
    ring_exchange_gather(F, "attn.allgather", "attn.qkv.cast", "attn.qkv", d.t, e, fp8,
                         u(kUbQkvFprop));
    pipelined_scatter(F, "attn.proj", "attn.reducescatter", d.t, e, fp8, u(kUbProjFprop));
    if (!is_moe) {
      ring_exchange_gather(F, "mlp.allgather", "mlp.fc1.cast", "mlp.fc1", d.t, e, fp8,
                           u(kUbFc1Fprop));
      pipelined_scatter(F, "mlp.fc2", "mlp.reducescatter", d.t, e, fp8, u(kUbFc2Fprop));
      ring_exchange_gather(B, "mlp.bwd.allgather", "mlp.fc2.bwd.cast", "mlp.fc2.dgrad", d.t, e,
                           fp8, u(kUbFc2Dgrad));
      bulk_backward(B, "mlp.bwd.regather", "mlp.fc1.dgrad", "mlp.fc1.wgrad",
                    "mlp.bwd.reducescatter", u(kUbFc1Dgrad), u(kUbFc1Wgrad), true);
    }
    ring_exchange_gather(B, "attn.bwd.allgather", "attn.proj.bwd.cast", "attn.proj.dgrad", d.t, e,
                         fp8, u(kUbProjDgrad));
    bulk_backward(B, "attn.bwd.regather", "attn.qkv.dgrad", "attn.qkv.wgrad",
                  "attn.bwd.reducescatter", u(kUbQkvDgrad), u(kUbQkvWgrad), true);
    L.recompute_before = static_cast<int>(index_of(B, "attn.proj.wgrad")) + 1;
  } else if (shape.tp_backward_overlap && tp) {
    // Megatron-LM's and TE's own asynchronous collectives in the
    // column-parallel backward (NCCL, no SM margin). The pairs are
    // reordered in place, so the recomputation point does not move.
    const char* exit = sp ? ".bwd.reducescatter" : ".bwd.allreduce";
    if (!is_moe)
      bulk_backward(B, "mlp.bwd.regather", "mlp.fc1.dgrad", "mlp.fc1.wgrad",
                    std::string("mlp") + exit, UbOverlap{}, UbOverlap{}, false);
    bulk_backward(B, "attn.bwd.regather", "attn.qkv.dgrad", "attn.qkv.wgrad",
                  std::string("attn") + exit, UbOverlap{}, UbOverlap{}, false);
  }

  // FP8 without userbuffers: the sequence-parallel gathers move FP8, each
  // shard cast before its gather (fp8_gather_first).
  if (fp8 && sp && tp && !shape.tp_comm_overlap) {
    fp8_gather_first(F, "attn.allgather", "attn.qkv.cast", d.t, e);
    fp8_gather_first(B, "attn.bwd.allgather", "attn.proj.bwd.cast", d.t, e);
    if (!is_moe) {
      fp8_gather_first(F, "mlp.allgather", "mlp.fc1.cast", d.t, e);
      fp8_gather_first(B, "mlp.bwd.allgather", "mlp.fc2.bwd.cast", d.t, e);
    }
  }

  // Delayed scaling under TE 1.x: the weight gradients' FP8 transposes
  // (tex.fp8_transpose: read 1, write 1 an element of the whole). A
  // LayerNormLinear's of its gathered (or whole) norm output, right before
  // its weight gradient and the input gradient's asynchronous reduce-scatter
  // that runs beside it (layernorm_linear.py, _LayerNormLinear.backward:
  // ln_out_total_t, after the reduce-scatter's launch: beside the transpose
  // and the GEMM in TE, beside the GEMM alone here); under sequence parallelism a Linear's of its input
  // (linear.py: inputmat_t_total) and a row-parallel layer's of its
  // gathered output gradient (base.py, grad_output_preprocess: right after
  // the gather; with userbuffers before the weight gradient).
  if (te1) {
    auto transpose = [&](const std::string& name, double elements) {
      return memory(name + ".transpose", OpKind::kElementwise, 2 * elements);
    };
    insert_before(B, "attn.qkv.wgrad", transpose("attn.qkv", T * h));
    if (!is_moe) insert_before(B, "mlp.fc1.wgrad", transpose("mlp.fc1", T * h));
    if (cast_alone) {
      struct RowParallel {
        const char* gemm;
        const char* gather;
        double input;
      };
      std::vector<RowParallel> row_parallel = {{"attn.proj", "attn.bwd.allgather", T * q_local}};
      if (!is_moe) row_parallel.push_back({"mlp.fc2", "mlp.bwd.allgather", T * ffn_local});
      for (const RowParallel& r : row_parallel) {
        const std::string wgrad = std::string(r.gemm) + ".wgrad";
        Kernel grad_t = transpose(std::string(r.gemm) + ".bwd", T * h);
        if (shape.tp_comm_overlap)
          insert_before(B, wgrad, std::move(grad_t));
        else
          insert_after(B, r.gather, std::move(grad_t));
        insert_before(B, wgrad, transpose(r.gemm, r.input));
      }
    }
    L.recompute_before = static_cast<int>(index_of(B, "attn.proj.wgrad")) + 1;
  }

  // FP8 current scaling: the amax passes, scale kernels and (sequence
  // parallelism) amax all-reduces before the casts. Transformer Engine
  // takes the amax in the kernel that writes the tensor where that kernel
  // is its own: the QKV and fc1 inputs are its LayerNormLinear's norm output
  // (FUSED_NORM_AMAX_FP8, extensions/normalization.cpp), a biased layer's
  // output gradient is cast with its bias gradient's reduction (extensions/
  // bias.cpp); Megatron-Core's own activation (bias_swiglu_impl,
  // bias_gelu_impl) and the attention's output are cast by TE's Linear with
  // an amax pass of its own. The amax of a tensor that sequence parallelism
  // gathers (a column-parallel layer's input, a row-parallel layer's output
  // gradient) is all-reduced over 'tensor' (module/linear.py,
  // layernorm_linear.py: _customize_quantizers_float8_current_scaling).
  if (fp8 && shape.fp8_scaling == Fp8Scaling::kTensorwise) {
    const bool qkv_biased = spec.bias || spec.qkv_bias;
    std::vector<std::string> fused_amax = {"attn.qkv.cast", "mlp.fc1.cast"};
    if (qkv_biased) fused_amax.push_back("attn.qkv.bwd.cast");
    if (spec.bias)
      for (const char* n : {"attn.proj.bwd.cast", "mlp.fc1.bwd.cast", "mlp.fc2.bwd.cast",
                            "moe.shared.fc1.bwd.cast", "moe.shared.fc2.bwd.cast",
                            "moe.experts.fc1.bwd.cast", "moe.experts.fc2.bwd.cast"})
        fused_amax.emplace_back(n);
    std::vector<std::string> reduced;
    if (sp && tp)
      reduced = {"attn.qkv.cast",      "mlp.fc1.cast",      "moe.shared.fc1.cast",
                 "attn.proj.bwd.cast", "mlp.fc2.bwd.cast", "moe.shared.fc2.bwd.cast"};
    current_scaling(F, e, fused_amax, reduced);
    current_scaling(B, e, fused_amax, reduced);
    L.recompute_before = static_cast<int>(index_of(B, "attn.proj.wgrad")) + 1;
  }

  // Recomputation (Korthikanti et al. 2022, Section 5).
  if (shape.recompute == Recompute::kSelective && !flash) {
    // Keep Q, K, V; drop the softmax output, its mask and the dropout
    // output (the 5as²b term) and recompute the attention core before its
    // backward. (FlashAttention keeps no s x s tensor and recomputes the
    // scores inside its own backward: nothing left to recompute.)
    for (Kernel& k : F) {
      if (k.name == "attn.softmax" || k.name == "attn.dropout") k.saved_bytes = 0;
      if (k.name == "attn.values" && attention_dropout) k.saved_bytes -= scores * e;
    }
    Kernel rs = sc, rm = sm, rd = dp, rv = av;
    rs.saved_bytes = 0;
    rm.saved_bytes = scores * e;        // softmax output
    rd.saved_bytes = scores * (e + 1);  // dropout mask + dropout output
    rv.saved_bytes = 0;
    L.recompute = {rs, rm};
    if (attention_dropout) L.recompute.push_back(rd);
    L.recompute.push_back(rv);
  } else if (shape.recompute == Recompute::kFull) {
    // Keep only the layer input; recompute the whole forward (its
    // tensor-parallel collectives included) before the layer's backward.
    L.recompute = F;
    L.recompute[0].saved_bytes = 0;  // the layer input is kept from the forward
    for (size_t i = 1; i < F.size(); ++i) F[i].saved_bytes = 0;
    L.recompute_before = 0;
  } else if (shape.recompute == Recompute::kOp) {
    op_level_recompute(L, OpLevelShape{fp8, swiglu, rotary || spec.qk_norm, q_bytes, kv_bytes,
                                       b * heads_local * s * 4, T * ffn_local * e, T * h * e,
                                       Tl * h * e, kvp * d.dh, fp});
  }
  for (Kernel& k : L.recompute) k.name += ".recompute";
  add_grad_accumulation(L, shape.grad_accumulate_bytes,
                        mark_fused_accumulation(L, shape.fused_accumulate_bytes));
  set_dtypes(L, spec.dtype);
  return L;
}

}  // namespace brigade::cost
