// NCCL tables (core/nccl_table.hpp): the presets' tables are complete and
// monotonic, a profile file's table round-trips, and a table that is
// incomplete or out of order is refused at the entry at fault (issue 19,
// "Bad input"); NVLS asked where it cannot run is refused with the reason.
#include "core/nccl_table.hpp"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/presets_profiles.hpp"
#include "core/profile.hpp"

namespace brigade {
namespace {

TEST(NcclTable, PresetTablesAreValid) {
  int with_nvls = 0;
  for (const DeviceProfile& p : preset_gpu_profiles()) {
    ASSERT_TRUE(p.nccl.present()) << p.model;
    EXPECT_TRUE(check_nccl_table(p.nccl).is_ok()) << p.model << ": " << check_nccl_table(p.nccl).message();
    with_nvls += p.nccl.has(NcclAlgorithm::kNvls) ? 1 : 0;
  }
  EXPECT_EQ(with_nvls, 2);  // H100 and H200; not the A100s
  EXPECT_TRUE(check_nccl_table(NcclTable{}).is_ok());  // no table: the alpha-beta model
}

TEST(NcclTable, RoundTripsThroughAProfileFile) {
  const HardwareProfile h = HardwareProfile::defaults();
  const std::string path = ::testing::TempDir() + "/brigade_nccl_roundtrip.yaml";
  ASSERT_TRUE(save_profile(h, path).is_ok());
  auto back = load_profile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.is_ok()) << back.message();
  ASSERT_EQ(back->devices.size(), h.devices.size());
  for (size_t i = 0; i < h.devices.size(); ++i) {
    const NcclTable &a = h.devices[i].nccl, &b = back->devices[i].nccl;
    EXPECT_EQ(a.present(), b.present()) << h.devices[i].model;
    if (!a.present()) continue;
    EXPECT_EQ(a.nvlink_bandwidth_bytes_per_second, b.nvlink_bandwidth_bytes_per_second);
    EXPECT_EQ(a.net_overhead_seconds, b.net_overhead_seconds);
    for (int al = 0; al < kNumNcclAlgorithms; ++al)
      for (int pr = 0; pr < kNumNcclProtocols; ++pr) {
        const NcclEntry& x = a.at(static_cast<NcclAlgorithm>(al), static_cast<NcclProtocol>(pr));
        const NcclEntry& y = b.at(static_cast<NcclAlgorithm>(al), static_cast<NcclProtocol>(pr));
        EXPECT_EQ(x.latency_seconds, y.latency_seconds);
        EXPECT_EQ(x.hop_latency_seconds, y.hop_latency_seconds);
        EXPECT_EQ(x.bandwidth_factor, y.bandwidth_factor);
        EXPECT_EQ(x.max_bandwidth_bytes_per_second, y.max_bandwidth_bytes_per_second);
        EXPECT_EQ(x.channel_max_bandwidth_bytes_per_second,
                  y.channel_max_bandwidth_bytes_per_second);
        EXPECT_EQ(x.bus_bandwidth_bytes_per_second, y.bus_bandwidth_bytes_per_second);
      }
    EXPECT_EQ(a.tree_correction, b.tree_correction);
    EXPECT_EQ(a.ring_plateau_factor, b.ring_plateau_factor);
    EXPECT_EQ(a.channels, b.channels);
    EXPECT_EQ(a.graph_channels, b.graph_channels);
  }
}

// ---- bad input: one line at the entry at fault -------------------------------------

std::string load_error(const std::string& nccl_body) {
  const std::string text = "devices:\n  - model: x\n    nccl:\n" + nccl_body;
  auto r = parse_profile(text, "p.yaml");
  return r.is_ok() ? "ok" : r.message();
}

const char* const kLL = "        ll: {latency: 6.6us, nvlink: 0.6us, pcie: 1us, network: 2.7us, bandwidth: 0.5}\n";
const char* const kLL128 =
    "        ll128: {latency: 14us, nvlink: 1.9us, pcie: 2.5us, network: 4us, bandwidth: 0.92}\n";
const char* const kSimple =
    "        simple: {latency: 8.4us, nvlink: 3.4us, pcie: 5.7us, network: 14us, bandwidth: 1}\n";

TEST(NcclTableErrors, CompleteTableLoads) {
  EXPECT_EQ(load_error(std::string("      ring:\n") + kLL + kLL128 + kSimple), "ok");
}

// nccl.channels: NCCL's ring/tree channel count, one or by nodes (one,
// two, more; a shorter list repeats its last), 0 .. 64.
TEST(NcclTableErrors, ChannelsACountOrOnePerNodeCount) {
  const std::string ring = std::string("      ring:\n") + kLL + kLL128 + kSimple;
  EXPECT_EQ(load_error("      channels: [24, 0]\n" + ring), "ok");
  EXPECT_EQ(load_error("      channels: 65\n" + ring), "p.yaml:4:17: error: found '65'; expected an integer from 0 to 64");
  EXPECT_EQ(load_error("      channels: [1, 2, 3, 4]\n" + ring), "p.yaml:4:17: error: found a list; expected a channel count or a list of 1 to 3 (one "
            "node, two, more)");
  // nccl.graph_channels (the search's graph channels, what the per-channel
  // caps multiply): the same form.
  EXPECT_EQ(load_error("      graph_channels: [12, 8]\n" + ring), "ok");
  EXPECT_EQ(load_error("      graph_channels: 65\n" + ring),
            "p.yaml:4:23: error: found '65'; expected an integer from 0 to 64");
}

TEST(NcclTableErrors, MissingProtocolNamedAtItsAlgorithm) {
  EXPECT_EQ(load_error(std::string("      ring:\n") + kLL + kSimple),
            "p.yaml:5:9: error: found nccl.ring without 'll128'; expected ll, ll128 and simple "
            "for ring (a protocol table is complete)");
}

TEST(NcclTableErrors, MissingHopNamedAtItsEntry) {
  EXPECT_EQ(load_error(std::string("      ring:\n") + kLL +
                       "        ll128: {latency: 14us, nvlink: 1.9us, network: 4us, bandwidth: 0.92}\n" +
                       kSimple),
            "p.yaml:6:16: error: found nccl.ring.ll128 without 'pcie'; expected latency, nvlink, "
            "pcie, network and bandwidth in every ring and tree protocol");
}

TEST(NcclTableErrors, NonMonotonicNamedAtItsField) {
  EXPECT_EQ(load_error(std::string("      ring:\n") +
                       "        ll: {latency: 6.6us, nvlink: 3us, pcie: 1us, network: 2.7us, bandwidth: 0.5}\n" +
                       kLL128 + kSimple),
            "p.yaml:5:38: error: found nccl.ring.ll.nvlink 3.00 us above nccl.ring.ll128.nvlink "
            "1.90 us; expected ll <= ll128 <= simple in every step latency (each protocol buys "
            "bandwidth with latency)");
  EXPECT_EQ(load_error(std::string("      ring:\n") + kLL +
                       "        ll128: {latency: 14us, nvlink: 1.9us, pcie: 2.5us, network: 4us, bandwidth: 1}\n" +
                       "        simple: {latency: 8.4us, nvlink: 3.4us, pcie: 5.7us, network: 14us, bandwidth: 0.9}\n"),
            "p.yaml:6:85: error: found nccl.ring.ll128.bandwidth 1 above nccl.ring.simple.bandwidth "
            "0.9; expected ll <= ll128 <= simple in bandwidth (each protocol buys bandwidth with "
            "latency)");
}

TEST(NcclTableErrors, NvlsOnlyWithSimpleAndNotWithoutRing) {
  EXPECT_EQ(load_error(std::string("      ring:\n") + kLL + kLL128 + kSimple +
                       "      nvls:\n        ll: {latency: 0us, nvlink: 25us, network: 18us, bandwidth: 1}\n"),
            "p.yaml:9:9: error: found protocol 'll' for nvls; expected simple (NCCL runs NVLink "
            "SHARP with the Simple protocol alone)");
  EXPECT_EQ(load_error("      nvls:\n        simple: {latency: 0us, nvlink: 25us, network: 18us, "
                       "bandwidth: 1, bus_bandwidth: 480GB/s}\n"),
            "p.yaml:4:7: error: found nccl without 'ring'; expected a ring table with ll, ll128 and "
            "simple (every collective kind runs as a ring)");
}

TEST(NcclTableErrors, NvlsTreeOnlyWithSimpleAndWithNvls) {
  const std::string ring = std::string("      ring:\n") + kLL + kLL128 + kSimple;
  EXPECT_EQ(load_error(ring + "      nvls_tree:\n        ll: {latency: 0us, nvlink: 25us, network: "
                              "20.9us, bandwidth: 0.85}\n"),
            "p.yaml:9:9: error: found protocol 'll' for nvls_tree; expected simple (NCCL runs "
            "NVLink SHARP with the Simple protocol alone)");
  EXPECT_EQ(load_error(ring + "      nvls_tree:\n        simple: {latency: 0us, nvlink: 25us, "
                              "network: 20.9us, bandwidth: 0.85, channel_max_bandwidth: [0, "
                              "57.7GB/s, 45.5GB/s]}\n"),
            "p.yaml:9:9: error: found nccl.nvls_tree without nccl.nvls; expected nvls too "
            "(NVLS-tree reduces in each node's NVSwitch as NVLS does)");
  EXPECT_EQ(load_error(ring + "      nvls:\n        simple: {latency: 0us, nvlink: 25us, network: "
                              "18us, bandwidth: 1, bus_bandwidth: 480GB/s}\n" +
                       "      nvls_tree:\n        simple: {latency: 0us, nvlink: 25us, "
                       "bandwidth: 0.85}\n"),
            "p.yaml:11:17: error: found nccl.nvls_tree.simple without 'network'; expected "
            "latency, nvlink, network and bandwidth (NVLS's efficiency) in nvls_tree.simple");
}

// ---- NVLS where it cannot run: refused at the scenario's key, with the reason ----

Status check(const std::string& text) {
  Result<Scenario> r = parse_scenario(text, "p.yaml");
  if (!r.is_ok()) return Status::error("parse failed: " + r.message());
  return check_plan(*r);
}

TEST(NvlsRefusal, AmpereHasNoNvls) {
  EXPECT_EQ(check("topology: {preset: dgx-a100}\n"
                  "model:\n"
                  "  collective: {kind: allreduce, bytes: 1GiB, algorithm: nvls}\n")
                .message(),
            "p.yaml:3:46: error: found algorithm 'nvls'; expected hardware that can run NVLS: "
            "device 'gpu0' (NVIDIA A100-SXM4-80GB) has no NVLS: NVLink SHARP needs a "
            "third-generation NVSwitch (Hopper or later), and its NCCL table has no nvls");
  EXPECT_TRUE(check("topology: {preset: dgx-h100}\n"
                    "model:\n"
                    "  collective: {kind: allreduce, bytes: 1GiB, algorithm: nvls}\n")
                  .is_ok());
}

TEST(NvlsRefusal, AcrossNodesAndWithoutNvswitch) {
  // Across nodes NCCL runs NVLS as NVLS-tree: the presets' Hopper tables have it.
  EXPECT_TRUE(check("topology: {preset: dgx-h100, nodes: 2}\n"
                    "model:\n"
                    "  collective: {kind: allreduce, bytes: 1GiB, algorithm: nvls}\n")
                  .is_ok());
  const std::string pcie = check("topology: {preset: pcie-4gpu}\n"
                                 "model:\n"
                                 "  collective: {kind: allreduce, bytes: 1GiB, algorithm: nvls}\n")
                               .message();
  EXPECT_NE(pcie.find("has no NVLS"), std::string::npos) << pcie;
}

}  // namespace
}  // namespace brigade
