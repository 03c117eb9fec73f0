// Determinism, bit for bit (DESIGN.md, "Simulator semantics"; docs/RELIABILITY.md):
// two runs of the same command on the same input give the same bytes on
// stdout and in the trace, for four bundled scenarios of different kinds
// (an MLP training step, a manual placement, JSON-style shardings, a
// 128-GPU transformer with tensor, pipeline and data parallelism).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

class Determinism : public ::testing::TestWithParam<const char*> {};

TEST_P(Determinism, TwoRunsGiveTheSameBytes) {
  const std::string scenario = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + GetParam();
  const std::string base = "/tmp/brigade-determinism-" + std::to_string(::getpid()) + "-";
  std::string out[2], trace[2], cost[2];
  for (int run = 0; run < 2; ++run) {
    const std::string t = base + std::to_string(run) + ".json";
    auto r = run_brigade({"simulate", scenario, "--json", "--quiet", "--trace", t,
                          "--granularity", "step"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    out[run] = r.out;
    trace[run] = slurp(t);
    std::remove(t.c_str());
    auto c = run_brigade({"cost", scenario, "--json"});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    cost[run] = c.out;
  }
  EXPECT_FALSE(trace[0].empty());
  EXPECT_TRUE(out[0] == out[1]) << "simulate --json differs between two runs";
  EXPECT_TRUE(trace[0] == trace[1]) << "the Chrome trace differs between two runs";
  EXPECT_TRUE(cost[0] == cost[1]) << "cost --json differs between two runs";
}

INSTANTIATE_TEST_SUITE_P(Bundled, Determinism,
                         ::testing::Values("pmap_train_step.yaml", "manual_two_chefs.yaml",
                                           "sharded_mlp.yaml", "llm_13b_128gpu.yaml"),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           return n.substr(0, n.find('.'));
                         });

}  // namespace
}  // namespace brigade
