#include "core/kernel_groups.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "core/text.hpp"

namespace brigade {
namespace {

struct GroupInfo {
  std::string_view label, key, profile_keys;
};

constexpr std::array<GroupInfo, kNumKernelGroups> kGroups{{
    {"GEMM, FP8", "gemm_fp8", "gemm.fp8 curve; fp8_split_accumulator_efficiency (gradients)"},
    {"GEMM, BF16/FP16", "gemm_16bit", "gemm.bf16 / gemm.f16 curves (wave model: gemm_waves)"},
    {"GEMM, other widths", "gemm_other", "gemm curves of the other widths"},
    {"attention", "attention",
     "flash_attention / fused_attention rates; attention_*_efficiency (unfused)"},
    {"norms", "norm", "norm_forward_efficiency, norm_backward_efficiency"},
    {"activation functions", "activation",
     "activation_*_efficiency, gated_activation_*_efficiency"},
    {"FP8 casts and scaling", "fp8_cast", "memory_efficiency"},
    {"optimizer", "optimizer", "memory_efficiency"},
    {"loss", "loss", "memory_efficiency"},
    {"embedding", "embedding", "memory_efficiency"},
    {"other streaming", "elementwise", "memory_efficiency; launch"},
    {"fused runs", "fused", "as their kernels (--granularity kernel names them)"},
    {"NCCL AllReduce", "allreduce", "the NCCL table (collectives, nvls); links"},
    {"NCCL AllGather", "allgather", "the NCCL table (collectives); links"},
    {"NCCL ReduceScatter", "reducescatter", "the NCCL table (collectives); links"},
    {"NCCL Broadcast/Reduce", "broadcast", "the NCCL table (collectives); links"},
    {"send/recv, AllToAll", "sendrecv", "links (p2p); the NCCL table"},
    {"copies and fills", "memcpy", "memory_efficiency; links"},
    {"other", "other", "-"},
}};

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}
bool contains_any(std::string_view s, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts)
    if (contains(s, p)) return true;
  return false;
}

// A collective's group: Reduce counts with Broadcast, AllToAll as
// send/recv (NCCL runs it as sends).
KernelGroup group_of_collective(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return KernelGroup::kAllReduce;
    case CollectiveKind::kAllGather:
      return KernelGroup::kAllGather;
    case CollectiveKind::kReduceScatter:
      return KernelGroup::kReduceScatter;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
      return KernelGroup::kBroadcast;
    case CollectiveKind::kAllToAll:
      break;
  }
  return KernelGroup::kSendRecv;
}

// An NCCL kernel's collective, from "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"
// (NCCL 2.19+) or "ncclKernel_AllGather_RING_LL_Sum_int8_t" (before), in
// core/program.hpp's vocabulary; send/recv when none.
KernelGroup nccl_group(std::string_view n) {
  const auto kind = collective_kind_in_name(n, NameContext::kNccl);
  return kind ? group_of_collective(*kind) : KernelGroup::kSendRecv;
}

// Transformer Engine's userbuffers kernels: reduce-scatter "rs",
// all-gather "ag", else point-to-point.
KernelGroup userbuffers_group(std::string_view n) {
  if (contains_any(n, {"_rs", "reducescatter", "reduce_scatter"}))
    return KernelGroup::kReduceScatter;
  if (contains_any(n, {"_ag", "allgather", "all_gather"})) return KernelGroup::kAllGather;
  return KernelGroup::kSendRecv;
}

// A GEMM's operand width from its name: cuBLAS's and CUTLASS's kernels
// spell it ("e4m3", "bf16", "s16816gemm_fp16", "tf32", "sgemm"); nvjet's
// (cuBLAS 12.8+) do not, whose GEMMs count as "other widths".
KernelGroup gemm_width(std::string_view n) {
  if (contains_any(n, {"e4m3", "e5m2", "fp8", "f8f6f4", "qgmma"})) return KernelGroup::kGemmFp8;
  // TF32 and FP32 before the 16-bit words: Ampere's TF32 kernels are
  // "ampere_tf32_s1688gemm_tf32_...".
  if (contains_any(n, {"tf32", "sgemm", "dgemm"})) return KernelGroup::kGemmOther;
  if (contains_any(n, {"bf16", "bfloat16", "fp16", "f16", "half", "h884", "h1688", "h16816",
                       "hgemm", "hmma"}))
    return KernelGroup::kGemm16;
  return KernelGroup::kGemmOther;
}

}  // namespace

