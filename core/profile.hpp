// HardwareProfile: what devices and links really achieve, as opposed to the
// peaks the Topology carries from data sheets. Defaults are stated with
// sources; `brigade calibrate` measures and writes a profile (YAML) that a
// scenario names with `profile: FILE`.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "core/nccl_table.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"

namespace brigade {

// Efficiency (achieved / peak) as a function of the work of one kernel
// (FLOP for GEMMs). Points are (work, efficiency) sorted by work;
// interpolated linearly in log(work) and clamped at both ends. Empty means
// `fallback`.
struct EfficiencyCurve {
  std::vector<std::pair<double, double>> points;
  double fallback = 1.0;
  double at(double work) const;
};

// FlashAttention-2's measured speed on a device for one head dimension:
// achieved FLOP/s of the causal kernel by sequence length, forward and
// backward, counted as the FlashAttention benchmarks count them (4 s^2 d
// per head forward, 2.5 x that backward, halved for the causal mask:
// Dao-AILab/flash-attention, benchmarks/benchmark_flash_attention.py).
// Points are (sequence length, FLOP/s), interpolated in log(seq) and
// clamped at both ends (EfficiencyCurve::at).
struct FlashAttentionRates {
  std::int64_t head_dim = 0;
  EfficiencyCurve forward, backward;
};

struct DeviceProfile {
  std::string model;                          // matches Device::model; "*" matches any
  std::array<EfficiencyCurve, kNumDTypes> gemm{};  // GEMM efficiency by dtype vs FLOP
  double memory_efficiency = 0.8;             // streaming kernels' fraction of peak bandwidth
  double launch_overhead_seconds = 0;         // per kernel
  // The host's time to issue one operation (a kernel, a collective call, a
  // send): the framework's dispatch on the CPU (Python, PyTorch's dispatcher
  // and autograd, hooks) and the driver's launch. 0: the host is never the
  // bottleneck (every judge's assumption before it). With h > 0 each
  // device's host issues its operations one after another, h apart, in
  // the Program's order, and never waits for the device: a task starts no
  // earlier than its issue (the simulator), a pipeline stage's micro-batch
  // takes no less than its operations times h (the closed form). No preset
  // sets it: it is a property of the framework on its host, measured there
  // (docs/costmodel.md, "The host's time per operation").
  double host_op_seconds = 0;
  // While a collective or transfer of this device is in flight, its compute
  // kernels run this much slower (0.1 = 10% slower): SMs taken by NCCL kernels
  // and memory-bandwidth contention. 0 = no interference.
  double comm_compute_slowdown = 0;
  // Streaming multiprocessors of the device (the data sheet's: 108 on an
  // A100, 132 on an H100 or H200 SXM). A kernel launched on fewer of them
  // (Task::sm_held) takes sm_count / (sm_count - held) times as long. 0:
  // not known; a held SM then costs nothing (docs/costmodel.md,
  // "Transformer Engine's tensor-parallel overlap").
  int sm_count = 0;
  // The fraction of its communication's time that this device's compute
  // loses to it while both run: 1 where one processor does both (host
  // threads with no core to spare: a ring step's copies are the core's own
  // loads and stores), 0 where communication has engines of its own (a
  // GPU's copy engines and NCCL's SMs, which comm_compute_slowdown covers).
  // The simulator charges it to the compute kernel running on the device
  // (docs/simulator.md, "Approximations").
  double comm_compute_share = 0;
  // Fixed cost of one collective call on this device (kernel launch and the
  // ranks' handshake), on top of the algorithm's per-step alphas. A
  // collective pays the largest of its ranks' overheads.
  double collective_overhead_seconds = 0;
  // Measured peaks that replace the data sheet's (Device) when > 0: a
  // calibrated profile records the best rate it observed, and its efficiency
  // curves are relative to that, so efficiencies stay in (0, 1] even where a
  // preset's nominal peak (a host thread's) is below what the machine does.
  PerDType peak_flops_per_second{};           // by dtype; 0 = the Device's
  double memory_bandwidth_bytes_per_second = 0;  // 0 = the Device's
  // Hockney's half-performance time for GEMMs whose curve has no points: a
  // GEMM takes (its ideal time at peak + this) / the curve's efficiency, so a
  // small one costs about this long however few FLOPs it has (filling the
  // machine: one wave of tiles on a GPU). 0 = no such term.
  double gemm_half_seconds = 0;
  // The output tile one SM computes at a time in the 16-bit GEMMs
  // (rows x cols; either orientation), for the wave model: a GEMM's tiles
  // run in waves of sm_count, and a wave that is not full takes as long as
  // one that is (NVIDIA, "Matrix Multiplication Background User's Guide",
  // Sec. 3.2 "Wave Quantization": an A100's 108 SMs run 108 tiles of
  // 256 x 128 at once). With it (and sm_count), a kGeneric F16/BF16 GEMM
  // whose grid fills at least one wave takes waves x sm_count x rows x cols
  // x 2k FLOP at the curve's efficiency instead of its own FLOPs
  // (gemm_wave_factor); 0: no wave model.
  std::int64_t gemm_tile_rows = 0, gemm_tile_cols = 0;
  // The rate at which a GEMM reads operands that are not in cache, on top of
  // its compute time (> 0; 0 = no such term). A CPU GEMM does not hide the
  // misses of operands that other work pushed out of cache, and a skinny one
  // (a batch of 128 rows times a 2048 x 2048 weight) reuses each weight
  // element fewer times than the square of its FLOPs, which the squares'
  // curve by FLOPs does not say; both grow with the operand bytes. Plans'
  // GEMMs read weights last touched a step ago and activations that other
  // kernels have passed, so the judges charge every GEMM kernel its operand
  // bytes (gemm_bytes) at this rate. brigade calibrate measures it on the
  // CPU backend (weight-streaming GEMMs cold, warm and against a square of
  // their FLOPs: 21-40 GB/s on the development VM; docs/costmodel.md,
  // "Compute"); GPU profiles leave it 0 (their GEMMs overlap loads with
  // compute; the memory roofline covers them).
  double gemm_cold_operand_bandwidth_bytes_per_second = 0;
  // When > 0, the rate for the bytes a GEMM writes (its C), and the one
  // above is then for the operands it reads (A and B) only. 0 = all of a
  // GEMM's bytes at the operand rate. Reading a cold operand stalls the
  // packing of its panels (each element of a weight that 128 rows stream
  // is fetched once and used 128 times), while the output is written once,
  // through the write buffers, behind the arithmetic: on the development VM
  // the weight-gradient shape (2048 x 2048 x 128: 16 MiB written) took its
  // bytes at 18-600 GB/s beyond the curve (median about 45), the
  // weight-streaming one (128 x 2048 x 2048: 16 MiB read) at 18-45 GB/s,
  // in 24 of 28 calibrations the slower, so one rate for both overcharged
  // weight gradients and undercharged forward and input-gradient GEMMs.
  // brigade calibrate fits both (docs/costmodel.md, "Compute").
  double gemm_cold_output_bandwidth_bytes_per_second = 0;
  // NCCL's tuning table for this device model (core/nccl_table.hpp): where
  // every device of a collective's group has one, the judges time the
  // collective with NCCL's protocol and algorithm choice
  // (costmodel/nccl_model.hpp; HardwareProfile::collective_model). Empty:
  // the alpha-beta model.
  NcclTable nccl;
  // FlashAttention-2's measured rates by head dimension (the Hopper
  // presets'; a profile file's `flash_attention`). Empty: a FlashAttention
  // kernel is timed as a kFixed kernel on the GEMM curve and the memory
  // roofline.
  std::vector<FlashAttentionRates> flash_attention;
  // Transformer Engine's FusedAttention (cuDNN's fused attention: TE's
  // choice on Hopper and later, KernelClass::kFusedAttention*) measured the
  // same way (the Hopper presets' since freeze 9; a profile file's
  // `fused_attention`). Empty: those kernels take flash_attention's rates.
  std::vector<FlashAttentionRates> fused_attention;
  // The unfused attention core's passes over its s x s matrices
  // (KernelClass::kAttentionForward / kAttentionBackward: the scores' and
  // values' batched GEMMs, the fused softmax and the dropout, forward and
  // backward) stream at these fractions of peak bandwidth instead of
  // memory_efficiency (> 0; 0 = memory_efficiency). Measured as a whole
  // pass, not kernel by kernel (docs/costmodel.md, "Presets").
  double attention_forward_efficiency = 0;
  double attention_backward_efficiency = 0;
  // A LayerNorm's (or RMSNorm's) passes and the MLP's activation's
  // (KernelClass::kNorm* / kActivation*) stream at these fractions of peak
  // bandwidth instead of memory_efficiency (> 0; 0 = memory_efficiency):
  // kernel-level measurements of those kernels (docs/costmodel.md,
  // "Streaming kernels by class").
  double norm_forward_efficiency = 0;
  double norm_backward_efficiency = 0;
  double activation_forward_efficiency = 0;
  double activation_backward_efficiency = 0;
  // A gated activation's (KernelClass::kGated*: SwiGLU, silu(gate) x up)
  // passes, a kernel apart from GeLU's: at these fractions where > 0, else
  // at the activation's (above), else at memory_efficiency.
  double gated_activation_forward_efficiency = 0;
  double gated_activation_backward_efficiency = 0;
  // An FP8 GEMM that accumulates in split mode (KernelClass::
  // kGemmSplitAccumulator: Transformer Engine's FP8 dgrad and wgrad) runs at
  // this fraction of the rate its dtype's GEMM curve gives, which public
  // FP8 curves measure with fast accumulation (superbench's cublaslt_gemm,
  // the dgx-h100 and dgx-h200 presets' source, sets
  // CUBLASLT_MATMUL_DESC_FAST_ACCUM to 1). In (0, 1]; 0 = not measured, the
  // curve's rate (every preset: no kernel-level measurement of the split
  // mode was found; docs/costmodel.md, "FP8 training").
  double fp8_split_accumulator_efficiency = 0;
  // A weight-gradient GEMM that adds its product into the gradient buffer
  // (fused gradient accumulation: D = A^T B + C, C = D; Task's gemm_mix
  // entries and cost::Kernel carry its extra bytes, the C read and the
  // wider D write beyond a fresh 16-bit D) takes, beside its time on the
  // curve, this share of those bytes' time at the streaming rate
  // (accumulate_seconds). 0 = hidden behind the GEMM's arithmetic, as every
  // preset has it (no kernel-level measurement found; brigade-fp8-probe's
  // second table measures it: its `exposed`); 1 = paid at the streaming
  // rate. Non-negative (a slow epilogue can exceed 1).
  double gemm_accumulate_exposed = 0;
};

// The fraction of peak bandwidth a streaming pass of class `k` achieves on
// `p`: the class's own measured efficiency where the profile gives one
// (attention, norm and activation passes; a gated activation's falls back to
// the activation's), memory_efficiency otherwise.
double streaming_efficiency(const DeviceProfile& p, KernelClass k);

struct LinkProfile {
  double alpha_seconds = -1;          // per message; < 0: use the topology's link latencies
  double bandwidth_efficiency = 1.0;  // achieved fraction of the bandwidth below
  // A measured bandwidth per direction that replaces the links' own (> 0).
  double bandwidth_bytes_per_second = 0;
  // One step of a collective's algorithm over this class, as measured with
  // every rank of the step moving at once (brigade calibrate fits them from
  // whole collectives): its latency, and the bytes per second one rank
  // delivers in a step that copies and in one that reduces. A step is not an
  // isolated message: all ranks share the memory system, and each step ends
  // with the ranks synchronised. < 0 / 0: derived from the fields above
  // (cost::collective_step_alpha_beta).
  double collective_alpha_seconds = -1;
  double collective_bandwidth_bytes_per_second = 0;
  double collective_reduce_bandwidth_bytes_per_second = 0;
  // One collective kind's own steps, by CollectiveKind (brigade calibrate
  // measures every kind at several sizes M, nccl-tests' "size"): what one
  // fit over all kinds and sizes cannot say. A host's ranks share caches and
  // DRAM, so a step's rate depends on how much the collective touches (a
  // 1 MiB AllGather stays in cache, a 16 MiB one does not) and on the kind's
  // pattern of reads and writes.
  struct KindSteps {
    // A step's latency for this kind; < 0: collective_alpha_seconds.
    double alpha_seconds = -1;
    // Multiplier of both step bandwidths (copy and reduce) as a function of
    // the collective's size M in bytes: points (M, scale > 0) sorted by M,
    // interpolated linearly in log M and clamped at both ends
    // (EfficiencyCurve::at); no points: `fallback` (1 = the fields above).
    EfficiencyCurve bandwidth_scale;
    // The same for a collective that runs warm: on ranks where nothing but
    // collectives ran since their previous collective (back to back, as
    // nccl-tests runs them), its buffers are still in cache and its ranks
    // arrive together, awake. It then pays no call overhead
    // (DeviceProfile::collective_overhead, the cold handshake), its steps
    // this alpha (< 0: alpha_seconds) and this scale (no points:
    // `bandwidth_scale`, cold). Either alone makes the kind's warm
    // collectives warm.
    double warm_alpha_seconds = -1;
    EfficiencyCurve warm_bandwidth_scale;
    // The scale of a collective of size `bytes`, warm or not.
    double scale(double bytes, bool warm) const {
      return warm && !warm_bandwidth_scale.points.empty() ? warm_bandwidth_scale.at(bytes)
                                                          : bandwidth_scale.at(bytes);
    }
    // Whether the kind has warm figures (either): a warm collective is then
    // timed by them (the missing one: the cold one) and pays no overhead.
    bool has_warm() const { return warm_alpha_seconds >= 0 || !warm_bandwidth_scale.points.empty(); }
    bool empty() const { return alpha_seconds < 0 && bandwidth_scale.points.empty() &&
                                bandwidth_scale.fallback == 1.0 && !has_warm(); }
  };
  std::array<KindSteps, kNumCollectiveKinds> collective_kinds{};
  const KindSteps& kind_steps(CollectiveKind k) const {
    return collective_kinds[static_cast<size_t>(k)];
  }
  bool has_kind_steps() const {
    for (const KindSteps& k : collective_kinds)
      if (!k.empty()) return true;
    return false;
  }
  bool has_warm_steps() const {
    for (const KindSteps& k : collective_kinds)
      if (k.has_warm()) return true;
    return false;
  }
};

// What `brigade calibrate` measured, kept in the profile beside the fits it
// made of them (optional: a profile written by hand or by an older
// calibrate has none; the judges never read it). The app's calibration
// view plots these points against the fitted curves.
struct CalibrationSamples {
  struct Gemm {
    DType dtype = DType::kF32;
    double flops = 0;       // per GEMM
    double seconds = 0;     // per GEMM, launch included
    double efficiency = 0;  // the kernel's rate over the dtype's peak
  };
  struct Memory {  // a streaming kernel
    double bytes = 0;
    double seconds = 0;
  };
  struct Link {  // a transfer over one link class
    LinkClass link_class = LinkClass::kSharedMemory;
    double bytes = 0;
    double seconds = 0;
  };
  struct Collective {
    CollectiveKind kind = CollectiveKind::kAllReduce;
    int ranks = 0;
    double bytes = 0;          // M, nccl-tests' "size"
    double seconds = 0;        // measured
    double model_seconds = 0;  // the judges' time with the fitted profile; 0: none
  };
  std::vector<Gemm> gemm;
  std::vector<Memory> memory;
  // The executors' LayerNorm, GeLU and SwiGLU kernels at the streaming
  // sizes (the norm, activation and gated activation classes' rates).
  std::vector<Memory> norm, activation, gated;
  std::vector<Link> links;
  std::vector<Collective> collectives;
  // Coefficient of determination of each fit, by name: "memory",
  // "link.<class>", "collective_step", "collective.<kind>" (the kind's
  // line T = a + bM), "steps.<kind>" (the kind's own steps).
  std::vector<std::pair<std::string, double>> r_squared;
  bool empty() const {
    return gemm.empty() && memory.empty() && norm.empty() && activation.empty() && gated.empty() &&
           links.empty() && collectives.empty() && r_squared.empty();
  }
};

// Which model times a collective (docs/costmodel.md, "NCCL's protocols and
// algorithms"): NCCL's tuning model where every device of the group has an
// NCCL table and the algorithm is one NCCL runs (auto), NCCL's model or an
// error naming the device model without a table (nccl), or the alpha-beta
// closed forms always (alpha-beta, for teaching).
enum class CollectiveModel : std::uint8_t { kAuto, kNccl, kAlphaBeta };
std::string_view collective_model_name(CollectiveModel m);  // "auto", "nccl", "alpha-beta"
std::optional<CollectiveModel> parse_collective_model(std::string_view s);

struct HardwareProfile {
  std::string name = "datasheet";
  // "datasheet" (defaults), "cpu" or "cuda" (calibrated by that backend).
  std::string machine_kind = "datasheet";
  std::string source;  // "defaults from data sheets", "calibrated on HOST at DATE"
  CollectiveModel collective_model = CollectiveModel::kAuto;
  std::vector<DeviceProfile> devices;  // looked up by model, then "*"
  std::array<LinkProfile, kNumLinkClasses> links{};
  CalibrationSamples calibration;  // optional: what calibrate measured

