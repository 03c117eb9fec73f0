// The compare view's logic (gui/model/compare.hpp; issue 17, "compare's
// difference table on two known traces"): two traces built by hand, a
// prediction and a measurement of one data-parallel step, with every
// figure of the table worked out below; the shared time axis; what a row
// points at; scenarios read as `brigade compare` reads them.
#include "gui/model/compare.hpp"

#include <cmath>
#include <tuple>

#include <gtest/gtest.h>

#include "gui/model/loader.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;
constexpr double kMs = 1e-3;
constexpr double kGiB = 1024.0 * 1024 * 1024;

void span(Trace& t, int device, double start_ms, double end_ms, TaskKind kind, Phase phase,
          const std::string& name) {
  TraceSpan s;
  s.device = device;
  s.stream = device * 2 + (kind == TaskKind::kCompute ? 0 : 1);
  s.start_seconds = start_ms * kMs;
  s.end_seconds = end_ms * kMs;
  s.kind = kind;
  s.phase = phase;
  s.name = t.intern(name);
  t.spans.push_back(s);
}

Trace two_devices(const std::string& source) {
  Trace t;
  t.source = source;
  t.program = "dp2";
  t.device_names = {"gpu0", "gpu1"};
  t.streams = {{0, "compute"}, {0, "comm"}, {1, "compute"}, {1, "comm"}};
  return t;
}

// The prediction: both GPUs run forward 0-2 ms and backward 2-6 ms, and
// all-reduce the gradients 4-7 ms (3 ms, overlapping the backward pass by
// 2 ms). Memory: 1 GiB of weights, 0.5 GiB of activations from 1 to 6 ms.
// Figures, both devices: step 7, busy 6 (0-6), communication 3 (4-7),
// exposed 1 (6-7), idle 7 - (6 + 1) = 0; peak 1.5 GiB.
// Kinds, summed over devices: fwd 2 + 2 = 4, bwd 4 + 4 = 8, allreduce 3 + 3 = 6 ms.
DocumentPtr predicted() {
  Trace t = two_devices("sim:flow");
  for (int d = 0; d < 2; ++d) {
    span(t, d, 0, 2, TaskKind::kCompute, Phase::kForward, "fwd");
    span(t, d, 2, 6, TaskKind::kCompute, Phase::kBackward, "bwd");
    span(t, d, 4, 7, TaskKind::kCollective, Phase::kBackward, "grad allreduce");
    t.memory.push_back({d, MemoryCategory::kParams, 0, 1 * kGiB});
    t.memory.push_back({d, MemoryCategory::kActivations, 1 * kMs, 0.5 * kGiB});
    t.memory.push_back({d, MemoryCategory::kActivations, 6 * kMs, 0});
  }
  return document_from_trace(std::move(t), "predicted.json");
}

// The measurement: gpu0 was slow (forward 0-3, backward 3-8 ms, activations
// 0.75 GiB), gpu1 ran as predicted; the all-reduce waited for gpu0: 7-10 ms
// on both. Figures: step 10.
//   gpu0: busy 8 (0-8), communication 3, exposed 2 (8-10), idle 10 - 10 = 0; peak 1.75 GiB.
//   gpu1: busy 6, communication 3, exposed 3 (7-10), idle 10 - (6 + 3) = 1 (6-7); peak 1.5 GiB.
// Kinds: fwd 3 + 2 = 5, bwd 5 + 4 = 9, allreduce 3 + 3 = 6 ms.
DocumentPtr measured() {
  Trace t = two_devices("cpu");
  span(t, 0, 0, 3, TaskKind::kCompute, Phase::kForward, "fwd");
  span(t, 0, 3, 8, TaskKind::kCompute, Phase::kBackward, "bwd");
  span(t, 0, 7, 10, TaskKind::kCollective, Phase::kBackward, "grad allreduce");
  span(t, 1, 0, 2, TaskKind::kCompute, Phase::kForward, "fwd");
  span(t, 1, 2, 6, TaskKind::kCompute, Phase::kBackward, "bwd");
  span(t, 1, 7, 10, TaskKind::kCollective, Phase::kBackward, "grad allreduce");
  for (int d = 0; d < 2; ++d) {
    t.memory.push_back({d, MemoryCategory::kParams, 0, 1 * kGiB});
    t.memory.push_back({d, MemoryCategory::kActivations, 1 * kMs, (d == 0 ? 0.75 : 0.5) * kGiB});
    t.memory.push_back({d, MemoryCategory::kActivations, 8 * kMs, 0});
  }
  return document_from_trace(std::move(t), "measured.json");
}

