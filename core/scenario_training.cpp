// The scenario's `training:` section, and the names of its enums.
#include "core/scenario_training.hpp"

#include "core/scenario_model.hpp"

namespace brigade {

std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
    case Recompute::kOp:
      return "op";
  }
  return "?";
}

void set_recompute(TrainingSpec& t, Recompute r) {
  t.recompute = r;
  if (r != Recompute::kFull) {
    t.recompute_method = RecomputeMethod::kUniform;
    t.recompute_num_layers = 1;
  }
}

std::string_view recompute_method_name(RecomputeMethod m) {
  switch (m) {
    case RecomputeMethod::kUniform:
      return "uniform";
    case RecomputeMethod::kBlock:
      return "block";
  }
  return "?";
}

std::string_view transformer_impl_name(TransformerImpl i) {
  switch (i) {
    case TransformerImpl::kTransformerEngine:
      return "transformer_engine";
    case TransformerImpl::kLocal:
      return "local";
  }
  return "?";
}

std::string_view ub_method_name(UbMethod m) {
  switch (m) {
    case UbMethod::kRingExchange:
      return "ring_exchange";
    case UbMethod::kPipeline:
      return "pipeline";
    case UbMethod::kBulk:
      return "bulk";
  }
  return "?";
}

std::string_view ub_layer_name(int layer) {
  static constexpr const char* kNames[kUbLayers] = {
      "qkv_fprop", "fc1_fprop", "proj_dgrad", "fc2_dgrad", "proj_fprop",
      "fc2_fprop", "qkv_dgrad", "qkv_wgrad",  "fc1_dgrad", "fc1_wgrad"};
  return layer >= 0 && layer < kUbLayers ? kNames[layer] : "?";
}

UbOverlap te_default_overlap(UbMethod m) {
  switch (m) {
    case UbMethod::kRingExchange:
      return {UbMethod::kRingExchange, 1, 0, false, false};
    case UbMethod::kPipeline:
      return {UbMethod::kPipeline, 16, 4, true, false};
    case UbMethod::kBulk:
      return {UbMethod::kBulk, 16, 0, true, false};
  }
  return {};
}

std::array<UbOverlap, kUbLayers> te_default_overlaps() {
  std::array<UbOverlap, kUbLayers> x{};
  const UbOverlap ring = te_default_overlap(UbMethod::kRingExchange);
  const UbOverlap pipe = te_default_overlap(UbMethod::kPipeline);
  const UbOverlap bulk = te_default_overlap(UbMethod::kBulk);
  for (int l : {kUbQkvFprop, kUbFc1Fprop, kUbProjDgrad, kUbFc2Dgrad})
    x[static_cast<size_t>(l)] = ring;
  for (int l : {kUbProjFprop, kUbFc2Fprop}) x[static_cast<size_t>(l)] = pipe;
  for (int l : {kUbQkvDgrad, kUbQkvWgrad, kUbFc1Dgrad, kUbFc1Wgrad})
    x[static_cast<size_t>(l)] = bulk;
  return x;
}

std::string_view attention_backend_name(AttentionBackend b) {
  switch (b) {
    case AttentionBackend::kAuto:
      return "auto";
    case AttentionBackend::kFlash:
      return "flash";
    case AttentionBackend::kFused:
      return "fused";
  }
  return "?";
}

std::string_view fp8_amax_group_name(Fp8AmaxGroup g) {
  switch (g) {
    case Fp8AmaxGroup::kTensorContext:
      return "tensor_context";
    case Fp8AmaxGroup::kTensorDataContext:
      return "tensor_data_context";
  }
  return "?";
}

std::string_view fp8_scaling_name(Fp8Scaling s) {
  switch (s) {
    case Fp8Scaling::kDelayed:
      return "delayed";
    case Fp8Scaling::kTensorwise:
      return "tensorwise";
  }
  return "?";
}

std::string_view fp8_recipe_name(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::kNone:
      return "none";
    case Fp8Recipe::kHybrid:
      return "hybrid";
    case Fp8Recipe::kE4M3:
      return "e4m3";
  }
  return "?";
}

namespace {
using yamlio::Cursor;
constexpr std::int64_t kMaxDim = ScenarioLimits::kMaxDimension;
}  // namespace

