#include "gui/app/main_window.hpp"

#include <algorithm>
#include <filesystem>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "core/units.hpp"
#include "gui/app/session.hpp"
#include "gui/model/loader.hpp"
#include "gui/views/compare_view.hpp"
#include "gui/views/export.hpp"
#include "gui/views/language.hpp"
#include "gui/views/view.hpp"
#include "gui/views/view_list.hpp"

namespace brigade::gui {

MainWindow::MainWindow(LoadOptions options, bool remember, QWidget* parent)
    : QMainWindow(parent),
      options_(std::move(options)),
      remember_(remember),
      session_(new Session(this)) {
  setWindowTitle(tr("Brigade"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  setObjectName("main_window");

  // The message bar: the one-line error of a bad file, or a note.
  auto* bar = new QToolBar(tr("Messages"), this);
  bar->setObjectName("messages");
  bar->setMovable(false);
  message_ = new QLabel(bar);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setWordWrap(true);
  message_->setContentsMargins(8, 4, 8, 4);
  bar->addWidget(message_);
  addToolBar(Qt::TopToolBarArea, bar);
  bar->hide();

  // Central area: what is open, in a line; the views live in docks.
  auto* central = new QLabel(this);
  central->setObjectName("summary");
  central->setContentsMargins(8, 2, 8, 2);
  central->setText(tr(kOpenHint));
  central->setMaximumHeight(28);
  setCentralWidget(central);

  for (const ViewInfo& info : view_list()) {
    auto* dock = new QDockWidget(view_title(info.title), this);
    dock->setObjectName("dock_" + info.name);
    View* v = info.make(dock);
    dock->setWidget(v);
    addDockWidget(info.area, dock);
    docks_.push_back({&info, dock, v});
    connect(v, &View::time_selected, this, [this, v](double t) {
      for (const Dock& d : docks_)
        if (d.view != v) d.view->set_time_seconds(t);
    });
    connect(v, &View::message, this, [this](const QString& m) { status_->setText(m); });
    connect(v, &View::open_file_requested, this, &MainWindow::open_file);
  }
  // Docks sharing an area start as tabs.
  for (size_t i = 1; i < docks_.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (docks_[j].info->area == docks_[i].info->area) {
        tabifyDockWidget(docks_[j].dock, docks_[i].dock);
        break;
      }

  status_ = new QLabel(this);
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(220);
  progress_->setTextVisible(true);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setToolTip(tr("Stop loading (Esc)"));
  cancel_->setShortcut(QKeySequence(Qt::Key_Escape));
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  set_busy(false);

  connect(cancel_, &QPushButton::clicked, session_, &Session::cancel);
  connect(session_, &Session::started, this, [this](const QString& path) {
    loading_path_ = path;
    status_->setText(tr("Opening %1").arg(path));
    set_busy(true);
  });
  connect(session_, &Session::progress, this,
          [this](const QString& stage, double done, double total) {
            progress_->setFormat(model_text(stage.toStdString()) + (total > 0 ? " %p%" : ""));
            if (total > 0) {
              progress_->setRange(0, 1000);
              progress_->setValue(static_cast<int>(1000 * done / total));
            } else {
              progress_->setRange(0, 0);  // busy indicator
            }
          });
  connect(session_, &Session::loaded, this, [this](DocumentPtr doc) {
    set_busy(false);
    if (remember_) add_recent(QString::fromStdString(doc->path));
    set_document(std::move(doc));
  });
  connect(session_, &Session::failed, this, [this](const QString&, const QString& message) {
    set_busy(false);
    show_message(message, true);
    status_->setText(tr("Could not open the file; what was open stays open."));
  });
  connect(session_, &Session::cancelled, this, [this](const QString& path) {
    set_busy(false);
    status_->setText(tr("Cancelled opening %1").arg(path));
  });

  build_menus();
  QSettings settings;
  if (remember_) {
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
  }
  first_layout_ = !remember_ || !settings.contains("window/state");
  if (first_layout_) resize(1400, 900);
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (!first_layout_) return;
  first_layout_ = false;
  // First start: the timeline over most of the height, the bottom tabs below
  // (once shown: docks have no sizes before).
  QList<QDockWidget*> split;
  for (const Dock& d : docks_)
    if (split.size() < 2 && (split.isEmpty() || dockWidgetArea(d.dock) != dockWidgetArea(split[0])))
      split << d.dock;
  if (split.size() == 2)
    QTimer::singleShot(0, this, [this, split] {
      resizeDocks(split, {height() * 6 / 10, height() * 4 / 10}, Qt::Vertical);
    });
}

void MainWindow::set_time_seconds(double t) {
  for (const Dock& d : docks_) d.view->set_time_seconds(t);
}

MainWindow::~MainWindow() = default;

void MainWindow::changeEvent(QEvent* e) {
  QMainWindow::changeEvent(e);
  if (e->type() != QEvent::LanguageChange) return;
  // Menus are rebuilt in the new language; docks and labels retitled.
  menuBar()->clear();
  build_menus();
  for (const Dock& d : docks_) d.dock->setWindowTitle(view_title(d.info->title));
  static_cast<QLabel*>(centralWidget())->setText(doc_ ? summary_text() : tr(kOpenHint));
  cancel_->setText(tr("Cancel"));
  cancel_->setToolTip(tr("Stop loading (Esc)"));
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, [this] {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a scenario, trace or profile"), settings.value("last_dir").toString(),
        tr("Brigade files (*.yaml *.yml *.json *.json.gz);;Scenarios (*.yaml *.yml *.json);;"
           "Chrome traces (*.json *.json.gz);;Profiles (*.yaml *.yml);;All files (*)"));
    if (!path.isEmpty()) open_file(path);
  });
  open->setShortcut(QKeySequence::Open);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  rebuild_recent_menu();
  QAction* reload = file->addAction(tr("&Reload"), this, [this] {
    if (doc_) open_file(QString::fromStdString(doc_->path));
  });
  reload->setShortcut(QKeySequence::Refresh);
  // The compare view (gui/views/compare_view.hpp): a second run beside the open one.
  if (auto* compare = qobject_cast<CompareView*>(view("compare"))) {
    compare->set_load_options(options_);
    file->addAction(tr("Compare &With…"), compare, &CompareView::choose_file)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(compare, &CompareView::comparison_ready, this, [compare] {
      if (auto* dock = qobject_cast<QDockWidget*>(compare->parentWidget())) {
        dock->show();
        dock->raise();
      }
    });
  }
  file->addSeparator();
  QMenu* png = file->addMenu(tr("Export View as &PNG"));
  QMenu* svg = file->addMenu(tr("Export View as &SVG"));
  for (const Dock& d : docks_) {
    const QString name = d.info->name;
    png->addAction(view_title(d.info->title) + tr("…"), this, [this, name] {
      const QString path = QFileDialog::getSaveFileName(this, tr("Export as PNG"), name + ".png",
                                                        tr("PNG images (*.png)"));
      if (!path.isEmpty()) export_view(name, path);
    });
    svg->addAction(view_title(d.info->title) + tr("…"), this, [this, name] {
      const QString path = QFileDialog::getSaveFileName(this, tr("Export as SVG"), name + ".svg",
                                                        tr("SVG images (*.svg)"));
      if (!path.isEmpty()) export_view(name, path);
    });
  }
  file->addAction(tr("Export &Trace as Chrome JSON…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the trace"), "trace.json",
                                                      tr("Chrome traces (*.json)"));
    if (!path.isEmpty()) export_trace(path);
  });
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (const Dock& d : docks_) view->addAction(d.dock->toggleViewAction());
  view->addSeparator();
  QMenu* language = view->addMenu(tr("&Language"));
  auto* languages = new QActionGroup(language);
  for (const auto& [lang, name] : {std::pair{Lang::kEn, QStringLiteral("English")},
                                   std::pair{Lang::kZh, QStringLiteral("中文")}}) {
    QAction* a = language->addAction(name, this, [this, lang = lang] {
      if (!set_ui_language(lang)) {
        show_message(tr("Could not load the translation; the language stays as it was."), true);
        return;
      }
      if (remember_) QSettings().setValue("language", QString::fromLatin1(lang_code(lang).data()));
    });
    a->setCheckable(true);
    a->setChecked(ui_language() == lang);
    a->setObjectName(QStringLiteral("language_") + QString::fromLatin1(lang_code(lang).data()));
    languages->addAction(a);
  }
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keys"), this, [this] {
    show_message(tr("Timeline: W/S zoom, A/D pan, Ctrl+wheel zoom at the mouse, Shift+wheel or "
                    "middle-drag pan, drag to select a range, Z zoom to it, Backspace back, 0 all, "
                    "click a span for details, Esc clears."),
                 false);
  });
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList files = QSettings().value("recent_files").toStringList();
  for (const QString& f : files) recent_menu_->addAction(f, this, [this, f] { open_file(f); });
  recent_menu_->setEnabled(!files.isEmpty());
  if (!files.isEmpty()) {
    recent_menu_->addSeparator();
    recent_menu_->addAction(tr("Clear"), this, [this] {
      QSettings().remove("recent_files");
      rebuild_recent_menu();
    });
  }
}