  // The entry for a device's model (or the "*" entry, or a built-in default).
  const DeviceProfile& for_device(const Device& d) const;
  // One line per device model of `topology` that this profile has no entry
  // for (no entry of that model and no "*"): those devices get the data
  // sheet's defaults, which a user who named the profile may not expect.
  // None for a profile without device entries (links alone).
  // "profile 'NAME' has no entry for device model 'M' (devices a, b): ...".
  std::vector<std::string> uncovered_models(const Topology& topology) const;
  const LinkProfile& for_link(LinkClass c) const { return links[static_cast<size_t>(c)]; }

  // Data-sheet defaults for every device model the presets use, their NCCL
  // tables those of NCCL `version` (scenario key topology.nccl_version,
  // `brigade collective --nccl-version`).
  static HardwareProfile defaults(NcclVersion version = kDefaultNcclVersion);
  // The version of this profile's NCCL tables when they all follow one
  // (none, or a table of another version: nullopt with `mixed` set).
  std::optional<NcclVersion> nccl_version(bool* mixed = nullptr) const;
};

// A device's host time per operation (DeviceProfile::host_op_seconds):
// `override` where set (a scenario's simulation.host_op_time), else its
// profile entry's.
inline double host_op_seconds(const HardwareProfile& p, const Device& d,
                              std::optional<double> override) {
  return override ? *override : p.for_device(d).host_op_seconds;
}

// The host time per operation the closed form charges every device and the
// app shows: `override` where set, else the largest of the profile's entries
// (a cluster's hosts are alike; a mixed one is judged at its slowest host).
inline double slowest_host_op_seconds(const HardwareProfile& p, std::optional<double> override) {
  if (override) return *override;
  double h = 0;
  for (const DeviceProfile& d : p.devices) h = std::max(h, d.host_op_seconds);
  return h;
}

// FLOPs of (m x k) times (k x n), `batch` times: 2mnk per product (one
// multiply and one add per inner-product term).
double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1);

