// The CUDA backend's 16-, 32- and 64-bit GEMMs through cuBLAS (FP8 ones go
// through cuBLASLt: realexec/cuda_fp8_gemm.hpp): the types each dtype runs
// in, and one GEMM, batched or not, written fresh or added into its output
// (fused gradient accumulation; docs/executors.md, "GEMMs that add into
// their outputs"). CUDA builds only.
#pragma once

#include <cublas_v2.h>

#include "core/dtype.hpp"
#include "core/status.hpp"
#include "realexec/task_plan.hpp"

namespace brigade::realexec::cuda {

// cuBLAS's operand type and compute type for a GEMM of dtype `t`: f64 in
// CUBLAS_COMPUTE_64F, f32 in 32F, tf32 in 32F_FAST_TF32, f16 and bf16 in
// 32F; false for the dtypes it does not run here (fp8, i8, i32).
bool gemm_types(DType t, cudaDataType* data, cublasComputeType_t* compute);

// C = A B (m x n over k, column-major, each batch member its own operands,
// strided) on `h`'s stream. `accumulate_width` 0: a fresh C of the
// operands' type (beta 0); 2, 4 or 8: C = A B + C (beta 1), an FP32 C for
// 16-bit operands at 4 (cuBLAS's mixed types, as Apex's
// wgrad_gemm_accum_fp32 adds into main_grad), the operands' type otherwise.
Status run_gemm(cublasHandle_t h, DType t, const GemmShape& g, int accumulate_width, const void* a,
                const void* b, void* c);

}  // namespace brigade::realexec::cuda
