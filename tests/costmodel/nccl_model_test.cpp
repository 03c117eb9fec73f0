// NCCL's protocols and algorithms (costmodel/nccl_model.hpp): each estimate
// and each choice against a number worked out by hand from NCCL's own tuning
// model (NVIDIA/nccl src/graph/tuning.cc at 5067397c, NCCL 2.29:
// ncclTunerConstantsDefaults, ncclTopoTuneModel, ncclTopoGetAlgoTime) with
// the presets' tables (core/presets_profiles.cpp).
//
// Units in the comments: latencies in us, bandwidths in GB/s, so that
// bytes / (GB/s) / 1e3 is us.
#include "costmodel/nccl_model.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/topology.hpp"

namespace brigade::cost {
namespace {

constexpr double kKiB = 1024.0, kMiB = 1048576.0, kGiB = 1073741824.0;

void expect_near_rel(double actual, double expected, double rel = 1e-9) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * rel + 1e-18) << "expected " << expected;
}

std::vector<int> first(int n) {
  std::vector<int> g;
  for (int i = 0; i < n; ++i) g.push_back(i);
  return g;
}

struct Case {
  Topology topology;
  HardwareProfile profile = HardwareProfile::defaults();
};

Case preset(const std::string& name, int nodes = 1) {
  auto t = make_preset(name, nodes);
  EXPECT_TRUE(t.is_ok()) << t.message();
  return Case{std::move(t).value()};
}

NcclChoice choose(const Case& c, CollectiveKind kind, double bytes,
                  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto, int ranks = 8) {
  auto r = nccl_collective(c.topology, c.profile, kind, algorithm, first(ranks), bytes);
  EXPECT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(r->has_value());
  return **r;
}

const NcclEstimate& candidate(const NcclChoice& c, NcclAlgorithm a, NcclProtocol p) {
  for (const NcclEstimate& e : c.candidates)
    if (e.algorithm == a && e.protocol == p) return e;
  ADD_FAILURE() << "no candidate " << nccl_algorithm_name(a) << "/" << nccl_protocol_name(p);
  return c.chosen;
}

std::string name(const NcclChoice& c) {
  return std::string(nccl_algorithm_name(c.chosen.algorithm)) + "/" +
         std::string(nccl_protocol_name(c.chosen.protocol));
}

// ---- estimates ------------------------------------------------------------------

// DGX A100, 8 ranks, AllReduce: nsteps = 2(8-1) = 14, algBw = busBw x 8/14.
// Graph bandwidth 12 NVLinks x 20.0 (SM80_NVLINK_BW) = 240.
//   ring LL:     lat 6.6 + 14 x 0.6 = 15.0;  busBw min(240 x 0.5, llMaxBw Ampere-N1 87.7) = 87.7
//   ring LL128:  lat 14.0 + 14 x 1.9 = 40.6; busBw 240 x 0.92 = 220.8
//   ring Simple: lat 8.4 + 14 x 3.4 = 56.0;  busBw 240
//   tree LL:     lat 6.8 + 2 x (7 x 0.6) = 15.2;  busBw 240 x 0.92 / 3.8 = 58.105
//   tree Simple: lat 8.4 + 2 x (7 x 4.0) = 64.4;  busBw 240 x 0.92 = 220.8; algBw x 1/2
TEST(NcclEstimate, DgxA100AllReduceByHand) {
  const Case c = preset("dgx-a100");
  const NcclChoice x = choose(c, CollectiveKind::kAllReduce, 64 * kKiB);
  const NcclEstimate& ll = candidate(x, NcclAlgorithm::kRing, NcclProtocol::kLL);
  expect_near_rel(ll.latency_seconds, 15.0e-6);
  expect_near_rel(ll.bus_bandwidth_bytes_per_second, 87.7e9);
  // NCCL's model: 15.0 + 65536 / 50.1143e3 = 15.0 + 1.30773 = 16.30773 us.
  expect_near_rel(ll.model_seconds, 1.6307730900798176e-05);
  // Run on 2 of the node's 24 channels (freeze 3: NCCL's enqueue, ring LL
  // 512 x 8 x 8 ranks = 32768 B a channel; NcclChannels below): algBw
  // 50.1143 x 2/24 = 4.17619, 15.0 + 65536 / 4.17619e3 = 30.69277 us.
  expect_near_rel(ll.alg_bandwidth_bytes_per_second, 87.7e9 * 8 / 14 * 2 / 24);
  expect_near_rel(ll.seconds, 15.0e-6 + 65536 / (87.7e9 * 8 / 14 * 2 / 24));
  const NcclEstimate& ll128 = candidate(x, NcclAlgorithm::kRing, NcclProtocol::kLL128);
  expect_near_rel(ll128.latency_seconds, 40.6e-6);
  expect_near_rel(ll128.bus_bandwidth_bytes_per_second, 220.8e9);
  const NcclEstimate& simple = candidate(x, NcclAlgorithm::kRing, NcclProtocol::kSimple);
  expect_near_rel(simple.latency_seconds, 56.0e-6);
  expect_near_rel(simple.bus_bandwidth_bytes_per_second, 240e9);
  const NcclEstimate& tll = candidate(x, NcclAlgorithm::kTree, NcclProtocol::kLL);
  expect_near_rel(tll.latency_seconds, 15.2e-6);
  expect_near_rel(tll.bus_bandwidth_bytes_per_second, 240e9 * 0.92 / 3.8);
  // treeCorrectionFactor[LL][log2(65536 / 64) = 10] = 0.6: algBw 58.105 / 2 x
  // 0.6, on 16 of 24 channels (tree LL 4096 B a channel).
  expect_near_rel(tll.alg_bandwidth_bytes_per_second, 240e9 * 0.92 / 3.8 / 2 * 0.6 * 16 / 24);
  const NcclEstimate& tsimple = candidate(x, NcclAlgorithm::kTree, NcclProtocol::kSimple);
  expect_near_rel(tsimple.latency_seconds, 64.4e-6);
  // No NVLS on Ampere: not available, with the reason.
  const NcclEstimate& nvls = candidate(x, NcclAlgorithm::kNvls, NcclProtocol::kSimple);
  EXPECT_FALSE(nvls.available);
  EXPECT_NE(nvls.why_not.find("no nvls"), std::string::npos) << nvls.why_not;
}

