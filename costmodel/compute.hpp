// Compute time of kernels. Every duration goes through core's kernel_seconds
// (core/profile.hpp), the one roofline formula all judges share; this file
// only counts a GEMM's FLOPs and bytes and hands them to it.
#pragma once

#include <cstdint>

#include "core/dtype.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/topology.hpp"

namespace brigade::cost {

struct Kernel;  // costmodel/transformer_blocks.hpp

// GEMM FLOPs (2mnk) and bytes are core's (core/profile.hpp), shared with
// ProgramBuilder::add_gemm so that the formula is said once.
using brigade::gemm_bytes;
using brigade::gemm_flops;

// Roofline time of the GEMM on a device: kernel_seconds(gemm_flops, gemm_bytes).
// `kernel`: the class of kernel it is (an unfused attention core's batched
// GEMMs stream at the profile's attention efficiencies: kernel_seconds).
double gemm_seconds(const Device& device, const DeviceProfile& profile, std::int64_t m,
                    std::int64_t n, std::int64_t k, DType dtype, std::int64_t batch = 1,
                    KernelClass kernel = KernelClass::kGeneric);

// Time of a memory-bound kernel that streams `bytes` (and does `flops`).
double memory_bound_seconds(const Device& device, const DeviceProfile& profile, double bytes,
                            DType dtype, double flops = 0,
                            KernelClass kernel = KernelClass::kGeneric);

// Duration of a Compute task of a Program: kernel_seconds with the task's
// FLOPs and bytes (ProgramBuilder fills both for every compute kind). Not for
// Transfer or Collective tasks (their time is the network's): returns 0.
double task_seconds(const Task& task, const Device& device, const DeviceProfile& profile);

// One block of a ring kernel (Kernel::ring_steps > 1, context parallelism):
// 1/ring_steps of its FLOPs and bytes, timed as the whole kernel is, by its
// class and shape (FlashAttention's measured rates, causal, at the rank's
// query length where the profile has them), its launch included. The
// closed form's ring attention and the simulator's blocks (the planner's
// ring_kernel gives each block task the kernel's class and shape) both
// come to this.
double ring_block_seconds(const Device& device, const DeviceProfile& profile, const Kernel& k);

}  // namespace brigade::cost
