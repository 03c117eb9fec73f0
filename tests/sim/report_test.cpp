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

// The busiest device's kernels: a fused task counts the kernels it stands
// for (batch 5 here), a batched GEMM one launch, transfers none. gpu0 runs
// a GEMM (1) and a fused memory-bound task of 5 kernels: 6, its busy time
// over 6 on average; gpu1 one GEMM.
TEST(Report, KernelsAStepCountFusedTasksAsTheirKernels) {
  const Topology t = star(2, 100e9, 2e-6, LinkClass::kNvlink, 1e9);
  ProgramBuilder b("fused", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId c1 = b.stream(1, "compute");
  b.add_gemm(c0, 2048, 2048, 2048, DType::kBF16, "mm", Phase::kForward, 4);
  const TaskId f = b.add_memory_bound(c0, 1e9, DType::kBF16, "fused norms");
  b.task(f).batch = 5;
  b.add_transfer(c0, 1, 1e6, "send");
  b.add_gemm(c1, 256, 256, 256, DType::kBF16, "small");
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile());
  ASSERT_GT(r.devices[0].busy_seconds, r.devices[1].busy_seconds);
  const nlohmann::json j = simulation_json(r, p, t);
  EXPECT_EQ(j["kernels_per_step"]["device"], 0);
  EXPECT_EQ(j["kernels_per_step"]["kernels"], 6);
  EXPECT_DOUBLE_EQ(j["kernels_per_step"]["mean_kernel_seconds"].get<double>(),
                   r.devices[0].busy_seconds / 6);
  EXPECT_NE(simulation_text(r, p, t)
                .find("kernels a step: 6 on gpu0 (the busiest), " +
                      format_seconds(r.devices[0].busy_seconds / 6) + " each on average"),
            std::string::npos);
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
  EXPECT_NE(s.find("busiest links"), std::string::npos);
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
  EXPECT_FALSE(simulation_json(r, p, t).contains("off_link_bytes"));
}

// Bytes NCCL's collectives moved on channels of their own (SimResult::
// off_link_bytes; tests/sim/nccl_collective_test.cpp counts them) are said
// apart from the links, in the text and the JSON, and a step whose links
// carried nothing else does not say that no bytes moved.
TEST(Report, BytesOffTheLinksAreSaidApart) {
  const Topology t = star(2, 100e9, 2e-6);
  ProgramBuilder b("off", 2);
  b.add_gemm(b.stream(0, "compute"), 1024, 1024, 1024, DType::kBF16, "mm");
  const Program p = build(std::move(b));
  SimResult r = run(p, t, plain_profile());
  r.off_link_bytes = 3 * 1073741824.0;
  const std::string s = simulation_text(r, p, t);
  EXPECT_NE(s.find("links: no bytes crossed a link of the topology (below)"), std::string::npos) << s;
  EXPECT_NE(s.find("and 3.00 GiB on no link"), std::string::npos) << s;
  EXPECT_EQ(simulation_json(r, p, t)["off_link_bytes"].get<double>(), 3 * 1073741824.0);
}

}  // namespace
}  // namespace brigade::sim

namespace brigade::sim {
namespace {

using testing::build;
using testing::plain_profile;
using testing::run;
using testing::star;

// Issue 18 item 10: a link is as used as the bytes it carried against what it
// could have carried in the step, bytes / (capacity x step); the time any
// flow was on it is its occupancy. One 16 MiB transfer at 10 GB/s (1.6777 ms
// of a 10.0 ms step) uses its channel 16.8%; a channel that carried 1 KiB
// over 9 ms of the step is 90% occupied but 0.001% used: it must not rank first.
TEST(Report, LinkUtilisationIsBytesOverCapacityTimesStep) {
  const Topology t = star(2, 10e9, 0);
  ProgramBuilder b("one-send", 2);
  const StreamId c0 = b.stream(0, "compute");
  const TaskId s = b.add_transfer(c0, 1, 16777216.0, "send");
  const TaskId k = b.add_fixed(b.stream(1, "compute"), 0, 0, DType::kF32, "wait");
  b.depend(k, s);
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile());
  const LinkStats& up = r.links[0];  // gpu0->sw
  ASSERT_EQ(up.bytes, 16777216.0);
  EXPECT_DOUBLE_EQ(up.capacity_bytes_per_second, 10e9);
  EXPECT_NEAR(up.utilization, 16777216.0 / (10e9 * r.step_seconds), 1e-12);
  EXPECT_NEAR(up.occupancy, up.busy_seconds / r.step_seconds, 1e-12);

