// Internal to sim/: the engine's memo of kernel times.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/topology.hpp"

namespace brigade::sim {

// Direct-mapped memo of kernel_seconds: Programs repeat the same kernels
// (every layer, every micro-batch), and the roofline with its efficiency
// curve (two logs) is the costliest part of setting a task up.
class KernelMemo {
 public:
  KernelMemo() : slots_(kSlots) {}
  double get(const Topology& topo, const HardwareProfile& profile, std::int32_t device_class,
             std::int32_t device, DType dtype, ComputeKind kind, double flops, double bytes,
             double written, KernelClass kernel = KernelClass::kGeneric, std::int64_t seq = 0,
             std::int64_t head_dim = 0, std::int64_t fused = 1, GemmShape shape = {}) {
    std::uint64_t h = static_cast<std::uint64_t>(device_class) * 0x9E3779B97F4A7C15ull;
    std::uint64_t fb, bb, wb;
    std::memcpy(&fb, &flops, 8);
    std::memcpy(&bb, &bytes, 8);
    std::memcpy(&wb, &written, 8);
    h ^= (fb + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2));
    h ^= (bb + 0x85EBCA77C2B2AE63ull + (h << 6) + (h >> 2));
    h ^= (wb + 0x27D4EB2F165667C5ull + (h << 6) + (h >> 2));
    h ^= static_cast<std::uint64_t>(dtype_index(dtype)) * 0xC2B2AE3D27D4EB4Full;
    h ^= (static_cast<std::uint64_t>(kind) + 1) * 0x165667B19E3779F9ull;
    h ^= (static_cast<std::uint64_t>(kernel) + 1) * 0x9E3779B185EBCA87ull;
    h ^= static_cast<std::uint64_t>(seq) * 0xD6E8FEB86659FD93ull;
    h ^= static_cast<std::uint64_t>(head_dim) * 0xA0761D6478BD642Full;
    h ^= static_cast<std::uint64_t>(fused) * 0xE7037ED1A0B428DBull;
    h ^= static_cast<std::uint64_t>(shape.m) * 0x8EBC6AF09C88C6E3ull;
    h ^= static_cast<std::uint64_t>(shape.n) * 0x589965CC75374CC3ull;
    h ^= static_cast<std::uint64_t>(shape.k) * 0x1D8E4E27C47D124Full;
    h ^= static_cast<std::uint64_t>(shape.batch) * 0xB7E151628AED2A6Bull;
    h ^= h >> 29;
    Slot& s = slots_[h & (kSlots - 1)];
    if (s.valid && s.device_class == device_class && s.dtype == dtype && s.kind == kind &&
        s.flops == flops && s.bytes == bytes && s.written == written && s.kernel == kernel &&
        s.seq == seq && s.head_dim == head_dim && s.fused == fused && s.shape.m == shape.m &&
        s.shape.n == shape.n && s.shape.k == shape.k && s.shape.batch == shape.batch)
      return s.seconds;
    const Device& d = topo.device(device);
    const double sec = kernel_seconds(d, profile.for_device(d), dtype, flops, bytes, kind, written,
                                      kernel, seq, head_dim, fused, shape);
    s = Slot{flops,  bytes,    written, sec,   device_class, dtype, kind,
             true,   kernel,   seq,     head_dim, fused,     shape};
    return sec;
  }

 private:
  static constexpr size_t kSlots = 1 << 14;
  struct Slot {
    double flops = 0, bytes = 0, written = 0, seconds = 0;
    std::int32_t device_class = -1;
    DType dtype = DType::kF32;
    ComputeKind kind = ComputeKind::kGemm;
    bool valid = false;
    KernelClass kernel = KernelClass::kGeneric;
    std::int64_t seq = 0, head_dim = 0, fused = 1;
    GemmShape shape;
  };
  std::vector<Slot> slots_;
};

}  // namespace brigade::sim
