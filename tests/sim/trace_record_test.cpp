// Recording a trace changes nothing but the trace: shortcuts stay on (their
// messages come from the memoised isolated run), and the step time and every
// statistic are the same bit for bit; filters keep what they say.
#include <algorithm>
#include <tuple>

#include <gtest/gtest.h>

#include "core/trace.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::plain_profile;
using testing::star;

// Two tensor-parallel groups of 4 (devices 0-3, 4-7) on one switch: each
// group's AllReduces run on its ranks' compute streams, which nothing else
// uses (shortcut). Devices 8 and 9: an AllReduce on their dp streams and a
// send on an xfer stream share channels (expanded). Kernels between, and an
// activation buffer per kernel.
Program tp_step() {
  ProgramBuilder b("tp", 10);
  std::vector<StreamId> c, dp, x;
  for (int d = 0; d < 10; ++d) {
    c.push_back(b.stream(d, "compute"));
    dp.push_back(b.stream(d, "dp"));
    x.push_back(b.stream(d, "xfer"));
  }
  for (int g = 0; g < 2; ++g) {
    std::vector<int> group;
    std::vector<StreamId> streams;
    for (int r = 0; r < 4; ++r) {
      group.push_back(4 * g + r);
      streams.push_back(c[static_cast<size_t>(4 * g + r)]);
    }
    for (int layer = 0; layer < 3; ++layer) {
      for (int r = 0; r < 4; ++r) {
        const int d = 4 * g + r;
        const BufferId act =
            b.add_buffer("act", d, 1e6 * (layer + 1), MemoryCategory::kActivations);
        const TaskId k =
            b.add_gemm(c[static_cast<size_t>(d)], 512 * (r + 1), 1024, 1024, DType::kBF16, "mm");
        b.alloc(k, act);
        const TaskId k2 = b.add_memory_bound(c[static_cast<size_t>(d)], 1e7, DType::kBF16, "ln");
        b.free(k2, act);
      }
      b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group,
                       8e6 * (layer + 1), streams, "tp-ar");
    }
  }
  const TaskId k8 = b.add_gemm(c[8], 2048, 1024, 1024, DType::kBF16, "mm");
  const CollectiveId ar = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                           {8, 9}, 32e6, {dp[8], dp[9]}, "dp-ar");
  b.depend(b.collective_task(ar, 0), k8);
  b.add_transfer(x[8], 9, 2e6, "send");
  return build(std::move(b));
}

SimResult sim(const Program& p, const Topology& t, NetworkModel net, bool exact, bool trace,
              TraceFilter filter = {}, bool steps = true) {
  SimOptions o;
  o.network = net;
  o.exact = exact;
  o.record_trace = trace;
  o.trace_steps = steps;
  o.trace_filter = std::move(filter);
  auto r = simulate(p, t, plain_profile(2e-6), o);
  EXPECT_TRUE(r.is_ok()) << r.message();
  return std::move(r).value();
}

// Every statistic of the result, compared with ==.
void expect_same_results(const SimResult& a, const SimResult& b) {
  EXPECT_EQ(a.step_seconds, b.step_seconds);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.flows, b.flows);
  EXPECT_EQ(a.collectives_shortcut, b.collectives_shortcut);
  EXPECT_EQ(a.critical_path, b.critical_path);
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t d = 0; d < a.devices.size(); ++d) {
    EXPECT_EQ(a.devices[d].busy_seconds, b.devices[d].busy_seconds);
    EXPECT_EQ(a.devices[d].comm_seconds, b.devices[d].comm_seconds);
    EXPECT_EQ(a.devices[d].idle_seconds, b.devices[d].idle_seconds);
    EXPECT_EQ(a.devices[d].exposed_comm_seconds, b.devices[d].exposed_comm_seconds);
    EXPECT_EQ(a.devices[d].peak_memory_bytes, b.devices[d].peak_memory_bytes);
    EXPECT_EQ(a.devices[d].peak_by_category, b.devices[d].peak_by_category);
  }
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t l = 0; l < a.links.size(); ++l) {
    EXPECT_EQ(a.links[l].bytes, b.links[l].bytes);
    EXPECT_EQ(a.links[l].busy_seconds, b.links[l].busy_seconds);
  }
  EXPECT_EQ(a.oom.size(), b.oom.size());
}

TEST(TraceRecording, KeepsShortcutsAndChangesNoStatistic) {
  const Topology t = star(10, 100e9, 2e-6);
  const Program p = tp_step();
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const SimResult plain = sim(p, t, net, false, false);
    const SimResult traced = sim(p, t, net, false, true);
    EXPECT_EQ(plain.collectives_shortcut, 6);  // the tensor-parallel ones
    expect_same_results(plain, traced);
    EXPECT_TRUE(plain.trace.spans.empty());
    EXPECT_EQ(traced.trace.spans.size(), static_cast<size_t>(p.num_tasks()));
  }
}

