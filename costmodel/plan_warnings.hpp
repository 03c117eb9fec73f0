// The facts behind cost::plan_warnings (costmodel/plan.hpp), for a caller
// that words them again later (the app, when its language changes):
// plan_warnings(s) == plan_warning_texts(plan_warning_facts(s)), in the
// language of the call (core/tr.hpp). Implemented in costmodel/plan.cpp.
#pragma once

#include <string>
#include <vector>

#include "core/scenario.hpp"

namespace brigade::cost {

struct PlanWarningFacts {
  bool interleaved_as_1f1b = false;  // schedule: interleaved with virtual_stages <= 1
  int one_of_devices = 0;            // > 0: no strategy, the plan uses 1 of this many devices
  bool operator==(const PlanWarningFacts&) const = default;
};

PlanWarningFacts plan_warning_facts(const Scenario& scenario);
std::vector<std::string> plan_warning_texts(const PlanWarningFacts& facts);

}  // namespace brigade::cost
