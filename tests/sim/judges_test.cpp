// The simulator against the closed-form judge (costmodel/collectives.hpp)
// on the presets with their default profile: one collective alone on an
// idle network must take the closed form's time (docs/ARCHITECTURE.md, "the
// contract between costmodel/ and sim/"), overhead included, under both
// network models. The double binary tree is the stated exception.
#include <tuple>

#include <gtest/gtest.h>

#include "costmodel/collectives.hpp"
#include "costmodel/compute.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::rel_err;
using testing::run;

// One collective over every device of `topo`, alone on an idle network:
// the closed form's query for it and the simulated step (exact expansion).
struct Judged {
  Result<cost::CollectiveQuery> query;
  double simulated_seconds = 0;
};

Judged judge(const Topology& topo, const HardwareProfile& h, CollectiveKind kind,
             CollectiveAlgorithm alg, double bytes, NetworkModel net) {
  const int n = topo.num_devices();
  std::vector<int> group;
  ProgramBuilder b("judges", n);
  std::vector<StreamId> streams;
  for (int d = 0; d < n; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "comm"));
  }
  b.add_collective(kind, alg, std::vector<std::int32_t>(group.begin(), group.end()), bytes, streams,
                   "c");
  const Program p = build(std::move(b));
  return Judged{cost::collective_query_on(topo, h, kind, alg, group, bytes),
                run(p, topo, h, net, /*exact=*/true).step_seconds};
}

class AgainstCostModel
    : public ::testing::TestWithParam<std::tuple<CollectiveKind, CollectiveAlgorithm, int, NetworkModel>> {};

TEST_P(AgainstCostModel, SameSecondsOnAnIdleNetwork) {
  const auto [kind, alg, nodes, net] = GetParam();
  auto topo = make_preset("dgx-a100", nodes);
  ASSERT_TRUE(topo.is_ok());
  const HardwareProfile h = HardwareProfile::defaults();
  const Judged j = judge(*topo, h, kind, alg, 256.0 * 1048576, net);
  const auto& q = j.query;
  ASSERT_TRUE(q.is_ok()) << q.message();
  auto closed = cost::collective_cost(*q);
  ASSERT_TRUE(closed.is_ok()) << closed.message();
  EXPECT_LT(rel_err(j.simulated_seconds, closed->seconds), 1e-9)
      << collective_kind_name(kind) << " " << collective_algorithm_name(alg) << " on " << nodes << " node(s)";
}

INSTANTIATE_TEST_SUITE_P(
    OneNode, AgainstCostModel,
    ::testing::Combine(::testing::Values(CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                                         CollectiveKind::kReduceScatter, CollectiveKind::kBroadcast,
                                         CollectiveKind::kReduce, CollectiveKind::kAllToAll),
                       ::testing::Values(CollectiveAlgorithm::kRing, CollectiveAlgorithm::kHalvingDoubling),
                       ::testing::Values(1), ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)));

INSTANTIATE_TEST_SUITE_P(
    Trees, AgainstCostModel,
    ::testing::Combine(::testing::Values(CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                                         CollectiveKind::kBroadcast, CollectiveKind::kReduce),
                       ::testing::Values(CollectiveAlgorithm::kTree), ::testing::Values(1),
                       ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)));

INSTANTIATE_TEST_SUITE_P(
    TwoNodes, AgainstCostModel,
    ::testing::Combine(::testing::Values(CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                                         CollectiveKind::kReduceScatter),
                       ::testing::Values(CollectiveAlgorithm::kHierarchical), ::testing::Values(2),
                       ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)));

// AllToAll over two DGX A100 nodes: each rank's 7 peers on its node over
// NVLink beside its 8 peers on the other node over its NIC
// (alltoall_split_seconds; the simulator's two chains a rank).
INSTANTIATE_TEST_SUITE_P(
    TwoNodesAllToAll, AgainstCostModel,
    ::testing::Combine(::testing::Values(CollectiveKind::kAllToAll),
                       ::testing::Values(CollectiveAlgorithm::kRing), ::testing::Values(2),
                       ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)));

