// `brigade simulate`, `explain` and `sweep` from the command line (issues 3
// and 4): agreement with `brigade collective`, a Perfetto-ready trace, the
// JSON keys, and bad input.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

std::string scenario(const char* name) { return std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + name; }

std::string temp_path(const char* suffix) {
  return std::string("/tmp/brigade-sim-test-") + std::to_string(::getpid()) + suffix;
}

// Issue 3, "done when": simulate ring_allreduce_8.yaml agrees with
// `brigade collective` for the same collective (dgx-a100 under NCCL's model,
// NCCL_ALGO=ring: 56 us + 1.75 x 2^30 / 240 GB/s, tests/cli/cost_test.cpp).
TEST(SimulateVerb, RingAllReduceAgreesWithCollective) {
  for (const char* network : {"flow", "ideal"}) {
    auto r = run_brigade({"simulate", scenario("ring_allreduce_8.yaml"), "--json", "--network", network});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    auto c = run_brigade({"collective", "allreduce", "--model", "nccl", "--preset", "dgx-a100",
                          "--devices", "8", "--bytes", "1GiB", "--algorithm", "ring", "--json"});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    const double expected = nlohmann::json::parse(c.out)["seconds"].get<double>();
    EXPECT_NEAR(expected, 56e-6 + 1.75 * 1073741824.0 / 240e9, 1e-12);
    EXPECT_NEAR(j["step_seconds"].get<double>(), expected, expected * 1e-9) << network;
    // The same with every shortcut off: the expansion gives the same time.
    auto x = run_brigade({"simulate", scenario("ring_allreduce_8.yaml"), "--json", "--exact", "--network", network});
    ASSERT_EQ(x.exit_code, 0) << x.err;
    auto jx = nlohmann::json::parse(x.out);
    EXPECT_NEAR(jx["step_seconds"].get<double>(), expected, expected * 1e-9) << network;
    EXPECT_GT(jx["flows"].get<double>(), 0);
  }
}

