// Internal to sim/: the collective shortcut.
//
// A collective whose channels are provably its own while it runs needs no
// flow-by-flow simulation in context: its steps take exactly the time they
// take on an idle network. "Provably its own": every task that can put a
// flow on one of its channels (other collectives, transfers, itself) has a
// task on one common stream with it, so stream order serialises them all;
// a collective task spliced into another stream of its device (it runs
// between two of that stream's tasks with no collective or transfer of that
// stream between them: sim/shortcut.cpp, `splices`) counts as one of its.
// Such a collective is replaced by the result of simulating its expansion
// alone (the same engine, exact mode), memoised per (kind, algorithm, root,
// group, bytes): its duration and the bytes and busy time it puts on each
// channel. Tests hold shortcut runs to full expansions (1e-9).
#pragma once

#include <atomic>
#include <cstdint>
#include <unordered_map>
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
  double off_link_bytes = 0;  // SimResult::off_link_bytes of its isolated run
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
//
// Collectives of at least kCheckedShortcutMinRanks ranks that do not
// qualify before the run (some user of their channels shares no stream
// with them) are candidates for a shortcut checked as the run goes
// (ShortcutPlan::candidate_entry): the engine runs one by the shortcut when
// no flow is on its channels as it starts, reserves the channels for its
// isolated run's time, and runs the Program again with the collective
// expanded if a flow joins a channel it holds (see simulator.cpp). Below
// that size expanding costs little, and the rule is kept as it was.
inline constexpr size_t kCheckedShortcutMinRanks = 128;

class ShortcutPlan {
 public:
  Status plan(const Program& program, const std::vector<CollectiveAlgorithm>& algorithms,
              const Topology& topology, const HardwareProfile& profile, NetworkModel network,
              const std::vector<std::int32_t>& node_of, const std::vector<TaskId>& transfers,
              ShortcutTable& table, std::vector<std::int32_t>& shortcut_of,
              const std::atomic<bool>* cancel = nullptr, bool record_transfers = false,
              bool merge_steps = false);

  // Collective c, not a shortcut before the run: its isolated run's entry
  // in the table (made on first use) if c is a candidate for the checked
  // shortcut, else -1.
  Result<std::int32_t> candidate_entry(CollectiveId c);
  bool any_candidate() const { return any_candidate_; }
  bool is_candidate(CollectiveId c) const {
    return any_candidate_ && candidate_[static_cast<size_t>(c)] != 0;
  }

 private:
  Result<std::int32_t> entry(CollectiveId c, std::int32_t pattern);

  const Program* program_ = nullptr;
  const Topology* topology_ = nullptr;
  HardwareProfile quiet_;
  NetworkModel network_{};
  const std::atomic<bool>* cancel_ = nullptr;
  bool record_transfers_ = false, merge_steps_ = false;
  ShortcutTable* table_ = nullptr;
  std::vector<std::int32_t> coll_pattern_;
  std::vector<std::vector<ChannelId>> pattern_channels_;
  // Isolated runs shared by patterns of the same shape (see shape_key in
  // shortcut.cpp): per pattern its shape; per shape ((bytes, parts),
  // (pattern, entry)) of the runs made (Collective::parts: a merged
  // collective's run is its own).
  using Size = std::pair<double, std::int32_t>;  // (bytes, parts)
  bool share_shapes_ = true;
  std::vector<std::int32_t> pattern_shape_;
  std::unordered_map<std::int32_t,
                     std::vector<std::pair<Size, std::pair<std::int32_t, std::int32_t>>>>
      shape_entry_;
  std::unordered_map<std::int32_t, std::vector<std::pair<Size, std::int32_t>>>
      entry_of_;                       // pattern -> ((bytes, parts), entry)
  std::vector<std::int32_t> rank_of_;  // while one entry is made
  bool any_candidate_ = false;
  std::vector<std::uint8_t> candidate_;  // per collective
};

}  // namespace brigade::sim
