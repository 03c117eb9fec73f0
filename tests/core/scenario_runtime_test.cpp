// The scenario's `runtime:` section (core/scenario_runtime.hpp, issue 17):
// device slowdowns, background load on links, the input pipeline's time.
#include <gtest/gtest.h>

#include <string>

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
            "input_pipeline (did you mean 'speed'?)"},
        Bad{"runtime: {speed: {gpu1: 1.5}}\n",
            "t.yaml:5:25: error: found '1.5'; expected a runtime speed factor (the fraction of "
            "its speed a device keeps) from 1e-6 to 1"},
        Bad{"runtime: {link_load: {gpu9: 0.5}}\n",
            "t.yaml:5:23: error: found 'gpu9'; expected a link name such as 'gpu0<->pcie-switch' or a "
            "device name (every link of that device) (did you mean 'gpu0'?)"},
        Bad{"runtime: {input_pipeline: -1ms}\n",
            "t.yaml:5:27: error: found '-1ms'; expected a non-negative duration such as 5us, 2ms or "
            "0.001 (seconds)"}));

}  // namespace
}  // namespace brigade