// Memory traffic of that GEMM: A (m x k), B (k x n) read and C (m x n)
// written once each, at `dtype`'s width, `batch` times.
double gemm_bytes(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype,
                  std::int64_t batch = 1);
// Of those, the bytes written: C (m x n), `batch` times.
double gemm_written_bytes(std::int64_t m, std::int64_t n, DType dtype, std::int64_t batch = 1);
// A compute task's written bytes as kernel_seconds takes them: a GEMM's C
// (gemm_written_bytes of its shape), 0 for other kinds.
double task_written_bytes(const Task& task);

// A GEMM's shape for kernel_seconds' wave model (DeviceProfile::
// gemm_tile_rows): C is m x n, batch of them, over an inner dimension k.
// m == 0: not known (the FLOPs alone time it).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
};

// The wave model's padding of a GEMM: the FLOPs its waves cost (full
// waves of sm_count tiles, each tile's full area over k) over its own, for
// a kGeneric F16/BF16 GEMM of a profile with a tile and an SM count whose
// grid fills at least one wave, taking the orientation of the tile with
// fewer waves: waves x sm_count x rows x cols / (m x n x batch) >= 1.
// 0 where the model does not apply (no tile, another dtype or class, an
// unknown shape, or a grid under one wave: cuBLAS then picks smaller tiles,
// and the curve with Hockney's fill times it).
double gemm_wave_factor(const DeviceProfile& p, DType dtype, KernelClass kernel, GemmShape shape);

