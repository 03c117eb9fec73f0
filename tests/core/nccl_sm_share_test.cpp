// NCCL's kernels take SMs (core/profile.hpp, nccl_sm_share and
// kernel_beside_collective_seconds; docs/costmodel.md, "NCCL's kernels take
// SMs"): a collective on c channels holds c of the device's SMs while it
// runs (one thread block a channel), and a kernel beside it runs on the
// rest. Every figure below is worked by hand.
#include <gtest/gtest.h>

#include "core/profile.hpp"

namespace brigade {
namespace {

TEST(NcclSmShare, ChannelsOverTheDevicesSms) {
  DeviceProfile a100;
  a100.sm_count = 108;
  // A one-node ring on the DGX A100 preset's 24 channels: 24 / 108 = 0.2222.
  EXPECT_DOUBLE_EQ(nccl_sm_share(a100, 24), 24.0 / 108.0);
  // Across nodes, 16 channels: 16 / 108 = 0.1481.
  EXPECT_DOUBLE_EQ(nccl_sm_share(a100, 16), 16.0 / 108.0);
  // More channels than SMs: all of them.
  EXPECT_EQ(nccl_sm_share(a100, 200), 1.0);
  // Channels not known (0): nothing taken.
  EXPECT_EQ(nccl_sm_share(a100, 0), 0.0);
}

TEST(NcclSmShare, NoneWhereTheProfileSaysOtherwise) {
  DeviceProfile d;
  d.sm_count = 0;  // SMs not known
  EXPECT_EQ(nccl_sm_share(d, 24), 0.0);
  d.sm_count = 108;
  d.comm_compute_slowdown = 0.05;  // measured: calibrate's own figure stands
  EXPECT_EQ(nccl_sm_share(d, 24), 0.0);
  d.comm_compute_slowdown = 0;
  d.comm_compute_share = 1;  // host threads: communication on the computing core
  EXPECT_EQ(nccl_sm_share(d, 24), 0.0);
}

TEST(NcclSmShare, AKernelBesideACollective) {
  // Share r = 0.25. A kernel of g = 1 ms beside a collective of c = 2 ms:
  // at 0.75 of its rate it does 1.5 ms of work in c, more than g, so it
  // ends at g / 0.75 = 1.3333 ms, inside the collective.
  EXPECT_DOUBLE_EQ(kernel_beside_collective_seconds(1e-3, 2e-3, 0.25), 1e-3 / 0.75);
  // g = 3 ms: 1.5 ms done during the collective, 1.5 ms after it: 3.5 ms,
  // g + r c.
  EXPECT_DOUBLE_EQ(kernel_beside_collective_seconds(3e-3, 2e-3, 0.25), 3.5e-3);
  // Exactly at the boundary, g = 0.75 c: g / 0.75 = c = g + r c.
  EXPECT_DOUBLE_EQ(kernel_beside_collective_seconds(1.5e-3, 2e-3, 0.25), 2e-3);
  // All SMs taken: the kernel waits for the collective: g + c.
  EXPECT_DOUBLE_EQ(kernel_beside_collective_seconds(1e-3, 2e-3, 1.0), 3e-3);
  // Nothing taken, or nothing beside it: g.
  EXPECT_EQ(kernel_beside_collective_seconds(1e-3, 2e-3, 0.0), 1e-3);
  EXPECT_EQ(kernel_beside_collective_seconds(1e-3, 0.0, 0.25), 1e-3);
  // The DGX A100's ring (24 of 108 SMs) beside a GEMM as long as itself,
  // 1 ms each: 1 + 24/108 = 1.2222 ms, the bound docs/costmodel.md states
  // (at most 22% of the hidden time comes back).
  EXPECT_DOUBLE_EQ(kernel_beside_collective_seconds(1e-3, 1e-3, 24.0 / 108.0),
                   1e-3 + 24.0 / 108.0 * 1e-3);
}

}  // namespace
}  // namespace brigade
