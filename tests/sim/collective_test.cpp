// Known answers for collectives on an idle network: the expansion into
// flows must give the closed forms of docs/ARCHITECTURE.md ("Collective
// algorithms: the contract between costmodel/ and sim/") wherever no two
// concurrent flows share a channel.
#include <cmath>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include "core/trace.hpp"
#include "sim/simulator.hpp"
#include "sim/simulator_detail.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::kGiB;
using testing::plain_profile;
using testing::rel_err;
using testing::run;
using testing::star;

// One collective over devices 0..n-1, one "comm" stream each.
Program one_collective(int n, CollectiveKind kind, CollectiveAlgorithm alg, double bytes, int root = 0) {
  ProgramBuilder b("one", n);
  std::vector<std::int32_t> group;
  std::vector<StreamId> streams;
  for (int d = 0; d < n; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "comm"));
  }
  const CollectiveId c = b.add_collective(kind, alg, group, bytes, streams, "coll");
  b.collective(c).root = root;
  return build(std::move(b));
}

// ---- ring AllReduce: 2(N-1)alpha + 2(N-1)/N * M/B (+ the overhead) ---------------------

TEST(RingAllReduce, HandWorkedEightRanksOneGiB) {
  // Patarasuk & Yuan 2009. N = 8, M = 2^30 B, alpha = 2 us, B = 100 GB/s,
  // overhead 6 us:
  //   2*7*2e-6                 = 28e-6
  //   2*7/8 * 2^30 / 1e11      = 1.75 * 0.01073741824 = 0.01879048192
  //   total + 6e-6             = 0.01882448192 s
  const Topology t = star(8, 100e9, 2e-6);
  const HardwareProfile h = plain_profile(6e-6);
  const Program p = one_collective(8, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, kGiB);
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const SimResult r = run(p, t, h, net, /*exact=*/true);
    EXPECT_LT(rel_err(r.step_seconds, 0.01882448192), 1e-12) << network_model_name(net);
    // 2(N-1) steps of N flows each.
    EXPECT_EQ(r.flows, 2 * 7 * 8);
  }
}

TEST(RingAllReduce, DgxA100PresetWithDefaultProfile) {
  // The preset in the alpha-beta model: NVSwitch links 300 GB/s per direction
  // (x 0.8 achieved by the default profile = 240 GB/s) and 1 us + 1 us
  // latency (alpha = 2 us); the presets' GPUs pay no call overhead of their
  // own (core/presets_profiles.cpp). M = 1 GiB:
  //   28e-6 + 1.75 * 2^30 / 240e9 = 28e-6 + 0.0078293913...
  // (NCCL's model on the same preset: tests/sim/nccl_collective_test.cpp.)
  auto t = make_preset("dgx-a100");
  ASSERT_TRUE(t.is_ok());
  HardwareProfile h = HardwareProfile::defaults();
  h.collective_model = CollectiveModel::kAlphaBeta;
  const Program p = one_collective(8, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, kGiB);
  const double want = 28e-6 + 1.75 * kGiB / 240e9;
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const SimResult r = run(p, *t, h, net, true);
    EXPECT_LT(rel_err(r.step_seconds, want), 1e-9);
  }
}

class RingGrid : public ::testing::TestWithParam<std::tuple<int, double, NetworkModel>> {};

TEST_P(RingGrid, EqualsClosedForm) {
  const auto [n, m, net] = GetParam();
  const double alpha = 3e-6, bw = 50e9, overhead = 5e-6;
  const Topology t = star(n, bw, alpha);
  const HardwareProfile h = plain_profile(overhead);
  const Program p = one_collective(n, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, m);
  // Patarasuk & Yuan 2009: 2(N-1)alpha + 2(N-1)/N * M * beta.
  const double want = 2.0 * (n - 1) * alpha + 2.0 * (n - 1) / n * m / bw + overhead;
  const SimResult r = run(p, t, h, net, true);
  EXPECT_LT(rel_err(r.step_seconds, want), 1e-9) << "N=" << n << " M=" << m;
  // Every device is in flight the whole step; nothing is computed.
  for (const DeviceStats& d : r.devices) {
    EXPECT_LT(rel_err(d.comm_seconds, r.step_seconds), 1e-12);
    EXPECT_LT(rel_err(d.exposed_comm_seconds, r.step_seconds), 1e-12);
    EXPECT_EQ(d.busy_seconds, 0);
  }
  // Each uplink carries 2(N-1) chunks of M/N.
  EXPECT_LT(rel_err(r.links[0].bytes, 2.0 * (n - 1) * m / n), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, RingGrid,
    ::testing::Combine(::testing::Values(2, 3, 4, 5, 8, 13, 16, 32, 64),
                       ::testing::Values(1024.0, 1048576.0, kGiB),
                       ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)),
    [](const auto& param_info) {
      return "N" + std::to_string(std::get<0>(param_info.param)) + "_M" +
             std::to_string(static_cast<long long>(std::get<1>(param_info.param))) + "_" +
             std::string(network_model_name(std::get<2>(param_info.param)));
    });

