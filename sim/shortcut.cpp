#include "sim/shortcut.hpp"

#include <algorithm>
#include <cstring>
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
  const std::vector<std::int32_t>& item(std::int32_t id) const {
    return items_[static_cast<size_t>(id)];
  }
  size_t size() const { return items_.size(); }

 private:
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> by_hash_;
  std::vector<std::vector<std::int32_t>> items_;
};

// Ranks of `v`'s values among its distinct values (order kept).
void order_ranks(const std::vector<std::int32_t>& v, std::vector<std::int32_t>& sorted,
                 std::vector<std::int32_t>& out) {
  sorted = v;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  out.clear();
  for (std::int32_t x : v)
    out.push_back(static_cast<std::int32_t>(std::lower_bound(sorted.begin(), sorted.end(), x) -
                                            sorted.begin()));
}

void push_double(std::vector<std::int32_t>& key, double x) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  key.push_back(static_cast<std::int32_t>(bits & 0xFFFFFFFFu));
  key.push_back(static_cast<std::int32_t>(bits >> 32));
}

// What an isolated run of a collective pattern depends on, with devices,
// nodes, vertices and channels renumbered by their order: two patterns with
// the same key run the same isolated simulation (the same events in the
// same order, on channels and devices that correspond one to one, in the
// same order), so one run serves both. The key holds the kind, algorithm,
// root and size; per rank its device's order in the group, its node's
// order among the group's nodes, its kind, index in its node and profile
// entry; per channel its link's figures and class and its ends' order among
// the vertices; per message of the expansion its ranks and its route as
// channel orders.
std::vector<std::int32_t> shape_key(const Collective& col, const std::vector<std::int32_t>& node_of,
                                    const std::vector<std::pair<std::int32_t, std::int32_t>>& pairs,
                                    const std::vector<ChannelId>& chans, const Topology& topology,
                                    const HardwareProfile& profile) {
  std::vector<std::int32_t> key{static_cast<std::int32_t>(col.kind),
                                static_cast<std::int32_t>(col.algorithm), col.root,
                                static_cast<std::int32_t>(col.group.size())};
  std::vector<std::int32_t> sorted, ranks, nodes;
  order_ranks(col.group, sorted, ranks);
  key.insert(key.end(), ranks.begin(), ranks.end());
  for (std::int32_t d : col.group) nodes.push_back(node_of[static_cast<size_t>(d)]);
  order_ranks(nodes, sorted, ranks);
  key.insert(key.end(), ranks.begin(), ranks.end());
  std::vector<const DeviceProfile*> seen_profiles;
  for (std::int32_t d : col.group) {
    const Device& dev = topology.device(d);
    const DeviceProfile* dp = &profile.for_device(dev);
    auto it = std::find(seen_profiles.begin(), seen_profiles.end(), dp);
    if (it == seen_profiles.end()) it = seen_profiles.insert(seen_profiles.end(), dp);
    key.push_back(static_cast<std::int32_t>(dev.kind));
    key.push_back(dev.local_index);
    key.push_back(static_cast<std::int32_t>(it - seen_profiles.begin()));
  }
  // Profiles told apart by their contents too (one key serves every
  // collective of the Program, whose devices' entries are few).
  for (const DeviceProfile* dp : seen_profiles) {
    push_double(key, dp->collective_overhead_seconds);
    push_double(key, dp->comm_compute_slowdown);
    push_double(key, dp->comm_compute_share);
    key.push_back(static_cast<std::int32_t>(dp - profile.devices.data()));
  }
  std::vector<std::int32_t> ends;
  for (ChannelId ch : chans) {
    ends.push_back(topology.channel_from(ch));
    ends.push_back(topology.channel_to(ch));
  }
  order_ranks(ends, sorted, ranks);
  key.insert(key.end(), ranks.begin(), ranks.end());
  key.push_back(-1);
  for (ChannelId ch : chans) {
    const Link& l = topology.links()[static_cast<size_t>(link_of(ch))];
    push_double(key, l.bandwidth_bytes_per_second);
    push_double(key, l.latency_seconds);
    key.push_back(static_cast<std::int32_t>(l.link_class));
    key.push_back(ch & 1);
  }
  for (const auto& [src, dst] : pairs) {
    key.push_back(-2);
    key.push_back(src);
    key.push_back(dst);
    for (ChannelId ch :
         topology.route(col.group[static_cast<size_t>(src)], col.group[static_cast<size_t>(dst)])
             .channels)
      key.push_back(static_cast<std::int32_t>(std::lower_bound(chans.begin(), chans.end(), ch) -
                                              chans.begin()));
  }
  return key;
}

