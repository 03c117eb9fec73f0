// NCCL's model against published nccl-tests tables, size by size (issue 19
// item 2: every size from 64 KiB to 8 GiB within 10% of the measured bus
// bandwidth). The tables are in tests/data/nccl_tests/, each with its source;
// docs/FIDELITY.md lists every size's error and why the misses miss.
//
// This test holds the model to what it achieves today: a size not listed as
// a known miss must be within 10%, and a listed one must still miss (so the
// list, and docs/FIDELITY.md, are corrected when the model improves).
//
// Each table is compared with the model of the NCCL that measured it (a
// cluster runs one NCCL; docs/costmodel.md, "NCCL's version"): both ran NCCL
// 2.24.3, so the presets' tables are built for 2.24
// (HardwareProfile::defaults(NcclVersion::k2_24)), not the default 2.29.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "tests/costmodel/published_kernels.hpp"
#include "costmodel/nccl_model.hpp"

namespace brigade::cost {
namespace {

struct Row {
  double bytes = 0, seconds = 0, busbw = 0;
};

std::vector<Row> read_table(const std::string& name) {
  std::vector<Row> rows;
  for (std::istringstream& ss : testing::data_rows("nccl_tests/" + name)) {
    Row r;
    double alg = 0;
    ss >> r.bytes >> r.seconds >> alg >> r.busbw;
    r.seconds *= 1e-6;
    r.busbw *= 1e9;
    rows.push_back(r);
  }
  return rows;
}

// Brigade's busBw (nccl-tests': M / T x 2(n-1)/n) and the relative error of
// each size against the table.
// `devices` > 0: the first that many GPUs only (a table measured on part of
// a node).
std::vector<double> errors(const std::string& preset, int nodes, NcclVersion version,
                           const std::vector<Row>& rows, int devices = 0) {
  const Topology t = make_preset(preset, nodes).value();
  const HardwareProfile prof = HardwareProfile::defaults(version);
  std::vector<int> group;
  for (int d = 0; d < (devices > 0 ? devices : t.num_devices()); ++d) group.push_back(d);
  const double n = static_cast<double>(group.size());
  std::vector<double> err;
  for (const Row& r : rows) {
    auto c = nccl_collective(t, prof, CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto, group,
                             r.bytes);
    EXPECT_TRUE(c.is_ok() && c->has_value());
    const double bus = r.bytes / (*c)->chosen.seconds * 2 * (n - 1) / n;
    err.push_back((bus - r.busbw) / r.busbw);
    // The rows of docs/FIDELITY.md's per-size tables.
    std::printf("| %.0f | %.2f | %.2f | %s/%s (chunk %.0f KiB, %d channels) | %+.1f%% |\n",
                r.bytes, r.busbw / 1e9, bus / 1e9,
                std::string(nccl_algorithm_name((*c)->chosen.algorithm)).c_str(),
                std::string(nccl_protocol_name((*c)->chosen.protocol)).c_str(),
                (*c)->chosen.chunk_bytes / 1024, (*c)->chosen.channels, 100 * err.back());
  }
  return err;
}

void expect_within_except(const std::vector<Row>& rows, const std::vector<double>& err,
                          const std::set<double>& known_misses) {
  ASSERT_EQ(rows.size(), err.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const bool miss = std::fabs(err[i]) > 0.10;
    EXPECT_EQ(miss, known_misses.count(rows[i].bytes) > 0)
        << rows[i].bytes << " B: error " << 100 * err[i] << "% (known misses: update the list and "
        << "docs/FIDELITY.md)";
  }
}

constexpr double kKiB = 1024, kMiB = 1048576, kGiB = 1073741824;

// 8x H100 SXM5, one node (ZiyanIshani/vpbenchmarking, NCCL 2.24.3, -g 8):
// within 10% from 2 MiB up (NVLS, its chunk cut by size as calcCollChunking
// cuts it and its three-stage pipeline filled, docs/costmodel.md "NVLS's
// chunk and pipeline") except 32 MiB (+12.6%: eight 32 KiB-chunk loops, the
// most loops of the smaller chunks, where the fill weighs least). Below 2 MiB,
// ring LL is fast by 30% to 40%: the table's ~33 us floor (one process
// launching 8 GPUs' kernels) is twice NCCL's modelled latency (ring LL 15.0
// us; the small sizes run on fewer channels, 2 of 24 at 64 KiB, which took
// them from +113% to +36%); no source outside this table prices that floor.
// NCCL 2.24.3 and 2.29 give the same figures on one node of 8
// (NcclVersion.OneNodeOfEightAgrees).
TEST(NcclPublished, H100OneNodeAllReduce) {
  const auto rows = read_table("h100_8gpu_allreduce_vpbenchmarking.txt");
  ASSERT_EQ(rows.size(), 18u);  // 64 KiB .. 8 GiB
  std::set<double> misses = {32 * kMiB};
  for (double m = 64 * kKiB; m <= kMiB; m *= 2) misses.insert(m);
  expect_within_except(rows, errors("dgx-h100", 1, NcclVersion::k2_24, rows), misses);
}

// 4 x 8 H100 SXM5 over 8 x 400 Gb/s InfiniBand per node (same source),
// NCCL 2.24.3's model: within 10% at 128 KiB to 512 KiB (tree LL / LL128,
// under the per-channel caps of NCCL's 8 graph channels), 4 MiB to 64 MiB
// (NVLS-tree, which 2.24.3 takes from 2 MiB, with its chunk and pipeline
// fill) and 1 GiB to 4 GiB (the ring Simple, which 2.24.3 takes from 239
// MiB, the published dip at 256 MiB). Misses: 64 KiB (+31%: no launch
// floor), 1 MiB (+14.8%, tree LL128), 2 MiB (+26.7%: NVLS-tree's one loop of
// 32 KiB chunks, measured slower still), 128 MiB (-11.4%: 2.24.3's NVLS-tree
// bandwidth, 184 x 5/6 = 153 GB/s, is below what the cluster achieves), 256
// MiB and 512 MiB (+20%, +11%: the ring's latency and bandwidth) and 8 GiB
// (+10.2%: the NICs' achieved bandwidth). docs/FIDELITY.md says why, and
// what 2.29's model gives.
TEST(NcclPublished, H100FourNodesAllReduce) {
  const auto rows = read_table("h100_4x8gpu_allreduce_vpbenchmarking.txt");
  ASSERT_EQ(rows.size(), 18u);
  const std::set<double> misses = {64 * kKiB,  kMiB,       2 * kMiB,  128 * kMiB,
                                   256 * kMiB, 512 * kMiB, 8 * kGiB};
  expect_within_except(rows, errors("dgx-h100", 4, NcclVersion::k2_24, rows), misses);
}

// 2, 4 and 8 A100s of one node over NVSwitch (VIA-Research/vTrain's
// lookup tables, 1 MiB to 1 GiB; the NCCL release and the benchmark's
// options are not stated, so the default model, NCCL 2.29's, which on one
// A100 node gives 2.24's figures). The model is optimistic at every size:
// within 10% on eight GPUs only at 64 MiB (+6.3%) and 256 MiB to 1 GiB
// (+7.4% ... +3.9%), on four only at 512 MiB and 1 GiB (+9.9%, +7.7%), on two
// nowhere (+21% at 1 GiB: the table's two-GPU bus bandwidth tops out at 197
// GB/s, its eight-GPU one at 229, where NCCL's model gives a ring the same
// per-channel bandwidth whatever its size). From 1 to 4 MiB the table is flat
// at 92-96 us, three times NCCL's modelled latency, a floor of the harness
// (not stated) or of this cluster. docs/FIDELITY.md, "A100, one node". No
// constant is set from these tables.
TEST(NcclPublished, A100OneNodeAllReduce) {
  const auto eight = read_table("a100_8gpu_allreduce_vtrain.txt");
  ASSERT_EQ(eight.size(), 11u);  // 1 MiB .. 1 GiB
  expect_within_except(eight, errors("dgx-a100", 1, NcclVersion::k2_29, eight, 8),
                       {kMiB, 2 * kMiB, 4 * kMiB, 8 * kMiB, 16 * kMiB, 32 * kMiB, 128 * kMiB});
  const auto four = read_table("a100_4gpu_allreduce_vtrain.txt");
  ASSERT_EQ(four.size(), 11u);
  std::set<double> misses;
  for (double m = kMiB; m <= 256 * kMiB; m *= 2) misses.insert(m);
  expect_within_except(four, errors("dgx-a100", 1, NcclVersion::k2_29, four, 4), misses);
  const auto two = read_table("a100_2gpu_allreduce_vtrain.txt");
  ASSERT_EQ(two.size(), 11u);
  misses.insert(512 * kMiB);
  misses.insert(kGiB);
  expect_within_except(two, errors("dgx-a100", 1, NcclVersion::k2_29, two, 2), misses);
}

}  // namespace
}  // namespace brigade::cost
