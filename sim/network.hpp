// Internal to sim/: max-min fair sharing of channels among flows.
//
// Flows are integer slots owned by the engine; each crosses a list of
// channels. Channels touched by a flow joining or leaving are marked dirty;
// recompute() then re-runs progressive filling (Bertsekas & Gallager, "Data
// Networks", 2nd ed., sec. 6.5.2) on the connected components (flows and
// channels linked by sharing) that contain a dirty channel, and nothing
// else. A component of one flow (the common case: a ring step on a switched
// fabric) costs O(hops).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/topology.hpp"

namespace brigade::sim {

class FlowNetwork {
 public:
  // `capacity` by channel, bytes per second (> 0 on every channel a flow uses).
  void init(std::vector<double> capacity);
  // Appends a channel of `capacity` (> 0); its id is the previous channel count.
  ChannelId add_channel(double capacity);

  // Adds a flow (slot id >= 0) over `channels`. Returns true when the flow is
  // alone on all of them: its rate (the narrowest capacity) is final now and
  // nothing else changes. Otherwise its rate is set by the next recompute().
  bool add(std::int32_t flow, std::span<const ChannelId> channels);
  void remove(std::int32_t flow);
  // The rate add() gives a flow over `channels` alone on them.
  double narrowest(std::span<const ChannelId> channels) const {
    double r = 0;
    for (ChannelId c : channels) {
      const double cap = capacity_[static_cast<size_t>(c)];
      r = (r == 0 || cap < r) ? cap : r;
    }
    return r;
  }

  // Re-shares the components with a dirty channel. `changed(flow, rate)` is
  // called, in a deterministic order, for every flow of those components
  // whose rate differs from its previous one (or that had none).
  template <class F>
  void recompute(F&& changed);

  bool dirty() const { return !dirty_.empty(); }
  double rate(std::int32_t flow) const { return rate_[static_cast<size_t>(flow)]; }
  std::int32_t flows_on(ChannelId c) const { return count_[static_cast<size_t>(c)]; }

 private:
  struct Node {  // one (flow, channel) membership; intrusive lists both ways
    std::int32_t flow, channel;
    std::int32_t prev, next;  // in the channel's list
    std::int32_t flow_next;   // next membership of the same flow
  };
  std::int32_t new_node();
  void mark(ChannelId c);
  void fill_component();  // progressive filling over comp_flows_ / comp_channels_

  std::vector<double> capacity_;
  std::vector<std::int32_t> head_, count_;            // per channel
  std::vector<std::uint64_t> chan_seen_, chan_dirty_;  // per channel: stamps
  std::vector<Node> nodes_;
  std::vector<std::int32_t> free_nodes_;
  std::vector<std::int32_t> flow_first_;  // per flow slot: first membership, -1 if none
  std::vector<double> rate_, new_rate_;   // per flow slot
  std::vector<std::uint64_t> flow_seen_;  // per flow slot: stamps
  std::vector<ChannelId> dirty_;
  std::uint64_t stamp_ = 0;       // fresh marks: ++stamp_
  std::uint64_t dirty_round_ = 1;  // chan_dirty_ == dirty_round_: already in dirty_
  // Scratch for one component.
  std::vector<std::int32_t> comp_flows_;
  std::vector<ChannelId> comp_channels_, stack_;
  std::vector<double> remaining_;           // per channel: capacity not yet given out
  std::vector<std::int32_t> unfrozen_;      // per channel: flows not yet given a rate
  std::vector<std::uint32_t> version_;      // per channel, for lazy heap entries
  struct HeapEntry {
    double share;
    ChannelId channel;
    std::uint32_t version;
  };
  std::vector<HeapEntry> heap_;
};

template <class F>
void FlowNetwork::recompute(F&& changed) {
  const std::uint64_t mark = ++stamp_;
  for (ChannelId start : dirty_) {
    if (chan_seen_[static_cast<size_t>(start)] == mark) continue;
    if (count_[static_cast<size_t>(start)] == 0) continue;
    // Collect the component: channels and flows reachable through sharing.
    comp_flows_.clear();
    comp_channels_.clear();
    stack_.clear();
    stack_.push_back(start);
    chan_seen_[static_cast<size_t>(start)] = mark;
    while (!stack_.empty()) {
      const ChannelId c = stack_.back();
      stack_.pop_back();
      comp_channels_.push_back(c);
      for (std::int32_t n = head_[static_cast<size_t>(c)]; n >= 0; n = nodes_[static_cast<size_t>(n)].next) {
        const std::int32_t f = nodes_[static_cast<size_t>(n)].flow;
        if (flow_seen_[static_cast<size_t>(f)] == mark) continue;
        flow_seen_[static_cast<size_t>(f)] = mark;
        comp_flows_.push_back(f);
        for (std::int32_t m = flow_first_[static_cast<size_t>(f)]; m >= 0; m = nodes_[static_cast<size_t>(m)].flow_next) {
          const ChannelId c2 = nodes_[static_cast<size_t>(m)].channel;
          if (chan_seen_[static_cast<size_t>(c2)] != mark) {
            chan_seen_[static_cast<size_t>(c2)] = mark;
            stack_.push_back(c2);
          }
        }
      }
    }
    if (comp_flows_.size() == 1) {
      // One flow alone on its channels: the narrowest one.
      const std::int32_t f = comp_flows_[0];
      double r = capacity_[static_cast<size_t>(comp_channels_[0])];
      for (ChannelId c : comp_channels_) r = std::min(r, capacity_[static_cast<size_t>(c)]);
      new_rate_[static_cast<size_t>(f)] = r;
    } else {
      fill_component();
    }
    for (std::int32_t f : comp_flows_) {
      const double r = new_rate_[static_cast<size_t>(f)];
      if (r != rate_[static_cast<size_t>(f)]) {
        rate_[static_cast<size_t>(f)] = r;
        changed(f, r);
      }
    }
  }
  dirty_.clear();
  ++dirty_round_;
}

}  // namespace brigade::sim
