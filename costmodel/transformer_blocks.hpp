// The kernels and collectives of a GPT-style transformer as Megatron-LM runs
// it, per tensor-parallel rank and micro-batch: one description that both
// the closed-form judge (costmodel/plan_transformer.cpp) and the planner's
// lowering (planner/lower_transformer.cpp) consume, so that the two judges
// of one plan cannot describe different transformers.
//
// Shoeybi et al. 2019 (tensor parallelism); Narayanan et al. 2021 (Eq. 2, 3);
// Korthikanti et al. 2022 (sequence parallelism, activation memory,
// selective recomputation). Pre-LayerNorm layers of LN, QKV GEMM, attention
// scores (batched GEMM), softmax, dropout, attention over values (batched
// GEMM), the context copy, output projection, residual add, LN, two MLP GEMMs
// with GELU, residual add, each a kernel of its own as Megatron-LM launches
// them (and, in the backward, autograd's sums of the residual stream's two
// gradients); a vocabulary-parallel word embedding + learned position
// embedding; the output logits GEMM tied to the word embedding, and a
// vocabulary-parallel cross-entropy. The final LayerNorm is left out, as
// Eq. 2 leaves it out (2h parameters; docs/planner.md).
//
// Counted FLOPs: GEMMs only (2mnk each). Memory-bound kernels carry 0 FLOPs
// (Eq. 3 ignores them; their roofline time is the bytes term).
//
// Variants (TransformerSpec, docs/costmodel.md "Transformer variants"), as
// Megatron-Core builds them: grouped-query attention (kv_heads: the QKV GEMM
// has (heads + 2 kv_heads) head-widths of columns; the unfused core expands
// K and V to every query head, Megatron-Core's DotProductAttention), SwiGLU
// (fc1 of 2 x ffn_hidden columns, gate and up, one elementwise
// silu(gate)*up), RMSNorm (gain only; the same bytes as LayerNorm), rotary
// positions (an elementwise rotation of Q and K in every layer, no position
// embedding), untied output weights (the head's own V x h matrix), no
// biases, and FlashAttention (Dao 2023, FlashAttention-2): one fused kernel
// for scores, softmax and values, keeping the log-sum-exp instead of the
// s x s probabilities, and recomputing them in its backward.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/program.hpp"
#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade::cost {

// One kernel of a block template: what one tensor-parallel rank runs for one
// micro-batch. Either compute (GEMM or memory-bound) or a tensor-parallel
// collective that sits on the compute stream between kernels.
struct Kernel {
  std::string name;             // "attn.qkv", "mlp.fc1.dgrad", ...
  OpKind op = OpKind::kCustom;  // the logical op it belongs to
  ComputeKind compute = ComputeKind::kMemoryBound;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;  // kGemm
  // The width the kernel computes in: the model's dtype, or FP8 for the
  // linear layers' GEMMs under training.fp8 (TransformerShape::fp8).
  DType dtype = DType::kBF16;
  double bytes = 0;        // kMemoryBound, kFixed: bytes read + written
  double fixed_flops = 0;  // kFixed: a fused kernel's FLOPs (FlashAttention)
  // FlashAttention's kernels: KernelClass::kFlashForward / kFlashBackward,
  // with m = the sequence length and k = the head dimension (a profile's
  // measured FlashAttention-2 rates take them; core/profile.hpp).
  KernelClass kernel_class = KernelClass::kGeneric;

