// The timeline's canvas: keys, zoom stack, clicks and find, offscreen
// (gui/views/timeline_canvas.hpp, timeline_view.hpp).
#include <gtest/gtest.h>
#include <QApplication>
#include <QHelpEvent>
#include <QImage>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

#include "gui/model/loader.hpp"
#include "gui/views/export.hpp"
#include "gui/views/timeline_canvas.hpp"
#include "gui/views/timeline_view.hpp"

namespace brigade::gui {
namespace {

DocumentPtr pmap() {
  auto r = load_document(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/pmap_train_step.yaml");
  EXPECT_TRUE(r.is_ok()) << r.message();
  return r.value();
}

// A timeline view of pmap_train_step, shown offscreen.
class Timeline : public ::testing::Test {
 protected:
  void SetUp() override {
    v.resize(1400, 800);
    v.show();
    doc = pmap();
    v.set_document(doc);
    c = v.canvas();
  }
  TimelineView v;
  DocumentPtr doc;
  TimelineCanvas* c = nullptr;
};

TEST_F(Timeline, WSZoomAndADPanAsInPerfetto) {
  const TimeWindow all = c->axis().window();
  QTest::keyClick(c, Qt::Key_W);
  const TimeWindow in = c->axis().window();
  EXPECT_NEAR(in.duration_seconds(), all.duration_seconds() / 1.25, 1e-15);
  QTest::keyClick(c, Qt::Key_D);
  EXPECT_GT(c->axis().window().start_seconds, in.start_seconds);
  QTest::keyClick(c, Qt::Key_A);
  EXPECT_NEAR(c->axis().window().start_seconds, in.start_seconds, 1e-15);
  QTest::keyClick(c, Qt::Key_S);
  EXPECT_NEAR(c->axis().window().duration_seconds(), all.duration_seconds(), 1e-15);
}

TEST_F(Timeline, ZoomToSelectionPushesAndBackspacePopsExactly) {
  const TimeWindow all = c->axis().window();
  // Drag over the data area from 30% to 60% of its width.
  const QRect area(TimelineCanvas::kLabelWidth, TimelineCanvas::kTopHeight,
                   static_cast<int>(c->axis().width_pixels()), 200);
  const int y = area.top() + 30;
  const int x0 = area.left() + area.width() * 3 / 10, x1 = area.left() + area.width() * 6 / 10;
  QTest::mousePress(c, Qt::LeftButton, {}, QPoint(x0, y));
  QTest::mouseMove(c, QPoint(x1, y));
  QTest::mouseRelease(c, Qt::LeftButton, {}, QPoint(x1, y));
  ASSERT_TRUE(c->selection().has_value());
  QTest::keyClick(c, Qt::Key_Z);
  EXPECT_EQ(c->zoom_stack().size(), 1u);
  EXPECT_NEAR(c->axis().window().duration_seconds(), all.duration_seconds() * 0.3,
              all.duration_seconds() * 0.01);
  QTest::keyClick(c, Qt::Key_Backspace);
  EXPECT_EQ(c->axis().window(), all);
  EXPECT_EQ(c->zoom_stack().size(), 0u);
}

TEST_F(Timeline, ClickingASpanSelectsItAndPaintsItsFrame) {
  // Find by name selects the first match and reveals it.
  v.find("grad psum");
  ASSERT_EQ(v.found_count(), 4);
  const int s = c->selected_span();
  ASSERT_GE(s, 0);
  EXPECT_EQ(doc->trace->names[static_cast<size_t>(doc->trace->spans[static_cast<size_t>(s)].name)],
            "grad psum");
  v.find_next(1);
  EXPECT_NE(c->selected_span(), s);
  v.find_next(-1);
  EXPECT_EQ(c->selected_span(), s);
  // Escape clears the selection.
  QTest::keyClick(c, Qt::Key_Escape);
  EXPECT_EQ(c->selected_span(), -1);
  // Painting draws every span of this small trace, one item each, and arrows.
  render_widget(c);
  EXPECT_EQ(c->last_frame_items(), static_cast<std::int64_t>(doc->trace->spans.size()));
  EXPECT_GT(c->last_frame_arrows(), 0);
}

// Where a span of the first stream row is drawn: its middle.
QPoint span_point(TimelineCanvas* c, const Document& doc, int span) {
  const TraceSpan& s = doc.trace->spans[static_cast<size_t>(span)];
  const int r = c->layout().row_showing_stream(s.stream);
  const double x =
      TimelineCanvas::kLabelWidth + c->axis().time_to_x((s.start_seconds + s.end_seconds) / 2);
  const double y = TimelineCanvas::kTopHeight + c->layout().row(r).y + 8;
  return QPoint(static_cast<int>(x), static_cast<int>(y));
}

int first_span_named(const Document& d, const std::string& name) {
  for (size_t i = 0; i < d.trace->spans.size(); ++i)
    if (d.trace->names[static_cast<size_t>(d.trace->spans[i].name)] == name)
      return static_cast<int>(i);
  return -1;
}

TEST_F(Timeline, ClickShowsTheSpansDetailsAndHoverItsSummary) {
  const int psum = first_span_named(*doc, "grad psum");
  ASSERT_GE(psum, 0);
  const QPoint at = span_point(c, *doc, psum);
  QTest::mouseClick(c, Qt::LeftButton, {}, at);
  EXPECT_EQ(c->selected_span(), psum);
  const QString details = v.details_text();
  EXPECT_TRUE(details.contains("allreduce (auto) over 4 ranks")) << details.toStdString();
  EXPECT_TRUE(details.contains("waited for")) << details.toStdString();
  // Hovering shows its one-line summary.
  QHelpEvent help(QEvent::ToolTip, at, c->mapToGlobal(at));
  QApplication::sendEvent(c, &help);
  EXPECT_TRUE(QToolTip::text().startsWith("grad psum — 8 us (AllReduce, "))
      << QToolTip::text().toStdString();
}

TEST_F(Timeline, CtrlWheelZoomsAtTheMouseAndDragSelectsARangeWithItsStatistics) {
  const TimeWindow all = c->axis().window();
  const QPoint at(TimelineCanvas::kLabelWidth + 300, TimelineCanvas::kTopHeight + 30);
  const double t_at = c->axis().x_to_time(300);
  QWheelEvent wheel(at, c->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                    Qt::ControlModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(c, &wheel);
  EXPECT_NEAR(c->axis().window().duration_seconds(), all.duration_seconds() / 1.25, 1e-15);
  EXPECT_NEAR(c->axis().x_to_time(300), t_at, 1e-15);  // the time under the mouse stays
  QTest::keyClick(c, Qt::Key_0);                       // all, back on the zoom stack
  // Select the whole trace: every device's statistics row appears.
  const int x0 = TimelineCanvas::kLabelWidth + 1;
  const int x1 = TimelineCanvas::kLabelWidth + static_cast<int>(c->axis().width_pixels()) - 1;
  QTest::mousePress(c, Qt::LeftButton, {}, QPoint(x0, at.y()));
  QTest::mouseMove(c, QPoint(x1, at.y()));
  QTest::mouseRelease(c, Qt::LeftButton, {}, QPoint(x1, at.y()));
  const QString stats = v.range_text();
  EXPECT_EQ(stats.count('\n'), 4) << stats.toStdString();  // four devices
  EXPECT_TRUE(stats.contains("cpu0 | ")) << stats.toStdString();
}

// A scenario whose host sets the pace (scenarios/host_bound_gpt.yaml, 40 us
// a kernel): each device's host row comes first under it and is painted in
// the host colour; zoomed in on the step's start, hovering a slice of
// device 0's host names the task it issued and says that it waited for it.
TEST(TimelineHost, TheHostRowIsPaintedAndItsSlicesExplainTheWait) {
  auto r = load_document(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/host_bound_gpt.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  const DocumentPtr doc = r.value();
  ASSERT_NE(doc->host, nullptr);
  ASSERT_FALSE(doc->trace->host.empty());
  TimelineView v;
  v.resize(1400, 800);
  v.show();
  v.set_document(doc);
  TimelineCanvas* c = v.canvas();
  int host_row = -1;
  for (int i = 0; i < c->layout().num_rows() && host_row < 0; ++i)
    if (c->layout().row(i).kind == RowKind::kHost && c->layout().row(i).visible) host_row = i;
  ASSERT_GE(host_row, 0);
  const LaneRow& row = c->layout().row(host_row);
  EXPECT_EQ(c->layout().row(host_row - 1).kind, RowKind::kDevice);
  EXPECT_EQ(c->layout().row(host_row + 1).kind, RowKind::kStream);
  // Zoom to the first 200 us: 5 issues at 40 us.
  c->zoom_to_window({0, 200e-6});
  QImage img(c->size(), QImage::Format_ARGB32);
  c->render(&img);
  EXPECT_GT(c->last_frame_items(), 0);
  const int y = TimelineCanvas::kTopHeight + static_cast<int>(row.y + row.height / 2);
  // The second slice of the device's host: [40, 80] us.
  const int x = TimelineCanvas::kLabelWidth + static_cast<int>(c->axis().time_to_x(60e-6));
  const QColor painted = img.pixelColor(x, y);
  const QColor host = QColor::fromRgb(class_rgb(SpanClass::kHost));
  EXPECT_LT(std::abs(painted.red() - host.red()) + std::abs(painted.green() - host.green()) +
                std::abs(painted.blue() - host.blue()),
            24)
      << painted.name().toStdString();
  const QPoint at(x, y);
  QHelpEvent help(QEvent::ToolTip, at, c->mapToGlobal(at));
  QApplication::sendEvent(c, &help);
  const std::string tip = QToolTip::text().toStdString();
  EXPECT_NE(tip.find("'s host issues "), std::string::npos) << tip;
  EXPECT_NE(tip.find(": 40.0 us, from 40.0 us to 80.0 us; it started then, waiting for its host"),
            std::string::npos)
      << tip;
  // Selecting the window: the statistics gain a host column, 100% busy
  // (the host issues back to back from 0).
  const int x0 = TimelineCanvas::kLabelWidth + 1;
  const int x1 = TimelineCanvas::kLabelWidth + static_cast<int>(c->axis().width_pixels()) - 1;
  QTest::mousePress(c, Qt::LeftButton, {}, QPoint(x0, y));
  QTest::mouseMove(c, QPoint(x1, y));
  QTest::mouseRelease(c, Qt::LeftButton, {}, QPoint(x1, y));
  const std::string stats = v.range_text().toStdString();
  EXPECT_NE(stats.find(" | 100.0\n"), std::string::npos) << stats;
}

}  // namespace
}  // namespace brigade::gui