  // Ranking in the text report: utilisation first, occupancy beside it.
  SimResult fake = r;
  fake.step_seconds = 0.010;
  fake.links.resize(2);
  fake.links[0] = {"big->sw", 0, 16777216.0, 1.6777216e-3, 16777216.0 / (10e9 * 0.010), 1.6777216e-3 / 0.010, 10e9};
  fake.links[1] = {"trickle->sw", 1, 1024.0, 9e-3, 1024.0 / (10e9 * 0.010), 0.9, 10e9};
  const std::string text = simulation_text(fake, p, t);
  const size_t big = text.find("big->sw"), trickle = text.find("trickle->sw");
  ASSERT_NE(big, std::string::npos) << text;
  ASSERT_NE(trickle, std::string::npos) << text;
  EXPECT_LT(big, trickle) << text;
  EXPECT_NE(text.find("used"), std::string::npos) << text;
  EXPECT_NE(text.find("occupied"), std::string::npos) << text;
  const nlohmann::json j = simulation_json(fake, p, t);
  EXPECT_DOUBLE_EQ(j["links"][1]["occupancy"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(j["links"][0]["capacity_bytes_per_second"].get<double>(), 10e9);
}

// Issue 18 item 11: "idle" counted communication as idle (busy + idle = step:
// a lone ring AllReduce showed "comm 7.86 ms, idle 7.86 ms"). Idle is the
// time a device neither computes nor communicates.
TEST(Report, IdleIsNeitherComputingNorCommunicating) {
  const Topology t = star(2, 10e9, 1e-6);
  ProgramBuilder b("allreduce", 2);
  const CollectiveId c = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1},
                                          1e8, {b.stream(0, "comm"), b.stream(1, "comm")}, "ar");
  (void)c;
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile());
  for (const DeviceStats& d : r.devices) {
    EXPECT_NEAR(d.comm_seconds, r.step_seconds, 1e-12);
    EXPECT_EQ(d.busy_seconds, 0.0);
    EXPECT_NEAR(d.idle_seconds, 0.0, 1e-12);
  }
  // A kernel, then a transfer: idle is what is left of the step on the receiver.
  ProgramBuilder b2("kernel-then-send", 2);
  const StreamId s0 = b2.stream(0, "compute");
  b2.add_fixed(s0, 1e12, 0, DType::kF32, "k");
  b2.add_transfer(s0, 1, 1e8, "send");
  const Program p2 = build(std::move(b2));
  const SimResult r2 = run(p2, t, plain_profile());
  const DeviceStats& d0 = r2.devices[0];
  EXPECT_NEAR(d0.busy_seconds + d0.comm_seconds + d0.idle_seconds, r2.step_seconds, 1e-12);
  EXPECT_NEAR(d0.idle_seconds, 0.0, 1e-12);
  EXPECT_NEAR(r2.devices[1].idle_seconds, r2.step_seconds, 1e-12);  // the receiver never computes or sends
}

// Issue 18 item 13: the OOM report listed the five largest single buffers, so
// 78 GiB of activations in 160 buffers went unmentioned while a 2 GiB
// optimizer state came first. It reports live bytes by category at the moment
// of the overflow, then the largest buffers.
TEST(Report, OomSaysWhatIsLiveByCategory) {
  const Topology t = star(1, 10e9, 0, LinkClass::kNvlink, 20e9);
  ProgramBuilder b("oom", 1);
  const StreamId c = b.stream(0, "compute");
  b.add_buffer("optimizer state", 0, 2e9, MemoryCategory::kOptimizer, true);
  for (int i = 0; i < 20; ++i) {
    const BufferId a = b.add_buffer("act" + std::to_string(i), 0, 1e9, MemoryCategory::kActivations);
    const TaskId k = b.add_fixed(c, 1e9, 0, DType::kF32, "fwd" + std::to_string(i));
    b.alloc(k, a);
  }
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile());
  ASSERT_EQ(r.oom.size(), 1u);
  const OomEvent& e = r.oom[0];
  // 2 GB + 19 x 1 GB = 21 GB > 20 GB at the 19th activation.
  EXPECT_DOUBLE_EQ(e.live_bytes, 21e9);
  const auto act = static_cast<size_t>(MemoryCategory::kActivations);
  const auto opt = static_cast<size_t>(MemoryCategory::kOptimizer);
  EXPECT_DOUBLE_EQ(e.live_by_category[act], 19e9);
  EXPECT_EQ(e.buffers_by_category[act], 19);
  EXPECT_DOUBLE_EQ(e.live_by_category[opt], 2e9);
  EXPECT_EQ(e.buffers_by_category[opt], 1);
  const std::string text = simulation_text(r, p, t);
  const size_t by_category = text.find("activations " + format_bytes(19e9) + " in 19 buffers");
  const size_t largest = text.find("largest");
  ASSERT_NE(by_category, std::string::npos) << text;
  ASSERT_NE(largest, std::string::npos) << text;
  EXPECT_LT(by_category, largest) << text;
  const nlohmann::json j = simulation_json(r, p, t);
  EXPECT_DOUBLE_EQ(j["oom"][0]["live_by_category"]["activations"]["bytes"].get<double>(), 19e9);
  EXPECT_EQ(j["oom"][0]["live_by_category"]["activations"]["buffers"].get<int>(), 19);
}

}  // namespace
}  // namespace brigade::sim
