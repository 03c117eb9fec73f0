// NCCL's tuning table for one device model: what its protocols (LL, LL128,
// Simple) and algorithms (ring, tree, NVLS) cost, in the structure of NCCL's
// own tuning model (src/graph/tuning.cc, ncclTopoTuneModel): a latency per
// call, a latency per algorithm step by the kind of hop the step crosses,
// and a bus bandwidth per protocol as a fraction of the path's bandwidth,
// capped. costmodel/nccl_model.hpp turns a table into a time and NCCL's
// choice; this file holds the data and its checks only.
//
// A table belongs to a DeviceProfile (a device model: NCCL's constants
// depend on the GPU generation). The presets' tables state their sources in
// core/presets_profiles.cpp; a profile file may give its own (`nccl:`,
// docs/scenario-format.md, "Profile files"); `brigade calibrate` fits one
// from measured collectives.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.hpp"

namespace brigade {

// NCCL's protocols, in the order in which each trades latency for bandwidth
// (NCCL docs, "Environment variables", NCCL_PROTO): LL (8-byte stores with a
// flag, half the bandwidth, lowest latency), LL128 (128-byte lines with a
// flag, about 120/128 of the bandwidth), Simple (bulk copies and memory
// fences, all the bandwidth, highest latency).
enum class NcclProtocol : std::uint8_t { kLL, kLL128, kSimple };
inline constexpr int kNumNcclProtocols = 3;
std::string_view nccl_protocol_name(NcclProtocol p);  // "ll", "ll128", "simple"
std::optional<NcclProtocol> parse_nccl_protocol(std::string_view s);

// NCCL's algorithms that the model covers: ring (every kind), tree
// (AllReduce), NVLS (NVLink SHARP AllReduce in the NVSwitch, Hopper and
// later, one node) and NVLS-tree (NVLS inside each node, a tree between the
// nodes: NCCL's NVLS across nodes without CollNet). CollNet and PAT are not
// modelled (docs/costmodel.md, "NCCL's protocols and algorithms").
enum class NcclAlgorithm : std::uint8_t { kRing, kTree, kNvls, kNvlsTree };
inline constexpr int kNumNcclAlgorithms = 4;
// "ring", "tree", "nvls", "nvls_tree"
std::string_view nccl_algorithm_name(NcclAlgorithm a);
// NVLS or NVLS-tree: reduced in the NVSwitch, Simple only, no PCIe hop.
inline bool nccl_is_nvls(NcclAlgorithm a) {
  return a == NcclAlgorithm::kNvls || a == NcclAlgorithm::kNvlsTree;
}
std::optional<NcclAlgorithm> parse_nccl_algorithm(std::string_view s);

// The NCCL release whose tuning model a table follows: a cluster runs one
// NCCL, and its choice of algorithm and protocol (and the time NCCL's model
// gives it) differs between releases. Each version's differences are read
// from NVIDIA/nccl at its tag (docs/costmodel.md, "NCCL's version"):
// - k2_24: NCCL 2.24.3 (tag v2.24.3-1, commit 6aae3792), the release of the
//   published nccl-tests tables of tests/data/nccl_tests/;
// - k2_29: NCCL 2.29 (tag v2.29.7-1, commit b91894bd; the presets' constants
//   were read at 5067397c, whose modelled lines are the same), the default.
enum class NcclVersion : std::uint8_t { k2_24, k2_29 };
inline constexpr int kNumNcclVersions = 2;
inline constexpr NcclVersion kDefaultNcclVersion = NcclVersion::k2_29;
std::string_view nccl_version_name(NcclVersion v);  // "2.24", "2.29"
std::optional<NcclVersion> parse_nccl_version(std::string_view s);
// "2.24, 2.29": the versions supported, for messages.
std::string nccl_version_list();

// What an algorithm step crosses (NCCL's NCCL_HW_NVLINK, NCCL_HW_PCI,
// NCCL_HW_NET): a step inside a node over NVLink or PCIe, or between nodes.
enum class NcclHop : std::uint8_t { kNvlink, kPcie, kNetwork };
inline constexpr int kNumNcclHops = 3;
std::string_view nccl_hop_name(NcclHop h);  // "nvlink", "pcie", "network"

// One protocol of one algorithm. A negative latency means "not given".
struct NcclEntry {
  double latency_seconds = -1;  // per call (NCCL's baseLat)
  // Per algorithm step, by the hop it crosses (NCCL's hwLat); < 0: none
  // (an NVLS entry has no PCIe hop).
  std::array<double, kNumNcclHops> hop_latency_seconds{-1, -1, -1};
  // Bus bandwidth = the path's bandwidth x this (NCCL's model refinements:
  // ring LL 0.5, LL128 0.92, Simple 1); 0: not given.
  double bandwidth_factor = 0;
  // The factor between nodes where it differs (tree LL128: 120/128 across
  // nodes, 7/9 inside one); 0: bandwidth_factor.
  double multinode_bandwidth_factor = 0;
  // Caps on the bus bandwidth per rank, by the number of nodes (1, 2, more:
  // NCCL's llMaxBws columns N1, N2, N4); 0: none.
  std::array<double, 3> max_bandwidth_bytes_per_second{0, 0, 0};
  // Caps on the bandwidth of one channel, by the number of nodes (1, 2,
  // more): NVLS-tree's perChMaxNVLSTreeBws (tuning.cc; Hopper 0, 57.7, 45.5
  // GB/s); for ring LL128, tree Simple and tree LL128, perChMaxRingLL128Bws,
  // perChMaxTreeBws and perChMaxTreeLL128Bws, applied as NCCL does, times
  // the table's graph_channels (only where they are known). 0: none.
  std::array<double, 3> channel_max_bandwidth_bytes_per_second{0, 0, 0};
  // NVLS only: the AllReduce bus bandwidth the switch sustains, measured
  // (NCCL's own figure, 2 x 0.85 of the links, is an upper bound it uses to
  // rank; nccl-tests measures less). 0: not given.
  double bus_bandwidth_bytes_per_second = 0;

