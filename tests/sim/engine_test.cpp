// Program semantics in the simulator (docs/ARCHITECTURE.md, "Program
// semantics"): stream order, cross-stream and cross-device dependencies,
// speed factors, memory and OOM, critical path, exposed communication, bad
// input.
#include <gtest/gtest.h>

#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::kGiB;
using testing::plain_profile;
using testing::rel_err;
using testing::run;
using testing::star;

// The roofline time of a GEMM on an A100 under a profile (core's formula,
// not restated here).
double gemm_seconds(const Topology& t, const HardwareProfile& h, double m, double n, double k) {
  const Device& d = t.device(0);
  const auto mi = static_cast<std::int64_t>(m), ni = static_cast<std::int64_t>(n), ki = static_cast<std::int64_t>(k);
  // As the engine times a GEMM task: with its shape (a profile's wave model).
  return kernel_seconds(d, h.for_device(d), DType::kBF16, gemm_flops(mi, ni, ki),
                        gemm_bytes(mi, ni, ki, DType::kBF16), ComputeKind::kGemm,
                        gemm_written_bytes(mi, ni, DType::kBF16), KernelClass::kGeneric, 0, 0, 1,
                        GemmShape{mi, ni, ki, 1});
}

TEST(Engine, StreamOrderAndCrossStreamDependencies) {
  // Device 0: stream A runs a then b; stream B runs c, which waits for a, and
  // d, which waits for nothing. Expected (g = one GEMM's time):
  //   a [0, g], b [g, 2g] (stream order), c [g, 2g] (dep), d [0, g] (concurrent).
  const Topology t = star(1, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("streams", 1);
  const StreamId sa = b.stream(0, "A");
  const StreamId sb = b.stream(0, "B");
  const TaskId a = b.add_gemm(sa, 1024, 1024, 1024, DType::kBF16, "a");
  const TaskId bb = b.add_gemm(sa, 1024, 1024, 1024, DType::kBF16, "b");
  const TaskId c = b.add_gemm(sb, 1024, 1024, 1024, DType::kBF16, "c");
  b.depend(c, a);
  const Program p = build(std::move(b));
  const double g = gemm_seconds(t, h, 1024, 1024, 1024);
  const SimResult r = run(p, t, h);
  EXPECT_EQ(r.task_start_seconds[static_cast<size_t>(a)], 0);
  EXPECT_DOUBLE_EQ(r.task_start_seconds[static_cast<size_t>(bb)], g);
  EXPECT_DOUBLE_EQ(r.task_start_seconds[static_cast<size_t>(c)], g);
  EXPECT_DOUBLE_EQ(r.step_seconds, 2 * g);
  // Two kernels overlapped during [g, 2g]: busy is their union.
  EXPECT_DOUBLE_EQ(r.devices[0].busy_seconds, 2 * g);
}

TEST(Engine, IndependentStreamsRunConcurrently) {
  const Topology t = star(1, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("conc", 1);
  const TaskId x = b.add_gemm(b.stream(0, "A"), 2048, 2048, 2048, DType::kBF16, "x");
  const TaskId y = b.add_gemm(b.stream(0, "B"), 2048, 2048, 2048, DType::kBF16, "y");
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, h);
  EXPECT_EQ(r.task_start_seconds[static_cast<size_t>(x)], 0);
  EXPECT_EQ(r.task_start_seconds[static_cast<size_t>(y)], 0);
  EXPECT_DOUBLE_EQ(r.step_seconds, gemm_seconds(t, h, 2048, 2048, 2048));
}

TEST(Engine, CrossDeviceDependencyWaitsForTheTransfer) {
  // Device 0 computes a, then sends M = 100 MB to device 1; device 1's b
  // depends on the transfer: b starts at g + alpha + M/B
  //   = g + 2e-6 + 1e8 / 1e11 = g + 0.001002 s.
  const Topology t = star(2, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("xdev", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId c1 = b.stream(1, "compute");
  const TaskId a = b.add_gemm(c0, 1024, 1024, 1024, DType::kBF16, "a");
  const TaskId x = b.add_transfer(c0, 1, 1e8, "send");
  const TaskId bb = b.add_gemm(c1, 1024, 1024, 1024, DType::kBF16, "b");
  b.depend(bb, x);
  const Program p = build(std::move(b));
  const double g = gemm_seconds(t, h, 1024, 1024, 1024);
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const SimResult r = run(p, t, h, net);
    EXPECT_DOUBLE_EQ(r.task_start_seconds[static_cast<size_t>(x)], g);
    EXPECT_LT(rel_err(r.task_start_seconds[static_cast<size_t>(bb)], g + 0.001002), 1e-12);
    EXPECT_LT(rel_err(r.step_seconds, 2 * g + 0.001002), 1e-12);
    // The critical path: a, the transfer, b.
    EXPECT_EQ(r.critical_path, (std::vector<TaskId>{a, x, bb}));
    // Two uplink/downlink channels carried the bytes.
    EXPECT_EQ(r.links[0].bytes, 1e8);  // gpu0->sw
    EXPECT_EQ(r.links[3].bytes, 1e8);  // sw->gpu1
    EXPECT_EQ(r.links[1].bytes, 0);
  }
}

TEST(Engine, StragglerAtHalfSpeedDoublesItsCompute) {
  const Topology t = star(2, 100e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("speed", 2);
  const TaskId x0 = b.add_gemm(b.stream(0, "compute"), 4096, 4096, 4096, DType::kBF16, "mm");
  const TaskId x1 = b.add_gemm(b.stream(1, "compute"), 4096, 4096, 4096, DType::kBF16, "mm");
  const Program p = build(std::move(b));
  SimOptions o;
  o.speed[1] = 0.5;
  auto r = simulate(p, t, h, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  const double d0 = r->task_end_seconds[static_cast<size_t>(x0)];
  const double d1 = r->task_end_seconds[static_cast<size_t>(x1)];
  EXPECT_DOUBLE_EQ(d1, 2 * d0);
  EXPECT_DOUBLE_EQ(r->step_seconds, d1);
  EXPECT_DOUBLE_EQ(r->devices[0].idle_seconds, d1 - d0);
}

TEST(Engine, SpeedFactorMustBePositive) {
  const Topology t = star(1, 100e9, 2e-6);
  ProgramBuilder b("speed", 1);
  b.add_fixed(b.stream(0, "compute"), 1e9, 0, DType::kF32, "k");
  const Program p = build(std::move(b));
  SimOptions o;
  o.speed[0] = 0;
  auto r = simulate(p, t, plain_profile(), o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), "program 'speed': speed factor 0 for device 0; expected a positive factor");
}

// A memory speed factor moves the device's streaming kernels alone; its
// GEMMs keep the device's speed factor. By hand: the 1 GB kernel of the test
// below takes 2 us + 1e9 / (2039e9 x 0.85) = 579.0 us at speed 1, 1158 us
// at memory speed 0.5; the GEMM keeps its time at speed 1.
TEST(Engine, MemorySpeedMovesStreamingKernelsAlone) {
  const Topology t = star(1, 100e9, 2e-6);
  const HardwareProfile h = HardwareProfile::defaults();
  ProgramBuilder b("mem-speed", 1);
  const StreamId s = b.stream(0, "compute");
  const TaskId g = b.add_gemm(s, 4096, 4096, 4096, DType::kBF16, "mm");
  const TaskId k = b.add_memory_bound(s, 1e9, DType::kBF16, "norm");
  const Program p = build(std::move(b));
  auto r1 = simulate(p, t, h, SimOptions{});
  SimOptions o;
  o.memory_speed[0] = 0.5;
  auto r = simulate(p, t, h, o);
  ASSERT_TRUE(r.is_ok() && r1.is_ok());
  auto dur = [](const SimResult& x, TaskId i) {
    return x.task_end_seconds[static_cast<size_t>(i)] - x.task_start_seconds[static_cast<size_t>(i)];
  };
  EXPECT_DOUBLE_EQ(dur(*r, g), dur(*r1, g));
  // launch 5.279 us (the presets' measured gap, core/presets_profiles.cpp) + 1 GB at 2039 GB/s x 0.85.
  EXPECT_LT(rel_err(dur(*r, k), 2 * (5.278783798217772e-6 + 1e9 / (2039e9 * 0.85))), 1e-12);
  o.memory_speed[0] = -1;
  auto bad = simulate(p, t, h, o);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message(),
            "program 'mem-speed': memory speed factor -1 for device 0; expected a positive factor");
}

TEST(Engine, ExposedCommunicationIsCommWhileComputeIdles) {
  // Device 0 runs a kernel of g seconds on "compute" and, from time 0, sends
  // M bytes on "xfer" taking T = alpha + M/B > g. Busy = g; comm = T;
  // exposed = T - g; idle 0 (it always computes or communicates).
  const Topology t = star(2, 10e9, 2e-6);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("overlap", 2);
  b.add_gemm(b.stream(0, "compute"), 1024, 1024, 1024, DType::kBF16, "mm");
  b.add_transfer(b.stream(0, "xfer"), 1, 1e8, "send");
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, h);
  const double g = gemm_seconds(t, h, 1024, 1024, 1024);
  const double tx = 2e-6 + 1e8 / 10e9;
  ASSERT_GT(tx, g);
  EXPECT_DOUBLE_EQ(r.devices[0].busy_seconds, g);
  EXPECT_DOUBLE_EQ(r.devices[0].comm_seconds, tx);
  EXPECT_NEAR(r.devices[0].exposed_comm_seconds, tx - g, 1e-15);
  EXPECT_DOUBLE_EQ(r.devices[0].idle_seconds, 0.0);
  // The receiver has no task: all idle, no communication of its own.
  EXPECT_EQ(r.devices[1].comm_seconds, 0);
  EXPECT_DOUBLE_EQ(r.devices[1].idle_seconds, r.step_seconds);
}

// Communication that takes its device's processor (DeviceProfile::
// comm_compute_share = s): device 0 runs a kernel of g seconds and, from
// time 0, sends M bytes taking T seconds. The kernel loses s of every second
// both run, so it ends at E = g + s min(E, T):
//   T < g, s = 1:   E = g + T
//   T < g, s = 0.5: E = g + T/2
//   T > g, s = 0.5: E = g + E/2 while E <= T, E = 2g (if 2g <= T)
//   T > g, s = 1:   the kernel is frozen while the transfer runs, E = T + g
// in extensions of at least 1 us (so E within 1 us). s = 0: E = g.
// An exact simulation of `p` under the plain profile with every device's
// comm_compute_share set to `share`.
Result<SimResult> simulate_with_share(const Program& p, const Topology& t, double share) {
  HardwareProfile h = plain_profile();
  for (DeviceProfile& d : h.devices) d.comm_compute_share = share;
  SimOptions o;
  o.exact = true;
  return simulate(p, t, h, o);
}

TEST(Engine, CommunicationSharingTheProcessorDelaysTheKernel) {
  const Topology t = star(2, 10e9, 2e-6);
  const double g = gemm_seconds(t, plain_profile(), 1024, 1024, 1024);
  for (double share : {0.0, 0.5, 1.0})
    for (double ratio : {0.4, 3.0}) {  // T / g
      const double tx = ratio * g;
      ProgramBuilder b("share", 2);
      const TaskId k = b.add_gemm(b.stream(0, "compute"), 1024, 1024, 1024, DType::kBF16, "mm");
      b.add_transfer(b.stream(0, "xfer"), 1, (tx - 2e-6) * 10e9, "send");
      const Program p = build(std::move(b));
      auto r = simulate_with_share(p, t, share);
      ASSERT_TRUE(r.is_ok()) << r.message();
      double want = g;
      if (share > 0 && ratio < 1) want = g + share * tx;
      if (share == 0.5 && ratio > 1) want = 2 * g;
      if (share == 1 && ratio > 1) want = tx + g;
      EXPECT_NEAR(r->task_end_seconds[static_cast<size_t>(k)], want, 1.01e-6)
          << "share " << share << ", T/g " << ratio;
    }
}

TEST(Engine, AKernelReadyWhileCommunicationHoldsTheCoreStartsWhenItEnds) {
  // docs/simulator.md, "Approximations": with a share of 1 a kernel that
  // becomes ready while its device communicates cannot progress, so it
  // starts when the communication ends (the CPU executor's compute thread,
  // in SCHED_IDLE, does not run before): a short kernel `a` of e seconds on
  // device 1, then the GEMM of g on device 0 (it depends on `a`), beside a
  // transfer of T = 20g from device 0 from time 0. Share 1: the GEMM's span
  // is [T, T + g] and the whole transfer is exposed; share 0: [e, e + g]
  // and the transfer is exposed but for those g seconds.
  const Topology t = star(2, 10e9, 2e-6);
  const double g = gemm_seconds(t, plain_profile(), 1024, 1024, 1024);
  const double tx = 20 * g;
  for (double share : {0.0, 1.0}) {
    ProgramBuilder b("held", 2);
    const TaskId a = b.add_fixed(b.stream(1, "compute"), 1e6, 0, DType::kF32, "a");
    const TaskId k = b.add_gemm(b.stream(0, "compute"), 1024, 1024, 1024, DType::kBF16, "mm");
    b.depend(k, a);
    b.add_transfer(b.stream(0, "xfer"), 1, (tx - 2e-6) * 10e9, "send");
    const Program p = build(std::move(b));
    auto r = simulate_with_share(p, t, share);
    ASSERT_TRUE(r.is_ok()) << r.message();
    const double e = r->task_end_seconds[static_cast<size_t>(a)];
    ASSERT_GT(e, 0.0);
    ASSERT_LT(e, 0.1 * tx);
    const double start = share == 1 ? tx : e;
    EXPECT_NEAR(r->task_start_seconds[static_cast<size_t>(k)], start, 1e-9) << "share " << share;
    EXPECT_NEAR(r->task_end_seconds[static_cast<size_t>(k)], start + g, 1e-9) << "share " << share;
    EXPECT_NEAR(r->devices[0].exposed_comm_seconds, share == 1 ? tx : tx - g, 1e-9)
        << "share " << share;
  }
}

TEST(Engine, AtOneInstantCommunicationStartsBeforeKernels) {
  // Data parallelism's overlap (docs/simulator.md): a gradient's AllReduce
  // (on dp-comm) and the next backward kernel `b` (on compute) both become
  // ready when kernel `a` ends. With a share of 1 the AllReduce starts
  // first and `b` waits for its end (the CPU executor's communication
  // thread takes the core at once); with a share of 0 `b` starts at a's end.
  const Topology t = star(2, 10e9, 2e-6);
  for (double share : {0.0, 1.0}) {
    ProgramBuilder b("tie", 2);
    std::vector<TaskId> a(2), k(2);
    std::vector<StreamId> comm(2);
    for (int d = 0; d < 2; ++d) {
      const StreamId s = b.stream(d, "compute");
      comm[static_cast<size_t>(d)] = b.stream(d, "dp-comm");
      a[static_cast<size_t>(d)] = b.add_gemm(s, 512, 512, 512, DType::kBF16, "a");
      k[static_cast<size_t>(d)] = b.add_gemm(s, 512, 512, 512, DType::kBF16, "b");
    }
    const CollectiveId ar = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                             {0, 1}, 1e6, comm, "grad");
    for (int d = 0; d < 2; ++d)
      b.depend(b.collective_task(ar, d), a[static_cast<size_t>(d)]);
    const Program p = build(std::move(b));
    auto r = simulate_with_share(p, t, share);
    ASSERT_TRUE(r.is_ok()) << r.message();
    const TaskId rank0 = p.collectives()[static_cast<size_t>(ar)].tasks[0];
    const double a_end = r->task_end_seconds[static_cast<size_t>(a[0])];
    const double ar_end = r->task_end_seconds[static_cast<size_t>(rank0)];
    ASSERT_GT(ar_end, a_end);
    for (int d = 0; d < 2; ++d)
      EXPECT_DOUBLE_EQ(r->task_start_seconds[static_cast<size_t>(k[static_cast<size_t>(d)])],
                       share == 1 ? ar_end : a_end)
          << "share " << share << ", device " << d;
  }
}

