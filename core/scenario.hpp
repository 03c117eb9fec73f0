// A scenario file: topology, model, training options, strategy, and the
// JAX-style or manual placement. YAML, or JSON (read through the same YAML
// parser, JSON being YAML 1.2's subset, so both get line:column errors).
// Every key is documented in docs/scenario-format.md.
//
// Parsing checks syntax, keys (with "did you mean"), types, units and
// ranges. Semantic checks of the plan as a whole (batch divisible by the data
// degree, ...) are check_plan's (core/plan_check.hpp), citing positions
// through Scenario::where().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/runtime.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"

namespace brigade {

struct MlpSpec {
  std::int64_t batch = 0;
  std::vector<std::int64_t> widths;  // [in, hidden..., out]; one layer per consecutive pair
  DType dtype = DType::kF32;
  std::string activation = "relu";   // relu, gelu, none
  bool bias = true;
};

// The MLP of a transformer layer: GPT's fc1 -> GeLU -> fc2, or the gated
// SwiGLU of PaLM and Llama (Shazeer 2020): gate and up projections (one
// column-parallel GEMM of 2 x ffn_hidden columns), silu(gate) * up, down.
enum class MlpKind : std::uint8_t { kGelu, kSwiglu };
std::string_view mlp_kind_name(MlpKind k);
// LayerNorm (gain and bias) or RMSNorm (Zhang & Sennrich 2019: gain only).
enum class NormKind : std::uint8_t { kLayerNorm, kRmsNorm };
std::string_view norm_kind_name(NormKind k);
// Learned absolute position embeddings (GPT) or rotary embeddings (Su et al.
// 2021, RoPE: applied to Q and K in every layer, no parameters).
enum class PositionKind : std::uint8_t { kLearned, kRotary };
std::string_view position_kind_name(PositionKind k);
// The attention core as separate kernels (scores GEMM, softmax, values GEMM,
// the s x s probabilities kept for the backward) or as one fused
// FlashAttention kernel (Dao 2023) that keeps only the log-sum-exp.
enum class AttentionKernel : std::uint8_t { kUnfused, kFlash };
std::string_view attention_kernel_name(AttentionKernel k);

// A mixture of experts in place of the MLP (Shazeer et al. 2017; GShard,
// Lepikhin et al. 2020; Switch, Fedus et al. 2021; Mixtral, Jiang et al.
// 2024; DeepSeek-V3, 2024): a router picks top_k of `experts` experts per
// token, each expert an MLP of the layer's kind (gelu or swiglu) of width
// ffn_hidden; `shared_experts` more run on every token (DeepSeek). Layer i
// (from 0) is a MoE layer when i >= first_dense and (i + 1) % every == 0
// (Hugging Face's decoder_sparse_step; DeepSeek's first_k_dense_replace);
// the others keep the dense MLP. experts == 0: no MoE.
struct MoeSpec {
  std::int64_t experts = 0;
  std::int64_t top_k = 0;
  std::int64_t shared_experts = 0;
  std::int64_t ffn_hidden = 0;   // one expert's FFN width (moe_intermediate_size)
  std::int64_t first_dense = 0;  // the first layers keep the dense MLP
  std::int64_t every = 1;        // a MoE layer every `every` layers
  // Capacity factor (GShard): each expert takes at most capacity_factor x
  // tokens x top_k / experts tokens, its buffer padded to that; 0: dropless
  // (Megatron-Core's default, MegaBlocks).
  double capacity_factor = 0;
  // Router load imbalance: the busiest expert-parallel rank's routed tokens
  // over the mean (1 = balanced). Or a measured histogram `load` (each
  // expert's share of the routed tokens, any scale): it sets the imbalance
  // per rank from the experts each rank holds.
  double imbalance = 1;
  std::vector<double> load;

