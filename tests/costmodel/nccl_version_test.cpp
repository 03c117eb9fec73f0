// NCCL's version (NcclTable::version; docs/costmodel.md, "NCCL's version"):
// what NCCL 2.24.3 chooses and how long its model says it takes, against
// numbers worked out by hand from NVIDIA/nccl at tag v2.24.3-1 (commit
// 6aae3792), beside NCCL 2.29's (tag v2.29.7-1, commit b91894bd; the
// presets' default). Only NVLS-tree and NVLS's GPU count differ between the
// two for what Brigade models; every ring and tree constant is the same.
//
// Units in the comments: latencies in us, bandwidths in GB/s, so that
// bytes / (GB/s) / 1e3 is us.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "core/topology.hpp"
#include "costmodel/nccl_model.hpp"

namespace brigade::cost {
namespace {

constexpr double kKiB = 1024.0, kMiB = 1048576.0;

void expect_near_rel(double actual, double expected, double rel = 1e-9) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * rel + 1e-18) << "expected " << expected;
}

std::vector<int> first(int n) {
  std::vector<int> g;
  for (int i = 0; i < n; ++i) g.push_back(i);
  return g;
}

NcclChoice choose(NcclVersion v, int nodes, int ranks, double bytes,
                  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto) {
  const Topology t = make_preset("dgx-h100", nodes).value();
  const HardwareProfile prof = HardwareProfile::defaults(v);
  auto r = nccl_collective(t, prof, CollectiveKind::kAllReduce, algorithm, first(ranks), bytes);
  EXPECT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(r->has_value());
  return **r;
}

const NcclEstimate& candidate(const NcclChoice& c, NcclAlgorithm a,
                              NcclProtocol p = NcclProtocol::kSimple) {
  for (const NcclEstimate& e : c.candidates)
    if (e.algorithm == a && e.protocol == p) return e;
  ADD_FAILURE() << "no candidate " << nccl_algorithm_name(a) << "/" << nccl_protocol_name(p);
  return c.chosen;
}

std::string name(const NcclChoice& c) {
  return std::string(nccl_algorithm_name(c.chosen.algorithm)) + "/" +
         std::string(nccl_protocol_name(c.chosen.protocol));
}

TEST(NcclVersion, NamesAndDefault) {
  EXPECT_EQ(nccl_version_name(NcclVersion::k2_24), "2.24");
  EXPECT_EQ(parse_nccl_version("2.29"), NcclVersion::k2_29);
  EXPECT_FALSE(parse_nccl_version("2.30").has_value());
  EXPECT_EQ(nccl_version_list(), "2.24, 2.29");
  EXPECT_EQ(kDefaultNcclVersion, NcclVersion::k2_29);
  EXPECT_EQ(HardwareProfile::defaults().nccl_version(), NcclVersion::k2_29);
  EXPECT_EQ(HardwareProfile::defaults(NcclVersion::k2_24).nccl_version(), NcclVersion::k2_24);
}

