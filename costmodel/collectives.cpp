#include "costmodel/collectives.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "costmodel/nccl_model.hpp"

namespace brigade::cost {
namespace {

double beta(AlphaBeta l) { return 1.0 / l.bandwidth_bytes_per_second; }

// 1 / reduce bandwidth: seconds per byte of a step that reduces (beta when none is given).
double beta_r(AlphaBeta l) {
  return l.reduce_bandwidth_bytes_per_second > 0 ? 1.0 / l.reduce_bandwidth_bytes_per_second
                                                 : beta(l);
}

// ceil(log2 n) for n >= 1.
int ceil_lg(int n) {
  int k = 0;
  while ((1LL << k) < n) ++k;
  return k;
}

bool is_power_of_two(std::int64_t n) { return n >= 1 && (n & (n - 1)) == 0; }

// 2 s alpha + (N-1)/N M (beta_1 + beta): two phases of s latency steps each
// moving (N-1)/N of M per rank, the first at beta_1 (beta_r when it reduces);
// the shape shared by the double binary tree, Rabenseifner's AllReduce, van de
// Geijn's Broadcast and the halving-doubling Reduce (each cites its source below).
double two_phase_seconds(int steps, int n, double bytes, AlphaBeta link, bool first_reduces) {
  const double first = first_reduces ? beta_r(link) : beta(link);
  return 2.0 * steps * link.alpha_seconds + (n - 1.0) / n * bytes * (first + beta(link));
}

std::string num(double x) { return fmt::format("{:g}", x); }

}  // namespace

// Reducing M bytes is 3M bytes of memory traffic on the receiver (read its
// operand, read the message, write the sum). A separate copy engine overlaps
// it (NCCL fuses the reduction into the kernel that moves the slices): the
// slower of the two; over shared memory the receiving core does the copy and
// then reads its operand, in series (docs/costmodel.md, "Reductions").
double reduce_bandwidth_bytes_per_second(double link_bandwidth_bytes_per_second,
                                         LinkClass bottleneck,
                                         double receiver_memory_bandwidth_bytes_per_second) {
  const double b = link_bandwidth_bytes_per_second;
  const double mem = receiver_memory_bandwidth_bytes_per_second;
  if (!(mem > 0) || !std::isfinite(mem) || !(b > 0)) return b;
  if (bottleneck == LinkClass::kSharedMemory)
    return std::isfinite(b) ? 1.0 / (1.0 / b + 1.0 / mem) : mem;
  return std::min(b, mem / 3.0);
}

double route_reduce_bandwidth_bytes_per_second(const Route& route, const Topology& topology,
                                               const HardwareProfile& profile, int receiver) {
  const double b = route_bandwidth_bytes_per_second(route, topology, profile);
  if (route.channels.empty()) return b;
  const Device& d = topology.device(receiver);
  const DeviceProfile& p = profile.for_device(d);
  return reduce_bandwidth_bytes_per_second(
      b, route.slowest_class, peak_memory_bandwidth_bytes_per_second(d, p) * p.memory_efficiency);
}

// A collective's step is not an isolated message: every rank moves at once
// (sharing memory bandwidth on a host, switch ports on a fabric) and the
// step ends with the ranks synchronised, so a profile may carry what such a
// step costs, fitted from whole collectives (docs/costmodel.md, "Collective
// steps as measured"); what it lacks, the message model gives.
AlphaBeta collective_step_alpha_beta(const Route& route, const Topology& topology,
                                     const HardwareProfile& profile, int receiver,
                                     CollectiveKind kind, double bytes, bool warm) {
  const double inf = std::numeric_limits<double>::infinity();
  if (route.channels.empty()) return AlphaBeta{0.0, inf, inf};
  const LinkProfile& lp = profile.for_link(route.slowest_class);
  const LinkProfile::KindSteps& ks = lp.kind_steps(kind);
  // The kind's own figures at this size (warm or cold), where the profile has them.
  const double scale = ks.scale(bytes, warm);
  // A rank's step never delivers faster than the route carries one message
  // alone: the measured figures are capped at the route's bandwidth (so the
  // simulator can run a step as the route plus a channel of its own).
  const double b = route_bandwidth_bytes_per_second(route, topology, profile);
  AlphaBeta ab;
  ab.alpha_seconds = warm && ks.warm_alpha_seconds >= 0 ? ks.warm_alpha_seconds
                     : ks.alpha_seconds >= 0                               ? ks.alpha_seconds
                     : lp.collective_alpha_seconds >= 0 ? lp.collective_alpha_seconds
                                                        : route_alpha_seconds(route, profile);
  const double copy = lp.collective_bandwidth_bytes_per_second > 0
                          ? lp.collective_bandwidth_bytes_per_second
                          : b;
  // Without a reducing figure of its own, a reducing step derives from the
  // copying one as the message model's does from the route (a step that also
  // reduces never delivers faster than one that copies).
  double reduce = lp.collective_reduce_bandwidth_bytes_per_second;
  if (!(reduce > 0)) {
    const Device& d = topology.device(receiver);
    const DeviceProfile& p = profile.for_device(d);
    reduce = reduce_bandwidth_bytes_per_second(
        std::min(copy, b), route.slowest_class,
        peak_memory_bandwidth_bytes_per_second(d, p) * p.memory_efficiency);
  }
  ab.bandwidth_bytes_per_second = std::min(scale * copy, b);
  ab.reduce_bandwidth_bytes_per_second = std::min(scale * reduce, b);
  return ab;
}

// alpha + M beta (Hockney 1994, the alpha-beta model).
double p2p_seconds(double bytes, AlphaBeta link) { return link.alpha_seconds + bytes * beta(link); }

double ring_attention_seconds(int steps, double block_seconds, double hop_seconds) {
  if (steps <= 1) return block_seconds;
  return block_seconds + (steps - 1) * std::max(block_seconds, hop_seconds);
}

// 2(N-1)alpha + (N-1)/N M (beta_r + beta) (Patarasuk & Yuan 2009, "Bandwidth optimal
// all-reduce algorithms"; the reduce-scatter half at beta_r).
double ring_allreduce_seconds(int n, double bytes, AlphaBeta link) {
  const double steps = n - 1;
  return 2 * steps * link.alpha_seconds + steps / n * bytes * (beta_r(link) + beta(link));
}

// 2 ceil(lg N) alpha + (N-1)/N M (beta_r + beta) (Sanders, Speck & Traeff 2009, double
// binary trees; ARCHITECTURE.md).
double tree_allreduce_seconds(int n, double bytes, AlphaBeta link) {
  return two_phase_seconds(ceil_lg(n), n, bytes, link, true);
}

// 2 lg N alpha + (N-1)/N M (beta_r + beta) (Thakur, Rabenseifner & Gropp 2005, Rabenseifner's algorithm).
double halving_doubling_allreduce_seconds(int n, double bytes, AlphaBeta link) {
  return two_phase_seconds(ceil_lg(n), n, bytes, link, true);
}

// 2(g-1)alpha_in + 2(g-1)/g M beta_in + 2(n-1)alpha_out + 2(n-1)/n (M/g) beta_out
// (ReduceScatter in the node, ring AllReduce of M/g per rail, AllGather in the node; ARCHITECTURE.md).
double hierarchical_allreduce_seconds(int nodes, int ranks_per_node, double bytes, AlphaBeta intra,
                                      AlphaBeta inter) {
  const int g = ranks_per_node;
  // ReduceScatter + AllGather inside the node.
  const double in =
      g > 1 ? ring_reducescatter_seconds(g, bytes, intra) + ring_allgather_seconds(g, bytes, intra)
            : 0.0;
  // No inter-node term (and no inter link to divide by) on one node.
  const double out = nodes > 1 ? ring_allreduce_seconds(nodes, bytes / g, inter) : 0.0;
  return in + out;
}

// (N-1)alpha + (N-1)/N M beta (Thakur, Rabenseifner & Gropp 2005, ring allgather).
double ring_allgather_seconds(int n, double bytes, AlphaBeta link) {
  const double steps = n - 1;
  return steps * link.alpha_seconds + steps / n * bytes * beta(link);
}

// (N-1)alpha + (N-1)/N M beta_r: AllGather's mirror image, same steps and bytes, each step reducing.
double ring_reducescatter_seconds(int n, double bytes, AlphaBeta link) {
  const double steps = n - 1;
  return steps * link.alpha_seconds + steps / n * bytes * beta_r(link);
}

// lg N alpha + (N-1)/N M beta (Thakur, Rabenseifner & Gropp 2005, recursive doubling).
double halving_doubling_allgather_seconds(int n, double bytes, AlphaBeta link) {
  return ceil_lg(n) * link.alpha_seconds + (n - 1.0) / n * bytes * beta(link);
}

// lg N alpha + (N-1)/N M beta_r (Thakur, Rabenseifner & Gropp 2005, recursive halving).
double halving_doubling_reducescatter_seconds(int n, double bytes, AlphaBeta link) {
  return ceil_lg(n) * link.alpha_seconds + (n - 1.0) / n * bytes * beta_r(link);
}

// (n-1)alpha_out + (n-1)/n (M/g) beta_out + (g-1)alpha_in + (g-1)/g M beta_in (ARCHITECTURE.md).
double hierarchical_allgather_seconds(int nodes, int ranks_per_node, double bytes, AlphaBeta intra,
                                      AlphaBeta inter) {
  const int g = ranks_per_node;
  const double out = nodes > 1 ? ring_allgather_seconds(nodes, bytes / g, inter) : 0.0;
  const double in = g > 1 ? ring_allgather_seconds(g, bytes, intra) : 0.0;
  return out + in;
}

// (g-1)alpha_in + (g-1)/g M beta_r,in + (n-1)alpha_out + (n-1)/n (M/g) beta_r,out (ARCHITECTURE.md).
double hierarchical_reducescatter_seconds(int nodes, int ranks_per_node, double bytes,
                                          AlphaBeta intra, AlphaBeta inter) {
  const int g = ranks_per_node;
  const double in = g > 1 ? ring_reducescatter_seconds(g, bytes, intra) : 0.0;
  const double out = nodes > 1 ? ring_reducescatter_seconds(nodes, bytes / g, inter) : 0.0;
  return in + out;
}

// (N-1)alpha + M beta: a cut-through chain of N-1 hops (no hop when N = 1) (ARCHITECTURE.md).
double ring_broadcast_seconds(int n, double bytes, AlphaBeta link) {
  if (n <= 1) return 0;
  return (n - 1) * link.alpha_seconds + bytes * beta(link);
}

// ceil(lg N)(alpha + M beta) (Thakur, Rabenseifner & Gropp 2005, binomial tree).
double tree_broadcast_seconds(int n, double bytes, AlphaBeta link) {
  return ceil_lg(n) * (link.alpha_seconds + bytes * beta(link));
}

// 2 lg N alpha + 2(N-1)/N M beta (van de Geijn: scatter + allgather; Thakur et al. 2005).
double halving_doubling_broadcast_seconds(int n, double bytes, AlphaBeta link) {
  return two_phase_seconds(ceil_lg(n), n, bytes, link, false);
}

// Reduce is Broadcast reversed, every hop reducing: (N-1)alpha + M beta_r (ARCHITECTURE.md).
double ring_reduce_seconds(int n, double bytes, AlphaBeta link) {
  if (n <= 1) return 0;
  return (n - 1) * link.alpha_seconds + bytes * beta_r(link);
}
// ceil(lg N)(alpha + M beta_r) (Thakur, Rabenseifner & Gropp 2005, binomial tree).
double tree_reduce_seconds(int n, double bytes, AlphaBeta link) {
  return ceil_lg(n) * (link.alpha_seconds + bytes * beta_r(link));
}
// 2 lg N alpha + (N-1)/N M (beta_r + beta): recursive-halving ReduceScatter + binomial
// gather (Thakur, Rabenseifner & Gropp 2005, Rabenseifner's reduce).
double halving_doubling_reduce_seconds(int n, double bytes, AlphaBeta link) {
  return two_phase_seconds(ceil_lg(n), n, bytes, link, true);
}

// (N-1)(alpha + M/N beta): pairwise exchange (Thakur, Rabenseifner & Gropp 2005).
double alltoall_seconds(int n, double bytes, AlphaBeta link) {
  return (n - 1) * (link.alpha_seconds + bytes / n * beta(link));
}

// NCCL's all-to-all is every send and receive of the group at once
// (ncclGroupStart, a ncclSend and a ncclRecv per peer, ncclGroupEnd: one
// kernel whose channels take the peers together). A rank's blocks to the
// peers on its node leave through its port into the node's fabric, those
// to other nodes through its port out of the node (its NIC; with NCCL's
// PXN through the NIC of the local GPU on the destination's rail, the
// same bytes a NIC); the two ports work at once, each peer's block in turn.
double alltoall_split_seconds(int n, int local, int remote, double bytes, AlphaBeta intra,
                              AlphaBeta inter) {
  const double block = bytes / n;
  return std::max(local * (intra.alpha_seconds + block * beta(intra)),
                  remote * (inter.alpha_seconds + block * beta(inter)));
}

// busBw = algBw x factor (nccl-tests, doc/PERFORMANCE.md).
double bus_bandwidth_factor(CollectiveKind kind, int n) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return 2.0 * (n - 1) / n;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: return (n - 1.0) / n;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce: return 1.0;
  }
  return 1.0;
}

