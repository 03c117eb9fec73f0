// A picture of every registered view (gui/views/view_list.cpp) for the
// bundled scenarios, checked to be a real image: many colours, much drawn
// on it. Also brigade-gui --screenshot itself, and its bad-input contract.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <QFile>
#include <QImage>
#include <QProcess>
#include <gtest/gtest.h>

#include "gui/app/screenshot.hpp"
#include "gui/model/loader.hpp"
#include "gui/views/export.hpp"
#include "gui/views/view.hpp"
#include "gui/views/view_list.hpp"
#include "tests/gui/gui_run.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

// Renders every view of `doc` at 1600 x 900 and checks each picture.
void every_view_is_a_real_picture(const DocumentPtr& doc, const std::string& tag) {
  for (const ViewInfo& info : view_list()) {
    SCOPED_TRACE(info.name.toStdString());
    std::unique_ptr<View> v(info.make(nullptr));
    v->setAttribute(Qt::WA_DontShowOnScreen);
    v->resize(1600, 900);
    v->show();
    v->set_document(doc);
    if (doc->result) v->set_time_seconds(doc->result->step_seconds / 2);
    EXPECT_TRUE(v->wait_ready(600 * 1000));
    const QImage image = render_widget(v.get());
    image.save(QString::fromStdString((out_dir() / (tag + "_" + info.name.toStdString() + ".png")).string()));
    const ImageStats s = image_stats(image);
    EXPECT_GE(s.distinct_colours, 12);
    EXPECT_GE(s.non_background_fraction, 0.05);
  }
}

