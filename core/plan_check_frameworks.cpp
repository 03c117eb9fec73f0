// The checks of what the training frameworks run (core/plan_check_internal.hpp):
// Megatron-LM's and DeepSpeed's engines and training keys, NeMo's (Apex's)
// optimizer layouts, Transformer Engine's FP8 and tensor-parallel overlap.
// check_plan (core/plan_check.cpp) calls them; messages as its own.
#include <string>

#include "core/plan_check_internal.hpp"

namespace brigade::detail {

std::string model_kind_name(ModelKind k) {
  switch (k) {
    case ModelKind::kNone:
      return "no";
    case ModelKind::kMlp:
      return "an mlp";
    case ModelKind::kTransformer:
      return "a transformer";
    case ModelKind::kGraph:
      return "a graph";
    case ModelKind::kCollective:
      return "a collective";
  }
  return "?";
}

namespace {

class FrameworkChecker {
 public:
  explicit FrameworkChecker(const Scenario& s) : s_(s), st_(s.strategy) {}

  // DeepSpeed's PipelineEngine runs one schedule, TrainSchedule (1F1B order,
  // deepspeed/runtime/pipe/schedule.py), over Megatron's tensor slicing of
  // 2021: no interleaving, no GPipe, no sequence or context parallelism.
  Status check_pipeline_engine() {
    if (st_.pipeline_engine != PipelineEngine::kDeepSpeed) return Status::ok();
    if (st_.pipeline_scatter_gather)
      return at("strategy.pipeline_scatter_gather",
                "found pipeline_scatter_gather with pipeline_engine deepspeed; expected "
                "pipeline_engine megatron (Megatron-LM's scatter-gather of the boundary tensor; "
                "DeepSpeed's engine always sends 1/tensor of it a rank)");
    if (st_.pipeline_blocking_sends)
      return at("strategy.pipeline_blocking_sends",
                "found pipeline_blocking_sends with pipeline_engine deepspeed; expected "
                "pipeline_engine megatron (Megatron-LM's blocking exchanges; DeepSpeed's engine "
                "always blocks on its sends and receives)");
    const std::string_view key = "strategy.pipeline_engine";
    if (s_.model_kind != ModelKind::kTransformer)
      return at(std::string(key), "found pipeline_engine deepspeed with " +
                                      model_kind_name(s_.model_kind) +
                                      " model; expected a transformer model (or pipeline_engine "
                                      "megatron)");
    if (s_.training.inference)
      return at(std::string(key),
                "found pipeline_engine deepspeed with training.inference; expected a training "
                "step (DeepSpeed's TrainSchedule is what is modelled) or pipeline_engine megatron");
    if (st_.schedule != PipelineSchedule::k1F1B)
      return at(std::string(key), "found pipeline_engine deepspeed with schedule " +
                                      std::string(schedule_name(st_.schedule)) +
                                      "; expected schedule 1f1b (DeepSpeed's TrainSchedule)");
    if (st_.zero >= 2)
      return at(std::string(key), "found pipeline_engine deepspeed with zero " +
                                      std::to_string(st_.zero) +
                                      "; expected zero 0 or 1 (DeepSpeed's PipelineEngine asserts "
                                      "that ZeRO-2 and ZeRO-3 are incompatible with pipeline "
                                      "parallelism, engine.py at v0.5.8 line 72)");
    if (st_.sequence_parallel || st_.context > 1)
      return at(std::string(key),
                std::string("found pipeline_engine deepspeed with ") +
                    (st_.sequence_parallel ? "sequence_parallel" : "context parallelism") +
                    "; expected neither (DeepSpeed's engine sends the boundary tensor as "
                    "Megatron's 2021 tensor slicing leaves it) or pipeline_engine megatron");
    return Status::ok();
  }