// Four DGX H100 nodes, 32 ranks (ppn 8), AllReduce, NCCL 2.24.3.
// NVLS-tree (src/graph/tuning.cc at v2.24.3-1): NCCL's NVLS graph has one
// channel a local GPU (8), each its NIC.
//   line 246: bw = min(bwIntra, bwInter / 2 on more than two nodes)
//     = min(370.8 / 8 = 46.35, (8 x 50 x 0.92 = 368) / 8 / 2 = 23) = 23
//   line 247: busBw = 8 x 23 = 184
//   line 287: algBw = busBw x 5/6 = 153.333
//   latency (lines 333-334, hwLat line 141): baseLat 0 + NVLink 25
//     + 2 x log2(4) x NET 14 = 81
// (2.29, v2.29.7-1: min(46.35 x 0.85 x 7/8 x 2, 46, cap 45.5) = 45.5 x 8 =
// 364, algBw 364 x 32/62 = 187.871, latency 25 + 4 x 20.9 = 108.6.)
// The tree LL128 (the same at both tags): latency 14.0 + 2 x (7 x 1.25 + 2 x
// 8.5) = 65.5; busBw min(368 x 0.92 x 120/128 = 317.4, 8 graph channels x
// perChMaxTreeLL128Bw 29.0 = 232) = 232; algBw 232 / 2 x treeCorrection.
//
// 2 MiB (log2(2097152 / 64) = 15, LL128 factor 0.6):
//   tree LL128:  65.5 + 2097152 / (116 x 0.6 = 69.6) e3 = 65.5 + 30.132 = 95.632
//   NVLS-tree 2.24: 81 + 2097152 / 153.333e3 = 81 + 13.677 = 94.677: chosen
//   NVLS-tree 2.29: 108.6 + 2097152 / 187.871e3 = 119.763: the tree LL128 stays
// Its time: a 32 KiB chunk (2 MiB < 1 x (16 x 8) x 64 KiB, calcCollChunking
// NVLS_TREE, the same at both tags), one loop of 2 MiB, two loops of fill:
//   81 + 3 x 13.677 = 122.031 us
TEST(NcclVersion, FourDgxH100NodesTwoMiBTakesNvlsTreeIn224) {
  const double m = 2 * kMiB;
  const double alg = 184e9 * 5.0 / 6.0;
  const NcclChoice x = choose(NcclVersion::k2_24, 4, 32, m);
  EXPECT_EQ(name(x), "nvls_tree/simple");
  expect_near_rel(x.chosen.latency_seconds, 81e-6);
  expect_near_rel(x.chosen.bus_bandwidth_bytes_per_second, 184e9);
  expect_near_rel(x.chosen.model_seconds, 81e-6 + m / alg);
  EXPECT_EQ(x.chosen.chunk_bytes, 32 * kKiB);
  expect_near_rel(x.chosen.seconds, 81e-6 + 3 * m / alg);
  expect_near_rel(x.chosen.seconds, 122.031e-6, 1e-5);
  const NcclEstimate& tree = candidate(x, NcclAlgorithm::kTree, NcclProtocol::kLL128);
  expect_near_rel(tree.model_seconds, 65.5e-6 + m / 69.6e9);
  EXPECT_LT(x.chosen.model_seconds, tree.model_seconds);

  const NcclChoice y = choose(NcclVersion::k2_29, 4, 32, m);
  EXPECT_EQ(name(y), "tree/ll128");
  expect_near_rel(candidate(y, NcclAlgorithm::kNvlsTree).model_seconds,
                  108.6e-6 + m / (364e9 * 32 / 62));
}

// The same nodes at 128 and 256 MiB. The ring Simple (the same at both
// tags): latency (8.4 + 56 x max(3.4, 3 x netOverhead 1) + 6 x 14) x 1.4
// (plateau) = 395.92, busBw 368, algBw 368 x 32/62 = 189.935.
//   NCCL 2.24 ranks NVLS-tree against it: 81 + M / 153.333 = 395.92 + M / 189.935
//   at M = 314.92e-6 / (1/153.333e9 - 1/189.935e9) = 314.92e-6 / 1.25678e-12
//   = 250.6 MB (239 MiB): NVLS-tree below, the ring above.
//   128 MiB: NVLS-tree 81 + 875.34 = 956.34 against ring 395.92 + 706.65 =
//     1102.57: NVLS-tree, a 64 KiB chunk (>= 8 MiB), loops of 128 x 64 KiB =
//     8 MiB, time 81 + (128 + 16) MiB / 153.333e3 = 81 + 984.75 = 1065.75 us
//   256 MiB: ring 395.92 + 1413.30 = 1809.22 against NVLS-tree 81 + 1750.67 =
//     1831.67: the ring, 1809.22 us (all 16 channels, no fill)
// NCCL 2.29 keeps NVLS-tree at 256 MiB (108.6 + 1428.84 = 1537.44 < 1809.22).
TEST(NcclVersion, FourDgxH100NodesRingFrom239MiBIn224) {
  const double alg = 184e9 * 5.0 / 6.0;
  const double ring_alg = 368e9 * 32 / 62;
  const NcclChoice mid = choose(NcclVersion::k2_24, 4, 32, 128 * kMiB);
  EXPECT_EQ(name(mid), "nvls_tree/simple");
  EXPECT_EQ(mid.chosen.chunk_bytes, 64 * kKiB);
  expect_near_rel(mid.chosen.seconds, 81e-6 + 144 * kMiB / alg);
  expect_near_rel(mid.chosen.seconds, 1065.75e-6, 1e-5);

  const NcclChoice big = choose(NcclVersion::k2_24, 4, 32, 256 * kMiB);
  EXPECT_EQ(name(big), "ring/simple");
  expect_near_rel(big.chosen.seconds, 395.92e-6 + 256 * kMiB / ring_alg);
  expect_near_rel(candidate(big, NcclAlgorithm::kNvlsTree).model_seconds,
                  81e-6 + 256 * kMiB / alg);

  EXPECT_EQ(name(choose(NcclVersion::k2_29, 4, 32, 256 * kMiB)), "nvls_tree/simple");
}