// What a GEMM adding into its output moves beyond a plain one, and its
// time: the extra bytes (GemmMixShape::accumulate_bytes, cost::Kernel::
// accumulate_bytes) times the profile's gemm_accumulate_exposed over the
// streaming rate (peak memory bandwidth x memory_efficiency); 0 where the
// profile does not expose it. docs/costmodel.md, "Fused gradient
// accumulation".
double accumulate_seconds(const Device& d, const DeviceProfile& p, double accumulate_bytes);
// The extra bytes of a task's GEMMs that add into their outputs: the sum
// over its gemm_mix shapes of count x accumulate_bytes (0 for none).
double gemm_mix_accumulate_bytes(std::span<const GemmMixShape> shapes);

// A fused task's time (Task::gemm_mix) under a profile with a wave model
// (gemm_tile_rows): each of its recorded GEMM shapes as kernel_seconds
// times that kernel alone (count times), plus the rest of the task (its
// FLOPs, bytes and kernels less the shapes': FlashAttention, GEMMs of other
// widths) as kernel_seconds times a fused run. -1 where it does not apply
// (no wave model, no shapes, not a kFixed task): the caller times the task
// as before, which keeps every other profile's figures as they were.
double gemm_mix_seconds(const Device& d, const DeviceProfile& p, const Task& task,
                        std::span<const GemmMixShape> shapes);

