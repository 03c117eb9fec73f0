// The transformer search's reference for its tests: every point of a
// strategy space judged in closed form, no pruning.
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "costmodel/plan.hpp"
#include "planner/search_internal.hpp"
#include "planner/search_space.hpp"

namespace brigade::planner::testing {

// Every point of the space judged, best first, plans that tie with a better
// one folded into it (detail::ties_with): the reference for pruning.
inline std::vector<std::pair<double, double>> brute_force(const Scenario& sc,
                                                          const StrategySpace& space,
                                                          SearchObjective obj, size_t k,
                                                          std::uint64_t* judged) {
  struct Judged {
    double primary, secondary;
    StrategyPoint point;
    bool operator<(const Judged& o) const {
      return std::tie(primary, secondary, point) < std::tie(o.primary, o.secondary, o.point);
    }
  };
  std::vector<Judged> fit;
  Scenario w = sc;
  for (const TimeClass& c : space.classes())
    for (int z : space.zero_values(c))
      for (const RankOrder& o : space.rank_orders(c))
        for (double b : space.bucket_values(c)) {
          apply_point(point_in(c, z, o, b), w);
          auto e = cost::estimate_plan(w);
          EXPECT_TRUE(e.is_ok()) << e.message();
          if (!e.is_ok()) continue;
          ++*judged;
          const auto m = detail::memory_figures(*e);
          if (!m.fits) continue;
          const StrategyPoint p = point_in(c, z, o, b);
          if (obj == SearchObjective::kStepTime)
            fit.push_back({e->step_seconds, m.peak_bytes, p});
          else
            fit.push_back({m.peak_bytes, e->step_seconds, p});
        }
  std::sort(fit.begin(), fit.end());
  std::vector<Judged> rows;
  for (const Judged& x : fit) {
    bool folded = false;
    for (const Judged& row : rows)
      folded = folded || detail::ties_with(row.point, row.primary, row.secondary, x.point,
                                           x.primary, x.secondary);
    if (!folded) rows.push_back(x);
  }
  std::vector<std::pair<double, double>> out;
  for (size_t i = 0; i < rows.size() && i < k; ++i)
    out.emplace_back(rows[i].primary, rows[i].secondary);
  return out;
}

}  // namespace brigade::planner::testing
