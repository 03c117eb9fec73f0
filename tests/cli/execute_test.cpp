// `brigade execute` and `brigade validate` (issue 5): the CPU executor runs
// every validation scenario with its numerical checks; validate reports the
// errors with the keys the issue names; bad input exits 2.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

const std::string kValidation = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/validation/";

std::vector<std::string> cpu_validation_scenarios() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(kValidation))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Every CPU validation scenario runs on the CPU executor; the warm-up step
// checks every collective's and transfer's result against a reference (a
// mismatch would be a runtime failure, exit 1).
TEST(ExecuteVerb, RunsEveryCpuValidationScenario) {
  const auto files = cpu_validation_scenarios();
  ASSERT_GE(files.size(), 4u);
  for (const std::string& f : files) {
    auto r = run_brigade({"execute", f, "--repeat", "1", "--json", "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << f << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["steps"], 1) << f;
    EXPECT_GT(j["median_step_seconds"].get<double>(), 0) << f;
    EXPECT_FALSE(j["kinds"].empty()) << f;
  }
}

TEST(ValidateVerb, JsonHasTheIssuesKeys) {
  // One timed step per round (--min-round-seconds 0), so that the
  // arithmetic below can be checked step by step.
  auto r = run_brigade({"validate", kValidation + "allreduce_2dev.yaml",
                        kValidation + "manual_placement.yaml", "--repeat", "1",
                        "--min-round-seconds", "0", "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["scenarios"].size(), 2u);
  for (const auto& s : j["scenarios"]) {
    for (const char* key : {"name", "simulated_seconds", "measured_seconds", "relative_error"})
      EXPECT_TRUE(s.contains(key)) << key;
    EXPECT_GT(s["simulated_seconds"].get<double>(), 0);
    EXPECT_GT(s["measured_seconds"].get<double>(), 0);
    // relative_error is (simulated - measured) / measured.
    const double expected = (s["simulated_seconds"].get<double>() - s["measured_seconds"].get<double>()) /
                            s["measured_seconds"].get<double>();
    EXPECT_NEAR(s["relative_error"].get<double>(), expected, 1e-9 * std::fabs(expected) + 1e-15);
  }
  EXPECT_TRUE(j.contains("median_abs_error"));
  EXPECT_TRUE(j.contains("p90_abs_error"));
  // Kernels: the compute tasks by name; together they are the kinds' time
  // less the transfers' and collectives', simulated and measured alike.
  const std::set<std::string> communication = {"transfer",  "allreduce", "allgather",
                                                "reducescatter", "broadcast", "reduce",
                                                "alltoall", "collective"};
  for (const auto& s : j["scenarios"]) {
    ASSERT_TRUE(s.contains("kernels"));
    double sim = 0, measured = 0, kind_sim = 0, kind_measured = 0;
    for (const auto& k : s["kernels"]) {
      sim += k["simulated_seconds"].get<double>();
      measured += k["measured_seconds"].get<double>();
      EXPECT_GT(k["tasks"].get<int>(), 0);
      EXPECT_FALSE(k["name"].get<std::string>().empty());
    }
    for (const auto& k : s["kinds"])
      if (!communication.count(k["kind"].get<std::string>())) {
        kind_sim += k["simulated_seconds"].get<double>();
        kind_measured += k["measured_seconds"].get<double>();
      }
    EXPECT_NEAR(sim, kind_sim, 1e-12 + 1e-9 * kind_sim) << s["name"];
    EXPECT_NEAR(measured, kind_measured, 1e-12 + 1e-9 * kind_measured) << s["name"];
  }
  // The machine's load around the runs (null where the system gives none).
  ASSERT_TRUE(j.contains("load_average"));
  for (const char* when : {"before", "after"})
    EXPECT_TRUE(j["load_average"][when].is_null() || j["load_average"][when].get<double>() >= 0) << when;
  EXPECT_GE(j["hardware_threads"].get<int>(), 0);
  // Every round between speed probes: the machine's speeds against the
  // profile, the step simulated at them, the round's measured steps; the
  // adjusted error is the simulated step over the median of the measured
  // steps rescaled to the profile's speed (x simulated / the round's).
  for (const auto& s : j["scenarios"]) {
    ASSERT_EQ(s["rounds"].size(), 3u);
    const double sim = s["simulated_seconds"].get<double>();
    std::vector<double> rescaled;
    for (const auto& round : s["rounds"]) {
      EXPECT_EQ(round["gemm_speed_per_device"].size(), 2u);
      EXPECT_EQ(round["memory_speed_per_device"].size(), 2u);
      for (const auto& x : round["gemm_speed_per_device"]) EXPECT_GT(x.get<double>(), 0);
      const double at_speed = round["simulated_seconds"].get<double>();
      EXPECT_GT(at_speed, 0);
      for (const auto& m : round["measured_step_seconds"])
        rescaled.push_back(m.get<double>() * sim / at_speed);
    }
    ASSERT_EQ(rescaled.size(), 3u);
    std::sort(rescaled.begin(), rescaled.end());
    const double at_profile = s["measured_at_profile_speed_seconds"].get<double>();
    EXPECT_NEAR(at_profile, rescaled[1], 1e-12 * at_profile);
    EXPECT_NEAR(s["speed_adjusted_relative_error"].get<double>(), sim / at_profile - 1, 1e-9);
    // Each round's error (one step per round here: against that step), at
    // the profile's figures and at the round's speed, and how far the
    // rounds lay apart: (largest - smallest) / median of the rounds' steps.
    ASSERT_EQ(s["round_errors"].size(), 3u);
    ASSERT_EQ(s["speed_adjusted_round_errors"].size(), 3u);
    std::vector<double> steps;
    for (size_t i = 0; i < 3; ++i) {
      const auto& round = s["rounds"][i];
      const double step = round["measured_step_seconds"][0].get<double>();
      steps.push_back(step);
      EXPECT_NEAR(s["round_errors"][i].get<double>(), sim / step - 1, 1e-9);
      EXPECT_NEAR(s["speed_adjusted_round_errors"][i].get<double>(),
                  round["simulated_seconds"].get<double>() / step - 1, 1e-9);
    }
    std::sort(steps.begin(), steps.end());
    EXPECT_NEAR(s["round_spread"].get<double>(), (steps[2] - steps[0]) / steps[1], 1e-9);
  }
  EXPECT_GE(j["max_round_spread"].get<double>(),
            std::max(j["scenarios"][0]["round_spread"].get<double>(),
                     j["scenarios"][1]["round_spread"].get<double>()) -
                1e-15);
  EXPECT_GE(j["speed_adjusted_median_abs_error"].get<double>(), 0);
  EXPECT_GE(j["speed_adjusted_p90_abs_error"].get<double>(),
            j["speed_adjusted_median_abs_error"].get<double>());
  // Measured in 3 interleaved rounds of at least one timed step each.
  EXPECT_EQ(j["rounds"], 3);
  EXPECT_EQ(j["timed_steps"], 3);
}

TEST(ValidateVerb, RepeatIsSpreadOverTheRounds) {
  auto r = run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--repeat", "5", "--rounds",
                        "2", "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rounds"], 2);
  EXPECT_EQ(j["timed_steps"], 6);  // ceil(5 / 2) = 3 per round
  // A step of a few milliseconds: as many steps as fill 0.1 s per round at
  // the simulated step, ceil(0.1 / simulated), in each of the 2 rounds.
  const double sim = j["scenarios"][0]["simulated_seconds"].get<double>();
  ASSERT_LT(sim, 0.1 / 3);
  const int per_round = static_cast<int>(std::ceil(0.1 / sim));
  EXPECT_EQ(j["scenarios"][0]["timed_steps"].get<int>(), 2 * per_round);
  EXPECT_EQ(j["scenarios"][0]["rounds"][0]["measured_step_seconds"].size(),
            static_cast<size_t>(per_round));
}

// --min-round-seconds 0: --repeat alone decides the steps.
TEST(ValidateVerb, NoMinimumRoundTimeKeepsTheRepeat) {
  auto r =
      run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--repeat", "5", "--rounds",
                   "2", "--min-round-seconds", "0", "--no-probes", "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["scenarios"][0]["timed_steps"].get<int>(), 6);
}

TEST(ValidateVerb, BadMinRoundSeconds) {
  auto r =
      run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--min-round-seconds", "-1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "brigade: error: --min-round-seconds: found '-1'; expected a duration in seconds >= 0, "
            "such as 0.1\n");
  EXPECT_EQ(r.out, "");
}

// --no-probes: no speed probes, so no adjusted errors (null in the JSON).
TEST(ValidateVerb, NoProbesLeavesTheAdjustedErrorsOut) {
  auto r = run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--repeat", "1", "--rounds",
                        "1", "--no-probes", "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["speed_adjusted_median_abs_error"].is_null());
  EXPECT_TRUE(j["scenarios"][0]["speed_adjusted_relative_error"].is_null());
  EXPECT_TRUE(j["scenarios"][0]["rounds"][0]["simulated_seconds"].is_null());
  EXPECT_TRUE(j["scenarios"][0]["speed_adjusted_round_errors"].is_null());
  EXPECT_EQ(j["scenarios"][0]["round_errors"].size(), 1u);
  EXPECT_EQ(j["scenarios"][0]["round_spread"].get<double>(), 0.0);
  EXPECT_GT(j["scenarios"][0]["relative_error"].get<double>(), -1);
}

// The text report gives each scenario's error range over its rounds and
// says how far the widest scenario's rounds lay apart.
TEST(ValidateVerb, TextSaysHowFarTheRoundsLayApart) {
  auto r =
      run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--repeat", "3", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("by round"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("%   allreduce"), std::string::npos)
      << r.out;  // "+1.2..+3.4%" before the kinds
  EXPECT_NE(r.out.find(".."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the measurement's own spread: a scenario's round medians lay up to "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(validation-allreduce-2dev)"), std::string::npos) << r.out;
}

TEST(ValidateVerb, BadRounds) {
  auto r = run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--rounds", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brigade: error: --rounds: found '0'; expected a whole number >= 1\n");
}

