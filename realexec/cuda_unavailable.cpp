// Built instead of the CUDA backend when the CUDA toolkit or NCCL was not
// found at configure time: the same entry points, saying why there is no
// backend.
#include "realexec/executor.hpp"

namespace brigade::realexec {
namespace {
constexpr const char* kNotBuilt =
    "the CUDA backend was not built: configure where the CUDA toolkit and NCCL are found "
    "(BRIGADE_WITH_CUDA=ON, nvcc and nccl.h visible to CMake)";
}  // namespace

bool cuda_device_available(std::string* why) {
  if (why) *why = kNotBuilt;
  return false;
}

int cuda_device_count(std::string* why) {
  if (why) *why = kNotBuilt;
  return 0;
}

Result<std::string> cuda_device_name(int) {
  return Status::error(kNotBuilt, ErrorKind::kBadInput);
}

Result<std::unique_ptr<RealExecutor>> make_cuda_executor(const CudaOptions&) {
  return Status::error(kNotBuilt, ErrorKind::kBadInput);
}

}  // namespace brigade::realexec
