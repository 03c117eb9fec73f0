// The scaling view's sweep and curves (gui/model/scaling.hpp).
#include "gui/model/scaling.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "costmodel/scaling.hpp"
#include "gui/model/loader.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

Scenario scenario(const std::string& name) {
  auto s = load_scenario(kSrc + "/scenarios/" + name + ".yaml");
  EXPECT_TRUE(s.is_ok()) << s.message();
  return std::move(s).value();
}

TEST(ScalingDeviceCounts, DoubleFromThePlansUnitToItsDevicesAndOnToFourCounts) {
  // GPT-3: tensor 8 x pipeline 16 = 128 devices at the least, 1024 its own.
  EXPECT_EQ(scaling_device_counts(scenario("gpt3_175b_1024")),
            (std::vector<int>{128, 256, 512, 1024}));
  // An MLP on 4 host threads: 1, 2, 4, then 8 beyond its own for a fourth.
  EXPECT_EQ(scaling_device_counts(scenario("pmap_train_step")), (std::vector<int>{1, 2, 4, 8}));
}

struct CountCase {
  int devices;
  std::vector<int> counts;
};

class OwnCount : public ::testing::TestWithParam<CountCase> {};

// A count that is no power of two is swept too, after the powers below it.
TEST_P(OwnCount, IsAPointOfTheSweep) {
  Scenario s = scenario("pmap_train_step");
  auto t = make_preset("cpu-host", 1, GetParam().devices);
  ASSERT_TRUE(t.is_ok());
  s.topology = *t;
  EXPECT_EQ(scaling_device_counts(s), GetParam().counts);
}

INSTANTIATE_TEST_SUITE_P(Cases, OwnCount,
                         ::testing::Values(CountCase{6, {1, 2, 4, 6}}, CountCase{3, {1, 2, 3, 6}},
                                           CountCase{16, {1, 2, 4, 8, 16}},
                                           CountCase{1, {1, 2, 4, 8}}));

// A sweep made by hand: 2 devices 10 s, 4 devices 6 s, 8 devices not
// judged, 16 devices 4 s; Amdahl's p set to 0.5.
planner::SweepResult hand_sweep() {
  planner::SweepResult r;
  r.key = "devices";
  auto add = [&](int n, double t, const std::string& err) {
    planner::SweepPoint p;
    p.value = std::to_string(n);
    p.devices = n;
    p.step_seconds = t;
    p.error = err;
    if (err.empty()) {
      p.speedup = 10 / t;
      p.efficiency = p.speedup / (n / 2.0);
    }
    r.points.push_back(p);
  };
  add(2, 10, "");
  add(4, 6, "");
  add(8, 0, "out of memory");
  add(16, 4, "");
  r.amdahl_p = 0.5;
  return r;
}

TEST(ScalingCurves, JudgedPointsIdealAndAmdahlAgainstTheFirstPoint) {
  const ScalingCurves c = scaling_curves(hand_sweep(), 5);
  // Speedups 10/10, 10/6, 10/4; the unjudged 8 is left out.
  ASSERT_EQ(c.speedup.size(), 3u);
  EXPECT_DOUBLE_EQ(c.speedup[1].first, 4);
  EXPECT_DOUBLE_EQ(c.speedup[1].second, 10.0 / 6);
  EXPECT_DOUBLE_EQ(c.speedup[2].second, 2.5);
  // Efficiency: 2.5 / (16 / 2) = 31.25%.
  EXPECT_DOUBLE_EQ(c.efficiency[2].second, 31.25);
  // Ideal: devices / 2.
  EXPECT_DOUBLE_EQ(c.ideal[2].second, 8);
  // Amdahl at 5 counts evenly in log N from 2 to 16: 2, 3.36, 5.66, 9.51, 16.
  ASSERT_EQ(c.amdahl.size(), 5u);
  EXPECT_DOUBLE_EQ(c.amdahl.front().first, 2);
  EXPECT_DOUBLE_EQ(c.amdahl.front().second, 1);
  EXPECT_NEAR(c.amdahl.back().first, 16, 1e-12);
  // S(8) = 1 / (0.5 + 0.5 / 8) = 1 / 0.5625 = 1.777...; efficiency 1.777 / 8 = 22.2%.
  EXPECT_NEAR(c.amdahl.back().second, 1 / 0.5625, 1e-12);
  EXPECT_NEAR(c.amdahl_efficiency.back().second, 100 / 0.5625 / 8, 1e-9);
  EXPECT_NEAR(c.amdahl[2].first, 2 * std::sqrt(8.0), 1e-9);
}