// NCCL's documented crossover on one NVLink node (NCCL docs, NCCL_PROTO: LL
// for small messages, LL128 in between, Simple for large), as its model
// computes it on DGX A100 (numbers above):
//   LL vs LL128: 15.0 + M/50.114 = 40.6 + M/126.171  ->  M = 25.6 / (1/50.114 - 1/126.171) ~ 2.13
//   MB LL128 vs Simple: 40.6 + M/126.171 = 56.0 + M/137.143  ->  M ~ 24.3 MB 64 KiB: ring LL 16.31
//   us (tree LL 15.2 + 65536/17.43e3 = 18.96) 8 MiB: ring LL128 40.6 + 8388608/126.171e3 = 107.09
//   us (Simple 117.2, LL 182.4) 256 MiB: ring Simple 56.0 + 268435456/137.143e3 = 2013.3 us (LL128
//   2168.1)
TEST(NcclChoice, DgxA100ProtocolCrossovers) {
  const Case c = preset("dgx-a100");
  EXPECT_EQ(name(choose(c, CollectiveKind::kAllReduce, 64 * kKiB)), "ring/ll");
  const NcclChoice mid = choose(c, CollectiveKind::kAllReduce, 8 * kMiB);
  EXPECT_EQ(name(mid), "ring/ll128");
  expect_near_rel(mid.chosen.seconds, 0.00010708579710144927);
  const NcclChoice big = choose(c, CollectiveKind::kAllReduce, 256 * kMiB);
  EXPECT_EQ(name(big), "ring/simple");
  expect_near_rel(big.chosen.seconds, 0.0020133418666666665);
  // Either side of the LL/LL128 crossover (2.13 MB) and the LL128/Simple one (24.3 MB).
  EXPECT_EQ(name(choose(c, CollectiveKind::kAllReduce, 1.9e6)), "ring/ll");
  EXPECT_EQ(name(choose(c, CollectiveKind::kAllReduce, 2.4e6)), "ring/ll128");
  EXPECT_EQ(name(choose(c, CollectiveKind::kAllReduce, 23e6)), "ring/ll128");
  EXPECT_EQ(name(choose(c, CollectiveKind::kAllReduce, 26e6)), "ring/simple");
}

