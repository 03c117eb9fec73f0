#include "gui/model/topology_usage.hpp"

#include <algorithm>
#include <cmath>

namespace brigade::gui {

namespace {

// Adds `amount`, spread evenly over [a, b], to the bins of row `row`.
void spread(std::vector<double>& v, size_t row, int bins, double t0, double w, double a, double b,
            double amount) {
  double* r = v.data() + row * static_cast<size_t>(bins);
  const int first = std::clamp(static_cast<int>((a - t0) / w), 0, bins - 1);
  if (!(b > a)) {
    r[first] += amount;
    return;
  }
  const int last = std::clamp(static_cast<int>((b - t0) / w), 0, bins - 1);
  const double rate = amount / (b - a);
  for (int k = first; k <= last; ++k) {
    const double lo = std::max(a, t0 + k * w), hi = std::min(b, t0 + (k + 1) * w);
    if (hi > lo) r[k] += rate * (hi - lo);
  }
}

}  // namespace

TopologyUsage TopologyUsage::build(const Trace& trace, const Topology& topology,
                                   const HardwareProfile& profile, int bins) {
  TopologyUsage u;
  u.bins_ = std::max(1, bins);
  u.channels_ = topology.num_channels();
  u.devices_ = topology.num_devices();
  bool any = false;
  for (const TraceSpan& s : trace.spans) {
    u.start_ = any ? std::min(u.start_, s.start_seconds) : s.start_seconds;
    u.end_ = any ? std::max(u.end_, s.end_seconds) : s.end_seconds;
    any = true;
  }
  for (const TraceTransfer& x : trace.transfers) {
    u.start_ = any ? std::min(u.start_, x.start_seconds) : x.start_seconds;
    u.end_ = any ? std::max(u.end_, x.end_seconds) : x.end_seconds;
    any = true;
  }
  if (!(u.end_ > u.start_)) u.end_ = u.start_ + 1e-9;
  const double w = (u.end_ - u.start_) / u.bins_;
  u.bytes_.assign(static_cast<size_t>(u.channels_) * static_cast<size_t>(u.bins_), 0.0);
  u.busy_.assign(static_cast<size_t>(u.devices_) * static_cast<size_t>(u.bins_), 0.0);
  u.capacity_.assign(static_cast<size_t>(u.channels_), 0.0);
  for (int c = 0; c < u.channels_; ++c)
    u.capacity_[static_cast<size_t>(c)] = achieved_link_bandwidth_bytes_per_second(
        topology.links()[static_cast<size_t>(link_of(c))], profile);
  for (const TraceTransfer& x : trace.transfers) {
    if (x.src < 0 || x.dst < 0 || x.src >= u.devices_ || x.dst >= u.devices_ || x.src == x.dst)
      continue;
    for (ChannelId c : topology.route(x.src, x.dst).channels)
      spread(u.bytes_, static_cast<size_t>(c), u.bins_, u.start_, w, x.start_seconds,
             x.end_seconds, x.bytes);
  }
  for (const TraceSpan& s : trace.spans) {
    if (s.kind != TaskKind::kCompute || s.device < 0 || s.device >= u.devices_) continue;
    spread(u.busy_, static_cast<size_t>(s.device), u.bins_, u.start_, w, s.start_seconds,
           s.end_seconds, s.end_seconds - s.start_seconds);
  }
  return u;
}

int TopologyUsage::bin_of(double t) const {
  return std::clamp(static_cast<int>((t - start_) / bin_seconds()), 0, bins_ - 1);
}

double TopologyUsage::channel_bytes(int channel, int b0, int b1) const {
  const double* r = bytes_.data() + static_cast<size_t>(channel) * static_cast<size_t>(bins_);
  double s = 0;
  for (int k = std::max(0, b0); k <= std::min(b1, bins_ - 1); ++k) s += r[k];
  return s;
}

double TopologyUsage::channel_utilisation(int channel, int b0, int b1) const {
  const double cap = capacity_[static_cast<size_t>(channel)];
  const double time = (std::min(b1, bins_ - 1) - std::max(0, b0) + 1) * bin_seconds();
  if (!(cap > 0) || !(time > 0)) return 0;
  return channel_bytes(channel, b0, b1) / (cap * time);
}

double TopologyUsage::link_utilisation(int link, int b0, int b1) const {
  return std::max(channel_utilisation(channel_of(link, false), b0, b1),
                  channel_utilisation(channel_of(link, true), b0, b1));
}

double TopologyUsage::device_occupancy(int device, int b0, int b1) const {
  const double* r = busy_.data() + static_cast<size_t>(device) * static_cast<size_t>(bins_);
  double s = 0;
  for (int k = std::max(0, b0); k <= std::min(b1, bins_ - 1); ++k) s += r[k];
  const double time = (std::min(b1, bins_ - 1) - std::max(0, b0) + 1) * bin_seconds();
  return time > 0 ? std::min(1.0, s / time) : 0;
}

}  // namespace brigade::gui