// A plan that uses fewer devices than its topology has (a graph placed on
// one of two): the probes run on both, the adjusted simulation takes the
// plan's one. (It failed with "speed factor for device 1, which does not
// exist" before.)
TEST(ValidateVerb, APlanOnFewerDevicesThanItsTopologyIsAdjusted) {
  const std::string path = "/tmp/brigade-one-of-two-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << "name: one-of-two\n"
                         "topology: {preset: cpu-host, devices: 2}\n"
                         "model:\n"
                         "  graph:\n"
                         "    tensors: {x: [64, 128, f32], w: [128, 128, f32]}\n"
                         "    ops:\n"
                         "      - {name: mm, op: matmul, in: [x, w], out: y}\n"
                         "training: {mode: inference}\n"
                         "placement: {mm: cpu0}\n";
  auto r = run_brigade({"validate", path, "--repeat", "1", "--json", "--quiet"});
  std::remove(path.c_str());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["scenarios"][0]["speed_adjusted_relative_error"].is_number()) << r.out;
  EXPECT_EQ(j["scenarios"][0]["rounds"][0]["gemm_speed_per_device"].size(), 2u);
}

TEST(ValidateVerb, WritesBothTraces) {
  const std::string dir = "/tmp/brigade-validate-test-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  auto r = run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--repeat", "1", "--trace-dir",
                        dir, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/validation-allreduce-2dev.sim.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/validation-allreduce-2dev.measured.json"));
  std::filesystem::remove_all(dir);
}

