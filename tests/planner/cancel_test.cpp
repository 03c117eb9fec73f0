// LowerOptions::cancel: a flag set before lowering stops it with kCancelled,
// for every kind of model; a clear flag lowers as without one.
#include <atomic>

#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "planner/lower.hpp"

namespace brigade::planner {
namespace {

Scenario load(const std::string& name) {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + name);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return s.is_ok() ? *s : Scenario{};
}

class LowerCancel : public ::testing::TestWithParam<const char*> {};

TEST_P(LowerCancel, AFlagSetBeforehandReturnsCancelled) {
  const Scenario s = load(GetParam());
  std::atomic<bool> cancel{true};
  LowerOptions o;
  o.cancel = &cancel;
  auto p = lower(s, o);
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.status().kind(), ErrorKind::kCancelled);
  EXPECT_EQ(p.message(), "cancelled");
}

TEST_P(LowerCancel, AClearFlagLowersTheSameProgram) {
  const Scenario s = load(GetParam());
  std::atomic<bool> cancel{false};
  LowerOptions o;
  auto plain = lower(s, o);
  o.cancel = &cancel;
  auto polled = lower(s, o);
  ASSERT_TRUE(plain.is_ok() && polled.is_ok());
  EXPECT_EQ(polled->program.num_tasks(), plain->program.num_tasks());
  EXPECT_EQ(polled->summary, plain->summary);
}

// A transformer, an MLP (graph lowering), a manual placement and a lone collective.
INSTANTIATE_TEST_SUITE_P(Scenarios, LowerCancel,
                         ::testing::Values("pmap_train_step.yaml", "sharded_mlp.yaml",
                                           "manual_two_chefs.yaml", "ring_allreduce_8.yaml",
                                           "llm_13b_128gpu.yaml"));

}  // namespace
}  // namespace brigade::planner