TEST(Engine, MemoryTimelineAndOomReportingContinueToTheEnd) {
  // Capacity 1000 B. Resident params 600 B. Task a allocates act (300 B) and
  // frees it at its end; task b then allocates big (500 B): 600 + 500 = 1100
  // > 1000 -> OOM at b's start, with b and the largest live buffers. Task c
  // still runs after it.
  const Topology t = star(1, 100e9, 2e-6, LinkClass::kNvlink, 1000);
  const HardwareProfile h = plain_profile();
  ProgramBuilder b("mem", 1);
  const StreamId s = b.stream(0, "compute");
  const BufferId params = b.add_buffer("params", 0, 600, MemoryCategory::kParams, true);
  const BufferId act = b.add_buffer("act", 0, 300, MemoryCategory::kActivations);
  const BufferId big = b.add_buffer("big", 0, 500, MemoryCategory::kActivations);
  const TaskId a = b.add_fixed(s, 1e9, 0, DType::kF32, "a");
  const TaskId bb = b.add_fixed(s, 1e9, 0, DType::kF32, "b");
  const TaskId c = b.add_fixed(s, 1e9, 0, DType::kF32, "c");
  b.alloc(a, act);
  b.free(a, act);
  b.alloc(bb, big);
  b.free(c, big);
  (void)params;
  const Program p = build(std::move(b));
  SimOptions o;
  o.record_trace = true;
  auto r = simulate(p, t, h, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->devices[0].peak_memory_bytes, 1100);
  EXPECT_EQ(r->devices[0].peak_by_category[static_cast<size_t>(MemoryCategory::kParams)], 600);
  EXPECT_EQ(r->devices[0].peak_by_category[static_cast<size_t>(MemoryCategory::kActivations)], 500);
  ASSERT_EQ(r->oom.size(), 1u);
  const OomEvent& e = r->oom[0];
  EXPECT_EQ(e.device, 0);
  EXPECT_EQ(e.task, bb);
  EXPECT_EQ(e.time_seconds, r->task_start_seconds[static_cast<size_t>(bb)]);
  EXPECT_EQ(e.live_bytes, 1100);
  EXPECT_EQ(e.capacity_bytes, 1000);
  ASSERT_EQ(e.largest_buffers.size(), 2u);
  EXPECT_EQ(e.largest_buffers[0], (std::pair<std::string, double>{"params", 600}));
  EXPECT_EQ(e.largest_buffers[1], (std::pair<std::string, double>{"big", 500}));
  // The run went on: c ran after b.
  EXPECT_EQ(r->step_seconds, r->task_end_seconds[static_cast<size_t>(c)]);
  // Memory samples hold one value per instant (the last): activations are
  // 300 from 0 (a's allocation at 0), 500 from a's end (act freed, big
  // allocated at the same instant), 0 from c's end.
  std::vector<std::pair<double, double>> samples;
  for (const MemorySample& m : r->trace.memory)
    if (m.category == MemoryCategory::kActivations) samples.emplace_back(m.time_seconds, m.bytes);
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0], (std::pair<double, double>{0, 300}));
  EXPECT_EQ(samples[1], (std::pair<double, double>{r->task_end_seconds[static_cast<size_t>(a)], 500}));
  EXPECT_EQ(samples[2], (std::pair<double, double>{r->step_seconds, 0}));
}