  bool is_collective = false;  // a tensor-parallel collective, not compute
  // The collective's group: 'tensor' (the layers' collectives), or for the
  // FP8 amax reduction 'tensor' x 'context' (Megatron-Core 0.8's tensor-and-
  // context group) or every rank of the stage, 'tensor' x 'data' x 'context'
  // (training.fp8_amax_group tensor_data_context).
  enum class Group : std::uint8_t { kTensor, kTensorContext, kStage };
  Group group = Group::kTensor;
  // Transformer Engine's tensor-parallel overlap (TransformerShape::
  // tp_comm_overlap): this collective runs beside the next kernel of its
  // list (a GEMM), on a stream of its own, starting when that kernel
  // starts; the kernel after the two waits for both. A judge charges
  // max(collective, GEMM) for the pair.
  bool beside = false;
  // A GEMM's SMs held back for the communication kernel beside it
  // (Transformer Engine's set_sm_margin; Task::sm_held): its time is
  // divided by sm_share (core/profile.hpp).
  int sm_held = 0;
  // A collective on Transformer Engine's userbuffers (tp_comm_overlap), not
  // NCCL's kernel: it takes no SMs of its own (a ring exchange's copy
  // engines, or the sm_held its GEMM gave up; docs/costmodel.md, "NCCL's
  // kernels take SMs").
  bool userbuffers = false;
  // A collective standing for this many of its kind (the step
  // granularity's merge; Collective::parts).
  int collective_parts = 1;
  CollectiveKind collective = CollectiveKind::kAllReduce;
  double collective_bytes = 0;  // as Collective::bytes (nccl-tests "size")
  std::string reason;           // why the collective is there

  // Activation bytes this forward/recompute kernel keeps for the backward.
  double saved_bytes = 0;
  // Backward kernels: the parameter group whose gradient this kernel
  // completes (index into BlockTemplate::params), or -1.
  int completes_grad = -1;

  // A MoE expert GEMM whose rows are the routed tokens: `routed_dim` 1 (m)
  // or 3 (k) holds ceil(routed_rows x the busiest expert-parallel rank's
  // load); a rank of load x runs ceil(routed_rows x x) (the lowering).
  double routed_rows = 0;
  int routed_dim = 0;

  // Context parallelism (TransformerShape::context > 1): the fused attention
  // runs as `ring_steps` (= context) blocks of 1/ring_steps of its FLOPs and
  // bytes each, and before blocks 1 .. ring_steps - 1 every rank sends
  // `ring_bytes` (its K and V chunk; in the backward K, V and their
  // gradients) to the next rank of the context ring, overlapped with the
  // block before (Transformer Engine's AttnFuncWithCPAndKVP2P). 0: no ring.
  int ring_steps = 0;
  double ring_bytes = 0;

  // A weight-gradient GEMM that adds its product into the parameter's
  // gradient buffer (fused gradient accumulation, TransformerShape::
  // fused_accumulate_bytes): the bytes it moves beyond a plain GEMM (C read,
  // D written wider than a fresh 16-bit D), priced by the profile's
  // gemm_accumulate_exposed (accumulate_seconds, core/profile.hpp). 0: a
  // plain GEMM.
  double accumulate_bytes = 0;

  double flops() const;  // counted FLOPs: 2mnk·batch for GEMMs, fixed_flops for kFixed, else 0
};

// Whether ks[j] opens a pair: a collective beside the kernel after it
// (Kernel::beside), the two starting together. The judges' one test for it
// (the stage's clock, its time, the bucket fill).
inline bool opens_pair(const std::vector<Kernel>& ks, size_t j) {
  return j + 1 < ks.size() && ks[j].is_collective && ks[j].beside;
}

// Each expert-parallel rank's routed tokens over the mean (mean 1), rank j
// holding experts [j E/ep, (j+1) E/ep): from moe.load (each expert's share)
// when given, else rank 0 at moe.imbalance and the others sharing the rest
// evenly. With a capacity factor every rank's buffers are padded to
// capacity: all 1. One rank (ep = 1) holds every expert: 1.
std::vector<double> expert_rank_loads(const MoeSpec& moe, int ep);

// A parameter tensor of a block, as one tensor-parallel rank holds it.
struct ParamTensor {
  std::string name;  // "attn.qkv.weight"
  std::vector<std::int64_t> global_shape;
  std::vector<std::int64_t> local_shape;  // on one tensor-parallel rank
  bool tensor_sharded = false;            // split over the tensor group (else replicated)
  // A linear layer's weight under FP8: Transformer Engine keeps an FP8 copy
  // and its transpose beside the 16-bit weight (2 bytes per element more),
  // cast once per step.
  bool fp8 = false;
  double local_elements() const;
  double global_elements() const;
};

