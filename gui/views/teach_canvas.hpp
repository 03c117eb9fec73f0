// The teaching view's drawing (QPainter): one step of the demo from a
// TeachScene's numbers. Painting only; what a step shows is decided in
// gui/model/teach_steps.hpp (pmap_frame) and the numbers in teach_scene.hpp.
// Split in two files: teach_canvas.cpp (overview, transfer, output) and
// teach_canvas_shards.cpp (transform and the pmap demo, which draw shards).
#pragma once

#include <QColor>
#include <QRectF>
#include <QWidget>

#include "gui/model/teach_scene.hpp"
#include "gui/model/teach_steps.hpp"

class QPainter;

namespace brigade::gui {

class TeachCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit TeachCanvas(QWidget* parent = nullptr);
  // `scene` must outlive the canvas's use of it (the view owns it); null: nothing open.
  void set_scene(const TeachScene* scene);
  // The step and how far its animation has gone (0 to 1).
  void set_step(TeachStep step, double progress);

  // A device's colour (the same chef, the same colour, in every mode).
  static QColor chef_colour(int index);
  // The colour of a station's part k (kStationParts[k]): the memory view's
  // colour of that category, so that one colour means one thing in the app.
  static QColor part_colour(int k);

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  void paint_overview(QPainter& p, QRectF r);
  void paint_transfer(QPainter& p, QRectF r);
  void paint_transform(QPainter& p, QRectF r);
  void paint_output(QPainter& p, QRectF r);
  void paint_pmap(QPainter& p, QRectF r);
  // A chef: hat and box with its name; returns the box.
  QRectF paint_chef(QPainter& p, QRectF box, int index, const QString& name, bool active = true);
  // A tensor of `global` shape drawn at the top of `frame` with its blocks
  // (none: a dashed outline); returns the tensor's rectangle.
  QRectF paint_blocks(QPainter& p, QRectF frame, const Shape& global,
                      const std::vector<ShardBlock>& blocks);
  // A layout: one tensor per chef, each with its device's name and shape.
  void paint_layout(QPainter& p, QRectF r, const ShardLayout& layout, const QString& caption);
  // A bar of two parts (alpha, beta) with their labels and a cursor at `progress` of the whole.
  void paint_two_part_bar(QPainter& p, QRectF r, double alpha_seconds, double beta_seconds,
                          const QString& alpha_label, const QString& beta_label, double progress);
  // The sauce bowl (AllReduce), centred at `c`.
  QRectF paint_bowl(QPainter& p, QPointF c, const QString& label, bool full);
  void paint_title(QPainter& p, QRectF& r, const QString& title, const QString& subtitle);
  QString chef_name(int device) const;

  const TeachScene* scene_ = nullptr;
  TeachStep step_ = TeachStep::kKitchen;
  double progress_ = 1;
};

}  // namespace brigade::gui
