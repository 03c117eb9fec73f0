#include "gui/views/export.hpp"

#include <unordered_map>

#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace brigade::gui {

QImage render_widget(QWidget* widget) {
  QImage image(widget->size(), QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  widget->render(&image);
  return image;
}

Status save_png(QWidget* widget, const QString& path) {
  const QImage image = render_widget(widget);
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly))
    return Status::error(path.toStdString() + ": error: cannot write the file (" +
                             f.errorString().toStdString() + ")",
                         ErrorKind::kRuntime);
  if (!image.save(&f, "PNG") || !f.commit())
    return Status::error(path.toStdString() + ": error: could not write the PNG image",
                         ErrorKind::kRuntime);
  return Status::ok();
}

Status save_svg(QWidget* widget, const QString& path, const QString& title) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly))
    return Status::error(path.toStdString() + ": error: cannot write the file (" +
                             f.errorString().toStdString() + ")",
                         ErrorKind::kRuntime);
  {
    QSvgGenerator svg;
    svg.setOutputDevice(&f);
    svg.setSize(widget->size());
    svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
    svg.setTitle(title);
    svg.setDescription(QStringLiteral("Brigade"));
    QPainter p(&svg);
    widget->render(&p);
  }
  if (!f.commit())
    return Status::error(path.toStdString() + ": error: could not write the SVG image",
                         ErrorKind::kRuntime);
  return Status::ok();
}

ImageStats image_stats(const QImage& image) {
  ImageStats s;
  std::unordered_map<QRgb, std::int64_t> counts;
  const QImage im = image.convertToFormat(QImage::Format_RGB32);
  for (int y = 0; y < im.height(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(im.constScanLine(y));
    for (int x = 0; x < im.width(); ++x) ++counts[line[x]];
  }
  std::int64_t most = 0;
  for (const auto& [c, n] : counts) most = std::max(most, n);
  const double total = static_cast<double>(im.width()) * im.height();
  s.distinct_colours = static_cast<int>(counts.size());
  s.non_background_fraction = total > 0 ? 1.0 - static_cast<double>(most) / total : 0;
  return s;
}

}  // namespace brigade::gui
