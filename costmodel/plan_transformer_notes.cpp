// What the closed form's report says it models for a transformer: its
// kernels, FP8 as Transformer Engine runs it, the fused attention's kernel,
// and a priced fused gradient accumulation (EstimateOptions::every_device's
// notes; estimate_transformer adds the plan's own after them).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "costmodel/plan_internal.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost::detail {

void transformer_model_notes(const Scenario& sc, const TransformerShape& shape,
                             std::vector<std::string>& notes) {
  const TrainingSpec& tr = sc.training;
  const StrategySpec& st = sc.strategy;
  const HardwareProfile& prof = sc.profile;
  const bool training = !tr.inference;
  const int t = st.tensor;
  const DType dt = sc.transformer.dtype;
  notes.push_back(
      "transformer kernels and collectives as Megatron-LM runs them "
      "(costmodel/transformer_blocks.hpp, the planner's description too): GEMMs "
      "through the roofline, norms, softmax, GeLU and residuals as memory-bound "
      "kernels");

  if (tr.fp8 != Fp8Recipe::kNone)
    notes.push_back(
        "FP8 (" + std::string(fp8_recipe_name(tr.fp8)) +
        ", Transformer Engine): the linear layers' GEMMs at the FP8 rate on FP8 inputs" +
        std::string(training ? " and output gradients, their inputs saved in FP8" : "") +
        (training && tr.fp8_param_gather
             ? std::string(", FP8 primary weights (fp8_param_gather: an FP8 weight and its "
                           "transpose, 2 B per weight, in the 16-bit weight's place; the "
                           "optimizer casts its fp32 master shard to FP8, the gathered weights' "
                           "transposes made once a step; ZeRO-1's all-gather moves them in "
                           "FP8, 1 B an element)")
             : ", FP8 copies of their weights (2 B per weight" +
                   std::string(training ? ", cast once a step with the optimizer" : "") + ")") +
        "; attention, norms, activations, embedding and logits in " + std::string(dtype_name(dt)) +
        (tr.fp8_scaling == Fp8Scaling::kTensorwise
             ? "; current scaling (tensorwise): an amax pass before each cast TE does not fuse, "
               "a scale kernel, the amax of sequence-parallel tensors all-reduced over 'tensor'"
             : std::string(
                   training ? "; delayed scaling as Transformer Engine 1.x runs it: "
                              "the QKV and fc1 norms write FP8 themselves (no cast) "
                              "and their weight gradients transpose that input first; "
                              "each chunk's forward and backward end with the amax "
                              "reduction of every FP8 module of the device (a cat, an "
                              "AllReduce(MAX) over " +
                                  std::string(tr.fp8_amax_group == Fp8AmaxGroup::kTensorDataContext
                                                  ? "every rank of the stage, 'tensor' "
                                                    "x 'data' x 'context' "
                                                    "(fp8_amax_group)"
                                              : st.context > 1 ? "'tensor' x 'context'"
                                                               : "'tensor'") +
                                  ", the histories' and scales' update)"
                            : "; delayed scaling: the QKV and fc1 norms write FP8 "
                              "themselves (no cast)")) +
        (st.sequence_parallel && t > 1
             ? (tr.fp8_scaling == Fp8Scaling::kTensorwise
                    ? std::string("; sequence parallelism's all-gathers move FP8, each rank's "
                                  "shard cast before its gather")
                    : std::string("; sequence parallelism's all-gathers move FP8 (the norms' "
                                  "output; each output gradient's shard cast before its gather, "
                                  "the gathered copy transposed)"))
             : ""));
  if (sc.transformer.attention == AttentionKernel::kFlash)
    notes.push_back(std::string("fused attention: ") +
                    (shape.cudnn_attention
                         ? "Transformer Engine's FusedAttention, cuDNN's kernel, at a "
                           "device's measured fused_attention rates where its profile has "
                           "them and at FlashAttention-2's otherwise"
                         : "FlashAttention-2's kernel") +
                    " (training.attention_backend " +
                    std::string(attention_backend_name(tr.attention_backend)) + ")");
  // The fused gradient accumulation's addition, where a profile prices it
  // (docs/costmodel.md, "Fused gradient accumulation"; every preset hides it).
  if (shape.fused_accumulate_bytes > 0) {
    double exposed = 0;
    for (const DeviceProfile& d : prof.devices)
      exposed = std::max(exposed, d.gemm_accumulate_exposed);
    if (exposed > 0)
      notes.push_back(fmt::format(
          "fused gradient accumulation: each weight-gradient GEMM adds into the gradient buffer, "
          "{:g} B an output element beyond a plain GEMM (the buffer read{}), {:g} of them at the "
          "streaming rate (the profile's gemm_accumulate_exposed)",
          shape.fused_accumulate_bytes,
          shape.fused_accumulate_bytes > dtype_bytes(sc.transformer.dtype) ? ", written wider" : "",
          exposed));
  }
}

}  // namespace brigade::cost::detail
