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

Status read_training_spec(const Cursor& c, TrainingSpec* out) {
  TrainingSpec& t = *out;
  BRIGADE_RETURN_IF_ERROR(
      c.expect_map("training options {mode, global_batch, micro_batch, optimizer, "
                   "mixed_precision, recompute, main_grad, distributed_optimizer, fp8, "
                   "gradient_accumulation_fusion, cross_entropy_fusion, transformer_impl}"));
  BRIGADE_RETURN_IF_ERROR(c.check_keys(
      {"mode", "global_batch", "micro_batch", "optimizer", "mixed_precision", "recompute",
       "main_grad", "distributed_optimizer", "fp8", "gradient_accumulation_fusion",
       "cross_entropy_fusion", "transformer_impl"}));
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
      t.recompute,
      c.get_enum("recompute", Recompute::kNone,
                 choices_of({Recompute::kNone, Recompute::kSelective, Recompute::kFull},
                            recompute_name)));
  BRIGADE_ASSIGN_OR_RETURN(
      t.main_grad_fp32,
      c.get_enum<bool>("main_grad", false, {{"weights", false}, {"fp32", true}}));
  BRIGADE_ASSIGN_OR_RETURN(t.distributed_optimizer, c.get_bool("distributed_optimizer", false));
  BRIGADE_ASSIGN_OR_RETURN(
      t.fp8, c.get_enum("fp8", Fp8Recipe::kNone,
                        choices_of({Fp8Recipe::kNone, Fp8Recipe::kHybrid, Fp8Recipe::kE4M3},
                                   fp8_recipe_name)));
  BRIGADE_ASSIGN_OR_RETURN(t.gradient_accumulation_fusion,
                           c.get_bool("gradient_accumulation_fusion", true));
  BRIGADE_ASSIGN_OR_RETURN(t.cross_entropy_fusion, c.get_bool("cross_entropy_fusion", false));
  BRIGADE_ASSIGN_OR_RETURN(
      t.transformer_impl,
      c.get_enum("transformer_impl", TransformerImpl::kTransformerEngine,
                 choices_of({TransformerImpl::kTransformerEngine, TransformerImpl::kLocal},
                            transformer_impl_name)));
  return Status::ok();
}

}  // namespace brigade