// ---- the other algorithms on an idle star ------------------------------------------------

struct Case {
  const char* name;
  CollectiveKind kind;
  CollectiveAlgorithm alg;
  int n;
  int root;
  // Closed form in units of alpha and M*beta: a * alpha + b * M * beta.
  double a, b;
};

class ClosedForms : public ::testing::TestWithParam<std::tuple<Case, NetworkModel>> {};

TEST_P(ClosedForms, ExpansionEqualsClosedForm) {
  const auto [c, net] = GetParam();
  const double alpha = 2e-6, bw = 100e9, m = 64 * 1048576.0;
  const Topology t = star(c.n, bw, alpha);
  const Program p = one_collective(c.n, c.kind, c.alg, m, c.root);
  const SimResult r = run(p, t, plain_profile(), net, true);
  const double want = c.a * alpha + c.b * m / bw;
  EXPECT_LT(rel_err(r.step_seconds, want), 1e-9) << c.name;
}

// Coefficients from docs/ARCHITECTURE.md's table, N = 8 (lg N = 3), N = 6
// (ceil(lg 6) = 3) and N = 5 (ceil(lg 5) = 3):
const Case kCases[] = {
    // Rabenseifner (Thakur et al. 2005): 2 lg N alpha + 2(N-1)/N M beta = 6a + 1.75b.
    {"allreduce_hd_8", CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 8, 0, 6, 1.75},
    // Ring AllGather/ReduceScatter: (N-1) alpha + (N-1)/N M beta = 7a + 0.875b.
    {"allgather_ring_8", CollectiveKind::kAllGather, CollectiveAlgorithm::kRing, 8, 0, 7, 0.875},
    {"allgather_tree_8", CollectiveKind::kAllGather, CollectiveAlgorithm::kTree, 8, 0, 7, 0.875},
    {"reducescatter_ring_6", CollectiveKind::kReduceScatter, CollectiveAlgorithm::kRing, 6, 0, 5, 5.0 / 6},
    // Recursive doubling / halving: lg N alpha + (N-1)/N M beta = 3a + 0.875b.
    {"allgather_hd_8", CollectiveKind::kAllGather, CollectiveAlgorithm::kHalvingDoubling, 8, 0, 3, 0.875},
    {"reducescatter_hd_8", CollectiveKind::kReduceScatter, CollectiveAlgorithm::kHalvingDoubling, 8, 0, 3, 0.875},
    // Pipelined chain: (N-1) alpha + M beta.
    {"broadcast_ring_6_root2", CollectiveKind::kBroadcast, CollectiveAlgorithm::kRing, 6, 2, 5, 1},
    {"reduce_ring_5_root4", CollectiveKind::kReduce, CollectiveAlgorithm::kRing, 5, 4, 4, 1},
    // Binomial tree: ceil(lg N)(alpha + M beta) = 3a + 3b.
    {"broadcast_tree_6_root1", CollectiveKind::kBroadcast, CollectiveAlgorithm::kTree, 6, 1, 3, 3},
    {"reduce_tree_5", CollectiveKind::kReduce, CollectiveAlgorithm::kTree, 5, 0, 3, 3},
    // van de Geijn: 2 lg N alpha + 2(N-1)/N M beta = 6a + 1.75b.
    {"broadcast_hd_8_root3", CollectiveKind::kBroadcast, CollectiveAlgorithm::kHalvingDoubling, 8, 3, 6, 1.75},
    {"reduce_hd_8_root5", CollectiveKind::kReduce, CollectiveAlgorithm::kHalvingDoubling, 8, 5, 6, 1.75},
    // Pairwise AllToAll: (N-1)(alpha + M/N beta) = 5a + 5/6 b.
    {"alltoall_6", CollectiveKind::kAllToAll, CollectiveAlgorithm::kRing, 6, 0, 5, 5.0 / 6},
    // Double binary tree on 2 ranks: 2 ceil(lg 2) alpha + 2(1/2) M beta = 2a + 1b
    // (the two trees use opposite directions of each link: no sharing).
    {"allreduce_tree_2", CollectiveKind::kAllReduce, CollectiveAlgorithm::kTree, 2, 0, 2, 1},
};

