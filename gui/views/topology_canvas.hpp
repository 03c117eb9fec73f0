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

  // Packets drawn in the last frame, and devices labelled with a collective.
  int last_packets() const { return last_packets_; }
  int last_collective_labels() const { return last_collective_labels_; }
  // The bins the colours are taken over.
  std::pair<int, int> window_bins() const;
  static constexpr int kMaxPackets = 3000;

 protected:
  void paintEvent(QPaintEvent* e) override;
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

  DocumentPtr doc_;
  TopologyLayout layout_;
  double time_ = 0;
  bool whole_step_ = false;
  std::vector<std::vector<int>> device_streams_;  // device -> streams with spans
  int last_packets_ = 0;
  int last_collective_labels_ = 0;
};

}  // namespace brigade::gui
