// The teaching view (gui/views/teach_view.hpp) offscreen: a picture of each
// mode that is really drawn (the canvas alone, not the buttons), the step
// buttons and play / pause, re-translation on a language change, and
// `brigade-gui --screenshot --view teach --lesson N --step K` with its
// bad input.
#include <filesystem>

#include <gtest/gtest.h>
#include <QApplication>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QTest>
#include <QToolButton>
#include <QTranslator>

#include "gui/model/loader.hpp"
#include "gui/model/memory_series.hpp"
#include "gui/views/export.hpp"
#include "gui/views/teach_canvas.hpp"
#include "gui/views/teach_view.hpp"
#include "gui/views/view_list.hpp"
#include "tests/gui/gui_run.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

DocumentPtr load(const std::string& relative) {
  auto doc = load_document(kSrc + "/" + relative);
  EXPECT_TRUE(doc.is_ok()) << doc.message();
  return doc.is_ok() ? *doc : nullptr;
}

// `v` shown offscreen at 1600 x 900 with `doc` open.
void show_offscreen(TeachView& v, const DocumentPtr& doc) {
  v.setAttribute(Qt::WA_DontShowOnScreen);
  v.resize(1600, 900);
  v.show();
  v.set_document(doc);
}

struct ModeCase {
  std::string scenario;
  std::string tag;
};

class TeachModes : public ::testing::TestWithParam<ModeCase> {};

// Every step of every mode draws a real picture, and the modes differ.
TEST_P(TeachModes, EachModeIsARealPictureOfItsOwn) {
  DocumentPtr doc = load(GetParam().scenario);
  ASSERT_TRUE(doc);
  TeachView v;
  show_offscreen(v, doc);
  ASSERT_TRUE(v.scene());
  auto* canvas = v.findChild<TeachCanvas*>();
  ASSERT_TRUE(canvas);
  std::vector<QImage> firsts;
  for (int step = 0; step < v.steps(); ++step) {
    SCOPED_TRACE(step);
    v.set_step(step);
    EXPECT_EQ(v.player().step(), step);
    QApplication::processEvents();
    const QImage image = render_widget(canvas);
    const ImageStats s = image_stats(image);
    EXPECT_GE(s.distinct_colours, 12);
    EXPECT_GE(s.non_background_fraction, 0.03);
    EXPECT_FALSE(v.narration().isEmpty());
    const auto mode = teach_mode_of(static_cast<TeachStep>(step));
    if (step == first_step_of(mode)) {
      firsts.push_back(image);
      image.save(QString::fromStdString((out_dir() / ("teach_" + GetParam().tag + "_" +
                                                      std::string(teach_mode_name(mode)) + ".png"))
                                            .string()));
    }
  }
  ASSERT_EQ(firsts.size(), static_cast<size_t>(kNumTeachModes));
  for (size_t i = 0; i < firsts.size(); ++i)
    for (size_t j = i + 1; j < firsts.size(); ++j) EXPECT_NE(firsts[i], firsts[j]) << i << " " << j;
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, TeachModes,
    ::testing::Values(ModeCase{"scenarios/pmap_train_step.yaml", "pmap_train_step"},
                      ModeCase{"scenarios/lessons/01-placement-cost.yaml", "lesson01"},
                      ModeCase{"scenarios/lessons/05-sauce-bowl.yaml", "lesson05"},
                      ModeCase{"scenarios/lessons/07-model-sharding.yaml", "lesson07"}));

TEST(TeachView, ButtonsStepPlayAndPause) {
  TeachView v;
  v.set_document(load("scenarios/lessons/04-pmap-sharding.yaml"));
  auto* pmap = v.findChild<QToolButton*>("teach_mode_pmap");
  ASSERT_TRUE(pmap);
  pmap->click();
  EXPECT_EQ(v.player().mode(), TeachMode::kPmap);
  EXPECT_EQ(v.player().current(), TeachStep::kPmapDevices);
  v.next();
  EXPECT_EQ(v.player().current(), TeachStep::kPmapShard);
  EXPECT_NE(v.narration().indexOf("(8, 4, 256)"), -1) << v.narration().toStdString();
  v.previous();
  EXPECT_EQ(v.player().current(), TeachStep::kPmapDevices);
  v.play();
  EXPECT_TRUE(v.player().playing());
  v.pause();
  EXPECT_FALSE(v.player().playing());
  // The keys, while the view has the focus: Right, Left, Space.
  QTest::keyClick(&v, Qt::Key_Right);
  EXPECT_EQ(v.player().current(), TeachStep::kPmapShard);
  QTest::keyClick(&v, Qt::Key_Left);
  EXPECT_EQ(v.player().current(), TeachStep::kPmapDevices);
  QTest::keyClick(&v, Qt::Key_Space);
  EXPECT_TRUE(v.player().playing());
  QTest::keyClick(&v, Qt::Key_Space);
  EXPECT_FALSE(v.player().playing());
}