  bool given() const { return latency_seconds >= 0; }
  double factor(bool multinode) const {
    return multinode && multinode_bandwidth_factor > 0 ? multinode_bandwidth_factor
                                                       : bandwidth_factor;
  }
  double cap(int nodes) const {
    return max_bandwidth_bytes_per_second[static_cast<size_t>(nodes <= 1 ? 0 : nodes == 2 ? 1 : 2)];
  }
  double channel_cap(int nodes) const {
    return channel_max_bandwidth_bytes_per_second[static_cast<size_t>(nodes <= 1   ? 0
                                                                      : nodes == 2 ? 1
                                                                                   : 2)];
  }
};

struct NcclTable {
  // The NCCL release whose model this table follows (the formulas that
  // differ between releases: costmodel/nccl_model.cpp, nccl_estimate).
  NcclVersion version = kDefaultNcclVersion;
  // entries[algorithm][protocol]; an algorithm with no entry given is absent
  // (a GPU without NVLS has no nvls entries).
  std::array<std::array<NcclEntry, kNumNcclProtocols>, kNumNcclAlgorithms> entries{};
  // NCCL's bandwidth of one GPU's NVLinks as its topology search sees them
  // (links x NCCL's per-link figure, src/graph/topo.h): the graph bandwidth
  // of rings and trees inside a node. 0: the route's achieved bandwidth.
  double nvlink_bandwidth_bytes_per_second = 0;
  // Per step between nodes, what the proxy costs to post a network send
  // (NCCL's getNetOverhead: 1 us on Intel hosts, 2 us on AMD; x3 for
  // Simple). A ring step inside a node of a multi-node ring takes at least
  // this. 0: none.
  double net_overhead_seconds = 0;
  // NCCL's tree correction: its trees run slower than their model at medium
  // sizes, so NCCL multiplies a tree AllReduce's bandwidth by a factor per
  // protocol, by log2(bytes / 64) from 0 to 22 (src/graph/tuning.cc,
  // treeCorrectionFactor). 0 entries: 1.
  std::array<std::array<double, 23>, kNumNcclProtocols> tree_correction{};
  // NCCL's ring "plateau": a multi-node ring Simple AllReduce of at least 64
  // bytes per channel and rank takes this times its latency (ncclTopoGetAlgoTime:
  // 1.4 from Ampere on, 1.9 before). 0: 1 (none).
  double ring_plateau_factor = 0;
  // NCCL's collective channels for rings and trees (comm->nChannels, the
  // "N coll channels" of NCCL's init log), by the number of nodes (one,
  // two, more); 0: not known. With it the NCCL model runs a small
  // collective on fewer channels as NCCL's enqueue does (src/enqueue.cc,
  // topoGetAlgoInfo: a channel per nt x threadThreshold bytes) and applies
  // the ring plateau's threshold with the true count.
  std::array<int, 3> channels{0, 0, 0};
  int channels_for(int nodes) const {
    return channels[static_cast<size_t>(nodes <= 1 ? 0 : nodes == 2 ? 1 : 2)];
  }
  // The channels of NCCL's ring and tree graphs (graphs[a]->nChannels: what
  // its topology search finds, src/graph/search.cc ncclTopoCompute, before
  // ncclTopoPostset duplicates them into comm->nChannels), by the number of
  // nodes (one, two, more); 0: not known. ncclTopoTuneModel multiplies the
  // per-channel caps (channel_max_bandwidth of ring LL128, tree Simple, LL
  // and LL128) by these, not by `channels`: without them no cap applies.
  std::array<int, 3> graph_channels{0, 0, 0};
  int graph_channels_for(int nodes) const {
    return graph_channels[static_cast<size_t>(nodes <= 1 ? 0 : nodes == 2 ? 1 : 2)];
  }

