// The topology view's aggregated picture of a many-node cluster, offscreen
// (gui/views/topology_view.hpp): per-node summaries, a click expands a
// node, Esc goes back.
#include <filesystem>

#include <gtest/gtest.h>
#include <QKeyEvent>
#include <QTest>
#include <QToolButton>

#include "gui/model/loader.hpp"
#include "gui/views/export.hpp"
#include "gui/views/topology_canvas.hpp"
#include "gui/views/topology_view.hpp"

namespace brigade::gui {
namespace {

// 20 DGX A100 nodes, one data-parallel AllReduce over all 160 GPUs.
DocumentPtr twenty_nodes() {
  auto r = load_document(std::string(BRIGADE_SOURCE_DIR) + "/tests/data/mlp_20_nodes.yaml");
  EXPECT_TRUE(r.is_ok()) << r.message();
  return r.value();
}

// The middle of the first collective span.
double mid_collective(const Document& d) {
  for (const TraceSpan& s : d.trace->spans)
    if (s.kind == TaskKind::kCollective) return (s.start_seconds + s.end_seconds) / 2;
  ADD_FAILURE() << "no collective";
  return 0;
}

TEST(TopologyFocus, ManyNodesAreSummarisedAndAClickExpandsOne) {
  const DocumentPtr doc = twenty_nodes();
  TopologyView v;
  v.resize(1400, 800);
  v.show();
  v.set_document(doc);
  v.set_time_seconds(mid_collective(*doc));
  TopologyCanvas* c = v.canvas();
  ASSERT_TRUE(c->aggregated());
  render_widget(&v);
  // Every node names the AllReduce once, on the node; no packets drawn.
  EXPECT_EQ(c->last_collective_labels(), 20);
  EXPECT_EQ(c->last_packets(), 0);

  const QRectF box = c->node_rect(3);
  ASSERT_FALSE(box.isEmpty());
  QTest::mouseClick(c, Qt::LeftButton, {}, box.center().toPoint());
  EXPECT_EQ(c->focus_node(), 3);
  EXPECT_FALSE(c->aggregated());
  // Kept beside the screenshot tests' pictures, to look at.
  const auto dir = std::filesystem::temp_directory_path() / "brigade_gui_screens";
  std::filesystem::create_directories(dir);
  render_widget(&v).save(QString::fromStdString((dir / "topology_node3.png").string()));
  // Expanded: the 8 GPUs each name the collective they are in, and the
  // ring's packets move on the node's links.
  EXPECT_EQ(c->last_collective_labels(), 8);
  EXPECT_GT(c->last_packets(), 0);
  QToolButton* back = nullptr;
  for (QToolButton* b : v.findChildren<QToolButton*>())
    if (b->text().contains("All nodes")) back = b;
  ASSERT_NE(back, nullptr);
  EXPECT_TRUE(back->isVisible());

  QTest::keyClick(c, Qt::Key_Escape);
  EXPECT_EQ(c->focus_node(), -1);
  EXPECT_TRUE(c->aggregated());
  EXPECT_FALSE(back->isVisible());
}

TEST(TopologyFocus, CtrlWheelExpandsAndReturns) {
  const DocumentPtr doc = twenty_nodes();
  TopologyView v;
  v.resize(1400, 800);
  v.show();
  v.set_document(doc);
  TopologyCanvas* c = v.canvas();
  const QPointF at = c->node_rect(7).center();
  QWheelEvent in(at, c->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                 Qt::ControlModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(c, &in);
  EXPECT_EQ(c->focus_node(), 7);
  QWheelEvent out(at, c->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                  Qt::ControlModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(c, &out);
  EXPECT_EQ(c->focus_node(), -1);
}

}  // namespace
}  // namespace brigade::gui
