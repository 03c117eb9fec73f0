// Two runs side by side (core/run_figures.hpp, core/run_compare.hpp; issue
// 17, "compare's difference table on two known traces"). The traces are
// built by hand, so every figure is worked out below.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/run_compare.hpp"
#include "core/run_figures.hpp"

namespace brigade {
namespace {

TraceSpan span(Trace& t, int device, double start, double end, TaskKind kind, Phase phase,
               const std::string& name, TaskId task = -1) {
  TraceSpan s;
  s.device = device;
  s.start_seconds = start;
  s.end_seconds = end;
  s.kind = kind;
  s.phase = phase;
  s.name = t.intern(name);
  s.task = task;
  t.spans.push_back(s);
  return s;
}

// Run A (simulated): gpu0 computes 0-4 ms (fwd) and 4-8 ms (bwd), and
// all-reduces 6-10 ms; gpu1 computes 0-5 ms (fwd) and all-reduces 6-10 ms.
// gpu0 peaks at 3 GB (2 GB weights + 1 GB activations); gpu1 at 2 GB.
Trace trace_a() {
  Trace t;
  t.source = "sim:flow";
  t.program = "mlp";
  t.device_names = {"gpu0", "gpu1"};
  span(t, 0, 0, 4e-3, TaskKind::kCompute, Phase::kForward, "mm1");
  span(t, 0, 4e-3, 8e-3, TaskKind::kCompute, Phase::kBackward, "mm1_grad");
  span(t, 0, 6e-3, 10e-3, TaskKind::kCollective, Phase::kBackward, "allreduce grads", 7);
  span(t, 1, 0, 5e-3, TaskKind::kCompute, Phase::kForward, "mm1");
  span(t, 1, 6e-3, 10e-3, TaskKind::kCollective, Phase::kBackward, "allreduce grads", 8);
  t.transfers.push_back(TraceTransfer{7, 0, 1, 1e6, 6e-3, 10e-3, -1});
  t.memory.push_back(MemorySample{0, MemoryCategory::kParams, 0, 2e9});
  t.memory.push_back(MemorySample{0, MemoryCategory::kActivations, 1e-3, 1e9});
  t.memory.push_back(MemorySample{0, MemoryCategory::kActivations, 8e-3, 0});
  t.memory.push_back(MemorySample{1, MemoryCategory::kParams, 0, 2e9});
  return t;
}

// Run B (measured): the same program, gpu1's compute now 0-9 ms, the
// all-reduce 9-12 ms on both; gpu0's compute unchanged.
Trace trace_b() {
  Trace t;
  t.source = "cpu";
  t.program = "mlp";
  t.device_names = {"gpu0", "gpu1"};
  span(t, 0, 0, 4e-3, TaskKind::kCompute, Phase::kForward, "mm1");
  span(t, 0, 4e-3, 8e-3, TaskKind::kCompute, Phase::kBackward, "mm1_grad");
  span(t, 0, 9e-3, 12e-3, TaskKind::kCollective, Phase::kBackward, "allreduce grads");
  span(t, 1, 0, 9e-3, TaskKind::kCompute, Phase::kForward, "mm1");
  span(t, 1, 9e-3, 12e-3, TaskKind::kCollective, Phase::kBackward, "allreduce grads");
  return t;
}

TEST(RunFigures, FromAKnownTrace) {
  const RunFigures f = figures_of_trace(trace_a(), "a.json");
  EXPECT_EQ(f.step_seconds, 10e-3);
  ASSERT_EQ(f.devices.size(), 2u);
  const DeviceFigures& d0 = f.devices[0];
  EXPECT_EQ(d0.name, "gpu0");
  EXPECT_DOUBLE_EQ(d0.busy_seconds, 8e-3);          // 0-4 and 4-8 ms
  EXPECT_DOUBLE_EQ(d0.comm_seconds, 4e-3);          // 6-10 ms
  EXPECT_NEAR(d0.exposed_seconds, 2e-3, 1e-15);     // 8-10 ms: no compute under it
  EXPECT_NEAR(d0.idle_seconds, 0, 1e-15);           // 10 - (8 + 2)
  EXPECT_DOUBLE_EQ(d0.peak_memory_bytes, 3e9);      // 2 GB + 1 GB between 1 and 8 ms
  const DeviceFigures& d1 = f.devices[1];
  EXPECT_DOUBLE_EQ(d1.busy_seconds, 5e-3);
  EXPECT_NEAR(d1.exposed_seconds, 4e-3, 1e-15);     // the whole all-reduce
  EXPECT_NEAR(d1.idle_seconds, 1e-3, 1e-15);        // 10 - (5 + 4): 5-6 ms
  EXPECT_DOUBLE_EQ(d1.peak_memory_bytes, 2e9);
  // Kinds: summed over devices. fwd 4 + 5 = 9 ms, bwd 4 ms, allreduce 4 + 4 = 8 ms.
  ASSERT_EQ(f.kinds.size(), 3u);
  EXPECT_EQ(f.kinds[0].kind, "allreduce");
  EXPECT_DOUBLE_EQ(f.kinds[0].seconds, 8e-3);
  EXPECT_EQ(f.kinds[0].bytes, 1e6);
  EXPECT_EQ(f.kinds[1].kind, "compute bwd");
  EXPECT_EQ(f.kinds[2].kind, "compute fwd");
  EXPECT_DOUBLE_EQ(f.kinds[2].seconds, 9e-3);
}

TEST(RunCompare, DifferencesLargestFirst) {
  const RunComparison c =
      compare_runs(figures_of_trace(trace_a(), "a.json"), figures_of_trace(trace_b(), "b.json"));
  EXPECT_TRUE(c.same_program);
  // A simulation against a measurement is said.
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0], "a prediction against a measurement (sim:flow, cpu)");
  // Per device, B - A: gpu1 busy 9 - 5 = +4 ms; gpu0 idle (12 - 8 - 3 = 1) - 0 = +1 ms,
  // gpu0 exposed 3 - 2 = +1 ms; gpu1 exposed 3 - 4 = -1 ms; both
  // communication 3 - 4 = -1 ms; gpu1 idle 0 - 1 = -1 ms; gpu0 busy 0.
  ASSERT_EQ(c.device_rows.size(), 8u);
  EXPECT_EQ(c.device_rows[0].scope, "gpu1");
  EXPECT_EQ(c.device_rows[0].figure, "busy");
  EXPECT_NEAR(c.device_rows[0].delta(), 4e-3, 1e-15);
  for (size_t i = 1; i < 7; ++i) EXPECT_NEAR(std::fabs(c.device_rows[i].delta()), 1e-3, 1e-15);
  EXPECT_EQ(c.device_rows[7].scope, "gpu0");
  EXPECT_EQ(c.device_rows[7].figure, "busy");
  EXPECT_EQ(c.device_rows[7].delta(), 0);
  // B has no memory samples: the rows keep A's value and an unknown delta.
  ASSERT_EQ(c.memory_rows.size(), 2u);
  EXPECT_EQ(c.memory_rows[0].scope, "gpu0");  // the larger known value first
  EXPECT_TRUE(std::isnan(c.memory_rows[0].delta()));
  // Kinds: fwd 13 - 9 = +4 ms, allreduce 6 - 8 = -2 ms, bwd 0.
  ASSERT_EQ(c.kind_rows.size(), 3u);
  EXPECT_EQ(c.kind_rows[0].scope, "compute fwd");
  EXPECT_NEAR(c.kind_rows[0].delta(), 4e-3, 1e-15);
  EXPECT_EQ(c.kind_rows[1].scope, "allreduce");
  EXPECT_NEAR(c.kind_rows[1].delta(), -2e-3, 1e-15);
  EXPECT_EQ(c.kind_rows[2].scope, "compute bwd");

