// Small painting helpers shared by the views.
#pragma once

#include <QColor>
#include <QPointF>
#include <QString>

class QPainter;
class QWidget;
class QEvent;

namespace brigade::gui {

// A line from a to b with a filled arrow head of `length` x 2 `half_width`
// at b (none when the line is shorter than 8 px), in the painter's pen.
void draw_arrow(QPainter& p, QPointF a, QPointF b, const QColor& head, double length = 7,
                double half_width = 3);

// Handles a QEvent::ToolTip for `w` with the text that `text_at(pos)` gives
// ("" hides the tip). Returns true when the event was a tooltip event.
template <class TextAt>
bool handle_tooltip(QWidget* w, QEvent* e, const TextAt& text_at);

}  // namespace brigade::gui

#include <QHelpEvent>
#include <QToolTip>

namespace brigade::gui {

template <class TextAt>
bool handle_tooltip(QWidget* w, QEvent* e, const TextAt& text_at) {
  if (e->type() != QEvent::ToolTip) return false;
  auto* help = static_cast<QHelpEvent*>(e);
  const QString text = text_at(help->pos());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(help->globalPos(), text, w);
  return true;
}

}  // namespace brigade::gui