std::string_view kernel_group_label(KernelGroup g) {
  return kGroups[static_cast<size_t>(g)].label;
}
std::string_view kernel_group_key(KernelGroup g) {
  return kGroups[static_cast<size_t>(g)].key;
}
std::string_view kernel_group_profile_keys(KernelGroup g) {
  return kGroups[static_cast<size_t>(g)].profile_keys;
}

bool is_communication_group(KernelGroup g) {
  return g == KernelGroup::kAllReduce || g == KernelGroup::kAllGather ||
         g == KernelGroup::kReduceScatter || g == KernelGroup::kBroadcast ||
         g == KernelGroup::kSendRecv || g == KernelGroup::kMemcpy;
}

bool is_gemm_group(KernelGroup g) {
  return g == KernelGroup::kGemmFp8 || g == KernelGroup::kGemm16 || g == KernelGroup::kGemmOther;
}

KernelGroup group_of_kernel_name(std::string_view name) {
  const std::string s = ascii_lower(name);
  const std::string_view n = s;
  // 1. Communication and copies: NCCL's kernels name their collective;
  // profilers record copies and fills as "[CUDA memcpy ...]", "Memcpy DtoD".
  if (contains(n, "nccl")) return nccl_group(n);
  if (contains(n, "userbuffers")) return userbuffers_group(n);
  if (contains_any(n, {"memcpy", "memset"})) return KernelGroup::kMemcpy;
  // 2. The loss before attention (PyTorch's cross-entropy is a log-softmax).
  if (contains_any(n, {"cross_entropy", "crossentropy", "nll_loss", "log_softmax", "logsoftmax"}))
    return KernelGroup::kLoss;
  // 3. Attention: FlashAttention's kernels, cuDNN's fused SDPA, CUTLASS's
  // and xFormers' fmha, an unfused core's softmax (Megatron-LM's fused
  // scale-mask-softmax, PyTorch's softmax).
  if (contains_any(n, {"flash", "fmha", "sdpa", "attention", "fused_attn", "softmax"}))
    return KernelGroup::kAttention;
  // 4. GEMMs: cuBLAS (sm80_xmma_gemm, ampere_*gemm, sm90_xmma_gemm,
  // nvjet), CUTLASS, Triton's matmuls (Inductor's templates, triton_tem_*).
  if (contains_any(n, {"gemm", "xmma", "nvjet", "cutlass", "cublas", "splitkreduce", "matmul",
                       "wgmma", "triton_tem"}))
    return gemm_width(n);
  // 5. Norms: Transformer Engine's (ln_fwd / ln_bwd / rmsnorm_*), Apex's
  // (cuApplyLayerNorm, cuComputeGradInput, cuComputePartGradGammaBeta),
  // PyTorch's (layer_norm kernels, RowwiseMoments, GammaBetaBackward).
  if (contains_any(n, {"layer_norm", "layernorm", "rmsnorm", "rms_norm", "ln_fwd", "ln_bwd",
                       "cuapplylayernorm", "cuapplyrmsnorm", "cucomputegradinput", "gradgammabeta",
                       "gammabetabackward", "rowwisemoments", "norm_fwd", "norm_bwd"}))
    return KernelGroup::kNorm;
  // 6. Activations (after GEMMs, whose epilogues name them too; before the
  // casts: Transformer Engine's activations write FP8 and name it).
  if (contains_any(n, {"gelu", "swiglu", "geglu", "silu", "swish", "relu"}))
    return KernelGroup::kActivation;
  // 7. FP8 casts and scaling: Transformer Engine's cast_transpose,
  // quantize, transpose, amax, scale and delayed-scaling kernels.
  if (contains_any(n, {"cast_transpose", "cast_to_fp8", "quantize", "fp8", "amax", "transpose",
                       "delayed_scaling", "scale_update", "compute_scale"}))
    return KernelGroup::kFp8Cast;
  // 8. The optimizer: Apex's and PyTorch's multi-tensor kernels (Adam, the
  // L2 norm, unscale, scale), fused Adam. (Not "lamb": ATen's kernels spell
  // "{lambda()#1}" in their names.)
  if (contains_any(n, {"adam", "multi_tensor", "sgd", "optimizer"})) return KernelGroup::kOptimizer;
  // 9. The embedding: PyTorch's gather and its backward.
  if (contains_any(n, {"embedding", "indexselect", "index_select", "indexfunc", "index_put",
                       "compute_grad_weight"}))
    return KernelGroup::kEmbedding;
  // 10. Other streaming kernels: PyTorch's elementwise and reduction
  // templates, Triton's fused pointwise and reductions, dropout, biases,
  // fills, copies, concatenation (words of their names: a bare "add" or
  // "cat" would take unrelated kernels out of the unnamed list).
  if (contains_any(
          n, {"elementwise", "reduce_kernel", "vectorized", "unrolled", "triton", "dropout", "bias",
              "fill", "copy", "catarray", "functor_add", "mulfunctor", "add_kernel", "mul_kernel"}))
    return KernelGroup::kElementwise;
  return KernelGroup::kOther;
}

