#include "realexec/cpu_kernels.hpp"

// This file alone is built for BRIGADE_CPU_ARCH (x86-64-v3: AVX2 + FMA; see
// realexec/CMakeLists.txt). Eigen's templates and inline functions
// instantiated here would otherwise be merged by the linker with the baseline
// copies other libraries instantiate (costmodel's fits, fit.cpp): one copy of
// each survives, so AVX2 code could run anywhere, and a 32-byte-aligned
// aligned_malloc could meet a 16-byte aligned_free (heap corruption, seen).
// Renaming Eigen's namespace for this file gives its code symbols of its own.
#define Eigen brigade_eigen_cpu_kernels
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace brigade::realexec::cpu {

namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

template <class T>
void gemm_t(std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
            bool accumulate) {
  const std::int64_t member = m * k + k * n + m * n;
  for (std::int64_t i = 0; i < batch; ++i) {
    T* a = reinterpret_cast<T*>(ws) + i * member;
    T* b = a + m * k;
    T* c = b + k * n;
    Eigen::Map<Mat<T>> A(a, m, k), B(b, k, n), C(c, m, n);
    if (accumulate)
      C.noalias() += A * B;
    else
      C.noalias() = A * B;
  }
}

// The pattern's element i (fill_pattern_t).
double pattern_value(std::int64_t i) {
  return static_cast<double>((i % 7) - 3) * 0.125;
}

// Element i of the pattern: a multiple of 1/8 in [-3/8, 3/8].
template <class T>
void fill_pattern_t(std::byte* ws, std::int64_t count) {
  T* a = reinterpret_cast<T*>(ws);
  for (std::int64_t i = 0; i < count; ++i) a[i] = static_cast<T>((i % 7) - 3) * T(0.125);
}

template <class T>
void fill_operands_t(std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k,
                     bool with_output) {
  fill_pattern_t<T>(ws, m * k + k * n + (with_output ? m * n : 0));
}

template <class T>
GemmCheck check_gemm_t(const std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k,
                       bool accumulated) {
  const T* a = reinterpret_cast<const T*>(ws);
  const T* b = a + m * k;
  const T* c = b + k * n;
  for (auto [i, j] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {m - 1, n - 1}}) {
    // What C held before: the pattern's value there (fill_gemm_operands
    // with the output), else nothing.
    double want = accumulated ? pattern_value(m * k + k * n + i + j * m) : 0.0;
    for (std::int64_t l = 0; l < k; ++l)
      want += static_cast<double>(a[i + l * m]) * static_cast<double>(b[l + j * k]);
    const double got = static_cast<double>(c[i + j * m]);
    // Exact below 2^24 / 9 terms (see fill_gemm_operands); a relative
    // tolerance of f32 rounding beyond.
    const bool exact = 9 * k < (std::int64_t{1} << 24);
    if (exact ? got != want : std::abs(got - want) > 1e-5 * (std::abs(want) + 1.0))
      return GemmCheck{false, i, j, got, want};
  }
  return GemmCheck{};
}

template <class T>
void fill_input_t(std::byte* p, std::int64_t count, int device) {
  T* x = reinterpret_cast<T*>(p);
  for (std::int64_t i = 0; i < count; ++i)
    x[i] = static_cast<T>(static_cast<float>(input_value(device, i)));
}

template <>
void fill_input_t<std::int32_t>(std::byte* p, std::int64_t count, int device) {
  auto* x = reinterpret_cast<std::int32_t*>(p);
  for (std::int64_t i = 0; i < count; ++i) x[i] = input_value(device, i);
}

template <class T>
void apply_t(const RingOp& op, std::byte* out_self, const std::byte* in_self,
             const std::byte* src) {
  T* d = reinterpret_cast<T*>(out_self) + op.dst_begin;
  const T* s = reinterpret_cast<const T*>(src) + op.src_begin;
  if (!op.reduce) {
    std::memcpy(d, s, static_cast<std::size_t>(op.count) * sizeof(T));
    return;
  }
  const T* a = reinterpret_cast<const T*>(in_self) + op.dst_begin;
  for (std::int64_t i = 0; i < op.count; ++i) d[i] = static_cast<T>(a[i] + s[i]);
}

template <class T>
std::int64_t check_t(const std::byte* out, const ExpectedOutput& e, double* got, double* want) {
  const T* x = reinterpret_cast<const T*>(out);
  std::int64_t begin = 0, end = 0;
  checked_range(e, &begin, &end);
  for (std::int64_t i = begin; i < end; ++i) {
    const double v = static_cast<double>(static_cast<float>(x[i]));
    const int w = expected_value(e, i);
    if (v != static_cast<double>(w)) {
      *got = v;
      *want = w;
      return i;
    }
  }
  return -1;
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
      f(Eigen::half{});
      break;
    case Element::kBF16:
      f(Eigen::bfloat16{});
      break;
    case Element::kI32:
      f(std::int32_t{});
      break;
  }
}

}  // namespace

std::size_t gemm_workspace_bytes(bool f64, std::int64_t m, std::int64_t n, std::int64_t k,
                                 std::int64_t batch) {
  return static_cast<std::size_t>((m * k + k * n + m * n) * batch) * (f64 ? 8 : 4);
}

void fill_gemm_workspace(bool f64, std::byte* ws, std::size_t bytes) {
  if (f64)
    fill_pattern_t<double>(ws, static_cast<std::int64_t>(bytes / 8));
  else
    fill_pattern_t<float>(ws, static_cast<std::int64_t>(bytes / 4));
}