  bool enabled() const { return experts > 0; }
  bool is_moe_layer(std::int64_t i) const {
    return enabled() && i >= first_dense && (i + 1) % every == 0;
  }
  bool operator==(const MoeSpec&) const = default;
};

// Multi-head latent attention (DeepSeek-V2/V3): queries through a low-rank
// down (q_lora_rank, 0: a full h x heads*(nope+rope) projection) and up
// projection, keys and values through one shared latent of kv_lora_rank
// plus a rotary key of qk_rope_head_dim, up-projected per head to
// qk_nope_head_dim keys and v_head_dim values. Counted (parameters, FLOPs)
// exactly; its kernels are not modelled (check_plan refuses cost/simulate).
struct MlaSpec {
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  bool enabled() const { return kv_lora_rank > 0; }
  bool operator==(const MlaSpec&) const = default;
};

struct TransformerSpec {
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t seq = 0;
  std::int64_t vocab = 0;
  double ffn_ratio = 4.0;       // FFN width / hidden, when ffn_hidden is 0
  DType dtype = DType::kBF16;
  std::int64_t kv_heads = 0;    // key/value heads (GQA, MQA); 0: as many as heads (MHA)
  // One head's width (Megatron-LM's --kv-channels, transformers' head_dim);
  // 0: hidden / heads. Set where a model's heads are wider or narrower than
  // hidden / heads (Qwen3, Mistral NeMo, Gemma): the QKV GEMM's columns and
  // the projection's rows are heads x head_dim, not hidden.
  std::int64_t head_dim = 0;
  std::int64_t ffn_hidden = 0;  // the FFN width; 0: round(ffn_ratio x hidden)
  MlpKind mlp = MlpKind::kGelu;
  NormKind norm = NormKind::kLayerNorm;
  PositionKind positions = PositionKind::kLearned;
  bool tie_embeddings = true;   // the logits GEMM uses the word embedding
  bool bias = true;             // biases on the linear layers (GPT yes, Llama no)
  bool qkv_bias = false;        // biases on Q, K and V even without `bias` (Qwen2)
  // RMSNorm or LayerNorm (`norm`) of each query and key head over its
  // head_dim before the rotary embedding (Megatron-Core's qk_layernorm;
  // Qwen3's q_norm and k_norm, OLMo 2, Gemma 3): a gain of head_dim each.
  bool qk_norm = false;
  // Dropout probabilities (Megatron-LM's --hidden-dropout and
  // --attention-dropout, 0.1 by default): the residual stream's (after the
  // projection, after fc2, and after the embedding) and the attention
  // probabilities'. At 0 PyTorch's dropout returns its input (ATen's
  // dropout: p == 0, no mask), so no mask is written, kept or read back.
  // Llama-family models train without (their recipes: 0).
  double hidden_dropout = 0.1;
  double attention_dropout = 0.1;
  AttentionKernel attention = AttentionKernel::kUnfused;
  MoeSpec moe;  // mixture of experts (moe.experts > 0)
  MlaSpec mla;  // DeepSeek's latent attention (mla.kv_lora_rank > 0)
  // Where the description came from, for `explain`: "" (the scenario) or
  // "ARCHITECTURE from PATH" (a Hugging Face config.json).
  std::string source;

  // Key/value heads as the kernels use them (heads when kv_heads is 0).
  std::int64_t key_value_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  // One head's width as the kernels use it (hidden / heads when head_dim is 0).
  std::int64_t head_width() const { return head_dim > 0 ? head_dim : heads > 0 ? hidden / heads : 0; }
  // The query heads' width together, heads x head_width(): the QKV GEMM's
  // query columns and the attention projection's rows (hidden unless
  // head_dim says otherwise).
  std::int64_t attention_width() const { return heads * head_width(); }
  // MoE layers among the `layers` (0 without MoE).
  std::int64_t moe_layers() const {
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < layers && moe.enabled(); ++i) n += moe.is_moe_layer(i);
    return n;
  }
  bool operator==(const TransformerSpec&) const = default;
};

// One collective on its own, like an nccl-tests run (the seed's "ring
// AllReduce of M bytes over N devices").
struct CollectiveBenchSpec {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto;  // the model's choice
  double bytes = 0;            // as Collective::bytes (nccl-tests "size")
  DType dtype = DType::kF32;
  std::vector<int> group;      // devices; empty = all devices
};

