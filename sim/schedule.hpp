// Internal to sim/: a collective expanded into its algorithm's steps, as a
// small DAG of point-to-point messages ("ops") between ranks. The engine runs
// each op as one flow (alpha, then the bytes at the allocated rate).
//
// The expansions follow the table "Collective algorithms: the contract
// between costmodel/ and sim/" in docs/ARCHITECTURE.md; docs/simulator.md
// describes each one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/program.hpp"
#include "core/status.hpp"
#include "sim/big_vector.hpp"

namespace brigade::sim {

// When a dependent op may start relative to the op it depends on.
enum class EdgeKind : std::uint8_t {
  kAfterEnd,    // after the op's last byte arrived (store-and-forward, round barriers)
  kAfterAlpha,  // after the op's alpha (cut-through: its first bytes arrived)
};

struct ScheduleOp {
  std::int32_t src_rank = 0;
  std::int32_t dst_rank = 0;
  double bytes = 0;
  std::int32_t pending = 0;      // edges into it not yet satisfied
  std::int32_t head_end = -1;    // first kAfterEnd out-edge, -1 if none
  std::int32_t head_alpha = -1;  // first kAfterAlpha out-edge, -1 if none
  // 1: the receiver reduces the message into its data (the engine runs it at
  // the route's reduce bandwidth, cost::route_reduce_bandwidth_bytes_per_second).
  std::int32_t reduce = 0;
};

struct ScheduleEdge {
  std::int32_t next = -1;  // next out-edge of the same op and kind
  std::int32_t to = 0;     // the dependent op
};

// Ops plus dependency edges, stored as per-op singly linked edge lists so
// that a Schedule can be refilled without allocating once it has grown.
struct Schedule {
  BigVector<ScheduleOp> ops;
  BigVector<ScheduleEdge> edges;

  void clear() {
    ops.clear();
    edges.clear();
  }
  std::int32_t add_op(std::int32_t src_rank, std::int32_t dst_rank, double bytes, bool reduce = false) {
    ops.push_back(ScheduleOp{src_rank, dst_rank, bytes, 0, -1, -1, reduce ? 1 : 0});
    return static_cast<std::int32_t>(ops.size()) - 1;
  }
  void add_edge(std::int32_t from, std::int32_t to, EdgeKind kind) {
    ScheduleOp& f = ops[static_cast<size_t>(from)];
    std::int32_t& head = kind == EdgeKind::kAfterEnd ? f.head_end : f.head_alpha;
    edges.push_back(ScheduleEdge{head, to});
    head = static_cast<std::int32_t>(edges.size()) - 1;
    ++ops[static_cast<size_t>(to)].pending;
  }
  std::int32_t size() const { return static_cast<std::int32_t>(ops.size()); }
};

// Checks that `c` can be expanded: halving-doubling needs a power-of-two
// group; hierarchical needs the same number of ranks on every node it spans.
// `node_of` gives each device's node. The message says what is wrong; the
// caller prefixes which collective.
Status check_expandable(const Collective& c, const std::vector<std::int32_t>& node_of);

// Reusable scratch space for expand_collective (per-rank round trackers).
struct ExpandScratch {
  std::vector<std::int32_t> last_send, last_recv;
  std::vector<std::vector<std::int32_t>> recv_since;
  std::vector<std::int32_t> round_ops;
  std::vector<std::int32_t> ranks;  // scratch for sub-rings
};

// True for the algorithms whose steps are one ring over the group in rank
// order (AllReduce ring: 2(N-1) steps of M/N; AllGather and ReduceScatter
// ring or tree: N-1 steps of M/N), which the engine runs without expanding.
bool is_plain_ring(const Collective& c);

// Of a plain ring's steps, how many come first and reduce: AllReduce and
// ReduceScatter N-1 (the reduce-scatter), AllGather 0.
std::int32_t plain_ring_reduce_steps(const Collective& c);

// The distinct (src rank, dst rank) pairs the steps of `c` use.
void collective_pairs(const Collective& c, const std::vector<std::int32_t>& node_of, Schedule& scratch,
                      ExpandScratch& x, std::vector<std::pair<std::int32_t, std::int32_t>>& out);

// Fills `out` with the steps of `c` (check_expandable must have passed).
void expand_collective(const Collective& c, const std::vector<std::int32_t>& node_of,
                       Schedule& out, ExpandScratch& scratch);

}  // namespace brigade::sim