// Parameters whose gradients one backward kernel completes together.
struct ParamGroup {
  std::string name;  // "mlp.fc2"
  std::vector<ParamTensor> tensors;
  // Experts split over an expert-parallel group: their gradients are summed
  // over the expert-data group (the data ranks holding the same experts),
  // not the data group (Megatron-Core's expert_data_parallel group).
  bool expert = false;
  double local_elements() const;
  double replicated_elements() const;  // elements not split over the tensor group
  double fp8_elements() const;         // elements of its FP8 weights (ParamTensor::fp8)
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
  double fp8_weight_elements() const;  // local elements of the FP8 weights (ParamTensor::fp8)
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
  int expert = 1;                // expert-parallel degree (strategy.expert)
  int context = 1;               // context-parallel degree (strategy.context): seq/context positions
  int data = 1;                  // data-parallel degree (strategy.data), for the amax group
  // Delayed scaling's amax reduction over every rank of the stage (training.
  // fp8_amax_group tensor_data_context), not 'tensor' x 'context'.
  bool amax_over_data = false;
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  // Block recomputation (training.recompute_method block under recompute
  // full): a chunk's layers past its first recompute_num_layers run a
  // second layer template, built without recomputation (kept_layers_per_chunk).
  bool recompute_block = false;
  // Transformer Engine's FP8 (training.fp8): the linear layers' GEMMs (QKV,
  // attention projection, fc1, fc2; the experts' and shared experts') in
  // FP8, each input cast first (kernels "NAME.cast", and "NAME.bwd.cast" for
  // the output gradient in the backward), their inputs saved in FP8;
  // attention, norms, activations, the embedding, the router and the logits
  // stay in the model's dtype (docs/costmodel.md, "FP8 training").
  Fp8Recipe fp8 = Fp8Recipe::kNone;
  // FP8 current scaling (training.fp8_recipe: tensorwise; TE's
  // Float8CurrentScaling): before each cast an amax pass "NAME.amax" (n e
  // bytes) where Transformer Engine cannot take the amax in the kernel that
  // wrote the tensor (everywhere but the QKV and fc1 inputs, which its
  // LayerNormLinear's norm writes, and a biased layer's output gradient,
  // whose bias-gradient reduction takes it), a scale kernel "NAME.scale",
  // and, with sequence parallelism, "NAME.amax_allreduce" over 'tensor'
  // before a gathered tensor's cast (a column-parallel layer's input, a
  // row-parallel layer's output gradient). docs/costmodel.md, "FP8 training".
  Fp8Scaling fp8_scaling = Fp8Scaling::kDelayed;
  // The fused attention's kernel (attention: flash) is Transformer Engine's
  // FusedAttention (KernelClass::kFusedAttention*: cuDNN's kernel, timed at
  // a device's fused_attention rates where its profile has them, at its
  // flash_attention rates otherwise), not FlashAttention-2's
  // (training.attention_backend; docs/costmodel.md, "Which attention kernel
  // runs").
  bool cudnn_attention = false;
  // Gradient accumulation no GEMM fuses: each micro-batch's backward adds
  // every gradient it completes into the accumulated one, a memory-bound
  // kernel "GROUP.grad_accumulate" right after the kernel that completes the
  // group, of this many bytes per local element (e + 2 g: the new gradient
  // read, the accumulated one read and written): every group's elements
  // with training.gradient_accumulation_fusion false, those no fused GEMM
  // adds with it on (Megatron-LM's default: the biases', the norms', the
  // router's, the embedding's tables; add_grad_accumulation). 0 when not
  // training.
  double grad_accumulate_bytes = 0;
  // Gradient accumulation fused into the weight-gradient GEMMs (training.
  // gradient_accumulation_fusion, Megatron-LM's default; training only): each
  // adds its product into the gradient buffer, D = A^T B + C, moving this
  // many bytes per element of its output beyond a plain GEMM's fresh 16-bit
  // D: the buffer read (g) and written g - e wider (2g - e: 2 in 16 bits, 6
  // in FP32 over a 16-bit model), marked on each dense weight-gradient GEMM
  // (Kernel::accumulate_bytes; mark_fused_accumulation). 0 when not fused or
  // not training.
  double fused_accumulate_bytes = 0;
  // The vocabulary-parallel cross-entropy's passes (training.cross_entropy_
  // fusion): false, Megatron-LM's default, the eight of
  // tensor_parallel/cross_entropy.py over the fp32 logits; true, the four of
  // fusions/fused_cross_entropy.py (docs/costmodel.md, "The cross-entropy as
  // Megatron-LM runs it").
  bool cross_entropy_fusion = false;
  // The cross-entropy and its all-reduce after the logits: training only
  // (an inference step ends at the logits).
  bool loss = true;
  // Megatron-LM's own linear and LayerNorm layers (training.transformer_impl:
  // local) rather than Transformer Engine's: the QKV bias added by a pass of
  // its own and its gradient reduced by another; the LayerNorm backward as
  // apex's two kernels (5 bytes an element read or written, not 3).
  bool local_layers = false;
  // Transformer Engine's userbuffers overlap (training.tp_comm_overlap;
  // sequence parallelism, t > 1): by TE's default method for each linear
  // layer (transformer_engine/pytorch/module/base.py, initialize_ub's
  // get_default_config, unless `ub` says otherwise), the all-gather
  // before QKV's and fc1's forward GEMMs and before the projection's and
  // fc2's input-gradient GEMMs as a ring exchange under the GEMM, chunked
  // by t; the reduce-scatter after the projection's and fc2's forward GEMMs
  // pipelined in four chunks on 16 SMs held back from them; the backward's
  // re-gather of QKV's and fc1's input beside their input-gradient GEMMs
  // and the reduce-scatter of that gradient beside their weight-gradient
  // GEMMs ("bulk", 16 SMs held back).
  // docs/costmodel.md, "Transformer Engine's tensor-parallel overlap".
  bool tp_comm_overlap = false;
  // Each linear layer's method, SMs and splits (training.tp_overlap: TE's
  // defaults unless the scenario states NeMo-style settings).
  std::array<UbOverlap, kUbLayers> ub = te_default_overlaps();
  // The column-parallel backward's asynchronous collectives through NCCL
  // (training.tp_backward_overlap; training, t > 1, not under
  // tp_comm_overlap, whose bulk overlaps take these pairs): QKV's and
  // fc1's re-gather beside their input-gradient GEMMs and their input
  // gradient's reduce-scatter (all-reduce without sequence parallelism)
  // beside their weight-gradient GEMMs, no SM held back.
  // docs/costmodel.md, "The column-parallel backward's asynchronous
  // collectives".
  bool tp_backward_overlap = false;
};

