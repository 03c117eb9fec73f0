// `brigade search` and the multi-key `brigade sweep` from the command line
// (issue 16): ranked plans with reasons, the winner written as a scenario
// that simulate opens, the memory-infeasible report, and bad input.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

std::string scenario(const char* name) { return std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + name; }

std::string temp_path(const char* suffix) {
  return std::string("/tmp/brigade-search-cli-") + std::to_string(::getpid()) + suffix;
}

// Issue 16, "done when": `brigade search scenarios/gpt3_175b_1024.yaml --json`
// returns ranked plans with reasons.
TEST(SearchVerb, Gpt3JsonReturnsRankedPlansWithReasons) {
  auto r = run_brigade({"search", scenario("gpt3_175b_1024.yaml"), "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["plans"].is_array());
  ASSERT_EQ(j["plans"].size(), 10u);
  double last = 0;
  for (size_t i = 0; i < j["plans"].size(); ++i) {
    const auto& p = j["plans"][i];
    EXPECT_EQ(p["rank"].get<int>(), static_cast<int>(i) + 1);
    for (const char* key : {"tensor", "pipeline", "data", "sequence_parallel", "zero", "micro_batch", "schedule",
                            "virtual_stages", "recompute", "rank_order", "bucket_bytes"})
      EXPECT_TRUE(p["strategy"].contains(key)) << key;
    EXPECT_EQ(p["strategy"]["tensor"].get<int>() * p["strategy"]["pipeline"].get<int>() *
                  p["strategy"]["data"].get<int>(),
              1024);
    const double step = p["step_seconds"].get<double>();
    EXPECT_GE(step, last);
    last = step;
    EXPECT_GT(p["peak_memory_bytes"].get<double>(), 0);
    EXPECT_LE(p["peak_memory_bytes"].get<double>(), p["capacity_bytes"].get<double>());
    EXPECT_FALSE(p["reason"].get<std::string>().empty());
  }
  EXPECT_EQ(j["plans"][0]["reason"], "best");
  EXPECT_EQ(j["space"]["size"].get<double>(),
            j["counts"]["evaluated"].get<double>() + j["counts"]["pruned_memory"].get<double>() +
                j["counts"]["pruned_bound"].get<double>() + j["counts"]["rejected"].get<double>());
  // The scenario's own plan (TP8 x PP16 x DP8) is ranked too.
  ASSERT_TRUE(j["hand_written"].is_object());
  EXPECT_EQ(j["hand_written"]["strategy"]["pipeline"], 16);
  EXPECT_GE(j["hand_written"]["rank"].get<int>(), 1);
}

// Progress goes to stderr; the table names the winner and the hand-written plan.
TEST(SearchVerb, TextTableAndProgress) {
  auto r = run_brigade({"search", scenario("llm_13b_128gpu.yaml"), "--top", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("search: the space holds ", 0), 0u) << r.err;  // its size first
  EXPECT_NE(r.err.find("search: closed form: "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("strategy space:"), std::string::npos);
  EXPECT_NE(r.out.find("best 3 plans that fit, ranked by the closed form:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hand-written plan (the scenario's strategy): tensor 8, pipeline 1, data 16"),
            std::string::npos)
      << r.out;
}

// --judge sim: the best plans simulated and re-ranked by simulated step.
TEST(SearchVerb, JudgeSimReRanksTheBestBySimulatedStep) {
  auto r = run_brigade({"search", scenario("llm_13b_128gpu.yaml"), "--judge", "sim", "--top", "2", "--json",
                        "--quiet", "--set", "tensor=8", "--set", "pipeline=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["judge"], "sim");
  ASSERT_EQ(j["plans"].size(), 2u);
  const double a = j["plans"][0]["sim"]["step_seconds"].get<double>();
  const double b = j["plans"][1]["sim"]["step_seconds"].get<double>();
  EXPECT_GT(a, 0);
  EXPECT_LE(a, b);
  EXPECT_EQ(j["plans"][0]["sim"]["rank"], 1);
}

// --emit writes the winner as a scenario file that simulate opens, and that
// `cost` judges as the search did.
TEST(SearchVerb, EmitWritesAScenarioThatSimulateOpens) {
  const std::string base = temp_path("-base.yaml");
  const std::string best = temp_path("-best.yaml");
  std::ofstream(base) << "name: tiny\ntopology: {preset: dgx-a100}\n"
                         "model:\n  transformer: {layers: 4, hidden: 256, heads: 8, seq: 128, vocab: 1024}\n"
                         "training: {global_batch: 16, micro_batch: 2}\nstrategy: {data: 8}\n";
  auto r = run_brigade({"search", base, "--emit", best, "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double step = nlohmann::json::parse(r.out)["plans"][0]["step_seconds"].get<double>();
  auto c = run_brigade({"cost", best, "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(c.out)["step_seconds"].get<double>(), step);
  auto s = run_brigade({"simulate", best, "--json"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_GT(nlohmann::json::parse(s.out)["step_seconds"].get<double>(), 0);
  std::remove(base.c_str());
  std::remove(best.c_str());
}

// Issue 16, bad input: no plan fits (GPT-3 175B on one DGX A100): one line
// naming the closest plan and its overflow, exit 2, nothing written.
TEST(SearchVerb, NoPlanFitsSaysTheClosestAndExits2) {
  const std::string base = temp_path("-175b-8.yaml");
  const std::string best = temp_path("-none.yaml");
  std::ofstream(base) << "topology: {preset: dgx-a100}\n"
                         "model:\n  transformer: {layers: 96, hidden: 12288, heads: 96, seq: 2048, vocab: 51200}\n"
                         "training: {global_batch: 8, recompute: full}\n";
  auto r = run_brigade({"search", base, "--quiet", "--json", "--emit", best});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("brigade: error: search: no plan fits in memory; the closest, tensor ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" over capacity on stage "), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_FALSE(std::ifstream(best).good());
  std::remove(base.c_str());
}

TEST(SearchVerb, BadFlagsAreOneLine) {
  const std::string s = scenario("llm_13b_128gpu.yaml");
  auto o = run_brigade({"search", s, "--objective", "speed"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err, "brigade: error: --objective: found 'speed'; expected one of step_time, memory\n");
  auto b = run_brigade({"search", s, "--budget", "-3s"});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_EQ(b.err,
            "brigade: error: --budget: found '-3s'; expected a positive duration such as 5s or 2min (a bare "
            "number is seconds)\n");
  auto t = run_brigade({"search", s, "--top", "0"});
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_EQ(t.err, "brigade: error: --top: found '0'; expected a whole number >= 1\n");
  auto k = run_brigade({"search", s, "--set", "tensr=2"});
  EXPECT_EQ(k.exit_code, 2);
  EXPECT_EQ(k.err.rfind("brigade: error: --set: found key 'tensr'; expected one of tensor,", 0), 0u) << k.err;
  auto m = run_brigade({"search", scenario("ring_allreduce_8.yaml")});
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_EQ(m.err.rfind("brigade: error: search: found a collective model; expected a transformer or a graph", 0),
            0u)
      << m.err;
  EXPECT_EQ(o.out + b.out + t.out + k.out + m.out, "");
}

// Context parallelism from the command line: the bundled Llama 3 405B
// scenario (TP8 x CP16 x PP16 x DP8) searched over tensor 8 and pipeline 16
// (cut to keep the test short): every plan's strategy has `context`, the
// device product is 16,384, the hand-written CP16 plan is ranked, and
// --emit writes a scenario that `cost` judges the same; a context degree
// that fits nothing is one line, exit 2.
TEST(SearchVerb, ContextParallelismIsInTheSpaceAndEmitted) {
  const std::string best = temp_path("-405b-best.yaml");
  const std::string s = scenario("llama3_405b_16384gpu.yaml");
  auto r = run_brigade({"search", s, "--set", "tensor=8", "--set", "pipeline=16", "--set",
                        "context=8,16,32", "--top", "3", "--json", "--quiet", "--emit", best});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["plans"].empty());
  for (const auto& p : j["plans"]) {
    const auto& st = p["strategy"];
    EXPECT_EQ(st["tensor"].get<int>() * st["context"].get<int>() * st["pipeline"].get<int>() *
                  st["data"].get<int>(),
              16384);
    EXPECT_NE(st["context"].get<int>(), 1);
    EXPECT_EQ(st["rank_order"].size(), 4u);
  }
  EXPECT_EQ(j["hand_written"]["strategy"]["context"], 16);
  EXPECT_GE(j["hand_written"]["rank"].get<int>(), 1);
  bool line = false;
  for (const auto& k : j["space"]["keys"])
    line |= k.get<std::string>().rfind("context: 8, 16, 32 (", 0) == 0;
  EXPECT_TRUE(line) << j["space"]["keys"].dump();
  auto c = run_brigade({"cost", best, "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(c.out)["step_seconds"].get<double>(),
                   j["plans"][0]["step_seconds"].get<double>());
  std::remove(best.c_str());

  auto bad =
      run_brigade({"search", scenario("gpt3_175b_1024.yaml"), "--set", "context=2", "--quiet"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(
      bad.err.rfind(
          "brigade: error: search: no strategy fits: check_plan refuses every plan left: ", 0),
      0u)
      << bad.err;
  EXPECT_NE(bad.err.find("plans with context > 1 with unfused attention"), std::string::npos)
      << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1);
}

// A graph: the exact method on the seed's two-chef graph; the hand-written
// placement is ranked with the methods' plans.
TEST(SearchVerb, GraphScenarioRanksTheMethodsAndTheHandWrittenPlacement) {
  auto r = run_brigade({"search", scenario("manual_two_chefs.yaml"), "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["plans"].empty());
  EXPECT_EQ(j["model_kind"], "graph");
  EXPECT_EQ(j["methods"][0]["name"], "branch and bound (per-op placement)");
  EXPECT_TRUE(j["methods"][0]["optimal"].get<bool>());
  EXPECT_TRUE(j["hand_written"].is_object());
  EXPECT_TRUE(j["plans"][0]["strategy"].contains("placement") || j["plans"][0]["strategy"].contains("mesh"));
}

// Issue 16, item 4: a grid of tensor x pipeline at the topology's device count.
TEST(SweepVerb, FixedDevicesGridHasMemoryAndNoEfficiency) {
  auto r = run_brigade({"sweep", scenario("llm_13b_128gpu.yaml"), "--set", "tensor=1,2,4,8", "--set",
                        "pipeline=1,2,4", "--fixed-devices", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("efficiency"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vs first"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("peak memory"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Fastest that fits: tensor,pipeline = "), std::string::npos) << r.out;
  auto j = run_brigade({"sweep", scenario("llm_13b_128gpu.yaml"), "--set", "tensor=1,2,4,8", "--set",
                        "pipeline=1,2,4", "--fixed-devices", "--json", "--quiet"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto js = nlohmann::json::parse(j.out);
  ASSERT_EQ(js["points"].size(), 12u);
  for (const auto& p : js["points"]) {
    EXPECT_EQ(p["devices"], 128);
    EXPECT_GT(p["peak_memory_bytes"].get<double>(), 0);
  }
  // Without --fixed-devices the table keeps speedup and efficiency, and gains memory.
  auto d = run_brigade({"sweep", scenario("llm_13b_128gpu.yaml"), "--devices", "64,128", "--quiet"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("efficiency"), std::string::npos);
  EXPECT_NE(d.out.find("peak memory"), std::string::npos);
}

}  // namespace
}  // namespace brigade
