// Statistics of a selected time range, per device (Nsight Systems'
// "analysis summary" of a selection): compute busy time, communication in
// flight, exposed communication (communication while no compute of the
// device runs: docs/ARCHITECTURE.md's definition, without the simulator's
// comm_compute_share, which a Trace does not carry) and bytes moved.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/trace.hpp"
#include "gui/model/host_lane.hpp"
#include "gui/model/trace_index.hpp"

namespace brigade::gui {

struct DeviceRangeStats {
  int device = 0;
  double busy_seconds = 0;          // union of its compute spans in the range
  double comm_seconds = 0;          // union of its transfer and collective spans
  double exposed_comm_seconds = 0;  // comm while no compute span runs
  double bytes_sent = 0;            // transfers from it, pro rata of their time in the range
  double bytes_received = 0;
  // Its host issuing in the range (the host lane, Trace::host): near the
  // range's length, the host sets the pace. -1 without a host lane.
  double host_seconds = -1;
};

struct RangeStats {
  double start_seconds = 0;
  double end_seconds = 0;
  std::vector<DeviceRangeStats> devices;  // devices with spans in the trace, by id
  double bytes_moved = 0;                 // over all transfers, pro rata
  std::int64_t spans = 0;                 // spans overlapping the range
};

// `host` (may be null): the trace's host lane, for host_seconds.
RangeStats range_stats(const Trace& trace, const TraceIndex& index, double t0, double t1,
                       const HostLane* host = nullptr);

// Length of the union of intervals clipped to [t0, t1]. Sorts `v`.
double union_seconds(std::vector<std::pair<double, double>>& v, double t0, double t1);
// Length of (a minus b), both clipped to [t0, t1]. Sorts both.
double difference_seconds(std::vector<std::pair<double, double>>& a,
                          std::vector<std::pair<double, double>>& b, double t0, double t1);

// Fraction of each of `bins` equal bins of [t0, t1] covered by the union of
// the intervals (utilisation binning). Sorts `v`.
std::vector<double> bin_coverage(std::vector<std::pair<double, double>>& v, double t0, double t1,
                                 int bins);

// Utilisation over time for an overview: for each of `bins` equal bins of
// [t0, t1], the time spans of the wanted kind spend in the bin summed over
// all devices, divided by (devices x bin width), capped at 1. compute: kind
// kCompute, else transfers and collectives. O(spans + bins touched).
std::vector<double> utilisation_bins(const Trace& trace, double t0, double t1, int bins,
                                     bool compute);

// Spans whose name contains `needle` (case-insensitive), by start time.
std::vector<std::int32_t> find_spans(const Trace& trace, std::string_view needle);

}  // namespace brigade::gui
