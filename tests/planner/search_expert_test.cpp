// `brigade search` over expert parallelism (issue 16's strategy space on a
// mixture of experts): the expert degree is a key of the transformer grid
// for MoE models, with the combinations check_plan refuses left out and
// counted, and the search never returns a plan check_plan refuses.
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/plan_check.hpp"
#include "costmodel/plan.hpp"
#include "planner/search.hpp"
#include "planner/search_space.hpp"

namespace brigade::planner {
namespace {

Scenario mixtral() {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/mixtral_8x7b_16gpu.yaml");
  EXPECT_TRUE(s.is_ok()) << s.message();
  return std::move(s).value();
}

std::vector<StrategyPoint> every_point(const StrategySpace& space) {
  std::vector<StrategyPoint> all;
  for (const TimeClass& c : space.classes())
    for (int z : space.zero_values(c))
      for (const RankOrder& o : space.rank_orders(c))
        for (double b : space.bucket_values(c)) all.push_back(point_in(c, z, o, b));
  return all;
}

// Mixtral 8x7B on 16 GPUs: expert degrees 1, 2, 4, 8 (divisors of its 8
// experts), every point of the space accepted by check_plan, and the points
// left out counted per reason.
TEST(SearchExpert, TheSpaceHoldsEveryExpertDegreeCheckPlanAccepts) {
  const Scenario sc = mixtral();
  auto space = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(space.is_ok()) << space.message();
  EXPECT_TRUE(space->experts());
  const std::vector<StrategyPoint> all = every_point(*space);
  EXPECT_EQ(all.size(), space->size());
  std::set<int> degrees;
  Scenario work = sc;
  for (const StrategyPoint& p : all) {
    degrees.insert(p.expert);
    apply_point(p, work);
    const Status ok = check_plan(work);
    ASSERT_TRUE(ok.is_ok()) << point_label(p) << ": " << ok.message();
    if (p.expert > 1) {
      EXPECT_EQ(p.tensor, 1);
      EXPECT_LE(p.zero, 1);
      EXPECT_EQ(p.data % p.expert, 0);
    }
  }
  EXPECT_EQ(degrees, (std::set<int>{1, 2, 4, 8}));
  // What was left out is refused by check_plan, for the reason counted: the
  // same keys with expert 1 are in the space (or would be, for ZeRO).
  std::map<std::string, std::uint64_t> refused(space->refused().begin(), space->refused().end());
  EXPECT_GT(refused["expert not dividing data"], 0u);
  EXPECT_GT(refused["expert > 1 and tensor > 1"], 0u);
  EXPECT_GT(refused["expert > 1 and ZeRO >= 2"], 0u);
  EXPECT_EQ(refused.count("expert > 1 and ZeRO >= 1"), 0u);
  StrategyPoint tp = all.front();
  for (const StrategyPoint& p : all)
    if (p.expert == 1 && p.tensor == 2 && p.data == 8) tp = p;
  ASSERT_EQ(tp.tensor, 2);
  tp.expert = 2;
  apply_point(tp, work);
  EXPECT_FALSE(check_plan(work).is_ok());
  EXPECT_FALSE(space->contains(tp));
  // The space's line says it.
  bool said = false;
  for (const std::string& line : space->describe())
    said |= line.rfind("expert: 1, 2, 4, 8 (divisors of 8 experts;", 0) == 0 &&
            line.find("plans with expert > 1 and tensor > 1") != std::string::npos;
  EXPECT_TRUE(said);
}

// A dense model has no expert key: expert 1 only, and --set expert=2 says why not.
TEST(SearchExpert, ADenseModelHasExpertOneAlone) {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/gpt3_175b_1024.yaml");
  ASSERT_TRUE(s.is_ok());
  auto space = StrategySpace::make(*s, SpaceGrid{});
  ASSERT_TRUE(space.is_ok());
  EXPECT_FALSE(space->experts());
  for (const TimeClass& c : space->classes()) ASSERT_EQ(c.expert, 1);
  SpaceGrid g;
  ASSERT_TRUE(restrict_grid(g, "strategy.expert", "2").is_ok());
  auto none = StrategySpace::make(*s, g);
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(none.message(),
            "search: no expert degree left: a dense model has expert 1 alone (expert parallelism "
            "splits the experts of a mixture of experts)");
}

// The search on Mixtral: ranked plans, none refused by check_plan or the
// judge; every expert > 1 plan faster than the K-th is among the ranked
// (brute force over them); restricted to expert 8, it ranks expert-8 plans.
TEST(SearchExpert, SearchRanksExpertPlansWhenTheyWinAndNeverARefusedOne) {
  const Scenario sc = mixtral();
  SearchOptions o;
  o.top = 10;
  o.progress = nullptr;
  auto r = run_search(sc, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(r->experts);
  EXPECT_EQ(r->invalid, 0u) << r->invalid_example;
  ASSERT_EQ(r->plans.size(), 10u);
  Scenario work = sc;
  for (const RankedPlan& p : r->plans) {
    ASSERT_TRUE(p.point.has_value());
    apply_point(*p.point, work);
    EXPECT_TRUE(check_plan(work).is_ok()) << p.label;
  }
  for (size_t i = 1; i < r->plans.size(); ++i)
    EXPECT_LE(r->plans[i - 1].step_seconds, r->plans[i].step_seconds);
  const double kth = r->plans.back().step_seconds;
  auto space = StrategySpace::make(sc, SpaceGrid{});
  ASSERT_TRUE(space.is_ok());
  size_t expert_plans = 0;
  for (const StrategyPoint& p : every_point(*space)) {
    if (p.expert == 1) continue;
    apply_point(p, work);
    auto e = cost::estimate_plan(work);
    ASSERT_TRUE(e.is_ok()) << point_label(p) << ": " << e.message();
    ++expert_plans;
    bool fits = true;
    for (const auto& m : e->memory) fits = fits && m.fits;
    if (!fits || e->step_seconds >= kth * (1 - 1e-9)) continue;
    bool listed = false;
    for (const RankedPlan& q : r->plans) {
      listed |= equivalent(*q.point, p);
      for (const StrategyPoint& t : q.ties) listed |= equivalent(t, p);
    }
    EXPECT_TRUE(listed) << point_label(p) << " beats the 10th plan but is not ranked";
  }
  EXPECT_GT(expert_plans, 100u);

  o.grid.expert = {8};
  auto only8 = run_search(sc, o);
  ASSERT_TRUE(only8.is_ok()) << only8.message();
  ASSERT_FALSE(only8->plans.empty());
  for (const RankedPlan& p : only8->plans) {
    EXPECT_EQ(p.point->expert, 8) << p.label;
    EXPECT_NE(p.label.find("expert 8"), std::string::npos) << p.label;
    apply_point(*p.point, work);
    EXPECT_TRUE(check_plan(work).is_ok()) << p.label;
  }
  // The hand-written plan (expert 8, data 8, pipeline 2) is a point of the space.
  EXPECT_TRUE(only8->hand_written_in_space);
  const nlohmann::json j = search_json(*only8);
  EXPECT_EQ(j["plans"][0]["strategy"]["expert"], 8);
  EXPECT_TRUE(j["space"].contains("refused"));
}

}  // namespace
}  // namespace brigade::planner