enum class ModelKind { kNone, kMlp, kTransformer, kGraph, kCollective };

// kOp: op-level selective checkpointing as torchtitan runs it
// (activation_checkpoint mode selective, selective_ac_option 'op'): each
// layer keeps its input, the outputs of its 16-bit matmuls but every
// second one and of the attention kernel (and of sequence parallelism's
// reduce-scatters), and replays the rest before its backward
// (docs/costmodel.md, "Op-level selective checkpointing").
enum class Recompute { kNone, kSelective, kFull, kOp };
std::string_view recompute_name(Recompute r);
// Which layers full recomputation recomputes (Megatron-LM's
// --recompute-method): kUniform, every layer (checkpointed one by one:
// recompute_num_layers 1); kBlock, the first recompute_num_layers layers of
// each model chunk, the rest keeping their activations.
enum class RecomputeMethod : std::uint8_t { kUniform, kBlock };
std::string_view recompute_method_name(RecomputeMethod m);

enum class Optimizer { kAdam, kSgd, kNone };

// FP8 training as Transformer Engine runs it (Megatron-LM's --fp8-format,
// NeMo's fp8: hybrid | e4m3): the linear layers' GEMMs in FP8 with per-tensor
// delayed scaling, everything else in the model's dtype (docs/costmodel.md,
// "FP8 training"). kHybrid: E4M3 forward, E5M2 gradients; kE4M3: E4M3 both
// ways. The two cost the same (one FP8 tensor-core rate); the key records
// which recipe the run uses.
enum class Fp8Recipe : std::uint8_t { kNone, kHybrid, kE4M3 };
std::string_view fp8_recipe_name(Fp8Recipe r);

// Whose linear and norm layers a transformer runs (Megatron-LM's
// --transformer-impl): kTransformerEngine (the default since Megatron-Core
// adopted Transformer Engine: the QKV bias gradient in the weight-gradient
// GEMM's epilogue, one-pass LayerNorm backward) or kLocal (Megatron-LM's own
// layers, the only ones before 2023: `F.linear` plus a bias add and a
// separate bias-gradient reduction for QKV, apex's two-kernel LayerNorm
// backward). docs/costmodel.md, "Bias gradients and the LayerNorm backward".
enum class TransformerImpl : std::uint8_t { kTransformerEngine, kLocal };
std::string_view transformer_impl_name(TransformerImpl i);

// Which kernel runs a transformer's fused attention (`attention: flash`;
// Megatron-LM's --attention-backend): kFlash, FlashAttention-2; kFused,
// Transformer Engine's FusedAttention (cuDNN's kernel); kAuto, Transformer
// Engine's own choice, FusedAttention on Hopper and later (a device whose
// profile measures it) and FlashAttention-2 elsewhere, or FlashAttention-2
// under transformer_impl: local. docs/costmodel.md, "Which attention kernel
// runs".
enum class AttentionBackend : std::uint8_t { kAuto, kFlash, kFused };
std::string_view attention_backend_name(AttentionBackend b);

// How Transformer Engine scales each FP8 tensor (training.fp8_recipe;
// Megatron-LM's --fp8-recipe): kDelayed, from an amax history (TE's
// DelayedScaling, Megatron's default); kTensorwise, from the tensor's own
// amax taken just before its cast (TE's Float8CurrentScaling): an amax pass
// where TE cannot fuse it into the kernel that writes the tensor, a scale
// kernel, and with sequence parallelism the amax all-reduced over 'tensor'
// (docs/costmodel.md, "FP8 training").
enum class Fp8Scaling : std::uint8_t { kDelayed, kTensorwise };
std::string_view fp8_scaling_name(Fp8Scaling s);

