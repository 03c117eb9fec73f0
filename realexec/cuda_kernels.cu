#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <climits>

#include "realexec/cuda_kernels.hpp"

namespace brigade::realexec::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kNormThreads = 256;  // a power of two (the tree reduction)

// Enough blocks to fill any current GPU; grid-stride loops do the rest.
int blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 1 ? 1 : (b > 4096 ? 4096 : b));
}

template <class T>
__device__ T from_float(float v) {
  return static_cast<T>(v);
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}

template <class T>
__device__ float to_float(T v) {
  return static_cast<float>(v);
}
template <>
__device__ float to_float<__half>(__half v) {
  return __half2float(v);
}
template <>
__device__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <class T>
__device__ T add(T a, T b) {
  return a + b;
}
template <>
__device__ __half add<__half>(__half a, __half b) {
  return __float2half(__half2float(a) + __half2float(b));
}
template <>
__device__ __nv_bfloat16 add<__nv_bfloat16>(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b));
}

template <class T>
__global__ void fill_input_kernel(T* p, std::int64_t n, int device) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[i] = from_float<T>(static_cast<float>(input_value(device, i)));
}

template <>
__global__ void fill_input_kernel<int>(int* p, std::int64_t n, int device) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[i] = input_value(device, i);
}

// A uniform value in [-1, 1) from element i's index: splitmix64's finaliser
// (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014), whose 24 high bits fill a float's significand.
__device__ float operand_value(std::uint64_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

// GEMM operands hold random values, as a real step's weights and activations
// do: a tensor core's power, and so the clock it holds under the power cap,
// depends on how many bits toggle (an H200 of the device tool ran an 8192^3
// bf16 GEMM at 788 TFLOP/s on random data and 894 on zeros). A pattern of
// seven values made calibrate's GEMMs run faster than a plan's, whose
// operands partly held earlier GEMMs' outputs (docs/VALIDATION.md, the GPU
// section).
template <class T>
__global__ void fill_operands_kernel(T* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[i] = from_float<T>(operand_value(static_cast<std::uint64_t>(i)));
}

__global__ void stream_kernel(float4* x, std::int64_t n4) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    v.x = -v.x, v.y = -v.y, v.z = -v.z, v.w = -v.w;
    x[i] = v;
  }
}

// A LayerNorm over rows of `width` floats, out of place (x to y): one block
// a row, the row's sum and sum of squares reduced in shared memory, then
// (x - mean) / sqrt(var + eps) written. Each element read once from memory
// (the second read hits the cache) and written once.
__global__ void layer_norm_kernel(const float* x, float* y, std::int64_t rows, int width) {
  __shared__ float sums[2][kNormThreads];
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * width;
    float* yr = y + r * width;
    float sum = 0, sq = 0;
    for (int i = threadIdx.x; i < width; i += blockDim.x) {
      const float v = xr[i];
      sum += v;
      sq += v * v;
    }
    sums[0][threadIdx.x] = sum;
    sums[1][threadIdx.x] = sq;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
      if (threadIdx.x < step) {
        sums[0][threadIdx.x] += sums[0][threadIdx.x + step];
        sums[1][threadIdx.x] += sums[1][threadIdx.x + step];
      }
      __syncthreads();
    }
    const float mean = sums[0][0] / width;
    const float var = fmaxf(0.0f, sums[1][0] / width - mean * mean);
    const float inv = rsqrtf(var + 1e-5f);
    for (int i = threadIdx.x; i < width; i += blockDim.x) yr[i] = (xr[i] - mean) * inv;
    __syncthreads();  // the shared sums are the next row's
  }
}

// The tanh GeLU (Hendrycks & Gimpel 2016), out of place.
__global__ void gelu_kernel(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}

__global__ void swiglu_kernel(const float* gate, const float* up, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float g = gate[i];
    out[i] = g / (1.0f + __expf(-g)) * up[i];
  }
}

template <class T>
__global__ void reduce_kernel(T* out, const T* a, const T* b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = add<T>(a[i], b[i]);
}

struct CheckArgs {
  ExpectedOutput e;
  std::int32_t group[kMaxCheckedGroup];
  std::int64_t begin, end;
};

