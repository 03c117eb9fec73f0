// The misconceptions shown, not told, in what the app opens (issue 17):
// each lesson's scenario loads in the app's loader, and lesson 11's
// timeline has pmap's 8 shards running together where the for loop's 8
// blocks run one after another on one lane.
#include <algorithm>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "core/lesson.hpp"
#include "gui/model/loader.hpp"

namespace brigade::gui {
namespace {

const std::string kLessons = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/lessons";

// Every lesson's scenario opens in the app: lowered, simulated, indexed.
TEST(LessonScenarios, EveryLessonOpensInTheApp) {
  auto lessons = load_lessons(kLessons);
  ASSERT_TRUE(lessons.is_ok()) << lessons.message();
  for (const Lesson& l : *lessons) {
    SCOPED_TRACE(l.scenario_path);
    LoadOptions o;
    o.granularity = planner::Granularity::kStep;
    auto doc = load_document(l.scenario_path, o);
    ASSERT_TRUE(doc.is_ok()) << doc.message();
    EXPECT_TRUE((*doc)->has_trace());
  }
}

// Compute spans' start times per device.
std::map<int, std::vector<std::pair<double, double>>> compute_by_device(const Trace& t) {
  std::map<int, std::vector<std::pair<double, double>>> out;
  for (const TraceSpan& s : t.spans)
    if (s.kind == TaskKind::kCompute) out[s.device].push_back({s.start_seconds, s.end_seconds});
  return out;
}

// pmap: 8 devices each start their stack at the same time (0); the for
// loop: one device, its 8 matmuls one after another (each starts after the
// one before has ended).
TEST(LessonScenarios, PmapShardsRunTogetherTheLoopInTurn) {
  auto pmap = load_document(kLessons + "/11-pmap-not-a-loop.yaml");
  ASSERT_TRUE(pmap.is_ok()) << pmap.message();
  const auto together = compute_by_device(*(*pmap)->trace);
  ASSERT_EQ(together.size(), 8u);
  for (const auto& [dev, spans] : together) {
    ASSERT_FALSE(spans.empty());
    EXPECT_EQ(std::min_element(spans.begin(), spans.end())->first, 0) << "device " << dev;
  }
  auto loop = load_document(kLessons + "/more/11-for-loop.yaml");
  ASSERT_TRUE(loop.is_ok()) << loop.message();
  const auto in_turn = compute_by_device(*(*loop)->trace);
  ASSERT_EQ(in_turn.size(), 1u);
  auto spans = in_turn.begin()->second;
  ASSERT_GE(spans.size(), 8u);
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) EXPECT_GE(spans[i].first, spans[i - 1].second - 1e-15);
}

}  // namespace
}  // namespace brigade::gui