// DGX H100: graph bandwidth 18 x 20.6 (SM90_NVLINK_BW) = 370.8; llMaxBw
// Hopper-N1 141; NVLS: latency hwLat NVLink 25 (baseLat 0), bus bandwidth
// the measured 480 (core/presets_profiles.cpp), algBw 480 x 8/14 = 274.29.
//   ring LL: 15.0 + M/80.571;  NVLS: 25.0 + M/274.29
//   crossover: 10 / (1/80.571 - 1/274.29) ~ 1.14 MB
//   512 KiB: LL 15.0 + 524288/80.571e3 = 21.507 us by NCCL's model (NVLS 26.91),
//     which ranks; it runs on 16 of its 24 channels (512 KiB / (512 threads x
//     8 B x 8 ranks) = 16, enqueue.cc topoGetAlgoInfo): 15.0 + 524288 /
//     (80.571 x 16/24) e3 = 24.761 us
//   2 MiB: NVLS 25.0 + 2097152/274.29e3 = 32.646 us by NCCL's model (LL
//     41.03), which ranks; it runs as a three-stage pipeline of one 2 MiB
//     loop (16 KiB chunks, NcclNvlsChunk below): 25.0 + 3 x 7.646 = 47.938 us
//   1 GiB: NVLS 25.0 + 2^30/274.29e3 = 3939.68 us by NCCL's model (ring
//     Simple 56 + 2^30/211.89e3 = 5123.5); runs 25.0 + (1024 + 2 x 16) MiB /
//     274.29e3 = 4062.02 us
TEST(NcclChoice, DgxH100NvlsTakesLargeAllReduces) {
  const Case c = preset("dgx-h100");
  const NcclChoice small = choose(c, CollectiveKind::kAllReduce, 512 * kKiB);
  EXPECT_EQ(name(small), "ring/ll");
  expect_near_rel(small.chosen.model_seconds, 2.1507120567375886e-05);
  EXPECT_EQ(small.chosen.channels, 16);
  expect_near_rel(small.chosen.seconds, 2.476068085106383e-05);
  const NcclChoice mid = choose(c, CollectiveKind::kAllReduce, 2 * kMiB);
  EXPECT_EQ(name(mid), "nvls/simple");
  expect_near_rel(mid.chosen.model_seconds, 3.2645866666666665e-05);
  expect_near_rel(mid.chosen.seconds, 4.79376e-05);
  const NcclChoice big = choose(c, CollectiveKind::kAllReduce, kGiB);
  EXPECT_EQ(name(big), "nvls/simple");
  expect_near_rel(big.chosen.model_seconds, 0.003939683733333333);
  expect_near_rel(big.chosen.seconds, 0.0040620176);
  // busBw as nccl-tests reports it (algBw x 2(n-1)/n), NCCL's model: the measured 480.
  expect_near_rel(kGiB / (big.chosen.model_seconds - 25e-6) * 14 / 8, 480e9);
  // NCCL_ALGO=ring: the ring alone, Simple at 1 GiB.
  const NcclChoice ring = choose(c, CollectiveKind::kAllReduce, kGiB, CollectiveAlgorithm::kRing);
  EXPECT_EQ(name(ring), "ring/simple");
  expect_near_rel(ring.chosen.seconds, 56e-6 + kGiB / (370.8e9 * 8 / 14));
  // AllGather has no tree and no NVLS here: ring, nsteps n-1 = 7, algBw = busBw x 8/7.
  //   Simple at 1 GiB: 8.4 + 7 x 3.4 = 32.2 us + 2^30 / (370.8 x 8/7) e3
  const NcclChoice ag = choose(c, CollectiveKind::kAllGather, kGiB);
  EXPECT_EQ(name(ag), "ring/simple");
  expect_near_rel(ag.chosen.seconds, 32.2e-6 + kGiB / (370.8e9 * 8 / 7));
}

// NVLS's chunk by size (src/enqueue.cc calcCollChunking, NVIDIA/nccl
// 5067397c): concurrentOps = nvlsChannels 16 (NVLS_NCHANNELS_SM90) x heads;
// from NCCL_NVLS_CHUNKSIZE 128 KiB, 64 KiB below 64 x ops x 128 KiB, 32 KiB
// below 8 x ops x 64 KiB, 16 KiB below 2 x ops x 32 KiB. 8 heads (ops 128):
// the steps at 1 GiB, 64 MiB and 8 MiB; 4 heads (ops 64): 512 MiB, 32 MiB, 4 MiB.
TEST(NcclNvlsChunk, ChunkBySizeByHand) {
  EXPECT_EQ(nccl_nvls_chunk_bytes(kGiB, 8), 131072);
  EXPECT_EQ(nccl_nvls_chunk_bytes(kGiB - 1, 8), 65536);
  EXPECT_EQ(nccl_nvls_chunk_bytes(64 * kMiB, 8), 65536);
  EXPECT_EQ(nccl_nvls_chunk_bytes(64 * kMiB - 1, 8), 32768);
  EXPECT_EQ(nccl_nvls_chunk_bytes(8 * kMiB, 8), 32768);
  EXPECT_EQ(nccl_nvls_chunk_bytes(8 * kMiB - 1, 8), 16384);
  EXPECT_EQ(nccl_nvls_chunk_bytes(64 * kKiB, 8), 16384);
  EXPECT_EQ(nccl_nvls_chunk_bytes(512 * kMiB, 4), 131072);
  EXPECT_EQ(nccl_nvls_chunk_bytes(32 * kMiB, 4), 65536);
  EXPECT_EQ(nccl_nvls_chunk_bytes(4 * kMiB, 4), 32768);
  EXPECT_EQ(nccl_nvls_chunk_bytes(4 * kMiB - 1, 4), 16384);
}

// NVLS on one node is a three-stage pipeline (scatter, reduce-broadcast,
// gather warps: src/device/all_reduce.h, RunWorkColl NVLS, oneNode) of
// loops of ops x chunk bytes; the measured bus bandwidth is its steady
// state, and the first loop fills two stages: + 2 x min(ops x chunk, M) /
// algBw. DGX H100, 64 MiB, 64 KiB chunks, loops of 128 x 64 KiB = 8 MiB:
//   25.0 + (64 + 2 x 8) MiB / 274.2857e3 = 330.835 us; algBw 274.2857 x
//   64/80 = 219.43 GB/s. NCCL's model (which ranks) keeps 25.0 + 64 MiB /
//   274.29e3 = 269.67 us.
TEST(NcclNvlsChunk, ThePipelineFillsTwoLoops) {
  const Case c = preset("dgx-h100");
  const NcclChoice x = choose(c, CollectiveKind::kAllReduce, 64 * kMiB);
  EXPECT_EQ(name(x), "nvls/simple");
  EXPECT_EQ(x.chosen.chunk_bytes, 65536);
  expect_near_rel(x.chosen.alg_bandwidth_bytes_per_second, 219428571428.57144);
  expect_near_rel(x.chosen.seconds, 0.00033083466666666665);
  expect_near_rel(x.chosen.model_seconds, 25e-6 + 64 * kMiB / (480e9 * 8 / 14));
  // Only NVLS has a chunk here.
  EXPECT_EQ(choose(c, CollectiveKind::kAllReduce, 64 * kKiB).chosen.chunk_bytes, 0);
  // The closed form both judges run takes the fill: ClosedFormReproducesNcclTime.
}