TEST(Screenshots, EveryViewOfPmapTrainStepIsARealPicture) {
  auto doc = load_document(kSrc + "/scenarios/pmap_train_step.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  every_view_is_a_real_picture(*doc, "pmap_train_step");
}

// GPT-3 175B on 1024 GPUs at step granularity (2 M tasks, 6 M flows): the
// simulator records every flow of a traced run, so the coarsest granularity
// keeps the test to seconds.
TEST(Screenshots, EveryViewOfGpt3OnA1024GpusIsARealPicture) {
  LoadOptions o;
  o.granularity = planner::Granularity::kStep;
  auto doc = load_document(kSrc + "/scenarios/gpt3_175b_1024.yaml", o);
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  every_view_is_a_real_picture(*doc, "gpt3_175b_1024");
}

TEST(Screenshots, TheCommandLineWritesAPng) {
  const QString out = QString::fromStdString((out_dir() / "cli_timeline.png").string());
  QFile::remove(out);
  const GuiRun r = run_gui({"--screenshot", out, "--view", "timeline", "--time", "5us", "--size",
                         "800x500", QString::fromStdString(kSrc + "/scenarios/pmap_train_step.yaml")});
  ASSERT_EQ(r.code, 0) << r.err.toStdString();
  const QImage image(out);
  EXPECT_EQ(image.size(), QSize(800, 500));
  EXPECT_GE(image_stats(image).distinct_colours, 12);
}

// --view compare --compare A B: a compare of bundled data, simulated
// against measured (tests/data/compare/README.md), is a real picture.
TEST(Screenshots, TheCompareOfASimulatedAndAMeasuredRunIsARealPicture) {
  const QString out = QString::fromStdString((out_dir() / "cli_compare.png").string());
  QFile::remove(out);
  const std::string pair = kSrc + "/tests/data/compare/validation-pipeline-transformer";
  const GuiRun r = run_gui({"--screenshot", out, "--view", "compare", "--compare",
                            QString::fromStdString(pair + ".sim.json.gz"),
                            QString::fromStdString(pair + ".measured.json.gz")});
  ASSERT_EQ(r.code, 0) << r.err.toStdString();
  const QImage image(out);
  EXPECT_EQ(image.size(), QSize(1600, 900));
  const ImageStats s = image_stats(image);
  EXPECT_GE(s.distinct_colours, 12);
  EXPECT_GE(s.non_background_fraction, 0.05);
}

struct BadCase {
  QStringList args;  // before the output and file
  std::string file;  // relative to the source dir, or an absolute path
  std::string message;  // {FILE}: the file's path
};

class ScreenshotBadInput : public ::testing::TestWithParam<BadCase> {};

// The CLI's contract: one line on stderr, exit 2, no file written.
TEST_P(ScreenshotBadInput, SaysSoOnStderrExitsTwoAndWritesNothing) {
  const BadCase c = GetParam();
  const QString out = QString::fromStdString((out_dir() / "bad.png").string());
  QFile::remove(out);
  const std::string file = c.file.empty() || c.file[0] == '/' ? c.file : kSrc + "/" + c.file;
  QStringList args = c.args;
  args << "--screenshot" << out << QString::fromStdString(file);
  const GuiRun r = run_gui(args);
  EXPECT_EQ(r.code, 2);
  std::string expected = c.message;
  for (auto at = expected.find("{FILE}"); at != std::string::npos; at = expected.find("{FILE}"))
    expected.replace(at, 6, file);
  EXPECT_EQ(r.err.toStdString(), expected + "\n");
  EXPECT_FALSE(QFile::exists(out));
}

// A Brigade trace cut off half way (a copy interrupted, a disk full).
std::string truncated_trace() {
  auto doc = load_document(kSrc + "/scenarios/pmap_train_step.yaml");
  EXPECT_TRUE(doc.is_ok());
  const std::string path = (out_dir() / "truncated.json").string();
  EXPECT_TRUE(write_chrome_trace_file(*(*doc)->trace, path).is_ok());
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  return path;
}

TEST(ScreenshotBadInputs, ATruncatedTraceGivesItsLineAndColumn) {
  const std::string file = truncated_trace();
  const QString out = QString::fromStdString((out_dir() / "bad.png").string());
  QFile::remove(out);
  const GuiRun r = run_gui({"--screenshot", out, QString::fromStdString(file)});
  EXPECT_EQ(r.code, 2);
  const std::string err = r.err.toStdString();
  EXPECT_EQ(err.rfind(file + ":", 0), 0u) << err;
  EXPECT_NE(err.find(": error: found invalid JSON; expected a Chrome trace\n"), std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
  EXPECT_FALSE(QFile::exists(out));
}

// --screenshot wrote through QSaveFile: through a symbolic link to its
// target (here a text file, overwritten with a PNG, exit 0), and over a
// FIFO (as root, over /dev/null) a regular file replacing it. Now the
// output is checked before the render, as brigade's outputs are, and
// written by write_file_atomically: the link refused, the FIFO written in
// place for its reader.
TEST(ScreenshotOutputs, ALinkIsRefusedAndAFifoWrittenInPlace) {
  const std::string scenario = kSrc + "/scenarios/pmap_train_step.yaml";
  const std::filesystem::path victim = out_dir() / "victim.txt";
  const std::filesystem::path link = out_dir() / "link.png";
  std::filesystem::remove(link);
  { std::ofstream(victim) << "keep me\n"; }
  std::filesystem::create_symlink(victim, link);
  const GuiRun r = run_gui({"--screenshot", QString::fromStdString(link.string()), "--size",
                            "400x300", QString::fromStdString(scenario)});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.toStdString(),
            "brigade-gui: error: --screenshot: found a symbolic link at '" + link.string() +
                "'; expected a regular file or a new file (an output replaces its file and never "
                "writes through a link, except to a device or a FIFO)\n");
  std::ifstream in(victim);
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "keep me");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  std::filesystem::remove(link);

  const std::filesystem::path fifo = out_dir() / "fifo.png";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader holds the FIFO open (without waiting for a writer) and
  // drains it until brigade-gui has exited: if the FIFO were replaced, it
  // would read nothing rather than wait for ever.
  const int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rfd, 0);
  std::atomic<bool> exited{false};
  std::string got;
  std::thread reader([&] {
    char buf[4096];
    while (true) {
      const bool last = exited;
      const ssize_t n = ::read(rfd, buf, sizeof buf);
      if (n > 0) {
        got.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (last) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  const GuiRun w = run_gui({"--screenshot", QString::fromStdString(fifo.string()), "--size",
                            "400x300", QString::fromStdString(scenario)});
  exited = true;
  reader.join();
  ::close(rfd);
  EXPECT_EQ(w.code, 0) << w.err.toStdString();
  EXPECT_TRUE(std::filesystem::is_fifo(fifo)) << "the FIFO was replaced";
  ASSERT_GE(got.size(), 8u);
  EXPECT_EQ(got.substr(1, 3), "PNG");
  std::filesystem::remove(fifo);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ScreenshotBadInput,
    ::testing::Values(
        BadCase{{},
                "tests/data/bad_missing_brace.json",
                "{FILE}:5:1: error: found malformed YAML (end of map flow not found); expected a "
                "well-formed YAML or JSON scenario"},
        BadCase{{},
                "nope.yaml",
                "{FILE}: error: found no readable file; expected a scenario, a trace or a profile"},
        BadCase{{"--view", "timelime"},
                "scenarios/pmap_train_step.yaml",
                "brigade-gui: error: --view: found 'timelime'; expected one of " +
                    view_names().toStdString() + ", window"},
        BadCase{{"--time", "soon"},
                "scenarios/pmap_train_step.yaml",
                "brigade-gui: error: --time: found 'soon'; expected a time >= 0 such as 1.5ms"},
        BadCase{{"--granularity", "fine"},
                "scenarios/pmap_train_step.yaml",
                "brigade-gui: error: --granularity: found 'fine'; expected one of auto, kernel, "
                "region, step"},
        // --compare: two files, a view that shows them, a B that opens.
        BadCase{{"--view", "compare", "--compare"},
                "scenarios/pmap_train_step.yaml",
                "brigade-gui: error: --compare: found '{FILE}'; expected two files, A and B"},
        BadCase{{"--view", "timeline", "--compare",
                 QString::fromStdString(kSrc + "/scenarios/pmap_linear.yaml")},
                "scenarios/pmap_train_step.yaml",
                "brigade-gui: error: --view: found 'timeline'; expected compare or window with "
                "--compare"},
        BadCase{{"--view", "compare", QString::fromStdString(kSrc + "/scenarios/pmap_linear.yaml")},
                "scenarios/pmap_train_step.yaml",
                "brigade-gui: error: FILE: found '" + kSrc +
                    "/scenarios/pmap_linear.yaml {FILE}'; "
                    "expected one file (two with --compare)"},
        BadCase{
            {"--view", "compare", "--compare",
             QString::fromStdString(kSrc + "/scenarios/pmap_linear.yaml")},
            "nope.yaml",
            "{FILE}: error: found no readable file; expected a scenario, a trace or a profile"}));

}  // namespace
}  // namespace brigade::gui