TEST(Engine, FreesAtAnInstantComeBeforeAllocations) {
  // a frees X (400 B) at its end; b, next on the stream, allocates Y (400 B)
  // at the same instant: the peak is 400, not 800.
  const Topology t = star(1, 100e9, 2e-6);
  ProgramBuilder b("instant", 1);
  const StreamId s = b.stream(0, "compute");
  const BufferId x = b.add_buffer("x", 0, 400, MemoryCategory::kActivations);
  const BufferId y = b.add_buffer("y", 0, 400, MemoryCategory::kActivations);
  const TaskId a = b.add_fixed(s, 1e9, 0, DType::kF32, "a");
  const TaskId bb = b.add_fixed(s, 1e9, 0, DType::kF32, "b");
  b.alloc(a, x);
  b.free(a, x);
  b.alloc(bb, y);
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile());
  EXPECT_EQ(r.devices[0].peak_memory_bytes, 400);
}

TEST(Engine, ZeroBandwidthLinkOnARouteIsAnError) {
  Topology t = star(2, 100e9, 2e-6);
  // Rebuild with gpu1's link at 0 B/s.
  Topology z;
  z.preset = "broken";
  z.add_device(t.device(0));
  z.add_device(t.device(1));
  const int sw = z.add_switch(Switch{"sw", 0});
  z.add_link(Link{0, sw, 1e-6, 100e9, LinkClass::kNvlink, "gpu0<->sw"});
  z.add_link(Link{1, sw, 1e-6, 0, LinkClass::kNvlink, "gpu1<->sw"});
  ProgramBuilder b("zero", 2);
  b.add_transfer(b.stream(0, "xfer"), 1, 1e6, "send");
  const Program p = build(std::move(b));
  SimOptions o;
  auto r = simulate(p, z, plain_profile(), o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "program 'zero': task 0 'send': the route from gpu0 to gpu1 crosses link 'gpu1<->sw' "
            "of bandwidth 0 B/s; expected a positive bandwidth");
  EXPECT_EQ(r.status().kind(), ErrorKind::kBadInput);

  // The same link under a collective's step is reported when the step runs.
  ProgramBuilder c("zero-ar", 2);
  c.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1}, 1e6,
                   {c.stream(0, "comm"), c.stream(1, "comm")}, "ar");
  const Program q = build(std::move(c));
  auto r2 = simulate(q, z, plain_profile(), o);
  ASSERT_FALSE(r2.is_ok());
  EXPECT_EQ(r2.message(),
            "program 'zero-ar': collective 0 (task 0 'ar'): the route from gpu0 to gpu1 crosses "
            "link 'gpu1<->sw' of bandwidth 0 B/s; expected a positive bandwidth");
}

