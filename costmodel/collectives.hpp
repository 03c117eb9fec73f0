// Collectives in the alpha-beta model: the closed forms of the contract
// between costmodel/ and sim/ (docs/ARCHITECTURE.md, "Collective
// algorithms"), algorithm and bus bandwidth as nccl-tests defines them, and
// the derivation of alpha and bandwidth for a device group on a topology.
//
// Units: seconds, bytes, bytes per second. N ranks, M bytes as nccl-tests'
// "size" (AllReduce/Broadcast/Reduce: the tensor on each rank; AllGather: the
// gathered output; ReduceScatter: the unreduced input; AllToAll: what each
// rank holds). beta = 1 / bandwidth. Steps that reduce (the ReduceScatter
// phase of AllReduce, ReduceScatter, Reduce) move their message at the
// reduce bandwidth (beta_r = 1 / reduce bandwidth >= beta): the receiver
// also reads its own operand and writes the sum (reduce_bandwidth_bytes_per_second).
// Every formula is in docs/costmodel.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"

namespace brigade::cost {

// Latency per message and bandwidth of one channel (per direction).
struct AlphaBeta {
  double alpha_seconds = 0;
  double bandwidth_bytes_per_second = 0;
  // Bytes per second of a message that the receiver reduces into its own data
  // (reduce_bandwidth_bytes_per_second below); 0 = bandwidth (reductions cost
  // what a copy costs).
  double reduce_bandwidth_bytes_per_second = 0;
};

// How fast a reduction step delivers its message, reduced, into the
// receiver's data. Reducing M bytes reads the receiver's operand and the
// message and writes the sum: 3M bytes of memory traffic on the receiver,
// whose streaming kernels achieve `receiver_memory_bandwidth` B/s.
//  - A link with its own copy engine (NVLink, PCIe, InfiniBand, Ethernet):
//    the reduction is pipelined with the copy (NCCL reduces slices as they
//    arrive, in the kernel that moves them), so the step takes the longer of
//    the two: min(B, B_mem / 3).
//  - Shared memory (host threads): the receiving thread's own loads and stores
//    are the copy (read the message, write the result; what B measures) and
//    the reduction adds the read of its operand on the same core, in series:
//    1 / (1/B + 1/B_mem) (realexec/ring.cpp: one fused loop per step).
// A receiver with no memory bandwidth given (<= 0) reduces for free: B.
double reduce_bandwidth_bytes_per_second(double link_bandwidth_bytes_per_second,
                                         LinkClass bottleneck,
                                         double receiver_memory_bandwidth_bytes_per_second);

// The same for a route on a topology: the route's bandwidth
// (route_bandwidth_bytes_per_second), its bottleneck class, and the receiving
// device's achieved memory bandwidth (peak_memory_bandwidth_bytes_per_second
// x memory_efficiency of its profile).
double route_reduce_bandwidth_bytes_per_second(const Route& route, const Topology& topology,
                                               const HardwareProfile& profile, int receiver);

// The alpha-beta of one step of a collective's algorithm from `route.src`
// to `receiver` (every judge's one place for it): where the profile's entry
// for the route's bottleneck class gives a collective step's own figures
// (LinkProfile::collective_*, measured by brigade calibrate with every rank
// moving at once), those, capped at the route's bandwidth (a rank's step
// never beats one message alone); each one it lacks comes from the message model:
// alpha = route_alpha_seconds, bandwidth = route_bandwidth_bytes_per_second,
// reduce bandwidth = route_reduce_bandwidth_bytes_per_second. Where the
// profile also gives steps of the collective's own `kind`
// (LinkProfile::KindSteps), its alpha replaces the step alpha and its
// bandwidth scale at the collective's size `bytes` (M, nccl-tests' size)
// multiplies the measured bandwidths before the cap; `warm`: a collective
// whose buffers are still in cache (nothing but collectives ran on its ranks
// since their previous one) takes the kind's warm alpha and scale where the
// profile has them (LinkProfile::KindSteps). A route from a device to itself:
// alpha 0, infinite bandwidths.
AlphaBeta collective_step_alpha_beta(const Route& route, const Topology& topology,
                                     const HardwareProfile& profile, int receiver,
                                     CollectiveKind kind, double bytes, bool warm = false);

// ---- per-algorithm closed forms (preconditions: n >= 1, bytes >= 0, bandwidth > 0;
// halving-doubling: n a power of two; collective_cost checks them) ---------------

// Point-to-point message: alpha + M/B.
double p2p_seconds(double bytes, AlphaBeta link);

// Ring attention (context parallelism; Liu et al. 2023; Megatron-Core /
// Transformer Engine's AttnFuncWithCPAndKVP2P): `steps` attention blocks of
// `block_seconds` each; the chunk block i needs arrives by a hop of
// `hop_seconds` issued when block i-1 starts (after block i-2 and the hop
// before it). Block i starts at i max(block, hop):
//   block + (steps - 1) max(block, hop).
double ring_attention_seconds(int steps, double block_seconds, double hop_seconds);

// Ring AllReduce: 2(N-1)alpha + (N-1)/N * M (beta_r + beta).
double ring_allreduce_seconds(int n, double bytes, AlphaBeta link);
// Double binary tree AllReduce: 2 ceil(lg N) alpha + (N-1)/N * M (beta_r + beta).
double tree_allreduce_seconds(int n, double bytes, AlphaBeta link);
// Rabenseifner (halving-doubling) AllReduce: 2 lg N alpha + (N-1)/N * M (beta_r + beta).
double halving_doubling_allreduce_seconds(int n, double bytes, AlphaBeta link);
// Hierarchical AllReduce over `nodes` x `ranks_per_node` ranks: intra-node ring
// ReduceScatter, inter-node ring AllReduce of M/g on each rail, intra-node AllGather.
double hierarchical_allreduce_seconds(int nodes, int ranks_per_node, double bytes,
                                      AlphaBeta intra, AlphaBeta inter);

// Ring AllGather: (N-1)alpha + (N-1)/N * M beta; ReduceScatter the same with
// beta_r. The tree algorithm of these kinds is the ring (NCCL has no tree variant).
double ring_allgather_seconds(int n, double bytes, AlphaBeta link);
double ring_reducescatter_seconds(int n, double bytes, AlphaBeta link);
// Recursive doubling AllGather / halving ReduceScatter: lg N alpha + (N-1)/N * M beta
// (ReduceScatter: beta_r).
double halving_doubling_allgather_seconds(int n, double bytes, AlphaBeta link);
double halving_doubling_reducescatter_seconds(int n, double bytes, AlphaBeta link);
// Hierarchical AllGather (inter-node rails, then intra-node) and ReduceScatter
// (intra-node, then inter-node rails): the sum of the two ring terms.
double hierarchical_allgather_seconds(int nodes, int ranks_per_node, double bytes,
                                      AlphaBeta intra, AlphaBeta inter);
double hierarchical_reducescatter_seconds(int nodes, int ranks_per_node, double bytes,
                                          AlphaBeta intra, AlphaBeta inter);

// Broadcast / Reduce as a pipelined chain (ring): (N-1)alpha + M/B; 0 for N = 1.
double ring_broadcast_seconds(int n, double bytes, AlphaBeta link);
// Binomial tree: ceil(lg N)(alpha + M/B).
double tree_broadcast_seconds(int n, double bytes, AlphaBeta link);
// Scatter + AllGather (van de Geijn): 2 lg N alpha + 2(N-1)/N * M/B.
double halving_doubling_broadcast_seconds(int n, double bytes, AlphaBeta link);
// Reduce mirrors Broadcast with beta_r: chain (N-1)alpha + M beta_r; binomial
// tree ceil(lg N)(alpha + M beta_r); ReduceScatter by halving + binomial gather
// 2 lg N alpha + (N-1)/N * M (beta_r + beta).
double ring_reduce_seconds(int n, double bytes, AlphaBeta link);
double tree_reduce_seconds(int n, double bytes, AlphaBeta link);
double halving_doubling_reduce_seconds(int n, double bytes, AlphaBeta link);

// Pairwise-exchange AllToAll (any algorithm): (N-1)(alpha + M/N / B).
double alltoall_seconds(int n, double bytes, AlphaBeta link);
// An AllToAll whose ranks have peers on their own node and on others, as
// NCCL runs it (grouped sends to every peer at once): a rank's blocks to
// its `local` peers go one after another over its port inside the node
// (NVLink), those to its `remote` peers one after another over its port
// out of the node (the NIC), the two at once:
//   max(local (alpha_i + M/N beta_i), remote (alpha_o + M/N beta_o)).
// With remote 0 (or local 0) it is alltoall_seconds over the one link.
double alltoall_split_seconds(int n, int local, int remote, double bytes, AlphaBeta intra,
                              AlphaBeta inter);

// ---- which algorithm, on how many ranks (one rule for every judge and the CLI) ----

// The algorithms the model defines for `kind`: AllReduce all four;
// AllGather and ReduceScatter ring, halving-doubling, hierarchical;
// Broadcast and Reduce ring, tree, halving-doubling; AllToAll ring (pairwise
// exchange). `defined_algorithm_list` says them as "ring, tree or
// halving-doubling".
std::vector<CollectiveAlgorithm> defined_algorithms(CollectiveKind kind);
std::string defined_algorithm_list(CollectiveKind kind);

// The algorithm a collective of `kind` is modelled with when `requested` is
// asked for. AllGather and ReduceScatter have no tree variant (NCCL has
// none): ring. AllToAll is N-1 pairwise exchanges whatever is asked: ring
// (hierarchical AllToAll is an error, check_algorithm). Otherwise as asked.
// Where the result differs, `why` (may be null) says so in a phrase such as
// "tree is defined for allreduce, broadcast and reduce".
CollectiveAlgorithm modelled_algorithm(CollectiveKind kind, CollectiveAlgorithm requested,
                                       std::string* why = nullptr);

// What check_algorithm found wrong: the algorithm for the kind, or the
// number of ranks for the algorithm.
enum class AlgorithmFault { kNone, kAlgorithm, kRanks, kRanksPerNode };

// The combinations the model defines ("found X; expected Y", no position):
// halving-doubling on a power-of-two number of ranks (AllToAll, modelled as
// pairwise exchanges, excepted); hierarchical only for AllReduce, AllGather
// and ReduceScatter, and, when `ranks_per_node` is given (>= 0; a
// hierarchical query's G), on whole nodes of at least one rank. `fault` (may
// be null) says which part is at fault.
Status check_algorithm(CollectiveKind kind, CollectiveAlgorithm algorithm, std::int64_t ranks,
                       AlgorithmFault* fault = nullptr, std::int64_t ranks_per_node = -1);

// ---- one query, checked ---------------------------------------------------------

struct CollectiveQuery {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  int ranks = 1;
  double bytes = 0;  // M, nccl-tests "size"
  AlphaBeta intra;   // the group's links (hierarchical: inside a node)
  // Hierarchical only: ranks per node (g) and the inter-node rail's alpha-beta.
  int ranks_per_node = 0;
  AlphaBeta inter;
  // AllToAll over a group that spans nodes with more than one rank on some
  // (alltoall_split_seconds): the most peers a rank has on its own node and
  // on other nodes; `intra` is then the slowest link inside a node and
  // `inter` the slowest between nodes. Both 0 otherwise (pairwise exchange
  // over `intra`, the group's slowest link).
  int local_peers = 0, remote_peers = 0;
  // Paid once per call (launch and handshake), on top of the algorithm.
  double overhead_seconds = 0;
  // Set by collective_query_on where NCCL's model times the collective
  // (costmodel/nccl_model.hpp): NCCL's choice; `algorithm`, `intra` and
  // `overhead_seconds` are then the closed form that gives its time.
  bool nccl = false;
  NcclAlgorithm nccl_algorithm = NcclAlgorithm::kRing;
  NcclProtocol nccl_protocol = NcclProtocol::kSimple;
  // The SMs NCCL's kernel holds while it runs (nccl_sm_channels); 0: not
  // known, or not NCCL's.
  int nccl_sm_channels = 0;
};

struct CollectiveCost {
  double seconds = 0;
  double alg_bandwidth_bytes_per_second = 0;  // M / T (0 when T = 0)
  double bus_bandwidth_bytes_per_second = 0;  // algBw x bus_bandwidth_factor
};

// The time of one collective and its nccl-tests bandwidths. Errors ("found X;
// expected Y", no position): ranks < 1, bytes < 0, alpha < 0, bandwidth <= 0,
// halving-doubling with N not a power of two, hierarchical with N not
// divisible by ranks_per_node, hierarchical Broadcast/Reduce/AllToAll.
Result<CollectiveCost> collective_cost(const CollectiveQuery& q);

// The alpha-beta model's two terms apart (the seed's 2(N-1)alpha +
// 2(N-1)/N beta M): every closed form is alpha terms that do not depend on
// M plus beta terms proportional to it, so the alpha term is the time of
// the same collective of 0 bytes, less the call's overhead, and the beta
// term the rest. `seconds`: collective_cost(q)'s. (`brigade collective`,
// the app's teaching view.)
struct AlphaBetaSplit {
  double alpha_seconds = 0;
  double beta_seconds = 0;
  double messages = -1;  // alpha term / alpha: the latencies paid in series (-1: not one alpha)
};
AlphaBetaSplit split_alpha_beta(const CollectiveQuery& q, double seconds);

// nccl-tests' busBw factor (doc/PERFORMANCE.md there): AllReduce 2(n-1)/n;
// AllGather, ReduceScatter, AllToAll (n-1)/n; Broadcast, Reduce 1.
double bus_bandwidth_factor(CollectiveKind kind, int n);

// Alpha and bandwidth of a device group on a topology (route_alpha_seconds /
// route_bandwidth_bytes_per_second): the slowest of the ring neighbours
// group[i] -> group[i+1 mod N]. Hierarchical: nodes from Device::node (every
// node must hold the same number of ranks), intra = slowest ring neighbours
// inside each node, inter = slowest rail neighbours (same local rank, next
// node). Reduce bandwidths: the slowest route_reduce_bandwidth_bytes_per_second
// of the same neighbours (into the successor). Overhead: the largest collective_overhead_seconds of the ranks'
// profiles, except for a `warm` collective of a kind with warm figures
// (LinkProfile::KindSteps::has_warm): those figures, and no call overhead.
// The topology must have passed validate().
Result<CollectiveQuery> collective_query_on(const Topology& topology,
                                            const HardwareProfile& profile,
                                            CollectiveKind kind, CollectiveAlgorithm algorithm,
                                            const std::vector<int>& group, double bytes,
                                            bool warm = false);

// Everything collective_query_on (and the NCCL model under it:
// nccl_collective, nccl_group_shape, nvls_refusal, on_nvswitch) reads of a
// group, in group order: its size; per rank, its node numbered by first
// appearance, its device profile (HardwareProfile::for_device, by position
// in the profile) and the device's own memory bandwidth; per route those
// functions take (ring neighbours in group order, ring neighbours inside
// each node, each rank to the same local rank of the next node, r mod its
// size), the route's channel count, bottleneck class, summed latency,
// route_bandwidth_bytes_per_second and whether every link is NVLink
// (doubles as their bits). The rest they read is the profile's and the
// call's own (kind, algorithm, size, warmth). So two groups of one topology
// and profile with equal signatures get the same query, hence the same
// time, for every collective: a pipeline's stages whose groups sit alike on
// identical nodes are priced once (costmodel/plan_memo.hpp). on_nvswitch and
// nvls_refusal's verdict are functions of the in-node routes' channel counts
// and classes, the node pattern and the profiles. Empty for a group that
// collective_query_on refuses (empty, an id out of range, a device twice).
// Whoever makes those functions read more of a group adds it here
// (tests/costmodel/plan_memo_test.cpp, PlanMemo.SignatureClasses*).
std::vector<std::uint64_t> collective_group_signature(const Topology& topology,
                                                      const HardwareProfile& profile,
                                                      const std::vector<int>& group);

}  // namespace brigade::cost