template <class T>
__global__ void check_kernel(const T* out, CheckArgs args, CheckSlot* slot) {
  ExpectedOutput e = args.e;
  e.group = args.group;
  for (std::int64_t i =
           args.begin + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       i < args.end; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (to_float<T>(out[i]) != static_cast<float>(expected_value(e, i)))
      atomicMin(&slot->first_bad, static_cast<unsigned long long>(i));
}

template <>
__global__ void check_kernel<int>(const int* out, CheckArgs args, CheckSlot* slot) {
  ExpectedOutput e = args.e;
  e.group = args.group;
  for (std::int64_t i =
           args.begin + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       i < args.end; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (out[i] != expected_value(e, i))
      atomicMin(&slot->first_bad, static_cast<unsigned long long>(i));
}

__global__ void reset_slot_kernel(CheckSlot* slot) {
  slot->first_bad = ULLONG_MAX;
  slot->got = 0;
}

template <class T>
__global__ void record_bad_kernel(const T* out, CheckSlot* slot) {
  if (slot->first_bad != ULLONG_MAX)
    slot->got = static_cast<double>(to_float<T>(out[slot->first_bad]));
}

template <>
__global__ void record_bad_kernel<int>(const int* out, CheckSlot* slot) {
  if (slot->first_bad != ULLONG_MAX) slot->got = static_cast<double>(out[slot->first_bad]);
}

template <class F>
void by_element(Element e, F&& f) {
  switch (e) {
    case Element::kF64:
      f(double{});
      break;
    case Element::kF32:
      f(float{});
      break;
    case Element::kF16:
      f(__half{});
      break;
    case Element::kBF16:
      f(__nv_bfloat16{});
      break;
    case Element::kI32:
      f(int{});
      break;
  }
}

}  // namespace

void launch_fill_input(Element e, void* p, std::int64_t count, int device, cudaStream_t s) {
  if (count <= 0) return;
  by_element(e, [&](auto t) {
    using T = decltype(t);
    fill_input_kernel<T><<<blocks_for(count), kThreads, 0, s>>>(static_cast<T*>(p), count, device);
  });
}

void launch_fill_operands(DType t, void* p, std::int64_t count, cudaStream_t s) {
  if (count <= 0) return;
  switch (t) {
    case DType::kF64:
      fill_operands_kernel<double>
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<double*>(p), count);
      break;
    case DType::kF16:
      fill_operands_kernel<__half>
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<__half*>(p), count);
      break;
    case DType::kBF16:
      fill_operands_kernel<__nv_bfloat16>
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<__nv_bfloat16*>(p), count);
      break;
    case DType::kFP8:  // E4M3, as the FP8 GEMMs read both operands (cuda_fp8_gemm.hpp)
      fill_operands_kernel<__nv_fp8_e4m3>
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<__nv_fp8_e4m3*>(p), count);
      break;
    default:
      fill_operands_kernel<float>
          <<<blocks_for(count), kThreads, 0, s>>>(static_cast<float*>(p), count);
      break;
  }
}

void launch_stream(float* x, std::int64_t elements, double bytes, cudaStream_t s) {
  const std::int64_t cap4 = elements / 4;
  if (cap4 <= 0 || !(bytes > 0)) return;
  auto left4 = static_cast<std::int64_t>(bytes / 32.0);  // 16 bytes read + 16 written per float4
  while (left4 > 0) {
    const std::int64_t n4 = left4 < cap4 ? left4 : cap4;
    stream_kernel<<<blocks_for(n4), kThreads, 0, s>>>(reinterpret_cast<float4*>(x), n4);
    left4 -= n4;
  }
}

void launch_layer_norm(float* x, std::int64_t elements, double bytes, cudaStream_t s) {
  for_each_out_of_place_pass(
      x, elements, bytes, kNormRow, [&](const float* in, float* out, std::int64_t n) {
        const int width = n >= kNormRow ? static_cast<int>(kNormRow) : static_cast<int>(n);
        const std::int64_t rows = n / width, tail = n - rows * width;
        const int blocks = static_cast<int>(rows < 65535 ? rows : 65535);
        layer_norm_kernel<<<blocks, kNormThreads, 0, s>>>(in, out, rows, width);
        // The last pass's rest, a shorter row (as the CPU backend's).
        if (tail > 0)
          layer_norm_kernel<<<1, kNormThreads, 0, s>>>(in + rows * width, out + rows * width, 1,
                                                       static_cast<int>(tail));
      });
}

void launch_gelu(float* x, std::int64_t elements, double bytes, cudaStream_t s) {
  for_each_out_of_place_pass(x, elements, bytes, 1,
                             [&](const float* in, float* out, std::int64_t n) {
                               gelu_kernel<<<blocks_for(n), kThreads, 0, s>>>(in, out, n);
                             });
}

void launch_swiglu(float* x, std::int64_t elements, double bytes, cudaStream_t s) {
  for_each_gated_pass(x, elements, bytes,
                      [&](const float* gate, const float* up, float* out, std::int64_t n) {
                        swiglu_kernel<<<blocks_for(n), kThreads, 0, s>>>(gate, up, out, n);
                      });
}

void launch_reduce(Element e, void* out, const void* a, const void* b, std::int64_t count,
                   cudaStream_t s) {
  if (count <= 0) return;
  by_element(e, [&](auto t) {
    using T = decltype(t);
    reduce_kernel<T><<<blocks_for(count), kThreads, 0, s>>>(
        static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(b), count);
  });
}

void launch_check(Element e, const void* out, const ExpectedOutput& expected, CheckSlot* slot,
                  cudaStream_t s) {
  CheckArgs args{};
  args.e = expected;
  for (int r = 0; r < expected.ranks && r < kMaxCheckedGroup; ++r)
    args.group[r] = expected.group[r];
  args.e.group = nullptr;
  checked_range(expected, &args.begin, &args.end);
  reset_slot_kernel<<<1, 1, 0, s>>>(slot);
  const std::int64_t n = args.end - args.begin;
  by_element(e, [&](auto t) {
    using T = decltype(t);
    if (n > 0)
      check_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(static_cast<const T*>(out), args, slot);
    record_bad_kernel<T><<<1, 1, 0, s>>>(static_cast<const T*>(out), slot);
  });
}

}  // namespace brigade::realexec::cuda