TEST(Engine, ProgramWithMoreDevicesThanTheTopologyIsAnError) {
  const Topology t = star(2, 100e9, 2e-6);
  ProgramBuilder b("big", 4);
  b.add_fixed(b.stream(3, "compute"), 1e9, 0, DType::kF32, "k");
  const Program p = build(std::move(b));
  auto r = simulate(p, t, plain_profile(), SimOptions{});
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), "program 'big' uses 4 devices; the topology 'star' has 2");
}

TEST(Engine, CriticalPathRunsThroughTheLastRankOfACollective) {
  // Device 1 computes longer (4096^3) than device 0 (1024^3) before an
  // AllReduce; then device 0 computes once more. The step is decided by
  // device 1's kernel, the collective, then device 0's last kernel.
  const Topology t = star(2, 100e9, 2e-6);
  ProgramBuilder b("cp", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId c1 = b.stream(1, "compute");
  b.add_gemm(c0, 1024, 1024, 1024, DType::kBF16, "short");
  const TaskId longk = b.add_gemm(c1, 4096, 4096, 4096, DType::kBF16, "long");
  const CollectiveId ar = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1}, 1e6,
                                           {c0, c1}, "ar");
  const TaskId last = b.add_gemm(c0, 1024, 1024, 1024, DType::kBF16, "after");
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile());
  ASSERT_EQ(r.critical_path.size(), 3u);
  EXPECT_EQ(r.critical_path[0], longk);
  EXPECT_EQ(p.task(r.critical_path[1]).collective, ar);
  EXPECT_EQ(r.critical_path[2], last);
  // Gapless: each starts when the previous ends.
  for (size_t i = 1; i < r.critical_path.size(); ++i)
    EXPECT_EQ(r.task_start_seconds[static_cast<size_t>(r.critical_path[i])],
              r.task_end_seconds[static_cast<size_t>(r.critical_path[i - 1])]);
}