KernelGroup group_of_task(const Program& program, TaskId id) {
  const Task& t = program.task(id);
  if (t.kind == TaskKind::kTransfer) return KernelGroup::kSendRecv;
  if (t.kind == TaskKind::kCollective) {
    if (t.collective < 0 || static_cast<size_t>(t.collective) >= program.collectives().size())
      return KernelGroup::kOther;
    return group_of_collective(program.collectives()[static_cast<size_t>(t.collective)].kind);
  }
  if (is_flash_attention(t.kernel) || t.kernel == KernelClass::kAttentionForward ||
      t.kernel == KernelClass::kAttentionBackward)
    return KernelGroup::kAttention;
  if (is_norm(t.kernel)) return KernelGroup::kNorm;
  if (is_activation(t.kernel)) return KernelGroup::kActivation;
  if (t.compute == ComputeKind::kGemm || t.kernel == KernelClass::kGemmSplitAccumulator) {
    if (t.dtype == DType::kFP8) return KernelGroup::kGemmFp8;
    if (t.dtype == DType::kBF16 || t.dtype == DType::kF16) return KernelGroup::kGemm16;
    return KernelGroup::kGemmOther;
  }
  // A fused run of kernels (region and step granularities): the shapes of
  // its GEMMs recorded, or a fixed task standing for several kernels.
  if (t.gemm_mix != 0 || (t.compute == ComputeKind::kFixed && t.batch > 1))
    return KernelGroup::kFused;
  // A plain streaming kernel, by the names the planner gives them
  // (planner/, costmodel/transformer_blocks_layer.cpp).
  const std::string n = ascii_lower(program.task_name(id));
  if (contains_any(n, {"cross_entropy", "loss"})) return KernelGroup::kLoss;
  if (contains_any(n, {".cast", "amax", "transpose", "fp8."})) return KernelGroup::kFp8Cast;
  if (contains(n, "optimizer")) return KernelGroup::kOptimizer;
  if (contains(n, "embedding")) return KernelGroup::kEmbedding;
  return KernelGroup::kElementwise;
}

namespace {

// A task's group and how many kernels it stands for (a fused run's, a
// FlashAttention core's launches: its batch; a GEMM or a collective: one).
void add_task(KernelGroupTimes& out, const Program& program, TaskId task, double seconds,
              double times) {
  const Task& t = program.task(task);
  const double kernels = t.kind == TaskKind::kCompute && t.compute != ComputeKind::kGemm
                             ? static_cast<double>(std::max<std::int64_t>(t.batch, 1))
                             : 1.0;
  out.add(group_of_task(program, task), seconds, kernels * times);
}

}  // namespace

KernelGroupTimes kernel_group_times(const Trace& trace, const Program* program, int device) {
  KernelGroupTimes out;
  for (const TraceSpan& span : trace.spans) {
    if (span.device != device) continue;
    const double seconds = span.end_seconds - span.start_seconds;
    if (program && span.task >= 0 && span.task < program->num_tasks()) {
      add_task(out, *program, span.task, seconds, 1);
      continue;
    }
    const std::string_view name =
        span.name >= 0 && static_cast<size_t>(span.name) < trace.names.size()
            ? std::string_view(trace.names[static_cast<size_t>(span.name)])
            : std::string_view();
    KernelGroup g = group_of_kernel_name(name);
    if (span.kind == TaskKind::kTransfer) g = KernelGroup::kSendRecv;
    out.add(g, seconds);
  }
  return out;
}

