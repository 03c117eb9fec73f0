#include "costmodel/compute.hpp"

namespace brigade::cost {

// 2mnk FLOP per product (one multiply-add per inner-product term; e.g. Narayanan et al. 2021, §5.1).
double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
         static_cast<double>(batch);
}

// (mk + kn + mn) elements moved once each (the roofline's compulsory traffic, Williams et al. 2009).
double gemm_bytes(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype, std::int64_t batch) {
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  return (md * kd + kd * nd + md * nd) * dtype_bytes(dtype) * static_cast<double>(batch);
}

double gemm_seconds(const Device& device, const DeviceProfile& profile, std::int64_t m,
                    std::int64_t n, std::int64_t k, DType dtype, std::int64_t batch) {
  return kernel_seconds(device, profile, dtype, gemm_flops(m, n, k, batch),
                        gemm_bytes(m, n, k, dtype, batch));
}

double memory_bound_seconds(const Device& device, const DeviceProfile& profile, double bytes,
                            DType dtype, double flops) {
  return kernel_seconds(device, profile, dtype, flops, bytes);
}

double task_seconds(const Task& task, const Device& device, const DeviceProfile& profile) {
  if (task.kind != TaskKind::kCompute) return 0;
  return kernel_seconds(device, profile, task.dtype, task.flops, task.bytes);
}

}  // namespace brigade::cost
