// Internal to sim/: std::vector for the simulator's large arrays (per-task
// state, collective expansions). Blocks of 4 MiB or more are 2 MiB aligned
// and advised as transparent huge pages (Linux madvise(MADV_HUGEPAGE)): a
// 20-million-task run touches ~1 GB of fresh memory per simulation, and with
// 4 KiB pages the page faults alone cost a large part of the run on the
// development VM. Elsewhere, and for small blocks, plain malloc.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace brigade::sim {

template <class T>
struct BigAllocator {
  using value_type = T;
  BigAllocator() = default;
  template <class U>
  BigAllocator(const BigAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    void* p = nullptr;
#if defined(__linux__)
    if (bytes >= 2 * kHuge) {
      const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
      p = std::aligned_alloc(kHuge, rounded);
      if (p) madvise(p, rounded, MADV_HUGEPAGE);
    }
#endif
    if (!p) p = std::malloc(bytes > 0 ? bytes : 1);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  bool operator==(const BigAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using BigVector = std::vector<T, BigAllocator<T>>;

}  // namespace brigade::sim