KernelGroupTimes kernel_group_times(const MeasuredKernels& measured, double divisor,
                                    const Program* program, int device) {
  KernelGroupTimes out;
  const double d = divisor > 0 ? divisor : 1;
  for (const MeasuredKernel& k : measured.kernels) {
    if (device >= 0 && k.device >= 0 && k.device != device) continue;
    if (program && k.task >= 0 && k.task < program->num_tasks())
      add_task(out, *program, k.task, k.seconds / d, k.count / d);
    else
      out.add(group_of_kernel_name(k.name), k.seconds / d, k.count / d);
  }
  return out;
}

Status check_record_plan(const MeasuredKernels& measured, const Program& program,
                         const std::string& path) {
  if (measured.format != "brigade") return Status::ok();
  const auto other = [&](const std::string& found) {
    return Status::error(fmt::format(
        "{}: error: found {}; expected a trace of this scenario's plan, program '{}' of {} "
        "tasks (brigade execute --trace or brigade simulate --trace of the same scenario, at "
        "the same --granularity)",
        path, found, program.name, program.num_tasks()));
  };
  if (measured.program.empty())
    return other("a Brigade trace whose \"brigade\" header names no program");
  if (measured.program != program.name)
    return other(fmt::format("a trace of program '{}'", measured.program));
  for (const MeasuredKernel& k : measured.kernels) {
    if (k.task < 0) return other(fmt::format("a span '{}' with no task id", k.name));
    if (k.task >= program.num_tasks())
      return other(fmt::format("task {} ('{}'), past the plan's tasks", k.task, k.name));
    if (program.task_name(k.task) != k.name || program.task(k.task).device != k.device)
      return other(fmt::format("task {} named '{}' on device {} (the plan's: '{}' on device {})",
                               k.task, k.name, k.device, program.task_name(k.task),
                               program.task(k.task).device));
  }
  return Status::ok();
}

std::vector<KernelGroupRow> kernel_group_rows(const KernelGroupTimes& simulated,
                                              const KernelGroupTimes* measured) {
  std::vector<KernelGroupRow> rows;
  const auto row_of = [&](std::string label, std::string key, bool subtotal, auto&& in) {
    KernelGroupRow r;
    r.label = std::move(label);
    r.key = std::move(key);
    r.subtotal = subtotal;
    for (int i = 0; i < kNumKernelGroups; ++i) {
      const auto g = static_cast<KernelGroup>(i);
      if (!in(g)) continue;
      r.simulated_seconds += simulated.of(g);
      r.simulated_count += simulated.count[static_cast<size_t>(i)];
      if (measured) {
        r.measured_seconds += measured->of(g);
        r.measured_count += measured->count[static_cast<size_t>(i)];
      }
    }
    return r;
  };
  for (int i = 0; i < kNumKernelGroups; ++i) {
    const auto g = static_cast<KernelGroup>(i);
    KernelGroupRow r = row_of(std::string(kernel_group_label(g)), std::string(kernel_group_key(g)),
                              false, [g](KernelGroup x) { return x == g; });
    if (r.empty()) continue;
    r.profile_keys = std::string(kernel_group_profile_keys(g));
    r.group = g;
    r.communication = is_communication_group(g);
    rows.push_back(std::move(r));
  }
  const auto streaming = [](KernelGroup g) {
    return g == KernelGroup::kNorm || g == KernelGroup::kActivation || g == KernelGroup::kFp8Cast ||
           g == KernelGroup::kOptimizer || g == KernelGroup::kLoss ||
           g == KernelGroup::kEmbedding || g == KernelGroup::kElementwise;
  };
  rows.push_back(row_of("GEMMs, all widths", "gemm_all", true, is_gemm_group));
  rows.push_back(row_of("streaming, all", "streaming_all", true, streaming));
  rows.push_back(row_of("compute, all", "compute_all", true,
                        [](KernelGroup g) { return !is_communication_group(g); }));
  rows.push_back(
      row_of("communication and copies", "communication_all", true, is_communication_group));
  rows.back().communication = true;
  return rows;
}

