// The three judges of one plan on every bundled scenario (scenarios/*.yaml;
// not scenarios/validation/, whose files describe real devices): the
// closed-form step time (`brigade cost`) against the simulator's under
// `--network ideal` and `--network flow`. The closed form and the planner
// read the transformer from one description (costmodel/transformer_blocks.hpp),
// so what is left between them is the schedule, not the work.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "planner/lower.hpp"
#include "sim/scenario_options.hpp"
#include "sim/simulator.hpp"

namespace brigade::planner {
namespace {

std::vector<std::string> bundled_scenarios() {
  std::vector<std::string> out;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(BRIGADE_SOURCE_DIR) + "/scenarios"))
    // Not the 405B on 16,384 GPUs: minutes and > 8 GiB to simulate here
    // (docs/PERFORMANCE.md; tests/planner/cross_judge_test.cpp says why).
    if (entry.is_regular_file() && entry.path().extension() == ".yaml" &&
        entry.path().filename() != "llama3_405b_16384gpu.yaml")
      out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

double rel_diff(double a, double b) { return std::fabs(a - b) / std::max(a, b); }

// Tolerance: 10% between the closed form and either simulation. Both read
// the same kernels, collectives and sends; the closed form is exact on a
// plan without overlap (row_sharded_matmul, sharded_mlp, risk_inference,
// ring_allreduce_8, manual_two_chefs agree to 1e-5). What it ignores:
//  - pipeline sends: it adds the ones on the schedule's path for stages
//    of equal time (the fill's and drain's, and 1F1B's steady-state wait
//    for each round trip: docs/costmodel.md, "Pipeline schedule"); the
//    simulator meets those its exact order puts there, fewer where a
//    slower stage leaves the others slack;
//  - data-parallel gradient buckets: it overlaps them with ONE micro-batch's
//    backward (exposed = max(last bucket, total - backward),
//    docs/costmodel.md); the simulator with whatever compute really runs
//    beside them on the last micro-batches;
//  - under `flow`, groups sharing links (max-min fair sharing), which the
//    per-collective formulas do not see;
//  - in the MLP, the loss gradient kernel and the bias-gradient reduction
//    the simulator runs as their own kernels (2% on pmap_train_step).
// 10% bounds these on the bundled scenarios with room (the largest gap is
// 4.4%). What it catches: work counted differently by the two judges (half
// a layer backward more in the closed form moves gpt3_175b_1024 to 25%),
// a schedule term wrong by a stage's worth, an MLP or graph kernel counted
// twice or not at all (each was 10-46% before the descriptions were
// unified). What it does not: a collective family worth less than ~5% of a
// step (all of gpt3's tensor-parallel AllReduces are ~10%); their counts
// are checked by hand in tests/costmodel/plan_test.cpp and
// tests/planner/builders_test.cpp.
constexpr double kTolerance = 0.10;

class JudgesAgree : public ::testing::TestWithParam<std::string> {};

TEST_P(JudgesAgree, CostWithinToleranceOfBothSimulations) {
  auto sc = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + GetParam());
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  auto closed = cost::estimate_plan(*sc);
  ASSERT_TRUE(closed.is_ok()) << closed.message();
  auto plan = lower(*sc);
  ASSERT_TRUE(plan.is_ok()) << plan.message();
  for (sim::NetworkModel net : {sim::NetworkModel::kIdeal, sim::NetworkModel::kFlow}) {
    sim::SimOptions o = sim::options_for(*sc);  // what both judges see
    o.network = net;
    o.runtime = {};  // the closed form never sees what the plan did not
    o.record_task_times = false;
    auto r = sim::simulate(plan->program, sc->topology, sc->profile, o);
    ASSERT_TRUE(r.is_ok()) << r.message();
    EXPECT_LT(rel_diff(closed->step_seconds, r->step_seconds), kTolerance)
        << GetParam() << " under --network " << sim::network_model_name(net) << ": cost "
        << closed->step_seconds << " s, simulate " << r->step_seconds << " s";
  }
}

INSTANTIATE_TEST_SUITE_P(Bundled, JudgesAgree, ::testing::ValuesIn(bundled_scenarios()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param.substr(0, p.param.size() - 5);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace brigade::planner