// "allreduce_ring_8_flow": a table case's name and the network model.
const auto case_and_network_name = [](const auto& info) {
  return std::string(std::get<0>(info.param).name) + "_" +
         std::string(network_model_name(std::get<1>(info.param)));
};

INSTANTIATE_TEST_SUITE_P(
    Table, ClosedForms,
    ::testing::Combine(::testing::ValuesIn(kCases),
                       ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)),
    case_and_network_name);

TEST(Hierarchical, AllReduceOnTwoDgxNodesEqualsClosedForm) {
  // cluster(2, dgx-a100): g = 8 ranks per node, n = 2 nodes. Inside a node
  // alpha_in = 2 us, B_in = 300 GB/s; across, every GPU has its own 25 GB/s
  // NIC and alpha_out = 5 us (profile efficiency 1 here). Closed form:
  //   2(g-1)a_in + 2(g-1)/g M/B_in + 2(n-1)a_out + 2(n-1)/n (M/g)/B_out
  auto t = make_preset("dgx-a100", 2);
  ASSERT_TRUE(t.is_ok());
  const double m = kGiB;
  const double want = 2 * 7 * 2e-6 + 2 * 7.0 / 8 * m / 300e9 + 2 * 1 * 5e-6 + 2 * 1.0 / 2 * (m / 8) / 25e9;
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const Program p = one_collective(16, CollectiveKind::kAllReduce, CollectiveAlgorithm::kHierarchical, m);
    const SimResult r = run(p, *t, plain_profile(), net, true);
    EXPECT_LT(rel_err(r.step_seconds, want), 1e-9);
  }
}

TEST(Hierarchical, AllGatherAndReduceScatterEqualClosedForm) {
  // (n-1)a_out + (n-1)/n (M/g)/B_out + (g-1)a_in + (g-1)/g M/B_in, both orders.
  auto t = make_preset("dgx-a100", 2);
  ASSERT_TRUE(t.is_ok());
  const double m = kGiB;
  const double want = 1 * 5e-6 + 0.5 * (m / 8) / 25e9 + 7 * 2e-6 + 7.0 / 8 * m / 300e9;
  for (auto kind : {CollectiveKind::kAllGather, CollectiveKind::kReduceScatter}) {
    const Program p = one_collective(16, kind, CollectiveAlgorithm::kHierarchical, m);
    const SimResult r = run(p, *t, plain_profile(), NetworkModel::kFlow, true);
    EXPECT_LT(rel_err(r.step_seconds, want), 1e-9) << collective_kind_name(kind);
  }
}

TEST(DoubleBinaryTree, StaysWithinItsStatedToleranceOfTheClosedForm) {
  // The closed form 2 ceil(lg N) alpha + 2(N-1)/N M beta is the ideal
  // schedule. In the expansion each rank sends M/2 up each of the two trees
  // at once, so its uplink carries M per phase instead of (N-1)/N M, and with
  // max-min sharing the bandwidth term approaches 2 M beta: the flow model
  // lies between the closed form and the closed form with the bandwidth term
  // multiplied by N/(N-1) (plus at most ceil(lg N) alphas of cut-through skew
  // per phase). Without sharing (ideal) each flow runs at B: at least M beta.
  const int n = 8;
  const double alpha = 2e-6, bw = 100e9, m = kGiB;
  const Topology t = star(n, bw, alpha);
  const Program p = one_collective(n, CollectiveKind::kAllReduce, CollectiveAlgorithm::kTree, m);
  const double closed = 2 * 3 * alpha + 2.0 * (n - 1) / n * m / bw;
  const SimResult flow = run(p, t, plain_profile(), NetworkModel::kFlow, true);
  EXPECT_GE(flow.step_seconds, closed * (1 - 1e-9));
  // Upper bound: bandwidth term x N/(N-1), plus ceil(lg N) alphas per phase.
  // (Measured: closed 18.80 ms, flow 21.48 ms, ideal 10.75 ms.)
  const double upper = 2 * 3 * alpha + 2.0 * (n - 1) / n * m / bw * n / (n - 1) + 2 * 3 * alpha;
  EXPECT_LE(flow.step_seconds, upper * (1 + 1e-9));
  const SimResult ideal = run(p, t, plain_profile(), NetworkModel::kIdeal, true);
  EXPECT_GE(ideal.step_seconds, m / bw);
  EXPECT_LE(ideal.step_seconds, closed);
}

TEST(Collective, HalvingDoublingNeedsPowerOfTwo) {
  // The same words as costmodel's collective_cost.
  const Topology t = star(6, 100e9, 2e-6);
  const Program p = one_collective(6, CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 1024);
  SimOptions o;
  auto r = simulate(p, t, plain_profile(), o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "program 'one': collective 0 (task 0 'coll'): found 6 ranks for halving-doubling "
            "allreduce; expected a power of two (1, 2, 4, 8, ...)");
}

