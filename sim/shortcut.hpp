// Internal to sim/: the collective shortcut.
//
// A collective whose channels are provably its own while it runs needs no
// flow-by-flow simulation in context: its steps take exactly the time they
// take on an idle network. "Provably its own": every task that can put a
// flow on one of its channels (other collectives, transfers, itself) has a
// task on one common stream with it, so stream order serialises them all.
// Such a collective is replaced by the result of simulating its expansion
// alone (the same engine, exact mode), memoised per (kind, algorithm, root,
// group, bytes): its duration and the bytes and busy time it puts on each
// channel. Tests hold shortcut runs to full expansions (1e-9).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"

namespace brigade::sim {

enum class NetworkModel;

struct ChannelUse {
  ChannelId channel = 0;
  double bytes = 0;
  double busy_seconds = 0;
};

// One message of the isolated run, for traces: times from the end of the
// overhead, ends as ranks of the collective's group.
struct ShortcutTransfer {
  double start_seconds = 0, end_seconds = 0;
  double bytes = 0;
  std::int32_t src_rank = 0, dst_rank = 0;
  ChannelId lane = -1;  // the first channel of its route (TraceTransfer::lane)
};

struct ShortcutEntry {
  double duration_seconds = 0;  // from the end of the overhead to the last byte
  std::vector<ChannelUse> channels;
  std::vector<ShortcutTransfer> transfers;  // when recording a trace, in the order they ended
};

struct ShortcutTable {
  std::vector<ShortcutEntry> entries;
};

// Fills `table` and sets `shortcut_of[c]` to an entry index for every
// collective that qualifies (others keep -1). `transfers`: the Program's
// transfer tasks (the caller has walked the tasks already). `cancel`
// (SimOptions::cancel) is handed to the isolated runs; `record_transfers`
// keeps each entry's messages (ShortcutEntry::transfers) for a trace,
// back-to-back ones merged where `merge_steps` (SimOptions::trace_steps).
// `algorithms`: each collective's algorithm as it runs (the Program's, or
// the expansion of NCCL's choice), which decides the channels it uses.
Status plan_shortcuts(const Program& program, const std::vector<CollectiveAlgorithm>& algorithms,
                      const Topology& topology,
                      const HardwareProfile& profile, NetworkModel network,
                      const std::vector<std::int32_t>& node_of, const std::vector<TaskId>& transfers,
                      ShortcutTable& table, std::vector<std::int32_t>& shortcut_of,
                      const std::atomic<bool>* cancel = nullptr, bool record_transfers = false,
                      bool merge_steps = false);

}  // namespace brigade::sim