// Two DGX H100 nodes, 16 ranks, 2.24.3: on two nodes bwInter is not halved
// (line 246): bw = min(46.35, 46) = 46, busBw 8 x 46 = 368, algBw 368 x 5/6
// = 306.667; latency 25 + 2 x log2(2) x 14 = 53 us. At 1 GiB, a 128 KiB
// chunk (>= 4 x 128 x 128 KiB = 64 MiB on two nodes), loops of 16 MiB:
//   model 53 + 1073741824 / 306.667e3 = 53 + 3501.33 = 3554.33 us
//   time  53 + (1024 + 32) MiB / 306.667e3 = 53 + 3610.75 = 3663.75 us
// (2.29: busBw 461.6, algBw 246.187, latency 66.8.)
TEST(NcclVersion, TwoDgxH100NodesNvlsTreeIn224) {
  const double m = 1024 * kMiB;
  const double alg = 368e9 * 5.0 / 6.0;
  const NcclChoice x = choose(NcclVersion::k2_24, 2, 16, m);
  EXPECT_EQ(name(x), "nvls_tree/simple");
  expect_near_rel(x.chosen.latency_seconds, 53e-6);
  expect_near_rel(x.chosen.bus_bandwidth_bytes_per_second, 368e9);
  expect_near_rel(x.chosen.model_seconds, 53e-6 + m / alg);
  expect_near_rel(x.chosen.seconds, 53e-6 + 1056 * kMiB / alg);
  expect_near_rel(x.chosen.seconds, 3663.75e-6, 1e-5);
}

// NCCL 2.24.3 sets NVLS up only with more than two GPUs on a node
// (src/transport/nvls.cc, ncclNvlsInit, line 155 at v2.24.3-1: gpuCount <=
// 2 returns); 2.29 from two (line 162 at v2.29.7-1: gpuCount < 2). Two
// H100s of one node, 1 GiB: 2.29 takes NVLS (480 x 2/2 = 480 against the
// ring Simple's 370.8); 2.24 has no NVLS and runs the ring, and refuses an
// explicit `nvls` with the reason.
TEST(NcclVersion, TwoGpusHaveNoNvlsIn224) {
  EXPECT_EQ(name(choose(NcclVersion::k2_29, 1, 2, 1024 * kMiB)), "nvls/simple");
  const NcclChoice x = choose(NcclVersion::k2_24, 1, 2, 1024 * kMiB);
  EXPECT_EQ(name(x), "ring/simple");
  const NcclEstimate& nvls = candidate(x, NcclAlgorithm::kNvls);
  EXPECT_FALSE(nvls.available);
  EXPECT_EQ(nvls.why_not, "NCCL 2.24 runs NVLS only with more than two GPUs per node (the group has 2)");
  const Topology t = make_preset("dgx-h100", 1).value();
  auto r = nccl_collective(t, HardwareProfile::defaults(NcclVersion::k2_24),
                           CollectiveKind::kAllReduce, CollectiveAlgorithm::kNvls, first(2),
                           1024 * kMiB);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("more than two GPUs per node"), std::string::npos) << r.message();
  // Three GPUs: NVLS in both.
  EXPECT_EQ(name(choose(NcclVersion::k2_24, 1, 3, 1024 * kMiB)), "nvls/simple");
}

// On one node of 8 the versions agree: ring and tree constants are the
// same at both tags, and NVLS takes the preset's measured bus bandwidth in
// both (NCCL's own NVLS estimate, which differs, is not modelled).
TEST(NcclVersion, OneNodeOfEightAgrees) {
  for (double m : {64 * kKiB, 2 * kMiB, 64 * kMiB, 8192 * kMiB}) {
    const NcclChoice a = choose(NcclVersion::k2_24, 1, 8, m);
    const NcclChoice b = choose(NcclVersion::k2_29, 1, 8, m);
    EXPECT_EQ(name(a), name(b)) << m;
    EXPECT_EQ(a.chosen.seconds, b.chosen.seconds) << m;
  }
}

// ---- where the version is chosen ------------------------------------------------

constexpr const char* kModel = "model:\n  collective: {kind: allreduce, bytes: 2MiB}\n";

