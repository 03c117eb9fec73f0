// Gathering a row's items into pixel columns (gui/model/pixel_row.hpp).
#include "gui/model/pixel_row.hpp"

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

struct Item {
  double x0, x1;
  int cls;
  double fill;
  bool gap;
};

struct RowCase {
  const char* name;
  int width;
  std::vector<Item> items;
  std::vector<PixelRow::Run> runs;
};

void PrintTo(const RowCase& c, std::ostream* os) { *os << c.name; }

class PixelRows : public ::testing::TestWithParam<RowCase> {};

TEST_P(PixelRows, GiveOneRunPerStretchOfEqualColumns) {
  const RowCase& c = GetParam();
  PixelRow row;
  row.reset(c.width);
  for (const Item& i : c.items) row.add(i.x0, i.x1, i.cls, i.fill, i.gap);
  const auto& runs = row.runs();
  ASSERT_EQ(runs.size(), c.runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    EXPECT_EQ(runs[k].x0, c.runs[k].x0) << k;
    EXPECT_EQ(runs[k].x1, c.runs[k].x1) << k;
    EXPECT_EQ(runs[k].cls, c.runs[k].cls) << k;
    EXPECT_EQ(runs[k].fill, c.runs[k].fill) << k;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PixelRows,
    ::testing::Values(
        RowCase{"OneSpan", 10, {{2, 5, 3, 1, false}}, {{2, 5, 3, 8}}},
        // Two wide spans of one class side by side keep a column apart.
        RowCase{"GapBetweenNeighbours", 20, {{0, 8, 1, 1, true}, {8, 16, 1, 1, true}},
                {{0, 7, 1, 8}, {8, 15, 1, 8}}},
        // A sliver narrower than a pixel still takes its column.
        RowCase{"SubPixelTakesAColumn", 10, {{4.2, 4.3, 0, 1, true}}, {{4, 5, 0, 8}}},
        // Clipped to the row; items outside are dropped.
        RowCase{"Clipped", 10, {{-5, 3, 2, 1, false}, {8, 50, 2, 1, false}, {-9, -1, 2, 1, false},
                                {11, 12, 2, 1, false}},
                {{0, 3, 2, 8}, {8, 10, 2, 8}}},
        // Where tracks overlap in a collapsed row, the fuller one wins, ties to the later.
        RowCase{"FullerWins", 10, {{0, 10, 1, 0.3, false}, {2, 4, 6, 1, false}, {3, 6, 7, 1, false}},
                {{0, 2, 1, 3}, {2, 3, 6, 8}, {3, 6, 7, 8}, {6, 10, 1, 3}}},
        RowCase{"Empty", 5, {}, {}}));

}  // namespace
}  // namespace brigade::gui
