// Known answers for the alpha-beta collective formulas (docs/ARCHITECTURE.md,
// "Collective algorithms"; docs/costmodel.md). Each number is worked out by
// hand in the comment next to it.
#include "costmodel/collectives.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace brigade::cost {
namespace {

constexpr double kGiB = 1073741824.0;
constexpr double kKiB = 1024.0;

// Relative comparison for times that are sums of very different magnitudes.
void expect_near_rel(double actual, double expected, double rel = 1e-12) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * rel + 1e-18) << "expected " << expected;
}

// The seed's ring AllReduce, T = 2(N-1)alpha + 2(N-1)/N beta M (Patarasuk & Yuan 2009),
// N = 8, alpha = 5 us, B = 100 GB/s, M = 1 GiB:
//   2*7*5e-6 = 7e-5 s;  2*7/8 * 2^30 / 1e11 = 1.75 * 0.01073741824 = 0.01879048192 s;
//   T = 0.01886048192 s.
TEST(RingAllReduce, SeedExampleByHand) {
  expect_near_rel(ring_allreduce_seconds(8, kGiB, {5e-6, 100e9}), 0.01886048192);
}

// Quiz Q3: the latency term 2(N-1)alpha does not depend on M. The alpha part
// (T with alpha minus T without) is 2*7*5e-6 = 7e-5 s for 1 KiB and for 1 GiB.
TEST(RingAllReduce, LatencyTermIndependentOfMessageSize) {
  for (double m : {kKiB, kGiB}) {
    const double alpha_part =
        ring_allreduce_seconds(8, m, {5e-6, 100e9}) - ring_allreduce_seconds(8, m, {0, 100e9});
    EXPECT_NEAR(alpha_part, 7e-5, 1e-15) << m;
  }
  const double small = ring_allreduce_seconds(8, kKiB, {5e-6, 100e9}) -
                       ring_allreduce_seconds(8, kKiB, {0, 100e9});
  const double large = ring_allreduce_seconds(8, kGiB, {5e-6, 100e9}) -
                       ring_allreduce_seconds(8, kGiB, {0, 100e9});
  EXPECT_NEAR(small, large, 1e-15);
}

// One rank moves nothing: 2*0*alpha + 0 = 0.
TEST(RingAllReduce, OneRankIsFree) { EXPECT_EQ(ring_allreduce_seconds(1, kGiB, {5e-6, 1e9}), 0.0); }

// Double binary tree: 2 ceil(lg N) alpha + 2(N-1)/N M beta.
// N = 8: 2*3*5e-6 = 3e-5; + 0.01879048192 -> 0.01882048192 s.
// N = 6: ceil(lg 6) = 3: 3e-5 + 2*5/6 * 0.01073741824 = 3e-5 + 0.017895697066... = 0.017925697066... s.
TEST(TreeAllReduce, ByHand) {
  expect_near_rel(tree_allreduce_seconds(8, kGiB, {5e-6, 100e9}), 0.01882048192);
  expect_near_rel(tree_allreduce_seconds(6, kGiB, {5e-6, 100e9}), 0.017925697066666666);
}

// Rabenseifner: 2 lg N alpha + 2(N-1)/N M beta; N = 8 equals the tree's value: 0.01882048192 s.
TEST(HalvingDoublingAllReduce, ByHand) {
  expect_near_rel(halving_doubling_allreduce_seconds(8, kGiB, {5e-6, 100e9}), 0.01882048192);
}

// Hierarchical, 2 nodes x 8 ranks, M = 1 GiB, intra 2 us / 240 GB/s, inter 5 us / 23 GB/s:
//   intra: 2*7*2e-6 = 2.8e-5; 2*7/8 * 2^30/2.4e11 = 1.75 * 0.00447392426666.. = 0.00782936746666..
//   inter: 2*1*5e-6 = 1e-5;  2*1/2 * (2^30/8)/2.3e10 = 134217728/2.3e10 = 0.00583555339130..
//   total 0.013702920857971014 s.
TEST(HierarchicalAllReduce, ByHand) {
  expect_near_rel(hierarchical_allreduce_seconds(2, 8, kGiB, {2e-6, 240e9}, {5e-6, 23e9}),
                  0.013702920857971014);
}

// One node: only the intra-node terms, i.e. ReduceScatter + AllGather = a ring AllReduce.
TEST(HierarchicalAllReduce, OneNodeIsTheIntraRing) {
  expect_near_rel(hierarchical_allreduce_seconds(1, 8, kGiB, {5e-6, 100e9}, {0, 0}), 0.01886048192);
}

// Ring AllGather / ReduceScatter: (N-1)alpha + (N-1)/N M beta; N = 4, 1 us, 10 GB/s, 400 MB:
//   3e-6 + 0.75 * 0.04 = 0.030003 s. Tree is the ring for these kinds.
TEST(RingAllGather, ByHand) {
  expect_near_rel(ring_allgather_seconds(4, 400e6, {1e-6, 10e9}), 0.030003);
  expect_near_rel(ring_reducescatter_seconds(4, 400e6, {1e-6, 10e9}), 0.030003);
}

// Recursive doubling / halving: lg N alpha + (N-1)/N M beta: 2e-6 + 0.03 = 0.030002 s.
TEST(HalvingDoublingAllGather, ByHand) {
  expect_near_rel(halving_doubling_allgather_seconds(4, 400e6, {1e-6, 10e9}), 0.030002);
  expect_near_rel(halving_doubling_reducescatter_seconds(4, 400e6, {1e-6, 10e9}), 0.030002);
}

