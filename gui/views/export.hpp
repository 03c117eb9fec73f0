// Pictures of a view: PNG (QWidget::grab at the device pixel ratio) and SVG
// (QSvgGenerator, vector: QPainter calls and Qt Charts become SVG
// elements). Files are written atomically (QSaveFile: a temporary file,
// then a rename), so a failed export leaves no partial file.
#pragma once

#include <QImage>
#include <QString>

#include "core/status.hpp"

class QWidget;

namespace brigade::gui {

// The widget as it is painted now, at its current size.
QImage render_widget(QWidget* widget);
Status save_png(QWidget* widget, const QString& path);
Status save_svg(QWidget* widget, const QString& path, const QString& title);

// Distinct colours of an image, and how many pixels differ from its most
// common colour (the background): what the screenshot tests call a real
// picture.
struct ImageStats {
  int distinct_colours = 0;
  double non_background_fraction = 0;
};
ImageStats image_stats(const QImage& image);

}  // namespace brigade::gui
