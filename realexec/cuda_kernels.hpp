// The CUDA backend's own kernels (realexec/cuda_kernels.cu), launched on a
// given stream: filling inputs, the streaming kernel of memory-bound tasks,
// the reduction step of Brigade's ring, and the collective checks. Plain C++
// declarations so that host code built by the C++ compiler can call them.
// Launch errors are read by the caller (cudaGetLastError through the CHECK).
#pragma once

#include <cuda_runtime_api.h>
#include <cstdint>

#include "core/dtype.hpp"
#include "realexec/out_of_place.hpp"
#include "realexec/pattern.hpp"

namespace brigade::realexec::cuda {

// What a collective check found: the first wrong output element, if any
// (first_bad = UINT64_MAX when none), and the value it held.
struct CheckSlot {
  unsigned long long first_bad;
  double got;
};

// Largest group a check kernel takes by value.
inline constexpr int kMaxCheckedGroup = 64;

// Collective inputs: element i = input_value(device, i).
void launch_fill_input(Element e, void* p, std::int64_t count, int device, cudaStream_t s);
// GEMM operands: pseudo-random values uniform in [-1, 1), in the dtype (f64,
// f32/tf32, f16, bf16, fp8 as E4M3); element i's value depends on i alone.
void launch_fill_operands(DType t, void* p, std::int64_t count, cudaStream_t s);
// Streams `bytes` of traffic: x = -x over f32 elements (4 bytes read + 4
// written each), in passes over `elements` as needed.
void launch_stream(float* x, std::int64_t elements, double bytes, cudaStream_t s);
// The norm and activation classes' kernels (KernelClass kNorm*,
// kActivation*), the same bytes out of place from the scratch's first half
// into its second: a LayerNorm over rows of kNormRow floats and the tanh
// GeLU, as the CPU backend's (realexec/cpu_kernels.hpp), in the passes of
// realexec/out_of_place.hpp.
void launch_layer_norm(float* x, std::int64_t elements, double bytes, cudaStream_t s);
void launch_gelu(float* x, std::int64_t elements, double bytes, cudaStream_t s);
// The gated activation's (kGated*): SwiGLU over the scratch's thirds, as the
// CPU backend's.
void launch_swiglu(float* x, std::int64_t elements, double bytes, cudaStream_t s);
// out[i] = a[i] + b[i] for i < count.
void launch_reduce(Element e, void* out, const void* a, const void* b, std::int64_t count,
                   cudaStream_t s);
// Checks `out` against the reference (pattern.hpp) into *slot (device
// memory, reset by this call). `expected.group` is read on the host and
// passed by value (at most kMaxCheckedGroup ranks).
void launch_check(Element e, const void* out, const ExpectedOutput& expected, CheckSlot* slot,
                  cudaStream_t s);

}  // namespace brigade::realexec::cuda
