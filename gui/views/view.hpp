// The base of every view of the app (timeline, topology, memory, ...): a
// QWidget that shows a Document and follows the shared time cursor.
//
// Adding a view (docs/ARCHITECTURE.md, "The app"):
//   1. gui/views/foo_view.hpp/.cpp: class FooView : public View, which
//      implements set_document() (and set_time_seconds() if it has a time);
//   2. one line in gui/views/view_list.cpp:
//        {"foo", "Foo", Qt::BottomDockWidgetArea, [](QWidget* p) -> View* { return new FooView(p); }},
// The main window then gives it a dock and a View menu entry, export gives
// it PNG and SVG, `brigade-gui --screenshot --view foo` renders it, and the
// screenshot tests of tests/gui take a picture of it for every scenario.
#pragma once

#include <QWidget>

#include "gui/model/document.hpp"

namespace brigade::gui {

class View : public QWidget {
  Q_OBJECT
 public:
  explicit View(QWidget* parent = nullptr) : QWidget(parent) {}

  // The document to show; null when nothing is open. GUI thread only; the
  // document stays valid while the view holds the pointer.
  virtual void set_document(DocumentPtr doc) = 0;
  // The shared time cursor, in seconds from the trace's start.
  virtual void set_time_seconds(double seconds) { (void)seconds; }
  // Whether the view has something to show for this document (the main
  // window raises the first such dock; a calibration view has nothing for a
  // trace, say).
  virtual bool shows(const Document& doc) const { (void)doc; return true; }
  // Waits, at most `timeout_ms`, for work the view runs in the background
  // for its document (the scaling view's sweep) and shows its result; false
  // if some is still running. --screenshot and the screenshot tests call it
  // before taking the picture. GUI thread only.
  virtual bool wait_ready(int timeout_ms) { (void)timeout_ms; return true; }
  // Views that teach step by step (the teaching view): how many steps, and
  // show step 0 <= `step` < steps() (--screenshot --step K). 0: no steps.
  virtual int steps() const { return 0; }
  virtual void set_step(int step) { (void)step; }

 signals:
  // The user picked a time here: the other views follow.
  void time_selected(double seconds);
  // A line for the status bar.
  void message(const QString& text);
  // Asks the app to open a file (the Lessons view's "Open the scenario").
  void open_file_requested(const QString& path);
};

}  // namespace brigade::gui
