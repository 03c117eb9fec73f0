// Units and ticks for the charts' axes (memory, scaling, calibration): a
// binary byte unit or a time unit in which an axis's largest value reads
// between 1 and 1024 (1000), and a 1-2-5 tick step. No Qt.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace brigade::gui {

// A chart's points (x, y).
using XY = std::vector<std::pair<double, double>>;

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

// Ticks of a logarithmic axis, for charts that plot log10 of their values
// on a linear axis (Qt's log axis labels only with printf formats):
// positions in log10 of the value and labels with units. Bytes tick at
// powers of 2 (1 KiB, 4 KiB, ...: every 2^k, k a multiple of a step of 1,
// 2, 5 or 10 that keeps at most `max_ticks`), FLOP and B/s at powers of 10
// ("1 GFLOP", "100 GB/s"), with 2x and 5x between when a range spans fewer
// than three decades, and every whole multiple when it spans less than one.
enum class LogUnit { kBytes, kFlops, kBytesPerSecond };
struct LogTick {
  double position = 0;  // log10(value)
  std::string label;
};
std::vector<LogTick> log_ticks(double lo, double hi, LogUnit unit, int max_ticks = 10);
// "4 KiB", "1 MFLOP", "250 GB/s": a tick's label (3 significant digits).
std::string log_tick_label(double value, LogUnit unit);

}  // namespace brigade::gui