TEST(Collective, HierarchicalIsForAllReduceAllGatherReduceScatter) {
  auto t = make_preset("dgx-a100", 2);
  ASSERT_TRUE(t.is_ok());
  const Program p = one_collective(16, CollectiveKind::kBroadcast, CollectiveAlgorithm::kHierarchical, 1024);
  auto r = simulate(p, *t, plain_profile(), SimOptions{});
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "program 'one': collective 0 (task 0 'coll'): found algorithm 'hierarchical' for "
            "broadcast; expected ring, tree or halving-doubling (hierarchical is defined for "
            "allreduce, allgather and reducescatter)");
  // Nodes holding different numbers of ranks: 8 on node 0, 2 on node 1.
  const Program q = one_collective(10, CollectiveKind::kAllReduce, CollectiveAlgorithm::kHierarchical, 1024);
  auto r2 = simulate(q, *t, plain_profile(), SimOptions{});
  ASSERT_FALSE(r2.is_ok());
  EXPECT_EQ(r2.message(),
            "program 'one': collective 0 (task 0 'coll'): found 2 ranks on node 1 and 8 on node 0; "
            "expected the same number of ranks on every node for hierarchical allreduce");
}

TEST(Collective, StartsWhenAllRanksAreReadyAndEndsTogether) {
  // Rank 0 computes first; rank 1 is ready at 0. The collective starts when
  // rank 0 arrives and ends on both ranks at the same time.
  const Topology t = star(2, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("barrier", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId c1 = b.stream(1, "compute");
  const TaskId k = b.add_gemm(c0, 4096, 4096, 4096, DType::kBF16, "mm");
  const CollectiveId c = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1},
                                          1e6, {c0, c1}, "ar");
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, h);
  const TaskId r0 = p.collectives()[static_cast<size_t>(c)].tasks[0];
  const TaskId r1 = p.collectives()[static_cast<size_t>(c)].tasks[1];
  EXPECT_EQ(r.task_start_seconds[static_cast<size_t>(r0)], r.task_end_seconds[static_cast<size_t>(k)]);
  EXPECT_EQ(r.task_start_seconds[static_cast<size_t>(r1)], r.task_end_seconds[static_cast<size_t>(k)]);
  EXPECT_EQ(r.task_end_seconds[static_cast<size_t>(r0)], r.task_end_seconds[static_cast<size_t>(r1)]);
  // 2 ranks: 2 steps of alpha + (M/2)/B after the GEMM.
  EXPECT_LT(rel_err(r.task_end_seconds[static_cast<size_t>(r0)] - r.task_start_seconds[static_cast<size_t>(r0)],
                    2 * 2e-6 + 2 * 0.5e6 / 100e9),
            1e-9);
}

// ---- reductions: steps that reduce run at the reduce bandwidth ---------------------------

// A profile whose devices stream at `memory_bandwidth` (efficiency 1): a reduction
// over a copy-engine link runs at min(B, B_mem / 3) (docs/costmodel.md, "Reductions").
HardwareProfile reducing_profile(double memory_bandwidth, double collective_overhead_seconds = 0) {
  HardwareProfile h = plain_profile(collective_overhead_seconds);
  for (auto& d : h.devices) {
    d.memory_efficiency = 1;
    d.memory_bandwidth_bytes_per_second = memory_bandwidth;
  }
  return h;
}

class ReducingClosedForms : public ::testing::TestWithParam<std::tuple<Case, NetworkModel>> {};

TEST_P(ReducingClosedForms, ExpansionEqualsClosedForm) {
  // Star of 100 GB/s links, devices streaming at 150 GB/s: reduce bandwidth
  // min(100e9, 150e9 / 3) = 50e9, so beta_r = 2 beta; b below counts M beta.
  const auto [c, net] = GetParam();
  const double alpha = 2e-6, bw = 100e9, m = 64 * 1048576.0;
  const Topology t = star(c.n, bw, alpha);
  const Program p = one_collective(c.n, c.kind, c.alg, m, c.root);
  for (bool implicit : {true, false}) {
    SimOptions o;
    o.network = net;
    o.exact = true;
    auto r = detail::simulate_with(p, t, reducing_profile(150e9), o, implicit);
    ASSERT_TRUE(r.is_ok()) << r.message();
    EXPECT_LT(rel_err(r->step_seconds, c.a * alpha + c.b * m / bw), 1e-9) << c.name << " " << implicit;
  }
}

