#include "realexec/cuda_gemm.hpp"

#include <string>

#include "realexec/cuda_check.hpp"

namespace brigade::realexec::cuda {

bool gemm_types(DType t, cudaDataType* data, cublasComputeType_t* compute) {
  switch (t) {
    case DType::kF64:
      *data = CUDA_R_64F, *compute = CUBLAS_COMPUTE_64F;
      return true;
    case DType::kF32:
      *data = CUDA_R_32F, *compute = CUBLAS_COMPUTE_32F;
      return true;
    case DType::kTF32:
      *data = CUDA_R_32F, *compute = CUBLAS_COMPUTE_32F_FAST_TF32;
      return true;
    case DType::kF16:
      *data = CUDA_R_16F, *compute = CUBLAS_COMPUTE_32F;
      return true;
    case DType::kBF16:
      *data = CUDA_R_16BF, *compute = CUBLAS_COMPUTE_32F;
      return true;
    default:
      return false;
  }
}

Status run_gemm(cublasHandle_t h, DType t, const GemmShape& g, int accumulate_width, const void* a,
                const void* b, void* c) {
  cudaDataType data;
  cublasComputeType_t compute;
  if (!gemm_types(t, &data, &compute))
    return Status::error("cuda backend: cuBLAS runs no " + std::string(dtype_name(t)) + " GEMM",
                         ErrorKind::kRuntime);
  const cudaDataType out = accumulate_width == 4 && dtype_bytes(t) == 2 ? CUDA_R_32F : data;
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  const bool f64 = compute == CUBLAS_COMPUTE_64F;
  const void* alpha = f64 ? static_cast<const void*>(&one64) : &one32;
  const void* beta = f64 ? static_cast<const void*>(accumulate_width > 0 ? &one64 : &zero64)
                         : static_cast<const void*>(accumulate_width > 0 ? &one32 : &zero32);
  const auto m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  if (g.batch == 1)
    BRIGADE_CUDA_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, data, m, b,
                                    data, k, beta, c, out, m, compute, CUBLAS_GEMM_DEFAULT));
  else
    BRIGADE_CUDA_CHECK(cublasGemmStridedBatchedEx(
        h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, data, m, g.m * g.k, b, data, k, g.k * g.n,
        beta, c, out, m, g.m * g.n, static_cast<int>(g.batch), compute, CUBLAS_GEMM_DEFAULT));
  return Status::ok();
}

}  // namespace brigade::realexec::cuda
