// The main window: loads on the worker thread, bad files as one line in the
// message bar (no dialog), recent files, export (gui/app/main_window.hpp).
#include <filesystem>
#include <fstream>

#include <QSettings>
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
