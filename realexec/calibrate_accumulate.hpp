// Calibration's accumulation pairs (internal to realexec/: calibrate.cpp):
// weight-gradient GEMMs adding into an FP32 gradient buffer against the
// same GEMMs writing a fresh 16-bit output, the points they give and the
// profile's gemm_accumulate_exposed fitted from them (fit_accumulate_exposed,
// realexec/calibrate.hpp). docs/executors.md, "Calibration".
#pragma once

#include "core/profile.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "realexec/calibrate.hpp"
#include "realexec/calibrate_bench.hpp"

namespace brigade::realexec::calibrate_detail {

// What a GEMM adding into an FP32 gradient buffer moves beyond one writing a
// fresh 16-bit output, per output element: 2g - e with g = 4, e = 2 (the
// planner's GemmMixShape::accumulate_bytes for Megatron's main_grad).
constexpr double kAccumulateExtraBytesPerElement = 2 * 4.0 - 2;

// Shape g's job on every one of `devices` devices: pairs of the GEMM writing
// a fresh 16-bit D, then the same GEMM adding into FP32 (its gemm_mix entry
// carries the extra bytes; FP8 ones in split accumulation, as TE's wgrad
// runs), milliseconds apart so that the clock and the power cap treat both
// alike, as many pairs as fill `gemm_budget` at `dev`'s data-sheet rate (3 to
// 100). Its reading: the median over the pairs of accumulating - fresh; its
// second reading the fresh GEMM's median.
Result<Bench::Job> accumulate_pairs_job(const GemmShapePoint& g, const Device& dev, int devices,
                                        double gemm_budget, int min_reps);

// Shape g's point from its job's two readings.
AccumulatePoint accumulate_point(const GemmShapePoint& g, double extra_seconds,
                                 double plain_seconds);

// The profile's gemm_accumulate_exposed from cal.gemm_accumulate, at the
// streaming rate `dp` now has for `dev` (peak bandwidth x memory_efficiency,
// what accumulate_seconds prices a plan's accumulating GEMMs at): into
// cal.gemm_accumulate_exposed, dp and a note where it could be fitted.
void apply_accumulate_fit(Calibration& cal, DeviceProfile& dp, const Device& dev);

}  // namespace brigade::realexec::calibrate_detail
