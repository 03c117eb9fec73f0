// The search's fast path of the closed form (issue 16's speed goal: a memo
// installed, memory per stage, no communication lists, caches kept from plan
// to plan) gives every figure the search reads bit for bit as the plain
// estimate_plan (no memo, a fresh judge per plan), over samples of the
// search spaces: a stride through the whole space (consecutive plans share
// little: the caches are refilled plan after plan) and a run of consecutive
// plans (they share a class: the caches answer).
#include <gtest/gtest.h>

#include "costmodel/plan.hpp"
#include "costmodel/plan_memo.hpp"
#include "planner/search_space.hpp"

namespace brigade::planner {
namespace {

Scenario load(const std::string& file) {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + file);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return std::move(s).value();
}

std::vector<StrategyPoint> every_point(const Scenario& sc) {
  auto space = StrategySpace::make(sc, SpaceGrid{});
  EXPECT_TRUE(space.is_ok()) << space.message();
  std::vector<StrategyPoint> all;
  if (!space.is_ok()) return all;
  for (const TimeClass& c : space->classes())
    for (int z : space->zero_values(c))
      for (const RankOrder& o : space->rank_orders(c))
        for (double b : space->bucket_values(c)) all.push_back(point_in(c, z, o, b));
  return all;
}

// `n` points spread over the space, then `run` consecutive ones from its middle.
std::vector<StrategyPoint> sample(const std::vector<StrategyPoint>& all, size_t n, size_t run) {
  std::vector<StrategyPoint> out;
  const size_t step = std::max<size_t>(1, all.size() / n);
  for (size_t i = 0; i < all.size() && out.size() < n; i += step) out.push_back(all[i]);
  for (size_t i = all.size() / 2; i < all.size() && i < all.size() / 2 + run; ++i) out.push_back(all[i]);
  return out;
}

void expect_fast_path_is_plain(const std::string& file, size_t n, size_t run) {
  const Scenario base = load(file);
  const std::vector<StrategyPoint> points = sample(every_point(base), n, run);
  ASSERT_FALSE(points.empty());
  Scenario fast = base;  // as the search: one scenario rewritten per plan, a memo
  cost::PlanMemo memo(fast.topology, fast.profile);
  cost::EstimateOptions lean;
  lean.every_device = false;
  lean.communication = false;
  size_t judged = 0, refused = 0;
  for (const StrategyPoint& p : points) {
    Scenario plain = base;
    apply_point(p, plain);
    auto want = cost::estimate_plan(plain);
    apply_point(p, fast);
    Result<cost::PlanEstimate> got = [&] {
      cost::ScopedPlanMemo use(memo);
      return cost::estimate_plan(fast, lean);
    }();
    ASSERT_EQ(want.is_ok(), got.is_ok()) << point_label(p);
    if (!want.is_ok()) {
      EXPECT_EQ(want.message(), got.message()) << point_label(p);
      ++refused;
      continue;
    }
    ++judged;
    const std::string at = point_label(p);
    EXPECT_EQ(want->step_seconds, got->step_seconds) << at;
    EXPECT_EQ(want->compute_seconds, got->compute_seconds) << at;
    EXPECT_EQ(want->bubble_seconds, got->bubble_seconds) << at;
    EXPECT_EQ(want->exposed_communication_seconds, got->exposed_communication_seconds) << at;
    EXPECT_EQ(want->optimizer_seconds, got->optimizer_seconds) << at;
    EXPECT_EQ(want->kernel_floor_seconds, got->kernel_floor_seconds) << at;
    EXPECT_EQ(want->mfu, got->mfu) << at;
    EXPECT_EQ(want->hfu, got->hfu) << at;
    EXPECT_EQ(want->communication_device, got->communication_device) << at;
    // Per stage: the entry of each stage's first device, the same figures.
    ASSERT_EQ(got->memory.size(), static_cast<size_t>(p.pipeline)) << at;
    for (const cost::DeviceMemoryEstimate& m : got->memory) {
      ASSERT_LT(static_cast<size_t>(m.device), want->memory.size()) << at;
      const cost::DeviceMemoryEstimate& w = want->memory[static_cast<size_t>(m.device)];
      EXPECT_EQ(w.stage, m.stage) << at;
      EXPECT_EQ(w.params_bytes, m.params_bytes) << at;
      EXPECT_EQ(w.grads_bytes, m.grads_bytes) << at;
      EXPECT_EQ(w.optimizer_bytes, m.optimizer_bytes) << at;
      EXPECT_EQ(w.activations_bytes, m.activations_bytes) << at;
      EXPECT_EQ(w.peak_bytes, m.peak_bytes) << at;
      EXPECT_EQ(w.fits, m.fits) << at;
    }
    if (::testing::Test::HasFailure()) return;  // one plan's differences are enough
  }
  EXPECT_GT(judged, points.size() / 2) << refused << " refused";
  EXPECT_GT(memo.hits(), 0u);
}

TEST(SearchFastPath, EqualsThePlainJudgeOnGpt3_175B) { expect_fast_path_is_plain("gpt3_175b_1024.yaml", 300, 150); }

TEST(SearchFastPath, EqualsThePlainJudgeOn530B) { expect_fast_path_is_plain("mt_nlg_530b_2240.yaml", 120, 80); }

TEST(SearchFastPath, EqualsThePlainJudgeOnMixtral) { expect_fast_path_is_plain("mixtral_8x7b_16gpu.yaml", 300, 150); }

// Llama 3 70B on 64 H100s (fused attention): context degrees 1 to 64 in the
// space, the memo's rings (PlanMemo::ring_alpha_betas) against every hop's
// own route.
TEST(SearchFastPath, EqualsThePlainJudgeOnLlama70bWithContext) {
  const auto all = every_point(load("llama3_70b_64gpu.yaml"));
  size_t with_context = 0;
  for (const StrategyPoint& p : sample(all, 300, 150)) with_context += p.context > 1;
  EXPECT_GT(with_context, 50u);
  expect_fast_path_is_plain("llama3_70b_64gpu.yaml", 300, 150);
}

}  // namespace
}  // namespace brigade::planner
