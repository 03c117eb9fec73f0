// The cross-judge family's case and its check, shared by
// cross_judge_family_test.cpp (the strategy keys crossed, and the classes of
// plans they once disagreed on) and cross_judge_found_test.cpp (the plans
// that the judge sweep and the fidelity rows found apart, each kept once
// mended).
#pragma once

#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "tests/planner/two_judges.hpp"

namespace brigade::planner::family {

struct FamilyCase {
  std::string name;
  std::string yaml;
  Granularity granularity = Granularity::kKernel;
  // > 0: every device profile's fp8_split_accumulator_efficiency (a what-if
  // no preset has: the FP8 gradient GEMMs slower in both judges).
  double fp8_split_accumulator = 0;
  // > 0: every device profile's gemm_accumulate_exposed (a what-if no
  // preset has: the weight gradients' addition into the gradient buffer
  // shows, in both judges).
  double gemm_accumulate_exposed = 0;
};

inline void PrintTo(const FamilyCase& c, std::ostream* os) {
  *os << c.name;
}

// A transformer scenario from its parts, at kernel granularity.
inline FamilyCase kernel_plan(const char* name, const char* topology, const char* model,
                              const char* training, const char* strategy) {
  return FamilyCase{name,
                    std::string("topology: ") + topology + "\nmodel:\n  transformer: " + model +
                        "\ntraining: " + training + "\nstrategy: " + strategy + "\n",
                    Granularity::kKernel};
}

// Both judges on the case, held to each other (testing::expect_agreement).
inline void expect_case_agreement(const FamilyCase& c) {
  Result<Scenario> sc = parse_scenario(c.yaml, c.name + ".yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  if (c.fp8_split_accumulator > 0)
    for (DeviceProfile& d : sc->profile.devices)
      d.fp8_split_accumulator_efficiency = c.fp8_split_accumulator;
  if (c.gemm_accumulate_exposed > 0)
    for (DeviceProfile& d : sc->profile.devices)
      d.gemm_accumulate_exposed = c.gemm_accumulate_exposed;
  LowerOptions lo;
  lo.granularity = c.granularity;
  testing::expect_agreement(*sc, c.name, lo, c.granularity != Granularity::kKernel);
}

}  // namespace brigade::planner::family