  // Apex's DistributedFusedAdam layouts (training.optimizer_dtype,
  // training.param_remainders): Adam's state beside bf16 weights under
  // mixed precision, in training, for transformers.
  Status check_apex_optimizer() {
    const TrainingSpec& tr = s_.training;
    struct Key {
      const char* name;
      bool on;
      const char* value;  // as the message writes it
    };
    for (const Key& k : {Key{"optimizer_dtype", tr.optimizer_bf16, " bf16"},
                         Key{"param_remainders", tr.param_remainders, ": true"}}) {
      if (!k.on) continue;
      const char* key = k.name;
      const std::string found = std::string("found ") + key + k.value;
      const std::string why =
          " (Apex's DistributedFusedAdam keeps Adam's state beside bf16 weights: "
          "docs/scenario-format.md, \"training\")";
      if (s_.model_kind != ModelKind::kTransformer)
        return at(std::string("training.") + key,
                  found + " with " + std::string(model_kind_name(s_.model_kind)) +
                      " model; expected a transformer model" + why,
                  ErrorKind::kUnsupported);
      if (tr.inference)
        return at(std::string("training.") + key,
                  found + " with mode inference; expected mode training (no optimizer runs)");
      if (tr.optimizer != Optimizer::kAdam)
        return at(std::string("training.") + key,
                  found + " with optimizer " +
                      (tr.optimizer == Optimizer::kSgd ? "sgd" : "none") +
                      "; expected optimizer adam" + why);
      if (s_.transformer.dtype != DType::kBF16)
        return at(std::string("training.") + key,
                  found + " with dtype " + std::string(dtype_name(s_.transformer.dtype)) +
                      "; expected dtype bf16" + why);
      if (!tr.mixed_precision)
        return at(std::string("training.") + key,
                  found + " with mixed_precision: false; expected mixed_precision: true" + why);
    }
    if (tr.optimizer_bf16 && tr.param_remainders)
      return at("training.param_remainders",
                "found param_remainders: true with optimizer_dtype bf16; expected one of them "
                "(bf16 moments keep no master weights to store as remainders: NeMo's "
                "store_params is false when the optimizer's dtype is the weights')");
    return Status::ok();
  }

  // Megatron-LM's training keys (docs/scenario-format.md, "training"): the
  // fp32 main_grad and the distributed optimizer are modelled for
  // transformers; the fp32 main_grad for gradients kept whole
  // on every data rank (Megatron's DDP and distributed optimizer, ZeRO 0-1).
  Status check_megatron_training() {
    const TrainingSpec& tr = s_.training;
    const bool transformer = s_.model_kind == ModelKind::kTransformer;
    const std::string kind = model_kind_name(s_.model_kind);
    if (tr.main_grad_fp32 && !transformer)
      return at("training.main_grad",
                "found main_grad fp32 with " + kind +
                    " model; expected main_grad weights (Megatron-LM's fp32 gradient buffer is "
                    "modelled for transformer models)",
                ErrorKind::kUnsupported);
    if (!tr.gradient_accumulation_fusion && !transformer)
      return at("training.gradient_accumulation_fusion",
                "found gradient_accumulation_fusion: false with " + kind +
                    " model; expected true (Megatron-LM's unfused gradient accumulation is "
                    "modelled for transformer models)",
                ErrorKind::kUnsupported);
    if (tr.main_grad_fp32 && st_.zero >= 2)
      return at("training.main_grad",
                "found main_grad fp32 with zero " + std::to_string(st_.zero) +
                    "; expected zero 0 or 1 (Megatron-LM keeps its fp32 main_grad whole on "
                    "every data rank, under DDP and the distributed optimizer alike)",
                ErrorKind::kUnsupported);
    if (tr.distributed_optimizer && !transformer)
      return at("training.distributed_optimizer",
                "found distributed_optimizer with " + kind +
                    " model; expected a transformer model (Megatron-LM's distributed optimizer "
                    "is modelled for transformers)",
                ErrorKind::kUnsupported);
    if (!tr.tp_backward_overlap && !transformer)
      return at("training.tp_backward_overlap",
                "found tp_backward_overlap: false with " + kind +
                    " model; expected true or no key (the column-parallel backward's "
                    "asynchronous collectives are modelled for transformer models)",
                ErrorKind::kUnsupported);
    if (tr.cross_entropy_fusion && !transformer)
      return at("training.cross_entropy_fusion",
                "found cross_entropy_fusion: true with " + kind +
                    " model; expected false (Megatron-LM's fused cross-entropy is modelled for "
                    "transformer models)",
                ErrorKind::kUnsupported);
    if (tr.transformer_impl != TransformerImpl::kTransformerEngine && !transformer)
      return at("training.transformer_impl",
                "found transformer_impl " +
                    std::string(transformer_impl_name(tr.transformer_impl)) + " with " + kind +
                    " model; expected no transformer_impl key (Megatron-LM's layer "
                    "implementations are modelled for transformer models)",
                ErrorKind::kUnsupported);
    BRIGADE_RETURN_IF_ERROR(check_recompute_method());
    BRIGADE_RETURN_IF_ERROR(check_op_recompute());
    BRIGADE_RETURN_IF_ERROR(check_apex_optimizer());
    BRIGADE_RETURN_IF_ERROR(check_fp8());
    BRIGADE_RETURN_IF_ERROR(check_attention_backend());
    BRIGADE_RETURN_IF_ERROR(check_tp_comm_overlap());
    if (tr.distributed_optimizer && st_.zero != 1)
      return at("training.distributed_optimizer",
                "found distributed_optimizer with zero " + std::to_string(st_.zero) +
                    "; expected zero 1 or no zero key (Megatron-LM's distributed optimizer "
                    "shards the optimizer state over 'data': ZeRO-1's sharding)");
    return Status::ok();
  }

