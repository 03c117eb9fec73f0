// Lowered Programs through the simulator (sim/): they run, and the
// simulator's memory timeline shows what the planner's memory effects say.
#include <gtest/gtest.h>

#include "planner/lower.hpp"
#include "sim/simulator.hpp"
#include "tests/planner/scenario_fixtures.hpp"

namespace brigade::planner {
namespace {

sim::SimResult simulate_ok(const Scenario& s, LowerOptions o = {}) {
  auto plan = lower(s, o);
  EXPECT_TRUE(plan.is_ok()) << plan.message();
  if (!plan.is_ok()) return {};
  sim::SimOptions options;
  options.record_task_times = false;
  auto r = sim::simulate(plan->program, s.topology, s.profile, options);
  EXPECT_TRUE(r.is_ok()) << r.message();
  return r.is_ok() ? std::move(r).value() : sim::SimResult{};
}

TEST(Simulate, BundledScenariosRunAndFit) {
  for (const char* name : {"pmap_linear.yaml", "pmap_train_step.yaml", "ring_allreduce_8.yaml",
                           "row_sharded_matmul.yaml", "manual_two_chefs.yaml", "sharded_mlp.yaml",
                           "risk_inference.yaml"}) {
    auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + name);
    ASSERT_TRUE(s.is_ok()) << s.message();
    const sim::SimResult r = simulate_ok(*s);
    EXPECT_GT(r.step_seconds, 0) << name;
    EXPECT_TRUE(r.oom.empty()) << name;
  }
}

TEST(Simulate, FirstStageHoldsMoreActivationsUnderGpipe) {
  // 4 stages, 8 micro-batches: the first stage's peak under GPipe holds all
  // 8 micro-batches' activations, under 1F1B 4 of them; the bubble is the
  // same, so the step times agree closely.
  Scenario s = testing::small_gpt(1, 4, 1, 8, 1);
  s.profile = HardwareProfile::defaults();
  s.strategy.schedule = PipelineSchedule::k1F1B;
  const sim::SimResult one = simulate_ok(s);
  s.strategy.schedule = PipelineSchedule::kGpipe;
  const sim::SimResult gpipe = simulate_ok(s);
  const auto act = static_cast<size_t>(MemoryCategory::kActivations);
  ASSERT_FALSE(one.devices.empty());
  ASSERT_FALSE(gpipe.devices.empty());
  const double a1 = one.devices[0].peak_by_category[act];
  const double ag = gpipe.devices[0].peak_by_category[act];
  EXPECT_NEAR(ag / a1, 8.0 / 4.0, 1e-9);
  EXPECT_NEAR(gpipe.step_seconds / one.step_seconds, 1.0, 0.05);
}

}  // namespace
}  // namespace brigade::planner
