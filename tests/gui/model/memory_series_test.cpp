// Memory over time for the memory view (gui/model/memory_series.hpp).
#include "gui/model/memory_series.hpp"

#include <gtest/gtest.h>

#include "gui/model/loader.hpp"

namespace brigade::gui {
namespace {

MemorySample sample(int device, MemoryCategory c, double t, double bytes) {
  MemorySample m;
  m.device = device;
  m.category = c;
  m.time_seconds = t;
  m.bytes = bytes;
  return m;
}

constexpr auto kP = MemoryCategory::kParams;
constexpr auto kA = MemoryCategory::kActivations;
constexpr auto kG = MemoryCategory::kGrads;

// gpu0: params 100 from 0; activations 50 at 1, 80 at 2, 0 at 4; at 4 the
// grads go to 60 in the same instant. gpu1: params 300 from 0.
Trace example() {
  Trace t;
  t.device_names = {"gpu0", "gpu1"};
  t.memory = {sample(0, kP, 0, 100), sample(1, kP, 0, 300), sample(0, kA, 1, 50),
              sample(0, kA, 2, 80),  sample(0, kA, 4, 0),   sample(0, kG, 4, 60)};
  return t;
}

TEST(MemoryStack, OneRowPerDistinctTimeWithEveryCategoryLive) {
  const MemoryStack s = memory_stack(example(), 0);
  ASSERT_EQ(s.times_seconds, (std::vector<double>{0, 1, 2, 4}));
  EXPECT_EQ(s.bytes[static_cast<size_t>(kP)], (std::vector<double>{100, 100, 100, 100}));
  EXPECT_EQ(s.bytes[static_cast<size_t>(kA)], (std::vector<double>{0, 50, 80, 0}));
  // The free of activations and the grads' allocation at t = 4 are one row.
  EXPECT_EQ(s.bytes[static_cast<size_t>(kG)], (std::vector<double>{0, 0, 0, 60}));
  // Totals 100, 150, 180, 160: the peak 180 at t = 2.
  EXPECT_DOUBLE_EQ(s.peak_bytes, 180);
  EXPECT_DOUBLE_EQ(s.peak_time_seconds, 2);
  EXPECT_TRUE(s.has_category(kG));
  EXPECT_FALSE(s.has_category(MemoryCategory::kOptimizer));
}

struct LiveCase {
  double t;
  double params, activations, grads;
};

class LiveAt : public ::testing::TestWithParam<LiveCase> {};

// The step function's value: a sample holds from its time on.
TEST_P(LiveAt, ReadsTheStepFunction) {
  const LiveCase c = GetParam();
  const CategoryBytes live = live_at(memory_stack(example(), 0), c.t);
  EXPECT_DOUBLE_EQ(live[static_cast<size_t>(kP)], c.params);
  EXPECT_DOUBLE_EQ(live[static_cast<size_t>(kA)], c.activations);
  EXPECT_DOUBLE_EQ(live[static_cast<size_t>(kG)], c.grads);
}

INSTANTIATE_TEST_SUITE_P(Times, LiveAt,
                         ::testing::Values(LiveCase{-1, 0, 0, 0}, LiveCase{0, 100, 0, 0},
                                           LiveCase{0.5, 100, 0, 0}, LiveCase{1, 100, 50, 0},
                                           LiveCase{3.9, 100, 80, 0}, LiveCase{4, 100, 0, 60},
                                           LiveCase{99, 100, 0, 60}));

TEST(MemoryPeaks, ByDeviceAndTheHighest) {
  // gpu0 peaks at 180 (t = 2), gpu1 at 300.
  EXPECT_EQ(peak_bytes_by_device(example()), (std::vector<double>{180, 300}));
  EXPECT_EQ(device_with_highest_peak(example()), 1);
  EXPECT_EQ(device_with_highest_peak(Trace{}), -1);
}

TEST(MemoryPeaks, AnAllocationAndAFreeAtOneInstantAreNoPeak) {
  // At t = 1 activations 0 -> 100 and grads 100 -> 0 (in that order, with
  // another device's sample between them): the total stays 100.
  Trace t;
  t.device_names = {"gpu0", "gpu1"};
  t.memory = {sample(0, kG, 0, 100), sample(0, kA, 1, 100), sample(1, kP, 1, 5),
              sample(0, kG, 1, 0)};
  EXPECT_EQ(peak_bytes_by_device(t), (std::vector<double>{100, 5}));
  EXPECT_DOUBLE_EQ(memory_stack(t, 0).peak_bytes, 100);
}

TEST(MemoryPeaks, AForeignTraceOutOfTimeOrderIsSortedFirst) {
  Trace t;
  t.device_names = {"gpu0"};
  t.memory = {sample(0, kA, 2, 0), sample(0, kA, 1, 70), sample(0, kA, 0, 10)};
  const MemoryStack s = memory_stack(t, 0);
  EXPECT_EQ(s.times_seconds, (std::vector<double>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(s.peak_bytes, 70);
  EXPECT_EQ(peak_bytes_by_device(t), (std::vector<double>{70}));
}

TEST(ReducePoints, ASmallStackComesBackAsItIs) {
  const MemoryStack s = memory_stack(example(), 0);
  EXPECT_EQ(reduce_points(s, 2).times_seconds, s.times_seconds);
}

TEST(ReducePoints, KeepsEachBinsHighestAndLowestAndThePeak) {
  // 10,000 samples of a saw tooth (period 100 samples, 0..99 bytes) with one
  // spike of 1000 B at sample 5,555; 50 bins of 200 samples each.
  Trace t;
  t.device_names = {"gpu0"};
  for (int i = 0; i < 10000; ++i) t.memory.push_back(sample(0, kA, i, i == 5555 ? 1000 : i % 100));
  const MemoryStack full = memory_stack(t, 0);
  const MemoryStack r = reduce_points(full, 50);
  EXPECT_LE(r.size(), 2u * 50 + 2);
  EXPECT_GE(r.size(), 50u);
  EXPECT_DOUBLE_EQ(r.peak_bytes, 1000);
  // The spike is kept, and every kept row reads as in the full stack.
  bool spike = false;
  for (size_t i = 0; i < r.size(); ++i) {
    spike |= r.times_seconds[i] == 5555;
    EXPECT_DOUBLE_EQ(live_at(full, r.times_seconds[i])[static_cast<size_t>(kA)],
                     r.bytes[static_cast<size_t>(kA)][i]);
  }
  EXPECT_TRUE(spike);
  // Every bin's low (0) and high (99) survive: the saw's range is intact.
  int zeros = 0, highs = 0;
  for (double v : r.bytes[static_cast<size_t>(kA)]) {
    zeros += v == 0 ? 1 : 0;
    highs += v == 99 ? 1 : 0;
  }
  EXPECT_GE(zeros, 49);
  EXPECT_GE(highs, 49);
}

// The simulator's samples of a bundled scenario: the stack's peak is the
// simulator's own peak of that device.
TEST(MemoryStack, PeaksAgreeWithTheSimulatorsReport) {
  auto doc = load_document(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/pmap_train_step.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  const Document& d = **doc;
  const std::vector<double> peaks = peak_bytes_by_device(*d.trace);
  ASSERT_EQ(peaks.size(), d.result->devices.size());
  for (size_t i = 0; i < peaks.size(); ++i) {
    EXPECT_DOUBLE_EQ(peaks[i], d.result->devices[i].peak_memory_bytes) << i;
    EXPECT_DOUBLE_EQ(memory_stack(*d.trace, static_cast<int>(i)).peak_bytes, peaks[i]);
  }
}

// tests/data/oom_mlp.yaml: 44 MiB devices; 'act1' allocates the second
// 8 MiB activation at 4.78 ms: 16 (inputs) + 8.01 (params) + 8.01 (grads)
// + 8 (h1) + 8 (a1) = 48 MiB live, over the 44 MiB line.
TEST(OomMark, NamesTheTaskAndTheLiveBytesByCategoryThen) {
  auto doc = load_document(std::string(BRIGADE_SOURCE_DIR) + "/tests/data/oom_mlp.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  const Document& d = **doc;
  const MemoryStack s = memory_stack(*d.trace, 0);
  const std::optional<OomMark> m = oom_mark(*d.result, d.program(), s);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->task.rfind("act1 (task ", 0), 0u) << m->task;
  EXPECT_NEAR(m->time_seconds, 4.78e-3, 0.01e-3);
  EXPECT_DOUBLE_EQ(m->capacity_bytes, 44.0 * 1048576);
  double live = 0;
  for (double b : m->live) live += b;
  EXPECT_DOUBLE_EQ(live, m->live_bytes);
  EXPECT_NEAR(live, 48.0 * 1048576, 0.02 * 1048576);
  EXPECT_NEAR(m->live[static_cast<size_t>(MemoryCategory::kParams)], 8.01 * 1048576,
              0.01 * 1048576);
  ASSERT_FALSE(m->largest_buffers.empty());
  EXPECT_EQ(m->largest_buffers.front().first, "inputs");
  // A device without an OOM has no mark.
  EXPECT_FALSE(oom_mark(sim::SimResult{}, nullptr, s).has_value());
}

}  // namespace
}  // namespace brigade::gui