// The group delayed scaling reduces its amaxes over (training.
// fp8_amax_group): kTensorContext, 'tensor' x 'context' (Megatron-Core
// 0.8's, the NeMo24.07 container's; later releases' under
// --tp-only-amax-red); kTensorDataContext, every rank of the stage's
// tensor, data and context groups (Megatron-Core's default before 0.8 and
// since 0.9: get_amax_reduction_group's _TENSOR_AND_DATA_PARALLEL_GROUP_
// WITH_CP). docs/costmodel.md, "Delayed scaling's amax reduction".
enum class Fp8AmaxGroup : std::uint8_t { kTensorContext, kTensorDataContext };
std::string_view fp8_amax_group_name(Fp8AmaxGroup g);

// Transformer Engine's userbuffers overlap of one linear layer's
// tensor-parallel collective with its GEMM (training.tp_comm_overlap; TE's
// `ub_cfgs` entries; docs/costmodel.md, "Transformer Engine's
// tensor-parallel overlap").
enum class UbMethod : std::uint8_t { kRingExchange, kPipeline, kBulk };
std::string_view ub_method_name(UbMethod m);
struct UbOverlap {
  UbMethod method = UbMethod::kRingExchange;
  int num_sm = 1;          // SMs of the communication kernel
  int num_splits = 0;      // pipeline: the GEMM's chunks; 0: ring exchange's t
  bool sm_margin = false;  // set_sm_margin: the GEMM runs on the others
  bool fp8_buf = false;    // pipeline: the reduce-scatter moves FP8 (under an FP8 recipe)
  bool operator==(const UbOverlap&) const = default;
};
// TE's layer names, in the order of TrainingSpec::tp_overlap.
enum UbLayer : int {
  kUbQkvFprop,
  kUbFc1Fprop,
  kUbProjDgrad,
  kUbFc2Dgrad,
  kUbProjFprop,
  kUbFc2Fprop,
  kUbQkvDgrad,
  kUbQkvWgrad,
  kUbFc1Dgrad,
  kUbFc1Wgrad,
  kUbLayers
};
std::string_view ub_layer_name(int layer);
// TE's own defaults (transformer_engine/pytorch/module/base.py,
// initialize_ub's get_default_config): ring exchange for the four
// all-gathers before a GEMM (1 SM, no margin, t chunks), pipeline for the
// projection's and fc2's forward reduce-scatters (16 SMs with margin, 4
// splits), bulk for the column-parallel layers' backward (16 SMs with
// margin).
std::array<UbOverlap, kUbLayers> te_default_overlaps();
UbOverlap te_default_overlap(UbMethod m);  // one method's defaults