// The kernels a compute task stands for (kernel_seconds' `fused`): the batch
// of a kFixed or kMemoryBound task, where the planner records how many
// kernels it fused into one task (a run of FlashAttention kernels too); 1
// otherwise.
std::int64_t fused_kernels(const Task& task);

// The peak a device is judged against: the profile's measured peak when it
// gives one, else the data sheet's; a dtype without a peak falls back to f32's.
double peak_flops_per_second(const Device& d, const DeviceProfile& p, DType dtype);
double peak_memory_bandwidth_bytes_per_second(const Device& d, const DeviceProfile& p);

// What one direction of a link achieves under a profile:
// (profile's bandwidth for the class, else the link's) x the class's efficiency.
double achieved_link_bandwidth_bytes_per_second(const Link& link, const HardwareProfile& profile);

// Roofline time of one kernel on a device under a profile:
//   launch + max(flops / (peak[dtype] * eff(flops)), bytes / (mem_bw * mem_eff))
// (Williams, Waterman & Patterson, "Roofline", CACM 2009), with the peaks of
// peak_flops_per_second and peak_memory_bandwidth_bytes_per_second.
// GEMM-like kernels (kGemm, kFixed) take their FLOPs at the profile's GEMM
// efficiency; streaming kernels (kMemoryBound) take theirs at peak (an
// elementwise op's arithmetic is not what limits it).
//
// A GEMM (kGemm) with a cold-operand rate also takes its bytes at that rate
// (DeviceProfile::gemm_cold_operand_bandwidth_bytes_per_second); of them,
// `written_bytes` (its output: gemm_written_bytes) at the output rate when
// the profile has one.
//
// A FlashAttention kernel (`kernel` kFlashForward / kFlashBackward, or TE's
// cuDNN kFusedAttentionForward / kFusedAttentionBackward; `seq` and
// `head_dim` its shape) on a profile with measured rates for it
// (flash_attention_rates) takes
// fused x launch + (flops / 2) / rate(seq): Brigade counts the full s^2 score
// matrix, the causal kernel computes half of it (its blocks above the
// diagonal skipped), and the rates are per causal FLOP. The head dimension
// takes the row of the nearest measured one.
//
// An unfused attention core's pass (kAttentionForward / kAttentionBackward),
// a norm's or an activation's (kNorm*, kActivation*, kGated*) takes its bytes at
// the profile's efficiency for its class (streaming_efficiency).
//
// `shape`: a GEMM's m, n, k and batch; where gemm_wave_factor applies, the
// GEMM's FLOPs are padded by it (its waves of tiles, each tile full) and
// Hockney's fill is not added (a wave is the fill).
//
// `fused` > 1: the task is a run of that many kernels fused into one (the
// planner's region and step granularities; Task::batch of a kFixed or
// kMemoryBound task): the GEMM curve is read at the mean kernel's FLOPs
// (flops / fused) rather than at the run's sum, where it would credit many
// small GEMMs with a large one's efficiency, and each kernel pays its launch
// gap (and, without a curve, its Hockney fill), as the closed form charges
// them one by one.
double kernel_seconds(const Device& d, const DeviceProfile& p, DType dtype, double flops,
                      double bytes, ComputeKind kind = ComputeKind::kGemm, double written_bytes = 0,
                      KernelClass kernel = KernelClass::kGeneric, std::int64_t seq = 0,
                      std::int64_t head_dim = 0, std::int64_t fused = 1, GemmShape shape = {});

