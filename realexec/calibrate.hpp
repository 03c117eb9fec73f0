// Calibration: micro-benchmarks run through a real executor, fitted into a
// HardwareProfile that the simulator and the cost model can use.
//
// Every benchmark is a small Program run by the same executor that runs
// plans, and a task's cost is read as what a step pays for it: the span of
// its stream from the first task's start to the last one's end, divided by
// the number of tasks (launch and scheduling gaps included, and time-slicing
// too where the machine is shared). The profile records the measured peaks
// (the best GEMM rate per dtype, the best streaming rate, the transfers'
// bandwidth), which replace the topology's data-sheet figures
// (core/profile.hpp), and efficiencies relative to them, so they stay in
// (0, 1]. docs/executors.md, "Calibration", explains every choice.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "costmodel/collectives.hpp"
#include "realexec/clock.hpp"
#include "realexec/executor.hpp"
#include "realexec/fit.hpp"

namespace brigade::realexec {

struct CalibrateOptions {
  // CPU: host-thread devices (the cpu-host preset with this many); CUDA: GPUs
  // to use (0: all present). Transfers and collectives need at least 2.
  int devices = 2;
  // Tiny sizes and few repetitions: a smoke test in seconds, not figures.
  bool quick = false;
  std::string host;              // "" -> gethostname()
  std::string date;              // "" -> now, "YYYY-MM-DD HH:MM UTC"
  std::shared_ptr<Clock> clock;  // CPU backend only; null: SteadyClock
  // Set (from another thread or a signal handler) to stop measuring: the
  // benchmark running finishes, no other starts, and calibrate returns what it
  // has measured so far fitted into a profile, the data sheet's values for
  // the rest (Calibration::interrupted, not_measured). May be null.
  const std::atomic<bool>* interrupted = nullptr;
};

struct GemmPoint {
  DType dtype = DType::kF32;
  std::int64_t size = 0;  // m = n = k
  double flops = 0;
  double seconds = 0;           // per GEMM, launch included
  double flops_per_second = 0;  // the kernel's rate: flops / (seconds - launch)
  double efficiency = 0;        // flops_per_second / the dtype's measured peak (<= 1)
};

// A GEMM (f32, m x n x k) that streams a weight, measured (CPU, two
// devices or more) in triples: after an eviction copy (cold), again (warm),
// then a square GEMM of about its FLOPs, the yardstick of the machine's
// speed at that moment.
struct ColdGemmPoint {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t square = 0;   // the yardstick's size: round(cbrt(m n k))
  double bytes = 0;          // operands: gemm_bytes
  double written_bytes = 0;  // of them, the output's: gemm_written_bytes
  double extra_seconds = 0;  // cold less warm, the median over triples
  double warm_over_square = 0;  // warm / the square's time, the median over triples
  // The profile's time for it warm: the squares' curve by FLOPs, launch
  // included (kernel_seconds without operand bytes).
  double curve_seconds = 0;
  // The warm run at the curve's pace: warm_over_square x the curve's time
  // for the square (launch counted once), so the machine's drift between
  // the squares' benchmarks and this one cancels.
  double warm_seconds = 0;
  // What the cold GEMM takes beyond the curve: the cold-operand term's share.
  double beyond_curve_seconds() const { return warm_seconds + extra_seconds - curve_seconds; }
  // What the fitted rates charge it (fit_cold_operand_rates): its read bytes
  // at the operand rate, its written bytes at the output rate (or all at the
  // one rate).
  double fitted_seconds = 0;
};

// DeviceProfile::gemm_cold_operand_bandwidth and gemm_cold_output_bandwidth
// from the cold GEMMs: the least-squares plane through the origin of
// beyond_curve_seconds against (bytes read, bytes written), unweighted, so
// that the largest operands (the plans' weights) decide, where both slopes
// come out positive and the points tell reads from writes apart (their
// ratios differ); otherwise the line through the origin against all bytes
// (one rate, output 0), as before the split; 0 and 0 where that slope is
// not positive either. Sets each point's fitted_seconds.
struct ColdOperandRates {
  double read_bytes_per_second = 0;
  double written_bytes_per_second = 0;  // 0: written bytes at the read rate
};
ColdOperandRates fit_cold_operand_rates(std::vector<ColdGemmPoint>& points);

// A 16-bit GEMM of the shape sweep (CUDA): C = m x n over k, per GEMM,
// launch included; the wave model's evidence (fit_gemm_waves).
struct GemmShapePoint {
  DType dtype = DType::kBF16;
  std::int64_t m = 0, n = 0, k = 0;
  double seconds = 0;
};

// The wave model fitted to a shape sweep (docs/costmodel.md, "GEMMs by
// shape: waves of tiles"; docs/executors.md, "Calibration").
struct GemmWaveFit {
  std::int64_t tile_rows = 0, tile_cols = 0;  // 0: no tile explains the sweep
  double tile_flops_per_second = 0;  // a tile slot's rate: its padded FLOPs a second
  double host_seconds = 0;           // the per-call intercept
  double rms = 0, worst = 0;         // the chosen tile's relative residuals
  double flat_rms = 0, flat_worst = 0;  // the FLOPs alone, at one rate with its own intercept
  int points = 0;                    // the points every candidate tile fills a wave of
};

// Among `tiles` (rows x cols; either orientation, as gemm_wave_factor
// counts them), the tile whose waves explain the sweep's times best at one
// rate: t = c0 + X / R, X a point's padded FLOPs (gemm_wave_factor x 2mnk
// on `sm_count` SMs), least squares in relative error (rows 1/t and X/t
// against 1), over the points every candidate fills at least one wave of;
// of the tiles whose RMS is within a tenth of the least (no evidence
// between them: LLMCompass's A100 GEMMs fit 128 x 128 at 2.16% and 256 x
// 128 at 2.31%), the largest, as cuBLAS runs its largest tiles on large
// GEMMs (NVIDIA's Matrix Multiplication Background guide names 256 x 128
// on the A100). Chosen where at least 5 points remain, its RMS is at most
// 0.8 x the FLOPs alone's (X = 2mnk with its own c0 and R) and half a
// point below it (a sweep whose waves are all alike full, as M = 256 j at
// N = 8192 on 132 SMs, 1.03 each, cannot tell waves from a rate), and its
// worst residual is under 8%; otherwise tile 0 (the curve keeps the FLOPs
// alone). A100 check: LLMCompass's 14 GEMMs give 256 x 128 at 0.931 of 312
// TFLOP/s, 21 us.
GemmWaveFit fit_gemm_waves(const std::vector<GemmShapePoint>& points, int sm_count,
                           const std::vector<std::pair<std::int64_t, std::int64_t>>& tiles);

// DeviceProfile::fp8_split_accumulator_efficiency from FP8 square GEMMs
// measured both ways (CUDA, a GPU with FP8 tensor cores): `fast`, the fp8
// points of Calibration::gemm (cuBLASLt's fast accumulation, the forward
// GEMMs'), and `split`, the same sizes with it off (Transformer Engine's
// gradient GEMMs, KernelClass::kGemmSplitAccumulator). The median over the
// sizes measured both ways of split rate / fast rate, the sizes of 1024 and
// more where there are any (smaller ones are mostly launch and fill, not
// accumulation); at most 1. 0: no size measured both ways.
double fit_split_accumulator_efficiency(const std::vector<GemmPoint>& fast,
                                        const std::vector<GemmPoint>& split);

// A weight-gradient GEMM that adds its product into an FP32 gradient
// buffer (fused gradient accumulation, D = A^T B + C with C = D: TE's
// fuse_wgrad_accumulation into main_grad, Apex's wgrad_gemm_accum_fp32),
// timed in pairs against the same GEMM writing a fresh 16-bit D (CUDA; FP8
// ones with split accumulation, as TE's wgrad runs), milliseconds apart.
struct AccumulatePoint {
  DType dtype = DType::kBF16;
  std::int64_t m = 0, n = 0, k = 0;
  double plain_seconds = 0;  // the fresh-output GEMM's median time
  double extra_seconds = 0;  // the median over the pairs of accumulating - plain
  // What the addition moves beyond a fresh 16-bit D, as the planner charges
  // it (GemmMixShape::accumulate_bytes): m n (2 x 4 - 2), the FP32 C read
  // and the FP32 D written where a BF16 D was.
  double extra_bytes = 0;
  double exposed =
      0;  // extra_seconds / (extra_bytes at the streaming rate); fit_accumulate_exposed
};

// DeviceProfile::gemm_accumulate_exposed from the pairs: each point's
// extra_seconds over its extra_bytes' time at `streaming_bytes_per_second`
// (the profile's peak memory bandwidth x memory_efficiency, what
// accumulate_seconds prices the bytes at), written into the point, and
// their median, at least 0 (an addition the GEMM hides reads as noise
// around 0). -1: no point, or no streaming rate.
double fit_accumulate_exposed(std::vector<AccumulatePoint>& points,
                              double streaming_bytes_per_second);

// A chosen tile (fit.tile_rows > 0) into a profile whose 16-bit curves are
// square GEMMs' measured rates: the tile, and each square's point lifted by
// its own waves' padding (gemm_wave_factor of n x n x n, n = cbrt(FLOP / 2);
// at most to 1; squares under one wave as measured), so that the curves
// stand for full waves; the fallback follows the largest point.
void apply_gemm_waves(DeviceProfile& profile, const GemmWaveFit& fit);

struct SizePoint {
  double bytes = 0;
  double seconds = 0;
  double bytes_per_second = 0;  // bytes / seconds
};

// T = alpha + bytes / bandwidth, fitted.
struct AlphaBetaFit {
  LinearFit fit;
  double alpha_seconds = 0;               // intercept
  double bandwidth_bytes_per_second = 0;  // 1 / slope
  std::vector<SizePoint> points;
};

struct LinkCalibration {
  LinkClass link_class = LinkClass::kSharedMemory;
  int src = 0, dst = 1;
  double nominal_bandwidth_bytes_per_second = 0;  // the route's bottleneck in the topology
  AlphaBetaFit transfer;  // the points and the line fit (reported)
  // What the profile records: alpha = the fit's intercept (>= 0), what a
  // message costs beyond its bytes; bandwidth = all sizes together, sum of
  // bytes / sum of (time - alpha), the rate of a mix of messages whose time
  // the large ones dominate, as in plans.
  double alpha_seconds = 0;
  double bandwidth_bytes_per_second = 0;
};

struct CollectivePoint {
  double bytes = 0;  // M (nccl-tests "size")
  double seconds = 0;
  double alg_bytes_per_second = 0;  // M / T
  double bus_bytes_per_second =
      0;  // algBw x cost::bus_bandwidth_factor (costmodel/collectives.hpp)
  // What the judges predict for it with the calibrated profile
  // (cost::collective_cost, the closed form the simulator's expansion equals).
  double model_seconds = 0;
  // Back to back, buffers warm (CPU), and the judges' warm prediction; 0:
  // not measured.
  double warm_seconds = 0;
  double warm_model_seconds = 0;
};

struct CollectiveCalibration {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int ranks = 0;
  LinearFit fit;  // T = a + b M
  std::vector<CollectivePoint> points;
  // The kind's own steps (LinkProfile::KindSteps, fit_kind_steps below), as
  // written to the profile; `steps_fit` is the fit behind its alpha.
  LinkProfile::KindSteps steps;
  MultiFit steps_fit;
};

// One step of Brigade's ring collectives, fitted from AllReduce, AllGather,
// ReduceScatter and AllToAll at every size together (fit_nonnegative):
//   T = overhead + s alpha + C / bandwidth + R / reduce_bandwidth
// with s the algorithm's steps, C and R the bytes one rank copies and
// reduces over them (cost::ring_* closed forms: AllReduce s = 2(N-1),
// C = R = (N-1)/N M; AllGather s = N-1, C = (N-1)/N M; ReduceScatter
// s = N-1, R = (N-1)/N M; AllToAll s = N-1, C = (N-1)/N M). The profile's
// LinkProfile::collective_* and collective_overhead take these figures.
struct CollectiveStepFit {
  MultiFit fit;  // coefficients: overhead, alpha, 1/bandwidth, 1/reduce bandwidth
  double overhead_seconds = 0;
  double alpha_seconds = 0;
  double bandwidth_bytes_per_second = 0;         // 0: not determined (coefficient 0)
  double reduce_bandwidth_bytes_per_second = 0;  // 0: not determined
};

struct Calibration {
  HardwareProfile profile;   // what `--out` writes
  std::string backend;       // "cpu", "cuda"
  std::string device_model;  // "host-thread", "NVIDIA H200"
  int devices = 0;
  PerDType nominal_peak_flops_per_second{};   // the topology device's data sheet
  PerDType measured_peak_flops_per_second{};  // best GEMM kernel rate seen (the profile's peak)
  std::vector<GemmPoint> gemm;
  // CUDA, a GPU with FP8 tensor cores: the fp8 squares again with cuBLASLt's
  // fast accumulation off (KernelClass::kGemmSplitAccumulator; their
  // efficiency is against the fp8 peak), and what fit_split_accumulator_
  // efficiency makes of them (the profile's fp8_split_accumulator_efficiency;
  // 0: not measured).
  std::vector<GemmPoint> fp8_split;
  double fp8_split_accumulator_efficiency = 0;
  // CPU: the yardstick of the square GEMMs (f32 yardstick_size^3, run on
  // every device right before each size's GEMMs, in every round). Each size
  // is measured as its time over the yardstick's at that moment, and its
  // time is that ratio x the yardstick's median over the whole calibration:
  // the curve describes the machine at one speed, however it drifted from
  // one size to the next (a curve measured without it read 0.99 efficiency
  // at 512^3 and 0.91 at 768^3 and 1024^3 in one calibration, where the
  // sizes ran minutes apart in a slow spell). 0: no yardstick (CUDA).
  std::int64_t yardstick_size = 0;
  double yardstick_seconds = 0;                           // the median, per GEMM
  double yardstick_min_seconds = 0, yardstick_max_seconds = 0;  // over the sizes' rounds
  double launch_overhead_seconds = 0;
  // CUDA: the host's time to enqueue one task (empty kernels onto an idle
  // GPU); not in the profile (the simulator has no host issue model). 0: CPU.
  double host_issue_seconds = 0;
  double nominal_memory_bandwidth_bytes_per_second = 0;
  // Streaming kernels: the points (bytes_per_second = bytes / (seconds -
  // launch)), the line fit (reported), the best point (the profile's peak)
  // and the rate of all sizes together, sum of bytes / sum of kernel times
  // (what the profile's memory bandwidth x efficiency gives a kernel).
  AlphaBetaFit memory;
  double memory_peak_bytes_per_second = 0;
  double memory_bandwidth_bytes_per_second = 0;
  double memory_efficiency = 0;  // memory_bandwidth / memory_peak (<= 1)
  // The norm's, the activation's and the gated activation's kernels (a
  // LayerNorm over rows of 4096, the tanh GeLU, SwiGLU: the executors'
  // kernels of KernelClass kNorm*, kActivation* and kGated*) at the same
  // sizes: their rate over all sizes together and its fraction of
  // memory_peak (the profile's norm_*_efficiency, activation_*_efficiency
  // and gated_activation_*_efficiency, clamped to 1). 0: not measured.
  double norm_bandwidth_bytes_per_second = 0, norm_efficiency = 0;
  double activation_bandwidth_bytes_per_second = 0, activation_efficiency = 0;
  double gated_bandwidth_bytes_per_second = 0, gated_efficiency = 0;
  // (bytes, seconds) per size
  std::vector<SizePoint> norm_points, activation_points, gated_points;
  std::vector<ColdGemmPoint> cold_gemm;
  // CUDA: the bf16 shape sweep and the wave model fitted to it
  // (fit_gemm_waves; the profile's gemm_wave_tile where a tile is chosen).
  std::vector<GemmShapePoint> gemm_shapes;
  GemmWaveFit gemm_waves;
  // CUDA: weight-gradient GEMMs adding into an FP32 buffer against fresh
  // ones, and what fit_accumulate_exposed makes of them (the profile's
  // gemm_accumulate_exposed; -1: not measured, the CPU's case: Eigen's
  // product adds into C either way, so there is nothing to time).
  std::vector<AccumulatePoint> gemm_accumulate;
  double gemm_accumulate_exposed = -1;
  // DeviceProfile::gemm_cold_operand_bandwidth: over cold_gemm, the rate of
  // the bytes read (of all bytes, where the fit keeps one rate), as
  // fit_cold_operand_rates says; 0: not measured, or cold GEMMs took no
  // longer than the curve on the whole.
  double gemm_cold_operand_bandwidth_bytes_per_second = 0;
  // DeviceProfile::gemm_cold_output_bandwidth: the same fit's rate for the
  // bytes written (fit_cold_operand_rates); 0: one rate for all.
  double gemm_cold_output_bandwidth_bytes_per_second = 0;
  double comm_compute_slowdown = 0;
  // DeviceProfile::comm_compute_share, from the machine rather than a
  // benchmark: the CPU backend pins each device's threads to one core, or,
  // with two usable CPUs per device, gives its communication a core of its
  // own (realexec::pinned_cpu): share 1, or 0. CUDA: 0 (copy engines and
  // NCCL's SMs; comm_compute_slowdown measures what they cost compute).
  double comm_compute_share = 0;
  int hardware_threads = 0;  // CPU: the CPUs this process may use (usable_cpus)
  std::vector<LinkCalibration> links;
  std::vector<CollectiveCalibration> collectives;
  CollectiveStepFit collective_step;  // when collectives were measured
  std::vector<std::string> notes;  // what was not measured, and why
  // Fits the measurements contradict, refused by apply_fit_sanity: what was
  // measured, why the fit is nonsense, and what the profile keeps instead.
  std::vector<std::string> rejected;
  // Stopped early (CalibrateOptions::interrupted): the measurements not made,
  // e.g. "transfers and collectives"; the profile keeps the data sheet's for them.
  bool interrupted = false;
  std::vector<std::string> not_measured;
  double wall_seconds = 0;
};

// Refuses the fits in `cal.profile` that the measurements behind them
// contradict, naming each in cal.rejected, and keeps the data sheet's value
// (or, for a collective kind, the fit over all kinds) instead:
//  - transfers whose line fit explains little (R^2 < 0.5) or whose times fall
//    as messages grow (a smaller message over 1.1 x slower than a larger
//    one): the link keeps the data sheet's alpha and bandwidth;
//  - the collective step fit over all kinds with R^2 < 0.5 (good CPU runs fit
//    0.61-0.78, docs/VALIDATION.md): not written, nor the kinds' steps that
//    scale it;
//  - a kind whose times fall as messages grow (a smaller size over 1.1 x slower
//    than a larger one), or whose fitted steps miss a measured size by more
//    than a factor of 3: its steps are not written;
//  - a negative alpha anywhere: never written (the route's alpha stands).
// Then recomputes every collective point's model_seconds with the profile as
// written. `topology` is the machine calibrate measured.
void apply_fit_sanity(Calibration& cal, const Topology& topology);

// apply_fit_sanity's rule for times that fall as sizes grow: the first pair
// (smaller, larger) where the smaller took over 1.1 x the larger's time, as
// "4.00 KiB took 483 us, longer than 256 KiB (344 us)"; "" if none. Also
// realexec/fit_nccl.cpp's. kFitMinRSquared and kFitMaxMiss are the rules'
// other limits (calibrate_sanity.cpp says where they come from).
std::string contradicting_sizes(const std::vector<CollectivePoint>& points);
inline constexpr double kFitMinRSquared = 0.5;
inline constexpr double kFitMaxMiss = 3.0;

// Progress: a short line about what is being measured, and how far along.
using CalibrateProgress = std::function<void(const std::string& what, int done, int total)>;

// The row (1, s, C, R) of CollectiveStepFit for one ring collective of
// `kind` over `ranks` ranks and M = `bytes`; false for Broadcast and Reduce
// (pipelined chains whose steps the simulator does not model one by one).
bool collective_step_row(CollectiveKind kind, int ranks, double bytes, std::vector<double>* row);

// A kind's own steps from its measured points, on top of the fit over all
// kinds: the judges' time of a collective is
//   T = overhead + s alpha_k + X(M) / scale_k(M)
// with s its algorithm's steps and X its bandwidth time at the step figures
// `step` (both from the closed forms, cost::collective_cost). alpha_k and a
// mean 1/scale come from a non-negative fit of T - overhead on (s, X) over
// the kind's sizes (fit_nonnegative); then each size whose bandwidth time is
// at least a quarter of T - overhead gets its own scale X / (T - overhead -
// s alpha_k) (so overhead + s alpha_k + X / scale is T again). No such
// size: a flat scale, the fit's mean, in [0.01, 100]. Points measured warm
// too (warm_seconds > 0) give the warm scale the same way, at alpha_k
// (KindSteps::warm_bandwidth_scale; its fallback the cold one's).
// Points with T <= overhead are skipped. Errors: fewer than 2 usable points.
Result<MultiFit> fit_kind_steps(CollectiveKind kind, int ranks, const std::vector<CollectivePoint>& points,
                                double overhead_seconds, cost::AlphaBeta step,
                                LinkProfile::KindSteps* out);

// How fast the machine runs now against what a profile says, in two
// probes that stand for its arithmetic and its memory, each on every device
// of `topology` at once for about half of `seconds` (a warm-up step, then
// the median of 3 timed steps):
//  - n^3 GEMMs back to back (their operands warm: against the profile's
//    time without the cold-operand term);
//  - streaming kernels, cold as calibrate measures them where `evict_bytes`
//    > 0 (each after an untimed copy of that many bytes to the next device;
//    with one device there is none, and the probe is skipped).
// Each figure is the profile's time over the measured one: above 1, the
// machine is faster than when it was calibrated. `brigade validate` runs
// probes around every round of every scenario, so that it can tell a
// model's error from the machine's drift (docs/executors.md, "Speed probes
// and the adjusted error").
// `ratio` over all devices (their mean time per kernel), `per_device` each
// device's own (the cores of a VM drift apart, and a plan whose devices
// synchronise runs at its slowest one's pace). 0 / empty: not measured.
//
// No probe of collectives: a cold 4 MiB AllReduce before and after each
// round was tried and did not follow the 16 MiB AllReduce of the round
// (scaling the links by it made that scenario's error worse in all 8
// validations of four calibrations, e.g. -3.3% to -16.3%): a collective's
// speed on a shared host depends on its size against the caches as much
// as on the machine's drift.
struct SpeedProbeOptions {
  std::int64_t gemm_n = 512;
  DType gemm_dtype = DType::kF32;
  double stream_bytes = 16.0 * 1048576;  // 0: no streaming probe
  double evict_bytes = 64.0 * 1048576;
  double seconds = 0.3;
};
struct SpeedProbe {
  struct Resource {
    double ratio = 0;  // 0: not measured
    std::vector<double> per_device;
  };
  Resource gemm, memory;
};
Result<SpeedProbe> speed_against_profile(RealExecutor& executor, const Topology& topology,
                                         const HardwareProfile& profile,
                                         const SpeedProbeOptions& options);

// Copies what `c` measured and each fit's R² into c.profile.calibration
// (CalibrationSamples, core/profile.hpp), so that the written profile
// carries its evidence (calibrate_samples.cpp).
void record_samples(Calibration& c);

// Runs the micro-benchmarks on `backend` and fits the profile. Errors: no
// GPU for kCuda ("no CUDA device: ..."), devices < 1 (bad input), and any
// failure of a benchmark run.
Result<Calibration> calibrate(Backend backend, const CalibrateOptions& options,
                              const CalibrateProgress& progress = {});

}  // namespace brigade::realexec
