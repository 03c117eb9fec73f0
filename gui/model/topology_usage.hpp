// What the topology view colours and fills, binned over the step once per
// document (on the loading thread) so that any frame of the animation is
// O(links + devices):
//   - link utilisation: bytes carried / (capacity x time), per channel (one
//     direction of a link). A transfer's bytes cross every channel of its
//     route (Topology::route), spread evenly over its time; capacity is the
//     channel's achieved bandwidth under the profile
//     (achieved_link_bandwidth_bytes_per_second), what the simulator gives
//     a flow alone on it;
//   - device occupancy: the time its compute spans run over the time, capped
//     at 1 (two compute streams running at once count once).
#pragma once

#include <cstdint>
#include <vector>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "core/trace.hpp"

namespace brigade::gui {

class TopologyUsage {
 public:
  // `bins` equal bins over [start, end] (the trace's extent).
  static TopologyUsage build(const Trace& trace, const Topology& topology,
                             const HardwareProfile& profile, int bins = 256);

  int bins() const { return bins_; }
  double start_seconds() const { return start_; }
  double end_seconds() const { return end_; }
  double bin_seconds() const { return (end_ - start_) / bins_; }
  // The bin holding time t (clamped).
  int bin_of(double t) const;

  // Over bins [b0, b1] (inclusive).
  double channel_bytes(int channel, int b0, int b1) const;
  double channel_capacity_bytes_per_second(int channel) const {
    return capacity_[static_cast<size_t>(channel)];
  }
  // bytes / (capacity x the bins' time); may exceed 1 where the trace's
  // flows shared a channel above its capacity (they cannot in the
  // simulator).
  double channel_utilisation(int channel, int b0, int b1) const;
  // Both directions of a link, the busier one.
  double link_utilisation(int link, int b0, int b1) const;
  double device_occupancy(int device, int b0, int b1) const;
  int num_channels() const { return channels_; }
  int num_devices() const { return devices_; }

 private:
  int bins_ = 1, channels_ = 0, devices_ = 0;
  double start_ = 0, end_ = 1;
  std::vector<double> bytes_;     // channel x bin
  std::vector<double> busy_;      // device x bin, seconds of compute
  std::vector<double> capacity_;  // by channel
};

}  // namespace brigade::gui
