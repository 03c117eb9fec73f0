// What a trace recorder keeps: some devices, a window of time. Applied while
// recording (sim::SimOptions::trace_filter, `brigade simulate
// --trace-devices 0-7,64 --trace-window 0:50ms`), so that a filtered trace
// of a large run costs memory in proportion to what it keeps.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.hpp"

namespace brigade {

// Keeps the spans of the listed devices and the transfers from or to them,
// the memory samples of those devices; of these, the spans and transfers that
// overlap [start_seconds, end_seconds] (closed: a span that ends at
// start_seconds is kept) and the memory samples inside it, plus each memory
// series' last sample before it (its value when the window opens).
struct TraceFilter {
  std::vector<std::int32_t> devices;  // sorted, unique; empty: every device
  double start_seconds = 0;
  double end_seconds = std::numeric_limits<double>::infinity();

  bool keeps_everything() const {
    return devices.empty() && start_seconds <= 0 &&
           end_seconds == std::numeric_limits<double>::infinity();
  }
  bool keeps_device(std::int32_t device) const;  // binary search
  bool overlaps(double start, double end) const {
    return end >= start_seconds && start <= end_seconds;
  }
  // "" when it keeps everything, else e.g. "devices 0-7,64; window 0 s to 50.0 ms"
  // (English always: a trace file keeps it as its "filter").
  std::string str() const;
};

// A filter's str(), as a trace keeps it, in the app's language (core/tr.hpp):
// "devices 0-7,64; window 0 s to 50.0 ms" -> "设备 0-7,64；时间窗 0 s 至 50.0 ms".
// Without a translator, or for text not in str()'s form, `stored` as it is.
std::string trace_filter_text(std::string_view stored);

// "0-7,64" -> {0, ..., 7, 64}: comma-separated ids and inclusive ranges A-B
// (A <= B), sorted and made unique. The error message is the part after
// "expected" ("a device list such as 0-7,64").
Result<std::vector<std::int32_t>> parse_device_list(std::string_view text);
// "10ms:50ms", "0:2s", ":50ms" (from 0), "1s:" (to the end): durations with
// units (core/units.hpp), START < END.
Result<std::pair<double, double>> parse_time_window(std::string_view text);

// The inverse of parse_device_list: runs of consecutive ids as ranges ("0-7,64").
std::string device_list_string(const std::vector<std::int32_t>& devices);

}  // namespace brigade