namespace {

Status check_link(const AlphaBeta& l, const char* which) {
  if (!(l.bandwidth_bytes_per_second > 0))
    return Status::error(fmt::format("found {}bandwidth {} B/s; expected a positive bandwidth", which,
                                     num(l.bandwidth_bytes_per_second)));
  if (!(l.alpha_seconds >= 0) || !std::isfinite(l.alpha_seconds))
    return Status::error(
        fmt::format("found {}alpha {} s; expected a latency >= 0", which, num(l.alpha_seconds)));
  if (!(l.reduce_bandwidth_bytes_per_second >= 0))
    return Status::error(fmt::format("found {}reduce bandwidth {} B/s; expected a bandwidth >= 0",
                                     which, num(l.reduce_bandwidth_bytes_per_second)));
  return Status::ok();
}

}  // namespace

std::vector<CollectiveAlgorithm> defined_algorithms(CollectiveKind kind) {
  using A = CollectiveAlgorithm;
  switch (kind) {
    case CollectiveKind::kAllReduce: return {A::kRing, A::kTree, A::kHalvingDoubling, A::kHierarchical};
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: return {A::kRing, A::kHalvingDoubling, A::kHierarchical};
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce: return {A::kRing, A::kTree, A::kHalvingDoubling};
    case CollectiveKind::kAllToAll: return {A::kRing};
  }
  return {A::kRing};
}

