#include "gui/views/export.hpp"

#include <unordered_map>

#include <QBuffer>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

#include "core/file_io.hpp"

namespace brigade::gui {

QImage render_widget(QWidget* widget) {
  QImage image(widget->size(), QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  widget->render(&image);
  return image;
}

// The picture's bytes go through write_file_atomically (core/file_io.hpp),
// as every output of the command line does: QSaveFile wrote through a
// symbolic link to its target and replaced a FIFO (as root, /dev/null)
// with a regular file. Now a link is refused, a device or FIFO is written
// in place, and a regular file is replaced only by a whole picture.
Status save_png(QWidget* widget, const QString& path) {
  const QImage image = render_widget(widget);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG"))
    return Status::error(path.toStdString() + ": error: could not encode the PNG image",
                         ErrorKind::kRuntime);
  return write_file_atomically(
      path.toStdString(), std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
}

Status save_svg(QWidget* widget, const QString& path, const QString& title) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(widget->size());
    svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
    svg.setTitle(title);
    svg.setDescription(QStringLiteral("Brigade"));
    QPainter p(&svg);
    widget->render(&p);
  }
  return write_file_atomically(
      path.toStdString(), std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
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