// title, section, scope, figure, a, b, delta, percent, bar
using Expected = std::tuple<bool, CompareSection, std::string, std::string, std::string,
                            std::string, std::string, std::string, double>;

TEST(CompareTable, OfAPredictionAndAMeasurementWorkedByHand) {
  auto c = compare_documents(*predicted(), *measured());
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_TRUE(c->same_program);
  ASSERT_EQ(c->differences.size(), 1u);
  EXPECT_EQ(c->differences[0], "a prediction against a measurement (sim:flow, cpu)");
  // step 10 - 7 = +3 ms, 3 / 7 = +42.9%.
  EXPECT_EQ(step_summary(*c), "step: A 7.00 ms, B 10.0 ms, B - A +3.00 ms (+42.9%)");
  EXPECT_EQ(run_summary(c->a), "'dp2' · simulated (sim:flow) · 2 devices · step 7.00 ms");
  EXPECT_EQ(run_summary(c->b), "'dp2' · measured (cpu) · 2 devices · step 10.0 ms");

  using S = CompareSection;
  // Per device, B - A, largest |delta| first, ties in device then figure
  // order: gpu0 busy +2 (8 vs 6: +33.3%), gpu1 exposed +2 (3 vs 1), gpu0
  // exposed +1, gpu1 idle +1 (1 vs 0: no percentage of 0), then the 0s.
  // gpu0's idle is 0 in both runs: left out. Bars against the largest, 2 ms.
  // Memory: gpu0 1.75 - 1.5 GiB = +256 MiB (+16.7%), gpu1 0.
  // Kinds: bwd 9 - 8 = +1 ms (+12.5%), fwd 5 - 4 = +1 ms (+25.0%), allreduce 0.
  const std::vector<Expected> expected = {
      {true, S::kDevices, "per device", "", "", "", "", "", 0},
      {false, S::kDevices, "gpu0", "busy", "6.00 ms", "8.00 ms", "+2.00 ms", "+33.3%", 1},
      {false, S::kDevices, "gpu1", "exposed", "1.00 ms", "3.00 ms", "+2.00 ms", "+200.0%", 1},
      {false, S::kDevices, "gpu0", "exposed", "1.00 ms", "2.00 ms", "+1.00 ms", "+100.0%", 0.5},
      {false, S::kDevices, "gpu1", "idle", "0 s", "1.00 ms", "+1.00 ms", "", 0.5},
      {false, S::kDevices, "gpu0", "communication", "3.00 ms", "3.00 ms", "0", "+0.0%", 0},
      {false, S::kDevices, "gpu1", "busy", "6.00 ms", "6.00 ms", "0", "+0.0%", 0},
      {false, S::kDevices, "gpu1", "communication", "3.00 ms", "3.00 ms", "0", "+0.0%", 0},
      {true, S::kMemory, "peak memory per device", "", "", "", "", "", 0},
      {false, S::kMemory, "gpu0", "peak memory", "1.50 GiB", "1.75 GiB", "+256 MiB", "+16.7%", 1},
      {false, S::kMemory, "gpu1", "peak memory", "1.50 GiB", "1.50 GiB", "0", "+0.0%", 0},
      {true, S::kKinds, "per task kind (span time summed over devices)", "", "", "", "", "", 0},
      {false, S::kKinds, "compute bwd", "time", "8.00 ms", "9.00 ms", "+1.00 ms", "+12.5%", 1},
      {false, S::kKinds, "compute fwd", "time", "4.00 ms", "5.00 ms", "+1.00 ms", "+25.0%", 1},
      {false, S::kKinds, "allreduce", "time", "6.00 ms", "6.00 ms", "0", "+0.0%", 0},
  };
  const std::vector<CompareTableRow> rows = compare_table(*c);
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& [title, section, scope, figure, a, b, delta, percent, bar] = expected[i];
    EXPECT_EQ(rows[i].title, title);
    EXPECT_EQ(rows[i].section, section);
    EXPECT_EQ(rows[i].scope, scope);
    EXPECT_EQ(rows[i].figure, figure);
    EXPECT_EQ(rows[i].a, a);
    EXPECT_EQ(rows[i].b, b);
    EXPECT_EQ(rows[i].delta, delta);
    EXPECT_EQ(rows[i].percent, percent);
    EXPECT_NEAR(rows[i].bar, bar, 1e-12);
  }
  EXPECT_NEAR(rows[1].delta_value, 2 * kMs, 1e-15);
  EXPECT_NEAR(rows[9].delta_value, 0.25 * kGiB, 1e-3);
}

