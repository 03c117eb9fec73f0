#include "sim/network.hpp"

#include <algorithm>

namespace brigade::sim {

void FlowNetwork::init(std::vector<double> capacity) {
  capacity_ = std::move(capacity);
  const size_t n = capacity_.size();
  head_.assign(n, -1);
  count_.assign(n, 0);
  chan_seen_.assign(n, 0);
  chan_dirty_.assign(n, 0);
  remaining_.assign(n, 0);
  unfrozen_.assign(n, 0);
  version_.assign(n, 0);
  nodes_.clear();
  free_nodes_.clear();
  flow_first_.clear();
  rate_.clear();
  new_rate_.clear();
  flow_seen_.clear();
  dirty_.clear();
  stamp_ = 0;
  dirty_round_ = 1;
}

ChannelId FlowNetwork::add_channel(double capacity) {
  const auto id = static_cast<ChannelId>(capacity_.size());
  capacity_.push_back(capacity);
  head_.push_back(-1);
  count_.push_back(0);
  chan_seen_.push_back(0);
  chan_dirty_.push_back(0);
  remaining_.push_back(0);
  unfrozen_.push_back(0);
  version_.push_back(0);
  return id;
}

std::int32_t FlowNetwork::new_node() {
  if (!free_nodes_.empty()) {
    const std::int32_t n = free_nodes_.back();
    free_nodes_.pop_back();
    return n;
  }
  nodes_.emplace_back();
  return static_cast<std::int32_t>(nodes_.size()) - 1;
}

void FlowNetwork::mark(ChannelId c) {
  if (chan_dirty_[static_cast<size_t>(c)] == dirty_round_) return;
  chan_dirty_[static_cast<size_t>(c)] = dirty_round_;
  dirty_.push_back(c);
}

bool FlowNetwork::add(std::int32_t flow, std::span<const ChannelId> channels) {
  const auto f = static_cast<size_t>(flow);
  if (f >= flow_first_.size()) {
    const size_t n = std::max(f + 1, flow_first_.size() * 2);
    flow_first_.resize(n, -1);
    rate_.resize(n, -1);
    new_rate_.resize(n, 0);
    flow_seen_.resize(n, 0);
  }
  bool alone = true;
  double narrowest = 0;
  for (ChannelId c : channels) {
    if (count_[static_cast<size_t>(c)] != 0) alone = false;
    const double cap = capacity_[static_cast<size_t>(c)];
    narrowest = (narrowest == 0 || cap < narrowest) ? cap : narrowest;
  }
  rate_[f] = alone ? narrowest : -1;  // -1: none yet, the next recompute reports it
  std::int32_t prev = -1;
  for (ChannelId c : channels) {
    const std::int32_t n = new_node();
    Node& node = nodes_[static_cast<size_t>(n)];
    node.flow = flow;
    node.channel = c;
    node.prev = -1;
    node.next = head_[static_cast<size_t>(c)];
    node.flow_next = -1;
    if (node.next >= 0) nodes_[static_cast<size_t>(node.next)].prev = n;
    head_[static_cast<size_t>(c)] = n;
    ++count_[static_cast<size_t>(c)];
    if (prev >= 0) nodes_[static_cast<size_t>(prev)].flow_next = n;
    else flow_first_[f] = n;
    prev = n;
    if (!alone) mark(c);
  }
  return alone;
}

void FlowNetwork::remove(std::int32_t flow) {
  const auto f = static_cast<size_t>(flow);
  for (std::int32_t n = flow_first_[f]; n >= 0;) {
    const Node node = nodes_[static_cast<size_t>(n)];
    if (node.prev >= 0) nodes_[static_cast<size_t>(node.prev)].next = node.next;
    else head_[static_cast<size_t>(node.channel)] = node.next;
    if (node.next >= 0) nodes_[static_cast<size_t>(node.next)].prev = node.prev;
    // Flows left on the channel may now get more.
    if (--count_[static_cast<size_t>(node.channel)] > 0) mark(node.channel);
    free_nodes_.push_back(n);
    n = node.flow_next;
  }
  flow_first_[f] = -1;
}

// Progressive filling: raise every unfrozen flow's rate together; the channel
// whose fair share (remaining capacity / unfrozen flows) is smallest saturates
// first and freezes its flows at that share; repeat. The heap holds one entry
// per channel and share, stale entries skipped by version. Ties: the lower
// channel id first, so the order (and every rounding) is deterministic.
void FlowNetwork::fill_component() {
  heap_.clear();
  auto later = [](const HeapEntry& a, const HeapEntry& b) {
    return a.share != b.share ? a.share > b.share : a.channel > b.channel;
  };
  for (ChannelId c : comp_channels_) {
    const auto i = static_cast<size_t>(c);
    remaining_[i] = capacity_[i];
    unfrozen_[i] = count_[i];
    ++version_[i];
    if (unfrozen_[i] > 0) heap_.push_back(HeapEntry{remaining_[i] / unfrozen_[i], c, version_[i]});
  }
  std::make_heap(heap_.begin(), heap_.end(), later);
  const std::uint64_t frozen_mark = ++stamp_;  // distinct from the component's "seen" mark
  double floor_share = 0;  // shares never decrease; guards against rounding
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const HeapEntry e = heap_.back();
    heap_.pop_back();
    const auto ci = static_cast<size_t>(e.channel);
    if (e.version != version_[ci] || unfrozen_[ci] == 0) continue;
    const double share = std::max(e.share, floor_share);
    floor_share = share;
    for (std::int32_t n = head_[ci]; n >= 0; n = nodes_[static_cast<size_t>(n)].next) {
      const std::int32_t f = nodes_[static_cast<size_t>(n)].flow;
      if (flow_seen_[static_cast<size_t>(f)] == frozen_mark) continue;
      flow_seen_[static_cast<size_t>(f)] = frozen_mark;
      new_rate_[static_cast<size_t>(f)] = share;
      for (std::int32_t m = flow_first_[static_cast<size_t>(f)]; m >= 0; m = nodes_[static_cast<size_t>(m)].flow_next) {
        const auto c2 = static_cast<size_t>(nodes_[static_cast<size_t>(m)].channel);
        if (c2 == ci) continue;
        remaining_[c2] = std::max(0.0, remaining_[c2] - share);
        --unfrozen_[c2];
        ++version_[c2];
        if (unfrozen_[c2] > 0) {
          heap_.push_back(HeapEntry{remaining_[c2] / unfrozen_[c2], static_cast<ChannelId>(c2), version_[c2]});
          std::push_heap(heap_.begin(), heap_.end(), later);
        }
      }
    }
    unfrozen_[ci] = 0;
  }
}

}  // namespace brigade::sim