  // Full recomputation's layers (training.recompute_method,
  // recompute_num_layers; docs/costmodel.md, "Block recomputation"):
  // Megatron-LM asserts --recompute-granularity full with a method; block
  // is modelled for transformers, uniform for groups of one layer.
  Status check_recompute_method() {
    const TrainingSpec& tr = s_.training;
    if (tr.recompute_method == RecomputeMethod::kUniform) {
      if (tr.recompute_num_layers == 1) return Status::ok();
      return at("training.recompute_num_layers",
                "found recompute_num_layers " + std::to_string(tr.recompute_num_layers) +
                    " with recompute_method uniform; expected 1 (uniform checkpoints each layer on "
                    "its own; groups of several layers are not modelled) or recompute_method block",
                ErrorKind::kUnsupported);
    }
    if (s_.model_kind != ModelKind::kTransformer)
      return at("training.recompute_method",
                "found recompute_method block with " + model_kind_name(s_.model_kind) +
                    " model; expected no recompute_method key (block recomputation is modelled "
                    "for transformer models)",
                ErrorKind::kUnsupported);
    if (tr.recompute != Recompute::kFull)
      return at("training.recompute_method",
                "found recompute_method block with recompute " +
                    std::string(recompute_name(tr.recompute)) +
                    "; expected recompute full (Megatron-LM's --recompute-method chooses the "
                    "layers of --recompute-granularity full)");
    return Status::ok();
  }

  // Op-level selective checkpointing (recompute: op; docs/costmodel.md,
  // "Op-level selective checkpointing"): torchtitan's policy over a dense
  // layer's matmuls and its SDPA kernel, modelled on the layers it wraps.
  Status check_op_recompute() {
    const TrainingSpec& tr = s_.training;
    if (tr.recompute != Recompute::kOp) return Status::ok();
    if (s_.model_kind != ModelKind::kTransformer)
      return at("training.recompute",
                "found recompute op with " + model_kind_name(s_.model_kind) +
                    " model; expected none, selective or full (op-level checkpointing is "
                    "modelled for transformer layers)",
                ErrorKind::kUnsupported);
    const TransformerSpec& m = s_.transformer;
    if (m.attention != AttentionKernel::kFlash)
      return at("training.recompute",
                "found recompute op with attention unfused; expected model.transformer."
                "attention: flash (the policy keeps the outputs of SDPA's flash kernel; an "
                "unfused core's are not modelled)",
                ErrorKind::kUnsupported);
    if (m.moe.enabled() || m.mla.enabled())
      return at("training.recompute",
                std::string("found recompute op with ") +
                    (m.moe.enabled() ? "MoE layers" : "MLA attention") +
                    "; expected a dense layer with multi-head or grouped-query attention (the "
                    "policy's matmuls are counted on those layers' linears)",
                ErrorKind::kUnsupported);
    if (tr.tp_comm_overlap)
      return at("training.recompute",
                "found recompute op with tp_comm_overlap: true; expected recompute none, "
                "selective or full (Transformer Engine's userbuffers and torchtitan's op policy "
                "are modelled apart)",
                ErrorKind::kUnsupported);
    return Status::ok();
  }

