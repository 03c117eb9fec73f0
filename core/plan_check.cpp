#include "core/plan_check.hpp"

#include "core/plan_check_internal.hpp"

#include <numeric>
#include "core/nvls.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <set>
#include <string>

namespace brigade {
namespace {

using detail::check_framework_training;
using detail::check_pipeline_engine;
using detail::model_kind_name;

constexpr std::int64_t kMaxDimension = ScenarioLimits::kMaxDimension;
// FLOPs of one step: the kFlops range of core/units.hpp.
constexpr double kMaxFlopsPerStep = 1e30;
const char* const kLimitsDoc = "(docs/scenario-format.md, \"Limits\")";

// A JAX-style shape for messages: (8, 512), (8,).
std::string tuple_str(const std::vector<std::int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

std::string list_str(const std::vector<std::int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// A number as written in a file: 4, 2.5, 2.6666666666666665 (shortest round trip).
std::string num_str(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& names) {
  if (auto m = closest_match_in(word, names)) return " (did you mean '" + *m + "'?)";
  return "";
}

class PlanChecker {
 public:
  explicit PlanChecker(const Scenario& s) : s_(s), st_(s.strategy) {}

  Status run() {
    if (s_.model_kind == ModelKind::kNone)
      return at("model", "found no model; expected one of mlp, transformer, huggingface, graph or collective");
    BRIGADE_RETURN_IF_ERROR(check_strategy_ranges());
    BRIGADE_RETURN_IF_ERROR(check_model_support());
    if (s_.model_kind == ModelKind::kTransformer) BRIGADE_RETURN_IF_ERROR(check_transformer());
    BRIGADE_RETURN_IF_ERROR(check_device_count());
    BRIGADE_RETURN_IF_ERROR(check_batch());
    BRIGADE_RETURN_IF_ERROR(check_sizes());
    BRIGADE_RETURN_IF_ERROR(check_placement());
    BRIGADE_RETURN_IF_ERROR(check_mesh());
    if (s_.model_kind == ModelKind::kCollective) BRIGADE_RETURN_IF_ERROR(check_collective());
    BRIGADE_RETURN_IF_ERROR(check_nvls());
    return Status::ok();
  }

 private:
  Status at(const std::string& key, const std::string& message,
            ErrorKind kind = ErrorKind::kBadInput) const {
    return Status::at(s_.where(key), message, kind);
  }

  int devices() const { return s_.topology.num_devices(); }

  Status check_strategy_ranges() {
    if (st_.zero < 0 || st_.zero > 3)
      return at("strategy.zero",
                "found zero " + std::to_string(st_.zero) + "; expected a ZeRO stage: 0, 1, 2 or 3");
    if (st_.sequence_parallel && st_.tensor == 1)
      return at("strategy.sequence_parallel",
                "found sequence_parallel with tensor 1; expected tensor >= 2 (sequence parallelism "
                "splits the activations a tensor-parallel group would replicate)");
    if (st_.virtual_stages > 1 && st_.schedule != PipelineSchedule::kInterleaved)
      return at("strategy.virtual_stages",
                "found virtual_stages " + std::to_string(st_.virtual_stages) + " with schedule " +
                    std::string(schedule_name(st_.schedule)) +
                    "; expected schedule interleaved (virtual stages are the model chunks of "
                    "interleaved 1F1B)");
    if (st_.schedule == PipelineSchedule::kInterleaved && st_.pipeline == 1)
      return at("strategy.schedule",
                "found schedule interleaved with pipeline 1; expected pipeline >= 2");
    return check_pipeline_engine(s_);
  }

  // What each model kind supports (docs/scenario-format.md, "What each model
  // supports"): MLPs are lowered data-parallel; graphs are distributed by a
  // placement or a mesh; a collective names its own group.
  Status check_model_support() {
    const bool degrees = st_.data > 1 || st_.tensor > 1 || st_.pipeline > 1 || st_.context > 1;
    if (st_.context > 1 && s_.model_kind != ModelKind::kTransformer)
      return at("strategy.context",
                "found context " + std::to_string(st_.context) + " with " +
                    model_kind_name(s_.model_kind) +
                    " model; expected context 1 (context parallelism splits a transformer's "
                    "sequence)",
                ErrorKind::kUnsupported);
    switch (s_.model_kind) {
      case ModelKind::kMlp:
        if (st_.tensor > 1)
          return at("strategy.tensor",
                    "found tensor " + std::to_string(st_.tensor) +
                        " with an mlp model; expected tensor 1 (an MLP is lowered data-parallel "
                        "only; for tensor parallelism use a transformer or a graph with a mesh)",
                    ErrorKind::kUnsupported);
        if (st_.pipeline > 1)
          return at("strategy.pipeline",
                    "found pipeline " + std::to_string(st_.pipeline) +
                        " with an mlp model; expected pipeline 1 (pipeline parallelism is "
                        "supported for transformer models)",
                    ErrorKind::kUnsupported);
        break;
      case ModelKind::kGraph:
        if (degrees)
          return at("strategy",
                    "found strategy degrees " + degrees_str() +
                        " with a graph model; expected a placement or a mesh with "
                        "shardings to distribute a graph",
                    ErrorKind::kUnsupported);
        break;
      case ModelKind::kCollective:
        if (degrees)
          return at("strategy",
                    "found strategy degrees " + degrees_str() +
                        " with a collective model; expected none (the collective's "
                        "group names its devices)",
                    ErrorKind::kUnsupported);
        break;
      case ModelKind::kTransformer:
      case ModelKind::kNone:
        break;
    }
    // ZeRO: any stage for a transformer; stages 1 and 2 for a batch-sharded
    // MLP (its optimizer state and gradients split over 'data'); none for a
    // graph, whose shardings say where its weights live.
    if (st_.zero > 0 && s_.model_kind != ModelKind::kTransformer &&
        (st_.zero >= 3 || s_.model_kind != ModelKind::kMlp || st_.data_mode == DataMode::kPmap))
      return at("strategy.zero",
                "found zero " + std::to_string(st_.zero) + " with " +
                    model_kind_name(s_.model_kind) + " model; expected " +
                    (s_.model_kind == ModelKind::kMlp
                         ? "zero 0, 1 or 2 under batch sharding (ZeRO-3 is planned for "
                           "transformer models only)"
                         : "zero 0 (ZeRO is planned for transformers and batch-sharded MLPs)"),
                ErrorKind::kUnsupported);
    BRIGADE_RETURN_IF_ERROR(check_framework_training(s_));
    if (s_.model_kind != ModelKind::kGraph) {
      const std::string kind = model_kind_name(s_.model_kind);
      if (!s_.placement.empty())
        return at("placement", "found 'placement' with " + kind +
                                   " model; expected a graph model (placement names its ops)");
      if (!s_.device_put.empty())
        return at("device_put",
                  "found 'device_put' with " + kind +
                      " model; expected a graph model (device_put names its tensors)");
      if (s_.mesh)
        return at("mesh", "found 'mesh' with " + kind +
                              " model; expected a graph model (shardings name its tensors)");
      if (!s_.shardings.empty())
        return at("shardings", "found 'shardings' with " + kind +
                                   " model; expected a graph model (shardings name its tensors)");
    }
    return Status::ok();
  }

  std::string degrees_str() const {
    return "data " + std::to_string(st_.data) + " x tensor " + std::to_string(st_.tensor) +
           (st_.context > 1 ? " x context " + std::to_string(st_.context) : std::string()) +
           " x pipeline " + std::to_string(st_.pipeline);
  }

  Status check_transformer() {
    const TransformerSpec& t = s_.transformer;
    // The FFN width in range before anything rounds it to an integer.
    const double ffn_real = t.ffn_hidden > 0 ? static_cast<double>(t.ffn_hidden)
                                             : t.ffn_ratio * static_cast<double>(t.hidden);
    if (!(ffn_real >= 0.5 && ffn_real < static_cast<double>(kMaxDimension) + 0.5))
      return at("model.transformer.ffn_ratio",
                "found FFN width " + num_str(ffn_real) + " (ffn_ratio " + num_str(t.ffn_ratio) +
                    " x hidden " + std::to_string(t.hidden) + "); expected an FFN width from 1 to " +
                    std::to_string(kMaxDimension) + " " + kLimitsDoc);
    if (t.head_dim == 0 && t.hidden % t.heads != 0)
      return at("model.transformer.hidden",
                "found hidden " + std::to_string(t.hidden) + " with heads " +
                    std::to_string(t.heads) +
                    "; expected hidden divisible by heads (a whole head dimension hidden/heads), "
                    "or model.transformer.head_dim set to the heads' own width");
    if (t.heads % st_.tensor != 0)
      return at("strategy.tensor",
                "found tensor " + std::to_string(st_.tensor) + " with heads " +
                    std::to_string(t.heads) +
                    "; expected tensor to divide heads (each tensor-parallel rank holds "
                    "heads/tensor attention heads)");
    // Megatron-LM's tensor parallelism splits the FFN columns, the vocabulary
    // rows and, with sequence parallelism, the sequence over the tensor group
    // (Shoeybi et al. 2019 §3; Korthikanti et al. 2022 §4.2.2).
    const std::int64_t tp = st_.tensor;
    // Megatron-Core splits the key/value heads (query groups) over the tensor
    // group too: num_query_groups % tensor_model_parallel_size == 0.
    if (t.key_value_heads() % tp != 0)
      return at("strategy.tensor",
                "found tensor " + std::to_string(tp) + " with kv_heads " +
                    std::to_string(t.key_value_heads()) +
                    "; expected tensor to divide kv_heads (each tensor-parallel rank holds "
                    "kv_heads/tensor key/value heads, as Megatron-Core splits query groups)");
    const std::int64_t ffn = ffn_width(t);
    if (ffn % tp != 0 && t.ffn_hidden > 0)
      return at("model.transformer.ffn_hidden",
                "found ffn_hidden " + std::to_string(ffn) + " with tensor " + std::to_string(tp) +
                    "; expected a multiple of tensor (each tensor-parallel rank holds "
                    "ffn_hidden/tensor columns of fc1)");
    if (ffn % tp != 0)
      return at("model.transformer.ffn_ratio",
                "found FFN width " + std::to_string(ffn) + " (ffn_ratio " + num_str(t.ffn_ratio) +
                    " x hidden " + std::to_string(t.hidden) + ") with tensor " +
                    std::to_string(tp) +
                    "; expected a multiple of tensor (each tensor-parallel rank holds "
                    "FFN width/tensor columns of fc1)");
    if (t.vocab % tp != 0)
      return at("model.transformer.vocab",
                "found vocab " + std::to_string(t.vocab) + " with tensor " + std::to_string(tp) +
                    "; expected a multiple of tensor, such as " +
                    std::to_string((t.vocab / tp + 1) * tp) +
                    " (Megatron-LM pads the vocabulary; each rank holds vocab/tensor rows)");
    if (st_.sequence_parallel && t.seq % tp != 0)
      return at("model.transformer.seq",
                "found seq " + std::to_string(t.seq) + " with sequence_parallel over tensor " +
                    std::to_string(tp) +
                    "; expected a multiple of tensor (each rank keeps seq/tensor positions)");
    BRIGADE_RETURN_IF_ERROR(check_experts());
    BRIGADE_RETURN_IF_ERROR(check_context());
    const std::int64_t stages = static_cast<std::int64_t>(st_.pipeline) * st_.virtual_stages;
    // Megatron-Core's split with the embedding and the loss counted as
    // layers (core/plan_check.hpp, PipelineSplit).
    const int extra = (st_.embedding_in_pipeline_split ? 1 : 0) + (st_.loss_in_pipeline_split ? 1 : 0);
    if (extra > 0) {
      const std::string counted =
          std::string(st_.embedding_in_pipeline_split && st_.loss_in_pipeline_split
                          ? "the embedding and the loss"
                          : st_.embedding_in_pipeline_split ? "the embedding" : "the loss");
      const std::string key = st_.embedding_in_pipeline_split
                                  ? "strategy.embedding_in_pipeline_split"
                                  : "strategy.loss_in_pipeline_split";
      const std::int64_t split = t.layers + extra;
      if (split % stages != 0)
        return at(key, "found " + std::to_string(t.layers) + " layers + " + counted + " = " +
                           std::to_string(split) + " over " + std::to_string(stages) +
                           " pipeline stages (pipeline " + std::to_string(st_.pipeline) +
                           " x virtual_stages " + std::to_string(st_.virtual_stages) +
                           "); expected a multiple of " + std::to_string(stages) +
                           " (Megatron-Core counts " + counted + " as layers of the split)");
      // A chunk of the embedding or the loss alone (Megatron-Core builds
      // it) is not modelled: each chunk keeps a layer.
      if (stages > 1 && split / stages < 2)
        return at(key, "found " + std::to_string(split / stages) +
                           " layer a chunk with " + counted +
                           " counted; expected at least 2, so that the chunk holding " + counted +
                           " keeps a layer (a chunk of the embedding or the loss alone is not "
                           "modelled)");
      return Status::ok();
    }
    if (t.layers % stages != 0)
      return at("strategy.pipeline",
                "found " + std::to_string(t.layers) + " layers over " + std::to_string(stages) +
                    " pipeline stages (pipeline " + std::to_string(st_.pipeline) +
                    " x virtual_stages " + std::to_string(st_.virtual_stages) +
                    "); expected layers divisible by " + std::to_string(stages));
    return Status::ok();
  }

  // Context parallelism as Megatron-Core runs it (Transformer Engine's
  // AttnFuncWithCPAndKVP2P): the sequence in 2 x context chunks
  // (get_batch_on_this_cp_rank), the attention fused.
  Status check_context() {
    const int cp = st_.context;
    if (cp == 1) return Status::ok();
    const TransformerSpec& t = s_.transformer;
    const std::string cp_s = std::to_string(cp), seq_s = std::to_string(t.seq);
    if (t.seq % cp != 0)
      return at("strategy.context",
                "found context " + cp_s + " with seq " + seq_s +
                    "; expected a divisor of seq (each context-parallel rank holds seq/context "
                    "positions)");
    if (t.seq % (2 * cp) != 0)
      return at("strategy.context",
                "found context " + cp_s + " with seq " + seq_s + "; expected seq divisible by 2 x context = " +
                    std::to_string(2 * cp) +
                    " (the sequence is cut in 2 x context chunks, rank c holding chunks c and "
                    "2 x context - 1 - c, so that every rank has the same share of the causal "
                    "mask's work)");
    if (st_.sequence_parallel && (t.seq / cp) % st_.tensor != 0)
      return at("strategy.context",
                "found " + std::to_string(t.seq / cp) + " positions per context rank (seq " + seq_s +
                    " / context " + cp_s + ") with sequence_parallel over tensor " +
                    std::to_string(st_.tensor) +
                    "; expected a multiple of tensor (each rank keeps seq/context/tensor positions)");
    if (t.attention != AttentionKernel::kFlash)
      return at("strategy.context",
                "found context " + cp_s +
                    " with attention unfused; expected attention: flash (Transformer Engine runs "
                    "context parallelism in its fused attention only)");
    if (st_.expert > 1)
      return at("strategy.context",
                "found context " + cp_s + " with expert " + std::to_string(st_.expert) +
                    "; expected expert 1 with context parallelism (Megatron-Core folds context "
                    "into the expert-data group; not modelled yet)",
                ErrorKind::kUnsupported);
    if (t.mla.enabled())
      return at("strategy.context",
                "found context " + cp_s +
                    " with multi-head latent attention; expected context 1 (not modelled)",
                ErrorKind::kUnsupported);
    return Status::ok();
  }

  // A mixture of experts and expert parallelism (Megatron-Core's
  // constraints: num_moe_experts % expert_model_parallel_size == 0, the
  // expert group inside the data group).
  Status check_experts() {
    const TransformerSpec& t = s_.transformer;
    const MoeSpec& moe = t.moe;
    const int ep = st_.expert;
    if (t.mla.enabled())
      return at("model.huggingface",
                "found multi-head latent attention (kv_lora_rank " +
                    std::to_string(t.mla.kv_lora_rank) +
                    "); expected grouped-query or multi-head attention (MLA's parameters and "
                    "FLOPs are counted, its kernels are not modelled yet: write the model as "
                    "model.transformer with kv_heads to plan it)");
    const std::string ep_s = std::to_string(ep);
    if (!moe.enabled()) {
      if (ep > 1)
        return at("strategy.expert",
                  "found expert " + ep_s +
                      " with a dense model; expected expert 1 (expert parallelism splits the "
                      "experts of a mixture of experts: model.transformer.moe)");
      return Status::ok();
    }
    const std::string where_moe = t.source.empty() ? "model.transformer.moe" : "model.huggingface";
    const std::int64_t tp = st_.tensor;
    if (moe.ffn_hidden % tp != 0)
      return at(where_moe, "found expert FFN width " + std::to_string(moe.ffn_hidden) +
                               " with tensor " + std::to_string(tp) +
                               "; expected a multiple of tensor (each tensor-parallel rank holds "
                               "ffn_hidden/tensor columns of every expert)");
    if (t.moe_layers() != t.layers)
      return at(where_moe,
                "found " + std::to_string(t.moe_layers()) + " MoE layers of " +
                    std::to_string(t.layers) + " (first_dense " + std::to_string(moe.first_dense) +
                    ", every " + std::to_string(moe.every) +
                    "); expected every layer MoE (dense and MoE layers in one model are counted "
                    "but not yet judged by cost and simulate)");
    if (ep == 1) return Status::ok();
    if (moe.experts % ep != 0)
      return at("strategy.expert",
                "found expert " + ep_s + " with " + std::to_string(moe.experts) +
                    " experts; expected a divisor of the experts, such as " +
                    std::to_string(std::gcd(moe.experts, static_cast<std::int64_t>(ep))) +
                    " (each expert-parallel rank holds experts/expert whole experts)");
    if (st_.data % ep != 0)
      return at("strategy.expert",
                "found expert " + ep_s + " with data " + std::to_string(st_.data) +
                    "; expected a divisor of data (the expert-parallel group is made of "
                    "consecutive data-parallel ranks, as in Megatron-Core and DeepSpeed-MoE)");
    if (tp > 1)
      return at("strategy.expert",
                "found expert " + ep_s + " with tensor " + std::to_string(tp) +
                    "; expected tensor 1 with expert parallelism (expert-tensor parallelism "
                    "is not modelled yet; use expert 1 to split the experts over 'tensor')");
    // ZeRO-1 (Megatron-Core's distributed optimizer) shards the experts'
    // optimizer state over the expert-data group; ZeRO-2 and -3 over it
    // (DeepSpeed-MoE's) are not modelled.
    if (st_.zero >= 2)
      return at("strategy.zero",
                "found zero " + std::to_string(st_.zero) + " with expert " + ep_s +
                    "; expected zero 0 or 1 with expert parallelism (ZeRO-1, Megatron-Core's "
                    "distributed optimizer, shards the experts' optimizer state over the "
                    "expert-data group; sharding their gradients or weights there is not "
                    "modelled yet)");
    return Status::ok();
  }

  Status check_device_count() {
    if (!s_.has_strategy) return Status::ok();
    if (s_.model_kind != ModelKind::kMlp && s_.model_kind != ModelKind::kTransformer)
      return Status::ok();
    const std::int64_t need =
        static_cast<std::int64_t>(st_.data) * st_.tensor * st_.context * st_.pipeline;
    if (need != devices())
      return at("strategy", "found a plan for " + std::to_string(need) + " devices (" +
                                degrees_str() + "); expected the topology's " +
                                std::to_string(devices()) + " devices");
    return Status::ok();
  }

  // Where the batch was written, for messages.
  std::string batch_key() const {
    if (s_.training.global_batch > 0) return "training.global_batch";
    return s_.model_kind == ModelKind::kMlp ? "model.mlp.batch" : "model.transformer";
  }

  Status check_batch() {
    if (s_.model_kind != ModelKind::kMlp && s_.model_kind != ModelKind::kTransformer)
      return Status::ok();
    if (s_.model_kind == ModelKind::kMlp && s_.training.global_batch > 0 &&
        s_.training.global_batch != s_.mlp.batch)
      return at("training.global_batch",
                "found global_batch " + std::to_string(s_.training.global_batch) +
                    " with model.mlp.batch " + std::to_string(s_.mlp.batch) +
                    "; expected one batch size (give it once)");
    const std::int64_t batch = global_batch(s_);
    if (batch <= 0)
      return at("model.transformer",
                "found no training.global_batch; expected the global batch "
                "(sequences per step) of a transformer");
    const std::int64_t row =
        s_.model_kind == ModelKind::kMlp ? s_.mlp.widths.front() : s_.transformer.seq;
    Result<std::vector<std::int64_t>> block =
        per_device_input_shape({batch, row}, st_.data, st_.data_mode);
    if (!block.is_ok()) return at(batch_key(), block.message());
    const std::int64_t per_replica = per_replica_batch(s_);
    const std::int64_t micro = s_.training.micro_batch;
    if (micro > 0 && per_replica % micro != 0)
      return at("training.micro_batch", "found micro_batch " + std::to_string(micro) +
                                            "; expected a divisor of the per-replica batch " +
                                            std::to_string(per_replica) + " (global batch " +
                                            std::to_string(batch) + " / data " +
                                            std::to_string(st_.data) + ")");
    if (st_.schedule == PipelineSchedule::kInterleaved) {
      // Megatron-LM's interleaved schedule requires it (Narayanan et al. 2021,
      // Sec. 2.2.2; megatron/core/pipeline_parallel/schedules.py).
      const std::int64_t micro_batches = per_replica / (micro > 0 ? micro : 1);
      if (micro_batches % st_.pipeline != 0)
        return at("strategy.schedule",
                  "found " + std::to_string(micro_batches) +
                      " micro-batches per replica with schedule interleaved over pipeline " +
                      std::to_string(st_.pipeline) + "; expected a multiple of " +
                      std::to_string(st_.pipeline));
    }
    return Status::ok();
  }

  // Derived quantities in range (issue 20, item 4): every count the judges
  // compute (parameters, a tensor's elements, FLOPs per step, tasks) must be
  // one they can hold, computed here in double, which cannot overflow for
  // dimensions below 2^31. The message points at the key whose value makes
  // the quantity too large.
  Status check_sizes() {
    if (s_.model_kind == ModelKind::kTransformer) return check_transformer_sizes();
    if (s_.model_kind == ModelKind::kMlp) return check_mlp_sizes();
    if (s_.model_kind == ModelKind::kGraph) {
      const double flops = s_.graph.total_flops();
      if (!(flops <= kMaxFlopsPerStep))
        return too_large("model.graph", sci(flops) + " FLOP per step", "1e30 FLOP");
    }
    return Status::ok();
  }

  static std::string sci(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
  }

  Status too_large(const std::string& key, const std::string& found,
                   const std::string& limit) const {
    return at(key, "found " + found + "; expected at most " + limit + " " + kLimitsDoc);
  }

  Status check_transformer_sizes() {
    const TransformerSpec& t = s_.transformer;
    const double L = static_cast<double>(t.layers), h = static_cast<double>(t.hidden);
    const double a = static_cast<double>(t.heads), s = static_cast<double>(t.seq);
    const double V = static_cast<double>(t.vocab), f = static_cast<double>(ffn_width(t));
    const double B = static_cast<double>(global_batch(s_));
    const std::int64_t per_replica = per_replica_batch(s_);
    const double b = static_cast<double>(micro_batch_size(s_));
    // Parameters (Megatron-LM, Narayanan et al. 2021 Eq. 2, with the FFN
    // width f in place of 4h): per layer 4h^2 + 2hf + 9h + f, embeddings (V + s)h.
    const double layer_params = L * (4 * h * h + 2 * h * f + 9 * h + f);
    const double embed_params = (V + s) * h;
    const double params = layer_params + embed_params;
    if (!(params <= kMaxTensorElements)) {
      std::string key = "model.transformer.vocab";
      if (layer_params >= embed_params) key = L > h ? "model.transformer.layers" : "model.transformer.hidden";
      return too_large(key, sci(params) + " parameters", "2^53 (9.01e15) parameters");
    }
    // The largest tensors of one micro-batch: activations (b, s, h) and
    // (b, s, f), attention scores (b, a, s, s), logits (b, s, V).
    struct Tensor {
      const char* what;
      double elements;
      const char* key;
    };
    const Tensor tensors[] = {
        {"an activation (micro-batch x seq x hidden)", b * s * h, "model.transformer.hidden"},
        {"an FFN activation (micro-batch x seq x FFN width)", b * s * f,
         "model.transformer.ffn_ratio"},
        {"attention scores (micro-batch x heads x seq x seq)", b * a * s * s,
         "model.transformer.seq"},
        {"logits (micro-batch x seq x vocab)", b * s * V, "model.transformer.vocab"},
    };
    for (const Tensor& x : tensors)
      if (!(x.elements <= kMaxTensorElements))
        return too_large(x.key, std::string(x.what) + " of " + sci(x.elements) + " elements",
                         "2^53 (9.01e15) elements");
    // FLOPs per step: 6 per parameter per token (forward and backward) plus
    // attention's 12 L s^2 h per sequence (Narayanan et al. 2021, Eq. 3).
    const double flops = 6 * params * B * s + 12 * L * B * s * s * h;
    if (!(flops <= kMaxFlopsPerStep))
      return too_large(batch_key(), sci(flops) + " FLOP per step", "1e30 FLOP");
    return check_tasks(per_replica, s_.training.micro_batch);
  }

  Status check_mlp_sizes() {
    const MlpSpec& m = s_.mlp;
    const double rows = static_cast<double>(global_batch(s_));
    double params = 0, widest = 0;
    for (size_t i = 0; i + 1 < m.widths.size(); ++i) {
      params += static_cast<double>(m.widths[i]) * static_cast<double>(m.widths[i + 1]) +
                static_cast<double>(m.widths[i + 1]);
      widest = std::max(widest, static_cast<double>(m.widths[i]));
    }
    widest = std::max(widest, static_cast<double>(m.widths.back()));
    if (!(params <= kMaxTensorElements))
      return too_large("model.mlp.widths", sci(params) + " parameters", "2^53 (9.01e15) parameters");
    if (!(rows * widest <= kMaxTensorElements))
      return too_large(batch_key(), "an activation (batch x width) of " + sci(rows * widest) +
                                        " elements",
                       "2^53 (9.01e15) elements");
    const double flops = 6 * rows * params;
    if (!(flops <= kMaxFlopsPerStep))
      return too_large(batch_key(), sci(flops) + " FLOP per step", "1e30 FLOP");
    return check_tasks(per_replica_batch(s_), s_.training.micro_batch);
  }

  // A step's tasks at the coarsest granularity (one per micro-batch, stage
  // chunk and phase on each device, docs/planner.md) must have task ids:
  // at most 2^31 - 1.
  Status check_tasks(std::int64_t per_replica, std::int64_t micro) {
    const double micro_batches =
        static_cast<double>(per_replica) / static_cast<double>(micro > 0 ? micro : 1);
    const double tasks = 4.0 * micro_batches * st_.virtual_stages * devices();
    if (tasks > static_cast<double>(INT_MAX))
      return at(micro > 0 ? "training.micro_batch" : batch_key(),
                "found " + sci(micro_batches) + " micro-batches per step over " +
                    std::to_string(devices()) + " devices (about " + sci(tasks) +
                    " tasks); expected at most 2147483647 tasks " + kLimitsDoc +
                    ": larger micro-batches");
    return Status::ok();
  }

  std::string device_range() const { return "a device from 0 to " + std::to_string(devices() - 1); }

  Status check_placement() {
    const Model& g = s_.graph;
    // Names for "did you mean" only when there is something to suggest.
    auto op_names = [&] {
      std::vector<std::string> v;
      for (const Op& o : g.ops) v.push_back(o.name);
      return v;
    };
    auto tensor_names = [&] {
      std::vector<std::string> v;
      for (const TensorSpec& t : g.tensors) v.push_back(t.name);
      return v;
    };
    auto check_op = [&](const std::string& op, int dev) -> Status {
      if (g.find_op(op) < 0)
        return at("placement." + op, "found op '" + op +
                                         "' in placement; expected an op of the graph" +
                                         did_you_mean(op, op_names()));
      if (dev < 0 || dev >= devices())
        return at("placement." + op, "found device " + std::to_string(dev) + " for op '" + op +
                                         "'; expected " + device_range());
      return Status::ok();
    };
    auto check_tensor = [&](const std::string& tensor, int dev) -> Status {
      if (g.find_tensor(tensor) < 0)
        return at("device_put." + tensor, "found tensor '" + tensor +
                                              "' in device_put; expected a tensor of the graph" +
                                              did_you_mean(tensor, tensor_names()));
      if (dev < 0 || dev >= devices())
        return at("device_put." + tensor, "found device " + std::to_string(dev) + " for tensor '" +
                                              tensor + "'; expected " + device_range());
      return Status::ok();
    };
    BRIGADE_RETURN_IF_ERROR(first_in_file_order(s_.placement, s_.placement_positions, check_op));
    return first_in_file_order(s_.device_put, s_.device_put_positions, check_tensor);
  }

  // The first fault of a name -> device map in the order its entries were
  // written (the map holds them in name order): checked in name order, the
  // fast way, and only when something is wrong again in file order, so that
  // a user fixing a file top to bottom meets the faults in that order.
  template <class Check>
  static Status first_in_file_order(const std::map<std::string, int>& map,
                                    const std::vector<Scenario::EntryPosition>& written,
                                    const Check& check) {
    Status first = Status::ok();
    for (const auto& [name, dev] : map) {
      first = check(name, dev);
      if (!first.is_ok()) break;
    }
    if (first.is_ok() || written.size() != map.size()) return first;
    for (const Scenario::EntryPosition& e : written) {
      const auto it = map.find(e.name);
      if (it == map.end()) continue;
      BRIGADE_RETURN_IF_ERROR(check(it->first, it->second));
    }
    return first;
  }

  Status check_mesh() {
    if (!s_.mesh) {
      if (!s_.shardings.empty())
        return at("shardings",
                  "found 'shardings' without a 'mesh'; expected a mesh naming the "
                  "axes, such as {shape: [2, 4], axes: [data, model]}");
      return Status::ok();
    }
    const MeshSpec& mesh = *s_.mesh;
    // In double: 64 sizes of up to 65536 overflow any integer.
    double size = 1;
    for (std::int64_t d : mesh.shape) size *= static_cast<double>(d);
    if (size != static_cast<double>(devices()))
      return at("mesh.shape", "found mesh shape " + list_str(mesh.shape) + " = " +
                                  (size < 0x1p53 ? std::to_string(static_cast<std::int64_t>(size))
                                                 : sci(size)) +
                                  " devices; expected the topology's " +
                                  std::to_string(devices()) + " devices");
    std::string axes_list;
    for (const std::string& a : mesh.axes) axes_list += (axes_list.empty() ? "" : ", ") + a;
    const Model& g = s_.graph;
    auto tensor_names = [&] {
      std::vector<std::string> v;
      for (const TensorSpec& t : g.tensors) v.push_back(t.name);
      return v;
    };
    for (const auto& [name, spec] : s_.shardings) {
      const std::string key = "shardings." + name;
      const int ti = g.find_tensor(name);
      if (ti < 0)
        return at(key, "found shardings for tensor '" + name + "'; expected a tensor of the graph" +
                           did_you_mean(name, tensor_names()));
      const TensorSpec& t = g.tensors[static_cast<size_t>(ti)];
      if (spec.size() > t.shape.size())
        return at(key, "found " + std::to_string(spec.size()) + " entries in the sharding of '" +
                           name + "'; expected at most " + std::to_string(t.shape.size()) +
                           " (the rank of " + name + " " + list_str(t.shape) + ")");
      std::set<std::string> used;
      for (size_t d = 0; d < spec.size(); ++d) {
        const std::string& axis = spec[d];
        if (axis.empty()) continue;  // replicated along this dimension
        const auto it = std::find(mesh.axes.begin(), mesh.axes.end(), axis);
        if (it == mesh.axes.end())
          return at(key, "found mesh axis '" + axis + "' in the sharding of '" + name +
                             "'; expected one of " + axes_list + " or null" +
                             did_you_mean(axis, mesh.axes));
        if (!used.insert(axis).second)
          return at(key, "found mesh axis '" + axis + "' twice in the sharding of '" + name +
                             "'; expected each axis at most once");
        const std::int64_t n = mesh.shape[static_cast<size_t>(it - mesh.axes.begin())];
        if (t.shape[d] % n != 0)
          return at(key, "found dimension " + std::to_string(d) + " of '" + name + "' (size " +
                             std::to_string(t.shape[d]) + ") sharded over '" + axis + "' (size " +
                             std::to_string(n) + "); expected a size divisible by " +
                             std::to_string(n));
      }
    }
    return Status::ok();
  }

  Status check_collective() {
    const CollectiveBenchSpec& c = s_.collective;
    for (int d : c.group)
      if (d < 0 || d >= devices())
        return at("model.collective.group", "found device " + std::to_string(d) +
                                                " in the group; expected " + device_range());
    const std::int64_t n = c.group.empty() ? devices() : static_cast<std::int64_t>(c.group.size());
    if (c.algorithm == CollectiveAlgorithm::kHalvingDoubling && (n & (n - 1)) != 0)
      return at("model.collective.algorithm",
                "found halving-doubling over " + std::to_string(n) +
                    " devices; expected a power-of-two group (recursive halving pairs ranks "
                    "at distance N/2, N/4, ..., 1)");
    return Status::ok();
  }

  // NVLS asked where it cannot run: refused with the reason (core/nvls.hpp).
  // A strategy's data-parallel groups are checked for what the topology and
  // the profile decide (NVSwitch, an NCCL table with nvls); whether a group
  // spans nodes, the judges say when they meet it.
  Status check_nvls() {
    const bool collective = s_.model_kind == ModelKind::kCollective;
    const CollectiveAlgorithm a = collective ? s_.collective.algorithm : st_.algorithm;
    if (a != CollectiveAlgorithm::kNvls) return Status::ok();
    std::vector<int> group = collective ? s_.collective.group : std::vector<int>{};
    if (group.empty())
      for (int d = 0; d < devices(); ++d) group.push_back(d);
    std::string why = nvls_refusal(s_.topology, s_.profile, group);
    if (!collective && why.find("spans") != std::string::npos) why.clear();
    if (why.empty()) return Status::ok();
    return at(collective ? "model.collective.algorithm" : "strategy.algorithm",
              "found algorithm 'nvls'; expected hardware that can run NVLS: " + why);
  }

  const Scenario& s_;
  const StrategySpec& st_;
};

}  // namespace

std::int64_t ffn_width(const TransformerSpec& t) {
  // check_plan refuses widths outside [1, 2^31 - 1]; clamped here so that an
  // unchecked scenario cannot make llround overflow.
  if (t.ffn_hidden > 0) return t.ffn_hidden;
  const double w = t.ffn_ratio * static_cast<double>(t.hidden);
  if (!(w >= 0)) return 0;
  if (w > 4e18) return static_cast<std::int64_t>(4e18);
  return static_cast<std::int64_t>(std::llround(w));
}

std::int64_t global_batch(const Scenario& s) {
  if (s.training.global_batch > 0) return s.training.global_batch;
  if (s.model_kind == ModelKind::kMlp) return s.mlp.batch;
  return 0;
}

std::int64_t per_replica_batch(const Scenario& s) {
  if (s.strategy.data_mode == DataMode::kPmap) return 1;
  const std::int64_t b = global_batch(s);
  return s.strategy.data > 0 ? b / s.strategy.data : b;
}

PipelineSplit pipeline_split(const Scenario& s) {
  const StrategySpec& st = s.strategy;
  PipelineSplit p;
  p.embedding = st.embedding_in_pipeline_split;
  p.loss = st.loss_in_pipeline_split;
  p.virtual_stages = st.pipeline * st.virtual_stages;
  p.per_chunk = (s.transformer.layers + (p.embedding ? 1 : 0) + (p.loss ? 1 : 0)) /
                std::max(p.virtual_stages, 1);
  return p;
}

std::int64_t micro_batch_size(const Scenario& s) {
  return s.training.micro_batch > 0 ? s.training.micro_batch : per_replica_batch(s);
}

Result<std::vector<std::int64_t>> per_device_input_shape(const std::vector<std::int64_t>& shape,
                                                         int devices, DataMode mode) {
  if (shape.empty() || devices < 1)
    return Status::error(
        "found " + tuple_str(shape) + " over " + std::to_string(devices) +
        " devices; expected an input with a leading batch axis over 1 or more devices");
  const std::int64_t b = shape.front();
  const std::int64_t n = devices;
  std::vector<std::int64_t> rest(shape.begin() + 1, shape.end());
  if (mode == DataMode::kBatch) {
    // x[kB/N : (k+1)B/N] on device k (the first seed's pmap formula, which is
    // batch sharding in JAX's terms).
    if (b % n != 0) {
      const std::int64_t below = (b / n) * n;
      const std::int64_t above = below + n;
      const std::string such = below > 0 ? std::to_string(below) + " or " + std::to_string(above)
                                         : std::to_string(above);
      return Status::error("found batch " + std::to_string(b) + " over " + std::to_string(n) +
                           " data-parallel devices; expected a multiple of " + std::to_string(n) +
                           ", such as " + such);
    }
    std::vector<std::int64_t> block = shape;
    block.front() = b / n;
    return block;
  }
  // jax.pmap maps over the leading axis: device i gets x[i]. One rule: the
  // axis equals the data-parallel degree (docs/ARCHITECTURE.md, "pmap": JAX
  // also accepts a shorter axis on fewer devices; Brigade's plan uses all).
  if (b != n) {
    std::string fix = "use data: " + std::to_string(b);
    if (b > n) {
      fix = "use data_mode: batch";
      if (b % n == 0) {
        std::vector<std::int64_t> reshaped = {n, b / n};
        reshaped.insert(reshaped.end(), rest.begin(), rest.end());
        fix = "reshape to " + tuple_str(reshaped) + " or use data_mode: batch";
      }
    }
    return Status::error("found " + tuple_str(shape) + " under pmap over " + std::to_string(n) +
                         " devices; expected a leading axis of " + std::to_string(n) +
                         " (pmap maps device i to x[i]): " + fix);
  }
  return rest;
}

Status check_plan(const Scenario& s) {
  return PlanChecker(s).run();
}

}  // namespace brigade
