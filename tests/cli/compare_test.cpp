// brigade compare A B (issue 17): two scenarios judged by the simulator or
// the closed form, or two traces; differences per device and per task kind,
// largest first; bad input one line, exit 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

const std::string kSource = BRIGADE_SOURCE_DIR;
const std::string kAuto = kSource + "/scenarios/lessons/12-runtime-surprise.yaml";
const std::string kHand = kSource + "/scenarios/lessons/more/12-hand-placed.yaml";
const std::string kPmap = kSource + "/scenarios/pmap_linear.yaml";

nlohmann::json run_json(const std::vector<std::string>& args) {
  auto r = run_brigade(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

// A scenario against itself: every difference is 0 and nothing differs.
TEST(CompareVerb, AScenarioAgainstItself) {
  const auto j = run_json({"compare", kPmap, kPmap, "--json"});
  EXPECT_TRUE(j["same_program"].get<bool>());
  EXPECT_TRUE(j["differences"].empty());
  EXPECT_EQ(j["step_delta_seconds"].get<double>(), 0);
  ASSERT_FALSE(j["devices"].empty());
  for (const auto& row : j["devices"]) EXPECT_EQ(row["delta"].get<double>(), 0) << row.dump();
  EXPECT_EQ(j["a"]["source"], "sim:flow");
}

// The simulated step of each side is `brigade simulate`'s, and the rows come
// largest difference first: under runtime: the slowed gpu0's busy time leads.
TEST(CompareVerb, TwoScenariosLargestFirst) {
  const auto j = run_json({"compare", kAuto, kHand, "--json"});
  const auto sa = run_json({"simulate", kAuto, "--quiet", "--json"});
  const auto sb = run_json({"simulate", kHand, "--quiet", "--json"});
  EXPECT_EQ(j["a"]["step_seconds"].get<double>(), sa["step_seconds"].get<double>());
  EXPECT_EQ(j["b"]["step_seconds"].get<double>(), sb["step_seconds"].get<double>());
  EXPECT_FALSE(j["same_program"].get<bool>());
  EXPECT_EQ(j["differences"][0],
            "different programs: 'lesson-runtime-surprise' and 'lesson-runtime-hand'");
  const auto& rows = j["devices"];
  ASSERT_GE(rows.size(), 4u);
  EXPECT_EQ(rows[0]["scope"], "gpu0");
  EXPECT_EQ(rows[0]["figure"], "busy");
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i]["delta"].is_null()) continue;
    EXPECT_LE(std::abs(rows[i]["delta"].get<double>()), std::abs(rows[i - 1]["delta"].get<double>()));
  }
  // The human table says the same, with the step on top.
  auto r = run_brigade({"compare", kAuto, kHand});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("per device (largest difference first)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: different programs: 'lesson-runtime-surprise' and "
                       "'lesson-runtime-hand'\n"),
            std::string::npos)
      << r.out;
}

// --ignore-runtime a: the plan as it expected to run against tonight's run.
TEST(CompareVerb, IgnoreRuntimeOnOneSide) {
  const auto j = run_json({"compare", kAuto, kAuto, "--ignore-runtime", "a", "--json"});
  EXPECT_GT(j["step_delta_seconds"].get<double>(), 0);
  const auto& d = j["differences"];
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.back(), "A without its runtime: conditions (what the plan expected)");
}

// --judge cost: the closed form's figures (peak memory per device; kinds as
// the busiest device's time per step).
TEST(CompareVerb, JudgeCost) {
  const auto j = run_json({"compare", kAuto, kHand, "--judge", "cost", "--json"});
  EXPECT_EQ(j["a"]["source"], "cost");
  EXPECT_EQ(j["a"]["basis"], "busiest device");
  const auto c = run_json({"cost", kAuto, "--json"});
  EXPECT_EQ(j["a"]["step_seconds"].get<double>(), c["step_seconds"].get<double>());
  EXPECT_FALSE(j["memory"].empty());
}

// Two traces written by `brigade simulate --trace`: compared like the
// scenarios they came from.
TEST(CompareVerb, TwoTraces) {
  const std::string ta = "/tmp/brigade-compare-test-a.json";
  const std::string tb = "/tmp/brigade-compare-test-b.json.gz";
  ASSERT_EQ(run_brigade({"simulate", kAuto, "--quiet", "--trace", ta}).exit_code, 0);
  ASSERT_EQ(run_brigade({"simulate", kHand, "--quiet", "--trace", tb}).exit_code, 0);
  const auto traces = run_json({"compare", ta, tb, "--json"});
  const auto scenarios = run_json({"compare", kAuto, kHand, "--json"});
  EXPECT_NEAR(traces["a"]["step_seconds"].get<double>(),
              scenarios["a"]["step_seconds"].get<double>(), 1e-9);
  EXPECT_EQ(traces["devices"][0]["scope"], scenarios["devices"][0]["scope"]);
  EXPECT_EQ(traces["devices"][0]["figure"], scenarios["devices"][0]["figure"]);
  std::remove(ta.c_str());
  std::remove(tb.c_str());
}

// Simulated runs name each collective's kind from the Program: ZeRO-1's
// gradient buckets are reduce-scatters and its weights all-gathers, where
// plain data parallelism all-reduces; no span is left as a bare
// "collective" (its name, "grad bucket N", does not say the kind).
TEST(CompareVerb, CollectivesByKindFromTheProgram) {
  const auto j = run_json({"compare", kSource + "/scenarios/lessons/06-peak-memory.yaml",
                           kSource + "/scenarios/lessons/more/06-zero1.yaml", "--json"});
  std::map<std::string, std::pair<bool, bool>> kinds;  // kind -> (in A, in B)
  for (const auto& row : j["kinds"])
    kinds[row["scope"].get<std::string>()] = {!row["a"].is_null(), !row["b"].is_null()};
  EXPECT_EQ(kinds.count("collective"), 0u) << j["kinds"].dump();
  EXPECT_EQ(kinds["allreduce"], std::make_pair(true, false));
  EXPECT_EQ(kinds["reducescatter"], std::make_pair(false, true));
  EXPECT_TRUE(kinds["allgather"].second);
}

TEST(CompareVerb, BadInputIsOneLineExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"compare", kPmap, kPmap, "--judge", "exact"},
       "brigade: error: --judge: found 'exact'; expected one of sim, cost\n"},
      {{"compare", kPmap, kPmap, "--judge", "cost", "--network", "ideal"},
       "brigade: error: --network: found it with --judge cost; expected --judge sim (the closed "
       "form has no network model)\n"},
      {{"compare", kPmap, kPmap, "--ignore-runtime", "c"},
       "brigade: error: --ignore-runtime: found 'c'; expected one of a, b, both (did you mean "
       "'a'?)\n"},
      {{"compare", kPmap}, "brigade: error: found no B; expected the B argument (see 'brigade compare --help')\n"},
  };
  for (const Case& c : cases) {
    auto r = run_brigade(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.err;
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace brigade
