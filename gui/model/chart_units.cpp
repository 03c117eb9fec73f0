#include "gui/model/chart_units.hpp"

#include <cmath>
#include <cstdio>
#include <initializer_list>

namespace brigade::gui {

ByteUnit byte_unit_for(double max_bytes) {
  static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  ByteUnit u;
  for (int i = 1; i < 5 && max_bytes >= std::ldexp(1.0, 10 * i); ++i) {
    u.bytes = std::ldexp(1.0, 10 * i);
    u.name = kNames[i];
  }
  return u;
}

TimeUnit time_unit_for(double max_seconds) {
  if (max_seconds >= 1) return {1, "s"};
  if (max_seconds >= 1e-3) return {1e-3, "ms"};
  if (max_seconds >= 1e-6) return {1e-6, "us"};
  return {1e-9, "ns"};
}

double nice_step(double span, int max_ticks) {
  if (!(span > 0) || max_ticks < 1) return 1;
  const double raw = span / max_ticks;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw * (1 - 1e-12)) return m * decade;
  return 10 * decade;
}

std::string log_tick_label(double value, LogUnit unit) {
  char buf[48];
  if (unit == LogUnit::kBytes) {
    static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int i = 0;
    while (i < 5 && value >= 1024 * (1 - 1e-9)) value /= 1024, ++i;
    std::snprintf(buf, sizeof buf, "%.3g %s", value, kNames[i]);
    return buf;
  }
  static constexpr const char* kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (i < 6 && value >= 1000 * (1 - 1e-9)) value /= 1000, ++i;
  std::snprintf(buf, sizeof buf, "%.3g %s%s", value, kPrefix[i],
                unit == LogUnit::kFlops ? "FLOP" : "B/s");
  return buf;
}

std::vector<LogTick> log_ticks(double lo, double hi, LogUnit unit, int max_ticks) {
  std::vector<LogTick> ticks;
  if (!(lo > 0) || !(hi > lo) || max_ticks < 1) return ticks;
  if (unit == LogUnit::kBytes) {
    const int e0 = static_cast<int>(std::ceil(std::log2(lo) - 1e-9));
    const int e1 = static_cast<int>(std::floor(std::log2(hi) + 1e-9));
    int step = 1;
    for (int s : {1, 2, 5, 10, 20, 50}) {
      step = s;
      if ((e1 - e0) / s + 1 <= max_ticks) break;
    }
    // Multiples of the step, so that 1 KiB, 1 MiB ... fall on ticks when
    // the step divides 10.
    for (int e = static_cast<int>(std::ceil(static_cast<double>(e0) / step)) * step; e <= e1;
         e += step)
      ticks.push_back({e * std::log10(2.0), log_tick_label(std::ldexp(1.0, e), unit)});
    return ticks;
  }
  const int d0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int d1 = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  // Under one decade: every whole multiple; under three: 1, 2, 5.
  const double decades = std::log10(hi / lo);
  const int level = decades < 1 ? 2 : decades < 3 ? 1 : 0;
  const bool fine = level > 0;
  int step = 1;
  while ((d1 - d0) / step + 1 > max_ticks) ++step;
  for (int d = d0; d <= d1 + (level == 2 ? 1 : 0); ++d) {
    if (!fine && (d - d0) % step != 0) continue;
    static constexpr double kCoarse[] = {1, 2, 5};
    static constexpr double kFine[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const double* multiples = level == 2 ? kFine : kCoarse;
    for (int k = 0; k < (level == 2 ? 9 : level == 1 ? 3 : 1); ++k) {
      const double v = multiples[k] * std::pow(10.0, d);
      if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9)) continue;
      ticks.push_back({std::log10(v), log_tick_label(v, unit)});
    }
  }
  return ticks;
}

}  // namespace brigade::gui