// topology.nccl_version builds the presets' tables for that release; without
// it they are 2.29's.
TEST(NcclVersion, ScenarioKey) {
  auto s = parse_scenario(
      std::string("topology: {preset: dgx-h100, nodes: 4, nccl_version: \"2.24\"}\n") + kModel,
      "t.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(s->nccl_version, NcclVersion::k2_24);
  EXPECT_EQ(s->profile.nccl_version(), NcclVersion::k2_24);
  auto bare = parse_scenario(std::string("topology: {preset: dgx-h100, nodes: 4, nccl_version: "
                                         "2.29}\n") + kModel,
                             "t.yaml");
  ASSERT_TRUE(bare.is_ok()) << bare.message();
  EXPECT_EQ(bare->nccl_version, NcclVersion::k2_29);
  auto none = parse_scenario(std::string("topology: {preset: dgx-h100, nodes: 4}\n") + kModel,
                             "t.yaml");
  ASSERT_TRUE(none.is_ok()) << none.message();
  EXPECT_FALSE(none->nccl_version.has_value());
  EXPECT_EQ(none->profile.nccl_version(), NcclVersion::k2_29);
}

// Bad input: an unknown version, at its position, with the versions supported.
TEST(NcclVersion, ScenarioUnknownVersionRefused) {
  auto s = parse_scenario(
      std::string("topology: {preset: dgx-h100, nodes: 4, nccl_version: \"2.30\"}\n") + kModel,
      "t.yaml");
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message(),
            "t.yaml:1:54: error: found NCCL version '2.30'; expected one of 2.24, 2.29 (the NCCL "
            "releases whose tuning model Brigade knows: docs/costmodel.md, \"NCCL's version\")");
  auto list = parse_scenario(
      std::string("topology:\n  preset: dgx-h100\n  nccl_version: [2.24]\n") + kModel, "t.yaml");
  ASSERT_FALSE(list.is_ok());
  EXPECT_EQ(list.message().rfind("t.yaml:3:17: error: found NCCL version a list; expected one of "
                                 "2.24, 2.29",
                                 0),
            0u)
      << list.message();
}

// A profile file's tables carry their version (nccl.version, written when it
// is not the default and read back); a scenario naming another version with
// that profile is refused at topology.nccl_version.
TEST(NcclVersion, ProfileFileCarriesItsVersion) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("brigade_ncclver_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string old_profile = (dir / "old.yaml").string();
  const std::string new_profile = (dir / "new.yaml").string();
  ASSERT_TRUE(save_profile(HardwareProfile::defaults(NcclVersion::k2_24), old_profile).is_ok());
  ASSERT_TRUE(save_profile(HardwareProfile::defaults(), new_profile).is_ok());
  auto old_back = load_profile(old_profile);
  ASSERT_TRUE(old_back.is_ok()) << old_back.message();
  EXPECT_EQ(old_back->nccl_version(), NcclVersion::k2_24);
  auto new_back = load_profile(new_profile);
  ASSERT_TRUE(new_back.is_ok()) << new_back.message();
  EXPECT_EQ(new_back->nccl_version(), NcclVersion::k2_29);

  const std::string scenario = (dir / "s.yaml").string();
  auto agree = parse_scenario(
      std::string("topology: {preset: dgx-h100, nodes: 4, nccl_version: \"2.24\"}\n"
                  "profile: old.yaml\n") + kModel,
      scenario);
  ASSERT_TRUE(agree.is_ok()) << agree.message();
  // The file's 2.24 tables time the collective as the presets' 2.24 tables do.
  EXPECT_EQ(name(**nccl_collective(agree->topology, agree->profile, CollectiveKind::kAllReduce,
                                   CollectiveAlgorithm::kAuto, first(32), 2 * kMiB)),
            "nvls_tree/simple");
  auto clash = parse_scenario(
      std::string("topology: {preset: dgx-h100, nodes: 4, nccl_version: \"2.24\"}\n"
                  "profile: new.yaml\n") + kModel,
      scenario);
  ASSERT_FALSE(clash.is_ok());
  EXPECT_EQ(clash.message(),
            scenario + ":1:54: error: found nccl_version '2.24' with profile '" +
                std::filesystem::path(new_profile).lexically_normal().string() +
                "', whose NCCL tables follow NCCL 2.29; expected the profile's own version (its "
                "tables' nccl.version) or no nccl_version");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace brigade::cost
