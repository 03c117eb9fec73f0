// Private to the transformer's block templates (costmodel/transformer_blocks.cpp:
// the embedding, the head and these helpers; costmodel/transformer_blocks_layer.cpp:
// the layer): the kernel builders and the problem dimensions both files use.
// Not part of the library's interface.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost::block_detail {

// A GEMM of m x n outputs over k, `batch` times (2mnk·batch FLOPs).
Kernel gemm(std::string name, OpKind op, std::int64_t m, std::int64_t n, std::int64_t k,
            std::int64_t batch = 1);

// A memory-bound kernel of `bytes` read + written, 0 FLOPs.
Kernel memory(std::string name, OpKind op, double bytes);

// A fused kernel of fixed FLOPs and bytes (FlashAttention's).
Kernel fused(std::string name, OpKind op, double flops, double bytes);

// Fused gradient accumulation (TransformerShape::fused_accumulate_bytes):
// each weight-gradient GEMM of the block's backward (a kGemm named P.wgrad,
// the routed experts' grouped ones included: Megatron-Core's TEGroupedMLP
// and SequentialMLP pass fuse_wgrad_accumulation to Transformer Engine; not
// the router's, a plain torch linear) gets Kernel::accumulate_bytes = its
// output's elements x bytes_per_element. Returns, per parameter group
// (BlockTemplate::params), the local elements whose gradient such a GEMM
// adds into the buffer: tensor P.weight's, or `alias`'s tensor for GEMM
// `alias_gemm` (the head: its logits GEMM completes head.output.weight).
// Nothing marked, all zeros, when `bytes_per_element` is 0.
std::vector<double> mark_fused_accumulation(BlockTemplate& block, double bytes_per_element,
                                            std::string_view alias_gemm = {},
                                            std::string_view alias = {});
// The gradient accumulation no GEMM fuses (TransformerShape::
// grad_accumulate_bytes): after each backward kernel that completes a
// parameter group's gradient, a memory-bound add "GROUP.grad_accumulate" of
// `bytes_per_element` per local element of the group not in `fused`
// (mark_fused_accumulation's; empty: none), which completes the group
// instead; recompute_before follows its kernel. With the fusion on, what is
// left: the embedding's dense gradient, the norms', the biases', the
// router's (Megatron-Core's param hook, main_grad.add_(grad)). One add a
// group, where the hooks add a tensor each. Nothing when
// `bytes_per_element` is 0.
void add_grad_accumulation(BlockTemplate& block, double bytes_per_element,
                           const std::vector<double>& fused = {});

// A tensor-parallel collective of `bytes` (Collective::bytes) and why it is there.
Kernel collective(std::string name, CollectiveKind kind, double bytes, std::string reason);

// A parameter tensor, tensor-sharded when its local shape differs from its global one.
ParamTensor tensor(std::string name, std::vector<std::int64_t> global,
                   std::vector<std::int64_t> local);

// The backward of a memory-bound kernel reads what its forward saved and the
// output gradient and writes the input gradient; each caller states its
// bytes (a LayerNorm or GELU of one input: 3 passes to the forward's 2).
Kernel backward_of(const Kernel& fwd, double bytes);

// The exit of a row-parallel region (or of the vocabulary-parallel lookup):
// each rank holds a partial sum over its shard of the tensor group. Without
// sequence parallelism an AllReduce sums it (Shoeybi et al. 2019 §3, the g
// operator); with it a ReduceScatter sums it into sequence shards
// (Korthikanti et al. 2022 §4.2.2). `name` gets ".allreduce" or
// ".reducescatter"; t = 1 needs neither.
void push_partial_sum_exit(std::vector<Kernel>& ks, bool sp, bool tp, const std::string& name,
                           double bytes, const std::string& sp_reason,
                           const std::string& tp_reason);

// Problem dimensions, per tensor-parallel rank and micro-batch.
struct Dims {
  std::int64_t b, s, h, a, t, f, v, dh;  // s: positions on this rank (seq/context)
  std::int64_t q;             // the query heads' width a x dh (h unless head_dim says otherwise)
  std::int64_t s_kv;          // keys each query attends to: the whole sequence
  int cp;                     // context-parallel degree
  std::int64_t kv;            // key/value heads (a for MHA)
  std::int64_t tokens;        // b*s: rows of every GEMM
  std::int64_t local_tokens;  // rows of memory-bound regions (b*s/t with sequence parallelism)
  double e;                   // bytes per element
  bool sp;
};

// check_plan has checked divisibility (heads, FFN width, vocabulary by t;
// the sequence too under SP): only positivity is guarded here, against
// division by zero from shapes built in code.
Result<Dims> dims_of(const TransformerShape& x);

// Every kernel not made FP8 computes in the model's dtype.
void set_dtypes(BlockTemplate& b, DType dt);

// ---- Rewrites of a layer's kernel list (transformer_blocks_rewrites.cpp) ----

// The index of the first kernel named `name`, or ks.size().
size_t index_of(const std::vector<Kernel>& ks, const std::string& name);

// `k` put right before (after) the first kernel named `anchor`; nothing
// where there is none. Before: ahead of a collective beside the anchor too
// (Kernel::beside: a collective stays right before its GEMM).
void insert_before(std::vector<Kernel>& ks, const std::string& anchor, Kernel k);
void insert_after(std::vector<Kernel>& ks, const std::string& anchor, Kernel k);

// FP8 under sequence parallelism: the all-gather `ag` moves FP8 (1 B an
// element), its cast `cast` (where there is one) moved before it onto the
// local shard (Transformer Engine v1.8's _LayerNormLinear and
// grad_output_preprocess).
void fp8_gather_first(std::vector<Kernel>& ks, const std::string& ag, const std::string& cast,
                      int t, double e);

// Transformer Engine's userbuffers overlaps (training.tp_comm_overlap): the
// all-gather `ag` before GEMM `gemm` as a ring exchange beside its first
// t - 1 row chunks; the reduce-scatter `rs` after GEMM `gemm` pipelined in
// chunks; a column-parallel backward's re-gather beside its input gradient
// and its reduce-scatter beside its weight gradient (bulk, or NCCL's
// asynchronous collectives without `userbuffers`).
void ring_exchange_gather(std::vector<Kernel>& ks, const std::string& ag, const std::string& cast,
                          const std::string& gemm, int t, double e, bool fp8, const UbOverlap& u);
void pipelined_scatter(std::vector<Kernel>& ks, const std::string& gemm, const std::string& rs,
                       int t, double e, bool fp8, const UbOverlap& u);
void bulk_backward(std::vector<Kernel>& ks, const std::string& regather, const std::string& dgrad,
                   const std::string& wgrad, const std::string& rs, const UbOverlap& ud,
                   const UbOverlap& uw, bool userbuffers);

// FP8 current scaling: before each cast "NAME.cast" an amax pass (unless
// `fused_amax` names it), an amax all-reduce over 'tensor' (where `reduced`
// names it) and the scale kernel.
void current_scaling(std::vector<Kernel>& ks, double e, const std::vector<std::string>& fused_amax,
                     const std::vector<std::string>& reduced);

}  // namespace brigade::cost::block_detail
