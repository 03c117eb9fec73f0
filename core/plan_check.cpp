#include "core/plan_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

namespace brigade {
namespace {

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

class PlanChecker {
 public:
  explicit PlanChecker(const Scenario& s) : s_(s), st_(s.strategy) {}

  Status run() {
    if (s_.model_kind == ModelKind::kNone)
      return at("model", "found no model; expected one of mlp, transformer, graph or collective");
    BRIGADE_RETURN_IF_ERROR(check_strategy_ranges());
    BRIGADE_RETURN_IF_ERROR(check_model_support());
    if (s_.model_kind == ModelKind::kTransformer) BRIGADE_RETURN_IF_ERROR(check_transformer());
    BRIGADE_RETURN_IF_ERROR(check_device_count());
    BRIGADE_RETURN_IF_ERROR(check_batch());
    BRIGADE_RETURN_IF_ERROR(check_placement());
    BRIGADE_RETURN_IF_ERROR(check_mesh());
    if (s_.model_kind == ModelKind::kCollective) BRIGADE_RETURN_IF_ERROR(check_collective());
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
    return Status::ok();
  }

  // What each model kind supports (docs/scenario-format.md, "What each model
  // supports"): MLPs are lowered data-parallel; graphs are distributed by a
  // placement or a mesh; a collective names its own group.
  Status check_model_support() {
    const bool degrees = st_.data > 1 || st_.tensor > 1 || st_.pipeline > 1;
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
           " x pipeline " + std::to_string(st_.pipeline);
  }

  Status check_transformer() {
    const TransformerSpec& t = s_.transformer;
    if (t.hidden % t.heads != 0)
      return at("model.transformer.hidden",
                "found hidden " + std::to_string(t.hidden) + " with heads " +
                    std::to_string(t.heads) +
                    "; expected hidden divisible by heads (a whole head dimension hidden/heads)");
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
    const std::int64_t ffn = ffn_width(t);
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
    const std::int64_t stages = static_cast<std::int64_t>(st_.pipeline) * st_.virtual_stages;
    if (t.layers % stages != 0)
      return at("strategy.pipeline",
                "found " + std::to_string(t.layers) + " layers over " + std::to_string(stages) +
                    " pipeline stages (pipeline " + std::to_string(st_.pipeline) +
                    " x virtual_stages " + std::to_string(st_.virtual_stages) +
                    "); expected layers divisible by " + std::to_string(stages));
    return Status::ok();
  }

  Status check_device_count() {
    if (!s_.has_strategy) return Status::ok();
    if (s_.model_kind != ModelKind::kMlp && s_.model_kind != ModelKind::kTransformer)
      return Status::ok();
    const std::int64_t need = static_cast<std::int64_t>(st_.data) * st_.tensor * st_.pipeline;
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

  std::string device_range() const { return "a device from 0 to " + std::to_string(devices() - 1); }

  Status check_placement() {
    const Model& g = s_.graph;
    std::vector<std::string> ops, tensors;
    for (const Op& o : g.ops) ops.push_back(o.name);
    for (const TensorSpec& t : g.tensors) tensors.push_back(t.name);
    for (const auto& [op, dev] : s_.placement) {
      const std::string key = "placement." + op;
      if (g.find_op(op) < 0)
        return at(key, "found op '" + op + "' in placement; expected an op of the graph" +
                           did_you_mean(op, ops));
      if (dev < 0 || dev >= devices())
        return at(key, "found device " + std::to_string(dev) + " for op '" + op + "'; expected " +
                           device_range());
    }
    for (const auto& [tensor, dev] : s_.device_put) {
      const std::string key = "device_put." + tensor;
      if (g.find_tensor(tensor) < 0)
        return at(key, "found tensor '" + tensor +
                           "' in device_put; expected a tensor of the graph" +
                           did_you_mean(tensor, tensors));
      if (dev < 0 || dev >= devices())
        return at(key, "found device " + std::to_string(dev) + " for tensor '" + tensor +
                           "'; expected " + device_range());
    }
    return Status::ok();
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
    std::int64_t size = 1;
    for (std::int64_t d : mesh.shape) size *= d;
    if (size != devices())
      return at("mesh.shape", "found mesh shape " + list_str(mesh.shape) + " = " +
                                  std::to_string(size) + " devices; expected the topology's " +
                                  std::to_string(devices()) + " devices");
    std::string axes_list;
    for (const std::string& a : mesh.axes) axes_list += (axes_list.empty() ? "" : ", ") + a;
    const Model& g = s_.graph;
    std::vector<std::string> tensors;
    for (const TensorSpec& t : g.tensors) tensors.push_back(t.name);
    for (const auto& [name, spec] : s_.shardings) {
      const std::string key = "shardings." + name;
      const int ti = g.find_tensor(name);
      if (ti < 0)
        return at(key, "found shardings for tensor '" + name + "'; expected a tensor of the graph" +
                           did_you_mean(name, tensors));
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

  const Scenario& s_;
  const StrategySpec& st_;
};

}  // namespace

std::int64_t ffn_width(const TransformerSpec& t) {
  return static_cast<std::int64_t>(std::llround(t.ffn_ratio * static_cast<double>(t.hidden)));
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
