// The out-of-place streaming kernels' passes, shared by both backends
// (realexec/cpu_kernels.cpp, realexec/cuda_kernels.cu): a task of the norm
// or activation class moves its bytes (4 read and 4 written an f32 element)
// from a scratch buffer's first half into its second, in passes of at most
// a half each, so that a task larger than its scratch still moves all of
// them; a gated activation's (SwiGLU) reads two inputs for each output, in
// thirds. Host code only (nvcc compiles it as such).
#pragma once

#include <cstdint>

namespace brigade::realexec {

// The executors' LayerNorm works on rows of this many f32 elements, and a
// pass holds a whole number of them where a half does.
inline constexpr std::int64_t kNormRow = 4096;

// Calls `pass(x, y, n)` (x in the first half, y in the second) until
// `bytes` of traffic (8 an element) have moved; each pass a whole number of
// `unit` elements where a half holds one; nothing where the scratch has no
// half or there are no bytes.
template <class Pass>
void for_each_out_of_place_pass(float* scratch, std::int64_t elements, double bytes,
                                std::int64_t unit, Pass&& pass) {
  const std::int64_t half = elements / 2;
  if (half <= 0 || !(bytes > 0)) return;
  const std::int64_t chunk = half >= unit ? half / unit * unit : half;
  auto left = static_cast<std::int64_t>(bytes / 8.0);
  while (left > 0) {
    const std::int64_t n = left < chunk ? left : chunk;
    pass(scratch, scratch + half, n);
    left -= n;
  }
}

// The gated activation's passes (SwiGLU: two inputs to one output, 8 bytes
// read and 4 written an f32 element of the output): the scratch in thirds,
// `pass(gate, up, out, n)` with the gate in the first, up in the second,
// the output in the third, until `bytes` have moved (12 an element).
template <class Pass>
void for_each_gated_pass(float* scratch, std::int64_t elements, double bytes, Pass&& pass) {
  const std::int64_t third = elements / 3;
  if (third <= 0 || !(bytes > 0)) return;
  auto left = static_cast<std::int64_t>(bytes / 12.0);
  while (left > 0) {
    const std::int64_t n = left < third ? left : third;
    pass(scratch, scratch + third, scratch + 2 * third, n);
    left -= n;
  }
}

}  // namespace brigade::realexec