namespace {

// `tp_comm_overlap: {NAME: {method, num_sm, num_splits, set_sm_margin,
// fp8_buf}, ...}`: TE's ub_cfgs entries over its defaults. The methods TE
// runs for each: ring_exchange for the all-gathers before a GEMM (TE
// refuses a pipelined all-gather); ring_exchange or pipeline for the
// forward reduce-scatters; bulk for the column-parallel backward (Brigade
// models no other method there).
Status read_tp_overlaps(const Cursor& c, std::array<UbOverlap, kUbLayers>* out) {
  std::vector<std::string> names;
  for (int l = 0; l < kUbLayers; ++l) names.emplace_back(ub_layer_name(l));
  BRIGADE_RETURN_IF_ERROR(c.check_keys(names));
  for (int l = 0; l < kUbLayers; ++l) {
    if (!c.has(names[static_cast<size_t>(l)])) continue;
    const Cursor e = c.get(names[static_cast<size_t>(l)]);
    BRIGADE_RETURN_IF_ERROR(e.expect_map(
        "a userbuffers overlap {method, num_sm, num_splits, set_sm_margin, fp8_buf}"));
    BRIGADE_RETURN_IF_ERROR(
        e.check_keys({"method", "num_sm", "num_splits", "set_sm_margin", "fp8_buf", "cga_size",
                      "aggregate", "atomic_gemm"}));
    UbOverlap& x = (*out)[static_cast<size_t>(l)];
    const bool gather = l <= kUbFc2Dgrad, scatter = l == kUbProjFprop || l == kUbFc2Fprop;
    std::vector<std::pair<std::string, UbMethod>> methods;
    if (gather) methods = {{"ring_exchange", UbMethod::kRingExchange}};
    if (scatter)
      methods = {{"ring_exchange", UbMethod::kRingExchange}, {"pipeline", UbMethod::kPipeline}};
    if (!gather && !scatter) methods = {{"bulk", UbMethod::kBulk}};
    BRIGADE_ASSIGN_OR_RETURN(x.method, e.get_enum("method", x.method, methods));
    // An entry's unstated fields take TE's default for its method.
    const UbOverlap d = te_default_overlap(x.method);
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t sms, e.get_int("num_sm", d.num_sm, 1, 255));
    x.num_sm = static_cast<int>(sms);
    x.num_splits = d.num_splits;
    if (x.method == UbMethod::kPipeline) {
      BRIGADE_ASSIGN_OR_RETURN(const std::int64_t splits, e.get_int("num_splits", 4, 1, 64));
      x.num_splits = static_cast<int>(splits);
    } else if (e.has("num_splits")) {
      return e.key_of("num_splits")
          .error("found num_splits with method " + std::string(ub_method_name(x.method)) +
                 "; expected it only with method pipeline (a ring exchange splits the GEMM in "
                 "t chunks, a bulk overlap not at all)");
    }
    BRIGADE_ASSIGN_OR_RETURN(x.sm_margin, e.get_bool("set_sm_margin", d.sm_margin));
    BRIGADE_ASSIGN_OR_RETURN(x.fp8_buf, e.get_bool("fp8_buf", false));
    // cga_size, aggregate, atomic_gemm: accepted as NeMo's configs write
    // them, not modelled (docs/costmodel.md).
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t cga, e.get_int("cga_size", 1, 1, 16));
    BRIGADE_ASSIGN_OR_RETURN(const bool aggregate, e.get_bool("aggregate", false));
    BRIGADE_ASSIGN_OR_RETURN(const bool atomic, e.get_bool("atomic_gemm", false));
    static_cast<void>(cga), static_cast<void>(aggregate), static_cast<void>(atomic);
  }
  return Status::ok();
}

}  // namespace