TEST(ExecuteVerb, GpuTopologyOnTheCpuBackendIsBadInput) {
  auto r = run_brigade({"execute", kValidation + "gpu/mlp_h200.yaml", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("error: found gpu device 'gpu0' (h200x1); expected host-thread devices for "
                       "--backend cpu, such as topology: {preset: cpu-host, devices: 2}\n"),
            std::string::npos)
      << r.err;
}

// No GPU (or no CUDA backend in this build, as under the asan preset) is
// the machine's lack, not the input's fault: exit 1 (issue 20, item 6).
TEST(ExecuteVerb, CudaWithoutAGpuIsAnEnvironmentFailure) {
  auto r = run_brigade({"execute", kValidation + "gpu/mlp_h200.yaml", "--backend", "cuda", "--quiet"});
  if (r.exit_code == 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const bool says_why = r.err.rfind("brigade: error: no CUDA device", 0) == 0 ||
                        r.err.rfind("brigade: error: the CUDA backend", 0) == 0;
  EXPECT_TRUE(says_why) << r.err;
}

TEST(ValidateVerb, ProfileFromAnotherBackendIsBadInput) {
  const std::string path = "/tmp/brigade-profile-test-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << "name: gpu-box\nmachine_kind: cuda\n";
  auto r = run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--profile", path, "--quiet"});
  std::remove(path.c_str());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, path + ": error: found a profile calibrated on the 'cuda' backend; expected one "
                          "for 'cpu' (brigade calibrate --backend cpu)\n");
}

TEST(ValidateVerb, BadRepeat) {
  auto r = run_brigade({"validate", kValidation + "allreduce_2dev.yaml", "--repeat", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brigade: error: --repeat: found '0'; expected a whole number >= 1\n");
}

}  // namespace
}  // namespace brigade
