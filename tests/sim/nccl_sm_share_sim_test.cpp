// NCCL's kernels take SMs, in the simulator (docs/simulator.md; core/
// profile.hpp, nccl_sm_share): while a collective NCCL runs on c channels is
// in flight on a device of s SMs, that device's kernels on all of their SMs
// run at 1 - c/s of their rate, their ends moved as collectives start and
// end. On one DGX A100 (108 SMs; a one-node ring of 24 channels) a GEMM
// beside an AllReduce of 1 GiB, both from time 0, ends where the closed form
// says (kernel_beside_collective_seconds), worked again here by hand.
#include <algorithm>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "costmodel/collectives.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::kGiB;
using testing::rel_err;
using testing::run;

struct Beside {
  TaskId gemm = -1, rank0 = -1;
  Program program;
};

// Device 0 runs an n x n x n bf16 GEMM (sm_held `held`) on `compute` and every
// device of the node its rank of an AllReduce of `bytes` on `tp`, from time 0.
Beside gemm_beside_allreduce(std::int64_t n, double bytes, int held = 0) {
  ProgramBuilder b("beside", 8);
  Beside out{};
  out.gemm = b.add_gemm(b.stream(0, "compute"), n, n, n, DType::kBF16, "gemm");
  b.task(out.gemm).sm_held = static_cast<std::uint8_t>(held);
  std::vector<std::int32_t> group;
  std::vector<StreamId> streams;
  for (int d = 0; d < 8; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "tp"));
  }
  const CollectiveId c = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto,
                                          group, bytes, streams, "allreduce");
  out.rank0 = b.collective_task(c, 0);
  out.program = build(std::move(b));
  return out;
}

// The GEMM's time alone: the same program without the collective.
double alone(const Topology& t, const HardwareProfile& h, std::int64_t n, int held = 0) {
  ProgramBuilder b("alone", 8);
  const TaskId g = b.add_gemm(b.stream(0, "compute"), n, n, n, DType::kBF16, "gemm");
  b.task(g).sm_held = static_cast<std::uint8_t>(held);
  const Program p = build(std::move(b));
  return run(p, t, h, NetworkModel::kIdeal, true).task_end_seconds[static_cast<size_t>(g)];
}

TEST(NcclSmShareSim, AGemmBesideAnAllReduceRunsOnTheSmsLeft) {
  auto t = make_preset("dgx-a100");
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = HardwareProfile::defaults();
  // The collective's channels, as both judges read them: 24 for 1 GiB on
  // one node (the preset's table), so r = 24 / 108.
  std::vector<int> group{0, 1, 2, 3, 4, 5, 6, 7};
  auto q = cost::collective_query_on(*t, h, CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto,
                                     group, kGiB);
  ASSERT_TRUE(q.is_ok()) << q.message();
  ASSERT_TRUE(q->nccl);
  ASSERT_EQ(q->nccl_sm_channels, 24);
  const double r = 24.0 / 108.0;
  // Two GEMMs: one that ends inside the collective (4096^3, ~0.5 ms against
  // ~8 ms) and one that outlasts it (24576^3, ~110 ms).
  for (const std::int64_t n : {std::int64_t{4096}, std::int64_t{24576}}) {
    const Beside x = gemm_beside_allreduce(n, kGiB);
    const double g = alone(*t, h, n);
    for (const auto net : {NetworkModel::kIdeal, NetworkModel::kFlow})
      for (const bool exact : {true, false}) {
        const SimResult res = run(x.program, *t, h, net, exact);
        const double c = res.task_end_seconds[static_cast<size_t>(x.rank0)];
        ASSERT_GT(c, 0.0);
        // Inside: all of it at 1 - r; outlasting: (1 - r) c done beside it,
        // the rest at the whole rate after.
        const double want = g <= (1 - r) * c ? g / (1 - r) : c + (g - (1 - r) * c);
        EXPECT_LT(rel_err(res.task_end_seconds[static_cast<size_t>(x.gemm)], want), 1e-12)
            << "n " << n << " " << network_model_name(net) << " exact " << exact << ": "
            << res.task_end_seconds[static_cast<size_t>(x.gemm)] << " vs " << want << " (g " << g
            << ", c " << c << ")";
        // Slower than alone by r of the time both run: at least 0.2 of the shorter.
        EXPECT_GT(res.task_end_seconds[static_cast<size_t>(x.gemm)], g + 0.2 * std::min(g, c));
      }
  }
}

TEST(NcclSmShareSim, AGemmThatGaveItsSmsAwayIsNotSlowedAgain) {
  // sm_held (Transformer Engine's userbuffers overlap): the GEMM already runs
  // on the SMs the communication leaves it, its time divided by sm_share.
  auto t = make_preset("dgx-a100");
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = HardwareProfile::defaults();
  const Beside x = gemm_beside_allreduce(4096, kGiB, 16);
  const double g = alone(*t, h, 4096, 16);
  const SimResult res = run(x.program, *t, h, NetworkModel::kIdeal, true);
  EXPECT_DOUBLE_EQ(res.task_end_seconds[static_cast<size_t>(x.gemm)], g);
}

TEST(NcclSmShareSim, AMeasuredSlowdownStandsInstead) {
  // A profile with a measured comm_compute_slowdown (calibrate's) keeps it
  // and the channels take nothing more: the slowdown is decided at the
  // kernel's start (docs/simulator.md, "Approximations"), when the
  // collective, issued at the same instant, is not in flight yet, so the
  // GEMM takes its own time g (under the SM share it would end at
  // g / (1 - 24/108)).
  auto t = make_preset("dgx-a100");
  ASSERT_TRUE(t.is_ok());
  HardwareProfile h = HardwareProfile::defaults();
  for (DeviceProfile& d : h.devices) d.comm_compute_slowdown = 0.1;
  const Beside x = gemm_beside_allreduce(4096, kGiB);
  const double g = alone(*t, h, 4096);
  const SimResult res = run(x.program, *t, h, NetworkModel::kIdeal, true);
  EXPECT_DOUBLE_EQ(res.task_end_seconds[static_cast<size_t>(x.gemm)], g);
}

}  // namespace
}  // namespace brigade::sim
