// Held rings split where a flow joins them (sim/engine.hpp; docs/simulator.md,
// "Split rings").
#include <algorithm>
#include <limits>

#include "sim/engine.hpp"

namespace brigade::sim::engine {

// Every channel of a ring's hops' routes (a channel twice where the
// reducing and the plain route of a hop share it).
template <class F>
void Engine::for_each_hop_channel(const Instance& in, F&& f) const {
  const auto n = in.devices.size();
  auto each = [&](std::int32_t route) {
    const RouteInfo& ri = routes_[static_cast<size_t>(route)];
    for (std::int32_t i = 0; i < ri.count; ++i) f(route_channels_[static_cast<size_t>(ri.first + i)]);
  };
  for (size_t r = 0; r < n; ++r) {
    each(in.ring_route[r]);
    if (in.ring_reduce_steps > 0) each(in.ring_reduce_route[r]);
  }
}

// Whether split_held can split every checked-shortcut candidate, as far
// as the Program and the topology tell: a plain ring as it runs, whose hops'
// routes share no channel (the channels the engine adds to a route are the
// pair's own). split_held checks again when it splits.
bool Engine::candidates_split() {
  const auto ncoll = p_.collectives().size();
  std::vector<std::uint64_t> owner(static_cast<size_t>(topo_.num_channels()), 0);
  std::uint64_t stamp = 0;
  for (size_t c = 0; c < ncoll; ++c) {
    if (!shortcut_plan_.is_candidate(static_cast<CollectiveId>(c))) continue;
    const Collective& col = running_collective(static_cast<CollectiveId>(c));
    if (!is_plain_ring(col)) return false;
    ++stamp;
    const size_t n = col.group.size();
    for (size_t r = 0; r < n; ++r) {
      const std::uint64_t mine = (stamp << 32) | r;
      for (ChannelId ch : topo_.route(col.group[r], col.group[(r + 1) % n]).channels) {
        std::uint64_t& o = owner[static_cast<size_t>(ch)];
        if ((o >> 32) == stamp && o != mine) return false;
        o = mine;
      }
    }
  }
  return true;
}

// Replays held ring c, prepared in `in`, from the start of its hold to
// `until`, and leaves each rank's state then in replay_. The hold starts
// either at the collective's go (held_entry_[c] >= 0: every rank at its
// first step) or where hold_again left it (in.hold_ranks). Until a flow
// joins its channels a held ring runs exactly as alone: a rank's step starts
// when the rank's previous send has left and its predecessor's has arrived,
// waits its route's alpha, then moves its bytes at the route's narrowest
// capacity (no two hops share a channel); the replay does the events'
// arithmetic in their order. With `account`, the messages that end by
// `until` add their bytes and busy time to their channels. Returns when the
// last message replayed ends (the ring's end when `until` is infinite).
double Engine::replay_hold(CollectiveId c, const Instance& in, double until, bool account) {
  const auto n = static_cast<std::int32_t>(in.devices.size());
  const bool fresh = held_entry_[static_cast<size_t>(c)] >= 0;
  const double t0 = fresh ? held_since_[static_cast<size_t>(c)] : in.hold_since;
  constexpr double kBefore = -std::numeric_limits<double>::infinity();  // ended before the hold
  auto narrowest = [this](std::int32_t route) {
    const RouteInfo& ri = routes_[static_cast<size_t>(route)];
    return net_.narrowest(std::span<const ChannelId>(route_channels_.data() + ri.first, static_cast<size_t>(ri.count)));
  };
  // Each hop's rate alone, on its plain and its reducing route.
  replay_rate_.resize(2 * static_cast<size_t>(n));
  for (std::int32_t r = 0; r < n; ++r) {
    replay_rate_[2 * static_cast<size_t>(r)] = narrowest(in.ring_route[static_cast<size_t>(r)]);
    replay_rate_[2 * static_cast<size_t>(r) + 1] =
        in.ring_reduce_steps > 0 ? narrowest(in.ring_reduce_route[static_cast<size_t>(r)]) : 0;
  }
  auto rate = [&](std::int32_t r, std::int32_t route) {
    return replay_rate_[2 * static_cast<size_t>(r) + (route == in.ring_route[static_cast<size_t>(r)] ? 0 : 1)];
  };
  auto add = [this](std::int32_t route, double bytes, double busy) {
    const RouteInfo& ri = routes_[static_cast<size_t>(route)];
    for (std::int32_t i = 0; i < ri.count; ++i) {
      ChannelUse& u = chan_[static_cast<size_t>(route_channels_[static_cast<size_t>(ri.first + i)])];
      u.bytes += bytes;
      u.busy += busy;
    }
  };
  replay_.assign(static_cast<size_t>(n), ReplayRank{});
  replay_prev_end_.assign(static_cast<size_t>(n), kBefore);
  std::int32_t first = 0, last_held = 0;  // the steps the hold began in
  if (!fresh) {
    first = in.ring_steps;
    for (std::int32_t r = 0; r < n; ++r) {
      const HoldRank& h = in.hold_ranks[static_cast<size_t>(r)];
      replay_[static_cast<size_t>(r)].done = h.done;
      replay_[static_cast<size_t>(r)].launched = h.launched;
      first = std::min(first, h.done);
      last_held = std::max(last_held, h.done);
    }
  }
  double last_end = t0;
  for (std::int32_t s = first; s < in.ring_steps; ++s) {
    bool any = false;
    for (std::int32_t r = 0; r < n; ++r) {
      ReplayRank& k = replay_[static_cast<size_t>(r)];
      const HoldRank* h = fresh ? nullptr : &in.hold_ranks[static_cast<size_t>(r)];
      if (h != nullptr && s < h->done) {
        k.end = kBefore;
        continue;
      }
      HoldRank m;
      if (h != nullptr && s == h->done && h->launched > h->done) {
        m = *h;  // in flight when the hold began
      } else {
        m.start = s == 0 ? t0
                         : std::max(replay_prev_end_[static_cast<size_t>(r)],
                                    replay_prev_end_[static_cast<size_t>((r + n - 1) % n)]);
        const RingStep x = ring_step(in, r, s);
        const double alpha = routes_[static_cast<size_t>(x.route)].alpha_seconds;
        m.alpha_end = m.start + (x.alpha_times == 1 ? alpha : alpha * x.alpha_times);
        m.remaining = m.bytes = x.bytes;
        m.last_update = m.busy_from = m.alpha_end;
        m.route = x.route;
      }
      // Its end: at its alpha's end with no bytes, else its bytes left at the route's rate.
      k.end = m.bytes > 0 ? m.last_update + m.remaining / rate(r, m.route) : m.alpha_end;
      last_end = std::max(last_end, k.end);
      if (m.start > until) continue;
      any = true;
      if (!(h != nullptr && s == h->done && h->launched > h->done)) ++k.launched;
      if (k.end <= until) {
        ++k.done;
        if (account && m.bytes > 0) add(m.route, m.bytes, k.end - m.busy_from);
      } else {
        k.flight = m;
      }
    }
    if (!any && s >= last_held) break;
    for (std::int32_t r = 0; r < n; ++r) replay_prev_end_[static_cast<size_t>(r)] = replay_[static_cast<size_t>(r)].end;
  }
  return last_end;
}

// The split ring's channels (its hops' routes on the topology) marked as
// `owner`'s, or cleared (-1): a flow that leaves one may let it be held again.
void Engine::mark_split_channels(const Instance& in, CollectiveId owner) {
  for_each_hop_channel(in, [&](ChannelId ch) {
    if (static_cast<size_t>(ch) < split_ring_of_chan_.size()) split_ring_of_chan_[static_cast<size_t>(ch)] = owner;
  });
}

// A held ring that a flow is about to join at now_ (alpha_end): replayed
// to now_ (replay_hold), it goes on expanded from the state it reaches:
// messages in flight become flows, the rest start as the ring's counters
// say; its pending end is stale. For a hold from its go, the shortcut's
// link figures added then are replaced by what the replayed messages
// carried. Returns false, changing nothing that counts, where the replay
// would not be the expansion: not a plain ring, two hops on one channel, or
// a channel of its routes already carrying a flow.
bool Engine::split_held(CollectiveId c) {
  const auto ci = static_cast<size_t>(c);
  const std::int32_t entry = held_entry_[ci];
  std::int32_t inst = coll_inst_[ci];  // held again: its instance is kept
  if (entry < 0 && (inst < 0 || instances_[static_cast<size_t>(inst)].hold_ranks.empty())) return false;
  const Collective& col = running_collective(c);
  const auto n = static_cast<std::int32_t>(col.group.size());
  if (entry >= 0) {
    if (!is_plain_ring(col)) return false;
    inst = new_instance();
    {
      Instance& in = instances_[static_cast<size_t>(inst)];
      in.transfer = -1;
      in.transfer_int = -1;
      in.collective = c;
      in.devices.assign(col.group.begin(), col.group.end());
    }
    if (!prepare_ring(inst, col)) return false;  // an error (a held ring has steps)
    // Each hop's channels its own, and no flow on them.
    const Instance& in = instances_[static_cast<size_t>(inst)];
    ++split_stamp_;
    if (split_owner_.size() < chan_capacity_.size()) split_owner_.resize(chan_capacity_.size(), 0);
    auto claim = [this](std::int32_t route, std::int32_t hop) {
      const RouteInfo& ri = routes_[static_cast<size_t>(route)];
      const std::uint64_t mine = (split_stamp_ << 32) | static_cast<std::uint32_t>(hop);
      for (std::int32_t i = 0; i < ri.count; ++i) {
        const auto ch = static_cast<size_t>(route_channels_[static_cast<size_t>(ri.first + i)]);
        std::uint64_t& o = split_owner_[ch];
        if (((o >> 32) == split_stamp_ && o != mine) || net_.flows_on(static_cast<ChannelId>(ch)) != 0) return false;
        o = mine;
      }
      return true;
    };
    for (std::int32_t r = 0; r < n; ++r)
      if (!claim(in.ring_route[static_cast<size_t>(r)], r) ||
          (in.ring_reduce_steps > 0 && !claim(in.ring_reduce_route[static_cast<size_t>(r)], r))) {
        free_instances_.push_back(inst);
        return false;
      }
  }
  Instance& in = instances_[static_cast<size_t>(inst)];
  replay_hold(c, in, now_, true);
  if (entry >= 0) {
    // The shortcut's figures out (the replay put back what was carried).
    shortcut_off_link_ -= shortcuts_table_.entries[static_cast<size_t>(entry)].off_link_bytes;
    for (const auto& u : shortcuts_table_.entries[static_cast<size_t>(entry)].channels) {
      chan_[static_cast<size_t>(u.channel)].bytes -= u.bytes;
      chan_[static_cast<size_t>(u.channel)].busy -= u.busy_seconds;
      if (held_by_[static_cast<size_t>(u.channel)] == c) held_until_[static_cast<size_t>(u.channel)] = now_;
    }
    held_entry_[ci] = -1;
    ++splits_;
    --shortcuts_;
  }
  // Its channels free from now; its pending end stale.
  for_each_hop_channel(in, [&](ChannelId ch) {
    const auto k = static_cast<size_t>(ch);
    if (k < held_until_.size() && held_by_[k] == c && held_until_[k] > now_) held_until_[k] = now_;
  });
  ++hold_version_[ci];
  coll_inst_[ci] = inst;
  in.hold_ranks.clear();
  mark_split_channels(in, c);
  // The ring's counters, and its messages in flight.
  std::int32_t done = 0;
  for (std::int32_t r = 0; r < n; ++r) {
    const ReplayRank& k = replay_[static_cast<size_t>(r)];
    in.next_step[static_cast<size_t>(r)] = k.launched;
    in.sends_done[static_cast<size_t>(r)] = k.done;
    in.recvs_done[static_cast<size_t>((r + 1) % n)] = k.done;
    in.ring_flight[static_cast<size_t>(r)] = -1;
    done += k.done;
  }
  in.ops_left = in.ring_steps * n - done;
  for (std::int32_t r = 0; r < n; ++r) {
    const ReplayRank& k = replay_[static_cast<size_t>(r)];
    if (k.launched == k.done) continue;
    const HoldRank& m = k.flight;
    const std::int32_t slot = new_flow();
    instances_[static_cast<size_t>(inst)].ring_flight[static_cast<size_t>(r)] = slot;
    FlowSlot& f = flows_slots_[static_cast<size_t>(slot)];
    f.bytes = m.bytes;
    f.remaining = m.bytes;
    f.rate = 0;
    f.last_update = now_;
    f.start_seconds = m.start;
    f.instance = inst;
    f.op = r;
    f.step = k.done;
    f.route = m.route;
    ++flows_;
    if (now_ < m.alpha_end) {
      queue_.push(m.alpha_end, make_event(static_cast<std::uint32_t>(slot), kAlphaEnd, f.version));
      continue;
    }
    // Its bytes have moved since last_update at the rate it had alone:
    // on_rate takes what moved off, as at any change of rate.
    const RouteInfo& ri = routes_[static_cast<size_t>(m.route)];
    for (std::int32_t i = 0; i < ri.count; ++i) {
      const ChannelId ch = route_channels_[static_cast<size_t>(ri.first + i)];
      channel_up(ch);
      chan_[static_cast<size_t>(ch)].since = m.busy_from;  // its own channel: busy since then
    }
    f.remaining = m.remaining;
    f.rate = net_.narrowest(std::span<const ChannelId>(route_channels_.data() + ri.first, static_cast<size_t>(ri.count)));
    f.last_update = m.last_update;
    if (net_.add(slot, std::span<const ChannelId>(route_channels_.data() + ri.first, static_cast<size_t>(ri.count))))
      on_rate(slot, net_.rate(slot));
  }
  if (instances_[static_cast<size_t>(inst)].ops_left == 0) finish_instance(inst);  // it ended as the flow came
  return true;
}

// A split ring some other flow has just left, the network re-shared: if no
// other flow is on its channels, it is held again until its replayed end
// (replay_hold from now): its messages in flight leave the network (the
// busy time of their channels counted to now, their bytes when they end),
// its channels are held, and an end event is pushed. A flow that joins a
// channel before then splits it again (split_held), from this state.
void Engine::hold_again(CollectiveId c) {
  const auto ci = static_cast<size_t>(c);
  const std::int32_t inst = coll_inst_[ci];
  if (inst < 0 || held_until_.empty()) return;  // over
  Instance& in = instances_[static_cast<size_t>(inst)];
  if (!in.hold_ranks.empty()) return;  // held already
  const auto n = static_cast<std::int32_t>(in.devices.size());
  // Only its own messages on its channels: one a hop at most, alone.
  ++split_stamp_;
  if (split_owner_.size() < chan_capacity_.size()) split_owner_.resize(chan_capacity_.size(), 0);
  for (std::int32_t r = 0; r < n; ++r) {
    const std::int32_t slot = in.ring_flight[static_cast<size_t>(r)];
    if (slot < 0 || !(flows_slots_[static_cast<size_t>(slot)].rate > 0)) continue;
    const RouteInfo& ri = routes_[static_cast<size_t>(flows_slots_[static_cast<size_t>(slot)].route)];
    for (std::int32_t i = 0; i < ri.count; ++i)
      split_owner_[static_cast<size_t>(route_channels_[static_cast<size_t>(ri.first + i)])] = split_stamp_ << 32;
  }
  // Nor held by another collective (one that started on an idle hop).
  bool alone = true;
  for_each_hop_channel(in, [&](ChannelId ch) {
    const auto k = static_cast<size_t>(ch);
    const std::int32_t own = split_owner_[k] == (split_stamp_ << 32) ? 1 : 0;
    alone &= net_.flows_on(ch) == own && (k >= held_until_.size() || held_until_[k] <= now_ || held_by_[k] == c);
  });
  if (!alone) return;
  // Each rank's state now; its messages off the network.
  in.hold_since = now_;
  in.hold_ranks.assign(static_cast<size_t>(n), HoldRank{});
  for (std::int32_t r = 0; r < n; ++r) {
    HoldRank& h = in.hold_ranks[static_cast<size_t>(r)];
    h.done = in.sends_done[static_cast<size_t>(r)];
    h.launched = in.next_step[static_cast<size_t>(r)];
    const std::int32_t slot = in.ring_flight[static_cast<size_t>(r)];
    if (slot < 0) continue;
    FlowSlot& f = flows_slots_[static_cast<size_t>(slot)];
    h.start = f.start_seconds;
    h.bytes = f.bytes;
    h.route = f.route;
    const RingStep x = ring_step(in, r, h.done);
    const double alpha = routes_[static_cast<size_t>(f.route)].alpha_seconds;
    h.alpha_end = f.start_seconds + (x.alpha_times == 1 ? alpha : alpha * x.alpha_times);
    if (f.rate > 0) {
      h.remaining = f.remaining;
      h.last_update = f.last_update;
      h.busy_from = now_;
      const RouteInfo& ri = routes_[static_cast<size_t>(f.route)];
      for (std::int32_t i = 0; i < ri.count; ++i) {
        ChannelUse& u = chan_[static_cast<size_t>(route_channels_[static_cast<size_t>(ri.first + i)])];
        if (--u.active == 0) u.busy += now_ - u.since;
      }
      net_.remove(slot);
    } else {
      h.remaining = f.bytes;
      h.last_update = h.busy_from = h.alpha_end;
    }
    ++f.version;  // its queued events are stale
    free_flows_.push_back(slot);
    in.ring_flight[static_cast<size_t>(r)] = -1;
  }
  const double end = replay_hold(c, in, std::numeric_limits<double>::infinity(), false);
  mark_split_channels(in, -1);
  for_each_hop_channel(in, [&](ChannelId ch) {
    const auto k = static_cast<size_t>(ch);
    if (k >= held_until_.size()) return;
    held_until_[k] = end;
    held_by_[k] = c;
  });
  ++holds_again_;
  queue_.push(end, make_event(static_cast<std::uint32_t>(c), kShortcutEnd, ++hold_version_[ci]));
}

// A ring held again reaches its end: what its messages carried since the
// hold is counted, and its instance is done (the caller finishes the
// collective).
void Engine::end_hold(CollectiveId c) {
  const auto ci = static_cast<size_t>(c);
  const std::int32_t inst = coll_inst_[ci];
  replay_hold(c, instances_[static_cast<size_t>(inst)], std::numeric_limits<double>::infinity(), true);
  instances_[static_cast<size_t>(inst)].hold_ranks.clear();
  coll_inst_[ci] = -1;
  free_instances_.push_back(inst);
}

}  // namespace brigade::sim::engine
