#include "gui/model/pixel_row.hpp"

#include <algorithm>
#include <cmath>

namespace brigade::gui {

void PixelRow::reset(int width) {
  width_ = std::max(0, width);
  cls_.assign(static_cast<size_t>(width_), -1);
  fill_.assign(static_cast<size_t>(width_), 0);
  runs_.clear();
}

void PixelRow::add(double x0, double x1, int cls, double fill, bool gap_after) {
  if (!(x1 > 0) || !(x0 < width_)) return;
  int a = static_cast<int>(std::floor(std::max(x0, 0.0)));
  int b = static_cast<int>(std::ceil(std::min(x1, static_cast<double>(width_))));
  if (b <= a) b = a + 1;
  b = std::min(b, width_);
  if (gap_after && b - a >= 4) --b;
  const auto f = static_cast<std::uint8_t>(
      std::clamp(static_cast<int>(std::ceil(fill * kFillLevels)), 1, kFillLevels));
  for (int x = a; x < b; ++x) {
    if (f >= fill_[static_cast<size_t>(x)]) {
      fill_[static_cast<size_t>(x)] = f;
      cls_[static_cast<size_t>(x)] = static_cast<std::int8_t>(cls);
    }
  }
  if (gap_after && b < width_ && b > a) {
    // The gap column belongs to no one unless a later item claims it.
    if (fill_[static_cast<size_t>(b)] == 0) cls_[static_cast<size_t>(b)] = -1;
  }
}

const std::vector<PixelRow::Run>& PixelRow::runs() {
  runs_.clear();
  int x = 0;
  while (x < width_) {
    const std::int8_t c = cls_[static_cast<size_t>(x)];
    const std::uint8_t f = fill_[static_cast<size_t>(x)];
    int e = x + 1;
    while (e < width_ && cls_[static_cast<size_t>(e)] == c && fill_[static_cast<size_t>(e)] == f) ++e;
    if (c >= 0) runs_.push_back({x, e, c, f});
    x = e;
  }
  return runs_;
}

}  // namespace brigade::gui