TEST(TraceRecording, ShortcutSpansAndMessagesMatchAnExactRun) {
  // Each collective here is alone on its channels whenever it runs, so the
  // shortcut is exact: the traced shortcut run and the traced --exact run
  // give the same spans and the same messages (the shortcut's shifted by the
  // collective's start: equal up to rounding of that sum).
  const Topology t = star(10, 100e9, 2e-6);
  const Program p = tp_step();
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const SimResult fast = sim(p, t, net, false, true);
    const SimResult exact = sim(p, t, net, true, true);
    ASSERT_GT(fast.collectives_shortcut, 0);
    EXPECT_EQ(exact.collectives_shortcut, 0);
    const double tol = 1e-12 * exact.step_seconds;
    ASSERT_EQ(fast.trace.spans.size(), exact.trace.spans.size());
    auto by_task = [](std::vector<TraceSpan> v) {
      std::sort(v.begin(), v.end(),
                [](const TraceSpan& a, const TraceSpan& b) { return a.task < b.task; });
      return v;
    };
    const auto fs = by_task(fast.trace.spans), es = by_task(exact.trace.spans);
    for (size_t i = 0; i < fs.size(); ++i) {
      EXPECT_EQ(fs[i].task, es[i].task);
      EXPECT_NEAR(fs[i].start_seconds, es[i].start_seconds, tol) << "task " << fs[i].task;
      EXPECT_NEAR(fs[i].end_seconds, es[i].end_seconds, tol) << "task " << fs[i].task;
      EXPECT_EQ(fs[i].collective, es[i].collective);
    }
    // Every message once in each, with the same ends, bytes, lane and times.
    ASSERT_EQ(fast.trace.transfers.size(), exact.trace.transfers.size());
    ASSERT_EQ(static_cast<std::int64_t>(exact.trace.transfers.size()), exact.flows);
    auto key = [](const TraceTransfer& x) {
      return std::make_tuple(x.task, x.src, x.dst, x.start_seconds, x.end_seconds);
    };
    auto sorted = [&](std::vector<TraceTransfer> v) {
      std::sort(v.begin(), v.end(),
                [&](const TraceTransfer& a, const TraceTransfer& b) { return key(a) < key(b); });
      return v;
    };
    const auto ft = sorted(fast.trace.transfers), et = sorted(exact.trace.transfers);
    for (size_t i = 0; i < ft.size(); ++i) {
      EXPECT_EQ(ft[i].task, et[i].task);
      EXPECT_EQ(ft[i].src, et[i].src);
      EXPECT_EQ(ft[i].dst, et[i].dst);
      EXPECT_EQ(ft[i].bytes, et[i].bytes);
      EXPECT_EQ(ft[i].lane, et[i].lane);
      EXPECT_NEAR(ft[i].start_seconds, et[i].start_seconds, tol);
      EXPECT_NEAR(ft[i].end_seconds, et[i].end_seconds, tol);
    }
  }
}

TEST(TraceRecording, DeviceFilterKeepsTheirSpansTransfersAndMemory) {
  const Topology t = star(10, 100e9, 2e-6);
  const Program p = tp_step();
  const SimResult all = sim(p, t, NetworkModel::kFlow, false, true);
  TraceFilter f;
  f.devices = {1, 5};
  const SimResult some = sim(p, t, NetworkModel::kFlow, false, true, f);
  expect_same_results(all, some);
  EXPECT_EQ(some.trace.filter, "devices 1,5");
  EXPECT_EQ(some.trace.device_names, all.trace.device_names);  // ids keep their meaning
  // Exactly the unfiltered trace's records of those devices, in the same order.
  std::vector<TraceSpan> spans;
  for (const TraceSpan& s : all.trace.spans)
    if (s.device == 1 || s.device == 5) spans.push_back(s);
  ASSERT_EQ(some.trace.spans.size(), spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(some.trace.spans[i].task, spans[i].task);
    EXPECT_EQ(some.trace.spans[i].start_seconds, spans[i].start_seconds);
    EXPECT_EQ(some.trace.spans[i].end_seconds, spans[i].end_seconds);
  }
  std::vector<TraceTransfer> xs;
  for (const TraceTransfer& x : all.trace.transfers)
    if (x.src == 1 || x.src == 5 || x.dst == 1 || x.dst == 5) xs.push_back(x);
  ASSERT_EQ(some.trace.transfers.size(), xs.size());
  EXPECT_GT(xs.size(), 0u);
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_EQ(some.trace.transfers[i].task, xs[i].task);
    EXPECT_EQ(some.trace.transfers[i].start_seconds, xs[i].start_seconds);
  }
  size_t mem = 0;
  for (const MemorySample& m : all.trace.memory) mem += m.device == 1 || m.device == 5;
  EXPECT_EQ(some.trace.memory.size(), mem);
  for (const MemorySample& m : some.trace.memory) EXPECT_TRUE(m.device == 1 || m.device == 5);
}

