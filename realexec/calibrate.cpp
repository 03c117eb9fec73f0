#include "realexec/calibrate.hpp"
#include "realexec/fit_nccl.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <limits>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "core/topology.hpp"
#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "realexec/calibrate_accumulate.hpp"
#include "realexec/calibrate_bench.hpp"
#include "realexec/calibrate_machine.hpp"
#include "realexec/summary.hpp"

namespace brigade::realexec {

namespace {

// A calibration task's name for a streaming kernel class.
const char* kind_name(KernelClass k) {
  if (k == KernelClass::kNormForward) return "layernorm";
  if (k == KernelClass::kActivationForward) return "gelu";
  if (k == KernelClass::kGatedForward) return "swiglu";
  return "stream";
}

using calibrate_detail::accumulate_pairs_job;
using calibrate_detail::accumulate_point;
using calibrate_detail::apply_accumulate_fit;
using calibrate_detail::Bench;
using calibrate_detail::cpu_machine;
using calibrate_detail::cuda_machine;
using calibrate_detail::fit_alpha_beta;
using calibrate_detail::host_name;
using calibrate_detail::Machine;
using calibrate_detail::on_every_device;
using calibrate_detail::reps_for;
using calibrate_detail::utc_now;

constexpr double kMiB = 1024.0 * 1024.0;
// GEMMs measured with cold operands: each after a copy this large.
constexpr double kColdGemmEvictBytes = 64 * kMiB;
// The square GEMMs' yardstick (Calibration::yardstick_size): this many
// f32 GEMMs of this size (2.7 ms each on the development VM).
constexpr std::int64_t kYardstickSize = 512;
constexpr size_t kYardstickGemms = 2;

std::string fmt_shape(const ColdGemmPoint& c) {
  return "f32 GEMM " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
}

std::string fmt_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

}  // namespace

Result<Calibration> calibrate(Backend backend, const CalibrateOptions& options,
                              const CalibrateProgress& progress) {
  const auto wall0 = std::chrono::steady_clock::now();
  const bool cuda = backend == Backend::kCuda;
  const bool quick = options.quick;
  Calibration cal;
  cal.backend = std::string(backend_name(backend));

  // The executor and the machine.
  std::unique_ptr<RealExecutor> ex;
  int devices = options.devices;
  if (cuda) {
    CudaOptions co;
    BRIGADE_ASSIGN_OR_RETURN(ex, make_cuda_executor(co));
    const int gpus = cuda_device_count();
    if (devices <= 0 || devices > gpus) {
      if (devices > gpus)
        cal.notes.push_back("asked for " + std::to_string(devices) + " GPUs; " +
                            std::to_string(gpus) + " are present, all used");
      devices = gpus;
    }
  } else {
    if (devices < 1)
      return Status::error("found devices " + std::to_string(devices) + "; expected devices >= 1");
    CpuOptions co;
    co.clock = options.clock;
    ex = make_cpu_executor(co);
  }
  BRIGADE_ASSIGN_OR_RETURN(Machine machine, cuda ? cuda_machine(devices) : cpu_machine(devices));
  const Topology& topo = machine.topology;
  const Device& dev = machine.device;
  cal.devices = devices;
  cal.device_model = dev.model;
  cal.nominal_peak_flops_per_second = dev.peak_flops_per_second;
  cal.nominal_memory_bandwidth_bytes_per_second = dev.memory_bandwidth_bytes_per_second;

  // What to measure (calibrate_machine.cpp: the sizes and budgets by backend).
  calibrate_detail::MeasurePlan plan = calibrate_detail::measure_plan(cuda, quick, dev);
  auto& gemm_plan = plan.gemm;
  auto& cold_shapes = plan.cold_shapes;
  auto& wave_sweep = plan.wave_sweep;
  auto& split_sizes = plan.split_sizes;
  auto& accumulate_shapes = plan.accumulate_shapes;
  const auto& memory_sizes = plan.memory_sizes;
  const auto& transfer_sizes = plan.transfer_sizes;
  const auto& collective_sizes = plan.collective_sizes;
  const double gemm_budget = plan.gemm_budget, point_budget = plan.point_budget;
  const bool pairs = devices >= 2;
  // Communication's share of a computing core (CPU): the executor pins a
  // device's threads to one core unless there are two usable CPUs per device
  // (pinned_cpu); on a shared core its communication takes the core from
  // its compute (CpuOptions::communication_first).
  if (!cuda) {
    const std::vector<int> cpus = usable_cpus();
    cal.hardware_threads = static_cast<int>(cpus.size());
    cal.comm_compute_share = communication_has_own_core(devices, cpus) ? 0.0 : 1.0;
  }

  // Progress: one line per benchmark run (Bench::run_rounds runs each of
  // its jobs kRounds times).
  // The streaming sizes run four kernels each: the plain stream, the
  // LayerNorm, the GeLU and the SwiGLU (the norm, activation and gated
  // activation classes').
  int total = (cuda ? 2 : 1) + 4 * Bench::kRounds * static_cast<int>(memory_sizes.size());
  // GEMMs measured with cold operands too (below): CPU, two devices or more
  // (the eviction copy goes to the next device).
  const bool cold_gemms = !cuda && devices >= 2;
  if (!cold_gemms) cold_shapes.clear();
  total += Bench::kRounds * static_cast<int>(cold_shapes.size());
  for (const auto& [t, sizes] : gemm_plan) total += Bench::kRounds * static_cast<int>(sizes.size());
  total += Bench::kRounds * static_cast<int>(split_sizes.size());
  total += Bench::kRounds * static_cast<int>(accumulate_shapes.size());
  if (pairs)
    total += Bench::kRounds * (static_cast<int>(transfer_sizes.size()) +
                               kNumCollectiveKinds * static_cast<int>(collective_sizes.size()) *
                                   (cuda ? 1 : 2)) +  // CPU: cold and warm
             (cal.comm_compute_share >= 1.0 ? 0 : 1);
  // Steps of a few milliseconds run 5-10% slower in a run's first tens of
  // milliseconds than later (summary.hpp, kWarmupSeconds): a one-step
  // warm-up left calibrate's one-collective steps slower than `validate`'s
  // (which warms up for 0.25 s) measured the same collective. 50 ms before
  // each run's timed steps costs calibrate some 10 s; --quick skips it.
  Bench bench(*ex, topo, progress, total, quick ? 0.0 : 0.05, options.interrupted);
  const int min_reps = quick ? 3 : 5;

  // The measurements, one phase after another. Interrupted (SIGINT in the
  // command line), the phase running is dropped and the profile is fitted from
  // the phases done, the data sheet's values standing for the rest.
  std::string phase;
  const Status measured = [&]() -> Status {
    phase = "launch overhead";
  // Launch overhead: back-to-back kernels that do (almost) nothing.
  //
  // CUDA: the host enqueues each task (two timing events, the kernel, the
  // stream's waits) in 6-9 us on the H200's machine, as long as or longer
  // than an empty task takes on the GPU, so empty kernels enqueued onto an
  // idle GPU measure the host's rate (Calibration::host_issue_seconds). In
  // a plan the host runs ahead of kernels of milliseconds, and a tiny
  // kernel takes what the GPU needs: on the H200 5.2 us per task back to
  // back, where the host's rate read 5.8-8.6 us. So it is measured behind a
  // lead GEMM (f32 8192^3, 21 ms on an H200) that keeps the GPU busy while
  // the host enqueues the empty kernels: their time from the first one's
  // start to the last one's end, per kernel.
  {
    const int reps = quick ? 50 : (cuda ? 1000 : 2000);
    BRIGADE_ASSIGN_OR_RETURN(
        auto ps, on_every_device("calibrate-launch", devices, [&](ProgramBuilder& b, StreamId s, int) {
          for (int i = 0; i < reps; ++i) b.add_memory_bound(s, 64, DType::kF32, "noop");
        }));
    BRIGADE_ASSIGN_OR_RETURN(
        Trace t,
        bench.run(ps.first, "launch overhead: " + std::to_string(reps) + " empty kernels"));
    const double onto_idle = Bench::per_task_seconds(t, ps.second);
    cal.launch_overhead_seconds = onto_idle;
    if (cuda) {
      cal.host_issue_seconds = onto_idle;
      // Long enough to hide the host's enqueueing of the empty kernels
      // (about 8 us each): f32 4096^3 takes 2.7 ms on an H200, 8192^3 21 ms.
      const std::int64_t lead = quick ? 4096 : 8192;
      BRIGADE_ASSIGN_OR_RETURN(
          auto behind,
          on_every_device("calibrate-launch-behind", devices, [&](ProgramBuilder& b, StreamId s, int) {
            b.add_gemm(s, lead, lead, lead, DType::kF32, "lead");
            for (int i = 0; i < reps; ++i) b.add_memory_bound(s, 64, DType::kF32, "noop");
          }));
      BRIGADE_ASSIGN_OR_RETURN(
          Trace tb, bench.run(behind.first, "launch overhead: " + std::to_string(reps) +
                                                " empty kernels behind a GEMM"));
      cal.launch_overhead_seconds = Bench::per_task_seconds_in(tb, behind.second, 1,
                                                               std::numeric_limits<size_t>::max());
    }
  }

  // The time a kernel's own work takes: a task's cost less the launch
  // overhead that kernel_seconds adds on its own (at least 5% of the cost).
  auto kernel_part = [&](double seconds) {
    return std::max(seconds - cal.launch_overhead_seconds, 0.05 * seconds);
  };

    phase = "GEMMs";
  // GEMMs: square sizes spanning the FLOPs of the kernels plans run (a
  // 128x128x64 attention product is 2 MFLOP, a 1024x4096x1024 projection
  // 8.6 GFLOP), on every device at once, back to back (operands warm).
  //
  // Cold operands (CPU): GEMMs that stream a weight (128 rows against an
  // n x n matrix, and the weight-gradient shape whose output is the n x n
  // matrix), where operand bytes are a large part of the time, each in
  // triples: an untimed 64 MiB copy to the next device that evicts the
  // operands (and leaves the cache dirty, as a plan's kernels do), the GEMM
  // (cold), the same GEMM again (warm), a square GEMM of its FLOPs (the
  // yardstick of the machine's speed at that moment). Within a triple the
  // runs are milliseconds apart, so the machine's drift cancels out of the
  // cold - warm difference and the warm / square ratio (medians over the
  // triples). What each shape took beyond the squares' curve is set against
  // its operand bytes once the curve is known (the profile, below).
  // (Squares cold against squares warm were measured before: the extra of a
  // 1024^3 GEMM is 1-2%, under the machine's noise, while small squares pay
  // more per byte than the MB-sized operands of plans; docs/VALIDATION.md.)
  // The square GEMMs against a yardstick (CPU; Calibration::yardstick_size):
  // each size's job starts with kYardstickGemms f32 kYardstickSize^3 GEMMs
  // on every device, and reads its GEMMs' time over theirs.
  const std::int64_t yardstick = cuda ? 0 : (quick ? 64 : kYardstickSize);
  {
    std::vector<Bench::Job> jobs;
    std::vector<size_t> warm_job;   // by cal.gemm index: its job
    std::vector<size_t> split_job;  // by cal.fp8_split index: its job
    // One size's job: n^3 GEMMs of `dtype` as `kernel` runs them (after the
    // yardstick on the CPU), its point into `points` and its job into `job_of`.
    auto square = [&](DType dtype, std::int64_t n, KernelClass kernel,
                      std::vector<GemmPoint>& points, std::vector<size_t>& job_of) -> Status {
      double nominal = dev.peak_flops_per_second[static_cast<size_t>(dtype_index(dtype))];
      if (!(nominal > 0))
        nominal = dev.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))];
      const double flops = gemm_flops(n, n, n);
      const double estimate = nominal > 0 ? flops / (0.5 * nominal) : 1e-3;
      const int reps = reps_for(gemm_budget, estimate, min_reps, 400);
      const size_t y = yardstick > 0 ? kYardstickGemms : 0;
      BRIGADE_ASSIGN_OR_RETURN(
          auto ps,
          on_every_device("calibrate-gemm", devices, [&](ProgramBuilder& b, StreamId s, int) {
            for (size_t i = 0; i < y; ++i)
              b.add_gemm(s, yardstick, yardstick, yardstick, DType::kF32, "yardstick");
            for (int i = 0; i < reps; ++i)
              b.task(b.add_gemm(s, n, n, n, dtype, "gemm")).kernel = kernel;
          }));
      GemmPoint g;
      g.dtype = dtype;
      g.size = n;
      g.flops = flops;
      points.push_back(g);
      job_of.push_back(jobs.size());
      const auto gemms = [ss = ps.second, y](const Trace& t) {
        return Bench::per_task_seconds_in(t, ss, y, std::numeric_limits<size_t>::max());
      };
      const auto yard = [ss = ps.second, y](const Trace& t) {
        return Bench::per_task_seconds_in(t, ss, 0, y);
      };
      std::string what =
          std::string(dtype_name(dtype)) + " GEMM " + std::to_string(n) + "^3" +
          (kernel == KernelClass::kGemmSplitAccumulator ? ", split accumulation" : "") + " x" +
          std::to_string(reps);
      if (y == 0) {
        jobs.push_back(Bench::Job{std::move(ps.first), std::move(what), gemms});
      } else {
        jobs.push_back(Bench::Job{std::move(ps.first),
                                  what + " after a " + std::to_string(yardstick) + "^3 yardstick",
                                  [gemms, yard](const Trace& t) {
                                    const double r = yard(t);
                                    return r > 0 ? gemms(t) / r : 0.0;
                                  },
                                  1, yard});
      }
      return Status::ok();
    };
    for (const auto& [dtype, sizes] : gemm_plan)
      for (std::int64_t n : sizes)
        BRIGADE_RETURN_IF_ERROR(square(dtype, n, KernelClass::kGeneric, cal.gemm, warm_job));
    // The fp8 squares with cuBLASLt's fast accumulation off, as Transformer
    // Engine runs its input- and weight-gradient GEMMs.
    for (std::int64_t n : split_sizes)
      BRIGADE_RETURN_IF_ERROR(
          square(DType::kFP8, n, KernelClass::kGemmSplitAccumulator, cal.fp8_split, split_job));
    const size_t first_cold_job = jobs.size();
    const double f32_nominal = dev.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))];
    for (const ColdGemmPoint& shape : cold_shapes) {
      const double estimate =
          f32_nominal > 0 ? gemm_flops(shape.m, shape.n, shape.k) / (0.5 * f32_nominal) : 1e-3;
      const int triples = std::clamp(reps_for(gemm_budget, 3 * estimate, min_reps, 400), 3, 12);
      BRIGADE_ASSIGN_OR_RETURN(
          auto cold, on_every_device("calibrate-gemm-cold", devices,
                                     [&](ProgramBuilder& b, StreamId s, int d) {
                                       for (int i = 0; i < triples; ++i) {
                                         b.add_transfer(s, (d + 1) % devices, kColdGemmEvictBytes,
                                                        "evict");
                                         b.add_gemm(s, shape.m, shape.n, shape.k, DType::kF32,
                                                    "gemm cold");
                                         b.add_gemm(s, shape.m, shape.n, shape.k, DType::kF32,
                                                    "gemm warm");
                                         b.add_gemm(s, shape.square, shape.square, shape.square,
                                                    DType::kF32, "gemm square");
                                       }
                                     }));
      jobs.push_back(Bench::Job{
          std::move(cold.first),
          fmt_shape(shape) + " cold, warm, then " + std::to_string(shape.square) + "^3 x" +
              std::to_string(triples),
          [ss = cold.second](const Trace& t) {
            return Bench::median_over_groups(t, ss, 3,
                                             [](const std::vector<double>& g) { return g[0] - g[1]; });
          },
          1,
          [ss = cold.second](const Trace& t) {
            return Bench::median_over_groups(t, ss, 3, [](const std::vector<double>& g) {
              return g[2] > 0 ? g[1] / g[2] : 0.0;
            });
          }});
    }
    const size_t first_sweep_job = jobs.size();
    const double bf16_nominal =
        dev.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kBF16))];
    for (const GemmShapePoint& g : wave_sweep) {
      const double flops = gemm_flops(g.m, g.n, g.k);
      const double estimate = bf16_nominal > 0 ? flops / (0.5 * bf16_nominal) : 1e-3;
      const int reps = reps_for(gemm_budget, estimate, min_reps, 400);
      BRIGADE_ASSIGN_OR_RETURN(
          auto ps, on_every_device("calibrate-gemm-waves", devices,
                                   [&](ProgramBuilder& b, StreamId s, int) {
                                     for (int i = 0; i < reps; ++i)
                                       b.add_gemm(s, g.m, g.n, g.k, g.dtype, "gemm shape");
                                   }));
      jobs.push_back(Bench::Job{std::move(ps.first),
                                std::string(dtype_name(g.dtype)) + " GEMM " + std::to_string(g.m) +
                                    "x" + std::to_string(g.n) + "x" + std::to_string(g.k) + " x" +
                                    std::to_string(reps),
                                [ss = ps.second](const Trace& t) {
                                  return Bench::per_task_seconds(t, ss);
                                }});
    }
    // Weight-gradient GEMMs adding into an FP32 buffer (fused gradient
    // accumulation), each right after the same GEMM writing a fresh 16-bit
    // D, in pairs milliseconds apart so that the clock and the power cap
    // treat both alike: the median difference is what the addition costs
    // beyond a plain GEMM (AccumulatePoint; fitted into the profile's
    // gemm_accumulate_exposed once the streaming rate is known, below).
    const size_t first_accumulate_job = jobs.size();
    for (const GemmShapePoint& g : accumulate_shapes) {
      BRIGADE_ASSIGN_OR_RETURN(Bench::Job job,
                               accumulate_pairs_job(g, dev, devices, gemm_budget, min_reps));
      jobs.push_back(std::move(job));
    }
    std::vector<double> warm_over_square;  // the cold triples'; the squares': the yardstick's
    std::vector<std::vector<double>> yardsticks;  // each job's yardstick readings, by round
    BRIGADE_ASSIGN_OR_RETURN(std::vector<double> seconds,
                             bench.run_rounds(jobs, &warm_over_square, &yardsticks));
    if (yardstick > 0) {
      // Ratios to times at the yardstick's median speed over the calibration.
      std::vector<double> all;
      for (size_t j : warm_job)
        for (double x : yardsticks[j])
          if (x > 0) all.push_back(x);
      if (all.empty()) return Status::error("the GEMM yardstick measured no time");
      cal.yardstick_size = yardstick;
      cal.yardstick_seconds = median(all);
      cal.yardstick_min_seconds = *std::min_element(all.begin(), all.end());
      cal.yardstick_max_seconds = *std::max_element(all.begin(), all.end());
      for (const std::vector<size_t>* js : {&warm_job, &split_job})
        for (size_t j : *js) seconds[j] *= cal.yardstick_seconds;
    }
    for (size_t i = 0; i < cold_shapes.size(); ++i) {
      ColdGemmPoint c = cold_shapes[i];
      c.bytes = gemm_bytes(c.m, c.n, c.k, DType::kF32);
      c.written_bytes = gemm_written_bytes(c.m, c.n, DType::kF32);
      c.extra_seconds = seconds[first_cold_job + i];
      c.warm_over_square = warm_over_square[first_cold_job + i];
      cal.cold_gemm.push_back(c);
    }
    for (size_t i = 0; i < wave_sweep.size(); ++i) {
      GemmShapePoint g = wave_sweep[i];
      g.seconds = seconds[first_sweep_job + i];
      cal.gemm_shapes.push_back(g);
    }
    for (size_t i = 0; i < accumulate_shapes.size(); ++i)
      cal.gemm_accumulate.push_back(accumulate_point(accumulate_shapes[i],
                                                     seconds[first_accumulate_job + i],
                                                     warm_over_square[first_accumulate_job + i]));
    for (size_t i = 0; i < cal.fp8_split.size(); ++i) {
      GemmPoint& g = cal.fp8_split[i];
      g.seconds = seconds[split_job[i]];
      g.flops_per_second = g.seconds > 0 ? g.flops / kernel_part(g.seconds) : 0;
    }
    for (size_t i = 0; i < cal.gemm.size(); ++i) {
      GemmPoint& g = cal.gemm[i];
      g.seconds = seconds[warm_job[i]];
      g.flops_per_second = g.seconds > 0 ? g.flops / kernel_part(g.seconds) : 0;
      auto& best = cal.measured_peak_flops_per_second[static_cast<size_t>(dtype_index(g.dtype))];
      best = std::max(best, g.flops_per_second);
    }
  }
  // Efficiencies against the fast squares' best rate (the split ones too).
  for (std::vector<GemmPoint>* points : {&cal.gemm, &cal.fp8_split})
    for (GemmPoint& g : *points) {
      const double peak =
          cal.measured_peak_flops_per_second[static_cast<size_t>(dtype_index(g.dtype))];
      g.efficiency = peak > 0 ? g.flops_per_second / peak : 0;
    }
  cal.fp8_split_accumulator_efficiency = fit_split_accumulator_efficiency(cal.gemm, cal.fp8_split);

  phase = "memory bandwidth";
  // Streaming kernels, on every device at once: sizes from L2-sized to past
  // any last-level cache, as plans' memory-bound kernels range (activations
  // of a few MB, optimizer updates of tens of MB). As plans run them: in a
  // plan a memory-bound kernel follows other work (GEMMs whose operands,
  // tens of MB, pass through the caches), so its data is no longer in cache;
  // back to back, a stream that fits the caches would be measured at cache
  // speed, 2-3 times what it achieves in a step (docs/executors.md). With two
  // devices or more, each kernel follows a copy of kEvictBytes to the next
  // device (untimed: only the kernels' spans count), which pushes the
  // kernel's data out of every cache level; with one device they run back
  // to back, and a note says so.
  {
    std::vector<SizePoint> pts;
    const double evict_bytes = cuda ? 0.0 : (quick ? kMiB : 64 * kMiB);
    const bool evict = !cuda && devices >= 2;
    if (!cuda && !evict)
      cal.notes.push_back(
          "streaming kernels measured back to back (one device: nothing to evict the caches "
          "with), so in-cache sizes run at cache speed");
    std::vector<Bench::Job> jobs;
    // The plain stream at every size, then the norm's, the activation's and
    // the gated activation's kernels (KernelClass kNormForward,
    // kActivationForward, kGatedForward) at the same.
    const KernelClass kinds[] = {KernelClass::kGeneric, KernelClass::kNormForward,
                                 KernelClass::kActivationForward, KernelClass::kGatedForward};
    for (KernelClass kind : kinds)
      for (double bytes : memory_sizes) {
        const double nominal = dev.memory_bandwidth_bytes_per_second;
        const double estimate =
            (nominal > 0 ? bytes / nominal : 1e-3) + (evict ? evict_bytes / nominal : 0.0);
        const int reps = reps_for(point_budget, estimate, min_reps, evict ? 12 : 400);
        std::vector<StreamId> ss;
        ProgramBuilder b("calibrate-memory", devices);
        for (int d = 0; d < devices; ++d) {
          const StreamId s = b.stream(d, "compute");
          ss.push_back(s);
          for (int i = 0; i < reps; ++i) {
            if (evict) b.add_transfer(s, (d + 1) % devices, evict_bytes, "evict");
            const TaskId id = b.add_memory_bound(s, bytes, DType::kF32, kind_name(kind));
            b.task(id).kernel = kind;
          }
        }
        BRIGADE_ASSIGN_OR_RETURN(Program p, std::move(b).build());
        const double launch = cal.launch_overhead_seconds;
        jobs.push_back(Bench::Job{
            std::move(p),
            std::string(kind_name(kind)) + " " + format_bytes(bytes) + " x" + std::to_string(reps),
            [ss, evict, launch](const Trace& t) {
              // Launch overhead as per_task_seconds counts it: the kernel's span plus one launch.
              return evict ? Bench::mean_span(t, TaskKind::kCompute) + launch
                           : Bench::per_task_seconds(t, ss);
            }});
      }
    BRIGADE_ASSIGN_OR_RETURN(const std::vector<double> per, bench.run_rounds(jobs));
    const size_t sizes = memory_sizes.size();
    for (size_t i = 0; i < sizes; ++i) pts.push_back(SizePoint{memory_sizes[i], per[i], 0});
    // A class's rate over all sizes together (sum of bytes / sum of kernel
    // times), as the plain stream's below.
    auto class_rate = [&](size_t k) {
      double b = 0, t = 0;
      for (size_t i = 0; i < sizes; ++i) {
        b += memory_sizes[i];
        t += kernel_part(per[k * sizes + i]);
      }
      return t > 0 ? b / t : 0.0;
    };
    cal.norm_bandwidth_bytes_per_second = class_rate(1);
    cal.activation_bandwidth_bytes_per_second = class_rate(2);
    cal.gated_bandwidth_bytes_per_second = class_rate(3);
    for (size_t i = 0; i < sizes; ++i) {
      cal.norm_points.push_back(SizePoint{memory_sizes[i], per[sizes + i], 0});
      cal.activation_points.push_back(SizePoint{memory_sizes[i], per[2 * sizes + i], 0});
      cal.gated_points.push_back(SizePoint{memory_sizes[i], per[3 * sizes + i], 0});
    }
    BRIGADE_ASSIGN_OR_RETURN(cal.memory, fit_alpha_beta(pts));
    double bytes_sum = 0, kernel_sum = 0;
    for (SizePoint& p : cal.memory.points) {
      const double k = kernel_part(p.seconds);
      p.bytes_per_second = k > 0 ? p.bytes / k : 0;
      cal.memory_peak_bytes_per_second = std::max(cal.memory_peak_bytes_per_second, p.bytes_per_second);
      bytes_sum += p.bytes;
      kernel_sum += k;
    }
    cal.memory_bandwidth_bytes_per_second = kernel_sum > 0 ? bytes_sum / kernel_sum : 0;
    cal.memory_efficiency = cal.memory_peak_bytes_per_second > 0
                                ? cal.memory_bandwidth_bytes_per_second / cal.memory_peak_bytes_per_second
                                : 1.0;
    if (cal.memory_peak_bytes_per_second > 0) {
      cal.norm_efficiency = cal.norm_bandwidth_bytes_per_second / cal.memory_peak_bytes_per_second;
      cal.activation_efficiency =
          cal.activation_bandwidth_bytes_per_second / cal.memory_peak_bytes_per_second;
      cal.gated_efficiency =
          cal.gated_bandwidth_bytes_per_second / cal.memory_peak_bytes_per_second;
    }
  }

  // Point-to-point transfers and collectives.
    phase = "transfers and collectives";
  if (pairs) {
    const Route& route = topo.route(0, 1);
    LinkCalibration link;
    link.link_class = route.slowest_class;
    link.nominal_bandwidth_bytes_per_second = route.bandwidth_bytes_per_second;
    std::vector<Bench::Job> transfer_jobs;
    for (double bytes : transfer_sizes) {
      const int reps =
          reps_for(point_budget, bytes / route.bandwidth_bytes_per_second + 5e-6, min_reps, 400);
      ProgramBuilder b("calibrate-transfer", 2);
      const StreamId s = b.stream(0, "xfer");
      for (int i = 0; i < reps; ++i) b.add_transfer(s, 1, bytes, "send");
      BRIGADE_ASSIGN_OR_RETURN(Program p, std::move(b).build());
      transfer_jobs.push_back(
          Bench::Job{std::move(p), "transfer " + format_bytes(bytes) + " x" + std::to_string(reps),
                     [s](const Trace& t) { return Bench::per_task_seconds(t, {s}); }});
    }
    BRIGADE_ASSIGN_OR_RETURN(const std::vector<double> per_transfer, bench.run_rounds(transfer_jobs));
    std::vector<SizePoint> pts;
    for (size_t i = 0; i < transfer_sizes.size(); ++i)
      pts.push_back(SizePoint{transfer_sizes[i], per_transfer[i], 0});
    BRIGADE_ASSIGN_OR_RETURN(link.transfer, fit_alpha_beta(std::move(pts)));
    link.alpha_seconds = std::max(0.0, link.transfer.alpha_seconds);
    double bytes_sum = 0, time_sum = 0;
    for (const SizePoint& p : link.transfer.points) {
      bytes_sum += p.bytes;
      time_sum += std::max(p.seconds - link.alpha_seconds, 0.05 * p.seconds);
    }
    link.bandwidth_bytes_per_second = time_sum > 0 ? bytes_sum / time_sum : 0;
    cal.links.push_back(link);

    std::vector<std::int32_t> group;
    for (int d = 0; d < devices; ++d) group.push_back(d);
    // Collectives as plans run them: after a kernel on every rank, on the same
    // stream (a tensor-parallel layer: GEMM, AllReduce, GEMM, ...). The ranks
    // then arrive a little apart, the first one waits, and the buffers are no
    // longer where the previous collective left them; a collective's cost is
    // its span (from the last rank's arrival to its end), the mean over the run.
    const std::int64_t between = cuda ? 4096 : (quick ? 32 : 256);
    const bool evict_collectives = !cuda;
    const double collective_evict_bytes = quick ? kMiB : 64 * kMiB;
    const DType between_dtype = cuda ? DType::kBF16 : DType::kF32;
    double between_seconds = 0;
    for (const GemmPoint& g : cal.gemm)
      if (g.dtype == between_dtype && g.size == between) between_seconds = g.seconds;
    std::vector<Bench::Job> collective_jobs;
    // The cost of one collective from a trace: its span on the first rank
    // (from the last rank's arrival to its end), the mean over the run.
    auto collective_span = [](const Trace& t) {
      return Bench::mean_span(t, TaskKind::kCollective, StreamId{0});
    };
    // Warm too (CPU): the same collectives back to back, nothing else on the
    // ranks, as nccl-tests runs them; their buffers stay in cache
    // (KindSteps::warm_bandwidth_scale). Jobs after the cold ones.
    const bool warm_collectives = evict_collectives;
    std::vector<Bench::Job> warm_jobs;
    for (int k = 0; k < kNumCollectiveKinds; ++k) {
      const auto kind = static_cast<CollectiveKind>(k);
      for (double bytes : collective_sizes) {
        const double estimate = between_seconds + 2.0 * bytes / route.bandwidth_bytes_per_second +
                                2.0 * devices * 5e-6 +
                                (evict_collectives ? collective_evict_bytes / route.bandwidth_bytes_per_second : 0.0);
        const int reps = reps_for(point_budget, estimate, min_reps, 200);
        ProgramBuilder b("calibrate-collective", devices);
        std::vector<StreamId> streams;
        for (int d = 0; d < devices; ++d) streams.push_back(b.stream(d, "compute"));
        for (int i = 0; i < reps; ++i) {
          for (int d = 0; d < devices; ++d) {
            if (evict_collectives)
              b.add_transfer(streams[static_cast<size_t>(d)], (d + 1) % devices, collective_evict_bytes,
                             "evict");
            b.add_gemm(streams[static_cast<size_t>(d)], between, between, between, between_dtype,
                       "gemm");
          }
          b.add_collective(kind, CollectiveAlgorithm::kRing, group, bytes, streams,
                           std::string(collective_kind_name(kind)));
        }
        BRIGADE_ASSIGN_OR_RETURN(Program p, std::move(b).build());
        const std::string what = std::string(collective_kind_name(kind)) + " " + format_bytes(bytes);
        collective_jobs.push_back(
            Bench::Job{std::move(p), what + " x" + std::to_string(reps), collective_span});
        if (!warm_collectives) continue;
        // One collective per step, for as many steps: a step's start
        // releases the ranks together, as a plan's (a collective repeated
        // within one step lets the ranks drift out of phase: 16-64 MiB
        // AllReduces took 10-60% longer that way than one per step).
        const int warm_reps =
            reps_for(point_budget, 2.0 * bytes / route.bandwidth_bytes_per_second + 2.0 * devices * 5e-6,
                     min_reps, 50);
        ProgramBuilder w("calibrate-collective-warm", devices);
        std::vector<StreamId> ws;
        for (int d = 0; d < devices; ++d) ws.push_back(w.stream(d, "comm"));
        w.add_collective(kind, CollectiveAlgorithm::kRing, group, bytes, ws,
                         std::string(collective_kind_name(kind)));
        BRIGADE_ASSIGN_OR_RETURN(Program wp, std::move(w).build());
        warm_jobs.push_back(Bench::Job{std::move(wp), what + " warm x" + std::to_string(warm_reps),
                                       collective_span, warm_reps});
      }
    }
    for (Bench::Job& j : warm_jobs) collective_jobs.push_back(std::move(j));
    BRIGADE_ASSIGN_OR_RETURN(const std::vector<double> collective_seconds,
                             bench.run_rounds(collective_jobs));
    const size_t cold_jobs = static_cast<size_t>(kNumCollectiveKinds) * collective_sizes.size();
    for (int k = 0; k < kNumCollectiveKinds; ++k) {
      const auto kind = static_cast<CollectiveKind>(k);
      CollectiveCalibration cc;
      cc.kind = kind;
      cc.ranks = devices;
      std::vector<double> x, y;
      for (size_t i = 0; i < collective_sizes.size(); ++i) {
        const double bytes = collective_sizes[i];
        CollectivePoint cp;
        cp.bytes = bytes;
        cp.seconds = collective_seconds[static_cast<size_t>(k) * collective_sizes.size() + i];
        if (warm_collectives)
          cp.warm_seconds =
              collective_seconds[cold_jobs + static_cast<size_t>(k) * collective_sizes.size() + i];
        cp.alg_bytes_per_second =
            cp.seconds > 0 ? bytes / cp.seconds : 0;  // nccl-tests algBw = M / T
        cp.bus_bytes_per_second =
            cp.alg_bytes_per_second * cost::bus_bandwidth_factor(kind, devices);
        cc.points.push_back(cp);
        x.push_back(bytes);
        y.push_back(cp.seconds);
      }
      BRIGADE_ASSIGN_OR_RETURN(cc.fit, fit_line(x, y));
      cal.collectives.push_back(std::move(cc));
    }

    // Compute slowed by communication in flight: GEMMs on every device's
    // compute stream while AllReduces run on their comm streams. Not where
    // communication takes the whole core (share 1): compute then does not
    // run beside it at all, and the share says what it costs.
    if (cal.comm_compute_share >= 1.0) {
      cal.notes.push_back(
          "compute slowed by communication: not measured, communication takes the computing "
          "core (comm_compute_share 1); profile keeps 0");
    } else {
      const std::int64_t n = cuda ? 4096 : (quick ? 64 : 256);
      const DType t = cuda ? DType::kBF16 : DType::kF32;
      double alone = 0;
      for (const GemmPoint& g : cal.gemm)
        if (g.dtype == t && g.size == n) alone = g.seconds;
      const double m = cuda ? 256 * kMiB : 4 * kMiB;
      const CollectiveCalibration& ar = cal.collectives.front();
      const double t_ar = std::max(ar.fit.intercept + ar.fit.slope * m, 1e-6);
      const int gemms = quick ? 8 : 40;
      const int ars = static_cast<int>(std::clamp(std::ceil(2.0 * gemms * alone / t_ar), 2.0, 500.0));
      ProgramBuilder b("calibrate-overlap", devices);
      std::vector<StreamId> comm;
      StreamId compute0 = -1;
      for (int d = 0; d < devices; ++d) {
        const StreamId c = b.stream(d, "compute");
        if (d == 0) compute0 = c;
        for (int i = 0; i < gemms; ++i) b.add_gemm(c, n, n, n, t, "gemm");
        comm.push_back(b.stream(d, "comm"));
      }
      for (int i = 0; i < ars; ++i)
        b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, m, comm,
                         "allreduce");
      BRIGADE_ASSIGN_OR_RETURN(Program p, std::move(b).build());
      BRIGADE_ASSIGN_OR_RETURN(Trace tr, bench.run(p, "GEMMs under AllReduces"));
      double comm_begin = 1e300, comm_end = -1e300;
      for (const TraceSpan& sp : tr.spans)
        if (sp.kind == TaskKind::kCollective && sp.device == 0) {
          comm_begin = std::min(comm_begin, sp.start_seconds);
          comm_end = std::max(comm_end, sp.end_seconds);
        }
      // GEMMs wholly inside the communication window, per task as a step
      // pays them (first start to last end over their count).
      double first = 1e300, last = -1e300;
      int inside = 0;
      for (const TraceSpan& sp : tr.spans)
        if (sp.stream == compute0 && sp.start_seconds >= comm_begin && sp.end_seconds <= comm_end) {
          first = std::min(first, sp.start_seconds);
          last = std::max(last, sp.end_seconds);
          ++inside;
        }
      if (inside >= 3 && alone > 0) {
        cal.comm_compute_slowdown = std::max(0.0, (last - first) / inside / alone - 1.0);
      } else {
        cal.notes.push_back(
            "compute slowed by communication: too few GEMMs ran under the AllReduces "
            "to measure it; profile keeps 0");
      }
    }
  } else {
    cal.notes.push_back(
        "one device: no transfer, collective or overlap to measure (use --devices 2 or more)");
  }

    return Status::ok();
  }();
  if (!measured.is_ok()) {
    if (!bench.interrupted()) return measured;
    cal.interrupted = true;
    const std::vector<std::string> phases = {"launch overhead", "GEMMs", "memory bandwidth",
                                             "transfers and collectives"};
    bool from_here = false;
    for (const std::string& ph : phases) {
      from_here |= ph == phase;
      if (from_here && (ph != "transfers and collectives" || pairs)) cal.not_measured.push_back(ph);
    }
    // The phase running is dropped whole.
    if (phase == "GEMMs") {
      cal.gemm.clear();
      cal.fp8_split.clear();
      cal.fp8_split_accumulator_efficiency = 0;
      cal.gemm_accumulate.clear();
      cal.cold_gemm.clear();
      cal.gemm_shapes.clear();
      cal.measured_peak_flops_per_second = PerDType{};
    }
    if (phase == "memory bandwidth") {
      cal.memory = AlphaBetaFit{}, cal.memory_peak_bytes_per_second = 0;
      cal.norm_efficiency = cal.activation_efficiency = cal.gated_efficiency = 0;
      cal.norm_points.clear(), cal.activation_points.clear(), cal.gated_points.clear();
    }
    if (phase == "transfers and collectives") {
      cal.links.clear();
      cal.collectives.clear();
    }
    std::string list;
    for (const std::string& ph : cal.not_measured) list += (list.empty() ? "" : ", ") + ph;
    cal.notes.push_back("interrupted: not measured: " + list + "; the profile keeps the data sheet's values for them");
  }
  if (!machine.known)
    cal.notes.push_back("GPU '" + cal.device_model +
                        "' matches no preset: its data-sheet peaks are unknown; the measured "
                        "ones stand for them");

  // The profile: measured peaks, efficiencies relative to them.
  HardwareProfile defaults = HardwareProfile::defaults();
  DeviceProfile dp = defaults.for_device(dev);
  dp.model = dev.model;
  // The measured curves are square GEMMs' rates, each with its own waves of
  // tiles in it: a preset's wave model (gemm_wave_tile, the A100's) on top
  // of them would charge the waves twice, so the profile drops it (a tile
  // rate stands for a curve of full waves; docs/costmodel.md, "GEMMs by
  // shape: waves of tiles").
  if (dp.gemm_tile_rows > 0 && !cal.gemm.empty()) {
    dp.gemm_tile_rows = dp.gemm_tile_cols = 0;
    cal.notes.push_back(
        "GEMMs: the preset's wave model (tiles of the 16-bit GEMMs) is not kept: the measured "
        "curve is square GEMMs' rates, their waves included");
  }
  for (const auto& [dtype, sizes] : gemm_plan) {
    const auto i = static_cast<size_t>(dtype_index(dtype));
    EfficiencyCurve c;
    for (const GemmPoint& g : cal.gemm)
      if (g.dtype == dtype && g.efficiency > 0) c.points.emplace_back(g.flops, g.efficiency);
    if (c.points.empty()) continue;  // not measured (interrupted): the data sheet's curve and peak
    std::sort(c.points.begin(), c.points.end());
    c.fallback = c.points.empty() ? 1.0 : c.points.back().second;
    dp.gemm[i] = c;
    dp.peak_flops_per_second[i] = cal.measured_peak_flops_per_second[i];
    const double nominal = cal.nominal_peak_flops_per_second[i];
    if (machine.known && nominal > 0 && cal.measured_peak_flops_per_second[i] > 0)
      cal.notes.push_back(std::string(dtype_name(dtype)) + " GEMM peak: measured " +
                          format_flops_rate(cal.measured_peak_flops_per_second[i]) + ", " +
                          fmt_ratio(cal.measured_peak_flops_per_second[i] / nominal) +
                          " x the data sheet's " + format_flops_rate(nominal));
  }
  if (cal.fp8_split_accumulator_efficiency > 0) {
    dp.fp8_split_accumulator_efficiency = cal.fp8_split_accumulator_efficiency;
    cal.notes.push_back(fmt::format(
        "fp8 GEMMs with cuBLASLt's fast accumulation off (Transformer Engine's input- and "
        "weight-gradient GEMMs) ran at {:.3f} of its rate, the median over the sizes measured "
        "both ways: the profile's fp8_split_accumulator_efficiency",
        cal.fp8_split_accumulator_efficiency));
  } else if (!split_sizes.empty() && !cal.gemm.empty()) {
    cal.notes.push_back(
        "fp8 split accumulation: no size measured both ways; the profile has no "
        "fp8_split_accumulator_efficiency (the gradient GEMMs at the fast rate)");
  }
  // The wave model from the shape sweep (CUDA): the tile whose waves explain
  // it, if one does; its 16-bit curves then stand for full waves, so each
  // square's point is lifted by its own waves' padding (at most to 1).
  if (!cal.gemm_shapes.empty()) {
    cal.gemm_waves =
        fit_gemm_waves(cal.gemm_shapes, dp.sm_count, {{256, 128}, {128, 128}, {256, 64}, {128, 64}});
    const GemmWaveFit& w = cal.gemm_waves;
    if (w.tile_rows > 0) {
      apply_gemm_waves(dp, w);
      cal.notes.push_back(fmt::format(
          "GEMMs by shape: waves of {} x {} tiles on {} SMs explain the {} sweep points within "
          "{:.1f}% (the FLOPs alone: {:.1f}%); the 16-bit curves stand for full waves",
          w.tile_rows, w.tile_cols, dp.sm_count, w.points, 100 * w.worst, 100 * w.flat_worst));
    } else {
      cal.notes.push_back(fmt::format(
          "GEMMs by shape: no tile's waves explain the sweep better than its FLOPs ({} points, "
          "RMS {:.1f}% against {:.1f}%{}); no wave model",
          w.points, 100 * w.rms, 100 * w.flat_rms, dp.sm_count > 0 ? "" : ", the SM count unknown"));
    }
  }
  if (!cuda) {
    // The CPU backend runs tf32 as f32, and f16/bf16 in f32 when allowed.
    const auto f32 = static_cast<size_t>(dtype_index(DType::kF32));
    for (DType t : {DType::kTF32, DType::kF16, DType::kBF16}) {
      dp.gemm[static_cast<size_t>(dtype_index(t))] = dp.gemm[f32];
      dp.peak_flops_per_second[static_cast<size_t>(dtype_index(t))] = dp.peak_flops_per_second[f32];
    }
    cal.notes.push_back(
        "tf32, f16 and bf16 GEMMs take f32's peak and curve (the CPU backend computes them in f32)");
    cal.notes.push_back(
        "gemm_accumulate_exposed: not measured (the CPU backend's GEMMs add into their output at "
        "no cost: Eigen's product adds into C either way); the profile keeps 0");
  }
  if (cal.memory_peak_bytes_per_second > 0) {
    dp.memory_bandwidth_bytes_per_second = cal.memory_peak_bytes_per_second;
    dp.memory_efficiency = std::clamp(cal.memory_efficiency, 1e-6, 1.0);
    // The executors run a norm's, an activation's and a gated activation's
    // tasks, forward and backward, as the kernels measured here
    // (realexec/cpu_kernels.hpp, cuda_kernels.hpp): both directions take
    // their rate.
    if (cal.norm_efficiency > 0)
      dp.norm_forward_efficiency = dp.norm_backward_efficiency =
          std::clamp(cal.norm_efficiency, 1e-6, 1.0);
    if (cal.activation_efficiency > 0)
      dp.activation_forward_efficiency = dp.activation_backward_efficiency =
          std::clamp(cal.activation_efficiency, 1e-6, 1.0);
    if (cal.gated_efficiency > 0)
      dp.gated_activation_forward_efficiency = dp.gated_activation_backward_efficiency =
          std::clamp(cal.gated_efficiency, 1e-6, 1.0);
  }
  if (cal.launch_overhead_seconds > 0) dp.launch_overhead_seconds = cal.launch_overhead_seconds;
  dp.comm_compute_slowdown = cal.comm_compute_slowdown;
  dp.comm_compute_share = cal.comm_compute_share;
  // What adding into an FP32 gradient buffer costs a GEMM, at the streaming
  // rate the profile now has.
  apply_accumulate_fit(cal, dp, dev);
  // Cold operands: what each weight-streaming GEMM took cold beyond the warm
  // squares' curve (its warm run's distance from the curve plus the paired
  // cold extra), against the bytes it reads and writes (see the GEMM
  // benchmarks above; fit_cold_operand_rates).
  dp.gemm_cold_operand_bandwidth_bytes_per_second = 0;
  dp.gemm_cold_output_bandwidth_bytes_per_second = 0;
  if (!cal.cold_gemm.empty()) {
    for (ColdGemmPoint& c : cal.cold_gemm) {
      c.curve_seconds = kernel_seconds(dev, dp, DType::kF32, gemm_flops(c.m, c.n, c.k), 0);
      const double square =
          kernel_seconds(dev, dp, DType::kF32, gemm_flops(c.square, c.square, c.square), 0);
      c.warm_seconds =
          c.warm_over_square * (square - dp.launch_overhead_seconds) + dp.launch_overhead_seconds;
    }
    const ColdOperandRates rates = fit_cold_operand_rates(cal.cold_gemm);
    cal.gemm_cold_operand_bandwidth_bytes_per_second = rates.read_bytes_per_second;
    cal.gemm_cold_output_bandwidth_bytes_per_second = rates.written_bytes_per_second;
    if (!(rates.read_bytes_per_second > 0))
      cal.notes.push_back(
          "GEMMs with cold operands: none took longer than the warm squares' curve says on the "
          "whole; the profile charges no cold-operand time");
    else if (!(rates.written_bytes_per_second > 0) && cal.cold_gemm.size() > 1)
      cal.notes.push_back(
          "GEMMs with cold operands: reads and writes not told apart (a slope of the plane "
          "through the origin came out negative, or the shapes' read / written ratios are "
          "alike); one rate for all operand bytes");
  }
  dp.gemm_cold_operand_bandwidth_bytes_per_second = cal.gemm_cold_operand_bandwidth_bytes_per_second;
  dp.gemm_cold_output_bandwidth_bytes_per_second = cal.gemm_cold_output_bandwidth_bytes_per_second;
  HardwareProfile profile;
  profile.machine_kind = cal.backend;
  const std::string host = options.host.empty() ? host_name() : options.host;
  const std::string date = options.date.empty() ? utc_now() : options.date;
  profile.name = "calibrated-" + cal.backend + "-" + host;
  profile.source = "calibrated on " + host + " at " + date + " (brigade calibrate --backend " +
                   cal.backend + " --devices " + std::to_string(devices) +
                   (quick ? " --quick" : "") + ")";
  profile.links = defaults.links;
  for (const LinkCalibration& l : cal.links) {
    // The transfers' bandwidth replaces the link's, achieved as measured.
    LinkProfile lp;
    lp.alpha_seconds = l.alpha_seconds;
    lp.bandwidth_efficiency = 1.0;
    lp.bandwidth_bytes_per_second = l.bandwidth_bytes_per_second > 0
                                        ? l.bandwidth_bytes_per_second
                                        : l.nominal_bandwidth_bytes_per_second;
    profile.links[static_cast<size_t>(l.link_class)] = lp;
    if (l.transfer.alpha_seconds < 0)
      cal.notes.push_back("the transfer fit's alpha came out negative (" +
                          format_seconds(l.transfer.alpha_seconds) + "): profile keeps 0");
  }
  profile.devices.push_back(dp);
  if (!cal.collectives.empty() && !cal.links.empty()) {
    // A collective's steps as they run (every rank at once, synchronised),
    // fitted from the ring kinds at every size together.
    std::vector<std::vector<double>> rows;
    std::vector<double> times;
    for (const CollectiveCalibration& cc : cal.collectives)
      for (const CollectivePoint& p : cc.points) {
        std::vector<double> row;
        if (!collective_step_row(cc.kind, cc.ranks, p.bytes, &row) || !(p.seconds > 0)) continue;
        rows.push_back(std::move(row));
        times.push_back(p.seconds);
      }
    LinkProfile& lp = profile.links[static_cast<size_t>(cal.links.front().link_class)];
    auto step = fit_nonnegative(rows, times);
    if (step.is_ok()) {
      CollectiveStepFit& sf = cal.collective_step;
      sf.fit = *step;
      const std::vector<double>& c = sf.fit.coefficients;
      sf.overhead_seconds = c[0];
      sf.alpha_seconds = c[1];
      sf.bandwidth_bytes_per_second = c[2] > 0 ? 1.0 / c[2] : 0.0;
      sf.reduce_bandwidth_bytes_per_second = c[3] > 0 ? 1.0 / c[3] : 0.0;
      profile.devices.back().collective_overhead_seconds = sf.overhead_seconds;
      lp.collective_alpha_seconds = sf.alpha_seconds;
      lp.collective_bandwidth_bytes_per_second = sf.bandwidth_bytes_per_second;
      lp.collective_reduce_bandwidth_bytes_per_second = sf.reduce_bandwidth_bytes_per_second;
      if (c[2] <= 0 || c[3] <= 0)
        cal.notes.push_back(
            "the collective step fit left a bandwidth undetermined (coefficient 0): that one "
            "comes from the link's alpha-beta and the memory bandwidth");
    } else {
      cal.notes.push_back("collective steps not fitted (" + step.message() +
                          "): collectives use the links' alpha-beta");
    }
    // Each kind's own steps on top of that fit: its alpha and its bandwidth
    // by size (caches, and the kind's own pattern of reads and writes).
    std::vector<int> group;
    for (int d = 0; d < devices; ++d) group.push_back(d);
    // The scale multiplies the fit's own bandwidths, before the judges cap a
    // step at the route's (collective_step_alpha_beta): those, uncapped.
    const cost::AlphaBeta message = cost::collective_step_alpha_beta(
        topo.route(0, 1), topo, profile, 1, CollectiveKind::kAllReduce, 0);
    const cost::AlphaBeta joint{
        lp.collective_alpha_seconds,
        lp.collective_bandwidth_bytes_per_second > 0 ? lp.collective_bandwidth_bytes_per_second
                                                     : message.bandwidth_bytes_per_second,
        lp.collective_reduce_bandwidth_bytes_per_second > 0
            ? lp.collective_reduce_bandwidth_bytes_per_second
            : message.reduce_bandwidth_bytes_per_second};
    for (CollectiveCalibration& cc : cal.collectives) {
      auto f = fit_kind_steps(cc.kind, cc.ranks, cc.points,
                              profile.devices.back().collective_overhead_seconds, joint, &cc.steps);
      if (!f.is_ok()) {
        cal.notes.push_back(std::string(collective_kind_name(cc.kind)) +
                            ": no steps of its own (" + f.message() + "); it takes the fit over all kinds");
        continue;
      }
      cc.steps_fit = *f;
      lp.collective_kinds[static_cast<size_t>(cc.kind)] = cc.steps;
    }
  }
  if (cuda)
    cal.notes.push_back(split_sizes.empty()
                            ? "fp8, i8 and i32 GEMMs keep the data-sheet peaks and default curves "
                              "(not measured: the data sheet gives this GPU no FP8 rate)"
                            : "i8 and i32 GEMMs keep the data-sheet peaks and default curves (not "
                              "measured)");
  cal.profile = std::move(profile);
  // NCCL's protocols (LL, LL128, Simple) from the measured sizes, under the
  // same fit-sanity rules (realexec/fit_nccl.hpp).
  apply_nccl_fit(cal, topo);
  // Fits the measurements contradict are not written (and every collective
  // point's model is what the profile as written predicts).
  apply_fit_sanity(cal, topo);
  // The samples after the sanity pass: each point keeps the model as written.
  record_samples(cal);
  cal.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return cal;
}

}  // namespace brigade::realexec