std::atomic<bool> g_share_shapes{true};

// A collective task spliced into another stream of its device (the
// column-parallel backward's collectives on `tp`, issued beside a GEMM on
// `compute`): task X on stream A waits directly for task P of stream B, a
// later task S of B waits directly for X, and no collective or transfer of B
// lies between P and S. X then runs within [end of P, start of S], and B's
// order orders it against every collective and transfer of B as if it were
// one of B's tasks. Two tasks spliced into one B are ordered by A's order
// when both come from A, and by B's when their spans [P, S] do not overlap;
// tasks from different streams whose spans overlap are not spliced when
// their collectives share a channel (ShortcutPlan::plan).
struct Splice {
  TaskId from, to, task;  // P, S, X
  StreamId origin;        // A
};

// The candidate splices, by the stream B they are spliced into.
std::unordered_map<StreamId, std::vector<Splice>> splices(const Program& p) {
  std::unordered_map<StreamId, std::vector<Splice>> out;
  const auto n = static_cast<size_t>(p.num_tasks());
  if (p.collectives().size() == 0) return out;
  std::vector<std::uint8_t> collective(n, 0);
  for (const Collective& c : p.collectives())
    for (TaskId t : c.tasks) collective[static_cast<size_t>(t)] = 1;
  // Each collective task's first successor on another stream of its device
  // (tasks go up in id: the first found is the earliest).
  std::vector<TaskId> next_of(n, -1);
  for (TaskId t = 0; t < p.num_tasks(); ++t)
    for (TaskId u : p.deps(t)) {
      const auto i = static_cast<size_t>(u);
      if (!collective[i] || next_of[i] >= 0) continue;
      const Task &x = p.task(t), &y = p.task(u);
      if (y.device == x.device && y.stream != x.stream) next_of[i] = t;
    }
  auto channel_user = [&](TaskId t) { return p.task(t).kind != TaskKind::kCompute; };
  for (size_t i = 0; i < n; ++i) {
    const TaskId s = next_of[i];
    if (s < 0) continue;
    const auto x = static_cast<TaskId>(i);
    const Task& tx = p.task(x);
    const StreamId b = p.task(s).stream;
    TaskId pred = -1;  // X's latest direct dependency on B
    bool other = false;
    for (TaskId u : p.deps(x)) {
      const Task& y = p.task(u);
      if (y.device != tx.device || y.stream == tx.stream) continue;
      if (y.stream != b) other = true;
      else pred = std::max(pred, u);
    }
    if (other || pred < 0 || pred >= s) continue;
    // Nothing on B between P and S uses a channel (B lists its tasks in id
    // order: ProgramBuilder::build).
    const auto ts = p.stream_tasks(b);
    const auto first = std::upper_bound(ts.begin(), ts.end(), pred);
    const auto last = std::lower_bound(ts.begin(), ts.end(), s);
    if (std::any_of(first, last, channel_user)) continue;
    out[b].push_back({pred, s, x, tx.stream});
  }
  return out;
}

