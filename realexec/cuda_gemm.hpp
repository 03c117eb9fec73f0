// The CUDA backend's 16-, 32- and 64-bit GEMMs through cuBLAS (FP8 ones go
// through cuBLASLt: realexec/cuda_fp8_gemm.hpp): the types each dtype runs
// in, and one GEMM, batched or not, written fresh or added into its output
// (fused gradient accumulation; docs/executors.md, "GEMMs that add into
// their outputs"); and the layout of a stream's GEMM workspace, FP8 ones
// included (GemmSpace). CUDA builds only.
#pragma once

#include <cublas_v2.h>

#include <cstddef>
#include <string>

#include "core/dtype.hpp"
#include "core/status.hpp"
#include "realexec/task_plan.hpp"

namespace brigade::realexec::cuda {

// cuBLAS's operand type and compute type for a GEMM of dtype `t`: f64 in
// CUBLAS_COMPUTE_64F, f32 in 32F, tf32 in 32F_FAST_TF32, f16 and bf16 in
// 32F; false for the dtypes it does not run here (fp8, i8, i32).
bool gemm_types(DType t, cudaDataType* data, cublasComputeType_t* compute);

// The bytes of an element of the output (C and D) of a GEMM of dtype `t`
// at `accumulate_width` (run_gemm's and Fp8Gemms::run's choice): 4 (FP32)
// for an fp8 GEMM at width 4 or more and for a 16-bit one at width 4; 2
// (BF16) for another fp8 GEMM; the dtype's own bytes otherwise.
int gemm_output_bytes(DType t, int accumulate_width);

// "E4M3", "BF16", "F16", "FP32", "F64": a cuBLAS data type as error
// messages name it.
const char* data_type_name(cudaDataType t);

// "1024 x 512 x 768 (m x n x k), batch 2": a GEMM's shape as error
// messages name it.
std::string describe_shape(const GemmShape& g);

// A stream's GEMM workspace of one dtype, sized by the largest GEMM of each
// kind on it: the inputs (a batch's As, then its Bs, each member its own)
// at its start, filled with random values once, and the outputs (the
// batch's Cs) in regions after the largest inputs. So every GEMM reads
// random data, never an earlier GEMM's output (whose values, and so the
// tensor cores' power draw, would depend on the plan's order of GEMMs), and
// a batch moves the bytes the cost model charges it (gemm_bytes: batch x
// (A + B + C)). Members that shared A and B (stride 0) read one 8 MiB A
// from L2 128 times: an attention's batched products then ran at 5.3 TB/s,
// past the H200's HBM.
// Three output regions, each as large as its largest batch of Cs: fresh
// outputs (beta 0), which no GEMM reads; then the Cs of GEMMs that add into
// their outputs (accumulate_width > 0: fused gradient accumulation), those
// of 4 or 8 bytes an element (FP32, F64) in one region ("wide") and the
// 16-bit ones in another ("narrow"). Zeroed once, each accumulating region
// is written at one element width only, so it holds what GEMMs of that
// width wrote (zeros at first): a 16-bit C over FP32 values would read
// their halves as numbers, NaN or Inf among them. And an accumulating
// GEMM's C is never the D a fresh GEMM just wrote: calibrate's pairs (a
// fresh GEMM, then the same adding into FP32, realexec/
// calibrate_accumulate.cpp) read C from where the previous accumulation
// left it, as a main_grad is read, not from the L2 the fresh D went to.
struct GemmSpace {
  std::size_t inputs = 0;  // bytes of the largest batch of As and Bs together
  std::size_t fresh = 0;   // of the largest batch of fresh Cs
  std::size_t wide = 0;    // of Cs added into at 4 or 8 bytes an element
  std::size_t narrow = 0;  // of Cs added into at 2 bytes an element

  // Grows the space by a GEMM of `shape` (fp8: padded, fp8_shape) in `t`.
  void grow(const GemmShape& shape, DType t, int accumulate_width);
  static std::size_t aligned(std::size_t b) { return (b + 255) / 256 * 256; }
  // Where the outputs begin (256-byte aligned, as each region), and all of it.
  std::size_t outputs_offset() const { return aligned(inputs); }
  std::size_t bytes() const { return outputs_offset() + aligned(fresh) + aligned(wide) + narrow; }
};

// A GemmSpace's regions in memory at `base`, and where a GEMM writes.
struct GemmRegions {
  char* inputs = nullptr;  // A then B
  char* fresh = nullptr;
  char* wide = nullptr;
  char* narrow = nullptr;

  GemmRegions() = default;
  GemmRegions(char* base, const GemmSpace& s)
      : inputs(base),
        fresh(base + s.outputs_offset()),
        wide(fresh + GemmSpace::aligned(s.fresh)),
        narrow(wide + GemmSpace::aligned(s.wide)) {}
  // The C of a GEMM of dtype `t` at `accumulate_width`.
  char* output(DType t, int accumulate_width) const {
    if (accumulate_width == 0) return fresh;
    return gemm_output_bytes(t, accumulate_width) > 2 ? wide : narrow;
  }
};

// C = A B (m x n over k, column-major, each batch member its own operands,
// strided) on `h`'s stream. `accumulate_width` 0: a fresh C of the
// operands' type (beta 0); 2, 4 or 8: C = A B + C (beta 1), an FP32 C for
// 16-bit operands at 4 (cuBLAS's mixed types, as Apex's
// wgrad_gemm_accum_fp32 adds into main_grad), the operands' type otherwise.
Status run_gemm(cublasHandle_t h, DType t, const GemmShape& g, int accumulate_width, const void* a,
                const void* b, void* c);

}  // namespace brigade::realexec::cuda