struct TrainingSpec {
  bool inference = false;            // forward only (no gradients, no optimizer)
  std::int64_t global_batch = 0;     // 0: the model's batch
  std::int64_t micro_batch = 0;      // 0: global_batch / data
  Optimizer optimizer = Optimizer::kAdam;
  bool mixed_precision = true;       // 16-bit weights/grads + fp32 master copy in Adam
  Recompute recompute = Recompute::kNone;
  // Full recomputation's layers (training.recompute_method and
  // recompute_num_layers, Megatron-LM's --recompute-method and
  // --recompute-num-layers; only with recompute full): uniform checkpoints
  // every layer on its own (num_layers 1, the only group size modelled);
  // block recomputes the first num_layers layers of every model chunk
  // (all of them when it has no more) and keeps the others' activations
  // (Megatron-Core's TransformerBlock._checkpointed_forward; docs/costmodel.md,
  // "Block recomputation").
  RecomputeMethod recompute_method = RecomputeMethod::kUniform;
  std::int64_t recompute_num_layers = 1;
  // Megatron-LM's fp32 gradient accumulation buffer (`main_grad`,
  // --accumulate-allreduce-grads-in-fp32): gradients kept and reduced over
  // 'data' in fp32 whatever the weights' width (18 bytes per parameter with
  // mixed-precision Adam on bf16 weights instead of ZeRO's 16). Off by
  // default (`main_grad: weights`); `main_grad: fp32` turns it on.
  bool main_grad_fp32 = false;
  // Apex's DistributedFusedAdam as NeMo 1.x runs it (`optim.name:
  // distributed_fused_adam`; nemo/core/optim/distributed_adam.py and
  // megatron_base_model.py at v2.0.0). `optimizer_bf16` (`optimizer_dtype:
  // bf16`, Apex's `dtype`): Adam's moments kept in bf16, and, the weights
  // being bf16 too, no master copy (NeMo's store_params false): 4 bytes of
  // optimizer state a parameter instead of 12. `param_remainders` (Apex's
  // store_param_remainders, NeMo's choice for fp32 moments on bf16
  // weights): the fp32 master weight kept as the 16 bits its bf16 weight
  // lacks, 2 bytes instead of 4 (10 in all). Both need Adam on bf16
  // weights with mixed precision; transformers only (check_plan).
  bool optimizer_bf16 = false;
  bool param_remainders = false;
  // Megatron-LM's distributed optimizer (--use-distributed-optimizer): the
  // optimizer state sharded over 'data', gradients reduce-scattered, the
  // updated weights all-gathered; its bytes and collectives are ZeRO-1's
  // (docs/costmodel.md, "What Megatron-LM holds"), so the reader sets
  // strategy.zero to 1 and check_plan refuses any other stage with it.
  bool distributed_optimizer = false;
  // Transformer Engine's FP8 (training.fp8; transformers on devices with FP8
  // tensor cores: check_plan).
  Fp8Recipe fp8 = Fp8Recipe::kNone;
  // How FP8 tensors are scaled (training.fp8_recipe; only with fp8).
  Fp8Scaling fp8_scaling = Fp8Scaling::kDelayed;
  // Delayed scaling's amax reduction group (training.fp8_amax_group; only
  // with fp8 and delayed scaling).
  Fp8AmaxGroup fp8_amax_group = Fp8AmaxGroup::kTensorContext;
  // Megatron-LM's --fp8-param-gather (Megatron-Bridge's FP8 recipes'
  // fp8_param_gather): the linear layers' weights are Transformer Engine's
  // FP8 primary weights (fp8_model_init), an FP8 copy and its transpose
  // with no 16-bit weight beside them; the optimizer casts its fp32 master
  // shard straight to FP8 and the gathered weights get their transpose
  // (docs/costmodel.md, "FP8 primary weights"). Only with fp8, ZeRO 0 or 1.
  bool fp8_param_gather = false;
  // Which kernel runs the fused attention (training.attention_backend).
  AttentionBackend attention_backend = AttentionBackend::kAuto;
  // Megatron-LM's gradient accumulation fusion (--no-gradient-accumulation-
  // fusion turns it off; the default since 83b1e42f, 2022-02-13): the
  // weight-gradient GEMMs accumulate into the gradient buffer. `false`:
  // each micro-batch's gradients are added into the accumulated ones by a
  // pass of their own (Megatron-LM before 2022, DeepSpeed's engine then:
  // autograd's AccumulateGrad or DDP's `main_grad.add_`). Transformers only.
  bool gradient_accumulation_fusion = true;
  // Megatron-LM's --cross-entropy-loss-fusion (off by default): the
  // vocabulary-parallel cross-entropy's passes over the fp32 logits fused
  // into four kernels instead of eight (docs/costmodel.md, "The
  // cross-entropy as Megatron-LM runs it"). Transformers only.
  bool cross_entropy_fusion = false;
  // Megatron-LM's --transformer-impl (TransformerImpl). Transformers only;
  // FP8 needs Transformer Engine's.
  TransformerImpl transformer_impl = TransformerImpl::kTransformerEngine;
  // Megatron-LM's --tp-comm-overlap (off by default; NeMo's performance
  // recipes turn it on): Transformer Engine's userbuffers run each
  // sequence-parallel all-gather and reduce-scatter of a layer beside a
  // GEMM instead of between kernels, by TE's default method for each
  // (docs/costmodel.md, "Transformer Engine's tensor-parallel overlap").
  // Transformers with sequence parallelism over 'tensor' > 1 and
  // Transformer Engine's layers only (check_plan).
  bool tp_comm_overlap = false;
  // Each linear layer's overlap (`tp_comm_overlap: {qkv_fprop: {...}, ...}`
  // overrides TE's defaults entry by entry, as NeMo's per-shape
  // TransformerLayerTPOverlapCfg does).
  std::array<UbOverlap, kUbLayers> tp_overlap = te_default_overlaps();
  // Megatron-LM's and Transformer Engine's own overlap in a column-parallel
  // layer's backward, through NCCL (Megatron-LM's --async-tensor-model-
  // parallel-allreduce, on by default since 3f652469, 2021-09-02; TE does it
  // unconditionally): with sequence parallelism the re-gather of the input
  // beside the input-gradient GEMM and the input gradient's reduce-scatter
  // beside the weight-gradient GEMM, without it the input gradient's
  // all-reduce beside the weight-gradient GEMM. `false`: between kernels
  // (Megatron-LM before that commit). Transformers only (check_plan); under
  // tp_comm_overlap TE's bulk overlaps take these pairs instead
  // (docs/costmodel.md, "The column-parallel backward's asynchronous
  // collectives").
  bool tp_backward_overlap = true;
};