// The defaults with shared-memory collective steps of alpha 3 us, 5 GB/s
// copying and 4 GB/s reducing.
HardwareProfile with_step_figures() {
  HardwareProfile h = HardwareProfile::defaults();
  LinkProfile& shm = h.links[static_cast<size_t>(LinkClass::kSharedMemory)];
  shm.collective_alpha_seconds = 3e-6;
  shm.collective_bandwidth_bytes_per_second = 5e9;
  shm.collective_reduce_bandwidth_bytes_per_second = 4e9;
  return h;
}

// The same, every device 50 us per collective call.
HardwareProfile with_step_figures_and_overhead() {
  HardwareProfile h = with_step_figures();
  DeviceProfile star;
  star.model = "*";
  star.collective_overhead_seconds = 50e-6;
  h.devices = {star};
  return h;
}

// The same contract when the profile carries a collective step's own figures
// (LinkProfile::collective_*, as brigade calibrate writes them): cpu-host with
// 4 host threads, shared-memory steps of alpha 3 us, 5 GB/s copying and
// 4 GB/s reducing (below the 10 GB/s routes, so the simulator adds a channel
// of the step's own), 50 us per call.
class AgainstCostModelWithSteps
    : public ::testing::TestWithParam<std::tuple<CollectiveKind, CollectiveAlgorithm, NetworkModel>> {};

TEST_P(AgainstCostModelWithSteps, SameSecondsOnAnIdleNetwork) {
  const auto [kind, alg, net] = GetParam();
  auto topo = make_preset("cpu-host", 1, 4);
  ASSERT_TRUE(topo.is_ok());
  HardwareProfile h = with_step_figures_and_overhead();
  const Judged j = judge(*topo, h, kind, alg, 16.0 * 1048576, net);
  const auto& q = j.query;
  ASSERT_TRUE(q.is_ok()) << q.message();
  EXPECT_DOUBLE_EQ(q->intra.alpha_seconds, 3e-6);
  EXPECT_DOUBLE_EQ(q->intra.bandwidth_bytes_per_second, 5e9);
  auto closed = cost::collective_cost(*q);
  ASSERT_TRUE(closed.is_ok()) << closed.message();
  EXPECT_LT(rel_err(j.simulated_seconds, closed->seconds), 1e-9)
      << collective_kind_name(kind) << " " << collective_algorithm_name(alg);
}

INSTANTIATE_TEST_SUITE_P(
    CpuHost, AgainstCostModelWithSteps,
    ::testing::Combine(::testing::Values(CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                                         CollectiveKind::kReduceScatter, CollectiveKind::kBroadcast,
                                         CollectiveKind::kReduce, CollectiveKind::kAllToAll),
                       ::testing::Values(CollectiveAlgorithm::kRing, CollectiveAlgorithm::kHalvingDoubling),
                       ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)));

// And when the profile gives every kind steps of its own (LinkProfile::
// KindSteps): kind k's alpha (2 + k) us, its bandwidths scaled by 0.9 at
// 1 MiB and 0.5 at 64 MiB (so by 0.6 at 16 MiB). A program with two
// collectives of the kind in a row, 1 MiB then 16 MiB, on the same streams:
// each step takes its own collective's figures, so the step is the sum of
// the two closed forms.
class AgainstCostModelWithKindSteps
    : public ::testing::TestWithParam<std::tuple<CollectiveKind, NetworkModel>> {};

TEST_P(AgainstCostModelWithKindSteps, EachCollectiveAtItsOwnSize) {
  const auto [kind, net] = GetParam();
  auto topo = make_preset("cpu-host", 1, 4);
  ASSERT_TRUE(topo.is_ok());
  HardwareProfile h = with_step_figures();
  LinkProfile& shm = h.links[static_cast<size_t>(LinkClass::kSharedMemory)];
  for (int k = 0; k < kNumCollectiveKinds; ++k) {
    LinkProfile::KindSteps& ks = shm.collective_kinds[static_cast<size_t>(k)];
    ks.alpha_seconds = (2 + k) * 1e-6;
    ks.bandwidth_scale.points = {{1048576.0, 0.9}, {64 * 1048576.0, 0.5}};
  }
  const std::vector<int> group = {0, 1, 2, 3};
  ProgramBuilder b("kind-steps", 4);
  std::vector<StreamId> streams;
  for (int d = 0; d < 4; ++d) streams.push_back(b.stream(d, "comm"));
  double closed = 0;
  for (double bytes : {1048576.0, 16 * 1048576.0}) {
    b.add_collective(kind, CollectiveAlgorithm::kRing,
                     std::vector<std::int32_t>(group.begin(), group.end()), bytes, streams, "c");
    auto q = cost::collective_query_on(*topo, h, kind, CollectiveAlgorithm::kRing, group, bytes);
    ASSERT_TRUE(q.is_ok()) << q.message();
    auto c = cost::collective_cost(*q);
    ASSERT_TRUE(c.is_ok()) << c.message();
    closed += c->seconds;
  }
  const Program p = build(std::move(b));
  EXPECT_LT(rel_err(run(p, *topo, h, net, /*exact=*/true).step_seconds, closed), 1e-9)
      << collective_kind_name(kind);
}