// docs/ARCHITECTURE.md's table with beta_r = 2 beta:
const Case kReducingCases[] = {
    // Ring AllReduce: 2(N-1) alpha + (N-1)/N M (beta_r + beta): N = 2: 2a + 0.5*3 = 1.5b;
    // N = 5: 8a + 0.8*3 = 2.4b.
    {"allreduce_ring_2", CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 2, 0, 2, 1.5},
    {"allreduce_ring_5", CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 5, 0, 8, 2.4},
    // Rabenseifner: 2 lg N alpha + (N-1)/N M (beta_r + beta) = 6a + 0.875*3 = 2.625b.
    {"allreduce_hd_8", CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 8, 0, 6, 2.625},
    // Double binary tree on 2 ranks: 2a + 0.5*3 = 1.5b.
    {"allreduce_tree_2", CollectiveKind::kAllReduce, CollectiveAlgorithm::kTree, 2, 0, 2, 1.5},
    // Ring ReduceScatter: (N-1) alpha + (N-1)/N M beta_r = 5a + 2*5/6 b; tree is the ring.
    {"reducescatter_ring_6", CollectiveKind::kReduceScatter, CollectiveAlgorithm::kRing, 6, 0, 5, 10.0 / 6},
    {"reducescatter_tree_6", CollectiveKind::kReduceScatter, CollectiveAlgorithm::kTree, 6, 0, 5, 10.0 / 6},
    // Recursive halving: lg N alpha + (N-1)/N M beta_r = 3a + 1.75b.
    {"reducescatter_hd_8", CollectiveKind::kReduceScatter, CollectiveAlgorithm::kHalvingDoubling, 8, 0, 3, 1.75},
    // Reduce: chain (N-1) alpha + M beta_r = 4a + 2b; binomial tree 3(a + 2b) = 3a + 6b;
    // halving + binomial gather 2 lg N alpha + (N-1)/N M (beta_r + beta) = 6a + 2.625b.
    {"reduce_ring_5_root4", CollectiveKind::kReduce, CollectiveAlgorithm::kRing, 5, 4, 4, 2},
    {"reduce_tree_5", CollectiveKind::kReduce, CollectiveAlgorithm::kTree, 5, 0, 3, 6},
    {"reduce_hd_8_root5", CollectiveKind::kReduce, CollectiveAlgorithm::kHalvingDoubling, 8, 5, 6, 2.625},
    // Nothing reduces: unchanged.
    {"allgather_ring_8", CollectiveKind::kAllGather, CollectiveAlgorithm::kRing, 8, 0, 7, 0.875},
    {"broadcast_ring_6_root2", CollectiveKind::kBroadcast, CollectiveAlgorithm::kRing, 6, 2, 5, 1},
    {"broadcast_hd_8_root3", CollectiveKind::kBroadcast, CollectiveAlgorithm::kHalvingDoubling, 8, 3, 6, 1.75},
    {"alltoall_6", CollectiveKind::kAllToAll, CollectiveAlgorithm::kRing, 6, 0, 5, 5.0 / 6},
};

INSTANTIATE_TEST_SUITE_P(
    Table, ReducingClosedForms,
    ::testing::Combine(::testing::ValuesIn(kReducingCases),
                       ::testing::Values(NetworkModel::kIdeal, NetworkModel::kFlow)),
    case_and_network_name);

TEST(Reductions, HierarchicalEqualsClosedForm) {
  // Two DGX A100 nodes, devices streaming at 600 GB/s: inside a node the reduce
  // bandwidth is min(300e9, 600e9 / 3) = 200e9; across, the 25 GB/s NIC stays
  // the bottleneck (min(25e9, 200e9) = 25e9: free). g = 8, n = 2, M = 1 GiB:
  //   AllReduce: 7*2e-6 + 7/8 M/200e9 (ReduceScatter) + 7*2e-6 + 7/8 M/300e9 (AllGather)
  //            + 2*5e-6 + 1/2 (M/8)(1/25e9 + 1/25e9) (ring AllReduce of M/8 per rail);
  //   ReduceScatter: 7*2e-6 + 7/8 M/200e9 + 5e-6 + 1/2 (M/8)/25e9.
  auto t = make_preset("dgx-a100", 2);
  ASSERT_TRUE(t.is_ok());
  const double m = kGiB;
  const double ar = 7 * 2e-6 + 7.0 / 8 * m / 200e9 + 7 * 2e-6 + 7.0 / 8 * m / 300e9 + 2 * 5e-6 +
                    0.5 * (m / 8) * (2 / 25e9);
  const double rs = 7 * 2e-6 + 7.0 / 8 * m / 200e9 + 5e-6 + 0.5 * (m / 8) / 25e9;
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const SimResult a = run(one_collective(16, CollectiveKind::kAllReduce, CollectiveAlgorithm::kHierarchical, m),
                            *t, reducing_profile(600e9), net, true);
    EXPECT_LT(rel_err(a.step_seconds, ar), 1e-9) << network_model_name(net);
    const SimResult r = run(one_collective(16, CollectiveKind::kReduceScatter, CollectiveAlgorithm::kHierarchical, m),
                            *t, reducing_profile(600e9), net, true);
    EXPECT_LT(rel_err(r.step_seconds, rs), 1e-9) << network_model_name(net);
  }
}