// Sets the recomputation as a search, a sweep or the what-if panel edits it:
// anything but full drops the block method (which chooses full
// recomputation's layers), so the edited plan stays one check_plan accepts.
void set_recompute(TrainingSpec& t, Recompute r);

enum class PipelineSchedule { kGpipe, k1F1B, kInterleaved };
std::string_view schedule_name(PipelineSchedule s);

// How far ZeRO-3's parameter prefetch reaches (strategy.zero3_prefetch;
// docs/scenario-format.md, docs/costmodel.md "ZeRO-3 prefetch"). Within a
// pass (a pipeline step: one chunk's forward or backward of one micro-batch)
// each block's gather is issued when the block before it starts; the modes
// differ at the passes' boundaries:
enum class Zero3Prefetch {
  // Every forward and every backward pass starts cold: its first block's
  // gather is issued when the pass starts and waits in the open.
  kPerPass,
  // DeepSpeed's parameter coordinator: one prefetch trace for a micro-batch's
  // forward and backward, reset when the next forward starts
  // (deepspeed/runtime/zero/partitioned_param_coordinator.py reset_step,
  // called by parameter_offload.py's forward pre-hook): a forward starts
  // cold, its backward's first gather is prefetched by the forward's end.
  kPerMicroBatch,
  // PyTorch FSDP: the prefetch follows the execution order across passes and
  // pipeline steps; only the step's first gather waits.
  kAcrossPasses,
};
std::string_view zero3_prefetch_name(Zero3Prefetch p);

// Whose pipeline engine runs the stages (strategy.pipeline_engine;
// docs/scenario-format.md, docs/costmodel.md "DeepSpeed's pipeline engine").
enum class PipelineEngine {
  // Megatron-LM's schedules: a stage's sends run beside its next step, the
  // boundary tensor whole on every tensor-parallel rank.
  kMegatron,
  // DeepSpeed's PipelineEngine (deepspeed/runtime/pipe/engine.py, p2p.py at
  // v0.5.8): the same 1F1B order, but blocking sends on the compute stream,
  // a step's receive and send one after the other, 1/tensor of the boundary
  // tensor a rank and an AllGather over the tensor group to rebuild it
  // (once before a forward, twice before a backward).
  kDeepSpeed,
};
std::string_view pipeline_engine_name(PipelineEngine e);

// How a data-parallel axis splits the batch (see DESIGN.md, "Batch sharding").
enum class DataMode {
  kBatch,  // NamedSharding(mesh, P('data')) / shard_map: B rows in N blocks
  kPmap,   // jax.pmap proper: the leading axis is the device axis (size <= N)
};

