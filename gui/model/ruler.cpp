#include "gui/model/ruler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace brigade::gui {

double tick_step_seconds(const TimeAxis& axis, double min_spacing_pixels) {
  const double min_step = std::max(axis.seconds_per_pixel() * min_spacing_pixels, 1e-15);
  double decade = std::pow(10.0, std::floor(std::log10(min_step)));
  for (int guard = 0; guard < 4; ++guard, decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      // A relative slack so that a step equal to min_step up to rounding counts.
      if (m * decade >= min_step * (1 - 1e-12)) return m * decade;
    }
  }
  return 10 * decade;
}

namespace {

struct Unit {
  double scale;
  const char* name;
};

// The unit of a step: labels keep at most one decimal for 1-2-5 steps
// (a 500 us step reads 0.5 ms, 1.0 ms, 1.5 ms, as Perfetto's ruler).
Unit unit_for(double step_seconds) {
  if (step_seconds < 1e-7 * (1 - 1e-9)) return {1e9, "ns"};
  if (step_seconds < 1e-4 * (1 - 1e-9)) return {1e6, "us"};
  if (step_seconds < 1e-1 * (1 - 1e-9)) return {1e3, "ms"};
  return {1, "s"};
}

}  // namespace

std::string format_tick(double t, double step_seconds) {
  const Unit u = unit_for(step_seconds);
  const double step_in_unit = step_seconds * u.scale;
  // Decimals the step needs in this unit (0.5 ms -> 1, 0.02 ms -> 2, 5 ms -> 0).
  int decimals = 0;
  if (step_in_unit < 1) decimals = static_cast<int>(std::ceil(-std::log10(step_in_unit) - 1e-9));
  decimals = std::clamp(decimals, 0, 9);
  double v = t * u.scale;
  if (std::abs(v) < step_in_unit * 1e-6) v = 0;  // no "-0"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, u.name);
  return buf;
}

std::vector<Tick> ruler_ticks(const TimeAxis& axis, double min_spacing_pixels) {
  std::vector<Tick> ticks;
  const double step = tick_step_seconds(axis, min_spacing_pixels);
  const TimeWindow w = axis.window();
  const double first = std::ceil(w.start_seconds / step - 1e-9);
  const double last = std::floor(w.end_seconds / step + 1e-9);
  if (last - first > 10000) return ticks;  // cannot happen with a sane spacing; a guard
  const double minor = step / 5;
  const bool with_minor = minor / axis.seconds_per_pixel() >= 8;
  for (double i = first - 1; i <= last; i += 1) {
    const double t = i * step;
    if (i >= first) ticks.push_back({t, axis.time_to_x(t), true, format_tick(t, step)});
    if (!with_minor) continue;
    for (int k = 1; k < 5; ++k) {
      const double tm = t + k * minor;
      if (tm < w.start_seconds || tm > w.end_seconds) continue;
      ticks.push_back({tm, axis.time_to_x(tm), false, ""});
    }
  }
  std::sort(ticks.begin(), ticks.end(),
            [](const Tick& a, const Tick& b) { return a.time_seconds < b.time_seconds; });
  return ticks;
}

std::string format_duration(double seconds) {
  const double a = std::abs(seconds);
  char buf[64];
  if (a == 0) return "0 s";
  if (a < 1e-6) std::snprintf(buf, sizeof buf, "%.3g ns", seconds * 1e9);
  else if (a < 1e-3) std::snprintf(buf, sizeof buf, "%.3g us", seconds * 1e6);
  else if (a < 1) std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  return buf;
}

}  // namespace brigade::gui