// Bytes of Transformer Engine's cast of `elements` 16-bit (`e` bytes) values
// to FP8 for a GEMM: read once, written as FP8 and as its FP8 transpose (the
// wgrad GEMM's operand), the amax taken in the same pass
// (transformer_engine/common/transpose/cast_transpose.cu): elements (e + 2).
double fp8_cast_bytes(double elements, double e);

// Bytes of the once-a-step cast of `elements` 16-bit weights to FP8 (TE's
// first micro-batch casts them, the others reuse the copies): the cast, and
// under current scaling the amax pass before it (elements e more).
double fp8_weight_cast_bytes(double elements, double e, Fp8Scaling scaling);

// Bytes Transformer Engine keeps per FP8 weight element beside the 16-bit
// weight: its FP8 copy and the copy's transpose (the dgrad GEMM's operand).
constexpr double kFp8WeightCacheBytesPerElement = 2;

// What a device keeps for `elements` FP8 weights beyond model_state_bytes'
// weights at e bytes: their FP8 copies and transposes, 2 B each; with FP8
// primary weights (training.fp8_param_gather) those take the 16-bit
// weights' place, (2 - e) B each (0 at bf16).
double fp8_weight_extra_bytes(double elements, double e, bool fp8_params);

// The bytes the step's FP8 weight cast moves for `elements` FP8 weights on a
// device. Without FP8 primary weights, fp8_weight_cast_bytes (the updated
// 16-bit weights cast to FP8 in the first micro-batch's forward). With
// them (Megatron-Core's distributed optimizer casts its fp32 master shard,
// 1/shards of the weights, straight to FP8 in the place of its copy back to
// 16 bits, which the optimizer's passes already count): each gathered FP8
// weight's transpose made anew (read 1 B, write 1 B: Transformer Engine's
// post-all-gather processing), and under current scaling the master
// shard's amax read first (4 B an element of the shard).
double fp8_step_cast_bytes(double elements, double e, Fp8Scaling scaling, bool fp8_params,
                           double shards);