// Whether two sorted channel lists share a channel.
bool share_channel(const std::vector<ChannelId>& a, const std::vector<ChannelId>& b) {
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j]) return true;
    a[i] < b[j] ? ++i : ++j;
  }
  return false;
}

}  // namespace

namespace detail {
void share_shortcut_shapes(bool on) {
  g_share_shapes = on;
}
}  // namespace detail

Status ShortcutPlan::plan(const Program& program,
                          const std::vector<CollectiveAlgorithm>& algorithms,
                          const Topology& topology, const HardwareProfile& profile,
                          NetworkModel network, const std::vector<std::int32_t>& node_of,
                          const std::vector<TaskId>& transfers, ShortcutTable& table,
                          std::vector<std::int32_t>& shortcut_of, const std::atomic<bool>* cancel,
                          bool record_transfers, bool merge_steps) {
  program_ = &program;
  share_shapes_ = g_share_shapes;
  topology_ = &topology;
  network_ = network;
  cancel_ = cancel;
  record_transfers_ = record_transfers;
  merge_steps_ = merge_steps;
  table_ = &table;
  const auto& colls = program.collectives();
  const auto nc = static_cast<size_t>(topology.num_channels());

  // Patterns: (kind, algorithm, root, group) -> the channels its steps use.
  VectorInterner patterns, stream_sets;
  coll_pattern_.assign(colls.size(), 0);
  std::vector<std::int32_t> coll_streams(colls.size());
  std::vector<std::int32_t> key;
  for (size_t c = 0; c < colls.size(); ++c) {
    const Collective& col = colls[c];
    key.assign(
        {static_cast<std::int32_t>(col.kind), static_cast<std::int32_t>(algorithms[c]), col.root});
    key.insert(key.end(), col.group.begin(), col.group.end());
    coll_pattern_[c] = patterns.intern(key);
  }
  pattern_channels_.assign(patterns.size(), {});
  pattern_shape_.assign(patterns.size(), -1);
  shape_entry_.clear();
  VectorInterner shapes;
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
      auto& chans = pattern_channels_[p];
      for (const auto& [src, dst] : pairs) {
        const Route& r = topology.route(col.group[static_cast<size_t>(src)],
                                        col.group[static_cast<size_t>(dst)]);
        if (r.channels.empty()) pattern_ok[p] = 0;  // unroutable: left to the run to report
        chans.insert(chans.end(), r.channels.begin(), r.channels.end());
      }
      std::sort(chans.begin(), chans.end());
      chans.erase(std::unique(chans.begin(), chans.end()), chans.end());
      for (ChannelId ch : chans) {
        const Link& l = topology.links()[static_cast<size_t>(link_of(ch))];
        if (!(achieved_link_bandwidth_bytes_per_second(l, profile) > 0)) pattern_ok[p] = 0;
      }
      pattern_shape_[p] =
          share_shapes_ ? shapes.intern(shape_key(col, node_of, pairs, chans, topology, profile))
                        : static_cast<std::int32_t>(p);
    }
  }

  // A collective's streams: its tasks' own, and those they are spliced into
  // (splices). Splices into one stream from two whose spans overlap are
  // dropped where the two collectives share a channel.
  std::unordered_map<TaskId, StreamId> spliced;
  for (auto& entry : splices(program)) {
    // (Named, not bound: clang 14 does not capture structured bindings.)
    const StreamId b = entry.first;
    std::vector<Splice>& list = entry.second;
    std::sort(list.begin(), list.end(),
              [](const Splice& x, const Splice& y) { return x.from < y.from; });
    auto channels_of = [&](const Splice& x) -> const std::vector<ChannelId>& {
      const auto c = static_cast<size_t>(program.task(x.task).collective);
      return pattern_channels_[static_cast<size_t>(coll_pattern_[c])];
    };
    std::vector<std::uint8_t> bad(list.size(), 0);
    std::vector<size_t> open;  // spans whose S lies after the current P
    for (size_t i = 0; i < list.size(); ++i) {
      open.erase(std::remove_if(open.begin(), open.end(),
                                [&](size_t j) { return list[j].to <= list[i].from; }),
                 open.end());
      for (size_t j : open)
        if (list[j].origin != list[i].origin &&
            share_channel(channels_of(list[i]), channels_of(list[j])))
          bad[i] = bad[j] = 1;
      open.push_back(i);
    }
    for (size_t i = 0; i < list.size(); ++i)
      if (!bad[i]) spliced.emplace(list[i].task, b);
  }
  for (size_t c = 0; c < colls.size(); ++c) {
    key.clear();
    for (TaskId t : colls[c].tasks) {
      key.push_back(program.task(t).stream);
      if (const auto it = spliced.find(t); it != spliced.end()) key.push_back(it->second);
    }
    std::sort(key.begin(), key.end());
    coll_streams[c] = stream_sets.intern(key);
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
    std::set_intersection(cs.begin(), cs.end(), streams.begin(), streams.end(),
                          std::back_inserter(tmp));
    cs.swap(tmp);
  };
  {
    // Distinct (pattern, stream set) users, then distinct transfer users.
    std::unordered_map<std::uint64_t, std::uint8_t> seen;
    for (size_t c = 0; c < colls.size(); ++c) {
      const std::uint64_t k = (static_cast<std::uint64_t>(coll_pattern_[c]) << 32) |
                              static_cast<std::uint32_t>(coll_streams[c]);
      if (!seen.emplace(k, 1).second) continue;
      const auto& streams = stream_sets.item(coll_streams[c]);
      for (ChannelId ch : pattern_channels_[static_cast<size_t>(coll_pattern_[c])])
        meet(ch, streams);
    }
    seen.clear();
    std::vector<std::int32_t> one(1);
    for (TaskId t : transfers) {
      const Task& x = program.task(t);
      const std::uint64_t k =
          (static_cast<std::uint64_t>(x.stream) << 32) | static_cast<std::uint32_t>(x.peer);
      if (!seen.emplace(k, 1).second) continue;
      one[0] = x.stream;
      for (ChannelId ch : topology.route(x.device, x.peer).channels) meet(ch, one);
    }
  }

  // Eligible collectives, and one isolated run per (pattern, bytes); the
  // rest that could qualify at their start are candidates.
  quiet_ = profile;  // the overhead is paid in context, not in the isolated run
  for (auto& d : quiet_.devices) d.collective_overhead_seconds = 0;
  entry_of_.clear();
  rank_of_.assign(static_cast<size_t>(program.num_devices), -1);
  candidate_.assign(colls.size(), 0);
  any_candidate_ = false;
  for (size_t c = 0; c < colls.size(); ++c) {
    const auto p = static_cast<size_t>(coll_pattern_[c]);
    if (!pattern_ok[p] || colls[c].group.size() < 2) continue;
    bool exclusive = true;
    for (ChannelId ch : pattern_channels_[p])
      if (common[static_cast<size_t>(ch)].empty()) {
        exclusive = false;
        break;
      }
    if (!exclusive) {
      if (colls[c].group.size() >= kCheckedShortcutMinRanks) candidate_[c] = any_candidate_ = true;
      continue;
    }
    auto e = entry(static_cast<CollectiveId>(c), static_cast<std::int32_t>(p));
    if (!e.is_ok()) return e.status();
    shortcut_of[c] = *e;
  }
  return Status::ok();
}

