#include "gui/model/chart_units.hpp"

#include <cmath>
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

}  // namespace brigade::gui