// NCCL's channels by size (src/enqueue.cc topoGetAlgoInfo, NVIDIA/nccl
// 5067397c): from comm->nChannels (dgx-h100, one node: 24), one fewer while
// bytes < nc x nt x threshold. nt x threshold: ring LL 512 x (8 x 8 ranks) =
// 32768 B; ring LL128 640 x 8 = 5120 B; ring Simple 512 x 64 = 32768 B; tree
// LL 512 x 8 = 4096 B (NCCL_*_MAX_NTHREADS, src/include/device.h;
// NCCL_*_THREAD_THRESHOLD, src/include/comm.h; ring LL x nRanks,
// tuning.cc ncclTopoTuneModel).
TEST(NcclChannels, ByProtocolAndSizeByHand) {
  const Case c = preset("dgx-h100");
  const NcclTable& t = c.profile.for_device(c.topology.device(0)).nccl;
  ASSERT_EQ(t.channels_for(1), 24);
  using A = NcclAlgorithm;
  using P = NcclProtocol;
  EXPECT_EQ(nccl_channels_used(t, 1, 8, A::kRing, P::kLL, 16 * kKiB), 1);   // < 1 x 32768
  EXPECT_EQ(nccl_channels_used(t, 1, 8, A::kRing, P::kLL, 64 * kKiB), 2);   // 2 x 32768 = 65536
  EXPECT_EQ(nccl_channels_used(t, 1, 8, A::kRing, P::kLL, 100000), 3);      // 98304 <= 100000 < 131072
  EXPECT_EQ(nccl_channels_used(t, 1, 8, A::kRing, P::kLL, kMiB), 24);       // 32 x 32768: all 24
  EXPECT_EQ(nccl_channels_used(t, 1, 2, A::kRing, P::kLL, 64 * kKiB), 8);   // 2 ranks: 8192 B a channel
  EXPECT_EQ(nccl_channels_used(t, 1, 8, A::kRing, P::kLL128, 64 * kKiB), 12);  // 61440 <= 65536 < 66560
  EXPECT_EQ(nccl_channels_used(t, 1, 8, A::kRing, P::kSimple, 64 * kKiB), 2);
  EXPECT_EQ(nccl_channels_used(t, 1, 8, A::kTree, P::kLL, 64 * kKiB), 16);  // 65536 / 4096
  // NVLS runs on its own nvlsChannels whatever the size; the A100 preset
  // does not know NCCL's channels.
  EXPECT_EQ(nccl_channels_used(t, 1, 8, A::kNvls, P::kSimple, 64 * kKiB), 0);
  // Four nodes, 32 ranks: 16 coll channels (NCCL's search: 8 graph channels
  // of 48 GB/s, one a NIC, doubled by ncclTopoPostset; presets_profiles.cpp).
  // Ring LL: 512 x 8 x 32 ranks = 131072 B a channel, so 64 KiB takes 1; tree
  // LL 4096 B a channel: 32 KiB takes 8; tree LL128 640 x 8 = 5120 B: 1 MiB
  // (>= 16 x 5120 = 81920) all 16.
  ASSERT_EQ(t.channels_for(4), 16);
  EXPECT_EQ(nccl_channels_used(t, 4, 32, A::kRing, P::kLL, 64 * kKiB), 1);
  EXPECT_EQ(nccl_channels_used(t, 4, 32, A::kTree, P::kLL, 32 * kKiB), 8);
  EXPECT_EQ(nccl_channels_used(t, 4, 32, A::kTree, P::kLL128, kMiB), 16);
  // DGX A100 (freeze 3): 24 coll channels on one node, 16 across nodes, as
  // NCCL's search gives them (presets_profiles.cpp, a100_sxm4_80gb), so the
  // same counts as the H100's at these sizes; its PCIe variant knows none.
  const Case a100 = preset("dgx-a100");
  const NcclTable& ta = a100.profile.for_device(a100.topology.device(0)).nccl;
  EXPECT_EQ(ta.channels_for(1), 24);
  EXPECT_EQ(ta.graph_channels_for(1), 12);
  EXPECT_EQ(ta.channels_for(4), 16);
  EXPECT_EQ(ta.graph_channels_for(4), 8);
  EXPECT_EQ(nccl_channels_used(ta, 1, 8, A::kRing, P::kLL, 64 * kKiB), 2);
  EXPECT_EQ(nccl_channels_used(ta, 4, 32, A::kRing, P::kLL, 64 * kKiB), 1);
  const Case pcie = preset("pcie-4gpu");
  EXPECT_EQ(nccl_channels_used(pcie.profile.for_device(pcie.topology.device(0)).nccl, 1, 4,
                               A::kRing, P::kLL, 64 * kKiB),
            0);
}

