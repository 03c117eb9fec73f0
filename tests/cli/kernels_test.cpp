// brigade kernels SCENARIO [--measured FILE]: one device's step by kernel
// group, simulated, and beside a profiler's record (Nsight Systems' CSV
// summary, PyTorch's profiler trace, Brigade's own trace); bad input one
// line, exit 2. The records in tests/data/kernels/ are made up for these
// tests (round numbers worked by hand below), not measurements.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

const std::string kSource = BRIGADE_SOURCE_DIR;
const std::string kPlan = kSource + "/tests/data/kernels/gpt_fp8_node.yaml";
const std::string kNsys = kSource + "/tests/data/kernels/nsys_kern_sum.csv";
const std::string kKineto = kSource + "/tests/data/kernels/kineto_trace.json";

nlohmann::json run_json(const std::vector<std::string>& args) {
  auto r = run_brigade(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

std::map<std::string, nlohmann::json> rows_by_group(const nlohmann::json& j) {
  std::map<std::string, nlohmann::json> rows;
  for (const auto& r : j["rows"]) rows[r["group"].get<std::string>()] = r;
  return rows;
}

// The simulated groups of compute add up to the device's busy time, which
// `simulate --kernels` gives kernel by kernel: the same spans, grouped.
TEST(KernelsVerb, SimulatedGroupsAddUpToTheKernelTable) {
  const auto groups = run_json({"kernels", kPlan, "--json"});
  const auto table = run_json({"simulate", kPlan, "--kernels", "0", "--json"});
  double busy = 0;
  for (const auto& r : table["kernels"]["rows"]) busy += r["seconds"].get<double>();
  auto rows = rows_by_group(groups);
  EXPECT_NEAR(rows["compute_all"]["simulated_seconds"].get<double>(), busy, 1e-12 * busy);
  double groups_sum = 0;
  for (const auto& [key, r] : rows)
    if (!r["subtotal"].get<bool>() && key != "allreduce" && key != "allgather" &&
        key != "reducescatter")
      groups_sum += r["simulated_seconds"].get<double>();
  EXPECT_NEAR(groups_sum, busy, 1e-12 * busy);
  // An FP8 plan: its linear layers' GEMMs are FP8, the logits' BF16.
  EXPECT_GT(rows["gemm_fp8"]["simulated_seconds"].get<double>(), 0);
  EXPECT_GT(rows["gemm_16bit"]["simulated_seconds"].get<double>(), 0);
  EXPECT_GT(rows["fp8_cast"]["simulated_seconds"].get<double>(), 0);
  EXPECT_EQ(groups["device_name"], "gpu0");
  EXPECT_FALSE(groups.contains("measured"));
}

// The nsys summary covers 2 steps of one GPU: FP8 GEMMs 3,000,000 ns in 48
// kernels, so 1.5 ms and 24 kernels a step; the flash kernel 0.5 ms; the
// AllGather 0.25 ms; the add 0.1 ms (other streaming); the unnamed kernel
// 0.15 ms. Each ratio is the measured time over the simulated one.
TEST(KernelsVerb, NsysSummaryByHand) {
  const auto j = run_json({"kernels", kPlan, "--measured", kNsys, "--steps", "2", "--json"});
  EXPECT_EQ(j["measured"]["format"], "nsys");
  EXPECT_EQ(j["measured"]["steps"], 2);
  EXPECT_EQ(j["measured"]["gpus"], 1);
  auto rows = rows_by_group(j);
  EXPECT_DOUBLE_EQ(rows["gemm_fp8"]["measured_seconds"].get<double>(), 1.5e-3);
  EXPECT_DOUBLE_EQ(rows["gemm_fp8"]["measured_kernels"].get<double>(), 24);
  EXPECT_DOUBLE_EQ(rows["gemm_fp8"]["measured_over_simulated"].get<double>(),
                   1.5e-3 / rows["gemm_fp8"]["simulated_seconds"].get<double>());
  EXPECT_DOUBLE_EQ(rows["attention"]["measured_seconds"].get<double>(), 0.5e-3);
  EXPECT_DOUBLE_EQ(rows["allgather"]["measured_seconds"].get<double>(), 0.25e-3);
  EXPECT_DOUBLE_EQ(rows["elementwise"]["measured_seconds"].get<double>(), 0.1e-3);
  EXPECT_DOUBLE_EQ(rows["other"]["measured_seconds"].get<double>(), 0.15e-3);
  EXPECT_DOUBLE_EQ(rows["other"]["simulated_seconds"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(rows["compute_all"]["measured_seconds"].get<double>(), 2.25e-3);
  EXPECT_DOUBLE_EQ(rows["communication_all"]["measured_seconds"].get<double>(), 0.25e-3);
  ASSERT_EQ(j["unnamed_measured_kernels"].size(), 1u);
  EXPECT_EQ(j["unnamed_measured_kernels"][0]["name"], "my_custom_fused_kernel");
  EXPECT_DOUBLE_EQ(j["unnamed_measured_kernels"][0]["seconds_per_step"].get<double>(), 0.15e-3);

  // --gpus 2: the same record read as two GPUs' sums halves every figure.
  const auto halves =
      run_json({"kernels", kPlan, "--measured", kNsys, "--steps", "2", "--gpus", "2", "--json"});
  EXPECT_DOUBLE_EQ(rows_by_group(halves)["gemm_fp8"]["measured_seconds"].get<double>(), 0.75e-3);
}

// The PyTorch trace: 2 ProfilerStep annotations, device 0; the FP8 GEMMs
// 800 + 800 us over 2 steps, the cast 300 us, the reduce-scatter 1000 us,
// the memset 4 us.
TEST(KernelsVerb, KinetoTraceByHand) {
  const auto j = run_json({"kernels", kPlan, "--measured", kKineto, "--json"});
  EXPECT_EQ(j["measured"]["format"], "kineto");
  EXPECT_EQ(j["measured"]["steps"], 2);
  EXPECT_EQ(j["measured"]["gpus"], 1);
  auto rows = rows_by_group(j);
  EXPECT_DOUBLE_EQ(rows["gemm_fp8"]["measured_seconds"].get<double>(), 800e-6);
  EXPECT_DOUBLE_EQ(rows["fp8_cast"]["measured_seconds"].get<double>(), 150e-6);
  EXPECT_DOUBLE_EQ(rows["reducescatter"]["measured_seconds"].get<double>(), 500e-6);
  EXPECT_DOUBLE_EQ(rows["memcpy"]["measured_seconds"].get<double>(), 2e-6);
  // --steps overrides the annotations.
  const auto one = run_json({"kernels", kPlan, "--measured", kKineto, "--steps", "1", "--json"});
  EXPECT_DOUBLE_EQ(rows_by_group(one)["gemm_fp8"]["measured_seconds"].get<double>(), 1600e-6);
}

TEST(KernelsVerb, TextNamesTheRecordAndTheGroupsOff) {
  auto r = run_brigade({"kernels", kPlan, "--measured", kNsys, "--steps", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("against " + kNsys +
                       " (Nsight Systems' kernel summary; 2 steps, 1 GPU: its times / 2)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("groups more than 10% off (measured/Brigade)"), std::string::npos);
  EXPECT_NE(r.out.find("(gemm.fp8 curve; fp8_split_accumulator_efficiency (gradients))"),
            std::string::npos);
  EXPECT_NE(r.out.find("measured kernels no rule names (group 'other'), largest first:\n"
                       "       150 us  my_custom_fused_kernel\n"),
            std::string::npos)
      << r.out;
}

// --out: the profile scaled until the simulated groups take the record's
// time; judged under it, the scaled groups are within 0.2% of the record
// (a closed loop: the factors are the simulator's, not worked by hand), and
// a group the record is faster in than the peak allows is held at 1.
TEST(KernelsVerb, OutScalesTheProfileToTheRecord) {
  const std::string out = ::testing::TempDir() + "/kernels_out_profile.yaml";
  std::remove(out.c_str());
  const auto j =
      run_json({"kernels", kPlan, "--measured", kNsys, "--steps", "2", "--out", out, "--json"});
  std::map<std::string, nlohmann::json> scaled;
  for (const auto& x : j["profile_out"]["scaled"]) scaled[x["key"].get<std::string>()] = x;
  ASSERT_TRUE(scaled.count("gemm.fp8")) << j.dump(2);
  EXPECT_FALSE(scaled["gemm.fp8"]["held"].get<bool>());
  EXPECT_FALSE(scaled["gemm.fp8"]["stuck"].get<bool>());
  EXPECT_LT(scaled["gemm.fp8"]["factor"].get<double>(), 1);
  EXPECT_NEAR(scaled["gemm.fp8"]["ratio_after"].get<double>(), 1, 2e-3);
  EXPECT_TRUE(scaled["memory_efficiency"]["held"].get<bool>());
  EXPECT_FALSE(scaled.count("gemm.bf16, gemm.f16"));  // nothing of it in the record

  const auto again =
      run_json({"kernels", kPlan, "--profile", out, "--measured", kNsys, "--steps", "2", "--json"});
  auto rows = rows_by_group(again);
  EXPECT_NEAR(rows["gemm_fp8"]["measured_over_simulated"].get<double>(), 1, 2e-3);
  EXPECT_NEAR(rows["attention"]["measured_over_simulated"].get<double>(), 1, 2e-3);
  // What the record does not have stays as it was: the BF16 GEMMs.
  const auto before = rows_by_group(run_json({"kernels", kPlan, "--json"}));
  const double bf16 = before.at("gemm_16bit")["simulated_seconds"].get<double>();
  EXPECT_NEAR(rows["gemm_16bit"]["simulated_seconds"].get<double>(), bf16, 1e-9 * bf16);
  std::remove(out.c_str());
}

// Brigade's own trace as the record: a simulated trace of the same plan
// gives every group the simulator's own time (the same spans, read back),
// one step and the --device's spans; --measured-device picks another.
TEST(KernelsVerb, BrigadeTraceOfThePlanIsItsOwnRecord) {
  const std::string trace = ::testing::TempDir() + "/kernels_brigade_record.json.gz";
  auto sim = run_brigade({"simulate", kPlan, "--trace", trace, "--quiet"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const auto j = run_json({"kernels", kPlan, "--measured", trace, "--device", "3", "--json"});
  EXPECT_EQ(j["measured"]["format"], "brigade");
  EXPECT_EQ(j["measured"]["source"], "sim:flow");
  EXPECT_EQ(j["measured"]["device"], 3);
  EXPECT_EQ(j["measured"]["devices"], nlohmann::json::array({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(j["measured"]["steps"], 1);
  EXPECT_EQ(j["measured"]["gpus"], 1);
  size_t compared = 0;
  for (const auto& r : j["rows"]) {
    const double s = r["simulated_seconds"].get<double>();
    EXPECT_NEAR(r["measured_seconds"].get<double>(), s, 1e-9 * s) << r.dump();
    EXPECT_EQ(r["measured_kernels"], r["simulated_kernels"]) << r.dump();
    compared += s > 0;
  }
  EXPECT_GT(compared, 6u);
  EXPECT_TRUE(j["unnamed_measured_kernels"].empty());
  // Device 0's record against device 3: a data-parallel node, the same work.
  const auto other = run_json(
      {"kernels", kPlan, "--measured", trace, "--device", "3", "--measured-device", "0", "--json"});
  EXPECT_EQ(other["measured"]["device"], 0);
  EXPECT_EQ(other["measured"]["devices"], nlohmann::json::array({0}));  // the reader kept it
  auto rows = rows_by_group(other);
  EXPECT_DOUBLE_EQ(rows["gemm_fp8"]["measured_kernels"].get<double>(),
                   rows["gemm_fp8"]["simulated_kernels"].get<double>());
  auto text = run_brigade({"kernels", kPlan, "--measured", trace});
  EXPECT_NE(text.out.find("against " + trace +
                          " (Brigade's trace, source sim:flow, device 0; 1 step, 1 device: its "
                          "times / 1)"),
            std::string::npos)
      << text.out;
  // A Brigade trace is one step of one device: --steps and --gpus refused.
  auto steps = run_brigade({"kernels", kPlan, "--measured", trace, "--steps", "3"});
  EXPECT_EQ(steps.exit_code, 2);
  EXPECT_EQ(steps.err,
            "brigade: error: --steps: found '3'; expected it only with a profiler's record "
            "(Brigade's trace is one step of one device: --measured-device chooses which)\n");
  // Another plan's trace (here: the same scenario at another granularity).
  auto r = run_brigade({"kernels", kPlan, "--measured", trace, "--granularity", "region"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(trace + ": error: found task "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected a trace of this scenario's plan"), std::string::npos) << r.err;
  std::remove(trace.c_str());
}

// A trace of some devices: --device must be one of them; a window of the
// step is not a step.
TEST(KernelsVerb, PartialBrigadeTracesRefused) {
  const std::string trace = ::testing::TempDir() + "/kernels_partial_record.json";
  auto sim = run_brigade({"simulate", kPlan, "--trace", trace, "--trace-devices", "1", "--quiet"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  auto r = run_brigade({"kernels", kPlan, "--measured", trace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, trace +
                       ": error: found no span of device 0 in Brigade's trace; expected the "
                       "device --device compares (or --measured-device another)\n");
  auto one = run_brigade({"kernels", kPlan, "--measured", trace, "--device", "1"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  sim = run_brigade({"simulate", kPlan, "--trace", trace, "--trace-window", "0:1ms", "--quiet"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  r = run_brigade({"kernels", kPlan, "--measured", trace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("found a trace of part of the step"), std::string::npos) << r.err;
  std::remove(trace.c_str());
}

// A subtotal of nothing is not printed (one GPU: no communication), and
// stays in --json, whose rows keep one shape.
TEST(KernelsVerb, EmptySubtotalsLeftOutOfTheText) {
  const std::string one = kSource + "/scenarios/validation/gpu/transformer_h200.yaml";
  auto r = run_brigade({"kernels", one});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("communication and copies"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compute, all"), std::string::npos) << r.out;
  const auto j = run_json({"kernels", one, "--json"});
  EXPECT_TRUE(rows_by_group(j).count("communication_all"));
  auto node = run_brigade({"kernels", kPlan});  // eight GPUs: their collectives
  EXPECT_NE(node.out.find("communication and copies"), std::string::npos) << node.out;
}

// The CPU executor's trace of a plan: the same tasks ran, so every group
// has the simulated kernels' count (the times are this machine's).
TEST(KernelsVerb, ExecutedTraceHasThePlansKernels) {
  const std::string plan = kSource + "/scenarios/validation/tensor_parallel_transformer.yaml";
  const std::string trace = ::testing::TempDir() + "/kernels_executed_record.json";
  auto run = run_brigade({"execute", plan, "--repeat", "1", "--trace", trace, "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = run_json({"kernels", plan, "--measured", trace, "--device", "1", "--json"});
  EXPECT_EQ(j["measured"]["source"], "cpu");
  size_t compared = 0;
  for (const auto& r : j["rows"]) {
    EXPECT_EQ(r["measured_kernels"], r["simulated_kernels"]) << r.dump();
    EXPECT_GT(r["measured_seconds"].get<double>(), 0) << r.dump();
    compared += 1;
  }
  EXPECT_GT(compared, 6u);
  std::remove(trace.c_str());
}

TEST(KernelsVerb, BadInputIsOneLineAndExitTwo) {
  const auto expect_error = [](const std::vector<std::string>& args, const std::string& line) {
    auto r = run_brigade(args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.err, line + "\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
  };
  expect_error({"kernels", kPlan, "--measured", kNsys},
               "brigade: error: --steps: found nothing; expected how many steps the summary "
               "covers (nsys stats sums the whole capture)");
  expect_error({"kernels", kPlan, "--steps", "2"},
               "brigade: error: --steps: found '2' without --measured; expected --measured FILE "
               "beside it");
  expect_error({"kernels", kPlan, "--measured", kNsys, "--steps", "0"},
               "brigade: error: --steps: found '0'; expected a whole number >= 1");
  expect_error({"kernels", kPlan, "--device", "8"},
               "brigade: error: --device: found '8'; expected a device id below 8 (the plan's "
               "devices)");
  expect_error({"kernels", kPlan, "--measured", kPlan, "--steps", "1"},
               kPlan +
                   ": error: found no kernel row under a header with \"Total Time\", "
                   "\"Instances\" and \"Name\"; expected Nsight Systems' kernel summary (nsys "
                   "stats --report cuda_gpu_kern_sum --format csv) or PyTorch's profiler trace "
                   "(.json, .json.gz)");
  expect_error({"kernels", kPlan, "--out", "/tmp/never-written.yaml"},
               "brigade: error: --out: found '/tmp/never-written.yaml' without --measured; "
               "expected --measured FILE beside it");
  expect_error({"kernels", kPlan, "--measured", kNsys, "--steps", "2", "--granularity", "step",
                "--out", "/tmp/never-written.yaml"},
               "brigade: error: --out: found '/tmp/never-written.yaml'; expected a plan simulated "
               "kernel by kernel (fused runs have no one group: add --granularity kernel)");
  expect_error({"kernels", kPlan, "--measured", kNsys, "--measured-device", "0", "--steps", "1"},
               kNsys +
                   ": error: found Nsight Systems' summary with a device asked for; expected "
                   "PyTorch's profiler trace (an nsys summary sums every GPU: filter it with nsys "
                   "stats' own options)");
}

}  // namespace
}  // namespace brigade
