// The scenario's `runtime:` section (core/scenario_runtime.hpp, issue 17):
// device slowdowns, background load on links, the input pipeline's time.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/runtime.hpp"
#include "core/scenario.hpp"

namespace brigade {
namespace {

const std::string kHead =
    "topology: {preset: pcie-4gpu}\n"
    "model:\n"
    "  mlp: {batch: 8, widths: [16, 16]}\n"
    "strategy: {data: 4}\n";

TEST(ScenarioRuntime, ReadsEveryCondition) {
  auto r = parse_scenario(kHead +
                              "runtime:\n"
                              "  speed: {gpu1: 0.5, 2: 0.25}\n"
                              "  link_load: {gpu3: 0.6}\n"
                              "  input_pipeline: 20ms\n",
                          "t.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->runtime.speed.size(), 2u);
  EXPECT_DOUBLE_EQ(r->runtime.speed.at(1), 0.5);
  EXPECT_DOUBLE_EQ(r->runtime.speed.at(2), 0.25);
  EXPECT_DOUBLE_EQ(r->runtime.input_seconds, 0.02);
  // A device's name loads every link of that device.
  ASSERT_FALSE(r->runtime.link_load.empty());
  for (const auto& [link, load] : r->runtime.link_load) {
    const Link& l = r->topology.links()[static_cast<size_t>(link)];
    EXPECT_TRUE(l.a == 3 || l.b == 3) << l.name;
    EXPECT_DOUBLE_EQ(load, 0.6);
  }
  // Absent: no conditions; the known heterogeneity (simulation.speed) is apart.
  auto plain = parse_scenario(kHead, "t.yaml");
  ASSERT_TRUE(plain.is_ok()) << plain.message();
  EXPECT_TRUE(plain->runtime.empty());
}

// A spread of the chips' speeds: its standard deviation and seed; the
// speeds it gives each device (RuntimeConditions::device_speeds) are the
// spread's factors times an explicit entry.
TEST(ScenarioRuntime, ReadsASpread) {
  auto r = parse_scenario(kHead + "runtime: {spread: 0.05, spread_seed: 7, speed: {gpu3: 0.5}}\n",
                          "t.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_FALSE(r->runtime.empty());
  EXPECT_DOUBLE_EQ(r->runtime.spread, 0.05);
  EXPECT_EQ(r->runtime.spread_seed, 7u);
  const std::map<int, double> speeds = r->runtime.device_speeds(4);
  ASSERT_EQ(speeds.size(), 4u);
  for (int d = 0; d < 4; ++d) {
    const double f = spread_factor(0.05, 7, d);
    EXPECT_DOUBLE_EQ(speeds.at(d), d == 3 ? 0.5 * f : f) << d;
  }
  // Seed 1 by default; a spread of 0 is no condition.
  auto d1 = parse_scenario(kHead + "runtime: {spread: 0.05}\n", "t.yaml");
  ASSERT_TRUE(d1.is_ok()) << d1.message();
  EXPECT_EQ(d1->runtime.spread_seed, 1u);
  auto zero = parse_scenario(kHead + "runtime: {spread: 0}\n", "t.yaml");
  ASSERT_TRUE(zero.is_ok()) << zero.message();
  EXPECT_TRUE(zero->runtime.empty());
  EXPECT_TRUE(zero->runtime.device_speeds(4).empty());
}

// The draw, worked by hand. SplitMix64 seeded with 0 gives
// 0xe220a8397b1dcdaf then 0x6e789e6aa1b965f4 (the generator's reference
// outputs); their top 53 bits over 2^53 are u1 = 0.8833108082136426 and
// u2 = 0.43152799704850997, so z = sqrt(-2 ln(1 - u1)) cos(2 pi u2)
// = sqrt(4.2966...) x cos(2.7114...) = -1.8839083333524405. Device 3 of
// seed 7 takes draws 6 and 7 of seed 7's stream: z = -0.5292707004741914,
// and under spread 0.05 keeps 1 / (1 + 0.05 x 0.52927...) = 0.97421872855.
TEST(ScenarioRuntime, TheSpreadsDrawByHand) {
  EXPECT_NEAR(spread_normal(0, 0), -1.8839083333524405, 1e-12);
  EXPECT_NEAR(spread_normal(7, 3), -0.5292707004741914, 1e-12);
  EXPECT_NEAR(spread_factor(0.05, 7, 3), 0.9742187285561019, 1e-12);
  EXPECT_EQ(spread_factor(0, 7, 3), 1.0);
  // Standard normal over many devices: mean 0, mean |z| sqrt(2 / pi), 68.27%
  // within one standard deviation (loose bounds: 20,000 draws).
  double sum = 0, abs_sum = 0;
  int within = 0;
  const int n = 20000;
  for (int d = 0; d < n; ++d) {
    const double z = spread_normal(11, d);
    sum += z;
    abs_sum += std::fabs(z);
    within += std::fabs(z) < 1;
  }
  EXPECT_NEAR(sum / n, 0, 0.03);
  EXPECT_NEAR(abs_sum / n, std::sqrt(2 / M_PI), 0.02);
  EXPECT_NEAR(static_cast<double>(within) / n, 0.6827, 0.01);
}

TEST(ScenarioRuntime, ALinkByItsName) {
  auto base = parse_scenario(kHead, "t.yaml");
  ASSERT_TRUE(base.is_ok());
  const std::string name = base->topology.links().front().name;
  auto r = parse_scenario(kHead + "runtime: {link_load: {" + name + ": 0.5}}\n", "t.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_EQ(r->runtime.link_load.size(), 1u);
  EXPECT_DOUBLE_EQ(r->runtime.link_load.at(0), 0.5);
}

struct Bad {
  const char* runtime;
  const char* expected;
};

class ScenarioRuntimeError : public ::testing::TestWithParam<Bad> {};

TEST_P(ScenarioRuntimeError, ExactMessage) {
  auto r = parse_scenario(kHead + GetParam().runtime, "t.yaml");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ScenarioRuntimeError,
    ::testing::Values(
        Bad{"runtime: {sped: {gpu1: 0.5}}\n",
            "t.yaml:5:11: error: found key 'sped'; expected one of speed, link_load, "
            "input_pipeline, spread, spread_seed (did you mean 'speed'?)"},
        Bad{"runtime: {speed: {gpu1: 1.5}}\n",
            "t.yaml:5:25: error: found '1.5'; expected a runtime speed factor (the fraction of "
            "its speed a device keeps) from 1e-6 to 1"},
        Bad{"runtime: {link_load: {gpu9: 0.5}}\n",
            "t.yaml:5:23: error: found 'gpu9'; expected a link name such as 'gpu0<->pcie-switch' or a "
            "device name (every link of that device) (did you mean 'gpu0'?)"},
        Bad{"runtime: {input_pipeline: -1ms}\n",
            "t.yaml:5:27: error: found '-1ms'; expected a non-negative duration such as 5us, 2ms or "
            "0.001 (seconds)"},
        Bad{"runtime: {spread: 0.6}\n",
            "t.yaml:5:19: error: found '0.6'; expected a speed spread (the standard deviation of "
            "the chips' slowdown, such as 0.03) from 0 to 0.5"},
        Bad{"runtime: {spread_seed: 3}\n",
            "t.yaml:5:24: error: found 'spread_seed' without 'spread'; expected a spread to draw "
            "(such as spread: 0.03)"},
        Bad{"runtime: {spread: 0.03, spread_seed: -2}\n",
            "t.yaml:5:38: error: found '-2'; expected an integer >= 0"}));

}  // namespace
}  // namespace brigade
