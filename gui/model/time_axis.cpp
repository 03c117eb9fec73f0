#include "gui/model/time_axis.hpp"

#include <algorithm>
#include <cmath>

namespace brigade::gui {

void TimeAxis::set_extent(double start_seconds, double end_seconds) {
  if (!(end_seconds - start_seconds >= kMinDurationSeconds)) end_seconds = start_seconds + 1e-6;
  extent_ = {start_seconds, end_seconds};
  window_ = extent_;
}

void TimeAxis::set_width_pixels(double width) { width_ = std::max(1.0, width); }

double TimeAxis::min_duration_seconds() const {
  return std::max(kMinDurationSeconds,
                  1e-9 * std::max(std::abs(extent_.start_seconds), std::abs(extent_.end_seconds)));
}

void TimeAxis::set_window(TimeWindow w) {
  // A window inside the extent is taken exactly (ZoomStack::pop's promise).
  if (w.start_seconds >= extent_.start_seconds && w.end_seconds <= extent_.end_seconds &&
      w.duration_seconds() >= min_duration_seconds()) {
    window_ = w;
    return;
  }
  double d = w.duration_seconds();
  if (!(d >= min_duration_seconds())) d = min_duration_seconds();  // also catches NaN
  d = std::min(d, extent_.duration_seconds());
  double s = w.start_seconds;
  if (!std::isfinite(s)) s = extent_.start_seconds;
  s = std::clamp(s, extent_.start_seconds, extent_.end_seconds - d);
  window_ = {s, s + d};
  if (window_.end_seconds > extent_.end_seconds) window_.end_seconds = extent_.end_seconds;
}

void TimeAxis::zoom(double factor, double anchor_x) {
  if (!(factor > 0) || !std::isfinite(factor)) return;
  const double anchor_t = x_to_time(anchor_x);
  const double fraction = anchor_x / width_;
  const double d = window_.duration_seconds() / factor;
  const double s = anchor_t - fraction * d;
  set_window({s, s + d});
}

void TimeAxis::pan_pixels(double dx) {
  const double dt = dx * seconds_per_pixel();
  set_window({window_.start_seconds + dt, window_.end_seconds + dt});
}

std::optional<TimeWindow> ZoomStack::pop() {
  if (stack_.empty()) return std::nullopt;
  TimeWindow w = stack_.back();
  stack_.pop_back();
  return w;
}

}  // namespace brigade::gui
