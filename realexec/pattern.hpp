// How the real executors check collectives (nccl-tests' idea: fill inputs
// with rank-dependent values, compare outputs against what the operation
// must produce). Shared by the CPU backend and the CUDA verification kernels,
// so the reference is written once; compiles as plain C++ and as CUDA.
//
// Every rank's input element i holds input_value(device, i), a small integer
// (1, 2 or 3), so sums over up to 64 ranks are exact in bf16 (8-bit
// significand: integers to 256), f16, f32, f64 and i32, whatever the
// reduction order. Inputs are never written by a collective (all are run out
// of place), so they are filled once per run.
#pragma once

#include <cstdint>

#include "core/program.hpp"

#if defined(__CUDACC__)
#define BRIGADE_HD __host__ __device__
#else
#define BRIGADE_HD
#endif

namespace brigade::realexec {

// The element types collectives move and reduce on every backend (fp8 and
// i8 are not among them: their sums would not stay exact).
enum class Element : std::uint8_t { kF64, kF32, kF16, kBF16, kI32 };

// The element type of a collective of this dtype (tf32 travels as f32);
// false for fp8 and i8.
inline bool collective_element(DType t, Element* e) {
  switch (t) {
    case DType::kF64:
      *e = Element::kF64;
      return true;
    case DType::kF32:
    case DType::kTF32:
      *e = Element::kF32;
      return true;
    case DType::kF16:
      *e = Element::kF16;
      return true;
    case DType::kBF16:
      *e = Element::kBF16;
      return true;
    case DType::kI32:
      *e = Element::kI32;
      return true;
    default:
      return false;
  }
}

BRIGADE_HD inline int element_bytes(Element e) {
  return e == Element::kF64 ? 8 : (e == Element::kF16 || e == Element::kBF16) ? 2 : 4;
}

// Largest group whose sums the pattern keeps exact in every dtype (3 x 64 = 192 <= 256).
inline constexpr int kMaxExactGroup = 64;

BRIGADE_HD inline int input_value(int device, std::int64_t i) {
  return static_cast<int>((static_cast<std::int64_t>(device) + i) % 3) + 1;
}

// Splitting `count` elements into `parts` near-equal parts: part j is
// [j*count/parts, (j+1)*count/parts) (sizes differ by at most one).
BRIGADE_HD inline std::int64_t part_begin(std::int64_t count, int parts, int j) {
  return count * j / parts;
}
BRIGADE_HD inline std::int64_t part_size(std::int64_t count, int parts, int j) {
  return part_begin(count, parts, j + 1) - part_begin(count, parts, j);
}

// What one rank's output must hold after a collective. `group` lists the
// devices in rank order (host or device memory, as the caller runs).
struct ExpectedOutput {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  const std::int32_t* group = nullptr;
  int ranks = 1;
  int rank = 0;
  int root = 0;
  // Elements of the collective's M (nccl-tests "size"): AllReduce, Broadcast,
  // Reduce: each rank's tensor; AllGather: the gathered output;
  // ReduceScatter: each rank's unreduced input; AllToAll: each rank's buffer.
  std::int64_t count = 0;
};

// The output range [begin, end) of this rank that the reference defines
// (ReduceScatter: the rank's own part; Reduce: everything on the root and
// nothing elsewhere; AllToAll: the N equal blocks, remainder excluded).
BRIGADE_HD inline void checked_range(const ExpectedOutput& e, std::int64_t* begin,
                                     std::int64_t* end) {
  *begin = 0;
  *end = e.count;
  switch (e.kind) {
    case CollectiveKind::kReduceScatter:
      *begin = part_begin(e.count, e.ranks, e.rank);
      *end = part_begin(e.count, e.ranks, e.rank + 1);
      break;
    case CollectiveKind::kReduce:
      if (e.rank != e.root) *end = 0;
      break;
    case CollectiveKind::kAllToAll:
      *end = (e.count / e.ranks) * e.ranks;
      break;
    default:
      break;
  }
}

// The reference value of output element i (i in checked_range). Outputs are
// laid out as M elements on every rank (ReduceScatter's result sits at the
// rank's own part of it, as the ring leaves it).
BRIGADE_HD inline int expected_value(const ExpectedOutput& e, std::int64_t i) {
  switch (e.kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kReduce: {
      int sum = 0;
      for (int q = 0; q < e.ranks; ++q) sum += input_value(e.group[q], i);
      return sum;
    }
    case CollectiveKind::kAllGather: {
      // Part j of the output is rank j's input, whose elements are indexed from 0.
      int j = static_cast<int>(i * e.ranks / (e.count > 0 ? e.count : 1));
      while (j + 1 < e.ranks && part_begin(e.count, e.ranks, j + 1) <= i) ++j;
      while (j > 0 && part_begin(e.count, e.ranks, j) > i) --j;
      return input_value(e.group[j], i - part_begin(e.count, e.ranks, j));
    }
    case CollectiveKind::kBroadcast:
      return input_value(e.group[e.root], i);
    case CollectiveKind::kAllToAll: {
      // Block q of rank r's output is block r of rank q's input.
      const std::int64_t block = e.count / e.ranks;
      const int q = static_cast<int>(i / block);
      return input_value(e.group[q], static_cast<std::int64_t>(e.rank) * block + i % block);
    }
  }
  return -1;
}

}  // namespace brigade::realexec