// Hierarchical AllGather, 2 nodes x 4, M = 800 MB, intra 1 us / 100 GB/s, inter 10 us / 10 GB/s:
//   inter: 1*10e-6 + 1/2 * (800e6/4)/1e10 = 1e-5 + 0.01 = 0.01001
//   intra: 3*1e-6 + 3/4 * 800e6/1e11 = 3e-6 + 0.006 = 0.006003;  total 0.016013 s.
TEST(HierarchicalAllGather, ByHand) {
  expect_near_rel(hierarchical_allgather_seconds(2, 4, 800e6, {1e-6, 100e9}, {10e-6, 10e9}), 0.016013);
  expect_near_rel(hierarchical_reducescatter_seconds(2, 4, 800e6, {1e-6, 100e9}, {10e-6, 10e9}),
                  0.016013);
}

// Broadcast / Reduce, N = 4 (5 for the tree), 1 us, 10 GB/s, 100 MB (M beta = 0.01 s):
//   chain: 3e-6 + 0.01 = 0.010003;  binomial tree, N = 5: ceil(lg 5) = 3: 3 * 0.010001 = 0.030003;
//   scatter + allgather, N = 4: 2*2*1e-6 + 2*3/4*0.01 = 0.015004.
TEST(BroadcastReduce, ByHand) {
  const AlphaBeta l{1e-6, 10e9};
  expect_near_rel(ring_broadcast_seconds(4, 100e6, l), 0.010003);
  expect_near_rel(tree_broadcast_seconds(5, 100e6, l), 0.030003);
  expect_near_rel(halving_doubling_broadcast_seconds(4, 100e6, l), 0.015004);
  expect_near_rel(ring_reduce_seconds(4, 100e6, l), 0.010003);
  expect_near_rel(tree_reduce_seconds(5, 100e6, l), 0.030003);
  expect_near_rel(halving_doubling_reduce_seconds(4, 100e6, l), 0.015004);
  // A chain of one rank has no hop.
  EXPECT_EQ(ring_broadcast_seconds(1, 100e6, l), 0.0);
}

// Pairwise AllToAll: (N-1)(alpha + M/N beta); N = 4, M = 400 MB: 3 * (1e-6 + 0.01) = 0.030003 s.
TEST(AllToAll, ByHand) { expect_near_rel(alltoall_seconds(4, 400e6, {1e-6, 10e9}), 0.030003); }

// Split between a node's fabric and the network (NCCL's grouped sends at
// once): 16 ranks, 400 MB, blocks of 25 MB; 7 local peers at 1 us and 100
// GB/s: 7 x (1e-6 + 2.5e-4) = 1.757e-3 s; 8 remote at 5 us and 25 GB/s: 8 x
// (5e-6 + 1e-3) = 8.04e-3 s; the slower, 8.04e-3 s (the pairwise exchange
// at the network's link: 15 x 1.005e-3 = 0.015075 s).
TEST(AllToAll, SplitByHand) {
  expect_near_rel(alltoall_split_seconds(16, 7, 8, 400e6, {1e-6, 100e9}, {5e-6, 25e9}), 8.04e-3);
  expect_near_rel(alltoall_split_seconds(16, 7, 8, 400e6, {1e-6, 10e9}, {5e-6, 25e9}), 0.017507);
  expect_near_rel(alltoall_seconds(16, 400e6, {5e-6, 25e9}), 0.015075);
}

// Point to point: alpha + M/B = 5e-6 + 1e9/25e9 = 0.040005 s.
TEST(PointToPoint, ByHand) { expect_near_rel(p2p_seconds(1e9, {5e-6, 25e9}), 0.040005); }

// Reductions (docs/costmodel.md, "Reductions"): reducing M bytes is 3M bytes of
// the receiver's memory traffic (read its operand, read the message, write the sum).
//  - A copy engine (NVLink, PCIe, IB, Ethernet) overlaps it: min(B, B_mem/3).
//    B = 100 GB/s, B_mem = 1.5 TB/s: min(1e11, 5e11) = 1e11 (free, as NCCL on NVLink);
//    B_mem = 150 GB/s: min(1e11, 5e10) = 5e10.
//  - Shared memory: the receiving core copies, then reads its operand, in series:
//    B = 20 GB/s, B_mem = 60 GB/s: 1 / (1/2e10 + 1/6e10) = 1 / (5e-11 + 1.6667e-11) = 1.5e10.
//  - No memory bandwidth (0): reducing is free, B.
TEST(ReduceBandwidth, ByHand) {
  expect_near_rel(reduce_bandwidth_bytes_per_second(100e9, LinkClass::kNvlink, 1.5e12), 100e9);
  expect_near_rel(reduce_bandwidth_bytes_per_second(100e9, LinkClass::kPcie, 150e9), 50e9);
  expect_near_rel(reduce_bandwidth_bytes_per_second(20e9, LinkClass::kSharedMemory, 60e9), 15e9);
  EXPECT_EQ(reduce_bandwidth_bytes_per_second(20e9, LinkClass::kSharedMemory, 0), 20e9);
  EXPECT_EQ(reduce_bandwidth_bytes_per_second(20e9, LinkClass::kInfiniband, 0), 20e9);
}

