// NCCL's protocols and algorithms: the time of one collective as NCCL's own
// tuning model computes it (src/graph/tuning.cc: ncclTopoTuneModel,
// ncclTopoGetAlgoTime; src/enqueue.cc: topoGetAlgoInfo), restated in
// Brigade's terms, and NCCL's choice: the (algorithm, protocol) of least
// time for the collective's size. Both judges use the choice through the
// closed forms of costmodel/collectives.hpp: it is handed over as the
// algorithm to expand and the per-call overhead, step latency and step
// bandwidth that make that closed form equal NCCL's time
// (NcclChoice::expansion, overhead_seconds, step). docs/costmodel.md, "NCCL's
// protocols and algorithms", says every formula with its source.
//
// Units: seconds, bytes, bytes per second. M is nccl-tests' "size" (NCCL's
// nBytes: ncclFuncMaxSendRecvCount, the gathered size for AllGather and
// ReduceScatter), as everywhere in costmodel/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/nccl_table.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "costmodel/collectives.hpp"

namespace brigade::cost {

// A device group as NCCL's tuning model sees it.
struct NcclGroupShape {
  int ranks = 1;
  int nodes = 1;
  int ranks_per_node = 1;  // NCCL's ppn: ranks / nodes (the largest node's count)
  NcclHop intra_hop = NcclHop::kNvlink;  // what a step inside a node crosses
  // Every node's ranks reach each other through one NVSwitch (a switch all
  // of whose links on their routes are NVLink): what NVLS needs.
  bool nvswitch = false;
  // Bus bandwidth of a ring inside a node, per rank (NCCL's graph bwIntra x
  // channels): the table's nvlink_bandwidth over NVLink, else the slowest
  // route between ring neighbours inside a node.
  double intra_bandwidth_bytes_per_second = 0;
  // Between nodes, per node: the sum of the node's ranks' own network
  // bandwidth (each GPU its NIC, as NCCL spreads channels over the rails),
  // the slowest node. Infinite on one node.
  double inter_bandwidth_bytes_per_second = 0;
  // The largest collective_overhead_seconds of the ranks: the launch that
  // NCCL's model leaves out and nccl-tests measures.
  double launch_overhead_seconds = 0;
};

// One (algorithm, protocol) for one collective.
struct NcclEstimate {
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  bool available = false;
  std::string why_not;         // when not available: a phrase ("NVLS needs an NVSwitch")
  double latency_seconds = 0;  // NCCL's latency: base + steps x hop latencies
  double bus_bandwidth_bytes_per_second = 0;  // NCCL's busBw for the algorithm
  // busBw converted (ring n/steps, tree 1/2; NVLS-tree n/steps under NCCL
  // 2.29, 5/6 under 2.24: NcclTable::version)
  double alg_bandwidth_bytes_per_second = 0;
  double seconds = 0;  // launch + latency + M / (algBw x channels / all channels): what it takes
  // NCCL's own estimate, which ranks the candidates (ncclTopoGetAlgoTime):
  // launch + latency + M / algBw, every channel counted. Equal to `seconds`
  // unless the collective runs on fewer channels than the table's.
  double model_seconds = 0;
  // The channels it runs on (nccl_channels_used); 0: not modelled (NVLS,
  // NVLS-tree, or a table without `channels`).
  int channels = 0;
  // NVLS and NVLS-tree: the chunk NCCL cuts for this size
  // (nccl_nvls_chunk_bytes, nccl_nvls_tree_chunk_bytes); 0 for ring and tree.
  double chunk_bytes = 0;
};

// The chunk NVLS AllReduce on one node moves per channel and head (src/
// enqueue.cc, calcCollChunking, NVIDIA/nccl 5067397c): 128 KiB
// (NCCL_NVLS_CHUNKSIZE), cut to 64 KiB below 64 x ops x 128 KiB, to 32 KiB
// below 8 x ops x 64 KiB and to 16 KiB below 2 x ops x 32 KiB, ops = NCCL's
// nvlsChannels (16 on Hopper, NVLS_NCHANNELS_SM90) x heads (one per local
// rank). On 8 GPUs (ops 128): 128 KiB from 1 GiB, 64 KiB from 64 MiB, 32 KiB
// from 8 MiB, 16 KiB below.
double nccl_nvls_chunk_bytes(double bytes, int heads);

// The chunk NVLS-tree AllReduce moves per channel and head (src/enqueue.cc,
// calcCollChunking, NVLS_TREE, the same at v2.24.3-1 and 5067397c): from
// 128 KiB (NCCL_NVLS_CHUNKSIZE), at most 64 KiB on four nodes or more
// (nvlsTreeMaxChunkSize), cut to 256 KiB below 32 x ops x chunk, 128 KiB
// below 16 x, 64 KiB below 4 x and 32 KiB below 1 x ops x chunk, ops =
// nvlsChannels (16) x heads (one per local rank, each with its NIC). Eight
// heads: on two nodes 128 KiB from 64 MiB, 64 KiB from 8 MiB, 32 KiB below;
// on four or more 64 KiB from 8 MiB, 32 KiB below.
double nccl_nvls_tree_chunk_bytes(double bytes, int heads, int nodes);

// The channels NCCL runs a ring or tree collective of `bytes` on (src/
// enqueue.cc, topoGetAlgoInfo, NVIDIA/nccl 5067397c): from the table's
// channels for the group's nodes, one fewer while bytes < channels x nt x
// threshold, down to 1; nt the protocol's threads per channel (LL 512,
// LL128 640, Simple 512: NCCL_*_MAX_NTHREADS, src/include/device.h) and
// threshold its bytes per thread (LL 8, LL128 8, Simple 64:
// NCCL_*_THREAD_THRESHOLD, src/include/comm.h; ring LL x ranks,
// ncclTopoTuneModel). 0 for NVLS and NVLS-tree (NCCL runs them on its
// nvlsChannels whatever the size) and where the table's channels are not known.
int nccl_channels_used(const NcclTable& table, int nodes, int ranks, NcclAlgorithm algorithm,
                       NcclProtocol protocol, double bytes);

// The SMs NCCL's kernel holds while the collective runs: one thread block a
// channel (src/enqueue.cc: the kernel is launched with a grid of
// nChannels blocks), the ring's or tree's `channels`, NVLS's and
// NVLS-tree's nvlsChannels (16 on Hopper, NVLS_NCHANNELS_SM90); 0 where the
// channels are not known (a table without them). core/profile.hpp,
// nccl_sm_share, turns it into the share of a device's compute it takes.
int nccl_sm_channels(const NcclEstimate& e);

// NCCL's estimate of one (algorithm, protocol), by the model of the
// table's NCCL release (NcclTable::version); not available where the
// table lacks it, the kind has no such algorithm (tree and NVLS are
// AllReduce only), or the group cannot run it (NVLS: one node of an
// NVSwitch). Preconditions: ranks >= 2, bytes >= 0.
NcclEstimate nccl_estimate(const NcclTable& table, const NcclGroupShape& group,
                           CollectiveKind kind, double bytes, NcclAlgorithm algorithm,
                           NcclProtocol protocol);

// NCCL's choice and how Brigade's closed forms run it.
struct NcclChoice {
  NcclEstimate chosen;  // the least model_seconds (NCCL's rank); it takes chosen.seconds
  std::vector<NcclEstimate> candidates;  // every (algorithm, protocol) considered, in order
  // The chosen one as a closed form of costmodel/collectives.hpp: expand
  // `expansion` (ring for ring and NVLS, tree for tree) with this overhead
  // per call (the launch) and these steps (alpha = NCCL's whole latency over
  // the expansion's latency steps; bandwidth and reduce bandwidth such that
  // the bytes term is M / algBw): collective_cost then gives chosen.seconds
  // exactly.
  CollectiveAlgorithm expansion = CollectiveAlgorithm::kRing;
  double overhead_seconds = 0;
  AlphaBeta step;
};

// NCCL's choice among the candidates that `requested` allows: kAuto every
// algorithm of the table (NCCL's default), kRing / kTree / kNvls that one
// (as NCCL_ALGO restricts it; tree for a kind without tree is its ring).
// Errors ("found X; expected Y"): NVLS asked where it is not available (the
// reason: no NVSwitch, several nodes, a table without nvls, a kind other
// than AllReduce); no candidate at all.
Result<NcclChoice> nccl_choose(const NcclTable& table, const NcclGroupShape& group,
                               CollectiveKind kind, double bytes, CollectiveAlgorithm requested);

// The shape of `group` on a topology under a profile (see NcclGroupShape).
// The topology must have passed validate(); group non-empty, distinct ids.
NcclGroupShape nccl_group_shape(const Topology& topology, const HardwareProfile& profile,
                                const NcclTable& table, const std::vector<int>& group);

// The one rule every judge calls: whether NCCL's model times this
// collective and, if so, its choice. None (the alpha-beta model times it)
// for a lone rank, AllToAll (pairwise sends, which NCCL does not tune),
// halving-doubling and hierarchical (the alpha-beta model's own
// algorithms), profile.collective_model alpha-beta, and, under auto, a
// group with a device whose profile has no NCCL table. Errors: nvls under
// alpha-beta or where NVLS cannot run (with the reason); collective_model
// nccl with a device model without a table, or with halving-doubling or
// hierarchical asked.
Result<std::optional<NcclChoice>> nccl_collective(const Topology& topology,
                                                  const HardwareProfile& profile,
                                                  CollectiveKind kind,
                                                  CollectiveAlgorithm requested,
                                                  const std::vector<int>& group, double bytes);

}  // namespace brigade::cost