std::string defined_algorithm_list(CollectiveKind kind) {
  const std::vector<CollectiveAlgorithm> v = defined_algorithms(kind);
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += i + 1 == v.size() ? " or " : ", ";
    s += collective_algorithm_name(v[i]);
  }
  return s;
}

CollectiveAlgorithm modelled_algorithm(CollectiveKind kind, CollectiveAlgorithm requested,
                                       std::string* why) {
  // The model's own choice: in the alpha-beta model, the ring (NCCL's model
  // chooses before it comes here: nccl_collective).
  if (requested == CollectiveAlgorithm::kAuto) return CollectiveAlgorithm::kRing;
  const bool ag_rs = kind == CollectiveKind::kAllGather || kind == CollectiveKind::kReduceScatter;
  if (ag_rs && requested == CollectiveAlgorithm::kTree) {
    if (why) *why = "tree is defined for allreduce, broadcast and reduce";
    return CollectiveAlgorithm::kRing;
  }
  if (kind == CollectiveKind::kAllToAll && requested != CollectiveAlgorithm::kRing &&
      requested != CollectiveAlgorithm::kHierarchical) {
    if (why) *why = "alltoall is modelled as N-1 pairwise exchanges; the algorithm does not apply";
    return CollectiveAlgorithm::kRing;
  }
  return requested;
}

