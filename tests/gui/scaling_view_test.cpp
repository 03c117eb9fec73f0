// The scaling view, offscreen (gui/views/scaling_view.hpp): the sweep on
// its worker thread, both judges, edited counts, cancel, non-scenarios.
#include <gtest/gtest.h>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>

#include "gui/model/loader.hpp"
#include "gui/views/scaling_view.hpp"

namespace brigade::gui {
namespace {

DocumentPtr pmap() {
  auto r = load_document(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/pmap_train_step.yaml");
  EXPECT_TRUE(r.is_ok()) << r.message();
  return r.value();
}

QPushButton* button(QWidget* w, const QString& text) {
  for (QPushButton* b : w->findChildren<QPushButton*>())
    if (b->text() == text) return b;
  return nullptr;
}

TEST(ScalingView, SweepsWhenShownWithBothJudgesAndFitsAmdahl) {
  ScalingView v;
  v.resize(1200, 700);
  v.show();
  v.set_document(pmap());
  ASSERT_TRUE(v.wait_ready(120000));
  ASSERT_NE(v.simulated(), nullptr);
  ASSERT_NE(v.closed_form(), nullptr);
  EXPECT_EQ(v.simulated()->points.size(), 4u);  // 1, 2, 4, 8 devices
  EXPECT_EQ(v.simulated()->judge, "sim");
  EXPECT_EQ(v.closed_form()->judge, "cost");
  EXPECT_TRUE(v.simulated()->amdahl_p.has_value());
  const std::string summary = v.summary_text().toStdString();
  // The judges fit pmap alike (one plan, one answer): said once for both.
  EXPECT_NE(summary.find("Simulated and closed form alike: Amdahl p = "), std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("Closed form: "), std::string::npos) << summary;
  EXPECT_NE(summary.find("stops paying after 1 device: "), std::string::npos) << summary;
  // pmap's step only grows with devices (p < 0): the summary says why no
  // curve is drawn, its "0 <= p <= 1" escaped (the label is rich text, where
  // a raw "<" cut the rest of the line off).
  ASSERT_LT(*v.simulated()->amdahl_p, 0);
  EXPECT_NE(summary.find("no curve drawn: the fitted p is not a parallel fraction (Amdahl's law "
                         "needs 0 &lt;= p &lt;= 1)"),
            std::string::npos)
      << summary;
  auto* table = v.findChild<QTableWidget*>();
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->rowCount(), 4);
  EXPECT_EQ(table->item(0, 0)->text(), "1");
  EXPECT_EQ(table->item(0, 2)->text(), "1.00×");
}

// Where the judges agree the closed form's points used to sit exactly under
// the simulated ones: "closed form" in the legend, no orange to be seen. Its
// points are now hollow rings, larger than the dots and drawn after them, on
// both charts; the legend names each judge once.
TEST(ScalingView, TheClosedFormsPointsShowOverTheSimulatedOnes) {
  ScalingView v;
  v.resize(1200, 700);
  v.show();
  v.set_document(pmap());
  ASSERT_TRUE(v.wait_ready(120000));
  (void)v.grab();  // lays the legends out: a marker shows once painted
  const auto charts = v.findChildren<QChartView*>();
  ASSERT_EQ(charts.size(), 2);
  for (QChartView* cv : charts) {
    const QList<QAbstractSeries*> series = cv->chart()->series();
    int simulated = -1, rings = -1, legend_closed = 0, legend_simulated = 0;
    for (int i = 0; i < series.size(); ++i) {
      if (series[i]->name() == "simulated") simulated = i;
      if (auto* sc = qobject_cast<QScatterSeries*>(series[i]); sc && sc->name() == "closed form") {
        rings = i;
        EXPECT_EQ(sc->color().alpha(), 0);  // hollow: the dot under it shows
        EXPECT_GT(sc->markerSize(), 8);     // larger than the simulated dots
        EXPECT_EQ(sc->count(), 4);
      }
    }
    for (QLegendMarker* m : cv->chart()->legend()->markers()) {
      if (!m->isVisible()) continue;
      legend_closed += m->label() == "closed form";
      legend_simulated += m->label() == "simulated";
    }
    ASSERT_GE(simulated, 0);
    ASSERT_GE(rings, 0);
    EXPECT_GT(rings, simulated);  // drawn after, so on top
    EXPECT_EQ(legend_closed, 1);
    EXPECT_EQ(legend_simulated, 1);
  }
}

TEST(ScalingView, SweepsTheCountsTypedIn) {
  ScalingView v;
  v.resize(1200, 700);
  v.show();
  v.set_document(pmap());
  ASSERT_TRUE(v.wait_ready(120000));
  auto* edit = v.findChild<QLineEdit*>();
  ASSERT_NE(edit, nullptr);
  edit->setText("4, 2, 2");
  button(&v, "Sweep")->click();
  ASSERT_TRUE(v.wait_ready(120000));
  ASSERT_NE(v.simulated(), nullptr);
  ASSERT_EQ(v.simulated()->points.size(), 2u);  // sorted, repeats dropped
  EXPECT_EQ(v.simulated()->points[0].devices, 2);
  EXPECT_EQ(v.simulated()->points[1].devices, 4);
  // A count that is not a number is refused before anything runs.
  edit->setText("2, lots");
  button(&v, "Sweep")->click();
  EXPECT_FALSE(v.busy());
  bool said = false;
  for (QLabel* l : v.findChildren<QLabel*>())
    said |= l->text() == "Devices: found 'lots'; expected positive whole numbers such as 1, 2, 4";
  EXPECT_TRUE(said);
}

TEST(ScalingView, CancelDropsTheSweepAndKeepsTheViewUsable) {
  ScalingView v;
  v.resize(1200, 700);
  v.show();
  v.set_document(pmap());
  ASSERT_TRUE(v.busy());
  button(&v, "Cancel")->click();
  EXPECT_FALSE(v.busy());
  QTest::qWait(50);  // the cancelled worker's posts arrive and are dropped
  EXPECT_EQ(v.simulated(), nullptr);
  button(&v, "Sweep")->click();
  ASSERT_TRUE(v.wait_ready(120000));
  EXPECT_NE(v.simulated(), nullptr);
}

TEST(ScalingView, ATraceHasNothingToSweep) {
  ScalingView v;
  v.show();
  Trace t;
  t.device_names = {"gpu0"};
  const DocumentPtr doc = document_from_trace(std::move(t), "t.json");
  EXPECT_FALSE(v.shows(*doc));
  v.set_document(doc);
  EXPECT_FALSE(v.busy());
  EXPECT_TRUE(v.wait_ready(0));
  EXPECT_EQ(v.simulated(), nullptr);
  EXPECT_FALSE(button(&v, "Sweep")->isEnabled());
}

}  // namespace
}  // namespace brigade::gui
