// Bundled scenarios traced and untraced: recording a trace keeps the
// shortcuts and changes no statistic, bit for bit (docs/simulator.md,
// "Traces"), whether it records every message or merges them.
#include <gtest/gtest.h>

#include "planner/lower.hpp"
#include "sim/simulator.hpp"

namespace brigade::planner {
namespace {

struct Case {
  const char* file;
  Granularity granularity;
};

class TracedScenario : public ::testing::TestWithParam<Case> {};

TEST_P(TracedScenario, GivesTheSameResultsAsUntraced) {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + GetParam().file);
  ASSERT_TRUE(s.is_ok()) << s.message();
  LowerOptions lo;
  lo.granularity = GetParam().granularity;
  auto plan = lower(*s, lo);
  ASSERT_TRUE(plan.is_ok()) << plan.message();
  for (auto net : {sim::NetworkModel::kIdeal, sim::NetworkModel::kFlow}) {
    sim::SimOptions o;
    o.network = net;
    auto plain = sim::simulate(plan->program, s->topology, s->profile, o);
    ASSERT_TRUE(plain.is_ok()) << plain.message();
    for (bool steps : {true, false}) {
      o.record_trace = true;
      o.trace_steps = steps;
      auto traced = sim::simulate(plan->program, s->topology, s->profile, o);
      ASSERT_TRUE(traced.is_ok()) << traced.message();
      EXPECT_EQ(traced->step_seconds, plain->step_seconds);
      EXPECT_EQ(traced->events, plain->events);
      EXPECT_EQ(traced->flows, plain->flows);
      EXPECT_EQ(traced->collectives_shortcut, plain->collectives_shortcut);
      EXPECT_EQ(traced->critical_path, plain->critical_path);
      for (size_t d = 0; d < plain->devices.size(); ++d) {
        EXPECT_EQ(traced->devices[d].busy_seconds, plain->devices[d].busy_seconds);
        EXPECT_EQ(traced->devices[d].comm_seconds, plain->devices[d].comm_seconds);
        EXPECT_EQ(traced->devices[d].exposed_comm_seconds, plain->devices[d].exposed_comm_seconds);
        EXPECT_EQ(traced->devices[d].peak_memory_bytes, plain->devices[d].peak_memory_bytes);
      }
      for (size_t l = 0; l < plain->links.size(); ++l) {
        EXPECT_EQ(traced->links[l].bytes, plain->links[l].bytes);
        EXPECT_EQ(traced->links[l].busy_seconds, plain->links[l].busy_seconds);
      }
      EXPECT_EQ(traced->trace.spans.size(), static_cast<size_t>(plan->program.num_tasks()));
      if (steps) {
        EXPECT_GE(static_cast<std::int64_t>(traced->trace.transfers.size()), traced->flows);
      }
      o.record_trace = false;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bundled, TracedScenario,
                         ::testing::Values(Case{"pmap_train_step.yaml", Granularity::kAuto},
                                           Case{"manual_two_chefs.yaml", Granularity::kAuto},
                                           Case{"sharded_mlp.yaml", Granularity::kAuto},
                                           Case{"ring_allreduce_8.yaml", Granularity::kAuto},
                                           Case{"llm_13b_128gpu.yaml", Granularity::kStep},
                                           Case{"row_sharded_matmul.yaml", Granularity::kAuto}),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           std::string n = param.param.file;
                           return n.substr(0, n.find('.'));
                         });

}  // namespace
}  // namespace brigade::planner
