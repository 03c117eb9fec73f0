// `brigade simulate --trace FILE[.json.gz] --trace-devices --trace-window
// --trace-steps`: gzip output that reads back, filters recorded in the trace,
// and bad flags in the house form (exit 2, no file).
#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "core/trace.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

std::string scenario(const char* name) {
  return std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + name;
}

std::string temp_path(const char* suffix) {
  return std::string("/tmp/brigade-trace-flags-test-") + std::to_string(::getpid()) + suffix;
}

TEST(TraceFlags, GzipTraceWithFiltersReadsBack) {
  const std::string path = temp_path(".json.gz");
  auto r = run_brigade({"simulate", scenario("pmap_train_step.yaml"), "--trace", path,
                        "--trace-devices", "1-2", "--trace-window", "0:1s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto t = read_chrome_trace_file(path);
  std::remove(path.c_str());
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_EQ(t->filter, "devices 1-2; window 0 s to 1.00 s");
  ASSERT_FALSE(t->spans.empty());
  for (const TraceSpan& s : t->spans) EXPECT_TRUE(s.device == 1 || s.device == 2) << s.device;
  for (const TraceTransfer& x : t->transfers)
    EXPECT_TRUE(x.src == 1 || x.src == 2 || x.dst == 1 || x.dst == 2);
  EXPECT_EQ(t->device_names.size(), 4u);  // the tables stay whole
}

TEST(TraceFlags, StepsGiveAsManyTransfersAsMessagesOrMore) {
  const std::string merged = temp_path(".m.json"), steps = temp_path(".s.json");
  ASSERT_EQ(
      run_brigade({"simulate", scenario("ring_allreduce_8.yaml"), "--trace", merged}).exit_code, 0);
  ASSERT_EQ(run_brigade(
                {"simulate", scenario("ring_allreduce_8.yaml"), "--trace", steps, "--trace-steps"})
                .exit_code,
            0);
  auto m = read_chrome_trace_file(merged), s = read_chrome_trace_file(steps);
  std::remove(merged.c_str());
  std::remove(steps.c_str());
  ASSERT_TRUE(m.is_ok() && s.is_ok());
  // One ring AllReduce over 8 GPUs: 2 x 7 steps from each rank to the next,
  // back to back: 112 messages, or 8 runs of them.
  EXPECT_EQ(s->transfers.size(), 112u);
  EXPECT_EQ(m->transfers.size(), 8u);
}

struct BadFlag {
  std::vector<std::string> args;
  std::string error;
};

class BadTraceFlag : public ::testing::TestWithParam<BadFlag> {};

TEST_P(BadTraceFlag, ExitsTwoWithOneLineAndNoFile) {
  const std::string path = temp_path(".bad.json");
  std::vector<std::string> args = {"simulate", scenario("pmap_train_step.yaml")};
  for (const std::string& a : GetParam().args) args.push_back(a == "PATH" ? path : a);
  auto r = run_brigade(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, GetParam().error + "\n");
  EXPECT_FALSE(std::filesystem::exists(path));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadTraceFlag,
    ::testing::Values(
        BadFlag{{"--trace", "PATH", "--trace-devices", "7-0"},
                "brigade: error: --trace-devices: found '7-0'; expected a device list such as "
                "0-7,64 (ids "
                "and ranges A-B, A <= B)"},
        BadFlag{
            {"--trace", "PATH", "--trace-devices", "0-9"},
            "brigade: error: --trace-devices: found '0-9'; expected device ids below 4 (the plan's "
            "devices)"},
        BadFlag{{"--trace", "PATH", "--trace-window", "50ms:10ms"},
                "brigade: error: --trace-window: found '50ms:10ms'; expected a window START:END "
                "such as "
                "0:50ms or 1s: (durations with units, START < END; either may be left out)"},
        BadFlag{
            {"--trace-devices", "0-1"},
            "brigade: error: --trace-devices: found '0-1' without --trace; expected --trace FILE "
            "beside it"},
        BadFlag{
            {"--trace-window", "0:1ms"},
            "brigade: error: --trace-window: found '0:1ms' without --trace; expected --trace FILE "
            "beside it"},
        BadFlag{{"--trace-steps"},
                "brigade: error: --trace-steps: found it without --trace; expected --trace FILE "
                "beside it"}));

}  // namespace
}  // namespace brigade
