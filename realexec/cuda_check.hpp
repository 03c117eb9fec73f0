// One CHECK for every CUDA runtime, cuBLAS and NCCL call of the CUDA backend
// (nccl-tests' CUDACHECK / NCCLCHECK, as values): a failed call becomes a
// Status naming the call, where it was made and what the library said, e.g.
//   "cuda backend: realexec/cuda_executor.cpp:412: cudaMallocAsync(&p, bytes, s)
//    failed: out of memory (cudaErrorMemoryAllocation)"
// and the enclosing function returns it. Only for functions returning Status
// or Result<T>. CUDA builds only.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "core/status.hpp"

namespace brigade::realexec::cuda {

Status check(cudaError_t e, const char* call, const char* file, int line);
Status check(cublasStatus_t e, const char* call, const char* file, int line);
Status check(ncclResult_t e, const char* call, const char* file, int line);

}  // namespace brigade::realexec::cuda

#define BRIGADE_CUDA_CHECK(call)                                             \
  do {                                                                       \
    ::brigade::Status _cuda_st =                                             \
        ::brigade::realexec::cuda::check((call), #call, __FILE__, __LINE__); \
    if (!_cuda_st.is_ok()) return _cuda_st;                                  \
  } while (0)
