#include "realexec/cuda_check.hpp"

#include <cstring>
#include <string>

namespace brigade::realexec::cuda {
namespace {

// "realexec/cuda_executor.cpp" rather than the build machine's absolute path.
std::string where(const char* file, int line) {
  const char* p = std::strstr(file, "realexec/");
  return std::string(p ? p : file) + ":" + std::to_string(line);
}

Status failed(const char* call, const char* file, int line, const std::string& what) {
  return Status::error("cuda backend: " + where(file, line) + ": " + call + " failed: " + what,
                       ErrorKind::kRuntime);
}

}  // namespace

Status check(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return Status::ok();
  return failed(call, file, line,
                std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")");
}

Status check(cublasStatus_t e, const char* call, const char* file, int line) {
  if (e == CUBLAS_STATUS_SUCCESS) return Status::ok();
  return failed(call, file, line,
                std::string(cublasGetStatusString(e)) + " (" + cublasGetStatusName(e) + ")");
}

Status check(ncclResult_t e, const char* call, const char* file, int line) {
  if (e == ncclSuccess) return Status::ok();
  return failed(call, file, line,
                std::string(ncclGetErrorString(e)) + " (" + ncclGetLastError(nullptr) + ")");
}

}  // namespace brigade::realexec::cuda