// The reduce steps at beta_r = 1/5e9 = 2e-10 s/B, the others at beta = 1/1e10 = 1e-10.
// N = 4, alpha = 1 us, M = 400 MB: (N-1)/N M = 3e8 B.
//   ring AllReduce: 2*3*1e-6 + 3e8*(2e-10 + 1e-10) = 6e-6 + 0.09 = 0.090006 s;
//   ring ReduceScatter: 3e-6 + 3e8*2e-10 = 0.060003; halving: 2e-6 + 0.06 = 0.060002;
//   AllGather moves no sum: 3e-6 + 3e8*1e-10 = 0.030003 (unchanged).
// N = 8, M = 400 MB, (N-1)/N M = 3.5e8: tree and halving-doubling AllReduce
//   2*3*1e-6 + 3.5e8*3e-10 = 6e-6 + 0.105 = 0.105006 s.
// Reduce, M = 100 MB: chain N = 4: 3e-6 + 1e8*2e-10 = 0.020003; binomial tree N = 5:
//   3*(1e-6 + 0.02) = 0.060003; halving + gather N = 4: 4e-6 + 0.75e8*3e-10 = 0.022504.
// Broadcast does not reduce: chain N = 4: 3e-6 + 1e8*1e-10 = 0.010003.
TEST(ReductionSteps, ByHand) {
  const AlphaBeta l{1e-6, 10e9, 5e9};
  expect_near_rel(ring_allreduce_seconds(4, 400e6, l), 0.090006);
  expect_near_rel(ring_reducescatter_seconds(4, 400e6, l), 0.060003);
  expect_near_rel(halving_doubling_reducescatter_seconds(4, 400e6, l), 0.060002);
  expect_near_rel(ring_allgather_seconds(4, 400e6, l), 0.030003);
  expect_near_rel(tree_allreduce_seconds(8, 400e6, l), 0.105006);
  expect_near_rel(halving_doubling_allreduce_seconds(8, 400e6, l), 0.105006);
  expect_near_rel(ring_reduce_seconds(4, 100e6, l), 0.020003);
  expect_near_rel(tree_reduce_seconds(5, 100e6, l), 0.060003);
  expect_near_rel(halving_doubling_reduce_seconds(4, 100e6, l), 0.022504);
  expect_near_rel(ring_broadcast_seconds(4, 100e6, l), 0.010003);
}

// Hierarchical, 2 nodes x 4, M = 800 MB, intra 1 us / 100 GB/s / reduce 50 GB/s,
// inter 10 us / 10 GB/s / reduce 5 GB/s:
//   ReduceScatter: intra 3e-6 + 0.75*8e8/5e10 = 0.012003; inter 1e-5 + 0.5*2e8/5e9 = 0.02001;
//     total 0.032013 s.
//   AllReduce: intra ReduceScatter 0.012003 + intra AllGather 3e-6 + 0.75*8e8/1e11 = 0.006003;
//     inter ring AllReduce of M/g = 2e8 on 2 nodes: 2e-5 + 0.5*2e8*(2e-10 + 1e-10) = 0.03002;
//     total 0.048026 s.
TEST(HierarchicalReductions, ByHand) {
  const AlphaBeta intra{1e-6, 100e9, 50e9}, inter{10e-6, 10e9, 5e9};
  expect_near_rel(hierarchical_reducescatter_seconds(2, 4, 800e6, intra, inter), 0.032013);
  expect_near_rel(hierarchical_allreduce_seconds(2, 4, 800e6, intra, inter), 0.048026);
}

// nccl-tests doc/PERFORMANCE.md: AllReduce 2(n-1)/n = 14/8 = 1.75; AllGather,
// ReduceScatter, AllToAll (n-1)/n = 0.875; Broadcast, Reduce 1.
TEST(BusBandwidthFactor, NcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kAllToAll, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kReduce, 8), 1.0);
}

// The seed example through the checked query, with 6 us of overhead:
//   T = 0.01886048192 + 6e-6 = 0.01886648192 s; algBw = 2^30 / T = 56.9129...e9 B/s;
//   busBw = 1.75 algBw.
TEST(CollectiveCost, SeedExampleWithBandwidths) {
  CollectiveQuery q;
  q.ranks = 8;
  q.bytes = kGiB;
  q.intra = {5e-6, 100e9};
  q.overhead_seconds = 6e-6;
  auto c = collective_cost(q);
  ASSERT_TRUE(c.is_ok()) << c.message();
  expect_near_rel(c->seconds, 0.01886648192);
  expect_near_rel(c->alg_bandwidth_bytes_per_second, kGiB / 0.01886648192);
  expect_near_rel(c->bus_bandwidth_bytes_per_second, 1.75 * kGiB / 0.01886648192);
}

CollectiveQuery query(CollectiveKind k, CollectiveAlgorithm a, int n, double m, AlphaBeta l,
                      int g = 0) {
  CollectiveQuery q;
  q.kind = k;
  q.algorithm = a;
  q.ranks = n;
  q.bytes = m;
  q.intra = l;
  q.ranks_per_node = g;
  q.inter = {10e-6, 1e9};
  return q;
}

// Every algorithm of every kind dispatches to its formula.
TEST(CollectiveCost, DispatchesEveryAlgorithm) {
  const AlphaBeta l{1e-6, 10e9};
  auto cost = [&](CollectiveKind k, CollectiveAlgorithm a, int n, double m) {
    auto c = collective_cost(query(k, a, n, m, l, 4));
    EXPECT_TRUE(c.is_ok()) << c.message();
    return c.is_ok() ? c->seconds : -1.0;
  };
  using K = CollectiveKind;
  using A = CollectiveAlgorithm;
  EXPECT_EQ(cost(K::kAllReduce, A::kTree, 8, 1e6), tree_allreduce_seconds(8, 1e6, l));
  EXPECT_EQ(cost(K::kAllReduce, A::kHalvingDoubling, 8, 1e6),
            halving_doubling_allreduce_seconds(8, 1e6, l));
  EXPECT_EQ(cost(K::kAllReduce, A::kHierarchical, 8, 1e6),
            hierarchical_allreduce_seconds(2, 4, 1e6, l, {10e-6, 1e9}));
  EXPECT_EQ(cost(K::kAllGather, A::kTree, 8, 1e6), ring_allgather_seconds(8, 1e6, l));
  EXPECT_EQ(cost(K::kReduceScatter, A::kHierarchical, 8, 1e6),
            hierarchical_reducescatter_seconds(2, 4, 1e6, l, {10e-6, 1e9}));
  EXPECT_EQ(cost(K::kBroadcast, A::kTree, 5, 1e6), tree_broadcast_seconds(5, 1e6, l));
  EXPECT_EQ(cost(K::kReduce, A::kHalvingDoubling, 4, 1e6), halving_doubling_reduce_seconds(4, 1e6, l));
  EXPECT_EQ(cost(K::kAllToAll, A::kHalvingDoubling, 6, 1e6), alltoall_seconds(6, 1e6, l));
}

