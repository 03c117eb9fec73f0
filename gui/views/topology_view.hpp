// The topology view: nodes, devices, switches and links laid out by node
// (gui/model/topology_layout.hpp); link width by capacity, colour by
// utilisation (bytes carried / (capacity x time)); devices filled by their
// compute occupancy and outlined in the colour of the collective in flight,
// named when there is room; a time slider and a play button that animate
// transfers as packets moving along their routes. Utilisation is over a
// short window around the time (1% of the step), or the whole step. Over
// 16 nodes, nodes are boxes with a summary each (occupancy, the collective
// in flight); a click expands one to the whole canvas, Esc goes back.
// Logic: topology_layout.hpp, topology_usage.hpp.
#pragma once

#include "gui/views/view.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace brigade::gui {

class TopologyCanvas;

class TopologyView : public View {
  Q_OBJECT
 public:
  explicit TopologyView(QWidget* parent = nullptr);
  void set_document(DocumentPtr doc) override;
  void set_time_seconds(double seconds) override;
  bool shows(const Document& doc) const override { return doc.topology() && doc.usage; }

  TopologyCanvas* canvas() const { return canvas_; }
  void play(bool on);
  bool playing() const;
  // Expands one node of a many-node cluster (-1: back to all nodes).
  void focus_node(int node);

 protected:
  void changeEvent(QEvent* e) override;  // LanguageChange: the play button's text

 private:
  void show_play_text();
  void set_time_from_slider(int value);
  void tick();

  DocumentPtr doc_;
  TopologyCanvas* canvas_;
  QToolButton* play_;
  QToolButton* all_nodes_;
  QSlider* slider_;
  QLabel* time_label_;
  QComboBox* speed_;
  QCheckBox* whole_step_;
  QTimer* timer_;
};

}  // namespace brigade::gui
