// One painted row of the timeline, a pixel column at a time: the level of
// detail gives at most a few items per pixel per track, but a collapsed
// node draws dozens of tracks into one row; painting them all would cost a
// rectangle each. PixelRow gathers the items of a row into its columns
// (the last one to cover a column with more fill wins, ties to the later)
// and hands back runs of equal columns, at most one per column, so a row
// costs at most `width` rectangles whatever it holds.
#pragma once

#include <cstdint>
#include <vector>

namespace brigade::gui {

class PixelRow {
 public:
  struct Run {
    int x0 = 0, x1 = 0;      // columns [x0, x1)
    std::int8_t cls = -1;    // the colour class (SpanClass), -1 none
    std::uint8_t fill = 0;   // 1..kFillLevels: how full (merged runs are fainter)
  };
  static constexpr int kFillLevels = 8;

  void reset(int width);
  // An item over [x0, x1) in pixels (clipped to the row; at least one column
  // wide), of class `cls`, fill in (0, 1]. `gap_after`: leave its last
  // column empty so that neighbours of one colour stay apart (wide spans).
  void add(double x0, double x1, int cls, double fill, bool gap_after);
  // Runs of equal columns, left to right, empty columns left out.
  const std::vector<Run>& runs();

 private:
  int width_ = 0;
  std::vector<std::int8_t> cls_;
  std::vector<std::uint8_t> fill_;
  std::vector<Run> runs_;
};

}  // namespace brigade::gui