void MainWindow::add_recent(const QString& path) {
  const QString abs = QFileInfo(path).absoluteFilePath();
  QSettings settings;
  QStringList files = settings.value("recent_files").toStringList();
  files.removeAll(abs);
  files.prepend(abs);
  while (files.size() > kMaxRecent) files.removeLast();
  settings.setValue("recent_files", files);
  settings.setValue("last_dir", QFileInfo(abs).absolutePath());
  rebuild_recent_menu();
}

void MainWindow::open_file(const QString& path) {
  show_message({}, false);
  session_->open(path, options_);
}

void MainWindow::compare_with(const QString& path) {
  if (auto* compare = qobject_cast<CompareView*>(view("compare")))
    compare->compare_with(path, options_);
}

View* MainWindow::view(const QString& name) const {
  for (const Dock& d : docks_)
    if (d.info->name == name) return d.view;
  return nullptr;
}

QString MainWindow::message_text() const {
  return message_->parentWidget()->isVisible() ? message_->text() : QString();
}

void MainWindow::show_message(const QString& text, bool error) {
  message_->setText(text);
  message_->setStyleSheet(error ? "QLabel { color: #8a1010; background: #fde8e8; }"
                                : "QLabel { color: #1a3a6a; background: #e8f0fd; }");
  message_->parentWidget()->setVisible(!text.isEmpty());
}