TEST(TeachView, WithoutAScenarioItSaysWhatToOpen) {
  TeachView v;
  v.set_document(nullptr);
  EXPECT_FALSE(v.scene());
  EXPECT_NE(v.narration().indexOf("Open a scenario"), -1);
}

// A translator that marks every string of the teaching view.
class MarkingTranslator : public QTranslator {
 public:
  QString translate(const char* context, const char* source, const char* disambiguation,
                    int n) const override {
    (void)disambiguation;
    (void)n;
    if (QByteArray(context).contains("Teach")) return QString("«") + QString::fromUtf8(source);
    return {};
  }
  bool isEmpty() const override { return false; }
};

TEST(TeachView, ALanguageChangeRetranslatesButtonsAndNarration) {
  TeachView v;
  v.set_document(load("scenarios/pmap_train_step.yaml"));
  auto* overview = v.findChild<QToolButton*>("teach_mode_overview");
  ASSERT_TRUE(overview);
  EXPECT_EQ(overview->text(), "Overview");
  MarkingTranslator marker;
  QApplication::installTranslator(&marker);  // sends QEvent::LanguageChange
  QApplication::processEvents();
  EXPECT_EQ(overview->text(), "«Overview");
  EXPECT_TRUE(v.narration().startsWith("«")) << v.narration().toStdString();
  QApplication::removeTranslator(&marker);
  QApplication::processEvents();
  EXPECT_EQ(overview->text(), "Overview");
}

// One colour means one thing in the app: a station's gradients are the
// memory view's gradients' colour, its activations the memory view's
// activations' (they were swapped), and the kitchen picture paints them.
TEST(TeachView, StationPartsWearTheMemoryViewsColours) {
  for (int k = 0; k < kNumStationParts; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(TeachCanvas::part_colour(k).rgb() & 0xffffff,
              memory_category_rgb(kStationParts[static_cast<size_t>(k)]));
  }
  DocumentPtr doc = load("scenarios/pmap_train_step.yaml");
  ASSERT_TRUE(doc);
  TeachView v;
  show_offscreen(v, doc);
  v.set_step(first_step_of(teach_mode_of(TeachStep::kKitchen)));
  QApplication::processEvents();
  auto* canvas = v.findChild<TeachCanvas*>();
  ASSERT_TRUE(canvas);
  const QImage image = render_widget(canvas).convertToFormat(QImage::Format_RGB32);
  for (MemoryCategory c : {MemoryCategory::kGrads, MemoryCategory::kActivations}) {
    const QRgb want = 0xff000000u | memory_category_rgb(c);
    int found = 0;
    for (int y = 0; y < image.height(); ++y) {
      const auto* line = reinterpret_cast<const QRgb*>(image.constScanLine(y));
      for (int x = 0; x < image.width(); ++x) found += line[x] == want;
    }
    EXPECT_GE(found, 100) << memory_category_name(c);
  }
}

TEST(TeachScreenshot, LessonAndStepFromTheCommandLine) {
  const QString out = QString::fromStdString((out_dir() / "cli_teach.png").string());
  QFile::remove(out);
  const GuiRun r = run_gui({"--screenshot", out, "--view", "teach", "--lesson", "4", "--step", "11",
                            "--size", "1200x700"});
  ASSERT_EQ(r.code, 0) << r.err.toStdString();
  const QImage image(out);
  EXPECT_EQ(image.size(), QSize(1200, 700));
  EXPECT_GE(image_stats(image).distinct_colours, 12);
}

struct BadTeach {
  QStringList args;
  std::string message;
};

class TeachScreenshotBadInput : public ::testing::TestWithParam<BadTeach> {};

TEST_P(TeachScreenshotBadInput, OneLineExitTwoNoFile) {
  const QString out = QString::fromStdString((out_dir() / "bad_teach.png").string());
  QFile::remove(out);
  QStringList args = {"--screenshot", out};
  args << GetParam().args;
  const GuiRun r = run_gui(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.toStdString(), GetParam().message + "\n");
  EXPECT_FALSE(QFile::exists(out));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TeachScreenshotBadInput,
    ::testing::Values(
        BadTeach{{"--view", "teach", "--lesson", "99"},
                 "brigade-gui: error: --lesson: found '99'; expected a lesson from 1 to 14"},
        BadTeach{{"--view", "teach", "--lesson", "4", "--step", "17"},
                 "brigade-gui: error: --step: found '17'; expected a step from 0 to 16"},
        BadTeach{{"--view", "teach", "--lesson", "4", "--step", "two"},
                 "brigade-gui: error: --step: found 'two'; expected a step number >= 0"},
        BadTeach{
            {"--view", "timeline", "--lesson", "4", "--step", "1"},
            "brigade-gui: error: --step: found '1'; expected a view with steps (--view teach)"},
        BadTeach{{"--view", "teach", "--lesson", "4",
                  QString::fromStdString(kSrc + "/scenarios/pmap_train_step.yaml")},
                 "brigade-gui: error: --lesson: found '4'; expected it without a FILE"}));

}  // namespace
}  // namespace brigade::gui
