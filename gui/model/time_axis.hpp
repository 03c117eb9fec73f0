// Time <-> pixel mapping of a horizontal time axis, and the zoom stack
// (KDAB Hotspot's TimeLineData::mapTimeToX and FilterAndZoomStack, widget
// free). Times are seconds from the trace's start; pixels are device-
// independent x coordinates from the left edge of the data area.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace brigade::gui {

// A visible stretch of time, [start_seconds, end_seconds).
struct TimeWindow {
  double start_seconds = 0;
  double end_seconds = 1;
  double duration_seconds() const { return end_seconds - start_seconds; }
  bool operator==(const TimeWindow&) const = default;
};

// The mapping of the visible window onto `width_pixels` pixels. The window
// never leaves the extent (the whole trace) and never gets shorter than
// min_duration_seconds(): 1 ps, or a billionth of the largest time of the
// extent when that is more (a double resolves about 2e-16 of a time, so a
// window of 1e-9 of it still maps to pixels within 1e-4 px).
//
// Round trips: time_to_x(x_to_time(x)) == x within 1e-4 px at every zoom;
// zoom(f, x) followed by zoom(1/f, x) gives back the window up to the
// rounding of the zoomed window's times magnified f times (1e-12 s for
// f = 1.25 on a 6 s trace); ZoomStack::pop gives back a pushed window
// exactly, which is what "back" uses.
class TimeAxis {
 public:
  static constexpr double kMinDurationSeconds = 1e-12;

  // The whole trace. Resets the window to all of it.
  void set_extent(double start_seconds, double end_seconds);
  TimeWindow extent() const { return extent_; }
  void set_width_pixels(double width);
  double width_pixels() const { return width_; }

  // The window, clamped into the extent (its duration kept where it fits).
  void set_window(TimeWindow w);
  TimeWindow window() const { return window_; }
  void show_all() { window_ = extent_; }

  double time_to_x(double t) const {
    return (t - window_.start_seconds) * (width_ / window_.duration_seconds());
  }
  double x_to_time(double x) const {
    return window_.start_seconds + x * (window_.duration_seconds() / width_);
  }
  double seconds_per_pixel() const { return window_.duration_seconds() / width_; }
  double min_duration_seconds() const;

  // factor > 1 zooms in (the window gets `factor` times shorter), < 1 out,
  // keeping the time under `anchor_x` where it is on screen.
  void zoom(double factor, double anchor_x);
  // Moves the window by `dx` pixels of time (> 0: later), stopping at the extent.
  void pan_pixels(double dx);

 private:
  TimeWindow extent_{0, 1};
  TimeWindow window_{0, 1};
  double width_ = 1;
};

// Windows zoomed into, so that "back" returns exactly where the user was.
class ZoomStack {
 public:
  void push(TimeWindow w) { stack_.push_back(w); }
  std::optional<TimeWindow> pop();
  void clear() { stack_.clear(); }
  std::size_t size() const { return stack_.size(); }
  bool empty() const { return stack_.empty(); }

 private:
  std::vector<TimeWindow> stack_;
};

}  // namespace brigade::gui