// The channels a collective runs on slow its bytes, not NCCL's rank: 64 KiB
// AllReduce on one DGX H100 by ring LL, 2 of 24 channels:
//   model 15.0 + 65536 / 80.571e3 = 15.813 us; runs 15.0 + 65536 / (80.571 x 2/24) e3 = 24.761 us
// Per-channel caps (tuning.cc, Hopper N1) multiply the graph's channels
// (graphs[a]->nChannels): with 4 instead of 12, ring LL128 busBw =
// min(370.8 x 0.92 = 341.136, 4 x 36.7 = 146.8) = 146.8; with the preset's
// 12, min(341.136, 440.4): no cap.
TEST(NcclChannels, FewerChannelsSlowTheBytesAndCapsBind) {
  const Case c = preset("dgx-h100");
  const NcclChoice small = choose(c, CollectiveKind::kAllReduce, 64 * kKiB);
  EXPECT_EQ(name(small), "ring/ll");
  EXPECT_EQ(small.chosen.channels, 2);
  expect_near_rel(small.chosen.model_seconds, 15.0e-6 + 65536 / (141e9 * 8 / 14));
  expect_near_rel(small.chosen.seconds, 15.0e-6 + 65536 / (141e9 * 8 / 14 * 2 / 24));
  NcclTable t = c.profile.for_device(c.topology.device(0)).nccl;
  const NcclGroupShape g = nccl_group_shape(c.topology, c.profile, t, first(8));
  expect_near_rel(nccl_estimate(t, g, CollectiveKind::kAllReduce, kGiB, NcclAlgorithm::kRing,
                                NcclProtocol::kLL128)
                      .bus_bandwidth_bytes_per_second,
                  370.8e9 * 0.92);
  t.channels = {4, 0, 0};
  t.graph_channels = {4, 0, 0};
  const NcclEstimate ll128 =
      nccl_estimate(t, g, CollectiveKind::kAllReduce, kGiB, NcclAlgorithm::kRing, NcclProtocol::kLL128);
  expect_near_rel(ll128.bus_bandwidth_bytes_per_second, 4 * 36.7e9);
  EXPECT_EQ(ll128.channels, 4);
}

// Four DGX H100 nodes (32 ranks): the per-channel caps of tuning.cc's
// Hopper-N4 column times the graph's 8 channels (ncclTopoTuneModel), on the
// graph busBw min(NVLink 370.8, 8 NICs x 46.0) = 368:
//   ring LL128  min(368 x 0.92 = 338.56, 8 x 36.7 = 293.6) = 293.6
//   tree Simple min(368 x 0.92 = 338.56, 8 x 36.0 = 288.0) = 288.0
//   tree LL128  min(338.56 x 120/128 = 317.4, 8 x 29.0 = 232.0) = 232.0
//   ring Simple 368 (no cap in NCCL's model)
// 1 MiB: tree LL128 latency 14 + 2 x (7 x 1.25 + 2 x 8.5) = 65.5 us; algBw
// 232 / 2 x treeCorrection LL128[log2(2^20 / 64) = 14] 0.6 = 69.6:
// 65.5 + 1048576 / 69.6e3 = 80.566 us on all 16 channels (1 MiB >= 16 x
// 5120), against NVLS-tree 108.6 + 1048576 / 187.871e3 = 114.18 and tree
// Simple 120.4 + 1048576 / (144 x 0.5)e3 = 134.96. (nccl-tests measured
// 92.47 us on such a cluster: tests/data/nccl_tests/.)
TEST(NcclChannels, FourDgxH100NodesCapsByHand) {
  const Case c = preset("dgx-h100", 4);
  const NcclChoice x = choose(c, CollectiveKind::kAllReduce, kMiB, CollectiveAlgorithm::kAuto, 32);
  using A = NcclAlgorithm;
  using P = NcclProtocol;
  expect_near_rel(candidate(x, A::kRing, P::kLL128).bus_bandwidth_bytes_per_second, 293.6e9);
  expect_near_rel(candidate(x, A::kTree, P::kSimple).bus_bandwidth_bytes_per_second, 288e9);
  expect_near_rel(candidate(x, A::kTree, P::kLL128).bus_bandwidth_bytes_per_second, 232e9);
  expect_near_rel(candidate(x, A::kRing, P::kSimple).bus_bandwidth_bytes_per_second, 368e9);
  EXPECT_EQ(name(x), "tree/ll128");
  EXPECT_EQ(x.chosen.channels, 16);
  expect_near_rel(x.chosen.seconds, 65.5e-6 + kMiB / (116e9 * 0.6));
  expect_near_rel(x.chosen.seconds, x.chosen.model_seconds);
}

