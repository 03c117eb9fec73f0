// The host lane (DeviceProfile::host_op_seconds; docs/simulator.md, "The
// host lane"): each device's host issues its tasks one after another, h a
// kernel apart, in the Program's order, and never waits for the device; a
// task starts no earlier than its issue. Every expectation below is worked
// by hand from the kernels' own durations (g, read from a run without a
// host lane) and h.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "sim/report.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::plain_profile;
using testing::star;

constexpr double kBytes = 64e6;  // a streaming kernel of some 40 us on an A100

Result<SimResult> run_with(const Program& p, const Topology& t, const HardwareProfile& h,
                           std::optional<double> host_op, double input = 0) {
  SimOptions o;
  o.host_op_seconds = host_op;
  o.runtime.input_seconds = input;
  return simulate(p, t, h, o);
}

double duration(const SimResult& r, TaskId t) {
  return r.task_end_seconds[static_cast<size_t>(t)] - r.task_start_seconds[static_cast<size_t>(t)];
}

// Four equal kernels on one stream. Host-bound (h = 2.5 g): kernel k is
// issued at k h and starts then, so the step is 4 h + g = 11 g. Device-bound
// (h = 0.5 g): the first waits h, the rest follow back to back: h + 4 g.
TEST(HostLane, KernelsStartNoEarlierThanTheirIssue) {
  const Topology t = star(1, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("four", 1);
  const StreamId s = b.stream(0, "compute");
  std::vector<TaskId> k;
  for (int i = 0; i < 4; ++i) k.push_back(b.add_memory_bound(s, kBytes, DType::kBF16, "k"));
  const Program p = build(std::move(b));
  auto base = run_with(p, t, h, std::nullopt);
  ASSERT_TRUE(base.is_ok()) << base.message();
  const double g = duration(*base, k[0]);
  ASSERT_GT(g, 0);
  EXPECT_NEAR(base->step_seconds, 4 * g, 1e-12);

  auto slow_host = run_with(p, t, h, 2.5 * g);
  ASSERT_TRUE(slow_host.is_ok()) << slow_host.message();
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(slow_host->task_start_seconds[static_cast<size_t>(k[i])], (i + 1) * 2.5 * g, 1e-12) << i;
  EXPECT_NEAR(slow_host->step_seconds, 11 * g, 1e-12);
  // The critical path runs through every kernel (each waited for its host).
  EXPECT_EQ(slow_host->critical_path, k);

  auto fast_host = run_with(p, t, h, 0.5 * g);
  ASSERT_TRUE(fast_host.is_ok()) << fast_host.message();
  EXPECT_NEAR(fast_host->step_seconds, 0.5 * g + 4 * g, 1e-12);
  // The idle time is the host's first issue.
  ASSERT_EQ(fast_host->devices.size(), 1u);
  EXPECT_NEAR(fast_host->devices[0].idle_seconds, 0.5 * g, 1e-12);

  // The report says where the path stood still: 11 g of step, 4 g of
  // kernels, 7 g waiting for the host's issue (h before the first, 1.5 g
  // between each two); none with a fast host but its first issue.
  const nlohmann::json j = simulation_json(*slow_host, p, t);
  EXPECT_NEAR(j["critical_path"]["wait_seconds"].get<double>(), 7 * g, 1e-12);
  EXPECT_NE(
      simulation_text(*slow_host, p, t)
          .find(", waiting " + format_seconds(7 * g) + " (for its host's issue, or the input)"),
      std::string::npos)
      << simulation_text(*slow_host, p, t);
  EXPECT_NEAR(simulation_json(*fast_host, p, t)["critical_path"]["wait_seconds"].get<double>(),
              0.5 * g, 1e-12);

  // h = 0 is no host lane at all: the same run, bit for bit.
  auto zero = run_with(p, t, h, 0.0);
  ASSERT_TRUE(zero.is_ok()) << zero.message();
  EXPECT_EQ(zero->step_seconds, base->step_seconds);
  EXPECT_EQ(zero->events, base->events);
}

// One host for two devices (SimOptions::devices_per_host; a process
// driving several GPUs): it issues both devices' tasks one after another in
// TaskId order. Three devices, four equal kernels each, built device by
// device but 0 and 1 alternating: 0, 1, 0, 1, ... then device 2's. With
// h = 2.5 g and two devices a host, host 0 issues device 0's kernels at h,
// 3h, 5h, 7h and device 1's at 2h, 4h, 6h, 8h, and each starts then
// (host-bound); device 2 has host 1 to itself: h, 2h, 3h, 4h. The step is
// 8h + g = 21 g, where a host per device gives 4h + g = 11 g.
TEST(HostLane, OneHostIssuesForTheDevicesItDrives) {
  const Topology t = star(3, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("shared", 3);
  const StreamId s0 = b.stream(0, "compute"), s1 = b.stream(1, "compute"),
                 s2 = b.stream(2, "compute");
  std::vector<TaskId> k0, k1, k2;
  for (int i = 0; i < 4; ++i) {
    k0.push_back(b.add_memory_bound(s0, kBytes, DType::kBF16, "a"));
    k1.push_back(b.add_memory_bound(s1, kBytes, DType::kBF16, "b"));
  }
  for (int i = 0; i < 4; ++i) k2.push_back(b.add_memory_bound(s2, kBytes, DType::kBF16, "c"));
  const Program p = build(std::move(b));
  auto base = run_with(p, t, h, std::nullopt);
  ASSERT_TRUE(base.is_ok()) << base.message();
  const double g = duration(*base, k0[0]), hop = 2.5 * g;

  SimOptions o;
  o.host_op_seconds = hop;
  o.record_trace = true;
  auto own = simulate(p, t, h, o);
  ASSERT_TRUE(own.is_ok()) << own.message();
  EXPECT_NEAR(own->step_seconds, 4 * hop + g, 1e-12);
  EXPECT_EQ(own->devices_per_host, 1);

  o.devices_per_host = 2;
  auto shared = simulate(p, t, h, o);
  ASSERT_TRUE(shared.is_ok()) << shared.message();
  auto start = [&](TaskId x) { return shared->task_start_seconds[static_cast<size_t>(x)]; };
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(start(k0[static_cast<size_t>(i)]), (2 * i + 1) * hop, 1e-12) << i;
    EXPECT_NEAR(start(k1[static_cast<size_t>(i)]), (2 * i + 2) * hop, 1e-12) << i;
    EXPECT_NEAR(start(k2[static_cast<size_t>(i)]), (i + 1) * hop, 1e-12) << i;
  }
  EXPECT_NEAR(shared->step_seconds, 8 * hop + g, 1e-12);
  EXPECT_EQ(shared->devices_per_host, 2);
  // Device 1's last kernel waited for its host, which had just issued
  // device 0's: the critical path goes through both devices' kernels.
  ASSERT_FALSE(shared->critical_path.empty());
  EXPECT_EQ(shared->critical_path.back(), k1[3]);
  EXPECT_EQ(shared->critical_path.size(), 8u);
  // Each device's host slices are its own tasks' issues, cut from the one
  // host's timeline: device 1's second slice is [3h, 4h].
  int on_one = 0;
  for (const HostSpan& x : shared->trace.host)
    if (x.task == k1[1]) {
      ++on_one;
      EXPECT_EQ(x.device, 1);
      EXPECT_NEAR(x.start_seconds, 3 * hop, 1e-15);
      EXPECT_NEAR(x.end_seconds, 4 * hop, 1e-15);
    }
  EXPECT_EQ(on_one, 1);
  // The report names the sharing.
  EXPECT_NE(simulation_text(*shared, p, t).find("(2 a host: simulation.devices_per_host)"),
            std::string::npos)
      << simulation_text(*shared, p, t);
  EXPECT_EQ(simulation_json(*shared, p, t)["kernels_per_step"]["devices_per_host"].get<int>(), 2);

  // Three a host (all of them): 12 issues, device 2's last at 12 h.
  o.devices_per_host = 3;
  auto all = simulate(p, t, h, o);
  ASSERT_TRUE(all.is_ok()) << all.message();
  EXPECT_NEAR(all->step_seconds, 12 * hop + g, 1e-12);
  // Without a host time, sharing changes nothing.
  o.host_op_seconds = 0.0;
  auto none = simulate(p, t, h, o);
  ASSERT_TRUE(none.is_ok()) << none.message();
  EXPECT_EQ(none->step_seconds, base->step_seconds);
  // Refused: no device has no host.
  o.devices_per_host = 0;
  o.host_op_seconds = hop;
  EXPECT_FALSE(simulate(p, t, h, o).is_ok());
}

// A fused task stands for its kernels (fused_kernels: a memory-bound task's
// batch), each of which its host issues: a task of 3 is issued at 3 h.
TEST(HostLane, AFusedTaskIsIssuedAsItsKernels) {
  const Topology t = star(1, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("fused", 1);
  const StreamId s = b.stream(0, "compute");
  const TaskId a = b.add_memory_bound(s, kBytes, DType::kBF16, "three");
  b.task(a).batch = 3;
  const TaskId c = b.add_gemm(s, 1024, 1024, 1024, DType::kBF16, "gemm");
  const Program p = build(std::move(b));
  const double hop = 1e-3;  // far above either kernel: host-bound
  auto r = run_with(p, t, h, hop);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_NEAR(r->task_start_seconds[static_cast<size_t>(a)], 3 * hop, 1e-12);
  EXPECT_NEAR(r->task_start_seconds[static_cast<size_t>(c)], 4 * hop, 1e-12);
}

// The issue order on a device with two streams: stream order, a task after
// its dependencies there, the lower TaskId first among those free to go.
// compute: A (task 0), C (task 2); comm: B (task 1) after A. Issued A, B,
// C at h, 2h, 3h; B and C wait for A as well. A dependency on another
// device does not hold the host back (it issues and goes on): device 1's D
// after A is issued at h and starts when A ends.
struct TwoStreams {
  Program p;
  TaskId a, bb, c, d;
};
TwoStreams two_streams_and_a_second_device() {
  ProgramBuilder b("order", 2);
  const StreamId compute = b.stream(0, "compute"), comm = b.stream(0, "comm");
  const TaskId a = b.add_memory_bound(compute, kBytes, DType::kBF16, "A");
  const TaskId bb = b.add_memory_bound(comm, kBytes, DType::kBF16, "B");
  b.depend(bb, a);
  const TaskId c = b.add_memory_bound(compute, kBytes, DType::kBF16, "C");
  const TaskId d = b.add_memory_bound(b.stream(1, "compute"), kBytes, DType::kBF16, "D");
  b.depend(d, a);
  return {build(std::move(b)), a, bb, c, d};
}

TEST(HostLane, EachDeviceIssuesInProgramOrderAndNeverWaits) {
  const Topology t = star(2, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  const auto [p, a, bb, c, d] = two_streams_and_a_second_device();
  auto base = run_with(p, t, h, std::nullopt);
  ASSERT_TRUE(base.is_ok()) << base.message();
  const double g = duration(*base, a);
  const double hop = 0.25 * g;
  auto r = run_with(p, t, h, hop);
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto start = [&](TaskId x) { return r->task_start_seconds[static_cast<size_t>(x)]; };
  EXPECT_NEAR(start(a), hop, 1e-12);
  EXPECT_NEAR(start(bb), hop + g, 1e-12);  // issued at 2h < A's end
  EXPECT_NEAR(start(c), hop + g, 1e-12);
  EXPECT_NEAR(start(d), hop + g, 1e-12);   // issued at h on device 1, waits for A
  // A slow host on device 0 (h = 2 g): C is issued at 3 h = 6 g, after A's
  // end (3 g), so it waits for its host, not for A.
  auto slow = run_with(p, t, h, 2 * g);
  ASSERT_TRUE(slow.is_ok()) << slow.message();
  EXPECT_NEAR(slow->task_start_seconds[static_cast<size_t>(c)], 6 * g, 1e-12);
  EXPECT_NEAR(slow->task_start_seconds[static_cast<size_t>(bb)], 4 * g, 1e-12);
}

// The trace keeps the host lane: one host slice per task, from its host's
// previous issue to its own, in issue order; none on a device the trace
// filter leaves out, and none without a host. With the Program above and
// h = g/4: A [0, h] and B [h, 2h], C [2h, 3h] on device 0; D [0, h] on 1.
TEST(HostLane, TheTraceHasAHostSliceForEveryIssue) {
  const Topology t = star(2, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  const auto [p, a, bb, c, d] = two_streams_and_a_second_device();
  auto base = run_with(p, t, h, std::nullopt);
  ASSERT_TRUE(base.is_ok()) << base.message();
  const double hop = 0.25 * duration(*base, a);
  SimOptions o;
  o.host_op_seconds = hop;
  o.record_trace = true;
  auto r = simulate(p, t, h, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  const std::vector<HostSpan>& host = r->trace.host;
  ASSERT_EQ(host.size(), 4u);
  struct Want {
    TaskId task;
    int device;
    double start, end;
  };
  const Want want[] = {
      {a, 0, 0, hop}, {bb, 0, hop, 2 * hop}, {c, 0, 2 * hop, 3 * hop}, {d, 1, 0, hop}};
  for (const Want& w : want) {
    int found = 0;
    for (const HostSpan& x : host)
      if (x.task == w.task) {
        ++found;
        EXPECT_EQ(x.device, w.device) << w.task;
        EXPECT_NEAR(x.start_seconds, w.start, 1e-15) << w.task;
        EXPECT_NEAR(x.end_seconds, w.end, 1e-15) << w.task;
        EXPECT_EQ(x.name, p.task(w.task).name);
        // The task starts no earlier than its issue.
        EXPECT_GE(r->task_start_seconds[static_cast<size_t>(w.task)], x.end_seconds - 1e-15);
      }
    EXPECT_EQ(found, 1) << w.task;
  }
  // The filter applies: device 1 alone keeps D's slice alone.
  o.trace_filter.devices = {1};
  auto one = simulate(p, t, h, o);
  ASSERT_TRUE(one.is_ok()) << one.message();
  ASSERT_EQ(one->trace.host.size(), 1u);
  EXPECT_EQ(one->trace.host[0].task, d);
  // No host, no host lane; the step's spans are the same.
  o.trace_filter = {};
  o.host_op_seconds = 0.0;
  auto none = simulate(p, t, h, o);
  ASSERT_TRUE(none.is_ok()) << none.message();
  EXPECT_TRUE(none->trace.host.empty());
  EXPECT_EQ(none->trace.spans.size(), r->trace.spans.size());
}

// A dependency on a task added later (the builder allows it): the host
// still issues a task after what it waits for on its device. compute: A
// (task 0), C (task 1) after B; comm: B (task 2). Issued A, B, C at h, 2h,
// 3h (not in TaskId order, which would put C before B).
TEST(HostLane, ADependencyOnALaterTaskIsIssuedFirst) {
  const Topology t = star(1, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("later", 1);
  const StreamId compute = b.stream(0, "compute"), comm = b.stream(0, "comm");
  const TaskId a = b.add_memory_bound(compute, kBytes, DType::kBF16, "A");
  const TaskId c = b.add_memory_bound(compute, kBytes, DType::kBF16, "C");
  const TaskId bb = b.add_memory_bound(comm, kBytes, DType::kBF16, "B");
  b.depend(c, bb);
  const Program p = build(std::move(b));
  const double hop = 1e-3;  // host-bound: every task starts at its issue
  auto r = run_with(p, t, h, hop);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_NEAR(r->task_start_seconds[static_cast<size_t>(a)], hop, 1e-12);
  EXPECT_NEAR(r->task_start_seconds[static_cast<size_t>(bb)], 2 * hop, 1e-12);
  EXPECT_NEAR(r->task_start_seconds[static_cast<size_t>(c)], 3 * hop, 1e-12);
}

// The host issues from the input pipeline's end (runtime.input_pipeline:
// it waits for the batch), and a collective's rank is issued like a kernel:
// the collective starts when its last rank has been issued.
TEST(HostLane, IssuesStartAfterTheInputAndCoverCollectives) {
  const Topology t = star(2, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("coll", 2);
  const StreamId s0 = b.stream(0, "compute"), s1 = b.stream(1, "compute");
  const TaskId k0 = b.add_memory_bound(s0, kBytes, DType::kBF16, "k0");
  const CollectiveId c = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1},
                                          1e6, {s0, s1}, "ar");
  const Program p = build(std::move(b));
  auto base = run_with(p, t, h, std::nullopt);
  ASSERT_TRUE(base.is_ok()) << base.message();
  const double g = duration(*base, k0);
  const double input = 1e-3, hop = 10 * g;
  auto r = run_with(p, t, h, hop, input);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_NEAR(r->task_start_seconds[static_cast<size_t>(k0)], input + hop, 1e-12);
  // Rank 0 is issued second on device 0 (2 h), rank 1 first on device 1 (h):
  // the collective runs from 2 h, as long as it ran alone before.
  const TaskId r0 = p.collectives()[static_cast<size_t>(c)].tasks[0];
  const TaskId r1 = p.collectives()[static_cast<size_t>(c)].tasks[1];
  const double ar = duration(*base, r0);
  EXPECT_NEAR(r->task_end_seconds[static_cast<size_t>(r0)], input + 2 * hop + ar, 1e-9);
  EXPECT_NEAR(r->task_end_seconds[static_cast<size_t>(r1)], input + 2 * hop + ar, 1e-9);
}

// The profile's value is the default; the option (a scenario's
// simulation.host_op_time) replaces it for every device; a negative or
// non-finite one is refused.
TEST(HostLane, ProfileValueAndOverride) {
  const Topology t = star(1, 100e9, 2e-6);
  HardwareProfile h = plain_profile();
  for (auto& d : h.devices) d.host_op_seconds = 1e-3;
  ProgramBuilder b("one", 1);
  const TaskId k = b.add_memory_bound(b.stream(0, "compute"), kBytes, DType::kBF16, "k");
  const Program p = build(std::move(b));
  auto from_profile = run_with(p, t, h, std::nullopt);
  ASSERT_TRUE(from_profile.is_ok()) << from_profile.message();
  EXPECT_NEAR(from_profile->task_start_seconds[static_cast<size_t>(k)], 1e-3, 1e-15);
  auto overridden = run_with(p, t, h, 2e-3);
  ASSERT_TRUE(overridden.is_ok()) << overridden.message();
  EXPECT_NEAR(overridden->task_start_seconds[static_cast<size_t>(k)], 2e-3, 1e-15);
  auto off = run_with(p, t, h, 0.0);
  ASSERT_TRUE(off.is_ok()) << off.message();
  EXPECT_EQ(off->task_start_seconds[static_cast<size_t>(k)], 0);
  auto bad = run_with(p, t, h, -1e-6);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("host time per operation"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("expected a duration >= 0"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace brigade::sim
