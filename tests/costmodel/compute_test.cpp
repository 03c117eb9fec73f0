// GEMM counts and roofline times through core's kernel_seconds.
#include "costmodel/compute.hpp"

#include <gtest/gtest.h>

#include "core/program.hpp"
#include "test_hardware.hpp"

namespace brigade::cost {
namespace {

using testing::round_device;
using testing::round_profile;

// 2mnk: 2 * 64 * 32 * 16 = 65536 FLOP; batch 3: 196608.
TEST(GemmFlops, TwoMnk) {
  EXPECT_EQ(gemm_flops(64, 32, 16), 65536.0);
  EXPECT_EQ(gemm_flops(64, 32, 16, 3), 196608.0);
}

// (mk + kn + mn) elements: 64*16 + 16*32 + 64*32 = 1024 + 512 + 2048 = 3584; f32: 14336 B; bf16: 7168 B.
TEST(GemmBytes, EachOperandOnce) {
  EXPECT_EQ(gemm_bytes(64, 32, 16, DType::kF32), 14336.0);
  EXPECT_EQ(gemm_bytes(64, 32, 16, DType::kBF16), 7168.0);
  EXPECT_EQ(gemm_bytes(64, 32, 16, DType::kBF16, 2), 14336.0);
}

// Roofline (Williams et al. 2009) with GEMM efficiency 0.5, memory efficiency 0.5, launch 1 us:
// 1024^3 f32: 2^31 FLOP / (1e12 * 0.5) = 4.294967296e-3 s; bytes 3 * 2^20 * 4 = 12582912 /
// (1e11 * 0.5) = 2.5165824e-4 s; compute-bound: 1e-6 + 4.294967296e-3 = 4.295967296e-3 s.
TEST(GemmSeconds, ComputeBoundByHand) {
  const Device d = round_device();
  const DeviceProfile p = round_profile(0.5, 0.5, 1e-6);
  EXPECT_NEAR(gemm_seconds(d, p, 1024, 1024, 1024, DType::kF32), 4.295967296e-3, 1e-15);
}

// A skinny GEMM is memory-bound: m = 1, n = k = 4096, f32: 2*4096^2 = 33554432 FLOP -> 6.7108864e-5 s;
// bytes (4096 + 4096^2 + 4096) * 4 = 67141632 -> 67141632 / 5e10 = 1.34283264e-3 s; + 1e-6 launch.
TEST(GemmSeconds, MemoryBoundByHand) {
  const Device d = round_device();
  const DeviceProfile p = round_profile(0.5, 0.5, 1e-6);
  EXPECT_NEAR(gemm_seconds(d, p, 1, 4096, 4096, DType::kF32), 1.34383264e-3, 1e-15);
}

// Streaming 1 GB at 1e11 * 0.5 B/s: 0.02 s + 1e-6 launch.
TEST(MemoryBoundSeconds, ByHand) {
  EXPECT_NEAR(memory_bound_seconds(round_device(), round_profile(0.5, 0.5, 1e-6), 1e9, DType::kBF16),
              0.020001, 1e-15);
}

// A Program's GEMM task: ProgramBuilder fills FLOPs and bytes; task_seconds is gemm_seconds.
TEST(TaskSeconds, GemmTaskMatchesGemmSeconds) {
  ProgramBuilder b("t", 1);
  const StreamId s = b.stream(0, "compute");
  const TaskId g = b.add_gemm(s, 1024, 1024, 1024, DType::kF32, "mm");
  const TaskId m = b.add_memory_bound(s, 1e9, DType::kBF16, "ln");
  const TaskId x = b.add_transfer(s, 0, 1e9, "send");
  const Device d = round_device();
  const DeviceProfile p = round_profile(0.5, 0.5, 1e-6);
  EXPECT_DOUBLE_EQ(task_seconds(b.task(g), d, p), gemm_seconds(d, p, 1024, 1024, 1024, DType::kF32));
  EXPECT_NEAR(task_seconds(b.task(m), d, p), 0.020001, 1e-15);
  EXPECT_EQ(task_seconds(b.task(x), d, p), 0.0);  // a transfer's time is the network's
}

}  // namespace
}  // namespace brigade::cost
