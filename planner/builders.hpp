// Model builders: the op sequences a model really runs, per device and
// micro-batch, from which the lowering emits tasks.
//
// The transformer is GPT-style as Megatron-LM runs it (Shoeybi et al. 2019;
// Narayanan et al. 2021; Korthikanti et al. 2022): pre-LayerNorm layers of
// LN, QKV GEMM, attention scores (batched GEMM), softmax + dropout,
// attention over values (batched GEMM), output projection, residual add,
// LN, two MLP GEMMs with GELU, residual add; a vocabulary-parallel word
// embedding + learned position embedding; the output logits GEMM tied to the
// word embedding, and a vocabulary-parallel cross-entropy.
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

namespace brigade::planner {

// One kernel of a block template: what one tensor-parallel rank runs for one
// micro-batch. Either compute (GEMM or memory-bound) or a tensor-parallel
// collective that sits on the compute stream between kernels.
struct Kernel {
  std::string name;             // "attn.qkv", "mlp.fc1.dgrad", ...
  OpKind op = OpKind::kCustom;  // the logical op it belongs to
  ComputeKind compute = ComputeKind::kMemoryBound;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;  // kGemm
  double bytes = 0;                             // kMemoryBound: bytes read + written

  bool is_collective = false;  // a tensor-parallel collective, not compute
  CollectiveKind collective = CollectiveKind::kAllReduce;
  double collective_bytes = 0;  // as Collective::bytes (nccl-tests "size")
  std::string reason;           // why the collective is there

  // Activation bytes this forward/recompute kernel keeps for the backward.
  double saved_bytes = 0;
  // Backward kernels: the parameter group whose gradient this kernel
  // completes (index into BlockTemplate::params), or -1.
  int completes_grad = -1;

  double flops() const;  // counted FLOPs: 2mnk·batch for GEMMs, else 0
};

// A parameter tensor of a block, as one tensor-parallel rank holds it.
struct ParamTensor {
  std::string name;  // "attn.qkv.weight"
  std::vector<std::int64_t> global_shape;
  std::vector<std::int64_t> local_shape;  // on one tensor-parallel rank
  bool tensor_sharded = false;            // split over the tensor group (else replicated)
  double local_elements() const;
  double global_elements() const;
};

// Parameters whose gradients one backward kernel completes together.
struct ParamGroup {
  std::string name;  // "mlp.fc2"
  std::vector<ParamTensor> tensors;
  double local_elements() const;
  double replicated_elements() const;  // elements not split over the tensor group
};

// A layer (or the embedding, or the output head) for one micro-batch on one
// tensor-parallel rank.
struct BlockTemplate {
  std::string name;               // "layer", "embedding", "head"
  std::vector<Kernel> forward;    // in issue order
  std::vector<Kernel> recompute;  // run just before `backward` (Phase::kRecompute)
  std::vector<Kernel> backward;   // in issue order
  std::vector<ParamGroup> params;
  // Index into `backward` before which `recompute` runs (selective
  // recomputation recomputes the attention core right before its backward).
  int recompute_before = 0;
  double saved_bytes() const;            // sum of forward kernels' saved bytes
  double recompute_saved_bytes() const;  // sum of recompute kernels' saved bytes
  double local_param_elements() const;
  double forward_flops() const;
  double backward_flops() const;
  double recompute_flops() const;
};

// The shape of the work: a transformer as one tensor-parallel rank of one
// pipeline stage sees it for one micro-batch.
struct TransformerShape {
  TransformerSpec spec;
  std::int64_t micro_batch = 1;  // b: sequences per micro-batch
  int tensor = 1;                // t
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
};

// The three block kinds. Errors when a dimension does not divide (heads or
// FFN width by t, vocabulary by t, sequence by t with sequence parallelism).
Result<BlockTemplate> transformer_layer(const TransformerShape& shape);
Result<BlockTemplate> embedding_block(const TransformerShape& shape);
Result<BlockTemplate> head_block(const TransformerShape& shape);

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

// Bytes moved per parameter by one optimizer step: read the weights, the
// gradient and the optimizer state, write weights and state back (model
// states per parameter from costmodel/memory.hpp); 0 for none.
double optimizer_traffic_bytes_per_param(Optimizer optimizer, bool mixed_precision, DType dtype);

}  // namespace brigade::planner