struct BadQuery {
  const char* name;
  CollectiveQuery query;
  const char* message;
};

void PrintTo(const BadQuery& b, std::ostream* os) { *os << b.name; }

class CollectiveCostErrors : public ::testing::TestWithParam<BadQuery> {};

TEST_P(CollectiveCostErrors, ExactMessage) {
  auto c = collective_cost(GetParam().query);
  ASSERT_FALSE(c.is_ok());
  EXPECT_EQ(c.message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Messages, CollectiveCostErrors,
    ::testing::Values(
        BadQuery{"no_ranks",
                 query(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 0, 1, {0, 1e9}),
                 "found 0 ranks; expected at least 1"},
        BadQuery{"negative_bytes",
                 query(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 4, -5, {0, 1e9}),
                 "found -5 bytes; expected a size >= 0"},
        BadQuery{"zero_bandwidth",
                 query(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 4, 1, {0, 0}),
                 "found bandwidth 0 B/s; expected a positive bandwidth"},
        BadQuery{"negative_alpha",
                 query(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 4, 1, {-1e-6, 1e9}),
                 "found alpha -1e-06 s; expected a latency >= 0"},
        BadQuery{"halving_doubling_6",
                 query(CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 6, 1,
                       {0, 1e9}),
                 "found 6 ranks for halving-doubling allreduce; expected a power of two (1, 2, 4, "
                 "8, ...)"},
        BadQuery{"hierarchical_12_by_8",
                 query(CollectiveKind::kAllReduce, CollectiveAlgorithm::kHierarchical, 12, 1,
                       {0, 1e9}, 8),
                 "found 12 ranks with 8 ranks per node; expected a multiple of 8 for "
                 "hierarchical allreduce"},
        BadQuery{"hierarchical_broadcast",
                 query(CollectiveKind::kBroadcast, CollectiveAlgorithm::kHierarchical, 8, 1,
                       {0, 1e9}, 4),
                 "found algorithm 'hierarchical' for broadcast; expected ring, tree or "
                 "halving-doubling (hierarchical is defined for allreduce, allgather and "
                 "reducescatter)"}));

TEST(CollectiveCostErrors, InterBandwidthCheckedOnlyAcrossNodes) {
  CollectiveQuery q = query(CollectiveKind::kAllGather, CollectiveAlgorithm::kHierarchical, 8, 1,
                            {0, 1e9}, 4);
  q.inter = {0, -1};
  auto c = collective_cost(q);
  ASSERT_FALSE(c.is_ok());
  EXPECT_EQ(c.message(), "found inter-node bandwidth -1 B/s; expected a positive bandwidth");
  q.ranks_per_node = 8;  // one node: no inter-node link is used
  EXPECT_TRUE(collective_cost(q).is_ok());
}

// dgx-a100 (core/presets.cpp) in the alpha-beta model: NVSwitch routes are 2
// links of 1 us and 300 GB/s; the default profile's NVLink efficiency is 0.8
// and alpha defers to the route: alpha = 2e-6 s, B = 240e9 B/s, no call
// overhead (the presets' GPUs: core/presets_profiles.cpp).
// Ring AllReduce of 1 GiB on 8: 14*2e-6 + 1.75*2^30/2.4e11
//   = 2.8e-5 + 0.0078293674666.. = 0.007857367466666668 s.
// (NCCL's model, the default on this preset: tests/costmodel/nccl_model_test.cpp.)
TEST(CollectiveQueryOn, DgxA100Ring) {
  auto topo = make_preset("dgx-a100");
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  ASSERT_TRUE(topo->validate().is_ok());
  HardwareProfile prof = HardwareProfile::defaults();
  prof.collective_model = CollectiveModel::kAlphaBeta;
  auto q = collective_query_on(*topo, prof, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                               {0, 1, 2, 3, 4, 5, 6, 7}, kGiB);
  ASSERT_TRUE(q.is_ok()) << q.message();
  EXPECT_DOUBLE_EQ(q->intra.alpha_seconds, 2e-6);
  EXPECT_DOUBLE_EQ(q->intra.bandwidth_bytes_per_second, 240e9);
  // HBM 2039 GB/s x 0.85 / 3 = 577.7 GB/s > 240 GB/s: the reduction hides behind NVLink.
  EXPECT_DOUBLE_EQ(q->intra.reduce_bandwidth_bytes_per_second, 240e9);
  EXPECT_DOUBLE_EQ(q->overhead_seconds, 0.0);
  auto c = collective_cost(*q);
  ASSERT_TRUE(c.is_ok()) << c.message();
  expect_near_rel(c->seconds, 0.007857367466666668);
}

// Two DGX A100 nodes joined by HDR InfiniBand (25 GB/s x 0.92 = 23 GB/s, 5 us):
// hierarchical, g = 8: 0.013702920857971014 (the hand case above), no call
// overhead (hierarchical is the alpha-beta model's own algorithm).
TEST(CollectiveQueryOn, TwoNodeHierarchical) {
  auto topo = make_preset("dgx-a100", 2);
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  ASSERT_TRUE(topo->validate().is_ok());
  std::vector<int> group;
  for (int i = 0; i < 16; ++i) group.push_back(i);
  auto q = collective_query_on(*topo, HardwareProfile::defaults(), CollectiveKind::kAllReduce,
                               CollectiveAlgorithm::kHierarchical, group, kGiB);
  ASSERT_TRUE(q.is_ok()) << q.message();
  EXPECT_EQ(q->ranks_per_node, 8);
  EXPECT_DOUBLE_EQ(q->inter.alpha_seconds, 5e-6);
  EXPECT_DOUBLE_EQ(q->inter.bandwidth_bytes_per_second, 23e9);
  auto c = collective_cost(*q);
  ASSERT_TRUE(c.is_ok()) << c.message();
  expect_near_rel(c->seconds, 0.013702920857971014);
  // The flat alpha-beta ring over both nodes is bound by its two inter-node hops.
  HardwareProfile alpha_beta = HardwareProfile::defaults();
  alpha_beta.collective_model = CollectiveModel::kAlphaBeta;
  auto flat = collective_query_on(*topo, alpha_beta, CollectiveKind::kAllReduce,
                                  CollectiveAlgorithm::kRing, group, kGiB);
  ASSERT_TRUE(flat.is_ok());
  EXPECT_DOUBLE_EQ(flat->intra.bandwidth_bytes_per_second, 23e9);
}

// AllToAll over two DGX A100 nodes: each rank's 7 peers on its node over
// NVLink (2 us, 300 GB/s x 0.8 = 240 GB/s) beside its 8 on the other node
// over its HDR NIC (5 us, 23 GB/s). 16 MiB, blocks of 1 MiB:
//   local 7 x (2e-6 + 1048576 / 240e9) = 7 x 6.369066..e-6 = 4.45834..e-5 s
//   remote 8 x (5e-6 + 1048576 / 23e9) = 8 x 5.0590260..e-5 = 4.0472208..e-4 s
// the network's, 4.047220869565217e-4 s; the pairwise exchange at the
// group's slowest link took 15 x 5.0590260..e-5 = 7.588539e-4 s. A group
// inside one node, or of one rank a node, stays the pairwise exchange.
TEST(CollectiveQueryOn, AllToAllAcrossTwoNodes) {
  auto topo = make_preset("dgx-a100", 2);
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  std::vector<int> group;
  for (int i = 0; i < 16; ++i) group.push_back(i);
  const double m = 16.0 * 1048576;
  auto q = collective_query_on(*topo, HardwareProfile::defaults(), CollectiveKind::kAllToAll,
                               CollectiveAlgorithm::kAuto, group, m);
  ASSERT_TRUE(q.is_ok()) << q.message();
  EXPECT_EQ(q->local_peers, 7);
  EXPECT_EQ(q->remote_peers, 8);
  EXPECT_DOUBLE_EQ(q->intra.alpha_seconds, 2e-6);
  EXPECT_DOUBLE_EQ(q->intra.bandwidth_bytes_per_second, 240e9);
  EXPECT_DOUBLE_EQ(q->inter.alpha_seconds, 5e-6);
  EXPECT_DOUBLE_EQ(q->inter.bandwidth_bytes_per_second, 23e9);
  auto c = collective_cost(*q);
  ASSERT_TRUE(c.is_ok()) << c.message();
  expect_near_rel(c->seconds, 4.047220869565217e-4);
  // One node: the pairwise exchange, 8 ranks, blocks of 2 MiB:
  // 7 x (2e-6 + 2097152 / 240e9) = 7 x (2e-6 + 8.738133e-6) = 7.516693e-5 s.
  auto one = collective_query_on(*topo, HardwareProfile::defaults(), CollectiveKind::kAllToAll,
                                 CollectiveAlgorithm::kAuto, {0, 1, 2, 3, 4, 5, 6, 7}, m);
  ASSERT_TRUE(one.is_ok());
  EXPECT_EQ(one->remote_peers, 0);
  expect_near_rel(collective_cost(*one)->seconds, 7 * (2e-6 + 2097152 / 240e9));
  // One rank a node: the pairwise exchange over the network.
  auto rail = collective_query_on(*topo, HardwareProfile::defaults(), CollectiveKind::kAllToAll,
                                  CollectiveAlgorithm::kAuto, {0, 8}, m);
  ASSERT_TRUE(rail.is_ok());
  EXPECT_EQ(rail->local_peers, 0);
  expect_near_rel(collective_cost(*rail)->seconds, 5e-6 + 8388608 / 23e9);
}

// cpu-host (core/presets.cpp): shared-memory routes of 10 GB/s (efficiency 1), alpha
// 1 us; host threads stream at 10 GB/s x 0.8 = 8 GB/s (core/profile.cpp). A reduction
// over shared memory: 1 / (1/1e10 + 1/8e9) = 1 / 2.25e-10 = 4.4444e9 B/s.
// Ring AllReduce of 16 MiB on 2, overhead 2 us:
//   2*1e-6 + 0.5*16777216*(2.25e-10 + 1e-10) + 2e-6 = 2e-6 + 0.0027262976 + 2e-6 = 0.0027302976 s.
TEST(CollectiveQueryOn, CpuHostReduction) {
  auto topo = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  ASSERT_TRUE(topo->validate().is_ok());
  auto q = collective_query_on(*topo, HardwareProfile::defaults(), CollectiveKind::kAllReduce,
                               CollectiveAlgorithm::kRing, {0, 1}, 16777216.0);
  ASSERT_TRUE(q.is_ok()) << q.message();
  EXPECT_DOUBLE_EQ(q->intra.bandwidth_bytes_per_second, 10e9);
  expect_near_rel(q->intra.reduce_bandwidth_bytes_per_second, 1.0 / 2.25e-10);
  auto c = collective_cost(*q);
  ASSERT_TRUE(c.is_ok()) << c.message();
  expect_near_rel(c->seconds, 0.0027302976);
}

// The defaults with shared-memory collective steps of alpha 10 us, 5 GB/s
// copying and 4 GB/s reducing, and 100 us per call (the two tests below).
HardwareProfile with_step_figures() {
  HardwareProfile h = HardwareProfile::defaults();
  LinkProfile& shm = h.links[static_cast<size_t>(LinkClass::kSharedMemory)];
  shm.collective_alpha_seconds = 10e-6;
  shm.collective_bandwidth_bytes_per_second = 5e9;
  shm.collective_reduce_bandwidth_bytes_per_second = 4e9;
  for (DeviceProfile& d : h.devices) d.collective_overhead_seconds = 100e-6;
  return h;
}

// A profile with a collective step's own figures for shared memory (as
// brigade calibrate fits them): alpha 10 us, 5 GB/s copying, 4 GB/s reducing,
// 100 us per call. Ring AllReduce of M = 16e6 B on 2 host threads:
//   100e-6 + 2*10e-6 + 0.5*16e6*(1/4e9 + 1/5e9) = 120e-6 + 2e-3 + 1.6e-3 = 3.72e-3 s.
// A step never beats the route alone: 20 GB/s copying is capped at the 10 GB/s route.
TEST(CollectiveQueryOn, CollectiveStepFiguresReplaceTheMessageModel) {
  auto topo = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  ASSERT_TRUE(topo->validate().is_ok());
  HardwareProfile h = with_step_figures();
  LinkProfile& shm = h.links[static_cast<size_t>(LinkClass::kSharedMemory)];
  auto q = collective_query_on(*topo, h, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                               {0, 1}, 16e6);
  ASSERT_TRUE(q.is_ok()) << q.message();
  EXPECT_DOUBLE_EQ(q->intra.alpha_seconds, 10e-6);
  EXPECT_DOUBLE_EQ(q->intra.bandwidth_bytes_per_second, 5e9);
  EXPECT_DOUBLE_EQ(q->intra.reduce_bandwidth_bytes_per_second, 4e9);
  auto c = collective_cost(*q);
  ASSERT_TRUE(c.is_ok()) << c.message();
  expect_near_rel(c->seconds, 3.72e-3);

  shm.collective_bandwidth_bytes_per_second = 20e9;
  const AlphaBeta capped = collective_step_alpha_beta(topo->route(0, 1), *topo, h, 1,
                                                      CollectiveKind::kAllReduce, 16e6);
  EXPECT_DOUBLE_EQ(capped.bandwidth_bytes_per_second, 10e9);
  // Without them, the message model: the route's alpha (1 us), 10 GB/s and the
  // shared-memory reduction 1 / (1/1e10 + 1/8e9) (CpuHostReduction above).
  const AlphaBeta plain =
      collective_step_alpha_beta(topo->route(0, 1), *topo, HardwareProfile::defaults(), 1,
                                 CollectiveKind::kAllReduce, 16e6);
  EXPECT_DOUBLE_EQ(plain.alpha_seconds, 1e-6);
  EXPECT_DOUBLE_EQ(plain.bandwidth_bytes_per_second, 10e9);
  expect_near_rel(plain.reduce_bandwidth_bytes_per_second, 1.0 / 2.25e-10);
}

// Issue 18 item 8: a profile that gives a class's collective_bandwidth but no
// collective_reduce_bandwidth let reducing steps run at the route's full
// bandwidth (1 GiB AllReduce on 8 A100s at 230 GB/s: 7.29 ms in `cost`, 8.14
// ms in `brigade collective`). A reducing step delivers no faster than a
// copying one: its bandwidth derives from the collective bandwidth as the
// message model's derives from the route's (docs/costmodel.md, "Reductions"),
// min(230 GB/s, HBM 2039 GB/s x 0.85 / 3) = 230 GB/s on an A100. Ring
// AllReduce in the alpha-beta model, no call overhead: 2*7*2e-6 + 7/8 * 2^30
// * 2 / 230e9 = 28e-6 + 8.16978e-3 s, what `brigade collective --alpha 2us
// --bandwidth 230GB/s` says.
TEST(CollectiveQueryOn, ReducingStepsDeriveFromTheCollectiveBandwidth) {
  auto topo = make_preset("dgx-a100");
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  HardwareProfile h = HardwareProfile::defaults();
  h.collective_model = CollectiveModel::kAlphaBeta;
  h.links[static_cast<size_t>(LinkClass::kNvlink)].collective_bandwidth_bytes_per_second = 230e9;
  auto q = collective_query_on(*topo, h, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                               {0, 1, 2, 3, 4, 5, 6, 7}, kGiB);
  ASSERT_TRUE(q.is_ok()) << q.message();
  EXPECT_DOUBLE_EQ(q->intra.bandwidth_bytes_per_second, 230e9);
  EXPECT_DOUBLE_EQ(q->intra.reduce_bandwidth_bytes_per_second, 230e9);
  auto c = collective_cost(*q);
  ASSERT_TRUE(c.is_ok()) << c.message();
  expect_near_rel(c->seconds, ring_allreduce_seconds(8, kGiB, {2e-6, 230e9, 230e9}));
  // Over shared memory the receiving core reduces after it copies, in series:
  // 1 / (1/5e9 + 1/8e9) with a 5 GB/s collective bandwidth on cpu-host.
  auto cpu = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(cpu.is_ok());
  HardwareProfile hc = HardwareProfile::defaults();
  hc.links[static_cast<size_t>(LinkClass::kSharedMemory)].collective_bandwidth_bytes_per_second = 5e9;
  const AlphaBeta ab = collective_step_alpha_beta(cpu->route(0, 1), *cpu, hc, 1,
                                                  CollectiveKind::kAllReduce, 16e6);
  EXPECT_DOUBLE_EQ(ab.bandwidth_bytes_per_second, 5e9);
  expect_near_rel(ab.reduce_bandwidth_bytes_per_second, 1.0 / (1 / 5e9 + 1 / 8e9));
}

// A kind's own steps (LinkProfile::KindSteps, as brigade calibrate fits
// them per kind): AllReduce steps of alpha 4 us whose bandwidths scale by
// 0.8 at M = 1 MiB and 0.4 at M = 16 MiB, interpolated in log M. On top of
// the figures above (5 GB/s copying, 4 GB/s reducing, 100 us per call), a
// ring AllReduce of M = 4 MiB = 4194304 B on 2 host threads:
//   log2(4 MiB) is halfway from log2(1 MiB) to log2(16 MiB): scale 0.6;
//   100e-6 + 2*4e-6 + 0.5*4194304*(1/(0.6*4e9) + 1/(0.6*5e9))
//   = 108e-6 + 2097152*(4.1666667e-10 + 3.3333333e-10) = 108e-6 + 1.572864e-3
//   = 1.680864e-3 s.
// Other kinds keep the fit over all kinds: AllGather of the same M takes
// 100e-6 + 10e-6 + 2097152 / 5e9 = 529.4304e-6 s. Beyond the last point the
// scale stays 0.4; at M = 64 MiB a 0.4 x 20 GB/s copy is not capped by the
// 10 GB/s route but a scale of 1 would be.
TEST(CollectiveQueryOn, KindStepsScaleWithSize) {
  auto topo = make_preset("cpu-host", 1, 2);
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  ASSERT_TRUE(topo->validate().is_ok());
  HardwareProfile h = with_step_figures();
  LinkProfile& shm = h.links[static_cast<size_t>(LinkClass::kSharedMemory)];
  LinkProfile::KindSteps& ar = shm.collective_kinds[static_cast<size_t>(CollectiveKind::kAllReduce)];
  ar.alpha_seconds = 4e-6;
  ar.bandwidth_scale.points = {{1048576.0, 0.8}, {16777216.0, 0.4}};
  const std::vector<int> group = {0, 1};
  auto cost_of = [&](CollectiveKind k, double m) {
    auto q = collective_query_on(*topo, h, k, CollectiveAlgorithm::kRing, group, m);
    EXPECT_TRUE(q.is_ok()) << q.message();
    auto c = collective_cost(*q);
    EXPECT_TRUE(c.is_ok()) << c.message();
    return c->seconds;
  };
  expect_near_rel(cost_of(CollectiveKind::kAllReduce, 4194304.0), 1.680864e-3);
  expect_near_rel(cost_of(CollectiveKind::kAllGather, 4194304.0), 529.4304e-6);
  shm.collective_bandwidth_bytes_per_second = 20e9;
  const AlphaBeta big = collective_step_alpha_beta(topo->route(0, 1), *topo, h, 1,
                                                   CollectiveKind::kAllReduce, 64 * 1048576.0);
  EXPECT_DOUBLE_EQ(big.alpha_seconds, 4e-6);
  EXPECT_DOUBLE_EQ(big.bandwidth_bytes_per_second, 8e9);
  EXPECT_DOUBLE_EQ(big.reduce_bandwidth_bytes_per_second, 1.6e9);
  const AlphaBeta other = collective_step_alpha_beta(topo->route(0, 1), *topo, h, 1,
                                                     CollectiveKind::kAllGather, 64 * 1048576.0);
  EXPECT_DOUBLE_EQ(other.bandwidth_bytes_per_second, 10e9);
  // A warm alpha alone: warm steps take it and the cold scale, and a warm
  // query pays no call overhead; cold ones are unchanged.
  ar.warm_alpha_seconds = 1e-6;
  const AlphaBeta warm = collective_step_alpha_beta(topo->route(0, 1), *topo, h, 1,
                                                    CollectiveKind::kAllReduce, 64 * 1048576.0, true);
  EXPECT_DOUBLE_EQ(warm.alpha_seconds, 1e-6);
  EXPECT_DOUBLE_EQ(warm.bandwidth_bytes_per_second, 8e9);
  auto wq = collective_query_on(*topo, h, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                group, 4194304.0, true);
  ASSERT_TRUE(wq.is_ok());
  EXPECT_EQ(wq->overhead_seconds, 0.0);
  auto cq = collective_query_on(*topo, h, CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                group, 4194304.0);
  ASSERT_TRUE(cq.is_ok());
  EXPECT_EQ(cq->overhead_seconds, 100e-6);
}

// One rule for which algorithm is modelled (modelled_algorithm), read by
// collective_cost, the simulator's expansion and the CLI.
TEST(ModelledAlgorithm, FallbacksAndTheirReasons) {
  using A = CollectiveAlgorithm;
  using K = CollectiveKind;
  std::string why;
  EXPECT_EQ(modelled_algorithm(K::kAllGather, A::kTree, &why), A::kRing);
  EXPECT_EQ(why, "tree is defined for allreduce, broadcast and reduce");
  EXPECT_EQ(modelled_algorithm(K::kAllToAll, A::kHalvingDoubling, &why), A::kRing);
  EXPECT_EQ(why, "alltoall is modelled as N-1 pairwise exchanges; the algorithm does not apply");
  for (CollectiveKind k : {K::kAllReduce, K::kAllGather, K::kReduceScatter, K::kBroadcast,
                           K::kReduce, K::kAllToAll})
    for (CollectiveAlgorithm a : defined_algorithms(k))
      EXPECT_EQ(modelled_algorithm(k, a), a) << collective_kind_name(k);  // defined: as asked
  EXPECT_EQ(defined_algorithm_list(K::kAllGather), "ring, halving-doubling or hierarchical");
  EXPECT_EQ(defined_algorithm_list(K::kAllToAll), "ring");
  // A tree AllGather costs what a ring one does.
  CollectiveQuery q;
  q.kind = K::kAllGather;
  q.ranks = 8;
  q.bytes = 1e9;
  q.intra = AlphaBeta{5e-6, 100e9, 0};
  auto ring = collective_cost(q);
  q.algorithm = A::kTree;
  auto tree = collective_cost(q);
  ASSERT_TRUE(ring.is_ok() && tree.is_ok());
  EXPECT_EQ(tree->seconds, ring->seconds);
}

TEST(ModelledAlgorithm, CheckSaysWhichPartIsWrong) {
  AlgorithmFault fault = AlgorithmFault::kNone;
  Status s = check_algorithm(CollectiveKind::kReduce, CollectiveAlgorithm::kHierarchical, 8, &fault);
  EXPECT_EQ(fault, AlgorithmFault::kAlgorithm);
  EXPECT_EQ(s.message(),
            "found algorithm 'hierarchical' for reduce; expected ring, tree or halving-doubling "
            "(hierarchical is defined for allreduce, allgather and reducescatter)");
  s = check_algorithm(CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 6, &fault);
  EXPECT_EQ(fault, AlgorithmFault::kRanks);
  EXPECT_EQ(s.message(),
            "found 6 ranks for halving-doubling allreduce; expected a power of two (1, 2, 4, 8, ...)");
  // AllToAll is pairwise exchange whatever is asked: any rank count.
  EXPECT_TRUE(check_algorithm(CollectiveKind::kAllToAll, CollectiveAlgorithm::kHalvingDoubling, 6,
                              &fault)
                  .is_ok());
  EXPECT_EQ(fault, AlgorithmFault::kNone);
  // Hierarchical, given its ranks per node: whole nodes of at least one rank.
  s = check_algorithm(CollectiveKind::kAllGather, CollectiveAlgorithm::kHierarchical, 6, &fault, 4);
  EXPECT_EQ(fault, AlgorithmFault::kRanksPerNode);
  EXPECT_EQ(s.message(),
            "found 6 ranks with 4 ranks per node; expected a multiple of 4 for hierarchical "
            "allgather");
  s = check_algorithm(CollectiveKind::kAllGather, CollectiveAlgorithm::kHierarchical, 6, &fault, 0);
  EXPECT_EQ(fault, AlgorithmFault::kRanksPerNode);
  EXPECT_EQ(s.message(), "found 0 ranks per node; expected at least 1 for hierarchical allgather");
  EXPECT_TRUE(check_algorithm(CollectiveKind::kAllGather, CollectiveAlgorithm::kHierarchical, 6,
                              &fault, 3)
                  .is_ok());
  EXPECT_EQ(fault, AlgorithmFault::kNone);
}

TEST(CollectiveQueryOn, Errors) {
  auto topo = make_preset("dgx-a100", 2);
  ASSERT_TRUE(topo.is_ok());
  const HardwareProfile prof = HardwareProfile::defaults();
  auto k = CollectiveKind::kAllReduce;
  auto empty = collective_query_on(*topo, prof, k, CollectiveAlgorithm::kRing, {}, 1);
  EXPECT_EQ(empty.message(), "found an empty group; expected at least 1 device");
  auto out = collective_query_on(*topo, prof, k, CollectiveAlgorithm::kRing, {0, 16}, 1);
  EXPECT_EQ(out.message(), "found device 16 in the group; expected a device id in 0..15");
  auto twice = collective_query_on(*topo, prof, k, CollectiveAlgorithm::kRing, {3, 3}, 1);
  EXPECT_EQ(twice.message(), "found device 3 twice in the group; expected distinct devices");
  auto uneven = collective_query_on(*topo, prof, k, CollectiveAlgorithm::kHierarchical,
                                    {0, 1, 2, 8}, 1);
  EXPECT_EQ(uneven.message(),
            "found 1 ranks on node 1 and 3 on node 0; expected the same number of ranks on every "
            "node for hierarchical allreduce");
}

// A one-device group: no links, nothing to move; only the call overhead
// remains, which is 0 for the presets' GPUs (core/presets_profiles.cpp).
TEST(CollectiveQueryOn, OneDevice) {
  auto topo = make_preset("h200x1");
  ASSERT_TRUE(topo.is_ok());
  auto q = collective_query_on(*topo, HardwareProfile::defaults(), CollectiveKind::kAllReduce,
                               CollectiveAlgorithm::kRing, {0}, kGiB);
  ASSERT_TRUE(q.is_ok()) << q.message();
  auto c = collective_cost(*q);
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_DOUBLE_EQ(c->seconds, 0.0);
  EXPECT_DOUBLE_EQ(c->bus_bandwidth_bytes_per_second, 0.0);
}

}  // namespace
}  // namespace brigade::cost