TEST(Engine, ComputeTimeIsCoresKernelSecondsDividedBySpeed) {
  // A memory-bound kernel of 1 GB on an A100 (2039 GB/s x 0.85 efficiency
  // in the default profile) plus its 5.279 us launch (measured on the H200,
  // core/presets_profiles.cpp), at speed 2.
  const Topology t = star(1, 100e9, 2e-6);
  const HardwareProfile h = HardwareProfile::defaults();
  ProgramBuilder b("mem-bound", 1);
  const TaskId k = b.add_memory_bound(b.stream(0, "compute"), 1e9, DType::kBF16, "norm");
  const Program p = build(std::move(b));
  SimOptions o;
  o.speed[0] = 2;
  auto r = simulate(p, t, h, o);
  ASSERT_TRUE(r.is_ok());
  const double want = (5.278783798217772e-6 + 1e9 / (2039e9 * 0.85)) / 2;
  EXPECT_LT(rel_err(r->task_end_seconds[static_cast<size_t>(k)], want), 1e-12);
}

TEST(Engine, EmptyProgramTakesNoTime) {
  const Topology t = star(2, 100e9, 2e-6);
  ProgramBuilder b("empty", 2);
  const Program p = build(std::move(b));
  const SimResult r = run(p, t, plain_profile());
  EXPECT_EQ(r.step_seconds, 0);
  EXPECT_EQ(r.events, 0);
  EXPECT_TRUE(r.critical_path.empty());
  EXPECT_EQ(r.devices.size(), 2u);
}

TEST(Engine, ReportsProgressToTheEnd) {
  const Topology t = star(1, 100e9, 2e-6);
  ProgramBuilder b("progress", 1);
  const StreamId s = b.stream(0, "compute");
  for (int i = 0; i < 10; ++i) b.add_fixed(s, 1e9, 0, DType::kF32, "k");
  const Program p = build(std::move(b));
  SimOptions o;
  std::vector<std::pair<double, double>> calls;
  o.on_progress = [&](double done, double total) { calls.emplace_back(done, total); };
  ASSERT_TRUE(simulate(p, t, plain_profile(), o).is_ok());
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), (std::pair<double, double>{10, 10}));
}

}  // namespace
}  // namespace brigade::sim