struct StrategySpec {
  int data = 1;
  int tensor = 1;
  int pipeline = 1;
  // Expert parallelism (Megatron-Core, DeepSpeed-MoE): the experts of a MoE
  // layer split over `expert` consecutive data-parallel ranks (EP inside
  // DP), tokens dispatched to them and combined back by AllToAll.
  int expert = 1;
  // Context parallelism (Megatron-Core's context_parallel_size; Liu et al.
  // 2023, ring attention): the sequence split over `context` ranks in 2 x
  // context chunks (rank c holds chunks c and 2 context - 1 - c, the causal
  // mask's work balanced), keys and values passed around the ring point to
  // point beside the attention blocks; gradients summed over data x context.
  int context = 1;
  bool sequence_parallel = false;
  PipelineSchedule schedule = PipelineSchedule::k1F1B;
  PipelineEngine pipeline_engine = PipelineEngine::kMegatron;
  // Megatron-LM's scatter-gather of the pipeline's boundary tensor
  // (Narayanan et al. 2021 §4.1; megatron/p2p_communication.py from
  // 72e4230b, 2021-02-16, on by default, until Megatron-Core's of
  // 2023-01): without sequence parallelism each tensor rank sends 1/tensor
  // of it, and the receiving stage all-gathers it back over 'tensor' on the
  // compute stream. Off: Megatron-Core's whole tensor on every rank. No
  // effect with sequence parallelism (the boundary is already split) or
  // tensor 1; refused with pipeline_engine deepspeed (which always splits).
  bool pipeline_scatter_gather = false;
  // Megatron-LM's blocking pipeline exchanges: each stage waits for its own
  // sends before its next work (megatron/p2p_communication.py of 2021-2022:
  // batch_isend_irecv, then req.wait(), then torch.cuda.synchronize();
  // Megatron-Core waits on its requests too unless overlap_p2p_comm, which
  // only the interleaved schedule has). Off: the sends run beside the
  // stage's next work, as with overlap_p2p_comm. Refused with
  // pipeline_engine deepspeed (which always blocks).
  bool pipeline_blocking_sends = false;
  // Megatron-Core's --account-for-embedding-in-pipeline-split and
  // --account-for-loss-in-pipeline-split: the embedding and the loss each
  // count as a layer when the layers are split over the p x v virtual
  // stages, so (layers + 1 + 1) / (p v) a chunk and the first virtual
  // stage (chunk 0 of stage 0) builds one layer fewer, the last (chunk v-1
  // of stage p-1) one fewer (transformer_block.py, get_num_layers_to_build;
  // Llama 3.1 405B's 126 layers over 64 chunks: 2 each, 1 at either end).
  // core/plan_check.hpp, pipeline_split.
  bool embedding_in_pipeline_split = false;
  bool loss_in_pipeline_split = false;
  int virtual_stages = 1;            // interleaved 1F1B: model chunks per device
  int zero = 0;                      // 0 (none), 1, 2, 3 (3 = FSDP)
  // ZeRO-3's prefetch at the passes' boundaries; ignored with zero 0-2.
  Zero3Prefetch zero3_prefetch = Zero3Prefetch::kPerPass;
  DataMode data_mode = DataMode::kBatch;
  // Rank mapping, innermost first: default tensor, data, pipeline (tensor
  // groups inside a node first). `context` may be listed too; left out, it
  // sits right after tensor (Megatron-Core's tp-cp-ep-dp-pp): full_rank_order.
  std::vector<std::string> rank_order = {"tensor", "data", "pipeline"};
  double bucket_bytes = 25e6;        // gradient AllReduce bucket (PyTorch DDP's 25 MB default)
  bool overlap = true;               // overlap gradient communication with backward
  // ZeRO-1/2 (Megatron-LM's distributed optimizer): gather the updated
  // weights bucket by bucket in the next step's first forward, one bucket
  // ahead of the compute (--overlap-param-gather), instead of after the
  // optimizer step; needs `overlap`; ignored with zero 0 or 3.
  bool overlap_param_gather = false;
  // Data-parallel collectives' algorithm: auto (the model's choice: NCCL's
  // by size under the NCCL model, the ring under alpha-beta), or one asked.
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto;
};

// strategy.rank_order with every axis: tensor, context, data and pipeline
// (innermost first), context placed right after tensor when not listed.
std::vector<std::string> full_rank_order(const StrategySpec& st);

struct MeshSpec {
  std::vector<std::int64_t> shape;
  std::vector<std::string> axes;
};