// NVLS-tree's chunk (src/enqueue.cc calcCollChunking NVLS_TREE, v2.24.3-1 and
// 5067397c), 8 heads x 16 nvlsChannels = 128 ops:
//   two nodes: 128 KiB; 64 KiB below 4 x 128 x 128 KiB = 64 MiB; 32 KiB below
//     1 x 128 x 64 KiB = 8 MiB
//   four nodes: at most 64 KiB (nvlsTreeMaxChunkSize); 32 KiB below 8 MiB
TEST(NcclNvlsChunk, TreeChunkBySizeByHand) {
  EXPECT_EQ(nccl_nvls_tree_chunk_bytes(kGiB, 8, 2), 128 * kKiB);
  EXPECT_EQ(nccl_nvls_tree_chunk_bytes(64 * kMiB, 8, 2), 128 * kKiB);
  EXPECT_EQ(nccl_nvls_tree_chunk_bytes(64 * kMiB - 1, 8, 2), 64 * kKiB);
  EXPECT_EQ(nccl_nvls_tree_chunk_bytes(8 * kMiB, 8, 2), 64 * kKiB);
  EXPECT_EQ(nccl_nvls_tree_chunk_bytes(8 * kMiB - 1, 8, 2), 32 * kKiB);
  EXPECT_EQ(nccl_nvls_tree_chunk_bytes(8 * kGiB, 8, 4), 64 * kKiB);
  EXPECT_EQ(nccl_nvls_tree_chunk_bytes(8 * kMiB, 8, 4), 64 * kKiB);
  EXPECT_EQ(nccl_nvls_tree_chunk_bytes(4 * kMiB, 8, 4), 32 * kKiB);
}

// NVLS-tree's pipeline (src/device/all_reduce.h, RunWorkColl NVLS_TREE):
// two loops of ops x chunk more than NCCL's model. Four DGX H100 nodes:
//   32 MiB: chunk 64 KiB, loop 128 x 64 KiB = 8 MiB; algBw 364 x 32/62 =
//     187.871; 108.6 + (32 + 2 x 8) MiB / 187.871e3 = 108.6 + 267.90 =
//     376.50 us (model 108.6 + 178.60 = 287.20; nccl-tests measured 373.03)
//   4 MiB: chunk 32 KiB, loop 4 MiB = M: 108.6 + 3 x 4 MiB / 187.871e3 =
//     175.58 us (NVLS-tree is not NCCL's choice there: tree LL128)
TEST(NcclNvlsChunk, TreePipelineFillsTwoLoops) {
  const Case c = preset("dgx-h100", 4);
  const double alg = 364e9 * 32 / 62;
  const NcclChoice x = choose(c, CollectiveKind::kAllReduce, 32 * kMiB, CollectiveAlgorithm::kAuto, 32);
  EXPECT_EQ(name(x), "nvls_tree/simple");
  EXPECT_EQ(x.chosen.chunk_bytes, 64 * kKiB);
  expect_near_rel(x.chosen.model_seconds, 108.6e-6 + 32 * kMiB / alg);
  expect_near_rel(x.chosen.seconds, 108.6e-6 + 48 * kMiB / alg);
  const NcclChoice y = choose(c, CollectiveKind::kAllReduce, 4 * kMiB, CollectiveAlgorithm::kAuto, 32);
  const NcclEstimate& t = candidate(y, NcclAlgorithm::kNvlsTree, NcclProtocol::kSimple);
  EXPECT_EQ(t.chunk_bytes, 32 * kKiB);
  expect_near_rel(t.seconds, 108.6e-6 + 12 * kMiB / alg);
  EXPECT_EQ(name(y), "tree/ll128");
}

// Two DGX H100 nodes, 16 ranks (ppn 8), AllReduce with no bytes: latency alone.
//   ring Simple: nsteps 30, nInterSteps 2(2-1) = 2; intraLat max(3.4, netOverhead 1 x 3) = 3.4;
//     interLat ring NET Simple 14.0: 8.4 + 28 x 3.4 + 2 x 14.0 = 131.6 us
//   ring LL: intraLat max(0.6, 1) = 1.0 (Intel host: getNetOverhead 1 us);
//     6.6 + 28 x 1.0 + 2 x 2.7 = 40.0 us
//   tree Simple: 8.4 + 2 x ((8-1) x 4.0 + log2(2) x 14) = 92.4 us
//   tree LL: 6.8 + 2 x (7 x 0.6 + 1 x 5.0) = 25.2 us
// NVLS spans two nodes: not available (NCCL runs NVLS-tree there instead):
//   NVLS-tree: baseLat 0 + hwLat NVLink 25 + 2 x log2(2) x NET 20.9 = 66.8 us
TEST(NcclEstimate, TwoDgxH100NodesLatencyByHand) {
  const Case c = preset("dgx-h100", 2);
  const NcclChoice x = choose(c, CollectiveKind::kAllReduce, 0, CollectiveAlgorithm::kAuto, 16);
  expect_near_rel(candidate(x, NcclAlgorithm::kRing, NcclProtocol::kSimple).latency_seconds,
                  131.6e-6);
  expect_near_rel(candidate(x, NcclAlgorithm::kRing, NcclProtocol::kLL).latency_seconds, 40.0e-6);
  expect_near_rel(candidate(x, NcclAlgorithm::kTree, NcclProtocol::kSimple).latency_seconds,
                  92.4e-6);
  expect_near_rel(candidate(x, NcclAlgorithm::kTree, NcclProtocol::kLL).latency_seconds, 25.2e-6);
  EXPECT_FALSE(candidate(x, NcclAlgorithm::kNvls, NcclProtocol::kSimple).available);
  expect_near_rel(candidate(x, NcclAlgorithm::kNvlsTree, NcclProtocol::kSimple).latency_seconds,
                  66.8e-6);
  // With no bytes the least latency wins: tree LL.
  EXPECT_EQ(name(x), "tree/ll");
  // Across nodes the LL cap is the host's: Intel-N2 39.0.
  EXPECT_NEAR(candidate(x, NcclAlgorithm::kRing, NcclProtocol::kLL).bus_bandwidth_bytes_per_second,
              39.0e9, 1);
}