struct ShardedParameters;  // costmodel/memory.hpp
// The same over a rank's FP8 weights split as its model states
// (costmodel/memory.hpp): the master shard's amax over 1/d of the dense
// ones and 1/(d/ep) of the experts' under ZeRO >= 1, all of them without.
double fp8_step_cast_bytes(const ShardedParameters& fp8_weights, double e, Fp8Scaling scaling,
                           bool fp8_params, int zero_stage);

// The three block kinds. The shape must have passed check_plan
// (core/plan_check.hpp: heads, FFN width and vocabulary divisible by t, the
// sequence too with sequence parallelism); the only error is a non-positive
// dimension. A vocabulary of 0 gives an embedding of positions only and a
// head without logits (for cost models of the layers alone).
Result<BlockTemplate> transformer_layer(const TransformerShape& shape);

// The shape of a plan's transformer, as both judges build its blocks: the
// model, micro_batch_size (core/plan_check.hpp), the strategy's tensor,
// expert and context degrees and sequence parallelism, training's
// recomputation (none for inference) and FP8. check_plan must have passed.
TransformerShape transformer_shape(const Scenario& sc);
// Of a model chunk's `layers_per_chunk` layers, how many keep their
// activations under block recomputation (training.recompute_method block,
// recompute full: those past the first recompute_num_layers; Megatron-
// Core's TransformerBlock._checkpointed_forward recomputes layer l of a
// chunk when l < recompute_num_layers); 0 under any other recomputation or
// in inference. Both judges run those layers from the shape's template
// without recomputation (`layer_kept`), the chunk's first ones from the
// full-recomputation template.
std::int64_t kept_layers_per_chunk(const Scenario& sc, std::int64_t layers_per_chunk);
// Block recomputation's recompute_num_layers where it applies (the
// condition above), else -1; and of a chunk of `layers`, the kept ones
// under that cap (kept_layers_per_chunk(sc, n) = kept_layers_of(n,
// block_recompute_layers(sc))).
std::int64_t block_recompute_layers(const Scenario& sc);
// The share of the model's layers that recompute (run the `layer` template
// rather than `layer_kept`), over every chunk of the pipeline split (core/
// plan_check.hpp, PipelineSplit): the counted FLOPs' recomputation share in
// both judges. check_plan must have passed.
double recomputed_layer_fraction(const Scenario& sc);
inline std::int64_t kept_layers_of(std::int64_t layers, std::int64_t cap) {
  return cap < 0 ? 0 : layers - (layers < cap ? layers : cap);
}
// The same layer without recomputation: the template block recomputation's
// kept layers run.
Result<BlockTemplate> transformer_layer_kept(const TransformerShape& shape);
Result<BlockTemplate> embedding_block(const TransformerShape& shape);
Result<BlockTemplate> head_block(const TransformerShape& shape);

// Transformer Engine 1.x's delayed scaling (training.fp8 with fp8_recipe
// delayed; training only) reduces the amaxes of every FP8 tensor of the
// device's modules once at the end of each model chunk's forward and once
// in its backward, every micro-batch (transformer_engine/pytorch/fp8.py at
// v1.8, the release of the NeMo 24.07 container: FP8GlobalStateManager::
// reduce_and_update_fp8_tensors, called by fp8_autocast_exit when the
// outermost autocast, which Megatron-Core's TransformerBlock enters once a
// chunk's forward, exits with gradients enabled, and by the backward of the
// chunk's first FP8 module, module/linear.py and layernorm_linear.py). Each
// time: a torch.cat of the amax rows of every FP8 module of the device (its
// global buffer holds them all, each module added once), an AllReduce(MAX)
// of them over the amax group where it has more than one rank (Megatron-Core
// 0.8's tensor x context group, get_amax_reduction_group(with_context_
// parallel=True) in TransformerBlock: Kernel::group kTensorContext with
// context parallelism; with TransformerShape::amax_over_data every rank of
// the stage, kStage, Megatron-Core's default since 0.9), and one fused
// update of the amax histories, scales
// and inverse scales (fused_amax_and_scale_update_after_reduction).
// `fp8_modules`: the device's FP8 linear modules, one a weight (3 amaxes each
// forward: input, weight, output; 2 backward: output gradient, input
// gradient), histories of kFp8AmaxHistory entries (TE's DelayedScaling
// default, NeMo's GPT configs'). docs/costmodel.md, "FP8 training".
struct Fp8AmaxReduction {
  std::vector<Kernel> forward, backward;
  bool empty() const { return forward.empty() && backward.empty(); }
};
constexpr double kFp8AmaxHistory = 1024;
// Whether a plan's chunks reduce their amaxes so: FP8 with delayed scaling, training.
bool reduces_fp8_amax(const TransformerShape& shape, bool training);
// The FP8 linear modules of one layer: its parameter groups that hold an FP8 weight.
double fp8_modules_per_layer(const BlockTemplate& layer);
// The kernels of one chunk's reductions for `fp8_modules` modules on the device.
Fp8AmaxReduction fp8_amax_reduction(const TransformerShape& shape, double fp8_modules);

