// Calibration: micro-benchmarks run through a real executor, fitted into a
// HardwareProfile that the simulator and the cost model can use.
//
// Every benchmark is a small Program run by the same executor that runs
// plans, and a task's cost is read as the interval between the starts of
// consecutive tasks on its stream (the median over the run): what a step
// really pays per task, launch and scheduling gaps included. Efficiencies are
// relative to the peaks of the topology's device (the preset's data-sheet
// figures), because that is what the simulator multiplies them by. The
// profile format holds them in (0, 1]: where a machine beats a nominal peak
// (cpu-host's are placeholders: one AVX2 core at 2.5 GHz, 10 GB/s), the
// profile stores 1 and Calibration::notes give the measured factor; the
// report (GemmPoint::efficiency, memory_efficiency, the link fits) keeps the
// measured values.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
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
};

struct GemmPoint {
  DType dtype = DType::kF32;
  std::int64_t size = 0;  // m = n = k
  double flops = 0;
  double seconds = 0;           // per GEMM
  double flops_per_second = 0;  // achieved
  double efficiency = 0;        // flops / ((seconds - launch) * nominal peak), not capped
};

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
  AlphaBetaFit transfer;
};

struct CollectivePoint {
  double bytes = 0;  // M (nccl-tests "size")
  double seconds = 0;
  double alg_bytes_per_second = 0;  // M / T
  double bus_bytes_per_second =
      0;  // algBw x cost::bus_bandwidth_factor (costmodel/collectives.hpp)
};

struct CollectiveCalibration {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int ranks = 0;
  LinearFit fit;  // T = a + b M
  std::vector<CollectivePoint> points;
};

struct Calibration {
  HardwareProfile profile;   // what `--out` writes (efficiencies capped at 1)
  std::string backend;       // "cpu", "cuda"
  std::string device_model;  // "host-thread", "NVIDIA H200"
  int devices = 0;
  PerDType nominal_peak_flops_per_second{};   // the topology device's
  PerDType measured_peak_flops_per_second{};  // best GEMM rate seen
  std::vector<GemmPoint> gemm;
  double launch_overhead_seconds = 0;
  double nominal_memory_bandwidth_bytes_per_second = 0;
  AlphaBetaFit memory;           // streaming kernels
  double memory_efficiency = 0;  // memory.bandwidth / nominal, not capped
  double comm_compute_slowdown = 0;
  std::vector<LinkCalibration> links;
  std::vector<CollectiveCalibration> collectives;
  std::vector<std::string> notes;  // what was not measured, and why
  double wall_seconds = 0;
};

// Progress: a short line about what is being measured, and how far along.
using CalibrateProgress = std::function<void(const std::string& what, int done, int total)>;

// Runs the micro-benchmarks on `backend` and fits the profile. Errors: no
// GPU for kCuda ("no CUDA device: ..."), devices < 1 (bad input), and any
// failure of a benchmark run.
Result<Calibration> calibrate(Backend backend, const CalibrateOptions& options,
                              const CalibrateProgress& progress = {});

}  // namespace brigade::realexec
