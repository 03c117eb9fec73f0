// The simulation reports: the JSON fields the CLI and GUI rely on, and the
// text report's content.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "sim/report.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::plain_profile;
using testing::run;
using testing::star;

Program tiny(double memory_hungry_bytes) {
  ProgramBuilder b("tiny", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId c1 = b.stream(1, "compute");
  const BufferId big = b.add_buffer("huge-activation", 1, memory_hungry_bytes, MemoryCategory::kActivations);
  const TaskId k = b.add_gemm(c0, 2048, 2048, 2048, DType::kBF16, "mm");
  const TaskId s = b.add_transfer(c0, 1, 1e8, "send");
  const TaskId u = b.add_gemm(c1, 2048, 2048, 2048, DType::kBF16, "use");
  b.depend(u, s);
  b.alloc(u, big);
  b.free(u, big);
  (void)k;
  return build(std::move(b));
}

TEST(Report, JsonHasTheFieldsTheCliPromises) {
  const Topology t = star(2, 100e9, 2e-6, LinkClass::kNvlink, 1e9);
  const Program p = tiny(2e9);
  const SimResult r = run(p, t, plain_profile());
  const nlohmann::json j = simulation_json(r, p, t);
  EXPECT_EQ(j["step_seconds"].get<double>(), r.step_seconds);
  EXPECT_EQ(j["events"].get<std::int64_t>(), r.events);
  ASSERT_EQ(j["devices"].size(), 2u);
  for (const char* key : {"id", "busy_seconds", "comm_seconds", "idle_seconds", "peak_memory_bytes",
                          "exposed_comm_seconds"})
    EXPECT_TRUE(j["devices"][0].contains(key)) << key;
  EXPECT_EQ(j["devices"][1]["peak_memory_bytes"].get<double>(), 2e9);
  // Only the two channels the transfer crossed carried bytes.
  ASSERT_EQ(j["links"].size(), 2u);
  EXPECT_EQ(j["links"][0]["name"], "gpu0->sw");
  EXPECT_EQ(j["links"][0]["bytes"].get<double>(), 1e8);
  EXPECT_TRUE(j["links"][0].contains("utilization"));
  ASSERT_EQ(j["oom"].size(), 1u);
  EXPECT_EQ(j["oom"][0]["device"], 1);
  EXPECT_EQ(j["oom"][0]["task_name"], "use");
  EXPECT_EQ(j["oom"][0]["largest_buffers"][0]["name"], "huge-activation");
  EXPECT_EQ(j["critical_path"]["tasks"], 3);
}

TEST(Report, TextNamesStepDevicesPathLinksAndOom) {
  const Topology t = star(2, 100e9, 2e-6, LinkClass::kNvlink, 1e9);
  const Program p = tiny(2e9);
  const SimResult r = run(p, t, plain_profile());
  const std::string s = simulation_text(r, p, t);
  EXPECT_NE(s.find("step time: " + format_seconds(r.step_seconds)), std::string::npos) << s;
  EXPECT_NE(s.find("gpu1"), std::string::npos);
  EXPECT_NE(s.find("critical path: 3 tasks"), std::string::npos) << s;
  EXPECT_NE(s.find("gpu0/compute"), std::string::npos) << s;
  EXPECT_NE(s.find("busiest links:"), std::string::npos);
  EXPECT_NE(s.find("gpu0->sw"), std::string::npos);
  EXPECT_NE(s.find("OUT OF MEMORY: gpu1"), std::string::npos) << s;
  EXPECT_NE(s.find("huge-activation"), std::string::npos);
  const Program fits = tiny(1e6);
  const SimResult ok = run(fits, t, plain_profile());
  EXPECT_NE(simulation_text(ok, fits, t).find("out of memory: none"), std::string::npos);
}

TEST(Report, ManyDevicesAreSummarised) {
  // 20 devices: the text lists 8 and summarises the rest; JSON lists all.
  const Topology t = star(20, 100e9, 2e-6);
  ProgramBuilder b("wide", 20);
  for (int d = 0; d < 20; ++d) b.add_gemm(b.stream(d, "compute"), 1024 * (d + 1), 1024, 1024, DType::kBF16, "mm");
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile());
  const std::string s = simulation_text(r, p, t);
  EXPECT_NE(s.find("... 12 more devices (--json lists them all)"), std::string::npos) << s;
  EXPECT_NE(s.find("busy         min"), std::string::npos) << s;
  EXPECT_EQ(simulation_json(r, p, t)["devices"].size(), 20u);
  EXPECT_NE(s.find("links: no bytes crossed any link"), std::string::npos);
}

}  // namespace
}  // namespace brigade::sim