  // Transformer Engine's tensor-parallel overlap (training.tp_comm_overlap;
  // docs/costmodel.md): Megatron-LM asserts --sequence-parallel with
  // --tp-comm-overlap, and only Transformer Engine's layers have
  // userbuffers.
  Status check_tp_comm_overlap() {
    const TrainingSpec& tr = s_.training;
    if (!tr.tp_comm_overlap) return Status::ok();
    if (s_.model_kind != ModelKind::kTransformer)
      return at("training.tp_comm_overlap",
                "found tp_comm_overlap: true with " + model_kind_name(s_.model_kind) +
                    " model; expected false (Transformer Engine's tensor-parallel overlap is "
                    "modelled for transformer models)",
                ErrorKind::kUnsupported);
    if (tr.inference)
      return at("training.tp_comm_overlap",
                "found tp_comm_overlap: true with mode inference; expected false (Megatron-LM "
                "overlaps the tensor collectives of training steps)",
                ErrorKind::kUnsupported);
    if (st_.tensor < 2 || !st_.sequence_parallel)
      return at("training.tp_comm_overlap",
                "found tp_comm_overlap: true with tensor " + std::to_string(st_.tensor) +
                    (st_.sequence_parallel ? "" : " and no sequence_parallel") +
                    "; expected tensor > 1 with sequence_parallel: true (Megatron-LM refuses "
                    "--tp-comm-overlap without --sequence-parallel: the overlap hides its "
                    "all-gathers and reduce-scatters)");
    if (tr.transformer_impl == TransformerImpl::kLocal)
      return at("training.transformer_impl",
                "found transformer_impl local with tp_comm_overlap: true; expected "
                "transformer_impl transformer_engine (the overlap is Transformer Engine's "
                "userbuffers)");
    return Status::ok();
  }

  // The fused attention's kernel (training.attention_backend; docs/
  // costmodel.md, "Which attention kernel runs"): a choice between two
  // implementations of `attention: flash`, and FusedAttention is
  // Transformer Engine's.
  Status check_attention_backend() {
    const TrainingSpec& tr = s_.training;
    if (tr.attention_backend == AttentionBackend::kAuto) return Status::ok();
    const std::string backend(attention_backend_name(tr.attention_backend));
    if (s_.model_kind != ModelKind::kTransformer)
      return at("training.attention_backend",
                "found attention_backend " + backend + " with " +
                    model_kind_name(s_.model_kind) +
                    " model; expected no attention_backend key (the fused attention's kernel is "
                    "modelled for transformer models)",
                ErrorKind::kUnsupported);
    if (s_.transformer.attention != AttentionKernel::kFlash)
      return at("training.attention_backend",
                "found attention_backend " + backend +
                    " with attention unfused; expected model.transformer.attention: flash, or "
                    "no attention_backend key (the backend says which kernel runs the fused "
                    "attention)");
    if (tr.attention_backend == AttentionBackend::kFused &&
        tr.transformer_impl == TransformerImpl::kLocal)
      return at("training.attention_backend",
                "found attention_backend fused with transformer_impl local; expected "
                "transformer_impl transformer_engine, or attention_backend flash (FusedAttention, "
                "cuDNN's kernel, is Transformer Engine's)");
    return Status::ok();
  }

