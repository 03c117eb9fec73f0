// The main window: one dock per registered view (gui/views/view_list.cpp),
// File menu (open, recent files, export), drag and drop, a progress bar
// with a cancel button for loads, and a message bar that shows the one-line
// error of a bad file without a dialog. Window state lives in QSettings.
#pragma once

#include <vector>

#include <QMainWindow>

#include "gui/model/document.hpp"
#include "gui/model/loader.hpp"

class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;

namespace brigade::gui {

class Session;
class View;
struct ViewInfo;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // `remember`: restore and save window state and recent files (QSettings);
  // off for --screenshot, which must look the same on every machine.
  explicit MainWindow(LoadOptions options = {}, bool remember = true, QWidget* parent = nullptr);
  ~MainWindow() override;

  void open_file(const QString& path);
  // Opens `path` in the compare view beside the open run (File > Compare
  // with…); the view comes to the front when both are judged.
  void compare_with(const QString& path);
  Session* session() const { return session_; }
  DocumentPtr document() const { return doc_; }
  View* view(const QString& name) const;
  // The message bar's text ("" when hidden).
  QString message_text() const;
  // Export helpers (the File menu's actions call these after asking for a path).
  bool export_view(const QString& view, const QString& path);  // .png or .svg by suffix
  bool export_trace(const QString& path);

  static constexpr int kMaxRecent = 10;
  static constexpr const char* kOpenHint = QT_TR_NOOP(
      "Open a scenario, a trace or a profile: File > Open (Ctrl+O), or drop a file here.");

 protected:
  void closeEvent(QCloseEvent* e) override;
  void changeEvent(QEvent* e) override;  // LanguageChange: menus and titles again
  void showEvent(QShowEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void build_menus();
  void rebuild_recent_menu();
  void add_recent(const QString& path);
  void show_message(const QString& text, bool error);
  void set_document(DocumentPtr doc);
  // The central label: the title, the step time and document_notes(), in the current language.
  QString summary_text() const;

 public:
  // The shared time cursor, for every view.
  void set_time_seconds(double t);

 private:
  void set_busy(bool busy);

  LoadOptions options_;
  bool remember_ = true;
  bool first_layout_ = false;  // no saved layout: size the docks when first shown
  Session* session_;
  DocumentPtr doc_;
  struct Dock {
    const ViewInfo* info;
    QDockWidget* dock;
    View* view;
  };
  std::vector<Dock> docks_;
  QMenu* recent_menu_ = nullptr;
  QLabel* message_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QString loading_path_;
};

}  // namespace brigade::gui
