// The CPU backend's kernels (private to realexec): Eigen GEMMs, a streaming
// loop, typed element-wise pieces of collectives and their checks
// (cpu_kernels.cpp, built for BRIGADE_CPU_ARCH, so no strings or Status
// there), and the host memory they work in (cpu_buffer.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/dtype.hpp"
#include "core/status.hpp"
#include "realexec/out_of_place.hpp"
#include "realexec/pattern.hpp"
#include "realexec/ring.hpp"

namespace brigade::realexec::cpu {

// 64-byte aligned host memory, written once at allocation so that every page
// is really backed (an untouched allocation is only address space).
class HostBuffer {
 public:
  HostBuffer() = default;
  // Fails (kRuntime) if the host cannot give the memory.
  static Result<HostBuffer> allocate(std::size_t bytes);
  std::byte* data() const { return p_.get(); }
  std::size_t size() const { return n_; }
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(p_.get());
  }

 private:
  struct Free {
    std::size_t big_bytes;  // > 0: from big_allocate (core/program.hpp), of this size
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte[], Free> p_;
  std::size_t n_ = 0;
};

// GEMMs run in f64 or f32 (tf32 and, when allowed, f16/bf16 in f32).
// Column-major A (m x k), B (k x n), C (m x n) laid out one after the other,
// for each member of a batch in turn (member i at i x (mk + kn + mn)).
std::size_t gemm_workspace_bytes(bool f64, std::int64_t m, std::int64_t n, std::int64_t k,
                                 std::int64_t batch);
// Fills the whole workspace with the pattern below, element by element, so
// that every member of every shape reads finite, normal values.
void fill_gemm_workspace(bool f64, std::byte* ws, std::size_t bytes);
// Fills member 0's A and B (and C `with_output`) with multiples of 1/8 in
// [-3/8, 3/8]: every product is a multiple of 1/64 and every sum of fewer
// than 2^24/9 of them is exact in f32, so C can be checked exactly. (The
// same values as fill_gemm_workspace puts there.)
void fill_gemm_operands(bool f64, std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k,
                        bool with_output = false);
// C_i = A_i B_i for each of the `batch` members, each its own operands: the
// bytes the cost model charges a batch (gemm_bytes: batch x (A + B + C)).
// `accumulate`: C_i += A_i B_i (a GEMM that adds into its output: fused
// gradient accumulation, realexec/task_plan.hpp accumulate_width). Eigen's
// product kernel adds into C either way (the plain form zeroes C first), so
// on the CPU the addition costs nothing extra.
void gemm(bool f64, std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k,
          std::int64_t batch, bool accumulate = false);
// Checks C(0,0) and C(m-1,n-1) against sums in double (`accumulated`: the
// pattern's C, fill_gemm_operands with the output, plus the sums): the
// first that differs, if any.
struct GemmCheck {
  bool ok = true;
  std::int64_t i = 0, j = 0;
  double got = 0, want = 0;
};
GemmCheck check_gemm(bool f64, const std::byte* ws, std::int64_t m, std::int64_t n, std::int64_t k,
                     bool accumulated = false);
// Streams `bytes` of memory traffic: x = -x in place over f32 elements
// (4 bytes read + 4 written each), in passes over `scratch` as needed.
void stream(float* scratch, std::size_t scratch_elements, double bytes);
// The two streaming kernels of a class of their own (KernelClass kNorm* and
// kActivation*), moving the same bytes as `stream` (4 read and 4 written an
// f32 element) out of place, from the scratch's first half into its second:
// a LayerNorm over rows of kNormRow elements (realexec/out_of_place.hpp;
// the mean and variance of each row, then (x - mean) / sqrt(var + eps)) and
// the tanh GeLU (Hendrycks & Gimpel 2016), as a plan's norms and activations
// compute them. Their rates are what `brigade calibrate` fits as the norm
// and activation efficiencies.
// Fills the scratch with values in [-3/8, 3/8] (fill_gemm_operands' pattern).
void fill_scratch(float* scratch, std::size_t elements);
void layer_norm(float* scratch, std::size_t scratch_elements, double bytes);
void gelu(float* scratch, std::size_t scratch_elements, double bytes);
// A gated activation's class (KernelClass kGated*): SwiGLU, silu(gate) x
// up (Shazeer 2020), over the scratch's thirds (gate, up, out: 8 B read and
// 4 B written an output element; realexec/out_of_place.hpp), as a plan's
// SwiGLU computes it; `brigade calibrate` fits its rate as the gated
// activation efficiency.
void swiglu(float* scratch, std::size_t scratch_elements, double bytes);

// Fills a collective input: element i = input_value(device, i).
void fill_input(Element e, std::byte* p, std::int64_t count, int device);
// One piece of a ring step (realexec/ring.hpp) on this rank.
void apply_ring_op(Element e, const RingOp& op, std::byte* out_self, const std::byte* in_self,
                   const std::byte* src);
// Adds `delta` to element i (fault injection for tests of the checks).
void add_to_element(Element e, std::byte* p, std::int64_t i, double delta);
// The first output element that differs from the reference, or -1; its
// value and the expected one go to *got and *want.
std::int64_t check_output(Element e, const std::byte* out, const ExpectedOutput& expected,
                          double* got, double* want);

}  // namespace brigade::realexec::cpu
