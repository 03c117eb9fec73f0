// brigade-gui [FILE]: the desktop app. brigade-gui --screenshot OUT.png
// --view NAME [--time T] FILE renders one view without a display.
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>

#include "core/units.hpp"
#include "gui/app/main_window.hpp"
#include "gui/app/screenshot.hpp"
#include "gui/views/language.hpp"
#include "gui/views/lessons_view.hpp"
#include "gui/views/view_list.hpp"

namespace {

[[noreturn]] void flag_error(const QString& flag, const QString& found, const QString& expected) {
  std::cerr << "brigade-gui: error: " << flag.toStdString() << ": found '" << found.toStdString()
            << "'; expected " << expected.toStdString() << "\n";
  std::exit(2);
}

// --screenshot's stderr carries the one-line error of bad input and nothing
// else: Qt's own notes (no XDG_RUNTIME_DIR, the offscreen platform's
// limits) are dropped; its critical and fatal messages still go out.
void quiet_qt(QtMsgType type, const QMessageLogContext&, const QString& text) {
  if (type == QtCriticalMsg || type == QtFatalMsg) std::cerr << text.toStdString() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  // Screenshots and --help need no display: default to the offscreen platform.
  for (int i = 1; i < argc; ++i) {
    const bool shot = std::strcmp(argv[i], "--screenshot") == 0;
    if (shot || std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
        std::strcmp(argv[i], "--version") == 0) {
      if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
      qInstallMessageHandler(quiet_qt);
    }
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Brigade");
  QApplication::setApplicationName("brigade-gui");
  QApplication::setApplicationVersion(BRIGADE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "Brigade's desktop app: watch a plan run (timeline, topology, memory, scaling, "
      "calibration).");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file",
                               "a scenario (.yaml, .json), a Chrome trace (.json) or a profile");
  QCommandLineOption shot("screenshot", "render one view to OUT (.png or .svg) and exit", "OUT");
  QCommandLineOption view("view", "the view to render: " + brigade::gui::view_names() + ", window",
                          "NAME", "timeline");
  QCommandLineOption time("time", "the time cursor for --screenshot (e.g. 1.5ms)", "T");
  QCommandLineOption size("size", "the picture's size for --screenshot (default 1600x900)", "WxH");
  QCommandLineOption gran("granularity", "task granularity: auto, kernel, region or step", "G",
                          "auto");
  QCommandLineOption network("network", "flow or ideal (default: the scenario's)", "N");
  QCommandLineOption profile("profile", "a hardware profile replacing the scenario's", "FILE");
  QCommandLineOption lang("lang", "the app's language: en or zh (default: the last one chosen; "
                          "--screenshot: en)", "L");
  QCommandLineOption lesson("lesson", "the lesson the Lessons dock (and --view lessons) shows (default 1)", "N");
  QCommandLineOption quiz("quiz", "--view lessons shows its quiz, every answer revealed");
  parser.addOptions({shot, view, time, size, gran, network, profile, lang, lesson, quiz});
  parser.process(app);

  brigade::gui::LoadOptions load;
  const QString g = parser.value(gran);
  if (g == "kernel")
    load.granularity = brigade::planner::Granularity::kKernel;
  else if (g == "region")
    load.granularity = brigade::planner::Granularity::kRegion;
  else if (g == "step")
    load.granularity = brigade::planner::Granularity::kStep;
  else if (g != "auto")
    flag_error("--granularity", g, "one of auto, kernel, region, step");
  if (parser.isSet(network)) {
    const QString n = parser.value(network);
    if (n != "flow" && n != "ideal") flag_error("--network", n, "one of flow, ideal");
    load.network = n.toStdString();
  }
  if (parser.isSet(profile)) load.profile = parser.value(profile).toStdString();
  // The language: --lang, else (not for screenshots, which look the same
  // everywhere) the one chosen last in View > Language.
  QString code = parser.isSet(shot) ? QStringLiteral("en") : QSettings().value("language", "en").toString();
  if (parser.isSet(lang)) {
    code = parser.value(lang);
    if (!brigade::parse_lang(code.toStdString())) flag_error("--lang", code, "one of en, zh");
  }
  if (const auto l = brigade::parse_lang(code.toStdString()); l && !brigade::gui::set_ui_language(*l))
    std::cerr << "brigade-gui: note: the " << code.toStdString()
              << " translation could not be loaded; the app stays in English\n";
  const QStringList files = parser.positionalArguments();
  if (files.size() > 1) flag_error("FILE", files.join(' '), "one file");

  if (parser.isSet(shot)) {
    brigade::gui::ScreenshotRequest r;
    r.out = parser.value(shot);
    r.view = parser.value(view);
    r.load = load;
    if (parser.isSet(lesson)) {
      bool ok = false;
      r.lesson = parser.value(lesson).toInt(&ok);
      if (!ok || r.lesson < 1) flag_error("--lesson", parser.value(lesson), "a lesson's number >= 1");
    }
    r.quiz = parser.isSet(quiz);
    if (files.isEmpty() && r.view != "lessons")
      flag_error("--screenshot", r.out, "a FILE to render after the options");
    if (!files.isEmpty()) r.file = files.front();
    if (parser.isSet(time)) {
      const QString t = parser.value(time);
      auto v = brigade::parse_quantity(t.toStdString(), brigade::Dimension::kSeconds);
      if (!v.is_ok() || *v < 0) flag_error("--time", t, "a time >= 0 such as 1.5ms");
      r.time_seconds = *v;
    }
    if (parser.isSet(size)) {
      const QStringList wh = parser.value(size).split('x');
      bool ok1 = false, ok2 = false;
      const int w = wh.size() == 2 ? wh[0].toInt(&ok1) : 0;
      const int h = wh.size() == 2 ? wh[1].toInt(&ok2) : 0;
      if (!ok1 || !ok2 || w < 100 || h < 100 || w > 8000 || h > 8000)
        flag_error("--size", parser.value(size), "WIDTHxHEIGHT from 100x100 to 8000x8000");
      r.size = QSize(w, h);
    }
    return brigade::gui::take_screenshot(r);
  }

  brigade::gui::MainWindow window(load);
  window.show();
  if (parser.isSet(lesson)) {  // the Lessons dock, on lesson N
    auto* lessons = qobject_cast<brigade::gui::LessonsView*>(window.view("lessons"));
    bool ok = false;
    const int n = parser.value(lesson).toInt(&ok);
    if (!lessons || !ok || !lessons->show_lesson(n))
      flag_error("--lesson", parser.value(lesson),
                 "a lesson from 1 to " + QString::number(lessons ? lessons->lesson_count() : 0));
    lessons->parentWidget()->raise();
  }
  if (!files.isEmpty()) window.open_file(files.front());
  return QApplication::exec();
}