Status read_training_spec(const Cursor& c, TrainingSpec* out) {
  TrainingSpec& t = *out;
  BRIGADE_RETURN_IF_ERROR(
      c.expect_map("training options {mode, global_batch, micro_batch, optimizer, "
                   "mixed_precision, recompute, recompute_method, recompute_num_layers, "
                   "main_grad, optimizer_dtype, "
                   "param_remainders, distributed_optimizer, fp8, fp8_recipe, fp8_amax_group, "
                   "fp8_param_gather, "
                   "gradient_accumulation_fusion, cross_entropy_fusion, transformer_impl, "
                   "attention_backend, tp_comm_overlap, tp_backward_overlap}"));
  BRIGADE_RETURN_IF_ERROR(c.check_keys({"mode",
                                        "global_batch",
                                        "micro_batch",
                                        "optimizer",
                                        "mixed_precision",
                                        "recompute",
                                        "recompute_method",
                                        "recompute_num_layers",
                                        "main_grad",
                                        "optimizer_dtype",
                                        "param_remainders",
                                        "distributed_optimizer",
                                        "fp8",
                                        "fp8_recipe",
                                        "fp8_amax_group",
                                        "fp8_param_gather",
                                        "gradient_accumulation_fusion",
                                        "cross_entropy_fusion",
                                        "transformer_impl",
                                        "attention_backend",
                                        "tp_comm_overlap",
                                        "tp_backward_overlap"}));
  BRIGADE_ASSIGN_OR_RETURN(
      t.inference, c.get_enum<bool>("mode", false, {{"training", false}, {"inference", true}}));
  BRIGADE_ASSIGN_OR_RETURN(t.global_batch, c.get_int("global_batch", 0, 1, kMaxDim));
  BRIGADE_ASSIGN_OR_RETURN(t.micro_batch, c.get_int("micro_batch", 0, 1, kMaxDim));
  BRIGADE_ASSIGN_OR_RETURN(t.optimizer, c.get_enum("optimizer", Optimizer::kAdam,
                                                   {{"adam", Optimizer::kAdam},
                                                    {"sgd", Optimizer::kSgd},
                                                    {"none", Optimizer::kNone}}));
  BRIGADE_ASSIGN_OR_RETURN(t.mixed_precision, c.get_bool("mixed_precision", true));
  BRIGADE_ASSIGN_OR_RETURN(
      t.recompute, c.get_enum("recompute", Recompute::kNone,
                              choices_of({Recompute::kNone, Recompute::kSelective, Recompute::kFull,
                                          Recompute::kOp},
                                         recompute_name)));
  BRIGADE_ASSIGN_OR_RETURN(
      t.recompute_method,
      c.get_enum("recompute_method", RecomputeMethod::kUniform,
                 choices_of({RecomputeMethod::kUniform, RecomputeMethod::kBlock},
                            recompute_method_name)));
  BRIGADE_ASSIGN_OR_RETURN(t.recompute_num_layers,
                           c.get_int("recompute_num_layers", 1, 0, kMaxDim));
  BRIGADE_ASSIGN_OR_RETURN(
      t.main_grad_fp32,
      c.get_enum<bool>("main_grad", false, {{"weights", false}, {"fp32", true}}));
  BRIGADE_ASSIGN_OR_RETURN(
      t.optimizer_bf16,
      c.get_enum<bool>("optimizer_dtype", false, {{"fp32", false}, {"bf16", true}}));
  BRIGADE_ASSIGN_OR_RETURN(t.param_remainders, c.get_bool("param_remainders", false));
  BRIGADE_ASSIGN_OR_RETURN(t.distributed_optimizer, c.get_bool("distributed_optimizer", false));
  BRIGADE_ASSIGN_OR_RETURN(
      t.fp8, c.get_enum("fp8", Fp8Recipe::kNone,
                        choices_of({Fp8Recipe::kNone, Fp8Recipe::kHybrid, Fp8Recipe::kE4M3},
                                   fp8_recipe_name)));
  BRIGADE_ASSIGN_OR_RETURN(
      t.fp8_scaling,
      c.get_enum("fp8_recipe", Fp8Scaling::kDelayed,
                 choices_of({Fp8Scaling::kDelayed, Fp8Scaling::kTensorwise}, fp8_scaling_name)));
  BRIGADE_ASSIGN_OR_RETURN(
      t.fp8_amax_group,
      c.get_enum("fp8_amax_group", Fp8AmaxGroup::kTensorContext,
                 choices_of({Fp8AmaxGroup::kTensorContext, Fp8AmaxGroup::kTensorDataContext},
                            fp8_amax_group_name)));
  BRIGADE_ASSIGN_OR_RETURN(t.fp8_param_gather, c.get_bool("fp8_param_gather", false));
  BRIGADE_ASSIGN_OR_RETURN(
      t.attention_backend,
      c.get_enum("attention_backend", AttentionBackend::kAuto,
                 choices_of({AttentionBackend::kAuto, AttentionBackend::kFlash,
                             AttentionBackend::kFused},
                            attention_backend_name)));
  BRIGADE_ASSIGN_OR_RETURN(t.gradient_accumulation_fusion,
                           c.get_bool("gradient_accumulation_fusion", true));
  BRIGADE_ASSIGN_OR_RETURN(t.cross_entropy_fusion, c.get_bool("cross_entropy_fusion", false));
  BRIGADE_ASSIGN_OR_RETURN(
      t.transformer_impl,
      c.get_enum("transformer_impl", TransformerImpl::kTransformerEngine,
                 choices_of({TransformerImpl::kTransformerEngine, TransformerImpl::kLocal},
                            transformer_impl_name)));
  if (c.has("tp_comm_overlap") && c.get("tp_comm_overlap").is_map()) {
    t.tp_comm_overlap = true;
    BRIGADE_RETURN_IF_ERROR(read_tp_overlaps(c.get("tp_comm_overlap"), &t.tp_overlap));
  } else {
    BRIGADE_ASSIGN_OR_RETURN(t.tp_comm_overlap, c.get_bool("tp_comm_overlap", false));
  }
  BRIGADE_ASSIGN_OR_RETURN(t.tp_backward_overlap, c.get_bool("tp_backward_overlap", true));
  return Status::ok();
}

}  // namespace brigade
