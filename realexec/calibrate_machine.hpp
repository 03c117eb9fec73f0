// Calibration's set-up, apart from its benchmarks (realexec/calibrate.cpp):
// the machine a backend calibrates (its reference device and a topology of
// the devices used), the host's name and the date a profile records, how
// many repetitions fill a time budget, and the alpha-beta line through
// measured sizes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.hpp"
#include "core/topology.hpp"
#include "realexec/calibrate.hpp"

namespace brigade::realexec::calibrate_detail {

// The device model and the topology the benchmarks run on.
struct Machine {
  Topology topology;
  Device device;      // the reference device (peaks)
  bool known = true;  // false: a GPU no preset describes
};

// What a backend measures: square GEMM sizes by dtype, cold-operand shapes
// (CPU), the wave model's shape sweep and the FP8 split-accumulation
// squares (CUDA), streaming, transfer and collective sizes, time budgets.
struct MeasurePlan {
  std::vector<std::pair<DType, std::vector<std::int64_t>>> gemm;
  std::vector<ColdGemmPoint> cold_shapes;  // f32 (m, n, k); CPU only
  std::vector<GemmShapePoint> wave_sweep;  // bf16 (m, n, k); CUDA only
  std::vector<std::int64_t> split_sizes;   // fp8 squares in split accumulation; CUDA only
  // Weight-gradient GEMMs added into an FP32 buffer (AccumulatePoint); CUDA only.
  std::vector<GemmShapePoint> accumulate_shapes;
  std::vector<double> memory_sizes, transfer_sizes, collective_sizes;
  double gemm_budget = 0, point_budget = 0;  // seconds a size, a GEMM's and the others'
};
// `quick`: calibrate --quick's fewer, smaller sizes. `dev`: the reference
// device (an FP8 rate on its data sheet adds the fp8 series).
MeasurePlan measure_plan(bool cuda, bool quick, const Device& dev);

// The CPU backend's: the cpu-host preset with `devices` host-thread devices.
Result<Machine> cpu_machine(int devices);
// The CUDA backend's: `devices` GPUs of the model of GPU 0, its preset's
// device where one describes it (else "*", peaks unknown), behind one
// NVSwitch (or a PCIe switch for a PCIe card).
Result<Machine> cuda_machine(int devices);

std::string host_name();  // gethostname(), "unknown-host" when it fails
std::string utc_now();    // "YYYY-MM-DD HH:MM UTC"
// Repetitions to fill `budget_seconds` at `estimate_seconds` each, in [lo, hi].
int reps_for(double budget_seconds, double estimate_seconds, int lo, int hi);
// T = alpha + bytes / bandwidth through the points (each point's rate set).
Result<AlphaBetaFit> fit_alpha_beta(std::vector<SizePoint> points);

}  // namespace brigade::realexec::calibrate_detail