void MainWindow::set_busy(bool busy) {
  progress_->setVisible(busy);
  cancel_->setVisible(busy);
  if (busy) {
    progress_->setRange(0, 0);
    progress_->setFormat(tr("reading"));
  }
}

QString MainWindow::summary_text() const {
  QString summary = QString::fromStdString(doc_->title);
  if (doc_->result)
    summary +=
        tr(": step %1").arg(QString::fromStdString(format_seconds(doc_->result->step_seconds)));
  for (const std::string& n : document_notes(*doc_)) summary += " · " + QString::fromStdString(n);
  return summary;
}

void MainWindow::set_document(DocumentPtr doc) {
  doc_ = std::move(doc);
  setWindowTitle(tr("%1 — Brigade").arg(QString::fromStdString(doc_->title)));
  static_cast<QLabel*>(centralWidget())->setText(summary_text());
  status_->setText(tr("Opened %1").arg(QString::fromStdString(doc_->path)));
  // In each dock area, the first view with something to show comes to the front.
  std::vector<Qt::DockWidgetArea> raised;
  for (const Dock& d : docks_) {
    d.view->set_document(doc_);
    const Qt::DockWidgetArea area = dockWidgetArea(d.dock);
    if (d.view->shows(*doc_) && std::find(raised.begin(), raised.end(), area) == raised.end()) {
      d.dock->raise();
      raised.push_back(area);
    }
  }
}

bool MainWindow::export_view(const QString& name, const QString& path) {
  View* v = view(name);
  if (!v) return false;
  const Status st =
      path.endsWith(".svg", Qt::CaseInsensitive) ? save_svg(v, path, name) : save_png(v, path);
  if (!st.is_ok())
    show_message(QString::fromStdString(st.message()), true);
  else
    status_->setText(tr("Wrote %1").arg(path));
  return st.is_ok();
}

bool MainWindow::export_trace(const QString& path) {
  if (!doc_ || !doc_->trace) {
    show_message(tr("No trace is open to export."), true);
    return false;
  }
  const Status st = write_chrome_trace_file(*doc_->trace, path.toStdString());
  if (!st.is_ok())
    show_message(QString::fromStdString(st.message()), true);
  else
    status_->setText(tr("Wrote %1").arg(path));
  return st.is_ok();
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (remember_) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
  }
  session_->cancel();
  e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const auto urls = e->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) open_file(urls.front().toLocalFile());
}

}  // namespace brigade::gui
