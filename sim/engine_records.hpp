// Internal to sim/simulator.cpp: the engine's per-route, per-flow, per-task
// and per-running-collective records.
#pragma once

#include <cstdint>
#include <vector>

#include "core/program.hpp"
#include "sim/schedule.hpp"

namespace brigade::sim {

struct RouteInfo {
  std::int32_t first = 0, count = 0;  // into Engine::route_channels_
  double alpha_seconds = 0;
  double bandwidth_bytes_per_second = 0;
  // The link channel a trace names for a message on this route; -1: the
  // first of its channels. Set where the route runs on a channel of its own
  // alone (an NCCL step faster than the links), which no link carries.
  std::int32_t trace_channel = -1;
};

struct FlowSlot {
  double bytes = 0;
  double remaining = 0;    // bytes left at `last_update`
  double rate = 0;         // bytes per second; 0 until its bytes start
  double last_update = 0;
  double start_seconds = 0;  // when its alpha began
  std::int32_t instance = -1, op = -1, route = -1;  // op: schedule op, or the ring rank
  std::int32_t step = 0;                            // ring step
  std::uint32_t version = 0;
};

// What the event loop needs of a task, packed into 32 bytes so that starting
// or finishing a task touches one cache line (the Program's Task is 88 bytes
// and mostly cold). The engine numbers tasks internally in stream order
// (stream 0's tasks, then stream 1's, ...), so a task's successor on its
// stream is the next record; Engine::ext_ maps back to TaskIds.
struct HotTask {
  double duration = 0;          // compute: seconds at speed 1 / speed factor
  std::int32_t stream = 0;
  std::int32_t pending = 0;     // unfinished predecessors (stream + deps)
  // Internal index of the predecessor whose end made it ready (for a kernel
  // held for communication on its core, that communication).
  std::int32_t crit_pred = -1;
  std::uint32_t succ_begin = 0; // into Engine::succ_ (internal indices)
  std::uint32_t succ_count = 0;
  // kind (2 bits) | has memory effects (1 bit) | gave SMs (1 bit) | aux << 4
  std::uint32_t bits = 0;
  TaskKind kind() const { return static_cast<TaskKind>(bits & 3u); }
  bool has_memory() const { return (bits & 4u) != 0; }
  // A kernel that gave SMs to a communication kernel beside it (Task::sm_held
  // > 0): it runs on the rest and is outside the NCCL SM share model.
  bool gave_sms() const { return (bits & 8u) != 0; }
  std::int32_t aux() const { return static_cast<std::int32_t>(bits >> 4); }  // collective, or peer
};
static_assert(sizeof(HotTask) == 32);

// One rank of a ring held by the checked shortcut, as it stood when the
// hold began (Engine::hold_again), or as a replay leaves it: its steps sent
// and started, and the message in flight (launched > done): when it
// started, when its alpha is over, its bytes left at `last_update` (all of
// them until its alpha is over), since when its channels' busy time is not
// counted yet, its bytes and route.
struct HoldRank {
  std::int32_t done = 0, launched = 0;
  double start = 0, alpha_end = 0, remaining = 0, last_update = 0, busy_from = 0, bytes = 0;
  std::int32_t route = -1;
};

// A running transfer or collective (its expansion and progress).
struct Instance {
  TaskId transfer = -1;         // the transfer task, or -1 for a collective
  std::int32_t transfer_int = -1;  // its internal index
  CollectiveId collective = -1;
  std::int32_t ops_left = 0;
  std::vector<std::int32_t> devices;  // rank -> device
  Schedule sched;
  // A ring (ReduceScatter/AllGather: N-1 steps, AllReduce: 2(N-1)) runs
  // without a materialised schedule: the dependencies of schedule.cpp's
  // ring() are two counters per rank (a rank's step s+1 needs its own step s
  // sent and its predecessor's step s received), which keeps a 1024-rank
  // ring's 2 million messages out of memory.
  bool ring = false;
  std::int32_t ring_steps = 0;
  std::int32_t ring_reduce_steps = 0;  // the first steps, which reduce (ring_reduce_route)
  // Coarse rings (SimOptions::ring_max_steps): the reducing phase's steps
  // run in super-steps of ring_group_a steps (ring_super_a of them), the
  // others' in super-steps of ring_group_b; ring_steps counts super-steps.
  // Both groups are 1 when off.
  std::int32_t ring_group_a = 1, ring_super_a = 0, ring_group_b = 1, ring_len_b = 0;
  double ring_bytes = 0;
  std::vector<std::int32_t> next_step, sends_done, recvs_done, ring_route, ring_reduce_route;
  std::vector<std::int32_t> ring_flight;  // per rank: its message in flight (a flow slot), -1: none
  // A ring held again after a split (Engine::hold_again): since when, and
  // each rank's state then; empty while it runs expanded.
  double hold_since = 0;
  std::vector<HoldRank> hold_ranks;
};

}  // namespace brigade::sim
