// Units and ticks for the charts' axes (memory, scaling, calibration): a
// binary byte unit or a time unit in which an axis's largest value reads
// between 1 and 1024 (1000), and a 1-2-5 tick step. No Qt.
#pragma once

namespace brigade::gui {

// A byte scale for an axis: the binary unit (B, KiB, MiB, GiB, TiB) in
// which `max_bytes` reads between 1 and 1024, and its size in bytes.
struct ByteUnit {
  double bytes = 1;
  const char* name = "B";
};
ByteUnit byte_unit_for(double max_bytes);

// A time scale for an axis: the unit (ns, us, ms, s) in which `max_seconds`
// reads between 1 and 1000, and its size in seconds.
struct TimeUnit {
  double seconds = 1;
  const char* name = "s";
};
TimeUnit time_unit_for(double max_seconds);

// The smallest step of 1, 2 or 5 x 10^k that cuts `span` into at most
// `max_ticks` intervals (span > 0, max_ticks >= 1); 1 for a span <= 0.
double nice_step(double span, int max_ticks);

}  // namespace brigade::gui