  // FP8 training (docs/scenario-format.md, "training"; docs/costmodel.md,
  // "FP8 training"): Transformer Engine's recipe for a transformer in bf16
  // or f16 on devices with FP8 tensor cores. A transformer's dtype fp8 in
  // training (every kernel and tensor in FP8) is not what Megatron-LM or
  // NeMo run: refused, pointing at the key that is.
  Status check_fp8() {
    const TrainingSpec& tr = s_.training;
    const bool transformer = s_.model_kind == ModelKind::kTransformer;
    if (transformer && !tr.inference && s_.transformer.dtype == DType::kFP8)
      return at("model.transformer.dtype",
                "found dtype fp8 for training; expected dtype bf16 with training.fp8: hybrid "
                "(Transformer Engine keeps bf16 weights and activations and runs only the "
                "linear layers' GEMMs in FP8)");
    if (tr.fp8 == Fp8Recipe::kNone) {
      if (tr.fp8_scaling != Fp8Scaling::kDelayed)
        return at("training.fp8_recipe",
                  "found fp8_recipe " + std::string(fp8_scaling_name(tr.fp8_scaling)) +
                      " with fp8: none; expected fp8: hybrid or e4m3, or no fp8_recipe key (the "
                      "recipe says how Transformer Engine scales FP8 tensors)");
      if (tr.fp8_param_gather)
        return at("training.fp8_param_gather",
                  "found fp8_param_gather: true with fp8: none; expected fp8: hybrid or e4m3, or "
                  "no fp8_param_gather key (Transformer Engine's FP8 primary weights)");
      if (tr.fp8_amax_group != Fp8AmaxGroup::kTensorContext)
        return at("training.fp8_amax_group",
                  "found fp8_amax_group " + std::string(fp8_amax_group_name(tr.fp8_amax_group)) +
                      " with fp8: none; expected fp8: hybrid or e4m3 with fp8_recipe delayed, or "
                      "no fp8_amax_group key (the group delayed scaling reduces its amaxes over)");
      return Status::ok();
    }
    if (tr.fp8_amax_group != Fp8AmaxGroup::kTensorContext && tr.fp8_scaling != Fp8Scaling::kDelayed)
      return at("training.fp8_amax_group",
                "found fp8_amax_group " + std::string(fp8_amax_group_name(tr.fp8_amax_group)) +
                    " with fp8_recipe " + std::string(fp8_scaling_name(tr.fp8_scaling)) +
                    "; expected fp8_recipe delayed, or no fp8_amax_group key (current scaling "
                    "reduces each tensor's amax over 'tensor' before its cast, not a group's "
                    "amaxes once a pass)");
    // FP8 primary weights (--fp8-param-gather) under Megatron-LM's DDP and
    // distributed optimizer; Megatron-FSDP's own FP8 parameters (ZeRO-3) and
    // ZeRO-2 are not modelled with them.
    if (tr.fp8_param_gather && !tr.inference && st_.zero >= 2)
      return at("training.fp8_param_gather",
                "found fp8_param_gather: true with zero " + std::to_string(st_.zero) +
                    "; expected zero 0 or 1 (FP8 primary weights are modelled under Megatron-LM's "
                    "data parallelism and distributed optimizer)",
                ErrorKind::kUnsupported);
    const std::string recipe(fp8_recipe_name(tr.fp8));
    if (!transformer)
      return at("training.fp8",
                "found fp8 " + recipe + " with " + model_kind_name(s_.model_kind) +
                    " model; expected fp8: none (Transformer Engine's FP8 is modelled for "
                    "transformer models)",
                ErrorKind::kUnsupported);
    if (tr.transformer_impl == TransformerImpl::kLocal)
      return at("training.transformer_impl",
                "found transformer_impl local with fp8 " + recipe +
                    "; expected transformer_impl transformer_engine (Megatron-LM runs FP8 only "
                    "through Transformer Engine's layers)");
    const DType dt = s_.transformer.dtype;
    if (dt != DType::kBF16 && dt != DType::kF16)
      return at("training.fp8",
                "found fp8 " + recipe + " with dtype " + std::string(dtype_name(dt)) +
                    "; expected dtype bf16 or f16 (FP8 GEMMs cast from 16-bit activations and "
                    "weights)");
    for (const Device& d : s_.topology.devices())
      if (!(d.peak_flops_per_second[dtype_index(DType::kFP8)] > 0))
        return at("training.fp8",
                  "found fp8 " + recipe + " on " + d.name + " (" + d.model +
                      "), which has no FP8 tensor cores; expected fp8: none, or devices with "
                      "FP8 (H100, H200)",
                  ErrorKind::kUnsupported);
    return Status::ok();
  }

 private:
  Status at(const std::string& key, const std::string& message,
            ErrorKind kind = ErrorKind::kBadInput) const {
    return Status::at(s_.where(key), message, kind);
  }

  const Scenario& s_;
  const StrategySpec& st_;
};

}  // namespace

Status check_pipeline_engine(const Scenario& s) {
  return FrameworkChecker(s).check_pipeline_engine();
}

Status check_framework_training(const Scenario& s) {
  return FrameworkChecker(s).check_megatron_training();
}

}  // namespace brigade::detail