// Two DGX H100 nodes, NVLS-tree's bandwidth (tuning.cc, ncclTopoTuneModel):
// 8 channels (one per local rank and NIC); per channel
//   NVLS part: NVLink 370.8 / 8 x 0.85 x 7/8 x 2 = 68.945625
//   network: NIC 50 x 0.92 (InfiniBand efficiency) = 46.0, x2 on two nodes = 92
//   cap perChMaxNVLSTreeBws Hopper-N2 57.7  -> 57.7
// busBw 8 x 57.7 = 461.6; algBw 461.6 x 16/30 = 246.18667
// 1 GiB: 66.8 + 2^30 / 246.18667e3 = 4428.3 us (NCCL's model, which ranks;
// it takes two 16 MiB loops more, 4564.6 us); ring Simple (busBw min(370.8,
// 8 x 46 = 368) = 368, algBw 196.267, latency 131.6 x 1.4 plateau = 184.24)
// 184.24 + 2^30/196.267e3 = 5655.1 us: NVLS-tree chosen.
TEST(NcclChoice, TwoDgxH100NodesNvlsTree) {
  const Case c = preset("dgx-h100", 2);
  const NcclChoice x = choose(c, CollectiveKind::kAllReduce, kGiB, CollectiveAlgorithm::kAuto, 16);
  EXPECT_EQ(name(x), "nvls_tree/simple");
  expect_near_rel(x.chosen.bus_bandwidth_bytes_per_second, 461.6e9);
  expect_near_rel(x.chosen.model_seconds, 66.8e-6 + kGiB / (461.6e9 * 16 / 30));
  // Its pipeline: two loops of 128 x 128 KiB = 16 MiB more.
  expect_near_rel(x.chosen.seconds, 66.8e-6 + (kGiB + 32 * kMiB) / (461.6e9 * 16 / 30));
  const NcclEstimate& ring = candidate(x, NcclAlgorithm::kRing, NcclProtocol::kSimple);
  expect_near_rel(ring.latency_seconds, 131.6e-6 * 1.4);
  expect_near_rel(ring.bus_bandwidth_bytes_per_second, 368e9);
  // NCCL_ALGO=NVLS(Tree): `nvls` across nodes is NVLS-tree.
  const NcclChoice n = choose(c, CollectiveKind::kAllReduce, kGiB, CollectiveAlgorithm::kNvls, 16);
  EXPECT_EQ(name(n), "nvls_tree/simple");
}

// Four DGX H100 nodes (32 ranks), NCCL's choice by size:
//   NVLS-tree: per channel min(68.945625, 46.0, Hopper-N4 cap 45.5) = 45.5;
//     busBw 364.0, algBw 364 x 32/62 = 187.871; latency 25 + 2 x 2 x 20.9 = 108.6
//   ring Simple: busBw 368, algBw 189.935; latency (8.4 + 56 x max(3.4, 3 x 1)
//     + 6 x 14) x 1.4 = 282.8 x 1.4 = 395.92 (plateau)
//   tree LL: 6.8 + 2 x (7 x 0.6 + 2 x 5.0) = 35.2; busBw min(368 x 0.92 / 3.8,
//     Intel-N4 20.4) = 20.4, algBw 10.2 x treeCorrection
//   64 KiB: tree LL, log2(65536/64) = 10 -> LL factor 0.6: 35.2 + 65536 /
//     6.12e3 = 45.908 us (NVLS-tree 108.6 + 0.349 = 108.95)
//   256 MiB: NVLS-tree 108.6 + 268435456/187.871e3 = 1537.4 us (ring Simple
//     395.92 + 1413.3 = 1809.2); it takes two 8 MiB loops more (64 KiB
//     chunks): 108.6 + (256 + 16) MiB / 187.871e3 = 1626.7 us
//   crossover NVLS-tree -> ring Simple: 287.32 us / (1/187.871 - 1/189.935) GB/s
//     = 287.32e-6 / 5.7845e-14 ~ 4.97 GB: 8 GiB runs the ring.
TEST(NcclChoice, FourDgxH100NodesByHand) {
  const Case c = preset("dgx-h100", 4);
  const NcclChoice small =
      choose(c, CollectiveKind::kAllReduce, 64 * kKiB, CollectiveAlgorithm::kAuto, 32);
  EXPECT_EQ(name(small), "tree/ll");
  expect_near_rel(small.chosen.seconds, 35.2e-6 + 65536 / 6.12e9);
  const NcclChoice mid =
      choose(c, CollectiveKind::kAllReduce, 256 * kMiB, CollectiveAlgorithm::kAuto, 32);
  EXPECT_EQ(name(mid), "nvls_tree/simple");
  expect_near_rel(mid.chosen.bus_bandwidth_bytes_per_second, 364e9);
  expect_near_rel(mid.chosen.seconds, 108.6e-6 + 272 * kMiB / (364e9 * 32 / 62));
  const NcclChoice big =
      choose(c, CollectiveKind::kAllReduce, 8 * kGiB, CollectiveAlgorithm::kAuto, 32);
  EXPECT_EQ(name(big), "ring/simple");
  expect_near_rel(big.chosen.seconds, 395.92e-6 + 8 * kGiB / (368e9 * 32 / 62));
}

