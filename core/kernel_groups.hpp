// Kernel groups: one device's step by what its kernels do, so that the
// simulator's kernels and a profiler's measured ones (Nsight Systems'
// kernel summary, PyTorch's profiler) can be held side by side (`brigade
// kernels`, docs/FIDELITY.md "Against a profiler's record"). A group is as
// coarse as a kernel's name can tell on the measured side: GEMMs by operand
// width, fused attention, norms, activations, FP8 casts, the optimizer, the
// loss, the embedding, the other streaming kernels, and NCCL's kernels by
// collective.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include <string>
#include <vector>

#include "core/kernel_summary.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/trace.hpp"

namespace brigade {

enum class KernelGroup : std::uint8_t {
  kGemmFp8,      // FP8 operands (E4M3 / E5M2)
  kGemm16,       // BF16 or FP16 operands
  kGemmOther,    // TF32, FP32, FP64, INT8, or a GEMM whose name gives no width
  kAttention,    // fused attention (FlashAttention, cuDNN), an unfused core's softmax
  kNorm,         // LayerNorm, RMSNorm, forward and backward
  kActivation,   // GeLU, SwiGLU, SiLU, ReLU², forward and backward
  kFp8Cast,      // FP8 casts, transposes, amax reductions and scale updates
  kOptimizer,    // the optimizer step's kernels (Adam, the gradient norm, unscale)
  kLoss,         // the cross-entropy (log-softmax, NLL)
  kEmbedding,    // the embedding's gather and its gradient
  kElementwise,  // every other streaming kernel (residuals, dropout, biases, copies, fills)
  kFused,        // a fused run of the planner's region or step granularity (simulated only)
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,  // Broadcast and Reduce
  kSendRecv,   // point-to-point sends and receives, AllToAll (NCCL runs it as sends)
  kMemcpy,     // copies and fills the profiler records apart from kernels
  kOther,      // a measured kernel no rule names
};
inline constexpr int kNumKernelGroups = static_cast<int>(KernelGroup::kOther) + 1;

// "GEMM, FP8", "attention", "NCCL AllReduce", ... (the tables' labels).
std::string_view kernel_group_label(KernelGroup g);
// "gemm_fp8", "attention", "allreduce", ... (JSON keys).
std::string_view kernel_group_key(KernelGroup g);
// True for NCCL's groups and kMemcpy: time on the device that is not a
// compute kernel of the model.
bool is_communication_group(KernelGroup g);
bool is_gemm_group(KernelGroup g);
// The profile keys that time a group in Brigade (docs/FIDELITY.md, "Against
// a profiler's record"): where a measured/simulated ratio points.
std::string_view kernel_group_profile_keys(KernelGroup g);

// The group of a measured kernel, from its name as CUDA profilers record it
// (a mangled or demangled symbol, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
// "sm90_xmma_gemm_e4m3bf16_...", "flash_fwd_kernel", "[CUDA memcpy DtoD]").
// Case-insensitive substring rules, first match wins, in the order
// docs/FIDELITY.md lists them; kOther when none matches.
KernelGroup group_of_kernel_name(std::string_view name);

// The group of a Program's task: a collective's by its kind, a transfer's
// kSendRecv, a compute task's by its ComputeKind, dtype and KernelClass
// and, for a plain streaming kernel, by its name (casts, the optimizer, the
// loss, the embedding).
KernelGroup group_of_task(const Program& program, TaskId task);

// Seconds and kernel counts by group.
struct KernelGroupTimes {
  std::array<double, kNumKernelGroups> seconds{};
  std::array<double, kNumKernelGroups> count{};
  void add(KernelGroup g, double s, double n = 1) {
    seconds[static_cast<size_t>(g)] += s;
    count[static_cast<size_t>(g)] += n;
  }
  double of(KernelGroup g) const { return seconds[static_cast<size_t>(g)]; }
};

// One device's spans in a simulated (or Brigade-executed) trace by group:
// each span's task's group where the span names its task and `program` is
// given, else its name's (group_of_kernel_name). A compute task counts the
// kernels it stands for (a fused run's, FlashAttention's launches).
KernelGroupTimes kernel_group_times(const Trace& trace, const Program* program, int device);
// A record's kernels by group, each divided by `divisor` (steps x GPUs:
// one GPU's step): a profiler's by their names, a Brigade trace's by their
// tasks' groups in `program` (check_record_plan first), as the simulated
// side's.
// `device` >= 0: a Brigade trace's spans of that device only (a
// profiler's kernels, which carry no device, all).
KernelGroupTimes kernel_group_times(const MeasuredKernels& measured, double divisor,
                                    const Program* program = nullptr, int device = -1);

// A Brigade trace is of `program` when it names it and each of its tasks
// has the plan's name and device (else "PATH: error: found ...; expected
// ..."). A profiler's record: always fine (its kernels go by name).
Status check_record_plan(const MeasuredKernels& measured, const Program& program,
                         const std::string& path);

// One row of `brigade kernels`: a group, or a subtotal of several.
struct KernelGroupRow {
  std::string label;  // "GEMM, FP8", "GEMMs, all widths", ...
  std::string key;    // "gemm_fp8", "gemm_all", ...
  bool subtotal = false;
  KernelGroup group = KernelGroup::kOther;  // a group's row: its group
  bool communication = false;               // NCCL's groups, copies, or their subtotal
  double simulated_seconds = 0, simulated_count = 0;
  double measured_seconds = 0, measured_count = 0;
  std::string profile_keys;  // what times it in Brigade ("" for subtotals)
  // Neither side has a kernel or a second of it: kernel_group_rows leaves
  // out such a group; the text and the app leave out such a subtotal (one
  // GPU: no communication), which --json keeps.
  bool empty() const {
    return simulated_count == 0 && measured_count == 0 && simulated_seconds == 0 &&
           measured_seconds == 0;
  }
};

// The groups either side has, in KernelGroup's order, then the subtotals:
// GEMMs of all widths, the streaming kernels (norms, activations, casts,
// optimizer, loss, embedding, other streaming: kernels whose names
// profilers give less reliably than Brigade's), compute (every group but
// communication and copies) and communication. `measured` null: the
// simulated columns alone.
std::vector<KernelGroupRow> kernel_group_rows(const KernelGroupTimes& simulated,
                                              const KernelGroupTimes* measured);

// The measured kernels no rule names (kOther), largest first, at most `n`
// (a Brigade trace's tasks are never among them).
std::vector<MeasuredKernel> unnamed_kernels(const MeasuredKernels& measured, size_t n);

// Which keys of a device profile a ProfileScaling moves.
enum class ScaledKeys : std::uint8_t {
  kGemmFp8,     // the gemm.fp8 curve
  kGemm16,      // gemm.bf16, gemm.f16
  kGemmOther,   // gemm.tf32, gemm.f32
  kGemmAll,     // every width's curve (a side's GEMMs give no width)
  kAttention,   // FlashAttention's and cuDNN's rates, an unfused core's efficiencies
  kNorm,        // norm_forward/backward_efficiency
  kActivation,  // activation_* and gated_activation_* efficiencies
  kMemory,      // memory_efficiency
};

// One key of a device profile that scale_to_record changes.
struct ProfileScaling {
  ScaledKeys what = ScaledKeys::kMemory;
  std::string key;                  // "gemm.fp8", "memory_efficiency", "flash_attention, ...", ...
  std::string group;                // the group (or groups) whose ratio set it: "GEMM, FP8", ...
  std::vector<KernelGroup> groups;  // those groups
  double ratio = 0;                 // measured over simulated, the time the key is to move by
  double factor = 1;  // what the key's rates are multiplied by (1 / ratio); 0 when held
  bool held = false;  // a rate held at its bound: an efficiency at 1 or 1e-6, a
                      // FlashAttention rate at the peak (the record faster than it allows)
};

// Moves `p`'s rates so that each compute group would take the record's
// time: a group's efficiencies or rates times simulated / measured (GEMMs:
// the curves of their widths, or of every width together when one side's
// GEMMs give no width, cuBLAS's nvjet kernels; attention: FlashAttention's
// and cuDNN's rates, held at `attention_peak_flops` where > 0, and an
// unfused core's efficiencies; norms and activations: their efficiencies;
// the other streaming groups together, casts, optimizer, loss, embedding
// and the rest: memory_efficiency), an efficiency held within [1e-6, 1].
// Classes that fall back to memory_efficiency (attention, norms,
// activations) take its value first. A ratio pools only the groups both
// sides have; fused runs, "other" and communication (whose kernels wait
// for their peers: docs/FIDELITY.md) are left. A kernel's launch gap and a
// GEMM's memory side do not scale, so one pass moves a group most of the
// way and `brigade kernels --out` repeats it on a fresh simulation.
std::vector<ProfileScaling> scale_to_record(DeviceProfile& p, const KernelGroupTimes& simulated,
                                            const KernelGroupTimes& measured,
                                            double attention_peak_flops = 0);
// Its two halves. The plan: the keys that would move, each with its groups
// and ratio (factor 1 / ratio, held false), the profile untouched. Applying
// it: the keys moved (and the fall-back classes set first), each entry's
// `held` and `factor` filled in as scale_to_record's.
std::vector<ProfileScaling> plan_profile_scaling(const KernelGroupTimes& simulated,
                                                 const KernelGroupTimes& measured);
void apply_profile_scaling(DeviceProfile& p, std::vector<ProfileScaling>& plan,
                           double attention_peak_flops = 0);

}  // namespace brigade
