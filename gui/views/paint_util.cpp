#include "gui/views/paint_util.hpp"

#include <cmath>

#include <QPainter>
#include <QPainterPath>

namespace brigade::gui {

void draw_arrow(QPainter& p, QPointF a, QPointF b, const QColor& head, double length,
                double half_width) {
  p.drawLine(a, b);
  const QPointF d = b - a;
  const double len = std::hypot(d.x(), d.y());
  if (len <= 8) return;
  const QPointF u = d / len, n(-u.y(), u.x());
  QPainterPath path;
  path.moveTo(b);
  path.lineTo(b - u * length + n * half_width);
  path.lineTo(b - u * length - n * half_width);
  path.closeSubpath();
  p.fillPath(path, head);
}

}  // namespace brigade::gui