  const std::string text = comparison_text(c, 2);
  EXPECT_NE(text.find("step   A 10.0 ms   B 12.0 ms   B - A +2.00 ms (+20.0%)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  ... 6 more rows (--rows 0 or --json shows all)\n"), std::string::npos)
      << text;
  const nlohmann::json j = comparison_json(c);
  EXPECT_EQ(j["devices"].size(), 8u);
  EXPECT_TRUE(j["memory"][0]["delta"].is_null());
  EXPECT_DOUBLE_EQ(j["step_delta_seconds"].get<double>(), 2e-3);
}

// A simulated run: its collective spans count under their Program's kind
// (the name, "grad bucket 0", says none: figures_of_trace leaves it as
// "collective"), and the simulator's step replaces the trace's, idle time
// with it.
TEST(RunFigures, OfASimulationTakeKindsFromTheProgram) {
  ProgramBuilder builder("zero1", 2);
  const CollectiveId rs = builder.add_collective(
      CollectiveKind::kReduceScatter, CollectiveAlgorithm::kRing, {0, 1}, 1e6,
      {builder.stream(0, "comm"), builder.stream(1, "comm")}, "grad bucket 0");
  auto program = std::move(builder).build();
  ASSERT_TRUE(program.is_ok()) << program.message();
  Trace t = trace_a();
  for (TraceSpan& s : t.spans)
    if (s.kind == TaskKind::kCollective) {
      s.name = t.intern("grad bucket 0");
      s.collective = rs;
    }
  const RunFigures guessed = figures_of_trace(t, "a.json");
  ASSERT_EQ(guessed.kinds.size(), 3u);
  EXPECT_EQ(guessed.kinds[0].kind, "collective");
  const RunFigures f = figures_of_simulation(t, *program, 11e-3, "a.yaml");
  ASSERT_EQ(f.kinds.size(), 3u);
  EXPECT_EQ(f.kinds[2].kind, "reducescatter");  // after "compute bwd", "compute fwd"
  EXPECT_DOUBLE_EQ(f.kinds[2].seconds, 8e-3);   // 4 + 4 ms, as before
  EXPECT_EQ(f.step_seconds, 11e-3);
  // gpu1: 11 - (5 busy + 4 exposed) = 2 ms idle (1 ms with the trace's 10 ms step).
  EXPECT_NEAR(f.devices[1].idle_seconds, 2e-3, 1e-15);
  EXPECT_EQ(span_kind_key(t, t.spans[2], &*program), "reducescatter");
  EXPECT_EQ(span_kind_key(t, t.spans[2]), "collective");
}

// Traces of different programs: what differs is said, and what can be
// compared still is (the devices both have, matched by name).
TEST(RunCompare, DifferentProgramsSayWhatDiffers) {
  Trace b = trace_b();
  b.program = "transformer";
  b.device_names = {"gpu0", "gpu7"};
  const RunComparison c =
      compare_runs(figures_of_trace(trace_a(), "a.json"), figures_of_trace(b, "b.json"));
  EXPECT_FALSE(c.same_program);
  ASSERT_GE(c.differences.size(), 2u);
  EXPECT_EQ(c.differences[0], "different programs: 'mlp' and 'transformer'");
  EXPECT_EQ(c.differences[1], "different devices: 2 and 2 (1 in common)");
  for (const FigureRow& r : c.device_rows) EXPECT_EQ(r.scope, "gpu0");
}

}  // namespace
}  // namespace brigade
