// Ticks of the timeline's ruler: a 1-2-5 step chosen so that labels stay
// at least a minimum number of pixels apart, labelled in the unit that fits
// the step (ns, us, ms, s), as Perfetto and Nsight Systems do.
#pragma once

#include <string>
#include <vector>

#include "gui/model/time_axis.hpp"

namespace brigade::gui {

struct Tick {
  double time_seconds = 0;
  double x = 0;
  bool major = true;  // labelled
  std::string label;  // "" for minor ticks
};

// The step of a ruler over `axis`: the smallest of 1, 2, 5 x 10^k seconds
// whose ticks are >= `min_spacing_pixels` apart.
double tick_step_seconds(const TimeAxis& axis, double min_spacing_pixels);

// "1.5 ms", "250 ns", "2 s": `t` in the unit of `step` (ns for steps below
// 100 ns, us below 100 us, ms below 100 ms, s above), with as many decimals
// as the step needs.
std::string format_tick(double t, double step_seconds);

// Major ticks (labelled) at multiples of the step inside the window, with
// four minor ticks between them when they are at least 8 px apart.
std::vector<Tick> ruler_ticks(const TimeAxis& axis, double min_spacing_pixels = 90);

// A duration with a unit fitted to it: "1.23 ms", "850 ns", "2.50 s".
std::string format_duration(double seconds);

}  // namespace brigade::gui