TEST(Reductions, CpuHostSharedMemoryInSeries) {
  // cpu-host: 10 GB/s shared-memory routes, alpha 1 us; host threads stream at
  // 10 GB/s x 0.8 = 8 GB/s and the call costs 2 us (default profile). Over shared
  // memory the receiving thread copies, then reads its operand: reduce bandwidth
  // 1 / (1/1e10 + 1/8e9) = 1 / 2.25e-10. Ring AllReduce of 16 MiB on 2 (the same
  // number as costmodel's CollectiveQueryOn.CpuHostReduction):
  //   2*1e-6 + 0.5*16777216*(2.25e-10 + 1e-10) + 2e-6 = 0.0027302976 s.
  auto t = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(t.is_ok());
  const Program p = one_collective(2, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 16777216.0);
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow})
    for (bool implicit : {true, false}) {
      SimOptions o;
      o.network = net;
      o.exact = true;
      auto r = detail::simulate_with(p, *t, HardwareProfile::defaults(), o, implicit);
      ASSERT_TRUE(r.is_ok()) << r.message();
      EXPECT_LT(rel_err(r->step_seconds, 0.0027302976), 1e-9);
      // The reduction is no link: the links still carry 2 chunks of M/2 each way.
      EXPECT_LT(rel_err(r->links[0].bytes, 16777216.0), 1e-12);
    }
}

TEST(Reductions, GpuLinksHideTheReduction) {
  // NVLink 240 GB/s achieved vs HBM 2039 GB/s x 0.85 / 3 = 577.7 GB/s: the
  // reduce bandwidth is the link's, so a ring ReduceScatter costs what an
  // AllGather costs (nccl-tests on DGX A100: equal busBw).
  auto t = make_preset("dgx-a100");
  ASSERT_TRUE(t.is_ok());
  const HardwareProfile h = HardwareProfile::defaults();
  const SimResult rs = run(one_collective(8, CollectiveKind::kReduceScatter, CollectiveAlgorithm::kRing, kGiB),
                           *t, h, NetworkModel::kFlow, true);
  const SimResult ag = run(one_collective(8, CollectiveKind::kAllGather, CollectiveAlgorithm::kRing, kGiB),
                           *t, h, NetworkModel::kFlow, true);
  EXPECT_EQ(rs.step_seconds, ag.step_seconds);
}

// ---- the shortcut gives the full expansion's answers -------------------------------------

// Two DGX A100 nodes: tensor-parallel AllReduces on each node's compute
// streams (their NVLink channels are theirs alone: shortcut), data-parallel
// AllReduces across the nodes on "dp" streams that share the NICs with
// pipeline-style transfers on "pp" streams (not provably alone: expanded).
Program mixed_program(int layers) {
  ProgramBuilder b("mixed", 16);
  std::vector<StreamId> compute(16), dp(16), pp(16);
  for (int d = 0; d < 16; ++d) {
    compute[static_cast<size_t>(d)] = b.stream(d, "compute");
    dp[static_cast<size_t>(d)] = b.stream(d, "dp");
    pp[static_cast<size_t>(d)] = b.stream(d, "pp");
  }
  for (int node = 0; node < 2; ++node) {
    std::vector<std::int32_t> group;
    std::vector<StreamId> streams;
    for (int i = 0; i < 8; ++i) {
      group.push_back(node * 8 + i);
      streams.push_back(compute[static_cast<size_t>(node * 8 + i)]);
    }
    for (int l = 0; l < layers; ++l) {
      for (int i = 0; i < 8; ++i)
        b.add_gemm(compute[static_cast<size_t>(node * 8 + i)], 2048, 1536 + 512 * (l % 3), 4096, DType::kBF16,
                   "mm" + std::to_string(l));
      b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group,
                       (l % 2 ? 8.0 : 4.0) * 1048576, streams, "tp" + std::to_string(l));
    }
  }
  for (int i = 0; i < 8; ++i) {
    for (int l = 0; l < layers; ++l) {
      const TaskId x = b.add_transfer(pp[static_cast<size_t>(i)], 8 + i, 16e6, "send" + std::to_string(l));
      (void)x;
      b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {i, 8 + i}, 64e6,
                       {dp[static_cast<size_t>(i)], dp[static_cast<size_t>(8 + i)]}, "dp" + std::to_string(l));
    }
  }
  return build(std::move(b));
}

