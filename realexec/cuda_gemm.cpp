#include "realexec/cuda_gemm.hpp"

#include <algorithm>
#include <cstdint>

#include "realexec/cuda_check.hpp"
#include "realexec/cuda_fp8_gemm.hpp"

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

int gemm_output_bytes(DType t, int accumulate_width) {
  if (t == DType::kFP8) return accumulate_width >= 4 ? 4 : 2;
  const auto eb = static_cast<int>(dtype_bytes(t));
  return accumulate_width == 4 && eb == 2 ? 4 : eb;
}

const char* data_type_name(cudaDataType t) {
  switch (t) {
    case CUDA_R_8F_E4M3:
      return "E4M3";
    case CUDA_R_8F_E5M2:
      return "E5M2";
    case CUDA_R_16BF:
      return "BF16";
    case CUDA_R_16F:
      return "F16";
    case CUDA_R_32F:
      return "FP32";
    case CUDA_R_64F:
      return "F64";
    default:
      return "another type";
  }
}

std::string describe_shape(const GemmShape& g) {
  return std::to_string(g.m) + " x " + std::to_string(g.n) + " x " + std::to_string(g.k) +
         " (m x n x k), batch " + std::to_string(g.batch);
}

void GemmSpace::grow(const GemmShape& shape, DType t, int accumulate_width) {
  // FP8: E4M3 operands of the padded shape, a BF16 or FP32 output (cuda_fp8_gemm.hpp).
  const GemmShape g = t == DType::kFP8 ? fp8_shape(shape) : shape;
  const auto eb = static_cast<std::int64_t>(dtype_bytes(t));
  const std::int64_t ob = gemm_output_bytes(t, accumulate_width);
  inputs = std::max(inputs, static_cast<std::size_t>((g.m * g.k + g.k * g.n) * g.batch * eb));
  std::size_t& out = accumulate_width == 0 ? fresh : ob > 2 ? wide : narrow;
  out = std::max(out, static_cast<std::size_t>(g.m * g.n * g.batch * ob));
}

Status run_gemm(cublasHandle_t h, DType t, const GemmShape& g, int accumulate_width, const void* a,
                const void* b, void* c) {
  cudaDataType data;
  cublasComputeType_t compute;
  if (!gemm_types(t, &data, &compute))
    return Status::error("cuda backend: cuBLAS runs no " + std::string(dtype_name(t)) + " GEMM",
                         ErrorKind::kRuntime);
  const cudaDataType out =
      gemm_output_bytes(t, accumulate_width) > dtype_bytes(t) ? CUDA_R_32F : data;
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  const bool f64 = compute == CUBLAS_COMPUTE_64F;
  const void* alpha = f64 ? static_cast<const void*>(&one64) : &one32;
  const void* beta = f64 ? static_cast<const void*>(accumulate_width > 0 ? &one64 : &zero64)
                         : static_cast<const void*>(accumulate_width > 0 ? &one32 : &zero32);
  const auto m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const cublasStatus_t e =
      g.batch == 1
          ? cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, data, m, b, data, k, beta,
                         c, out, m, compute, CUBLAS_GEMM_DEFAULT)
          : cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, data, m,
                                       g.m * g.k, b, data, k, g.k * g.n, beta, c, out, m, g.m * g.n,
                                       static_cast<int>(g.batch), compute, CUBLAS_GEMM_DEFAULT);
  if (e == CUBLAS_STATUS_SUCCESS) return Status::ok();
  // The call with the values it was given, e.g. "cublasGemmEx (the bf16
  // GEMM 1024 x 512 x 768 (m x n x k), batch 1, A and B BF16, C and D FP32,
  // accumulate width 4)".
  const std::string call =
      std::string(g.batch == 1 ? "cublasGemmEx" : "cublasGemmStridedBatchedEx") + " (the " +
      std::string(dtype_name(t)) + " GEMM " + describe_shape(g) + ", A and B " +
      data_type_name(data) + ", C and D " + data_type_name(out) + ", accumulate width " +
      std::to_string(accumulate_width) + ")";
  return check(e, call.c_str(), __FILE__, __LINE__);
}

}  // namespace brigade::realexec::cuda