Status check_algorithm(CollectiveKind kind, CollectiveAlgorithm algorithm, std::int64_t ranks,
                       AlgorithmFault* fault, std::int64_t ranks_per_node) {
  const std::string name(collective_kind_name(kind));
  auto at = [&](AlgorithmFault f, std::string message) {
    if (fault) *fault = f;
    return Status::error(std::move(message));
  };
  if (fault) *fault = AlgorithmFault::kNone;
  if (algorithm == CollectiveAlgorithm::kNvls)
    return at(AlgorithmFault::kAlgorithm,
              fmt::format("found algorithm 'nvls' for {} in the alpha-beta model; expected {} (NVLS "
                          "is NCCL's NVLink SHARP, which the NCCL model times: a GPU profile with "
                          "an NCCL table that has nvls)",
                          name, defined_algorithm_list(kind)));
  if (algorithm == CollectiveAlgorithm::kHierarchical &&
      (kind == CollectiveKind::kBroadcast || kind == CollectiveKind::kReduce ||
       kind == CollectiveKind::kAllToAll))
    return at(AlgorithmFault::kAlgorithm,
              fmt::format("found algorithm 'hierarchical' for {}; expected {} (hierarchical is "
                          "defined for allreduce, allgather and reducescatter)",
                          name, defined_algorithm_list(kind)));
  if (modelled_algorithm(kind, algorithm) == CollectiveAlgorithm::kHalvingDoubling &&
      !is_power_of_two(ranks))
    return at(AlgorithmFault::kRanks,
              fmt::format("found {} ranks for halving-doubling {}; expected a power of two (1, 2, "
                          "4, 8, ...)",
                          ranks, name));
  if (algorithm == CollectiveAlgorithm::kHierarchical && ranks_per_node >= 0) {
    if (ranks_per_node < 1)
      return at(AlgorithmFault::kRanksPerNode,
                fmt::format("found {} ranks per node; expected at least 1 for hierarchical {}",
                            ranks_per_node, name));
    if (ranks % ranks_per_node != 0)
      return at(AlgorithmFault::kRanksPerNode,
                fmt::format("found {} ranks with {} ranks per node; expected a multiple of {} for "
                            "hierarchical {}",
                            ranks, ranks_per_node, ranks_per_node, name));
  }
  return Status::ok();
}