std::vector<MeasuredKernel> unnamed_kernels(const MeasuredKernels& measured, size_t n) {
  std::vector<MeasuredKernel> out;
  for (const MeasuredKernel& k : measured.kernels)  // a Brigade task has its Program's group
    if (k.task < 0 && group_of_kernel_name(k.name) == KernelGroup::kOther) out.push_back(k);
  std::sort(out.begin(), out.end(), [](const MeasuredKernel& a, const MeasuredKernel& b) {
    return a.seconds != b.seconds ? a.seconds > b.seconds : a.name < b.name;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

namespace {

// The least efficiency a scaled key keeps: profiles take efficiencies from
// 1e-6 to 1 (core/profile_io.cpp), and a record a million times slower than
// the profile is a wrong record, not a slow GPU.
constexpr double kLeastEfficiency = 1e-6;

// `e` times `factor`, kept within [kLeastEfficiency, 1]; true if held.
bool scale_efficiency(double& e, double factor) {
  e *= factor;
  if (e > 1) {
    e = 1;
    return true;
  }
  if (!(e >= kLeastEfficiency)) {
    e = kLeastEfficiency;
    return true;
  }
  return false;
}

// Every efficiency of a curve scaled so; true if one was held.
bool scale_curve(EfficiencyCurve& c, double factor) {
  bool held = false;
  for (auto& [work, e] : c.points) held |= scale_efficiency(e, factor);
  held |= scale_efficiency(c.fallback, factor);
  return held;
}

// Every rate (FLOP/s) of a curve times `factor`, held at `peak` (> 0) and
// above 0; true if one was held.
bool scale_rates(EfficiencyCurve& c, double factor, double peak) {
  bool held = false;
  const auto scale = [&](double& r) {
    r *= factor;
    if (peak > 0 && r > peak) {
      r = peak;
      held = true;
    }
    if (!(r > 0)) {
      r = peak > 0 ? peak * kLeastEfficiency : 1;
      held = true;
    }
  };
  for (auto& [seq, r] : c.points) scale(r);
  if (c.fallback > 0) scale(c.fallback);
  return held;
}

}  // namespace

std::vector<ProfileScaling> plan_profile_scaling(const KernelGroupTimes& simulated,
                                                 const KernelGroupTimes& measured) {
  std::vector<ProfileScaling> out;
  // measured / simulated over `groups` where both sides have them (a group
  // one side lacks says nothing of the keys), 0 when none.
  const auto add = [&](ScaledKeys what, std::string key, std::string label,
                       std::initializer_list<KernelGroup> groups, bool both_sides_each) {
    double sim = 0, meas = 0;
    for (KernelGroup g : groups)
      if (!both_sides_each || (simulated.of(g) > 0 && measured.of(g) > 0)) {
        sim += simulated.of(g);
        meas += measured.of(g);
      }
    if (!(sim > 0 && meas > 0)) return;
    ProfileScaling x;
    x.what = what;
    x.key = std::move(key);
    x.group = std::move(label);
    x.groups.assign(groups);
    x.ratio = meas / sim;
    x.factor = 1 / x.ratio;
    out.push_back(std::move(x));
  };
  const auto label = [](KernelGroup g) { return std::string(kernel_group_label(g)); };
  // GEMMs by width, unless one side has GEMMs whose width its names do not
  // say (cuBLAS's nvjet kernels) and the other has none: then every width
  // by the GEMMs' time together.
  const bool widths_known =
      (simulated.of(KernelGroup::kGemmOther) > 0) == (measured.of(KernelGroup::kGemmOther) > 0);
  if (widths_known) {
    add(ScaledKeys::kGemmFp8, "gemm.fp8", label(KernelGroup::kGemmFp8), {KernelGroup::kGemmFp8},
        true);
    add(ScaledKeys::kGemm16, "gemm.bf16, gemm.f16", label(KernelGroup::kGemm16),
        {KernelGroup::kGemm16}, true);
    add(ScaledKeys::kGemmOther, "gemm.tf32, gemm.f32", label(KernelGroup::kGemmOther),
        {KernelGroup::kGemmOther}, true);
  } else {
    add(ScaledKeys::kGemmAll, "gemm.fp8, gemm.bf16, gemm.f16, gemm.tf32, gemm.f32",
        "GEMMs, all widths", {KernelGroup::kGemmFp8, KernelGroup::kGemm16, KernelGroup::kGemmOther},
        false);
  }
  add(ScaledKeys::kAttention, "flash_attention, fused_attention, attention_*_efficiency",
      "attention", {KernelGroup::kAttention}, true);
  add(ScaledKeys::kNorm, "norm_forward_efficiency, norm_backward_efficiency", "norms",
      {KernelGroup::kNorm}, true);
  add(ScaledKeys::kActivation, "activation_*_efficiency", "activation functions",
      {KernelGroup::kActivation}, true);
  add(ScaledKeys::kMemory, "memory_efficiency",
      "casts, optimizer, loss, embedding, other streaming",
      {KernelGroup::kFp8Cast, KernelGroup::kOptimizer, KernelGroup::kLoss, KernelGroup::kEmbedding,
       KernelGroup::kElementwise},
      true);
  return out;
}

void apply_profile_scaling(DeviceProfile& p, std::vector<ProfileScaling>& plan,
                           double attention_peak_flops) {
  // Classes that fall back to memory_efficiency take its value first, so
  // that the other streaming groups' change leaves them as they are.
  for (double* e : {&p.norm_forward_efficiency, &p.norm_backward_efficiency,
                    &p.activation_forward_efficiency, &p.activation_backward_efficiency,
                    &p.attention_forward_efficiency, &p.attention_backward_efficiency})
    if (*e <= 0) *e = p.memory_efficiency;
  const auto curves = [&](std::initializer_list<DType> dtypes, double f) {
    bool held = false;
    for (DType d : dtypes) held |= scale_curve(p.gemm[static_cast<size_t>(d)], f);
    return held;
  };
  for (ProfileScaling& x : plan) {
    const double f = 1 / x.ratio;
    bool held = false;
    switch (x.what) {
      case ScaledKeys::kGemmFp8:
        held = curves({DType::kFP8}, f);
        break;
      case ScaledKeys::kGemm16:
        held = curves({DType::kBF16, DType::kF16}, f);
        break;
      case ScaledKeys::kGemmOther:
        held = curves({DType::kTF32, DType::kF32}, f);
        break;
      case ScaledKeys::kGemmAll:
        held = curves({DType::kFP8, DType::kBF16, DType::kF16, DType::kTF32, DType::kF32}, f);
        break;
      case ScaledKeys::kAttention:
        for (auto* rates : {&p.flash_attention, &p.fused_attention})
          for (FlashAttentionRates& r : *rates) {
            held |= scale_rates(r.forward, f, attention_peak_flops);
            held |= scale_rates(r.backward, f, attention_peak_flops);
          }
        held |= scale_efficiency(p.attention_forward_efficiency, f);
        held |= scale_efficiency(p.attention_backward_efficiency, f);
        break;
      case ScaledKeys::kNorm:
        held = scale_efficiency(p.norm_forward_efficiency, f);
        held |= scale_efficiency(p.norm_backward_efficiency, f);
        break;
      case ScaledKeys::kActivation:
        held = scale_efficiency(p.activation_forward_efficiency, f);
        held |= scale_efficiency(p.activation_backward_efficiency, f);
        if (p.gated_activation_forward_efficiency > 0)
          held |= scale_efficiency(p.gated_activation_forward_efficiency, f);
        if (p.gated_activation_backward_efficiency > 0)
          held |= scale_efficiency(p.gated_activation_backward_efficiency, f);
        break;
      case ScaledKeys::kMemory:
        held = scale_efficiency(p.memory_efficiency, f);
        break;
    }
    x.held = held;
    x.factor = held ? 0 : f;
  }
}

std::vector<ProfileScaling> scale_to_record(DeviceProfile& p, const KernelGroupTimes& simulated,
                                            const KernelGroupTimes& measured,
                                            double attention_peak_flops) {
  std::vector<ProfileScaling> plan = plan_profile_scaling(simulated, measured);
  apply_profile_scaling(p, plan, attention_peak_flops);
  return plan;
}

}  // namespace brigade
