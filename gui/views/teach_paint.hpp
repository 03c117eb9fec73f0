// Painting helpers shared by the teaching canvas's two files
// (teach_canvas.cpp, teach_canvas_shards.cpp): colours, fonts, text.
#pragma once

#include <cmath>
#include <string>

#include <QColor>
#include <QPainter>
#include <QRectF>
#include <QString>

#include "core/units.hpp"

namespace brigade::gui::teach_paint {

inline QString q(const std::string& s) {
  return QString::fromStdString(s);
}
inline QString secs(double s) {
  return q(format_seconds(s));
}
inline QString bytes(double b) {
  return q(format_bytes(b));
}

inline const QColor kInk(0x20, 0x24, 0x2c);
inline const QColor kMuted(0x6a, 0x70, 0x7c);
inline const QColor kAlpha(0xe8, 0x8a, 0x1a);  // the latency part
inline const QColor kBeta(0x2f, 0x6f, 0xd0);   // the bandwidth part
inline const QColor kSauce(0xc0, 0x50, 0x20);  // the sauce bowl
inline const QColor kCompute(0x59, 0xa1, 0x4f);
inline const QColor kWhole(0x8c, 0x9c, 0xb4);  // a tensor not split

inline void set_font(QPainter& p, double points, bool bold = false) {
  QFont f = p.font();
  f.setPointSizeF(points);
  f.setBold(bold);
  p.setFont(f);
}

// "240 GB/s" (decimal, as link data sheets say), "∞" for a device to itself.
inline QString bandwidth(double bytes_per_second) {
  return std::isfinite(bytes_per_second) ? QString::number(bytes_per_second / 1e9, 'g', 3) + " GB/s"
                                         : QStringLiteral("∞");
}

// Text in a box, elided to its width.
inline void text_in(QPainter& p, const QRectF& r, const QString& s,
                    int flags = Qt::AlignLeft | Qt::AlignVCenter) {
  p.drawText(r, flags, p.fontMetrics().elidedText(s, Qt::ElideRight, static_cast<int>(r.width())));
}

}  // namespace brigade::gui::teach_paint
