// The compare view (gui/views/compare_view.hpp; issue 17): two runs side by
// side on one time axis, the table `brigade compare` prints, a row's click
// pointing at lanes and spans, bad second runs as one line. Its screenshot
// and --compare's bad input: screenshot_test.cpp.
#include <gtest/gtest.h>
#include <QApplication>
#include <QDialog>
#include <QProcess>
#include <QTabBar>

#include "gui/app/main_window.hpp"
#include "gui/app/session.hpp"
#include "gui/model/loader.hpp"
#include "gui/views/compare_view.hpp"
#include "gui/views/timeline_canvas.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;
const std::string kAuto = kSrc + "/scenarios/lessons/12-runtime-surprise.yaml";
const std::string kHand = kSrc + "/scenarios/lessons/more/12-hand-placed.yaml";
// `brigade validate scenarios/validation/pipeline_transformer.yaml
// --trace-dir DIR`'s pair, gzipped (tests/data/compare/README.md).
const std::string kSimulated =
    kSrc + "/tests/data/compare/validation-pipeline-transformer.sim.json.gz";
const std::string kMeasured =
    kSrc + "/tests/data/compare/validation-pipeline-transformer.measured.json.gz";

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// A compare view of its own, A opened, B compared with it.
std::unique_ptr<CompareView> compared(const std::string& a, const std::string& b) {
  auto v = std::make_unique<CompareView>();
  v->setAttribute(Qt::WA_DontShowOnScreen);
  v->resize(1600, 900);
  v->show();
  auto doc = load_document(a);
  EXPECT_TRUE(doc.is_ok()) << doc.message();
  if (doc.is_ok()) v->set_document(*doc);
  v->compare_with(q(b), {});
  EXPECT_TRUE(v->wait_ready(120000));
  return v;
}

bool no_dialog_open() {
  for (QWidget* w : QApplication::topLevelWidgets())
    if (qobject_cast<QDialog*>(w) && w->isVisible()) return false;
  return true;
}

// File > Compare with… and --compare A B: both timelines, one axis, moved
// together; the compare view comes to the front; what differs is said.
TEST(CompareView, TwoRunsShowBothTimelinesOnOneAxisMovingTogether) {
  MainWindow w(LoadOptions{}, /*remember=*/false);
  w.resize(1600, 900);
  w.show();
  w.open_file(q(kAuto));
  w.compare_with(q(kHand));
  ASSERT_TRUE(w.session()->wait(60000));
  auto* v = qobject_cast<CompareView*>(w.view("compare"));
  ASSERT_TRUE(v);
  ASSERT_TRUE(v->wait_ready(60000));
  ASSERT_TRUE(v->comparison());
  QApplication::processEvents();
  // Its tab in front of the timeline's.
  QString front;
  for (QTabBar* tabs : w.findChildren<QTabBar*>())
    for (int i = 0; i < tabs->count(); ++i)
      if (tabs->tabText(i) == "Compare") front = tabs->tabText(tabs->currentIndex());
  EXPECT_EQ(front.toStdString(), "Compare");
  TimelineCanvas* a = v->canvas_a();
  TimelineCanvas* b = v->canvas_b();
  EXPECT_GT(a->layout().num_rows(), 0);
  EXPECT_GT(b->layout().num_rows(), 0);
  // One axis: the same extent, covering both steps (5.92 and 1.97 ms), and
  // a time at the same x in both.
  EXPECT_EQ(a->axis().extent(), b->axis().extent());
  EXPECT_GE(a->axis().extent().end_seconds,
            std::max(v->comparison()->a.step_seconds, v->comparison()->b.step_seconds));
  EXPECT_EQ(a->axis().width_pixels(), b->axis().width_pixels());
  EXPECT_EQ(a->axis().time_to_x(1e-3), b->axis().time_to_x(1e-3));
  // Zoom in A: B follows; pan B: A follows; back in A: both at all again.
  const TimeWindow all = a->axis().window();
  a->zoom_to_window({0.5e-3, 1.5e-3});
  EXPECT_EQ(b->axis().window(), (TimeWindow{0.5e-3, 1.5e-3}));
  b->pan_right();
  EXPECT_EQ(a->axis().window(), b->axis().window());
  EXPECT_GT(a->axis().window().start_seconds, 0.5e-3);
  a->zoom_back();
  EXPECT_EQ(a->axis().window(), all);
  EXPECT_EQ(b->axis().window(), all);
  b->zoom_to_window({1e-3, 2e-3});
  EXPECT_EQ(a->axis().window(), (TimeWindow{1e-3, 2e-3}));
  a->zoom_back();  // A holds the stack it followed
  EXPECT_EQ(a->axis().window(), all);
  EXPECT_EQ(b->axis().window(), all);
  EXPECT_EQ(v->notes_text().toStdString(),
            "Compared as far as they can be: different programs: 'lesson-runtime-surprise' and "
            "'lesson-runtime-hand'.");
}