AlphaBetaSplit split_alpha_beta(const CollectiveQuery& q, double seconds) {
  CollectiveQuery empty = q;
  empty.bytes = 0;
  AlphaBetaSplit s;
  auto c0 = collective_cost(empty);
  s.alpha_seconds = c0.is_ok() ? c0->seconds - q.overhead_seconds : 0;
  s.beta_seconds = seconds - q.overhead_seconds - s.alpha_seconds;
  const bool one_alpha =
      q.algorithm != CollectiveAlgorithm::kHierarchical || q.ranks_per_node >= q.ranks;
  if (one_alpha && q.intra.alpha_seconds > 0)
    s.messages = std::round(s.alpha_seconds / q.intra.alpha_seconds);
  return s;
}

Result<CollectiveCost> collective_cost(const CollectiveQuery& q) {
  const int n = q.ranks;
  if (n < 1) return Status::error(fmt::format("found {} ranks; expected at least 1", n));
  if (!(q.bytes >= 0) || !std::isfinite(q.bytes))
    return Status::error(fmt::format("found {} bytes; expected a size >= 0", num(q.bytes)));
  if (!(q.overhead_seconds >= 0))
    return Status::error(
        fmt::format("found overhead {} s; expected a duration >= 0", num(q.overhead_seconds)));
  BRIGADE_RETURN_IF_ERROR(check_link(q.intra, ""));
  const std::string kind(collective_kind_name(q.kind));
  const CollectiveAlgorithm algorithm = modelled_algorithm(q.kind, q.algorithm);
  const bool hierarchical = algorithm == CollectiveAlgorithm::kHierarchical;
  BRIGADE_RETURN_IF_ERROR(
      check_algorithm(q.kind, q.algorithm, n, nullptr, hierarchical ? q.ranks_per_node : -1));
  int nodes = 1, g = n;
  if (hierarchical) {
    g = q.ranks_per_node;
    nodes = n / g;
    if (nodes > 1) BRIGADE_RETURN_IF_ERROR(check_link(q.inter, "inter-node "));
  }

  double t = 0;
  switch (q.kind) {
    case CollectiveKind::kAllReduce:
      switch (algorithm) {
        case CollectiveAlgorithm::kRing:
        case CollectiveAlgorithm::kNvls:  // refused by check_algorithm
        case CollectiveAlgorithm::kAuto:  // modelled as the ring
          t = ring_allreduce_seconds(n, q.bytes, q.intra);
          break;
        case CollectiveAlgorithm::kTree: t = tree_allreduce_seconds(n, q.bytes, q.intra); break;
        case CollectiveAlgorithm::kHalvingDoubling:
          t = halving_doubling_allreduce_seconds(n, q.bytes, q.intra);
          break;
        case CollectiveAlgorithm::kHierarchical:
          t = hierarchical_allreduce_seconds(nodes, g, q.bytes, q.intra, q.inter);
          break;
      }
      break;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: {
      const bool ag = q.kind == CollectiveKind::kAllGather;
      switch (algorithm) {
        case CollectiveAlgorithm::kRing:
        case CollectiveAlgorithm::kTree:  // not modelled (modelled_algorithm): ring
        case CollectiveAlgorithm::kNvls:
        case CollectiveAlgorithm::kAuto:
          t = ag ? ring_allgather_seconds(n, q.bytes, q.intra)
                 : ring_reducescatter_seconds(n, q.bytes, q.intra);
          break;
        case CollectiveAlgorithm::kHalvingDoubling:
          t = ag ? halving_doubling_allgather_seconds(n, q.bytes, q.intra)
                 : halving_doubling_reducescatter_seconds(n, q.bytes, q.intra);
          break;
        case CollectiveAlgorithm::kHierarchical:
          t = ag ? hierarchical_allgather_seconds(nodes, g, q.bytes, q.intra, q.inter)
                 : hierarchical_reducescatter_seconds(nodes, g, q.bytes, q.intra, q.inter);
          break;
      }
      break;
    }
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce: {
      const bool bc = q.kind == CollectiveKind::kBroadcast;
      switch (algorithm) {
        case CollectiveAlgorithm::kRing:
          t = bc ? ring_broadcast_seconds(n, q.bytes, q.intra) : ring_reduce_seconds(n, q.bytes, q.intra);
          break;
        case CollectiveAlgorithm::kTree:
          t = bc ? tree_broadcast_seconds(n, q.bytes, q.intra) : tree_reduce_seconds(n, q.bytes, q.intra);
          break;
        case CollectiveAlgorithm::kHalvingDoubling:
          t = bc ? halving_doubling_broadcast_seconds(n, q.bytes, q.intra)
                 : halving_doubling_reduce_seconds(n, q.bytes, q.intra);
          break;
        case CollectiveAlgorithm::kHierarchical:  // rejected above
        case CollectiveAlgorithm::kNvls:
        case CollectiveAlgorithm::kAuto: break;
      }
      break;
    }
    case CollectiveKind::kAllToAll:
      t = q.remote_peers > 0 && q.local_peers > 0
              ? alltoall_split_seconds(n, q.local_peers, q.remote_peers, q.bytes, q.intra, q.inter)
              : alltoall_seconds(n, q.bytes, q.intra);
      break;
  }

  CollectiveCost c;
  c.seconds = t + q.overhead_seconds;
  c.alg_bandwidth_bytes_per_second = c.seconds > 0 ? q.bytes / c.seconds : 0.0;
  c.bus_bandwidth_bytes_per_second = c.alg_bandwidth_bytes_per_second * bus_bandwidth_factor(q.kind, n);
  return c;
}