// --kernels DEVICE: where that device's compute time goes, its spans summed
// by name. A two-layer transformer on one H200, four micro-batches, at
// kernel granularity: each layer kernel runs 2 layers x 4 micro-batches = 8
// times, the head's 4, the optimizer once; the rows add up to the device's
// busy time (one compute stream: its spans do not overlap).
TEST(SimulateVerb, KernelsTableSumsTheDevicesComputeByName) {
  const std::string path = temp_path("-kernels.yaml");
  std::ofstream(path) << "topology: {preset: h200x1}\n"
                         "model:\n  transformer: {layers: 2, hidden: 256, heads: 4, seq: 128, "
                         "vocab: 1024}\n"
                         "training: {global_batch: 8, micro_batch: 2}\nstrategy: {data: 1}\n";
  auto r = run_brigade({"simulate", path, "--granularity", "kernel", "--kernels", "0", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("kernels"));
  EXPECT_EQ(j["kernels"]["device"].get<int>(), 0);
  std::map<std::string, int> count;
  double sum = 0, previous = 1e300;
  for (const auto& row : j["kernels"]["rows"]) {
    count[row["name"].get<std::string>()] = row["count"].get<int>();
    const double s = row["seconds"].get<double>();
    EXPECT_LE(s, previous);  // largest first
    previous = s;
    sum += s;
  }
  EXPECT_EQ(count["attn.qkv"], 8);
  EXPECT_EQ(count["mlp.fc2.wgrad"], 8);
  EXPECT_EQ(count["head.logits"], 4);
  EXPECT_EQ(count["head.cross_entropy.div"], 4);
  EXPECT_EQ(count["optimizer"], 1);
  const double busy = j["devices"][0]["busy_seconds"].get<double>();
  EXPECT_NEAR(sum, busy, busy * 1e-9);
  // The text names the device and the largest kernel.
  auto t = run_brigade({"simulate", path, "--granularity", "kernel", "--kernels", "0"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("time by kernel on gpu0"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(j["kernels"]["rows"][0]["name"].get<std::string>()), std::string::npos);
  // The H200 has no wave model: no column for it.
  EXPECT_EQ(t.out.find("waves filled"), std::string::npos) << t.out;
  // Bad input: a device the plan has not, not a device, one the trace's
  // filter leaves out; exit 2, the flag named, no output.
  auto none = run_brigade({"simulate", path, "--kernels", "3"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("--kernels: found '3'; expected a device id below 1"), std::string::npos)
      << none.err;
  auto word = run_brigade({"simulate", path, "--kernels", "gpu"});
  EXPECT_EQ(word.exit_code, 2);
  EXPECT_NE(word.err.find("--kernels: found 'gpu'; expected one device id"), std::string::npos)
      << word.err;
  const std::string trace = temp_path("-kernels-trace.json");
  auto outside = run_brigade({"simulate", path, "--kernels", "0", "--trace", trace,
                              "--trace-devices", "1"});
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("--kernels: found '0'; expected a device that --trace-devices 1 keeps"),
            std::string::npos)
      << outside.err;
  std::remove(trace.c_str());
  std::remove(path.c_str());
}

// At step granularity the table's rows are fused runs, whose names run
// longer than a kernel's (a run's pairs of a GEMM and the collective beside
// it: "bwd fused mlp.fc1.wgrad beside reducescatter"); the name column
// widens to the longest, so every row's columns line up under the header.
TEST(SimulateVerb, KernelsTableWidensItsNameColumnForFusedRuns) {
  const std::string path = temp_path("-kernels-step.yaml");
  std::ofstream(path) << "topology: {preset: dgx-h100}\n"
                         "model:\n  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 512, "
                         "vocab: 4096}\n"
                         "training: {global_batch: 16, micro_batch: 1, tp_comm_overlap: true}\n"
                         "strategy: {tensor: 2, data: 4, sequence_parallel: true}\n";
  auto t = run_brigade({"simulate", path, "--granularity", "step", "--kernels", "0"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  std::istringstream in(t.out);
  std::string line;
  while (std::getline(in, line) && line.find("  kernel ") != 0) {
  }
  ASSERT_EQ(line.find("  kernel "), 0u) << t.out;
  const size_t share_end = line.size();  // the header ends with "share"
  int rows = 0, pairs = 0;
  size_t longest = 0;
  while (std::getline(in, line) && !line.empty() && line.find("  ...") != 0) {
    ++rows;
    EXPECT_EQ(line.rfind('%') + 1, share_end) << line;
    const size_t name_end = line.find("  ", 2);  // two spaces at least after the name
    ASSERT_NE(name_end, std::string::npos) << line;
    longest = std::max(longest, name_end - 2);
    pairs += line.find(" beside ") != std::string::npos;
  }
  EXPECT_GT(rows, 5) << t.out;
  EXPECT_GT(pairs, 0) << t.out;
  EXPECT_GT(longest, 40u) << t.out;  // wider than the column was
  std::remove(path.c_str());
}

// --profile FILE replaces the scenario's profile for one command: the same
// step time as a scenario that names the file with `profile:`, and another
// than the scenario's own (a 10x slower shm link: the 16 MiB AllReduce of
// the validation scenario takes longer). cost, simulate and sweep take it.
TEST(SimulateVerb, ProfileFlagReplacesTheScenariosProfile) {
  const std::string profile = temp_path("-slow-shm.yaml");
  std::ofstream(profile) << "name: slow-shm\nmachine_kind: datasheet\nlinks:\n"
                            "  shm: {alpha: 1us, bandwidth: 1GB/s, bandwidth_efficiency: 1}\n";
  const std::string named = temp_path("-named.yaml");
  {
    std::ifstream in(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/validation/allreduce_2dev.yaml");
    std::stringstream text;
    text << in.rdbuf() << "profile: " << profile << "\n";
    std::ofstream(named) << text.str();
  }
  const std::string base = scenario("validation/allreduce_2dev.yaml");
  auto step = [](const std::vector<std::string>& args, const char* key) {
    auto r = run_brigade(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out)[key].get<double>() : -1.0;
  };
  const double own = step({"simulate", base, "--json"}, "step_seconds");
  const double flagged = step({"simulate", base, "--profile", profile, "--json"}, "step_seconds");
  EXPECT_EQ(flagged, step({"simulate", named, "--json"}, "step_seconds"));
  EXPECT_GT(flagged, 2 * own);
  EXPECT_EQ(step({"cost", base, "--profile", profile, "--json"}, "step_seconds"),
            step({"cost", named, "--json"}, "step_seconds"));
  auto sweep = run_brigade({"sweep", base, "--devices", "2", "--profile", profile, "--json"});
  auto sweep_named = run_brigade({"sweep", named, "--devices", "2", "--json"});
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_EQ(sweep.out, sweep_named.out);
  // A profile that is not there is bad input naming the file.
  auto missing = run_brigade({"simulate", base, "--profile", profile + ".missing"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err.rfind(profile + ".missing: error: ", 0), 0u) << missing.err;
  std::remove(profile.c_str());
  std::remove(named.c_str());
}

// The bundled H200 profile (measured on the H200 lent to this project,
// docs/VALIDATION.md "GPU backend", run 7) loads, and with it the simulator
// predicts the GPU validation scenarios within 10% (issue 5's p90 goal) of
// the steps measured there right after that calibration: 6.66, 9.32 and
// 87.3 ms (`validate`, median of 6 steps; 2026-11-30 01:15 UTC; the
// simulator then said +0.4%, +1.4% and +5.1%). A change to the simulator or
// the cost model that moves a GPU prediction far from the measurement
// shows here.
// The transformer's measurement ran the Program of its day, whose optimizer
// task streamed 2 (2 + 12) + 2 = 30 B a parameter; the Program now streams
// Megatron-LM's passes, 54 (costmodel/memory.hpp: bf16 Adam, 52 over the
// shard and 2 zeroing the gradient buffer), and the executor runs that task
// as one streaming kernel of its bytes. Until a GPU measures the new Program
// (docs/VALIDATION.md), the measurement is credited the difference:
// (54 - 30) / 54 of the step's optimizer_seconds (`cost`: one device, the
// simulator's figure too), the model's own time for those bytes, so the rest
// is still checked against the measurement.
// Likewise for the kernels the Program gained after it (issue 19 item 3,
// docs/costmodel.md): the cross-entropy's passes over the fp32 logits
// (that day's Program had one kernel each way of the cast's bytes, which
// `head.cross_entropy.cast` and `.bwd.cast` still are: the max, subtract,
// exp, sum, divide and multiply are new) and the bias gradients'
// reductions (`*.bias_grad`); the measurement is credited their simulated
// time, summed from a kernel-granularity trace of the same run.
double h200_new_kernels_seconds(const std::string& scenario_path, const std::string& profile) {
  const std::string trace = temp_path("-h200.json");
  auto r = run_brigade({"simulate", scenario_path, "--profile", profile, "--granularity", "kernel",
                        "--trace", trace, "--trace-devices", "0", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(trace);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  std::remove(trace.c_str());
  double us = 0;
  if (j.is_discarded() || !j.contains("traceEvents")) return 0;
  for (const auto& e : j["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const std::string name = e.value("name", "");
    const bool ce = name.rfind("head.cross_entropy.", 0) == 0 &&
                    name != "head.cross_entropy.cast" && name != "head.cross_entropy.bwd.cast";
    if (ce || name.find(".bias_grad") != std::string::npos) us += e.value("dur", 0.0);
  }
  return us * 1e-6;
}

TEST(SimulateVerb, TheMeasuredH200ProfilePredictsTheStepsMeasuredWithIt) {
  const std::string profile = scenario("profiles/h200_measured.yaml");
  const std::map<std::string, double> measured = {
      {"graph_h200.yaml", 6.66e-3}, {"mlp_h200.yaml", 9.32e-3}, {"transformer_h200.yaml", 87.3e-3}};
  for (const auto& [name, seconds] : measured) {
    auto r = run_brigade({"simulate", scenario(("validation/gpu/" + name).c_str()), "--profile",
                          profile, "--json"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const double simulated = nlohmann::json::parse(r.out)["step_seconds"].get<double>();
    double credit = 0;
    if (name == "transformer_h200.yaml") {
      auto c = run_brigade({"cost", scenario(("validation/gpu/" + name).c_str()), "--profile",
                            profile, "--json"});
      ASSERT_EQ(c.exit_code, 0) << name << ": " << c.err;
      credit = nlohmann::json::parse(c.out)["optimizer_seconds"].get<double>() * 24.0 / 54.0;
      const double added = h200_new_kernels_seconds(scenario(("validation/gpu/" + name).c_str()),
                                                    profile);
      EXPECT_GT(added, 0);
      credit += added;
    }
    EXPECT_NEAR(simulated / (seconds + credit), 1.0, 0.10)
        << name << ": simulated " << simulated << ", measured " << seconds << " + " << credit;
  }
}

// A profile of other devices than the plan's is used, and stderr says that
// the plan's devices keep the data sheet's defaults.
TEST(SimulateVerb, AProfileOfOtherDevicesIsWarnedAbout) {
  const std::string profile = scenario("profiles/h200_measured.yaml");
  auto r = run_brigade({"simulate", scenario("validation/allreduce_2dev.yaml"), "--profile",
                        profile, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("brigade: warning: " + profile +
                       ": profile 'h200-sxm-measured' has no entry for device model "
                       "'host-thread' (devices cpu0, cpu1): they keep the data sheet's defaults"),
            std::string::npos)
      << r.err;
  // The plan's own kind of profile: no warning.
  auto g = run_brigade({"simulate", scenario("validation/gpu/mlp_h200.yaml"), "--profile",
                        profile, "--json"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(g.err.find("warning"), std::string::npos) << g.err;
}

TEST(SimulateVerb, JsonKeys) {
  auto r = run_brigade({"simulate", scenario("pmap_train_step.yaml"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"step_seconds", "events", "devices", "links", "oom"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["devices"].size(), 4u);
  for (const char* key : {"id", "busy_seconds", "comm_seconds", "idle_seconds", "peak_memory_bytes"})
    EXPECT_TRUE(j["devices"][0].contains(key)) << key;
  ASSERT_FALSE(j["links"].empty());
  EXPECT_TRUE(j["links"][0].contains("bytes"));
  EXPECT_TRUE(j["links"][0].contains("utilization"));
  EXPECT_TRUE(j["oom"].empty());
}

// Issue 3, "done when": a trace of pmap_train_step.yaml is valid JSON, its
// events are sorted by time, and every flow arrow has both ends.
TEST(SimulateVerb, TraceOpensInPerfettosFormat) {
  const std::string path = temp_path(".trace.json");
  auto r = run_brigade({"simulate", scenario("pmap_train_step.yaml"), "--trace", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream f(path);
  ASSERT_TRUE(f.good());
  const nlohmann::json j = nlohmann::json::parse(f);
  std::remove(path.c_str());
  const auto& events = j.is_array() ? j : j["traceEvents"];
  ASSERT_FALSE(events.empty());
  double last_ts = -1;
  std::map<std::string, int> flow_starts, flow_ends;
  std::set<std::string> phases;
  for (const auto& e : events) {
    const std::string ph = e["ph"].get<std::string>();
    phases.insert(ph);
    if (ph == "M") continue;
    const double ts = e["ts"].get<double>();
    EXPECT_GE(ts, last_ts) << e.dump();
    last_ts = ts;
    if (ph == "s") ++flow_starts[e["id"].dump()];
    if (ph == "f") ++flow_ends[e["id"].dump()];
  }
  EXPECT_EQ(flow_starts, flow_ends);
  EXPECT_FALSE(flow_starts.empty());
  for (const char* ph : {"X", "M", "C", "b", "e"}) EXPECT_TRUE(phases.count(ph)) << ph;
}

TEST(SimulateVerb, SameScenarioTwiceGivesTheSameTraceBytes) {
  const std::string a = temp_path(".a.json"), b = temp_path(".b.json");
  ASSERT_EQ(run_brigade({"simulate", scenario("manual_two_chefs.yaml"), "--trace", a}).exit_code, 0);
  ASSERT_EQ(run_brigade({"simulate", scenario("manual_two_chefs.yaml"), "--trace", b}).exit_code, 0);
  std::stringstream sa, sb;
  sa << std::ifstream(a).rdbuf();
  sb << std::ifstream(b).rdbuf();
  std::remove(a.c_str());
  std::remove(b.c_str());
  EXPECT_FALSE(sa.str().empty());
  EXPECT_EQ(sa.str(), sb.str());
}

TEST(SimulateVerb, BadNetworkFlag) {
  auto r = run_brigade({"simulate", scenario("pmap_linear.yaml"), "--network", "ideall"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "brigade: error: --network: found 'ideall'; expected one of flow, ideal (did you mean 'ideal'?)\n");
}

TEST(SimulateVerb, TraceIntoAMissingFolderLeavesNoFile) {
  auto r = run_brigade({"simulate", scenario("pmap_linear.yaml"), "--trace", "/nonexistent/dir/t.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "brigade: error: --trace: found no folder '/nonexistent/dir'; expected an "
                   "existing folder for the file\n");
}

// The seed's story: "128-way data x 8-way tensor" on 16 nodes x 8 A100 needs
// 1024 devices; every judge refuses it with the same line.
TEST(ExplainVerb, RefusesThePlanThatCannotBe) {
  const std::string path = temp_path(".yaml");
  std::ofstream(path) << "name: seed-story\n"
                         "topology: {preset: dgx-a100, nodes: 16}\n"
                         "model:\n"
                         "  transformer: {layers: 40, hidden: 5120, heads: 40, seq: 2048, vocab: 51200}\n"
                         "training: {global_batch: 1024, micro_batch: 1}\n"
                         "strategy: {data: 128, tensor: 8}\n";
  for (const char* verb : {"explain", "cost", "simulate"}) {
    auto r = run_brigade({verb, path});
    EXPECT_EQ(r.exit_code, 2) << verb;
    EXPECT_EQ(r.out, "") << verb;
    EXPECT_EQ(r.err, path + ":6:1: error: found a plan for 1024 devices (data 128 x tensor 8 x "
                            "pipeline 1); expected the topology's 128 devices\n")
        << verb;
  }
  std::remove(path.c_str());
}

// The seed's quiz: a (32, 256) batch over 8 devices is (4, 256) on each.
TEST(ExplainVerb, JsonShapesPerDevice) {
  const std::string path = temp_path(".yaml");
  std::ofstream(path) << "name: quiz\n"
                         "topology: {preset: cpu-host, devices: 8}\n"
                         "model:\n"
                         "  mlp: {batch: 32, widths: [256, 256]}\n"
                         "strategy: {data: 8}\n";
  auto r = run_brigade({"explain", path, "--json"});
  std::remove(path.c_str());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.contains("parameters"));
  EXPECT_TRUE(j.contains("flops_per_iteration"));
  ASSERT_FALSE(j["device_groups"].empty());
  const auto& g = j["device_groups"][0];
  EXPECT_NE(g["shapes"].dump().find("[4,256]"), std::string::npos) << g.dump();
}

TEST(SweepVerb, CostJudgeJsonAndBadDevices) {
  auto r = run_brigade({"sweep", scenario("llm_13b_128gpu.yaml"), "--devices", "32,64,128", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j.dump().find("step_seconds"), std::string::npos);
  auto bad = run_brigade({"sweep", scenario("llm_13b_128gpu.yaml"), "--devices", "32,x"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
}

// --kernels on an A100 (the wave model, docs/costmodel.md "GEMMs by shape:
// waves of tiles"): each GEMM row says how full its waves of 256 x 128
// tiles are. GPT 22B's layer at TP 8 and micro-batch 4 (m = 8192 rows):
// QKV's C, 8192 x 2304, is 576 tiles in 6 waves of 108 (648 slots: 8/9);
// fc2's, 8192 x 6144, 1536 in 15 (1620 slots).
TEST(SimulateVerb, KernelsTableSaysHowFullAGemmsWavesAre) {
  const std::string path = temp_path("-waves.yaml");
  std::ofstream(path) << "topology: {preset: dgx-a100}\n"
                         "model:\n  transformer: {layers: 1, hidden: 6144, heads: 64, seq: 2048, "
                         "vocab: 51200, dtype: f16}\n"
                         "training: {global_batch: 4, micro_batch: 4}\nstrategy: {tensor: 8}\n";
  auto r = run_brigade({"simulate", path, "--granularity", "kernel", "--kernels", "0", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, double> filled;
  for (const auto& row : j["kernels"]["rows"])
    if (row.contains("waves_filled"))
      filled[row["name"].get<std::string>()] = row["waves_filled"].get<double>();
  EXPECT_NEAR(filled.at("attn.qkv"), 576.0 / 648.0, 1e-12);
  EXPECT_NEAR(filled.at("mlp.fc2"), 1536.0 / 1620.0, 1e-12);
  EXPECT_EQ(filled.count("optimizer"), 0u);  // not a GEMM
  auto t = run_brigade({"simulate", path, "--granularity", "kernel", "--kernels", "0"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("waves filled"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("88.9%"), std::string::npos) << t.out;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace brigade
