#include "sim/shortcut.hpp"

#include <algorithm>
#include <unordered_map>

#include "sim/schedule.hpp"
#include "sim/simulator.hpp"
#include "sim/simulator_detail.hpp"

namespace brigade::sim {
namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

// Interns small integer vectors (patterns, stream sets) to dense ids.
class VectorInterner {
 public:
  std::int32_t intern(const std::vector<std::int32_t>& v) {
    std::uint64_t h = v.size();
    for (std::int32_t x : v) h = mix(h, static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)));
    auto& ids = by_hash_[h];
    for (std::int32_t id : ids)
      if (items_[static_cast<size_t>(id)] == v) return id;
    items_.push_back(v);
    ids.push_back(static_cast<std::int32_t>(items_.size()) - 1);
    return ids.back();
  }
  const std::vector<std::int32_t>& item(std::int32_t id) const { return items_[static_cast<size_t>(id)]; }
  size_t size() const { return items_.size(); }

 private:
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> by_hash_;
  std::vector<std::vector<std::int32_t>> items_;
};

}  // namespace

Status plan_shortcuts(const Program& program, const std::vector<CollectiveAlgorithm>& algorithms,
                      const Topology& topology,
                      const HardwareProfile& profile, NetworkModel network,
                      const std::vector<std::int32_t>& node_of, const std::vector<TaskId>& transfers,
                      ShortcutTable& table, std::vector<std::int32_t>& shortcut_of,
                      const std::atomic<bool>* cancel, bool record_transfers, bool merge_steps) {
  const auto& colls = program.collectives();
  const auto nc = static_cast<size_t>(topology.num_channels());

  // Patterns: (kind, algorithm, root, group) -> the channels its steps use.
  VectorInterner patterns, stream_sets;
  std::vector<std::int32_t> coll_pattern(colls.size()), coll_streams(colls.size());
  std::vector<std::int32_t> key;
  for (size_t c = 0; c < colls.size(); ++c) {
    const Collective& col = colls[c];
    key.assign({static_cast<std::int32_t>(col.kind), static_cast<std::int32_t>(algorithms[c]), col.root});
    key.insert(key.end(), col.group.begin(), col.group.end());
    coll_pattern[c] = patterns.intern(key);
    key.clear();
    for (TaskId t : col.tasks) key.push_back(program.task(t).stream);
    std::sort(key.begin(), key.end());
    coll_streams[c] = stream_sets.intern(key);
  }
  std::vector<std::vector<ChannelId>> pattern_channels(patterns.size());
  std::vector<std::uint8_t> pattern_ok(patterns.size(), 1);
  {
    Schedule sched;
    ExpandScratch scratch;
    Collective col;
    std::vector<std::pair<std::int32_t, std::int32_t>> pairs;
    for (size_t p = 0; p < patterns.size(); ++p) {
      const auto& v = patterns.item(static_cast<std::int32_t>(p));
      col.kind = static_cast<CollectiveKind>(v[0]);
      col.algorithm = static_cast<CollectiveAlgorithm>(v[1]);
      col.root = v[2];
      col.group.assign(v.begin() + 3, v.end());
      col.bytes = 1;
      collective_pairs(col, node_of, sched, scratch, pairs);
      auto& chans = pattern_channels[p];
      for (const auto& [src, dst] : pairs) {
        const Route& r = topology.route(col.group[static_cast<size_t>(src)], col.group[static_cast<size_t>(dst)]);
        if (r.channels.empty()) pattern_ok[p] = 0;  // unroutable: left to the run to report
        chans.insert(chans.end(), r.channels.begin(), r.channels.end());
      }
      std::sort(chans.begin(), chans.end());
      chans.erase(std::unique(chans.begin(), chans.end()), chans.end());
      for (ChannelId ch : chans) {
        const Link& l = topology.links()[static_cast<size_t>(link_of(ch))];
        if (!(achieved_link_bandwidth_bytes_per_second(l, profile) > 0))
          pattern_ok[p] = 0;
      }
    }
  }

  // Per channel, the streams that every user of it has a task on.
  std::vector<std::vector<std::int32_t>> common(nc);
  std::vector<std::uint8_t> used(nc, 0);
  std::vector<std::int32_t> tmp;
  auto meet = [&](ChannelId ch, const std::vector<std::int32_t>& streams) {
    auto& cs = common[static_cast<size_t>(ch)];
    if (!used[static_cast<size_t>(ch)]) {
      used[static_cast<size_t>(ch)] = 1;
      cs = streams;
      return;
    }
    tmp.clear();
    std::set_intersection(cs.begin(), cs.end(), streams.begin(), streams.end(), std::back_inserter(tmp));
    cs.swap(tmp);
  };
  {
    // Distinct (pattern, stream set) users, then distinct transfer users.
    std::unordered_map<std::uint64_t, std::uint8_t> seen;
    for (size_t c = 0; c < colls.size(); ++c) {
      const std::uint64_t k = (static_cast<std::uint64_t>(coll_pattern[c]) << 32) |
                              static_cast<std::uint32_t>(coll_streams[c]);
      if (!seen.emplace(k, 1).second) continue;
      const auto& streams = stream_sets.item(coll_streams[c]);
      for (ChannelId ch : pattern_channels[static_cast<size_t>(coll_pattern[c])]) meet(ch, streams);
    }
    seen.clear();
    std::vector<std::int32_t> one(1);
    for (TaskId t : transfers) {
      const Task& x = program.task(t);
      const std::uint64_t k = (static_cast<std::uint64_t>(x.stream) << 32) | static_cast<std::uint32_t>(x.peer);
      if (!seen.emplace(k, 1).second) continue;
      one[0] = x.stream;
      for (ChannelId ch : topology.route(x.device, x.peer).channels) meet(ch, one);
    }
  }

  // Eligible collectives, and one isolated run per (pattern, bytes).
  HardwareProfile quiet = profile;  // the overhead is paid in context, not in the isolated run
  for (auto& d : quiet.devices) d.collective_overhead_seconds = 0;
  std::unordered_map<std::uint64_t, std::vector<std::pair<double, std::int32_t>>> entry_of;  // pattern -> (bytes, entry)
  std::vector<std::int32_t> rank_of(static_cast<size_t>(program.num_devices), -1);  // while one entry is made
  for (size_t c = 0; c < colls.size(); ++c) {
    const auto p = static_cast<size_t>(coll_pattern[c]);
    if (!pattern_ok[p] || colls[c].group.size() < 2) continue;
    bool exclusive = true;
    for (ChannelId ch : pattern_channels[p])
      if (common[static_cast<size_t>(ch)].empty()) {
        exclusive = false;
        break;
      }
    if (!exclusive) continue;
    auto& list = entry_of[p];
    std::int32_t entry = -1;
    for (const auto& [bytes, e] : list)
      if (bytes == colls[c].bytes) entry = e;
    if (entry < 0) {
      const Collective& col = colls[c];
      ProgramBuilder b(program.name, program.num_devices);
      std::vector<StreamId> streams;
      for (std::int32_t d : col.group) streams.push_back(b.stream(d, "comm"));
      const CollectiveId id = b.add_collective(col.kind, col.algorithm, col.group, col.bytes, streams, "c");
      b.collective(id).root = col.root;
      auto prog = std::move(b).build();
      if (!prog.is_ok()) return prog.status();
      SimOptions o;
      o.network = network;
      o.exact = true;
      o.record_task_times = false;
      o.cancel = cancel;
      o.trace_steps = !merge_steps;
      auto r = detail::simulate_unnamed_links(*prog, topology, quiet, o, record_transfers);
      if (!r.is_ok() && r.status().kind() == ErrorKind::kCancelled) return r.status();
      if (!r.is_ok()) continue;  // the run in context reports it
      ShortcutEntry e;
      e.duration_seconds = r->step_seconds;
      for (const LinkStats& l : r->links)
        if (l.bytes > 0 || l.busy_seconds > 0) e.channels.push_back(ChannelUse{l.channel, l.bytes, l.busy_seconds});
      if (record_transfers) {
        for (size_t k = 0; k < col.group.size(); ++k) rank_of[static_cast<size_t>(col.group[k])] = static_cast<std::int32_t>(k);
        e.transfers.reserve(r->trace.transfers.size());
        for (const TraceTransfer& x : r->trace.transfers)
          e.transfers.push_back(ShortcutTransfer{x.start_seconds, x.end_seconds, x.bytes,
                                                 rank_of[static_cast<size_t>(x.src)],
                                                 rank_of[static_cast<size_t>(x.dst)], x.lane});
        for (std::int32_t d : col.group) rank_of[static_cast<size_t>(d)] = -1;
      }
      table.entries.push_back(std::move(e));
      entry = static_cast<std::int32_t>(table.entries.size()) - 1;
      list.emplace_back(col.bytes, entry);
    }
    shortcut_of[c] = entry;
  }
  return Status::ok();
}

}  // namespace brigade::sim