INSTANTIATE_TEST_SUITE_P(
    CpuHost, AgainstCostModelWithKindSteps,
    ::testing::Combine(::testing::Values(CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                                         CollectiveKind::kReduceScatter, CollectiveKind::kBroadcast,
                                         CollectiveKind::kReduce, CollectiveKind::kAllToAll),
                       ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)));

// Warm collectives (LinkProfile::KindSteps::warm_*): a collective runs warm
// when nothing but collectives ran on its ranks since their previous one
// (and, at the step's start, when its ranks have no kernel or transfer at
// all: the step is one of many alike); warm, it pays no call overhead and
// takes the warm alpha and scale. By hand, 2 host threads, 16 MiB ring
// AllReduce (2 steps of M/2 = 8388608 B, the first reducing):
//   warm: alpha 1 us, scale 1.5 -> 7.5 GB/s copying, 6 GB/s reducing:
//         2 us + 8388608/6e9 + 8388608/7.5e9 = 2.5185824 ms;
//   cold: alpha 3 us, 5 and 4 GB/s, overhead 50 us:
//         50 us + 6 us + 8388608/4e9 + 8388608/5e9 = 3.8308736 ms.
TEST(WarmCollectives, BackToBackIsWarmAfterAKernelCold) {
  auto topo = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(topo.is_ok());
  HardwareProfile h = with_step_figures_and_overhead();
  LinkProfile::KindSteps& ar =
      h.links[static_cast<size_t>(LinkClass::kSharedMemory)].collective_kinds[static_cast<size_t>(
          CollectiveKind::kAllReduce)];
  ar.warm_alpha_seconds = 1e-6;
  ar.warm_bandwidth_scale.points = {{1048576.0, 1.5}, {64 * 1048576.0, 1.5}};
  const double m = 16 * 1048576.0;
  const double warm = 2.5185824e-3, cold = 3.8308736e-3;
  const std::vector<int> group = {0, 1};
  for (bool w : {true, false}) {
    auto q = cost::collective_query_on(*topo, h, CollectiveKind::kAllReduce,
                                       CollectiveAlgorithm::kRing, group, m, w);
    ASSERT_TRUE(q.is_ok()) << q.message();
    auto c = cost::collective_cost(*q);
    ASSERT_TRUE(c.is_ok());
    EXPECT_LT(rel_err(c->seconds, w ? warm : cold), 1e-9) << (w ? "warm" : "cold");
  }
  // kernels: none, before the first AllReduce only, before each.
  for (int kernels : {0, 1, 2}) {
    ProgramBuilder b("warm", 2);
    std::vector<StreamId> streams = {b.stream(0, "s"), b.stream(1, "s")};
    for (int i = 0; i < 2; ++i) {
      if (i < kernels)
        for (StreamId s : streams) b.add_memory_bound(s, 1e8, DType::kF32, "k");
      b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1}, m, streams,
                       "ar");
    }
    const Program p = build(std::move(b));
    const double k = cost::task_seconds(p.task(0), topo->device(0), h.for_device(topo->device(0)));
    const double want = kernels == 0 ? 2 * warm : kernels == 1 ? k + cold + warm : 2 * k + 2 * cold;
    for (NetworkModel net : {NetworkModel::kIdeal, NetworkModel::kFlow})
      for (bool exact : {true, false})  // shortcuts: off for warm collectives
        EXPECT_LT(rel_err(run(p, *topo, h, net, exact).step_seconds, want), 1e-9)
            << kernels << " kernels";
  }
}

}  // namespace
}  // namespace brigade::sim