// One axis for both timelines: from the earliest span to the latest of
// either run (0 to 10 ms), with 1% of that a side (0.1 ms).
TEST(CompareTable, SharedExtentCoversBothRuns) {
  const TimeWindow w = shared_extent(*predicted(), *measured());
  EXPECT_NEAR(w.start_seconds, -0.1 * kMs, 1e-15);
  EXPECT_NEAR(w.end_seconds, 10.1 * kMs, 1e-15);
}

// A kind's row outlines that kind's spans; a device's row names the same
// device in both runs (by name, else A's id).
TEST(CompareTable, RowsPointAtSpansAndDevices) {
  const DocumentPtr b = measured();
  // Spans were added gpu0 fwd, bwd, allreduce, then gpu1 alike.
  EXPECT_EQ(spans_of_kind(*b, "compute fwd"), (std::vector<std::int32_t>{0, 3}));
  EXPECT_EQ(spans_of_kind(*b, "allreduce"), (std::vector<std::int32_t>{2, 5}));
  EXPECT_TRUE(spans_of_kind(*b, "reducescatter").empty());
  Trace renamed = two_devices("cpu");
  renamed.device_names = {"cpu0", "cpu1"};
  EXPECT_EQ(devices_of_scope(*predicted()->trace, *b->trace, "gpu1"), std::make_pair(1, 1));
  EXPECT_EQ(devices_of_scope(*predicted()->trace, renamed, "gpu1"), std::make_pair(1, 1));
  EXPECT_EQ(devices_of_scope(*predicted()->trace, renamed, "tpu9"), std::make_pair(-1, -1));
  Trace unnamed = two_devices("cpu");
  unnamed.device_names.clear();
  EXPECT_EQ(devices_of_scope(unnamed, unnamed, "device 1"), std::make_pair(1, 1));
}

// Traces of different programs: what differs is said, the devices both
// have are compared, the rest left out.
TEST(CompareTable, DifferentProgramsCompareWhatTheyShare) {
  Trace t = two_devices("cpu");
  t.program = "transformer";
  t.device_names = {"gpu0", "gpu7"};
  span(t, 0, 0, 5, TaskKind::kCompute, Phase::kForward, "fwd");
  span(t, 1, 0, 5, TaskKind::kCompute, Phase::kForward, "fwd");
  const DocumentPtr other = document_from_trace(std::move(t), "other.json");
  auto c = compare_documents(*predicted(), *other);
  ASSERT_TRUE(c.is_ok());
  EXPECT_FALSE(c->same_program);
  ASSERT_GE(c->differences.size(), 2u);
  EXPECT_EQ(c->differences[0], "different programs: 'dp2' and 'transformer'");
  EXPECT_EQ(c->differences[1], "different devices: 2 and 2 (1 in common)");
  for (const CompareTableRow& r : compare_table(*c)) {
    if (!r.title && r.section != CompareSection::kKinds) {
      EXPECT_EQ(r.scope, "gpu0");
    }
  }
}

// A profile is no run: one line, the CLI's form.
TEST(CompareTable, AProfileIsNoRun) {
  auto profile = load_document(kSrc + "/scenarios/profiles/h200_measured.yaml");
  ASSERT_TRUE(profile.is_ok()) << profile.message();
  auto c = compare_documents(*predicted(), **profile);
  ASSERT_FALSE(c.is_ok());
  EXPECT_EQ(c.message(), kSrc +
                             "/scenarios/profiles/h200_measured.yaml: error: found a hardware "
                             "profile; expected a scenario or a trace to compare");
}

// Open scenarios are read as `brigade compare` reads them: collectives by
// their Program's kind (ZeRO-1 reduce-scatters and all-gathers where plain
// data parallelism all-reduces; none left as a bare "collective"), the
// simulator's step.
TEST(CompareTable, ScenariosCountCollectivesByTheirProgramsKind) {
  auto a = load_document(kSrc + "/scenarios/lessons/06-peak-memory.yaml");
  auto b = load_document(kSrc + "/scenarios/lessons/more/06-zero1.yaml");
  ASSERT_TRUE(a.is_ok()) << a.message();
  ASSERT_TRUE(b.is_ok()) << b.message();
  auto c = compare_documents(**a, **b);
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_EQ(c->a.step_seconds, (*a)->result->step_seconds);
  std::map<std::string, std::pair<bool, bool>> kinds;
  for (const FigureRow& r : c->kind_rows) kinds[r.scope] = {!std::isnan(r.a), !std::isnan(r.b)};
  EXPECT_EQ(kinds.count("collective"), 0u);
  EXPECT_EQ(kinds["allreduce"], std::make_pair(true, false));
  EXPECT_EQ(kinds["reducescatter"], std::make_pair(false, true));
  EXPECT_FALSE(spans_of_kind(**b, "reducescatter").empty());
}

}  // namespace
}  // namespace brigade::gui