Result<std::int32_t> ShortcutPlan::entry(CollectiveId c, std::int32_t pattern) {
  const Collective& col = program_->collectives()[static_cast<size_t>(c)];
  const Size size{col.bytes, col.parts};
  auto& list = entry_of_[pattern];
  for (const auto& [sz, e] : list)
    if (sz == size) return e;
  // The same run for a collective of the same shape (isolated runs of the
  // same shape are the same run with other channel and device numbers).
  auto& same = shape_entry_[pattern_shape_[static_cast<size_t>(pattern)]];
  for (const auto& [sz, from] : same) {
    if (sz != size || from.second < 0) continue;
    const auto& a = pattern_channels_[static_cast<size_t>(from.first)];
    const auto& b = pattern_channels_[static_cast<size_t>(pattern)];
    auto moved = [&](ChannelId ch) -> ChannelId {
      const auto it = std::lower_bound(a.begin(), a.end(), ch);
      return it != a.end() && *it == ch ? b[static_cast<size_t>(it - a.begin())] : -1;
    };
    ShortcutEntry e = table_->entries[static_cast<size_t>(from.second)];
    bool whole = true;
    for (ChannelUse& u : e.channels) whole &= (u.channel = moved(u.channel)) >= 0;
    for (ShortcutTransfer& x : e.transfers)
      if (x.lane >= 0) whole &= (x.lane = moved(x.lane)) >= 0;
    if (!whole) break;  // a channel outside its pattern's: run it
    table_->entries.push_back(std::move(e));
    const auto index = static_cast<std::int32_t>(table_->entries.size()) - 1;
    list.emplace_back(size, index);
    return index;
  }
  ProgramBuilder b(program_->name, program_->num_devices);
  std::vector<StreamId> streams;
  for (std::int32_t d : col.group) streams.push_back(b.stream(d, "comm"));
  const CollectiveId id =
      b.add_collective(col.kind, col.algorithm, col.group, col.bytes, streams, "c");
  b.collective(id).root = col.root;
  b.collective(id).parts = col.parts;
  auto prog = std::move(b).build();
  if (!prog.is_ok()) return prog.status();
  SimOptions o;
  o.network = network_;
  o.exact = true;
  o.record_task_times = false;
  o.host_op_seconds = 0.0;  // the collective alone from its start: no host issues it late
  o.cancel = cancel_;
  o.trace_steps = !merge_steps_;
  auto r = detail::simulate_unnamed_links(*prog, *topology_, quiet_, o, record_transfers_);
  if (!r.is_ok() && r.status().kind() == ErrorKind::kCancelled) return r.status();
  if (!r.is_ok()) {  // the run in context reports it
    list.emplace_back(size, -1);
    same.emplace_back(size, std::make_pair(pattern, -1));
    return -1;
  }
  ShortcutEntry e;
  e.duration_seconds = r->step_seconds;
  e.off_link_bytes = r->off_link_bytes;
  for (const LinkStats& l : r->links)
    if (l.bytes > 0 || l.busy_seconds > 0)
      e.channels.push_back(ChannelUse{l.channel, l.bytes, l.busy_seconds});
  if (record_transfers_) {
    for (size_t k = 0; k < col.group.size(); ++k)
      rank_of_[static_cast<size_t>(col.group[k])] = static_cast<std::int32_t>(k);
    e.transfers.reserve(r->trace.transfers.size());
    for (const TraceTransfer& x : r->trace.transfers)
      e.transfers.push_back(ShortcutTransfer{x.start_seconds, x.end_seconds, x.bytes,
                                             rank_of_[static_cast<size_t>(x.src)],
                                             rank_of_[static_cast<size_t>(x.dst)], x.lane});
    for (std::int32_t d : col.group) rank_of_[static_cast<size_t>(d)] = -1;
  }
  table_->entries.push_back(std::move(e));
  const auto index = static_cast<std::int32_t>(table_->entries.size()) - 1;
  list.emplace_back(size, index);
  same.emplace_back(size, std::make_pair(pattern, index));
  return index;
}

Result<std::int32_t> ShortcutPlan::candidate_entry(CollectiveId c) {
  if (!any_candidate_ || !candidate_[static_cast<size_t>(c)]) return -1;
  return entry(c, coll_pattern_[static_cast<size_t>(c)]);
}

}  // namespace brigade::sim
