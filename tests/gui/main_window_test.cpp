// The main window: loads on the worker thread, bad files as one line in the
// message bar (no dialog), recent files, export (gui/app/main_window.hpp).
#include <filesystem>
#include <fstream>
#include <iterator>

#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QSettings>
#include <QUrl>
#include <QTest>
#include <gtest/gtest.h>

#include "gui/app/main_window.hpp"
#include "gui/app/session.hpp"
#include "gui/views/timeline_canvas.hpp"
#include "gui/views/timeline_view.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

QString src(const std::string& rel) { return QString::fromStdString(kSrc + "/" + rel); }

std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "brigade_gui_window_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(MainWindow, OpensAScenarioOnTheWorkerThreadAndShowsItInEveryView) {
  MainWindow w;
  w.show();
  w.open_file(src("scenarios/pmap_train_step.yaml"));
  EXPECT_TRUE(w.session()->busy());
  ASSERT_TRUE(w.session()->wait(60000));
  ASSERT_TRUE(w.document());
  EXPECT_EQ(w.document()->title, "pmap-train-step");
  EXPECT_EQ(w.message_text(), "");
  auto* timeline = static_cast<TimelineView*>(w.view("timeline"));
  ASSERT_TRUE(timeline);
  EXPECT_GT(timeline->canvas()->axis().window().duration_seconds(), 0);
  EXPECT_EQ(QSettings().value("recent_files").toStringList().front(),
            QFileInfo(src("scenarios/pmap_train_step.yaml")).absoluteFilePath());
}

TEST(MainWindow, ABadFileIsOneLineInTheWindowAndTheOpenDocumentStays) {
  MainWindow w;
  w.show();
  w.open_file(src("scenarios/pmap_train_step.yaml"));
  ASSERT_TRUE(w.session()->wait(60000));
  const DocumentPtr before = w.document();
  const std::string cut = temp_file("cut.json", "{\"traceEvents\": [\n {\"ph\": \"X\", \"ts\"");
  w.open_file(QString::fromStdString(cut));
  ASSERT_TRUE(w.session()->wait(60000));
  EXPECT_EQ(w.message_text().toStdString(),
            cut + ":2:18: error: found invalid JSON; expected a Chrome trace");
  EXPECT_EQ(w.document(), before);  // still open, still usable
  // And the next good file clears the message.
  w.open_file(src("scenarios/pmap_train_step.yaml"));
  ASSERT_TRUE(w.session()->wait(60000));
  EXPECT_EQ(w.message_text(), "");
  EXPECT_NE(w.document(), before);
}

TEST(MainWindow, RecentFilesKeepTheLatestTenWithoutRepeats) {
  QSettings().remove("recent_files");
  MainWindow w;
  const auto dir = std::filesystem::temp_directory_path() / "brigade_gui_recent";
  std::filesystem::create_directories(dir);
  const std::string text =
      std::string(std::istreambuf_iterator<char>(std::ifstream(kSrc + "/scenarios/pmap_train_step.yaml").rdbuf()), {});
  std::vector<QString> paths;
  for (int i = 0; i < 12; ++i) {
    const auto p = dir / ("s" + std::to_string(i) + ".yaml");
    std::ofstream(p) << text;
    paths.push_back(QString::fromStdString(p.string()));
    w.open_file(paths.back());
    ASSERT_TRUE(w.session()->wait(60000));
  }
  w.open_file(paths[5]);  // again: moves to the front, not twice
  ASSERT_TRUE(w.session()->wait(60000));
  const QStringList recent = QSettings().value("recent_files").toStringList();
  ASSERT_EQ(recent.size(), MainWindow::kMaxRecent);
  EXPECT_EQ(recent.front(), paths[5]);
  EXPECT_EQ(recent[1], paths[11]);
  EXPECT_EQ(recent.count(paths[5]), 1);
  EXPECT_FALSE(recent.contains(paths[0]));
}

TEST(MainWindow, DroppingAFileOpensIt) {
  MainWindow w;
  w.show();
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(src("scenarios/pmap_train_step.yaml"))});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &enter);
  EXPECT_TRUE(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&w, &drop);
  ASSERT_TRUE(w.session()->wait(60000));
  ASSERT_TRUE(w.document());
  EXPECT_EQ(w.document()->title, "pmap-train-step");
}

TEST(MainWindow, ClosingSavesTheWindowsLayout) {
  QSettings().remove("window/state");
  {
    MainWindow w;
    w.show();
    w.close();
  }
  EXPECT_FALSE(QSettings().value("window/state").toByteArray().isEmpty());
  EXPECT_FALSE(QSettings().value("window/geometry").toByteArray().isEmpty());
  // A window made for --screenshot neither reads nor writes them.
  QSettings().remove("window/state");
  {
    MainWindow w(LoadOptions{}, /*remember=*/false);
    w.show();
    w.close();
  }
  EXPECT_TRUE(QSettings().value("window/state").toByteArray().isEmpty());
}

TEST(MainWindow, CancelFreesTheWindowAtOnceAndDropsTheResult) {
  MainWindow w;
  w.open_file(src("scenarios/pmap_train_step.yaml"));
  w.session()->cancel();
  EXPECT_FALSE(w.session()->busy());
  QTest::qWait(300);  // the worker's late result must not arrive
  EXPECT_FALSE(w.document());
}

TEST(MainWindow, ExportsViewsAsPngAndSvgAndTheTraceAsChromeJson) {
  MainWindow w;
  w.resize(1200, 800);
  w.show();
  w.open_file(src("scenarios/pmap_train_step.yaml"));
  ASSERT_TRUE(w.session()->wait(60000));
  const auto dir = std::filesystem::temp_directory_path() / "brigade_gui_window_test";
  std::filesystem::create_directories(dir);
  const QString png = QString::fromStdString((dir / "t.png").string());
  const QString svg = QString::fromStdString((dir / "t.svg").string());
  const QString json = QString::fromStdString((dir / "t.json").string());
  ASSERT_TRUE(w.export_view("timeline", png));
  ASSERT_TRUE(w.export_view("timeline", svg));
  ASSERT_TRUE(w.export_trace(json));
  EXPECT_FALSE(QImage(png).isNull());
  QFile f(svg);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray text = f.readAll();
  EXPECT_TRUE(text.contains("<svg"));
  EXPECT_TRUE(text.contains("mm1"));  // span labels are text in the SVG
  auto back = read_chrome_trace_file(json.toStdString());
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_EQ(back->spans.size(), w.document()->trace->spans.size());
  // A path that cannot be written: a message, no crash.
  EXPECT_FALSE(w.export_view("timeline", "/nonexistent/dir/x.png"));
  EXPECT_NE(w.message_text(), "");
}

}  // namespace
}  // namespace brigade::gui