  bool present() const { return has(NcclAlgorithm::kRing); }
  bool has(NcclAlgorithm a) const {
    for (const NcclEntry& e : entries[static_cast<size_t>(a)])
      if (e.given()) return true;
    return false;
  }
  const NcclEntry& at(NcclAlgorithm a, NcclProtocol p) const {
    return entries[static_cast<size_t>(a)][static_cast<size_t>(p)];
  }
  NcclEntry& at(NcclAlgorithm a, NcclProtocol p) {
    return entries[static_cast<size_t>(a)][static_cast<size_t>(p)];
  }
};

// The protocols an algorithm is defined with: ring and tree all three, NVLS
// and NVLS-tree Simple only (NCCL runs NVLS with Simple alone).
bool nccl_protocol_defined(NcclAlgorithm a, NcclProtocol p);
// The hops an algorithm's steps cross: NVLS and NVLS-tree no PCIe (they
// need an NVSwitch).
bool nccl_hop_defined(NcclAlgorithm a, NcclHop h);

// Checks a table built in code (a preset's, a fit's) by the rules the
// profile reader applies with positions (core/profile_io.cpp): complete
// (ring present; every algorithm present has every defined protocol, each
// with its latency, every defined hop and a bandwidth factor in (0, 1]; an
// NVLS entry also its bus bandwidth; NVLS-tree only with NVLS) and monotonic (LL <= LL128 <= Simple
// in every hop latency and in the bandwidth factor: each protocol buys bandwidth with latency). An
// empty table (no entries at all) is valid: no NCCL model. "found nccl.ring.ll128 without hop
// latency 'pcie'; expected
// ...", "found nccl.ring.ll.nvlink 3 us above nccl.ring.ll128.nvlink 1.9 us;
// expected ...".
Status check_nccl_table(const NcclTable& table);

}  // namespace brigade