TEST(Shortcut, GivesTheFullExpansionsResults) {
  auto t = make_preset("dgx-a100", 2);
  ASSERT_TRUE(t.is_ok());
  // The default profile (reductions hidden behind NVLink) and one whose
  // devices reduce slower than NVLink (300 GB/s / 3 = 100 GB/s < 240 GB/s).
  HardwareProfile slow = HardwareProfile::defaults();
  for (auto& d : slow.devices) d.memory_bandwidth_bytes_per_second = 300e9 / d.memory_efficiency;
  for (const HardwareProfile& h : {HardwareProfile::defaults(), slow})
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const Program p = mixed_program(6);
    const SimResult fast = run(p, *t, h, net, /*exact=*/false);
    const SimResult full = run(p, *t, h, net, /*exact=*/true);
    // The 12 tensor-parallel collectives take the shortcut; the 48
    // data-parallel ones share NICs with the transfers and are expanded.
    EXPECT_EQ(fast.collectives_shortcut, 12);
    EXPECT_EQ(full.collectives_shortcut, 0);
    EXPECT_LT(fast.flows, full.flows);
    EXPECT_LT(rel_err(fast.step_seconds, full.step_seconds), 1e-9);
    ASSERT_EQ(fast.devices.size(), full.devices.size());
    for (size_t d = 0; d < fast.devices.size(); ++d) {
      const DeviceStats& a = fast.devices[d];
      const DeviceStats& e = full.devices[d];
      EXPECT_LT(rel_err(a.busy_seconds, e.busy_seconds), 1e-9);
      EXPECT_LT(rel_err(a.comm_seconds, e.comm_seconds), 1e-9);
      EXPECT_LT(rel_err(a.idle_seconds, e.idle_seconds), 1e-9);
      EXPECT_LT(rel_err(a.exposed_comm_seconds, e.exposed_comm_seconds), 1e-9);
      EXPECT_EQ(a.peak_memory_bytes, e.peak_memory_bytes);
    }
    for (size_t c = 0; c < fast.links.size(); ++c) {
      EXPECT_LT(rel_err(fast.links[c].bytes, full.links[c].bytes), 1e-9) << fast.links[c].name;
      EXPECT_LT(rel_err(fast.links[c].busy_seconds, full.links[c].busy_seconds), 1e-9) << fast.links[c].name;
    }
    for (size_t i = 0; i < fast.task_end_seconds.size(); ++i)
      EXPECT_LT(rel_err(fast.task_end_seconds[i], full.task_end_seconds[i]), 1e-9);
    EXPECT_EQ(fast.critical_path, full.critical_path);
  }
}

// One DGX A100 node as the transformer lowering issues its tensor
// collectives with training.tp_backward_overlap: a GEMM and a row-parallel
// AllReduce on each `compute` stream, then a ReduceScatter on the `tp`
// streams beside the next GEMM (after the GEMM before it, the GEMM after it
// waiting for it), then an AllGather on `tp` beside another. Each `tp`
// collective is spliced into `compute` (sim/shortcut.cpp): it runs between
// two compute tasks with no collective of `compute` between them, so every
// collective's NVLink channels are provably its own. `broken`: a `compute`
// AllReduce issued between the `tp` collective's two compute tasks, which
// may run at the same time as it: nothing is spliced, nothing shortcut.
Program beside_program(int layers, bool broken) {
  ProgramBuilder b("beside", 8);
  std::vector<StreamId> compute(8), tp(8);
  std::vector<std::int32_t> group;
  for (int d = 0; d < 8; ++d) {
    compute[static_cast<size_t>(d)] = b.stream(d, "compute");
    tp[static_cast<size_t>(d)] = b.stream(d, "tp");
    group.push_back(d);
  }
  auto gemms = [&](const std::string& name, std::int64_t n) {
    std::vector<TaskId> ids;
    for (int d = 0; d < 8; ++d)
      ids.push_back(b.add_gemm(compute[static_cast<size_t>(d)], 4096, n, 4096, DType::kBF16, name));
    return ids;
  };
  for (int l = 0; l < layers; ++l) {
    const std::string n = std::to_string(l);
    gemms("mm" + n, 1024);
    b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, 8.0 * 1048576,
                     compute, "ar" + n);
    const std::vector<TaskId> before = gemms("dgrad" + n, 2048);
    for (const auto& [kind, name] : {std::pair{CollectiveKind::kReduceScatter, "rs"},
                                     std::pair{CollectiveKind::kAllGather, "ag"}}) {
      const CollectiveId c = b.add_collective(kind, CollectiveAlgorithm::kRing, group,
                                              32.0 * 1048576, tp, name + n);
      for (int d = 0; d < 8; ++d)
        b.depend(b.collective_task(c, d), before[static_cast<size_t>(d)]);
      if (broken && kind == CollectiveKind::kAllGather)
        b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, 1048576,
                         compute, "between" + n);
      const std::vector<TaskId> beside = gemms("wgrad" + n, 3072);
      const std::vector<TaskId> after = gemms("next" + n, 512);
      for (int d = 0; d < 8; ++d) b.depend(after[static_cast<size_t>(d)], b.collective_task(c, d));
      static_cast<void>(beside);
    }
  }
  return build(std::move(b));
}