TEST(TraceRecording, WindowKeepsWhatOverlapsItAndEachSeriesValueAtItsStart) {
  const Topology t = star(10, 100e9, 2e-6);
  const Program p = tp_step();
  const SimResult all = sim(p, t, NetworkModel::kFlow, false, true);
  TraceFilter f;
  f.start_seconds = 0.3 * all.step_seconds;
  f.end_seconds = 0.6 * all.step_seconds;
  const SimResult some = sim(p, t, NetworkModel::kFlow, false, true, f);
  expect_same_results(all, some);
  size_t spans = 0, xs = 0;
  for (const TraceSpan& s : all.trace.spans)
    spans += s.end_seconds >= f.start_seconds && s.start_seconds <= f.end_seconds;
  for (const TraceTransfer& x : all.trace.transfers)
    xs += x.end_seconds >= f.start_seconds && x.start_seconds <= f.end_seconds;
  EXPECT_EQ(some.trace.spans.size(), spans);
  EXPECT_LT(spans, all.trace.spans.size());
  EXPECT_EQ(some.trace.transfers.size(), xs);
  for (const TraceSpan& s : some.trace.spans) {
    EXPECT_GE(s.end_seconds, f.start_seconds);
    EXPECT_LE(s.start_seconds, f.end_seconds);
  }
  // Memory: per (device, category), the value in force at the window's start
  // (one sample before it), then the unfiltered samples inside it.
  auto value_at = [](const std::vector<MemorySample>& v, int d, MemoryCategory c, double time) {
    double bytes = 0;
    for (const MemorySample& m : v)
      if (m.device == d && m.category == c && m.time_seconds <= time) bytes = m.bytes;
    return bytes;
  };
  for (int d = 0; d < 8; ++d)
    for (int k = 0; k < kNumMemoryCategories; ++k) {
      const auto c = static_cast<MemoryCategory>(k);
      int before = 0;
      for (const MemorySample& m : some.trace.memory)
        if (m.device == d && m.category == c && m.time_seconds < f.start_seconds) ++before;
      EXPECT_EQ(before, 1);
      for (double time : {f.start_seconds, 0.45 * all.step_seconds, f.end_seconds})
        EXPECT_EQ(value_at(some.trace.memory, d, c, time), value_at(all.trace.memory, d, c, time));
    }
  for (const MemorySample& m : some.trace.memory) EXPECT_LE(m.time_seconds, f.end_seconds);
}

TEST(TraceRecording, MergedStepsAreOneTransferPerPairAndCollective) {
  // trace_steps = false: the 2(N-1) = 6 ring steps rank r sends to r+1 are
  // back to back on an idle star, so each tensor-parallel AllReduce of M
  // bytes over 4 ranks records 4 transfers of 6 x M/4 bytes, from its first
  // step's start to its last step's end; the same in the shortcut run and
  // the exact one.
  const Topology t = star(10, 100e9, 2e-6);
  const Program p = tp_step();
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const SimResult every = sim(p, t, net, false, true);
    const SimResult merged = sim(p, t, net, false, true, {}, /*steps=*/false);
    const SimResult exact = sim(p, t, net, true, true, {}, /*steps=*/false);
    expect_same_results(every, merged);
    for (const Collective& c : p.collectives()) {
      if (c.group.size() != 4) continue;
      for (int r = 0; r < 4; ++r) {
        const TaskId task = c.tasks[static_cast<size_t>(r)];
        std::vector<TraceTransfer> steps, runs, exact_runs;
        for (const TraceTransfer& x : every.trace.transfers)
          if (x.task == task) steps.push_back(x);
        for (const TraceTransfer& x : merged.trace.transfers)
          if (x.task == task) runs.push_back(x);
        for (const TraceTransfer& x : exact.trace.transfers)
          if (x.task == task) exact_runs.push_back(x);
        ASSERT_EQ(steps.size(), 6u);
        ASSERT_EQ(runs.size(), 1u);
        ASSERT_EQ(exact_runs.size(), 1u);
        EXPECT_EQ(runs[0].bytes, 6 * (c.bytes / 4));
        EXPECT_EQ(runs[0].start_seconds, steps.front().start_seconds);
        EXPECT_EQ(runs[0].end_seconds, steps.back().end_seconds);
        EXPECT_EQ(runs[0].dst, c.group[static_cast<size_t>((r + 1) % 4)]);
        EXPECT_NEAR(exact_runs[0].end_seconds, runs[0].end_seconds, 1e-12 * exact.step_seconds);
      }
    }
    EXPECT_LT(merged.trace.transfers.size(), every.trace.transfers.size() / 4);
  }
}

}  // namespace
}  // namespace brigade::sim
