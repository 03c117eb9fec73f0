#include "realexec/calibrate_accumulate.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "realexec/calibrate_machine.hpp"
#include "realexec/summary.hpp"

namespace brigade::realexec {

double fit_accumulate_exposed(std::vector<AccumulatePoint>& points,
                              double streaming_bytes_per_second) {
  if (!(streaming_bytes_per_second > 0)) return -1;
  std::vector<double> v;
  for (AccumulatePoint& a : points) {
    if (!(a.extra_bytes > 0) || !(a.plain_seconds > 0)) continue;
    a.exposed = a.extra_seconds / (a.extra_bytes / streaming_bytes_per_second);
    v.push_back(a.exposed);
  }
  if (v.empty()) return -1;
  return std::max(median(std::move(v)), 0.0);
}

namespace calibrate_detail {
namespace {

double extra_bytes(const GemmShapePoint& g) {
  return static_cast<double>(g.m) * static_cast<double>(g.n) * kAccumulateExtraBytesPerElement;
}

}  // namespace

Result<Bench::Job> accumulate_pairs_job(const GemmShapePoint& g, const Device& dev, int devices,
                                        double gemm_budget, int min_reps) {
  const double nominal = dev.peak_flops_per_second[static_cast<size_t>(dtype_index(g.dtype))];
  const double flops = gemm_flops(g.m, g.n, g.k);
  const double estimate = nominal > 0 ? flops / (0.5 * nominal) : 1e-3;
  const int pairs = std::clamp(reps_for(gemm_budget, 2 * estimate, min_reps, 400), 3, 100);
  const KernelClass kernel =
      g.dtype == DType::kFP8 ? KernelClass::kGemmSplitAccumulator : KernelClass::kGeneric;
  // Where the pairs' outputs live on a GPU (cuda::GemmSpace,
  // realexec/cuda_gemm.hpp): the fresh GEMM writes its 16-bit D in a region
  // of its own, the accumulating GEMM reads and writes its FP32 C in
  // another past it, so the C it reads is not the D just written (which for
  // 4096 x 4096 fits a Hopper's 50 MB L2: the addition would have read L2,
  // not HBM as a main_grad is read). Both read the same A and B. What may
  // stay L2-resident from one accumulation to the next is the previous
  // pair's C: for the full shapes (C 64 MiB or more, past the L2 itself)
  // little of it; for the quick shape (1024 x 1024 x 2048: A and B 8 MiB in
  // BF16, D 2 MiB, C 4 MiB) all of it, so a quick calibration's reading is
  // an addition out of L2, low.
  BRIGADE_ASSIGN_OR_RETURN(
      auto ps, on_every_device(
                   "calibrate-gemm-accumulate", devices, [&](ProgramBuilder& b, StreamId s, int) {
                     const std::uint16_t mix =
                         b.intern_gemm_mix({GemmMixShape{g.m, g.n, g.k, 1, 1, extra_bytes(g)}});
                     for (int i = 0; i < pairs; ++i) {
                       b.task(b.add_gemm(s, g.m, g.n, g.k, g.dtype, "gemm fresh")).kernel = kernel;
                       Task& t = b.task(b.add_gemm(s, g.m, g.n, g.k, g.dtype, "gemm accumulate"));
                       t.kernel = kernel;
                       t.gemm_mix = mix;
                     }
                   }));
  return Bench::Job{std::move(ps.first),
                    fmt::format("{} GEMM {}x{}x{}, fresh then added into FP32, x{}",
                                dtype_name(g.dtype), g.m, g.n, g.k, pairs),
                    [ss = ps.second](const Trace& t) {
                      return Bench::median_over_groups(
                          t, ss, 2, [](const std::vector<double>& p) { return p[1] - p[0]; });
                    },
                    1,
                    [ss = ps.second](const Trace& t) {
                      return Bench::median_over_groups(
                          t, ss, 2, [](const std::vector<double>& p) { return p[0]; });
                    }};
}

AccumulatePoint accumulate_point(const GemmShapePoint& g, double extra_seconds,
                                 double plain_seconds) {
  AccumulatePoint a;
  a.dtype = g.dtype, a.m = g.m, a.n = g.n, a.k = g.k;
  a.extra_seconds = extra_seconds;
  a.plain_seconds = plain_seconds;
  a.extra_bytes = extra_bytes(g);
  return a;
}

void apply_accumulate_fit(Calibration& cal, DeviceProfile& dp, const Device& dev) {
  if (cal.gemm_accumulate.empty()) return;
  cal.gemm_accumulate_exposed = fit_accumulate_exposed(
      cal.gemm_accumulate, peak_memory_bandwidth_bytes_per_second(dev, dp) * dp.memory_efficiency);
  if (cal.gemm_accumulate_exposed < 0) return;
  dp.gemm_accumulate_exposed = cal.gemm_accumulate_exposed;
  cal.notes.push_back(fmt::format(
      "weight-gradient GEMMs adding into an FP32 buffer took {:.3f} x their extra bytes' time at "
      "the streaming rate beyond the same GEMMs writing a fresh 16-bit output, the median over {} "
      "shapes: the profile's gemm_accumulate_exposed",
      cal.gemm_accumulate_exposed, cal.gemm_accumulate.size()));
}

}  // namespace calibrate_detail
}  // namespace brigade::realexec