// The share of a device's compute a kernel keeps with `held` of its SMs
// given to a communication kernel beside it: (sm_count - held) / sm_count,
// 1 when either is 0 (a profile that does not know its SMs); at least
// one SM is left to the kernel. A kernel's time is divided by it.
double sm_share(const DeviceProfile& p, int held);

// NCCL's kernels beside compute (docs/costmodel.md, "NCCL's kernels take
// SMs"): a collective that NCCL runs on `channels` channels launches one
// thread block a channel, each of which holds an SM for the collective's
// whole run (its threads take most of the SM's registers: a GEMM's tile
// cannot share it). A compute kernel beside it runs on the other SMs, at
// 1 - share of its rate. The share: channels / sm_count, at most 1; 0 where
// the profile does not know its SMs, where the collective's channels are
// not known (0: NCCL's model does not time it, or a table without channel
// counts), or where the device's interference is stated otherwise (a
// measured comm_compute_slowdown, or a comm_compute_share: communication
// on the computing core).
double nccl_sm_share(const DeviceProfile& p, int channels);

// How long a compute kernel of `kernel` seconds alone takes when a
// collective of `collective` seconds holding `share` of its SMs starts
// beside it at the same instant: at 1 - share of its rate while the
// collective runs, at its whole rate after: kernel + share x
// min(collective, kernel / (1 - share)) (the kernel + the collective where
// share is 1: it waits). The kernel's time where share is 0.
double kernel_beside_collective_seconds(double kernel, double collective, double share);

