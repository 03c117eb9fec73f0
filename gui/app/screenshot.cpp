#include "gui/app/screenshot.hpp"

#include <iostream>

#include <QApplication>

#include "gui/app/main_window.hpp"
#include "gui/app/session.hpp"
#include "gui/views/compare_view.hpp"
#include "gui/views/export.hpp"
#include "gui/views/kernels_view.hpp"
#include "gui/views/lessons_view.hpp"
#include "gui/views/quiz_panel.hpp"
#include "gui/views/timeline_canvas.hpp"
#include "gui/views/timeline_view.hpp"
#include "gui/views/view.hpp"
#include "gui/views/view_list.hpp"

namespace brigade::gui {

namespace {

// Writes the picture; the exit code (1 and the message on stderr if it failed).
int save(QWidget* w, const QString& out, const QString& title) {
  const Status st =
      out.endsWith(".svg", Qt::CaseInsensitive) ? save_svg(w, out, title) : save_png(w, out);
  if (st.is_ok()) return 0;
  std::cerr << st.message() << "\n";
  return 1;
}

// --compare's B: its one-line error (B cannot be opened, or is no run) as
// bad input.
bool compare_failed(View* v) {
  auto* compare = qobject_cast<CompareView*>(v);
  if (!compare || !compare->has_error()) return false;
  std::cerr << compare->error_text().toStdString() << "\n";
  return true;
}

// The whole main window, docks and all, as a user first sees it.
int window_screenshot(const ScreenshotRequest& r) {
  MainWindow w(r.load, /*remember=*/false);
  w.setAttribute(Qt::WA_DontShowOnScreen);
  w.resize(r.size);
  w.show();
  w.open_file(r.file);
  if (!r.compare.isEmpty()) w.compare_with(r.compare);
  w.session()->wait(24 * 3600 * 1000);
  if (!w.document()) {
    std::cerr << w.message_text().toStdString() << "\n";
    return 2;
  }
  if (r.time_seconds >= 0) w.set_time_seconds(r.time_seconds);
  for (const ViewInfo& v : view_list()) {
    if (r.step >= 0 && r.step < w.view(v.name)->steps()) w.view(v.name)->set_step(r.step);
    w.view(v.name)->wait_ready(24 * 3600 * 1000);
  }
  if (compare_failed(w.view("compare"))) return 2;
  QApplication::processEvents();
  return save(&w, r.out, "window");
}

// The Lessons view on lesson N (or its quiz), with the lesson's numbers
// computed; FILE, when given, is opened as the app would (bold in the list).
int lessons_screenshot(const ScreenshotRequest& r) {
  auto view = std::make_unique<LessonsView>();
  view->setAttribute(Qt::WA_DontShowOnScreen);
  view->resize(r.size);
  view->show();
  if (view->lesson_count() == 0) {
    std::cerr << view->error_text().toStdString() << "\n";
    return 1;
  }
  if (r.lesson != 0 && !view->show_lesson(r.lesson)) {
    std::cerr << "brigade-gui: error: --lesson: found '" << r.lesson << "'; expected a lesson from 1 to "
              << view->lesson_count() << "\n";
    return 2;
  }
  if (!r.file.isEmpty()) {
    Result<DocumentPtr> doc = load_document(r.file.toStdString(), r.load);
    if (!doc.is_ok()) {
      std::cerr << doc.message() << "\n";
      return 2;
    }
    view->set_document(doc.value());
  }
  view->show_quiz(r.quiz);
  QApplication::processEvents();
  view->wait_ready(24 * 3600 * 1000);
  QApplication::processEvents();
  if (!view->error_text().isEmpty()) {
    std::cerr << view->error_text().toStdString() << "\n";
    return 1;
  }
  if (r.quiz && view->quiz()->quiz()) view->quiz()->reveal_all();
  QApplication::processEvents();
  return save(view.get(), r.out, r.view);
}

}  // namespace

int take_screenshot(const ScreenshotRequest& r) {
  const ViewInfo* info = find_view(r.view);
  if (!info && r.view != "window") {
    std::cerr << "brigade-gui: error: --view: found '" << r.view.toStdString()
              << "'; expected one of " << view_names().toStdString() << ", window\n";
    return 2;
  }
  if (!r.out.endsWith(".png", Qt::CaseInsensitive) &&
      !r.out.endsWith(".svg", Qt::CaseInsensitive)) {
    std::cerr << "brigade-gui: error: --screenshot: found '" << r.out.toStdString()
              << "'; expected a file name ending in .png or .svg\n";
    return 2;
  }
  // --lesson N stands for FILE with any view (its scenario); the quiz is the
  // Lessons view's alone.
  if (r.window && r.view != "timeline") {
    std::cerr << "brigade-gui: error: --window: found it with --view " << r.view.toStdString()
              << "; expected --view timeline\n";
    return 2;
  }
  if (r.quiz && r.view != "lessons") {
    std::cerr << "brigade-gui: error: --quiz: found it with --view " << r.view.toStdString()
              << "; expected --view lessons\n";
    return 2;
  }
  if (!r.record.isEmpty() && r.view != "kernels") {
    std::cerr << "brigade-gui: error: --record: found it with --view " << r.view.toStdString()
              << "; expected --view kernels\n";
    return 2;
  }
  if (!info) return window_screenshot(r);
  if (r.view == "lessons") return lessons_screenshot(r);
  Result<DocumentPtr> doc = load_document(r.file.toStdString(), r.load);
  if (!doc.is_ok()) {
    std::cerr << doc.message() << "\n";
    return doc.status().kind() == ErrorKind::kBadInput ||
                   doc.status().kind() == ErrorKind::kUnsupported
               ? 2
               : 1;
  }
  std::unique_ptr<View> view(info->make(nullptr));
  if (r.step >= 0 && r.step >= view->steps()) {
    std::cerr << "brigade-gui: error: --step: found '" << r.step << "'; expected "
              << (view->steps() == 0 ? "a view with steps (--view teach)"
                                     : "a step from 0 to " + std::to_string(view->steps() - 1))
              << "\n";
    return 2;
  }
  view->setAttribute(Qt::WA_DontShowOnScreen);
  view->resize(r.size);
  view->show();
  view->set_document(doc.value());
  if (r.time_seconds >= 0) view->set_time_seconds(r.time_seconds);
  if (auto* timeline = qobject_cast<TimelineView*>(view.get()); timeline && r.window)
    timeline->canvas()->zoom_to_window({r.window->first, r.window->second});
  if (r.step >= 0) view->set_step(r.step);
  if (auto* kernels = qobject_cast<KernelsView*>(view.get()); kernels && !r.record.isEmpty()) {
    QString error;
    if (!kernels->load_record(r.record, &error)) {
      std::cerr << error.toStdString() << "\n";
      return 2;
    }
    if (!kernels->chart().measured) {  // Brigade's trace of another plan: why, and no picture
      std::cerr << kernels->chart().record << "\n";
      return 2;
    }
  }
  if (auto* compare = qobject_cast<CompareView*>(view.get()); compare && !r.compare.isEmpty())
    compare->compare_with(r.compare, r.load);
  view->wait_ready(24 * 3600 * 1000);
  if (compare_failed(view.get())) return 2;
  QApplication::processEvents();
  return save(view.get(), r.out, r.view);
}

}  // namespace brigade::gui