namespace {

struct Slowest {
  double alpha = 0;
  double bandwidth = std::numeric_limits<double>::infinity();
  double reduce = std::numeric_limits<double>::infinity();
  bool any = false;
  void add(const Topology& topo, const HardwareProfile& prof, int src, int dst,
           CollectiveKind kind, double bytes, bool warm) {
    if (src == dst) return;
    const AlphaBeta ab =
        collective_step_alpha_beta(topo.route(src, dst), topo, prof, dst, kind, bytes, warm);
    alpha = std::max(alpha, ab.alpha_seconds);
    bandwidth = std::min(bandwidth, ab.bandwidth_bytes_per_second);
    reduce = std::min(reduce, ab.reduce_bandwidth_bytes_per_second);
    any = true;
  }
  AlphaBeta ab() const { return AlphaBeta{alpha, bandwidth, reduce}; }
};

}  // namespace

Result<CollectiveQuery> collective_query_on(const Topology& topology, const HardwareProfile& profile,
                                            CollectiveKind kind, CollectiveAlgorithm algorithm,
                                            const std::vector<int>& group, double bytes,
                                            bool warm) {
  if (group.empty()) return Status::error("found an empty group; expected at least 1 device");
  const int d = topology.num_devices();
  // The first rank out of range or seen before, in group order (a large
  // group through a table of the devices seen, a small one by comparison).
  std::vector<char> seen(group.size() > 32 ? static_cast<size_t>(d) : 0, 0);
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] < 0 || group[i] >= d)
      return Status::error(
          fmt::format("found device {} in the group; expected a device id in 0..{}", group[i], d - 1));
    bool twice = false;
    if (!seen.empty()) {
      twice = seen[static_cast<size_t>(group[i])] != 0;
      seen[static_cast<size_t>(group[i])] = 1;
    } else {
      for (size_t j = 0; j < i && !twice; ++j) twice = group[j] == group[i];
    }
    if (twice)
      return Status::error(
          fmt::format("found device {} twice in the group; expected distinct devices", group[i]));
  }
  CollectiveQuery q;
  q.kind = kind;
  q.algorithm = algorithm;
  q.ranks = static_cast<int>(group.size());
  q.bytes = bytes;
  // NCCL's model where it applies (nccl_collective): its choice, as the
  // closed form of the algorithm it expands to.
  BRIGADE_ASSIGN_OR_RETURN(std::optional<NcclChoice> nccl,
                           nccl_collective(topology, profile, kind, algorithm, group, bytes));
  if (nccl) {
    q.algorithm = nccl->expansion;
    q.intra = nccl->step;
    q.overhead_seconds = nccl->overhead_seconds;
    q.nccl = true;
    q.nccl_algorithm = nccl->chosen.algorithm;
    q.nccl_protocol = nccl->chosen.protocol;
    q.nccl_sm_channels = nccl_sm_channels(nccl->chosen);
    return q;
  }
  // A warm collective pays no call overhead where its kind has warm figures
  // (LinkProfile::KindSteps: the overhead is the cold handshake).
  bool warm_figures = false;
  if (warm)
    for (const LinkProfile& lp : profile.links) warm_figures |= lp.kind_steps(kind).has_warm();
  if (!warm_figures)
    for (int dev : group)
      q.overhead_seconds = std::max(
          q.overhead_seconds, profile.for_device(topology.device(dev)).collective_overhead_seconds);

  const int n = q.ranks;
  if (kind == CollectiveKind::kAllToAll && n > 2) {
    // The group by node: where some node holds several ranks and the group
    // spans nodes, each rank's peers split between its node's fabric and
    // the network (alltoall_split_seconds).
    std::vector<int> node_ids, counts;
    std::vector<std::vector<int>> by_node;
    for (int dev : group) {
      const int node = topology.device(dev).node;
      const auto it = std::find(node_ids.begin(), node_ids.end(), node);
      if (it == node_ids.end()) {
        node_ids.push_back(node);
        by_node.push_back({dev});
      } else {
        by_node[static_cast<size_t>(it - node_ids.begin())].push_back(dev);
      }
    }
    size_t g_min = by_node.front().size(), g_max = g_min;
    for (const auto& v : by_node) g_min = std::min(g_min, v.size()), g_max = std::max(g_max, v.size());
    if (by_node.size() > 1 && g_max > 1) {
      Slowest in, out;
      const size_t nodes = by_node.size();
      for (size_t j = 0; j < nodes; ++j) {
        const auto& here = by_node[j];
        const auto& next = by_node[(j + 1) % nodes];
        for (size_t r = 0; r < here.size(); ++r) {
          if (here.size() > 1) in.add(topology, profile, here[r], here[(r + 1) % here.size()], kind, bytes, warm);
          out.add(topology, profile, here[r], next[r % next.size()], kind, bytes, warm);
        }
      }
      q.intra = in.ab();
      q.inter = out.ab();
      q.local_peers = static_cast<int>(g_max) - 1;
      q.remote_peers = n - static_cast<int>(g_min);
      return q;
    }
  }
  if (algorithm != CollectiveAlgorithm::kHierarchical) {
    Slowest s;
    for (int i = 0; i < n; ++i)
      s.add(topology, profile, group[static_cast<size_t>(i)],
            group[static_cast<size_t>((i + 1) % n)], kind, bytes, warm);
    q.intra = s.ab();
    return q;
  }

  // Nodes in order of first appearance; local ranks in group order.
  std::vector<int> node_ids;
  std::vector<std::vector<int>> by_node;
  for (int dev : group) {
    const int node = topology.device(dev).node;
    auto it = std::find(node_ids.begin(), node_ids.end(), node);
    if (it == node_ids.end()) {
      node_ids.push_back(node);
      by_node.push_back({dev});
    } else {
      by_node[static_cast<size_t>(it - node_ids.begin())].push_back(dev);
    }
  }
  const size_t g = by_node.front().size();
  for (size_t j = 1; j < by_node.size(); ++j)
    if (by_node[j].size() != g)
      return Status::error(fmt::format(
          "found {} ranks on node {} and {} on node {}; expected the same number of ranks on "
          "every node for hierarchical {}",
          by_node[j].size(), node_ids[j], g, node_ids[0], collective_kind_name(kind)));
  Slowest in, out;
  const size_t nodes = by_node.size();
  for (size_t j = 0; j < nodes; ++j)
    for (size_t r = 0; r < g; ++r) {
      in.add(topology, profile, by_node[j][r], by_node[j][(r + 1) % g], kind, bytes, warm);
      out.add(topology, profile, by_node[j][r], by_node[(j + 1) % nodes][r], kind, bytes, warm);
    }
  q.ranks_per_node = static_cast<int>(g);
  q.intra = in.ab();
  q.inter = out.ab();
  return q;
}