// The variant in words, for `explain` and reports: "" for the GPT-style
// default, else its departures from it, such as "GQA with 8 key/value heads,
// SwiGLU FFN 28672, RMSNorm, rotary positions, untied output, no biases,
// FlashAttention".
std::string transformer_variant_label(const TransformerSpec& spec);

// The memory passes Transformer Engine's ring attention makes around its
// attention kernels (context parallelism, cp > 1; AttnFuncWithCP in
// transformer_engine/pytorch/attention.py at v1.8, the release of the NeMo
// 24.07 container, with cuDNN's fused attention and the causal mask's
// load-balanced chunks): bytes read and written on the context rank that
// moves the most, `q` the rank's Q (= O = dQ) bytes, `kv` its K (= V)
// bytes, `lse` its softmax statistics' (4 B a query row and head).
// Forward, rank r: K and V copied into the first send buffer (4 kv); the
// output zeroed (q); at each step i >= 1 the half the kernel takes copied
// contiguous, K and V's first half where i <= r (2 kv), Q's second half
// elsewhere (q); after the steps each step's output merged into the whole,
// read, scaled by exp(lse_i - lse) and added (3 q and 2 lse for a whole
// step, half that for a second-half step). Backward: the saved K and V
// copied into the send buffer (4 kv) and the statistics' second half
// (lse); at each step the halves its kernel takes copied (Q's, O's and
// dO's second halves, 3 q, or K and V's first halves, 2 kv), dK and dV
// concatenated (4 kv, 2 kv for halves) and dQ and dKV accumulated (copy_:
// read and write, add_: two reads and a write). The lse corrections between
// steps run on a side stream beside the next step's kernel and are left
// out. Later releases (v2.x) fold the zeroing into the first step's merge.
struct RingMergeBytes {
  double forward = 0, backward = 0;
};
RingMergeBytes ring_merge_bytes(int cp, double q, double kv, double lse);

// The boundary activation (b, s, h) one tensor-parallel rank holds at a
// pipeline stage's edge (s/context positions), 1/t of it under sequence
// parallelism (Megatron-core's p2p_communication): what it sends to the
// next stage per micro-batch (and the gradient back), unless
// scatter_gathers_boundary.
double pipeline_boundary_bytes(const TransformerShape& shape);

// Whether the plan's Megatron engine scatters and gathers that boundary
// (strategy.pipeline_scatter_gather, Narayanan et al. 2021 §4.1): pipeline
// and tensor above 1, no sequence parallelism (already split), not
// DeepSpeed's engine. Each rank then sends 1/t of it, and the receiving
// stage all-gathers it over 'tensor' after each receive.
bool scatter_gathers_boundary(const StrategySpec& st);

// Whether the plan's Megatron engine blocks on its pipeline sends
// (strategy.pipeline_blocking_sends: batch_isend_irecv, req.wait(),
// torch.cuda.synchronize()): pipeline above 1, not DeepSpeed's engine
// (refused with the key; it blocks in its own way). A stage's next work
// then waits for its own sends.
bool blocks_on_pipeline_sends(const StrategySpec& st);

}  // namespace brigade::cost
