#include "gui/app/screenshot.hpp"

#include <iostream>

#include <QApplication>

#include "gui/views/export.hpp"
#include "gui/views/view.hpp"
#include "gui/views/view_list.hpp"

namespace brigade::gui {

int take_screenshot(const ScreenshotRequest& r) {
  const ViewInfo* info = find_view(r.view);
  if (!info) {
    std::cerr << "brigade-gui: error: --view: found '" << r.view.toStdString()
              << "'; expected one of " << view_names().toStdString() << "\n";
    return 2;
  }
  if (!r.out.endsWith(".png", Qt::CaseInsensitive) && !r.out.endsWith(".svg", Qt::CaseInsensitive)) {
    std::cerr << "brigade-gui: error: --screenshot: found '" << r.out.toStdString()
              << "'; expected a file name ending in .png or .svg\n";
    return 2;
  }
  Result<DocumentPtr> doc = load_document(r.file.toStdString(), r.load);
  if (!doc.is_ok()) {
    std::cerr << doc.message() << "\n";
    return doc.status().kind() == ErrorKind::kBadInput ||
                   doc.status().kind() == ErrorKind::kUnsupported
               ? 2
               : 1;
  }
  std::unique_ptr<View> view(info->make(nullptr));
  view->setAttribute(Qt::WA_DontShowOnScreen);
  view->resize(r.size);
  view->show();
  view->set_document(doc.value());
  if (r.time_seconds >= 0) view->set_time_seconds(r.time_seconds);
  QApplication::processEvents();
  const Status st = r.out.endsWith(".svg", Qt::CaseInsensitive)
                        ? save_svg(view.get(), r.out, r.view)
                        : save_png(view.get(), r.out);
  if (!st.is_ok()) {
    std::cerr << st.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace brigade::gui