std::vector<std::uint64_t> collective_group_signature(const Topology& topology,
                                                      const HardwareProfile& profile,
                                                      const std::vector<int>& group) {
  std::vector<std::uint64_t> sig;
  const int d = topology.num_devices();
  const size_t n = group.size();
  if (n == 0) return sig;
  // Nodes numbered by first appearance; the ranks of each, in group order
  // (group_by_node's view).
  std::unordered_map<int, int> label;
  std::vector<std::vector<int>> by_node;
  std::vector<int> labels(n);
  std::vector<char> seen(static_cast<size_t>(d), 0);
  for (size_t k = 0; k < n; ++k) {
    const int dev = group[k];
    if (dev < 0 || dev >= d || seen[static_cast<size_t>(dev)] != 0) return {};
    seen[static_cast<size_t>(dev)] = 1;
    const int node = topology.device(dev).node;
    auto [it, fresh] = label.try_emplace(node, static_cast<int>(by_node.size()));
    if (fresh) by_node.emplace_back();
    by_node[static_cast<size_t>(it->second)].push_back(dev);
    labels[k] = it->second;
  }
  const DeviceProfile* const first = profile.devices.data();
  const DeviceProfile* const end = first + profile.devices.size();
  sig.reserve(4 * n + 5 * 4 * n);
  sig.push_back(n);
  for (size_t k = 0; k < n; ++k) {
    const Device& dev = topology.device(group[k]);
    const DeviceProfile* p = &profile.for_device(dev);
    const bool listed =
        !std::less<const DeviceProfile*>()(p, first) && std::less<const DeviceProfile*>()(p, end);
    sig.push_back(static_cast<std::uint64_t>(labels[k]));
    sig.push_back(listed ? static_cast<std::uint64_t>(p - first) : ~std::uint64_t{0});
    sig.push_back(std::bit_cast<std::uint64_t>(dev.memory_bandwidth_bytes_per_second));
  }
  auto route = [&](int a, int b) {
    const Route& r = topology.route(a, b);
    bool nvlink = !r.channels.empty();
    for (ChannelId ch : r.channels)
      nvlink &= topology.links()[static_cast<size_t>(link_of(ch))].link_class == LinkClass::kNvlink;
    sig.push_back(r.channels.size());
    sig.push_back(static_cast<std::uint64_t>(r.slowest_class) << 1 | (nvlink ? 1 : 0));
    sig.push_back(std::bit_cast<std::uint64_t>(r.latency_seconds));
    sig.push_back(
        std::bit_cast<std::uint64_t>(route_bandwidth_bytes_per_second(r, topology, profile)));
  };
  // Ring neighbours (the alpha-beta model's ring), then inside each node
  // (hierarchical's and NCCL's intra ring; on_nvswitch's and nvls_refusal's
  // neighbours are among them), then to the next node (the rails).
  if (n > 1)
    for (size_t k = 0; k < n; ++k) route(group[k], group[(k + 1) % n]);
  for (const std::vector<int>& v : by_node)
    if (v.size() > 1)
      for (size_t k = 0; k < v.size(); ++k) route(v[k], v[(k + 1) % v.size()]);
  if (by_node.size() > 1)
    for (size_t j = 0; j < by_node.size(); ++j) {
      const std::vector<int>& next = by_node[(j + 1) % by_node.size()];
      for (size_t r = 0; r < by_node[j].size(); ++r) route(by_node[j][r], next[r % next.size()]);
    }
  return sig;
}

}  // namespace brigade::cost