// The FlashAttention-2 rates of `p` for `head_dim` (the nearest measured
// head dimension, ties to the smaller), or null when it has none.
// The measured rates for a fused attention kernel of class `kernel` (either
// backend) nearest `head_dim`: fused_attention's for a kFusedAttention*
// kernel where the profile has some, else flash_attention's; null if none.
const FlashAttentionRates* flash_attention_rates(const DeviceProfile& p, std::int64_t head_dim,
                                                 KernelClass kernel = KernelClass::kFlashForward);

// The alpha-beta parameters every judge uses for a message along a route:
// alpha = the profile's alpha for the route's bottleneck link class when it
// gives one (>= 0), else the route's summed link latencies; bandwidth = the
// minimum over the route's links of achieved_link_bandwidth_bytes_per_second.
// A route from a device to itself has alpha 0 and infinite bandwidth.
double route_alpha_seconds(const Route& route, const HardwareProfile& profile);
double route_bandwidth_bytes_per_second(const Route& route, const Topology& topology,
                                        const HardwareProfile& profile);

// Profile files (YAML; format in docs/scenario-format.md, "Profile files").
Result<HardwareProfile> load_profile(const std::string& path);
// The same from text; `path` names it in messages.
Result<HardwareProfile> parse_profile(const std::string& text, const std::string& path);
Status save_profile(const HardwareProfile& profile, const std::string& path);
// The file's text (`path` names it in an error).
Result<std::string> profile_yaml(const HardwareProfile& profile, const std::string& path);

}  // namespace brigade
