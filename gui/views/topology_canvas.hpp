// The topology view's painted area (topology_view.hpp).
#pragma once

#include <vector>

#include <QWidget>

#include "gui/model/document.hpp"
#include "gui/model/topology_layout.hpp"

namespace brigade::gui {

class TopologyCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit TopologyCanvas(QWidget* parent = nullptr);
  void set_document(DocumentPtr doc);
  void set_time_seconds(double t);
  void set_whole_step(bool on);
  double time_seconds() const { return time_; }
  // One node expanded to the whole canvas (-1: every node). A click on a
  // node of the aggregated picture (or Ctrl+wheel up over it) asks for it
  // through node_clicked; Esc (or Ctrl+wheel down) asks to go back.
  void set_focus_node(int node);
  int focus_node() const { return focus_node_; }
  bool aggregated() const { return layout_.aggregated; }
  // The node whose box holds a point (-1: none).
  int node_at(QPointF pos) const;
  QRectF node_rect(int node) const;  // on screen, in the current layout

  // Packets drawn in the last frame, and devices labelled with a collective.
  int last_packets() const { return last_packets_; }
  int last_collective_labels() const { return last_collective_labels_; }
  // The bins the colours are taken over.
  std::pair<int, int> window_bins() const;
  static constexpr int kMaxPackets = 3000;

 signals:
  void node_clicked(int node);
  void back_requested();

 protected:
  void paintEvent(QPaintEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  bool event(QEvent* e) override;

 private:
  QPointF at(int vertex) const;  // a vertex's position on screen
  QRectF device_rect(int device) const;
  QRectF area() const;
  QString tooltip_at(QPointF pos) const;
  void relayout();
  // The collective span running on `device` at the time, -1 if none.
  int collective_at(int device) const;
  void paint_links(QPainter& p, int b0, int b1);
  void paint_packets(QPainter& p);
  void paint_devices(QPainter& p, int b0, int b1);
  void paint_legend(QPainter& p);
  void paint_node_summaries(QPainter& p, int b0, int b1);

  DocumentPtr doc_;
  TopologyLayout layout_;
  double time_ = 0;
  bool whole_step_ = false;
  std::vector<std::vector<int>> device_streams_;  // device -> streams with spans
  int last_packets_ = 0;
  int last_collective_labels_ = 0;
  int focus_node_ = -1;
};

}  // namespace brigade::gui