// The closed form that both judges run gives NCCL's time exactly: ring
// expansion, alpha = latency / steps, B = busBw.
TEST(NcclChoice, ClosedFormReproducesNcclTime) {
  for (int nodes : {1, 4})
    for (double m : {4 * kKiB, 2 * kMiB, 256 * kMiB}) {
      const Case c = preset("dgx-h100", nodes);
      for (auto kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                        CollectiveKind::kReduceScatter, CollectiveKind::kBroadcast}) {
        const NcclChoice x = choose(c, kind, m, CollectiveAlgorithm::kAuto, 8 * nodes);
        auto q = collective_query_on(c.topology, c.profile, kind, CollectiveAlgorithm::kAuto,
                                     first(8 * nodes), m);
        ASSERT_TRUE(q.is_ok()) << q.message();
        EXPECT_TRUE(q->nccl);
        auto t = collective_cost(*q);
        ASSERT_TRUE(t.is_ok()) << t.message();
        expect_near_rel(t->seconds, x.chosen.seconds, 1e-9);
      }
    }
}

// ---- refusals -------------------------------------------------------------------

TEST(NcclChoice, NvlsRefusedWithoutNvswitchSharp) {
  const Case a100 = preset("dgx-a100");
  auto r = nccl_collective(a100.topology, a100.profile, CollectiveKind::kAllReduce,
                           CollectiveAlgorithm::kNvls, first(8), kGiB);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "found algorithm 'nvls'; expected hardware that can run NVLS: device 'gpu0' "
            "(NVIDIA A100-SXM4-80GB) has no NVLS: NVLink SHARP needs a third-generation NVSwitch "
            "(Hopper or later), and its NCCL table has no nvls");
  // Across nodes: NVLS-tree, refused where the table has none.
  Case two = preset("dgx-h100", 2);
  for (DeviceProfile& d : two.profile.devices)
    d.nccl.at(NcclAlgorithm::kNvlsTree, NcclProtocol::kSimple) = NcclEntry{};
  auto s = nccl_collective(two.topology, two.profile, CollectiveKind::kAllReduce,
                           CollectiveAlgorithm::kNvls, first(16), kGiB);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message(),
            "found algorithm 'nvls'; expected hardware that can run NVLS: the group spans 2 nodes "
            "and device 'node0/gpu0' (NVIDIA H100-SXM5-80GB) has no nvls_tree in its NCCL table; "
            "across nodes NCCL runs NVLS as NVLS-tree");
  // One device per node: no NVSwitch to reduce in.
  const Case four = preset("dgx-h100", 2);
  auto o = nccl_collective(four.topology, four.profile, CollectiveKind::kAllReduce,
                           CollectiveAlgorithm::kNvls, {0, 8}, kGiB);
  ASSERT_FALSE(o.is_ok());
  EXPECT_EQ(
      o.message(),
      "found algorithm 'nvls'; expected hardware that can run NVLS: device 'node0/gpu0' is its "
      "node's only device in the group; NVLS-tree reduces in each node's NVSwitch and needs "
      "at least two devices on every node");
  const Case pcie = preset("pcie-4gpu");
  auto p = nccl_collective(pcie.topology, pcie.profile, CollectiveKind::kAllReduce,
                           CollectiveAlgorithm::kNvls, first(4), kGiB);
  ASSERT_FALSE(p.is_ok());
}

TEST(NcclChoice, AlphaBetaModelLeavesNcclOut) {
  Case c = preset("dgx-h100");
  c.profile.collective_model = CollectiveModel::kAlphaBeta;
  auto r = nccl_collective(c.topology, c.profile, CollectiveKind::kAllReduce,
                           CollectiveAlgorithm::kAuto, first(8), kGiB);
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(r->has_value());
  auto n = nccl_collective(c.topology, c.profile, CollectiveKind::kAllReduce,
                           CollectiveAlgorithm::kNvls, first(8), kGiB);
  ASSERT_FALSE(n.is_ok());
  EXPECT_NE(n.message().find("under collective_model alpha-beta"), std::string::npos)
      << n.message();
}

}  // namespace
}  // namespace brigade::cost