TEST(Shortcut, CollectivesBesideAGemmAreSplicedIntoTheComputeStream) {
  auto t = make_preset("dgx-a100", 1);
  ASSERT_TRUE(t.is_ok());
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const Program p = beside_program(3, false);
    const SimResult fast = run(p, *t, HardwareProfile::defaults(), net, /*exact=*/false);
    const SimResult full = run(p, *t, HardwareProfile::defaults(), net, /*exact=*/true);
    // All nine: three AllReduces on `compute`, six beside a GEMM on `tp`.
    EXPECT_EQ(fast.collectives_shortcut, 9);
    EXPECT_EQ(full.collectives_shortcut, 0);
    EXPECT_LT(rel_err(fast.step_seconds, full.step_seconds), 1e-9);
    for (size_t i = 0; i < fast.task_end_seconds.size(); ++i)
      EXPECT_LT(rel_err(fast.task_end_seconds[i], full.task_end_seconds[i]), 1e-9);
    for (size_t d = 0; d < fast.devices.size(); ++d)
      EXPECT_LT(rel_err(fast.devices[d].exposed_comm_seconds,
                        full.devices[d].exposed_comm_seconds),
                1e-9);
    // A `compute` collective between a `tp` one's two compute tasks may run
    // beside it on the same channels: nothing is provably alone.
    const SimResult broken = run(beside_program(3, true), *t, HardwareProfile::defaults(), net,
                                 /*exact=*/false);
    EXPECT_EQ(broken.collectives_shortcut, 0);
  }
}

// ---- rings run from counters equal rings run from the materialised schedule -------------

TEST(ImplicitRing, EqualsTheMaterialisedScheduleUnderContention) {
  // Rings of different sizes and kinds overlapping on shared channels, with
  // a transfer cutting across: the two representations must give the same
  // trace, byte for byte, under both network models.
  const Topology t = star(6, 100e9, 2e-6);
  ProgramBuilder b("rings", 6);
  std::vector<StreamId> a, c, x;
  for (int d = 0; d < 6; ++d) {
    a.push_back(b.stream(d, "a"));
    c.push_back(b.stream(d, "c"));
    x.push_back(b.stream(d, "x"));
  }
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1, 2, 3, 4, 5}, 6e8, a, "ar");
  b.add_collective(CollectiveKind::kAllGather, CollectiveAlgorithm::kRing, {4, 2, 0}, 3e8, {c[4], c[2], c[0]}, "ag");
  b.add_collective(CollectiveKind::kReduceScatter, CollectiveAlgorithm::kTree, {1, 3}, 1e8, {c[1], c[3]}, "rs");
  b.add_gemm(x[5], 4096, 4096, 4096, DType::kBF16, "mm");
  b.add_transfer(x[5], 1, 2e8, "send");
  const Program p = build(std::move(b));
  // Plain links, and devices that reduce at 150e9 / 3 = 50 GB/s < 100 GB/s.
  for (const HardwareProfile& h : {plain_profile(6e-6), reducing_profile(150e9, 6e-6)})
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    SimOptions o;
    o.network = net;
    o.record_trace = true;
    auto implicit = detail::simulate_with(p, t, h, o, true);
    auto explicit_ = detail::simulate_with(p, t, h, o, false);
    ASSERT_TRUE(implicit.is_ok() && explicit_.is_ok());
    std::ostringstream ti, te;
    ASSERT_TRUE(write_chrome_trace(implicit->trace, ti).is_ok());
    ASSERT_TRUE(write_chrome_trace(explicit_->trace, te).is_ok());
    EXPECT_EQ(ti.str(), te.str());
    EXPECT_EQ(implicit->step_seconds, explicit_->step_seconds);
    EXPECT_EQ(implicit->flows, explicit_->flows);
    EXPECT_EQ(implicit->events, explicit_->events);
  }
}

}  // namespace
}  // namespace brigade::sim
