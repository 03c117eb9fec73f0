// A scenario's text judged by the closed form, for the tests of one key:
// parsed, checked (check_plan) and estimated, each step's error a test
// failure (and an empty estimate).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "costmodel/plan.hpp"

namespace brigade::cost::testing {

inline PlanEstimate estimate_text(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "s.yaml");
  EXPECT_TRUE(s.is_ok()) << s.message();
  if (!s.is_ok()) return {};
  EXPECT_TRUE(check_plan(*s).is_ok()) << check_plan(*s).message();
  Result<PlanEstimate> e = estimate_plan(*s);
  EXPECT_TRUE(e.is_ok()) << e.message();
  return e.is_ok() ? *e : PlanEstimate{};
}

}  // namespace brigade::cost::testing