struct SimulationSpec {
  std::string network = "flow";             // flow | ideal
  std::map<int, double> speed;              // device -> speed factor (0.5 = half speed)
  // simulation.host_op_time: every device's host time per operation
  // (DeviceProfile::host_op_seconds), in place of the profile's. Every
  // judge sees it; unset: the profile's.
  std::optional<double> host_op_seconds;
  // simulation.devices_per_host: how many devices one host (the CPU thread
  // that issues their operations) drives, consecutive device ids sharing
  // one: 1, a process per device (torchrun's default); 8, one process for a
  // node's GPUs (nccl-tests -g 8, Brigade's own CUDA executor). A shared
  // host issues its devices' operations one after another in the Program's
  // order. Acts only with a host time per operation.
  int devices_per_host = 1;
};

struct Scenario {
  std::string path;  // the file it came from
  std::string name;
  std::string description;

  Topology topology;                // resolved preset or custom topology
  HardwareProfile profile;          // defaults, or the file named by `profile:`
  std::string profile_path;
  // topology.nccl_version when written: the NCCL release of the cluster,
  // whose tuning model the presets' NCCL tables follow (default 2.29).
  std::optional<NcclVersion> nccl_version;

  ModelKind model_kind = ModelKind::kNone;
  MlpSpec mlp;
  TransformerSpec transformer;
  Model graph;                      // explicit graph (ModelKind::kGraph), shapes inferred
  CollectiveBenchSpec collective;   // ModelKind::kCollective

  TrainingSpec training;
  StrategySpec strategy;
  bool has_strategy = false;

  std::map<std::string, int> placement;   // op name -> device id (jit(f, device=...))
  std::map<std::string, int> device_put;  // tensor name -> device id
  std::optional<MeshSpec> mesh;
  // tensor -> one entry per dimension: a mesh axis name or "" (None)
  std::map<std::string, std::vector<std::string>> shardings;
  SimulationSpec simulation;
  // What happens at run time that no plan sees (core/runtime.hpp): the
  // simulator and the real executors honour it; the planner, `search` and
  // the closed form deliberately do not.
  RuntimeConditions runtime;

  // Where a key was written: where("strategy.data"), where("placement.mm2"),
  // where("model.graph.ops[2]"). A key not written falls back to the nearest
  // enclosing key that was ("strategy.zero" -> "strategy"), then the file alone.
  SourcePos where(const std::string& key) const;
  std::map<std::string, SourcePos> positions;
  // Where each entry of `placement` and `device_put` was written (the key),
  // kept apart from `positions`: a million placed ops would otherwise cost
  // a million map nodes. where("placement.mm2") looks here.
  struct EntryPosition {
    std::string name;
    int line = 0, column = 0;
  };
  std::vector<EntryPosition> placement_positions, device_put_positions;
};

// What a scenario may ask for (docs/scenario-format.md, "Limits"), checked
// as it is read, before anything is allocated for it.
struct ScenarioLimits {
  // A scenario or profile file, in bytes. YAML text above
  // yamlio::kMaxYamlBytes (16 MiB) must be JSON.
  static constexpr std::size_t kMaxFileBytes = std::size_t{256} << 20;
  // Devices of a topology (preset x nodes, or listed), switches and links
  // of a custom one.
  static constexpr int kMaxDevices = 65536;
  static constexpr int kMaxSwitches = 65536;
  static constexpr int kMaxLinks = 1 << 20;
  // Every model dimension (batch, widths, layers, hidden, heads, seq,
  // vocab, a shape's sizes, a mesh's sizes), and a tensor's rank.
  static constexpr std::int64_t kMaxDimension = 2147483647;  // 2^31 - 1
  static constexpr int kMaxRank = 64;
};

// Reads a scenario (.yaml, .yml or .json). Errors are one line:
//   "FILE:LINE:COL: error: found X; expected Y"
Result<Scenario> load_scenario(const std::string& path);
// The same from text (for tests); `filename` is used in messages.
Result<Scenario> parse_scenario(const std::string& text, const std::string& filename);

}  // namespace brigade
