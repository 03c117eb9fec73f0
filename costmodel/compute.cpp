#include "costmodel/compute.hpp"

#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {

double gemm_seconds(const Device& device, const DeviceProfile& profile, std::int64_t m,
                    std::int64_t n, std::int64_t k, DType dtype, std::int64_t batch,
                    KernelClass kernel) {
  return kernel_seconds(device, profile, dtype, gemm_flops(m, n, k, batch),
                        gemm_bytes(m, n, k, dtype, batch), ComputeKind::kGemm,
                        gemm_written_bytes(m, n, dtype, batch), kernel, 0, 0, 1,
                        GemmShape{m, n, k, batch});
}

double memory_bound_seconds(const Device& device, const DeviceProfile& profile, double bytes,
                            DType dtype, double flops, KernelClass kernel) {
  return kernel_seconds(device, profile, dtype, flops, bytes, ComputeKind::kMemoryBound, 0, kernel);
}

double task_seconds(const Task& task, const Device& device, const DeviceProfile& profile) {
  if (task.kind != TaskKind::kCompute) return 0;
  const bool flash = is_flash_attention(task.kernel);
  return kernel_seconds(device, profile, task.dtype, task.flops, task.bytes, task.compute,
                        task_written_bytes(task), task.kernel, flash ? task.m : 0,
                        flash ? task.k : 0, fused_kernels(task),
                        task.compute == ComputeKind::kGemm
                            ? GemmShape{task.m, task.n, task.k, task.batch}
                            : GemmShape{});
}

double ring_block_seconds(const Device& device, const DeviceProfile& profile, const Kernel& k) {
  const double steps = k.ring_steps > 1 ? k.ring_steps : 1;
  const bool flash = is_flash_attention(k.kernel_class);
  return kernel_seconds(device, profile, k.dtype, k.fixed_flops / steps, k.bytes / steps,
                        ComputeKind::kFixed, 0, k.kernel_class, flash ? k.m : 0,
                        flash ? k.k : 0);
}

}  // namespace brigade::cost
