#include "costmodel/compute.hpp"

namespace brigade::cost {

double gemm_seconds(const Device& device, const DeviceProfile& profile, std::int64_t m,
                    std::int64_t n, std::int64_t k, DType dtype, std::int64_t batch) {
  return kernel_seconds(device, profile, dtype, gemm_flops(m, n, k, batch),
                        gemm_bytes(m, n, k, dtype, batch), ComputeKind::kGemm,
                        gemm_written_bytes(m, n, dtype, batch));
}

double memory_bound_seconds(const Device& device, const DeviceProfile& profile, double bytes,
                            DType dtype, double flops) {
  return kernel_seconds(device, profile, dtype, flops, bytes, ComputeKind::kMemoryBound);
}

double task_seconds(const Task& task, const Device& device, const DeviceProfile& profile) {
  if (task.kind != TaskKind::kCompute) return 0;
  const bool flash = task.kernel != KernelClass::kGeneric;
  return kernel_seconds(device, profile, task.dtype, task.flops, task.bytes, task.compute,
                        task_written_bytes(task), task.kernel, flash ? task.m : 0,
                        flash ? task.k : 0);
}

}  // namespace brigade::cost
