// brigade-gui [FILE]: the desktop app; brigade-gui --compare A B opens two
// runs side by side. brigade-gui --screenshot OUT.png --view NAME [--time T]
// [--step K] FILE renders one view without a display (--view compare A B: a
// compare); --lesson N stands for FILE: lesson N's scenario
// (scenarios/lessons/NN-*.yaml).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>

#include "core/file_io.hpp"
#include "core/lesson.hpp"
#include "core/trace_filter.hpp"
#include "core/units.hpp"
#include "gui/app/main_window.hpp"
#include "gui/app/screenshot.hpp"
#include "gui/views/kernels_view.hpp"
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

// The scenario of lesson `number` (core/lesson.hpp), or exit 2 with one line.
std::string lesson_scenario(const QString& number) {
  bool ok = false;
  const int n = number.toInt(&ok);
  const std::string folder =
      brigade::find_lessons_folder(QCoreApplication::applicationDirPath().toStdString());
  if (folder.empty())
    flag_error("--lesson", number, "a scenarios/lessons folder near brigade-gui, the working "
                                   "folder or $BRIGADE_LESSONS");
  auto lessons = brigade::load_lessons(folder);
  if (!lessons.is_ok()) {
    std::cerr << lessons.message() << "\n";
    std::exit(2);
  }
  for (const brigade::Lesson& l : *lessons)
    if (ok && l.number == n) return l.scenario_path;
  flag_error("--lesson", number,
             QString("a lesson from 1 to %1").arg(static_cast<int>(lessons->size())));
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
  QCommandLineOption window_opt("window", "the timeline's window for --screenshot (e.g. 0:2ms)",
                                "START:END");
  QCommandLineOption step("step", "the step of a teaching view for --screenshot (--view teach)",
                          "K");
  QCommandLineOption lesson("lesson", "lesson N: its scenario (scenarios/lessons) instead of FILE, its text in the Lessons dock",
                            "N");
  QCommandLineOption size("size", "the picture's size for --screenshot (default 1600x900)", "WxH");
  QCommandLineOption gran("granularity", "task granularity: auto, kernel, region or step", "G",
                          "auto");
  QCommandLineOption network("network", "flow or ideal (default: the scenario's)", "N");
  QCommandLineOption profile("profile", "a hardware profile replacing the scenario's", "FILE");
  QCommandLineOption lang("lang", "the app's language: en or zh (default: the last one chosen; "
                          "--screenshot: en)", "L");
  QCommandLineOption quiz("quiz", "--view lessons shows its quiz, every answer revealed");
  QCommandLineOption compare("compare", "open two FILEs, A and B, side by side (the compare view)");
  QCommandLineOption record("record",
                            "the Kernels view holds the step against FILE: a profiler's record "
                            "(nsys CSV, PyTorch trace) or Brigade's trace of the plan",
                            "FILE");
  parser.addOptions({shot, view, time, window_opt, step, lesson, size, gran, network, profile, lang,
                     quiz, compare, record});
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
  QStringList files = parser.positionalArguments();
  if (parser.isSet(compare) && files.size() != 2)
    flag_error("--compare", files.join(' '), "two files, A and B");
  if (!parser.isSet(compare) && files.size() > 1)
    flag_error("FILE", files.join(' '), "one file (two with --compare)");
  if (parser.isSet(lesson)) {
    if (!files.isEmpty()) flag_error("--lesson", parser.value(lesson), "it without a FILE");
    files << QString::fromStdString(lesson_scenario(parser.value(lesson)));
  }

  if (parser.isSet(shot)) {
    brigade::gui::ScreenshotRequest r;
    r.out = parser.value(shot);
    // The output checked before the (long) rendering, as brigade's output
    // flags are: a missing folder, a folder, a symbolic link, an empty path.
    if (r.out.isEmpty()) flag_error("--screenshot", r.out, "a file name ending in .png or .svg");
    if (const auto target = brigade::check_output_path(r.out.toStdString()); !target.is_ok()) {
      std::string line = target.message();
      const auto cut = line.find("; expected");
      if (cut != std::string::npos && line.substr(0, cut).find('\'') == std::string::npos)
        line.insert(cut, " at '" + r.out.toStdString() + "'");
      std::cerr << "brigade-gui: error: --screenshot: " << line << "\n";
      return 2;
    }
    r.view = parser.value(view);
    r.load = load;
    if (parser.isSet(lesson)) {
      bool ok = false;
      r.lesson = parser.value(lesson).toInt(&ok);
      if (!ok || r.lesson < 1) flag_error("--lesson", parser.value(lesson), "a lesson's number >= 1");
    }
    r.quiz = parser.isSet(quiz);
    r.record = parser.value(record);
    if (files.isEmpty() && r.view != "lessons")
      flag_error("--screenshot", r.out, "a FILE to render after the options");
    if (!files.isEmpty()) r.file = files.front();
    if (parser.isSet(compare)) {
      if (r.view != "compare" && r.view != "window")
        flag_error("--view", r.view, "compare or window with --compare");
      r.compare = files.back();
    }
    if (parser.isSet(time)) {
      const QString t = parser.value(time);
      auto v = brigade::parse_quantity(t.toStdString(), brigade::Dimension::kSeconds);
      if (!v.is_ok() || *v < 0) flag_error("--time", t, "a time >= 0 such as 1.5ms");
      r.time_seconds = *v;
    }
    if (parser.isSet(window_opt)) {
      const QString w = parser.value(window_opt);
      auto v = brigade::parse_time_window(w.toStdString());
      if (!v.is_ok() || !std::isfinite(v->second))
        flag_error("--window", w, "a window START:END such as 0:2ms, both ends given, START < END");
      r.window = *v;
    }
    if (parser.isSet(step)) {
      bool ok = false;
      r.step = parser.value(step).toInt(&ok);
      if (!ok || r.step < 0) flag_error("--step", parser.value(step), "a step number >= 0");
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
  if (parser.isSet(compare)) window.compare_with(files.back());
  if (parser.isSet(record)) {  // the Kernels dock, the record read on its thread
    auto* kernels = qobject_cast<brigade::gui::KernelsView*>(window.view("kernels"));
    if (kernels) {
      kernels->read_record(parser.value(record));
      kernels->parentWidget()->show();
      kernels->parentWidget()->raise();
    }
  }
  return QApplication::exec();
}