void fill_gemm_operands(bool f64, std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k,
                        bool with_output) {
  if (f64)
    fill_operands_t<double>(ws, m, n, k, with_output);
  else
    fill_operands_t<float>(ws, m, n, k, with_output);
}

void gemm(bool f64, std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k,
          std::int64_t batch, bool accumulate) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  if (f64)
    gemm_t<double>(ws, m, n, k, batch, accumulate);
  else
    gemm_t<float>(ws, m, n, k, batch, accumulate);
}

GemmCheck check_gemm(bool f64, const std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k,
                     bool accumulated) {
  if (m <= 0 || n <= 0 || k <= 0) return GemmCheck{};
  return f64 ? check_gemm_t<double>(ws, m, n, k, accumulated)
             : check_gemm_t<float>(ws, m, n, k, accumulated);
}

void stream(float* scratch, std::size_t scratch_elements, double bytes) {
  if (scratch_elements == 0 || !(bytes > 0)) return;
  auto left = static_cast<std::size_t>(bytes / 8.0);
  while (left > 0) {
    const std::size_t n = left < scratch_elements ? left : scratch_elements;
    for (std::size_t i = 0; i < n; ++i) scratch[i] = -scratch[i];
    // Keep the compiler from fusing consecutive passes (x = -(-x)).
    asm volatile("" : : "r"(scratch) : "memory");
    left -= n;
  }
}

void fill_scratch(float* scratch, std::size_t elements) {
  fill_pattern_t<float>(reinterpret_cast<std::byte*>(scratch), static_cast<std::int64_t>(elements));
}

namespace {

// The shared passes (realexec/out_of_place.hpp), each kept apart from the
// next so that the compiler cannot fuse them.
template <class F>
void out_of_place(float* scratch, std::size_t scratch_elements, double bytes, std::int64_t unit,
                  F f) {
  for_each_out_of_place_pass(scratch, static_cast<std::int64_t>(scratch_elements), bytes, unit,
                             [&](const float* x, float* y, std::int64_t n) {
                               f(x, y, static_cast<std::size_t>(n));
                               asm volatile("" : : "r"(y) : "memory");
                             });
}

}  // namespace

void layer_norm(float* scratch, std::size_t scratch_elements, double bytes) {
  constexpr auto kRow = static_cast<std::size_t>(kNormRow);
  out_of_place(scratch, scratch_elements, bytes, kNormRow,
               [](const float* x, float* y, std::size_t n) {
                 for (std::size_t r = 0; r < n; r += kRow) {
                   const auto w = static_cast<Eigen::Index>(n - r < kRow ? n - r : kRow);
                   const Eigen::Map<const Eigen::ArrayXf> xr(x + r, w);
                   Eigen::Map<Eigen::ArrayXf> yr(y + r, w);
                   // Eigen's vectorised reductions, as a framework's CPU LayerNorm.
                   const float mean = xr.mean();
                   const float var = std::max(0.0f, xr.square().mean() - mean * mean);
                   yr = (xr - mean) * (1.0f / std::sqrt(var + 1e-5f));
                 }
               });
}

void gelu(float* scratch, std::size_t scratch_elements, double bytes) {
  out_of_place(scratch, scratch_elements, bytes, 1, [](const float* x, float* y, std::size_t n) {
    constexpr float kC = 0.7978845608f;  // sqrt(2 / pi)
    const auto m = static_cast<Eigen::Index>(n);
    const Eigen::Map<const Eigen::ArrayXf> v(x, m);
    // Eigen's vectorised tanh, as a framework's CPU GeLU.
    Eigen::Map<Eigen::ArrayXf>(y, m) = 0.5f * v * (1.0f + (kC * (v + 0.044715f * v.cube())).tanh());
  });
}

void swiglu(float* scratch, std::size_t scratch_elements, double bytes) {
  for_each_gated_pass(scratch, static_cast<std::int64_t>(scratch_elements), bytes,
                      [](const float* gate, const float* up, float* out, std::int64_t n) {
                        const auto m = static_cast<Eigen::Index>(n);
                        const Eigen::Map<const Eigen::ArrayXf> g(gate, m), u(up, m);
                        // Eigen's vectorised exp, as a framework's CPU SiLU.
                        Eigen::Map<Eigen::ArrayXf>(out, m) = g / (1.0f + (-g).exp()) * u;
                        asm volatile("" : : "r"(out) : "memory");
                      });
}

void fill_input(Element e, std::byte* p, std::int64_t count, int device) {
  by_element(e, [&](auto t) { fill_input_t<decltype(t)>(p, count, device); });
}

void apply_ring_op(Element e, const RingOp& op, std::byte* out_self, const std::byte* in_self,
                   const std::byte* src) {
  if (op.count <= 0) return;
  by_element(e, [&](auto t) { apply_t<decltype(t)>(op, out_self, in_self, src); });
}

void add_to_element(Element e, std::byte* p, std::int64_t i, double delta) {
  by_element(e, [&](auto t) {
    using T = decltype(t);
    T* x = reinterpret_cast<T*>(p);
    x[i] =
        static_cast<T>(static_cast<float>(static_cast<double>(static_cast<float>(x[i])) + delta));
  });
}

std::int64_t check_output(Element e, const std::byte* out, const ExpectedOutput& expected,
                          double* got, double* want) {
  std::int64_t bad = -1;
  by_element(e, [&](auto t) { bad = check_t<decltype(t)>(out, expected, got, want); });
  return bad;
}

}  // namespace brigade::realexec::cpu
