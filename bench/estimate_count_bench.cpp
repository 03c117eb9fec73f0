// Instruction counts of the closed form per plan (issue 16's speed goal),
// for machines too loaded for timings to compare: BM_Estimate/gpt3_175b_1024's
// loop (search_bench.cpp: the same 4096-point sample of the 175B space, memo
// on, memory per stage, no communication lists, warmed by one pass) run for
// N plans in judge_points, which callgrind counts alone:
//
//   valgrind --tool=callgrind --collect-atstart=no
//       --toggle-collect='*judge_points*' build/default/bench/estimate_count_bench 2048
// (one line)
//
// then instructions per plan = "Collected" / N. An optional second argument
// names another scenario of scenarios/ (as BM_Estimate's: llm_13b_128gpu.yaml,
// mt_nlg_530b_2240.yaml). Not a Google Benchmark: one pass, no timing
// (docs/PERFORMANCE.md has the figures).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/plan_memo.hpp"
#include "planner/search_space.hpp"

namespace brigade::planner {
namespace {

__attribute__((noinline)) std::size_t judge_points(const std::vector<StrategyPoint>& points,
                                                   Scenario& work,
                                                   const cost::EstimateOptions& options,
                                                   std::size_t n) {
  std::size_t ok = 0;
  for (std::size_t i = 0; i < n; ++i) {
    apply_point(points[i % points.size()], work);
    ok += cost::estimate_plan(work, options).is_ok();
  }
  return ok;
}

int run(std::size_t n, const std::string& file) {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + file);
  if (!s.is_ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  Scenario work = std::move(s).value();
  auto space = StrategySpace::make(work, SpaceGrid{});
  if (!space.is_ok()) return 1;
  std::vector<StrategyPoint> all, points;
  for (const TimeClass& c : space->classes())
    for (int z : space->zero_values(c))
      for (const RankOrder& o : space->rank_orders(c))
        for (double b : space->bucket_values(c)) all.push_back(point_in(c, z, o, b));
  const std::size_t step = std::max<std::size_t>(1, all.size() / 4096);
  for (std::size_t i = 0; i < all.size() && points.size() < 4096; i += step)
    points.push_back(all[i]);
  cost::EstimateOptions options;  // as the search: memory per stage, no communication lists
  options.every_device = false;
  options.communication = false;
  cost::PlanMemo memo(work.topology, work.profile);
  cost::ScopedPlanMemo use(memo);
  for (const StrategyPoint& p : points) {  // as BM_Estimate's warm-up
    apply_point(p, work);
    (void)cost::estimate_plan(work);
  }
  const std::size_t ok = judge_points(points, work, options, n);
  std::printf("%zu plans judged, %zu ok\n", n, ok);
  return 0;
}

}  // namespace
}  // namespace brigade::planner

int main(int argc, char** argv) {
  return brigade::planner::run(argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2048,
                               argc > 2 ? argv[2] : "gpt3_175b_1024.yaml");
}