TEST(ScalingCurves, TheAmdahlCurveExtendsBeyondTheLastPoint) {
  // To 4 x 16 = 64 devices: S(32) = 1 / (0.5 + 0.5 / 32) = 1.9394.
  const ScalingCurves c = scaling_curves(hand_sweep(), 3, 4);
  ASSERT_EQ(c.amdahl.size(), 3u);
  EXPECT_NEAR(c.amdahl.back().first, 64, 1e-9);
  EXPECT_NEAR(c.amdahl.back().second, 1 / (0.5 + 0.5 / 32), 1e-12);
  EXPECT_EQ(c.speedup.back().first, 16);
}

TEST(ScalingCurves, NoFitNoAmdahlCurve) {
  planner::SweepResult r = hand_sweep();
  r.amdahl_p.reset();
  const ScalingCurves c = scaling_curves(r);
  EXPECT_TRUE(c.amdahl.empty());
  EXPECT_EQ(c.speedup.size(), 3u);
  EXPECT_TRUE(scaling_curves(planner::SweepResult{}).speedup.empty());
}

TEST(ScalingSweep, TheClosedFormOfGpt3ScalesNearlyLinearly) {
  const Scenario s = scenario("gpt3_175b_1024");
  auto r = scaling_sweep(s, scaling_device_counts(s), ScalingJudge::kClosedForm);
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_EQ(r->points.size(), 4u);
  for (const auto& p : r->points) EXPECT_EQ(p.error, "") << p.devices;
  EXPECT_DOUBLE_EQ(r->points[0].speedup, 1);
  // 8x the devices of the first point: between 7x and 8x faster (data
  // parallelism over a fixed batch, with its gradient AllReduce).
  EXPECT_GT(r->points[3].speedup, 7);
  EXPECT_LT(r->points[3].speedup, 8);
  ASSERT_TRUE(r->amdahl_p.has_value());
  EXPECT_GT(*r->amdahl_p, 0.98);
  EXPECT_LT(*r->amdahl_p, 1);
}

TEST(ScalingSweep, TheSimulatorJudgesEveryPointOfASmallPlan) {
  const Scenario s = scenario("pmap_train_step");
  int calls = 0;
  auto r = scaling_sweep(s, {1, 2, 4}, ScalingJudge::kSimulator, nullptr,
                         [&](int done, int total, const planner::SweepPoint&) {
                           ++calls;
                           EXPECT_EQ(total, 3);
                           EXPECT_EQ(done, calls);
                         });
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->judge, "sim");
  EXPECT_EQ(calls, 3);
  // The 4-device point is the scenario itself: the simulator's step time.
  auto doc = load_document(kSrc + "/scenarios/pmap_train_step.yaml");
  ASSERT_TRUE(doc.is_ok());
  EXPECT_NEAR(r->points[2].step_seconds, (*doc)->result->step_seconds,
              1e-9 * (*doc)->result->step_seconds);
}

TEST(ScalingSweep, ACancelledSweepSaysSo) {
  std::atomic<bool> cancel{true};
  auto r = scaling_sweep(scenario("pmap_train_step"), {1, 2}, ScalingJudge::kSimulator, &cancel);
  EXPECT_TRUE(is_cancelled(r.status()));
}

}  // namespace
}  // namespace brigade::gui
