// Host memory of the CPU backend (cpu_kernels.hpp), kept out of
// cpu_kernels.cpp, which is built for another instruction set.
#include <cstdlib>
#include <new>
#include <cstring>

#include "core/program.hpp"
#include "core/units.hpp"
#include "realexec/cpu_kernels.hpp"

namespace brigade::realexec::cpu {

void HostBuffer::Free::operator()(std::byte* p) const {
  if (big_bytes > 0) big_deallocate(p, big_bytes);
  else std::free(p);
}

// Blocks of kBigBlockBytes (4 MiB) or more come from big_allocate: mapped on their own, on
// 2 MiB transparent huge pages where the kernel allows (madvise). A
// device's memory is the same way on a GPU (large pages), and on 4 KiB
// pages a 16 MiB buffer's TLB misses and its pages' random physical
// placement changed a ring step's time by up to 30% from one run to the
// next on the development VM.
Result<HostBuffer> HostBuffer::allocate(std::size_t bytes) {
  HostBuffer b;
  if (bytes == 0) return b;
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  void* p = nullptr;
  if (rounded >= kBigBlockBytes) {
    try {
      p = big_allocate(rounded);
    } catch (const std::bad_alloc&) {
      p = nullptr;
    }
  } else {
    p = std::aligned_alloc(64, rounded);
  }
  if (p == nullptr)
    return Status::error("the host could not allocate " + format_bytes(static_cast<double>(bytes)),
                         ErrorKind::kRuntime);
  std::memset(p, 0, rounded);
  b.p_ = std::unique_ptr<std::byte[], Free>(static_cast<std::byte*>(p),
                                            Free{rounded >= kBigBlockBytes ? rounded : 0});
  b.n_ = bytes;
  return b;
}

}  // namespace brigade::realexec::cpu
