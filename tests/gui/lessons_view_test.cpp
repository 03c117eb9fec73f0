// The Lessons dock (gui/views/lessons_view.hpp): the guided tour in the
// seed's order, each lesson's numbers computed by `brigade lesson --json`
// when shown, previous / next, "Open the scenario", the language switch,
// the quiz tab, and brigade-gui --screenshot --view lessons.
#include <filesystem>

#include <gtest/gtest.h>
#include <QApplication>
#include <QImage>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>

#include "gui/views/export.hpp"
#include "gui/views/language.hpp"
#include "gui/views/lessons_view.hpp"
#include "gui/views/quiz_panel.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

struct English {  // every test ends in English, whatever it switched to
  ~English() {
    set_ui_language(Lang::kEn);
    QApplication::processEvents();
  }
};

TEST(LessonsView, TheTourInTheSeedsOrder) {
  LessonsView v;
  ASSERT_EQ(v.error_text(), "");
  ASSERT_EQ(v.lesson_count(), 14);
  EXPECT_EQ(v.current_lesson(), 1);
  ASSERT_TRUE(v.wait_ready(120000));
  // Lesson 1's numbers, computed: one edge of 64 KiB crosses chefs.
  EXPECT_TRUE(v.markdown().contains("64.0 KiB")) << v.markdown().toStdString();
  EXPECT_FALSE(v.markdown().contains("{{"));
  EXPECT_FALSE(v.markdown().contains("…"));
  EXPECT_TRUE(v.markdown().contains("$ brigade explain 01-placement-cost.yaml --kitchen --lang en"));
}

// Lesson 4, quiz Q4's shape, computed; next and previous move through the tour.
TEST(LessonsView, NextAndPreviousAndComputedNumbers) {
  LessonsView v;
  ASSERT_TRUE(v.show_lesson(4));
  ASSERT_TRUE(v.wait_ready(120000));
  EXPECT_TRUE(v.markdown().contains("(4, 256)")) << v.markdown().toStdString();
  auto* next = v.findChild<QPushButton*>("next_lesson");
  auto* previous = v.findChild<QPushButton*>("previous_lesson");
  ASSERT_TRUE(next && previous);
  next->click();
  EXPECT_EQ(v.current_lesson(), 5);
  previous->click();
  previous->click();
  EXPECT_EQ(v.current_lesson(), 3);
  ASSERT_TRUE(v.show_lesson(14));
  EXPECT_FALSE(next->isEnabled());
  EXPECT_FALSE(v.show_lesson(15));
  EXPECT_EQ(v.current_lesson(), 14);
}

TEST(LessonsView, OpenTheScenarioAsksTheApp) {
  LessonsView v;
  v.show_lesson(12);
  QSignalSpy spy(&v, &View::open_file_requested);
  auto* open = v.findChild<QPushButton*>("open_lesson_scenario");
  ASSERT_NE(open, nullptr);
  open->click();
  ASSERT_EQ(spy.count(), 1);
  EXPECT_TRUE(spy.at(0).at(0).toString().endsWith("12-runtime-surprise.yaml"));
}

// The language switch reloads the text in Chinese, numbers computed again.
TEST(LessonsView, SwitchesToChineseAtRuntime) {
  English restore;
  LessonsView v;
  v.show_lesson(12);
  ASSERT_TRUE(v.wait_ready(120000));
  ASSERT_TRUE(set_ui_language(Lang::kZh));
  QApplication::processEvents();
  ASSERT_TRUE(v.wait_ready(120000));
  EXPECT_TRUE(v.markdown().contains(QString::fromUtf8("误区"))) << v.markdown().toStdString();
  EXPECT_TRUE(v.markdown().contains("mesh 2x2")) << "the search's choice, computed";
  EXPECT_FALSE(v.markdown().contains("{{"));
}

// The quiz: the user's pick checked against the tool's answer.
TEST(LessonsView, QuizChecksAgainstTheComputedAnswer) {
  LessonsView v;
  v.resize(1200, 800);
  v.show();
  v.show_quiz(true);
  QApplication::processEvents();
  ASSERT_TRUE(v.wait_ready(120000));
  QuizPanel* q = v.quiz();
  ASSERT_NE(q->quiz(), nullptr) << q->error_text().toStdString();
  EXPECT_TRUE(q->answer(4, "B").startsWith("Right: B.")) << q->answer(4, "B").toStdString();
  EXPECT_TRUE(q->answer(4, "A").startsWith("Not quite: the tool computes B.")) << q->answer(4, "A").toStdString();
  EXPECT_TRUE(q->answer(7, "AB").startsWith("Right: AB."));
  EXPECT_TRUE(q->answer(7, "A").startsWith("Not quite"));
}

struct Shot {
  int code;
  QString err;
  QImage image;
};

Shot screenshot(const QStringList& extra, const QString& name) {
  const QString out = QString::fromStdString(
      (std::filesystem::temp_directory_path() / ("brigade_lessons_" + name.toStdString() + ".png")).string());
  QFile::remove(out);
  QProcess p;
  p.setWorkingDirectory(QString::fromStdString(kSrc));
  p.start(BRIGADE_GUI_EXE, QStringList{"--screenshot", out, "--view", "lessons"} + extra);
  p.waitForFinished(300000);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardError()), QImage(out)};
}

// brigade-gui --screenshot --view lessons [--lesson N] [--lang zh] [--quiz]:
// a real picture, in English and in Chinese.
TEST(LessonsView, ScreenshotsAreRealPictures) {
  for (const auto& [args, name] :
       {std::pair{QStringList{"--lesson", "12"}, QString("12_en")},
        std::pair{QStringList{"--lesson", "8", "--lang", "zh"}, QString("8_zh")},
        std::pair{QStringList{"--quiz", "--lang", "zh"}, QString("quiz_zh")}}) {
    SCOPED_TRACE(name.toStdString());
    const Shot s = screenshot(args, name);
    ASSERT_EQ(s.code, 0) << s.err.toStdString();
    ASSERT_FALSE(s.image.isNull());
    const ImageStats st = image_stats(s.image);
    EXPECT_GE(st.distinct_colours, 12);
    EXPECT_GE(st.non_background_fraction, 0.05);
  }
  const Shot bad = screenshot({"--lesson", "99"}, "bad");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "brigade-gui: error: --lesson: found '99'; expected a lesson from 1 to 14\n");
  const Shot bad_lang = screenshot({"--lang", "fr"}, "bad_lang");
  EXPECT_EQ(bad_lang.code, 2);
  EXPECT_EQ(bad_lang.err, "brigade-gui: error: --lang: found 'fr'; expected one of en, zh\n");
  // --lesson N stands for FILE: with another view, that view of its scenario.
  const Shot other_view = screenshot({"--lesson", "2", "--view", "timeline"}, "timeline");
  EXPECT_EQ(other_view.code, 0) << other_view.err.toStdString();
  const Shot quiz_elsewhere = screenshot({"--quiz", "--view", "timeline"}, "quiz_timeline");
  EXPECT_EQ(quiz_elsewhere.code, 2);
}

}  // namespace
}  // namespace brigade::gui