namespace brigade::sim {
namespace {

// Every compute kind takes what the closed form says for it
// (cost::task_seconds: the roofline of core/profile.hpp's kernel_seconds
// with the task's kind). A streaming kernel that also counts FLOPs is not a
// GEMM: it pays neither the GEMM curve nor the cold-operand term. By hand,
// for the one below: 1e8 bytes at 1e11 B/s = 1 ms (its 5e8 FLOP at
// 19.5 TFLOP/s take 25.6 us); as a GEMM it would pay 1e8 / 1e10 = 10 ms of
// cold operands on top.
TEST(KernelKinds, EachKindTakesTheClosedFormsTime) {
  const Topology topo = testing::star(1, 1e11, 0);
  HardwareProfile h = testing::plain_profile();
  for (DeviceProfile& d : h.devices) {
    d.memory_bandwidth_bytes_per_second = 1e11;
    d.memory_efficiency = 1.0;
    d.launch_overhead_seconds = 0;
    d.gemm_cold_operand_bandwidth_bytes_per_second = 1e10;
  }
  ProgramBuilder b("kinds", 1);
  const StreamId s = b.stream(0, "compute");
  b.add_memory_bound(s, 1e8, DType::kF32, "norm", Phase::kForward, 5e8);
  b.add_gemm(s, 256, 512, 1024, DType::kF32, "mm");
  b.add_fixed(s, 3e9, 2e7, DType::kF32, "custom");
  const Program p = build(std::move(b));
  const SimResult r = run(p, topo, h);
  const DeviceProfile& dp = h.for_device(topo.device(0));
  EXPECT_LT(rel_err(r.task_end_seconds[0] - r.task_start_seconds[0], 1e-3), 1e-9);
  for (TaskId t = 0; t < 3; ++t)
    EXPECT_LT(rel_err(r.task_end_seconds[static_cast<size_t>(t)] -
                          r.task_start_seconds[static_cast<size_t>(t)],
                      cost::task_seconds(p.task(t), topo.device(0), dp)),
              1e-9)
        << compute_kind_name(p.task(t).compute);
}

// Reads and writes apart (DeviceProfile::gemm_cold_output_bandwidth): a
// forward GEMM against a 16 MiB weight (128 x 2048 x 2048) and its weight
// gradient (2048 x 2048 x 128) have the same FLOPs and bytes, but the first
// reads 15728640 B more and writes as many fewer. At 10 GB/s read and
// 40 GB/s written it takes 15728640 x (1/1e10 - 1/4e10) s = 1.179648 ms
// longer, in the simulator as in the closed form; the simulator's memo of
// kernel times must not hand one the other's.
TEST(KernelKinds, AGemmsWrittenBytesGoAtTheOutputRate) {
  const Topology topo = testing::star(1, 1e11, 0);
  HardwareProfile h = testing::plain_profile();
  for (DeviceProfile& d : h.devices) {
    d.gemm_cold_operand_bandwidth_bytes_per_second = 1e10;
    d.gemm_cold_output_bandwidth_bytes_per_second = 4e10;
  }
  ProgramBuilder b("reads-writes", 1);
  const StreamId s = b.stream(0, "compute");
  b.add_gemm(s, 128, 2048, 2048, DType::kF32, "forward");
  b.add_gemm(s, 2048, 2048, 128, DType::kF32, "weight gradient");
  b.add_gemm(s, 128, 2048, 2048, DType::kF32, "forward again");
  const Program p = build(std::move(b));
  ASSERT_EQ(p.task(0).flops, p.task(1).flops);
  ASSERT_EQ(p.task(0).bytes, p.task(1).bytes);
  const SimResult r = run(p, topo, h);
  auto took = [&](size_t t) { return r.task_end_seconds[t] - r.task_start_seconds[t]; };
  EXPECT_NEAR(took(0) - took(1), 1.179648e-3, 1e-12);
  EXPECT_NEAR(took(2), took(0), 1e-15);
  const DeviceProfile& dp = h.for_device(topo.device(0));
  for (TaskId t = 0; t < 3; ++t)
    EXPECT_LT(
        rel_err(took(static_cast<size_t>(t)), cost::task_seconds(p.task(t), topo.device(0), dp)),
        1e-9);
}

}  // namespace
}  // namespace brigade::sim