// The table is `brigade compare A B --rows 0`'s, to the character: two
// scenarios, and a simulated-measured pair of traces.
TEST(CompareView, TheTableIsTheCommandLinesTable) {
  for (const auto& [a, b] : {std::pair{kAuto, kHand}, std::pair{kSimulated, kMeasured}}) {
    SCOPED_TRACE(b);
    auto v = compared(a, b);
    ASSERT_TRUE(v->comparison());
    QProcess p;
    p.start(BRIGADE_CLI_EXE, {"compare", q(a), q(b), "--rows", "0"});
    ASSERT_TRUE(p.waitForFinished(120000));
    ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    EXPECT_EQ(v->table_text().toStdString(), p.readAllStandardOutput().toStdString());
    EXPECT_GT(v->table_rows().size(), 3u);
  }
}

// A device's row opens and shades its lanes in both timelines; a kind's row
// outlines its spans.
TEST(CompareView, ARowPointsAtItsDevicesLanesOrItsKindsSpans) {
  auto v = compared(kSimulated, kMeasured);
  ASSERT_TRUE(v->comparison());
  const auto& rows = v->table_rows();
  int device_row = -1, kind_row = -1;
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    if (rows[i].title) continue;
    if (rows[i].section == CompareSection::kDevices && device_row < 0) device_row = i;
    if (rows[i].section == CompareSection::kKinds && kind_row < 0) kind_row = i;
  }
  ASSERT_GE(device_row, 0);
  ASSERT_GE(kind_row, 0);
  const std::string device = rows[static_cast<size_t>(device_row)].scope;  // "cpu1"
  v->activate_row(device_row);
  EXPECT_EQ(v->canvas_a()->highlighted_device(), device == "cpu0" ? 0 : 1);
  EXPECT_EQ(v->canvas_b()->highlighted_device(), v->canvas_a()->highlighted_device());
  v->activate_row(kind_row);
  EXPECT_EQ(v->canvas_a()->highlighted_device(), -1);
  v->activate_row(0);  // a title: nothing
  EXPECT_EQ(v->canvas_a()->highlighted_device(), -1);
}

// A second run that cannot be opened, or is no run, is one line above the
// timelines; no dialog; the comparison shown stays.
TEST(CompareView, ABadSecondRunIsOneLineAndTheComparisonStays) {
  auto v = compared(kSimulated, kMeasured);
  ASSERT_TRUE(v->comparison());
  const std::string before = v->table_text().toStdString();
  const std::string missing = kSrc + "/nope.json";
  v->compare_with(q(missing), {});
  ASSERT_TRUE(v->wait_ready(60000));
  EXPECT_EQ(v->notes_text().toStdString(),
            missing + ": error: found no readable file; expected a scenario, a trace or a profile");
  EXPECT_EQ(v->table_text().toStdString(), before);
  const std::string profile = kSrc + "/scenarios/profiles/h200_measured.yaml";
  v->compare_with(q(profile), {});
  ASSERT_TRUE(v->wait_ready(60000));
  EXPECT_EQ(
      v->notes_text().toStdString(),
      profile + ": error: found a hardware profile; expected a scenario or a trace to compare");
  EXPECT_TRUE(no_dialog_open());
  // A good one clears the line.
  v->compare_with(q(kMeasured), {});
  ASSERT_TRUE(v->wait_ready(60000));
  EXPECT_EQ(v->notes_text().toStdString(),
            "Note: a prediction against a measurement (sim:flow, cpu).");
  v->clear_b();
  EXPECT_FALSE(v->run_b());
  EXPECT_FALSE(v->comparison());
}

// A new A compares with the B already there.
TEST(CompareView, ANewRunAComparesWithTheSameB) {
  auto v = compared(kAuto, kHand);
  ASSERT_TRUE(v->comparison());
  auto doc = load_document(kSimulated);
  ASSERT_TRUE(doc.is_ok());
  v->set_document(*doc);
  ASSERT_TRUE(v->wait_ready(60000));
  ASSERT_TRUE(v->comparison());
  EXPECT_EQ(v->comparison()->a.label, kSimulated);
  EXPECT_EQ(v->comparison()->b.label, kHand);
  EXPECT_FALSE(v->comparison()->same_program);
}

}  // namespace
}  // namespace brigade::gui
