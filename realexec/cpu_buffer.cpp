// Host memory of the CPU backend (cpu_kernels.hpp), kept out of
// cpu_kernels.cpp, which is built for another instruction set.
#include <cstdlib>
#include <cstring>

#include "core/units.hpp"
#include "realexec/cpu_kernels.hpp"

namespace brigade::realexec::cpu {

void HostBuffer::Free::operator()(std::byte* p) const {
  std::free(p);
}

Result<HostBuffer> HostBuffer::allocate(std::size_t bytes) {
  HostBuffer b;
  if (bytes == 0) return b;
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr)
    return Status::error("the host could not allocate " + format_bytes(static_cast<double>(bytes)),
                         ErrorKind::kRuntime);
  std::memset(p, 0, rounded);
  b.p_.reset(static_cast<std::byte*>(p));
  b.n_ = bytes;
  return b;
}

}  // namespace brigade::realexec::cpu
