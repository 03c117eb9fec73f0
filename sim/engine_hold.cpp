// Held rings split where a flow joins them (sim/engine.hpp; docs/simulator.md,
// "Split rings").
#include <algorithm>
#include <limits>

#include "sim/engine.hpp"

namespace brigade::sim::engine {

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

// A held ring (collective_go's checked shortcut) that a flow is about to
// join at now_. Until now no other flow was on its channels, so it has run
// exactly as its isolated expansion from held_since_: each rank's step
// starts when the rank's previous send has left and its predecessor's has
// arrived, waits its route's alpha, then moves its bytes at the route's
// narrowest capacity (alone on its channels: no two hops share one). That
// run is replayed here up to now_ (the same arithmetic as the events would
// do), and the ring goes on expanded from the state it reaches: messages
// in flight become flows, the rest starts as the ring's counters say. The
// shortcut's link figures, added when it started, are replaced by what the
// replayed messages carried. Returns false, changing nothing that counts,
// where the replay would not be the expansion: not a plain ring, two hops
// on one channel, or a channel of its routes already carrying a flow.
bool Engine::split_held(CollectiveId c) {
  const auto ci = static_cast<size_t>(c);
  const std::int32_t entry = held_entry_[ci];
  if (entry < 0) return false;
  const Collective& col = running_collective(c);
  if (!is_plain_ring(col)) return false;
  const auto n = static_cast<std::int32_t>(col.group.size());
  const std::int32_t inst = new_instance();
  {
    Instance& in = instances_[static_cast<size_t>(inst)];
    in.transfer = -1;
    in.transfer_int = -1;
    in.collective = c;
    in.devices.assign(col.group.begin(), col.group.end());
  }
  if (!prepare_ring(inst, col)) return false;  // an error (a held ring has steps)
  Instance& in = instances_[static_cast<size_t>(inst)];
  // Each hop's channels its own, and no flow on them.
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
  auto rate = [this](std::int32_t route) {
    const RouteInfo& ri = routes_[static_cast<size_t>(route)];
    return net_.narrowest(std::span<const ChannelId>(route_channels_.data() + ri.first, static_cast<size_t>(ri.count)));
  };
  auto account = [this](std::int32_t route, double bytes, double busy) {
    const RouteInfo& ri = routes_[static_cast<size_t>(route)];
    for (std::int32_t i = 0; i < ri.count; ++i) {
      ChannelUse& u = chan_[static_cast<size_t>(route_channels_[static_cast<size_t>(ri.first + i)])];
      u.bytes += bytes;
      u.busy += busy;
    }
  };
  // The replay, step by step over all ranks, until no rank starts one by now_.
  const double t0 = held_since_[ci];
  split_ranks_.assign(static_cast<size_t>(n), SplitRank{});
  split_prev_end_.assign(static_cast<size_t>(n), t0);
  for (std::int32_t s = 0; s < in.ring_steps; ++s) {
    bool any = false;
    for (std::int32_t r = 0; r < n; ++r) {
      SplitRank& k = split_ranks_[static_cast<size_t>(r)];
      const double start = s == 0 ? t0
                                  : std::max(split_prev_end_[static_cast<size_t>(r)],
                                             split_prev_end_[static_cast<size_t>((r + n - 1) % n)]);
      const RingStep x = ring_step(in, r, s);
      const double alpha = routes_[static_cast<size_t>(x.route)].alpha_seconds;
      const double alpha_end = start + (x.alpha_times == 1 ? alpha : alpha * x.alpha_times);
      k.end = x.bytes > 0 ? alpha_end + x.bytes / rate(x.route) : alpha_end;
      if (start > now_) continue;
      any = true;
      ++k.launched;
      if (k.end <= now_) {
        ++k.done;
        if (x.bytes > 0) account(x.route, x.bytes, k.end - alpha_end);
      } else {
        k.start = start;
        k.alpha_end = alpha_end;
        k.flight_end = k.end;
        k.bytes = x.bytes;
        k.route = x.route;
      }
    }
    if (!any) break;
    for (std::int32_t r = 0; r < n; ++r) split_prev_end_[static_cast<size_t>(r)] = split_ranks_[static_cast<size_t>(r)].end;
  }
  // The shortcut's figures out, its channels free.
  for (const auto& u : shortcuts_table_.entries[static_cast<size_t>(entry)].channels) {
    const auto ch = static_cast<size_t>(u.channel);
    chan_[ch].bytes -= u.bytes;
    chan_[ch].busy -= u.busy_seconds;
    if (held_by_[ch] == c) held_until_[ch] = now_;
  }
  held_entry_[ci] = -1;
  split_[ci] = 1;
  ++splits_;
  --shortcuts_;
  // The ring's counters, and its messages in flight.
  std::int32_t done = 0;
  for (std::int32_t r = 0; r < n; ++r) {
    const SplitRank& k = split_ranks_[static_cast<size_t>(r)];
    in.next_step[static_cast<size_t>(r)] = k.launched;
    in.sends_done[static_cast<size_t>(r)] = k.done;
    in.recvs_done[static_cast<size_t>((r + 1) % n)] = k.done;
    done += k.done;
  }
  in.ops_left = in.ring_steps * n - done;
  for (std::int32_t r = 0; r < n; ++r) {
    const SplitRank& k = split_ranks_[static_cast<size_t>(r)];
    if (k.launched == k.done) continue;
    const std::int32_t slot = new_flow();
    FlowSlot& f = flows_slots_[static_cast<size_t>(slot)];
    f.bytes = k.bytes;
    f.remaining = k.bytes;
    f.rate = 0;
    f.last_update = now_;
    f.start_seconds = k.start;
    f.instance = inst;
    f.op = r;
    f.step = k.done;
    f.route = k.route;
    ++flows_;
    if (now_ < k.alpha_end) {
      queue_.push(k.alpha_end, make_event(static_cast<std::uint32_t>(slot), kAlphaEnd, f.version));
      continue;
    }
    // Its bytes have been moving since its alpha ended, at the rate it had
    // alone: on_rate takes what it moved off, as at any change of rate.
    const RouteInfo& ri = routes_[static_cast<size_t>(k.route)];
    for (std::int32_t i = 0; i < ri.count; ++i) {
      const ChannelId ch = route_channels_[static_cast<size_t>(ri.first + i)];
      channel_up(ch);
      chan_[static_cast<size_t>(ch)].since = k.alpha_end;  // its own channel: up since then
    }
    f.rate = rate(k.route);
    f.last_update = k.alpha_end;
    if (net_.add(slot, std::span<const ChannelId>(route_channels_.data() + ri.first, static_cast<size_t>(ri.count))))
      on_rate(slot, net_.rate(slot));
  }
  if (in.ops_left == 0) finish_instance(inst);  // rounding: the foreign flow came as it ended
  return true;
}

}  // namespace brigade::sim::engine
