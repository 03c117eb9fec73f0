// Lessons (core/lesson.hpp, issue 17's teaching mode): the reader of
// scenarios/lessons/NN-name.{yaml,en.md,zh.md}, the answers' placeholders,
// and every bundled lesson: it loads, has both languages, and shows every
// answer in each.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/lesson.hpp"
#include "core/scenario.hpp"

namespace brigade {
namespace {
namespace fs = std::filesystem;

const std::string kLessons = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/lessons";

TEST(LessonText, TitleIntroSections) {
  auto t = parse_lesson_text("# Title\n\nIntro line.\n\n## One\nbody 1\n\n## Two\n\nbody 2\n", "x.md");
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_EQ(t->title, "Title");
  EXPECT_EQ(t->intro, "Intro line.");
  ASSERT_EQ(t->sections.size(), 2u);
  EXPECT_EQ(t->sections[0].heading, "One");
  EXPECT_EQ(t->sections[0].body, "body 1");
  EXPECT_EQ(t->sections[1].body, "body 2");
}

TEST(LessonText, ErrorsArePositioned) {
  auto no_title = parse_lesson_text("Title\n## One\n", "x.md");
  ASSERT_FALSE(no_title.is_ok());
  EXPECT_EQ(no_title.message(),
            "x.md:1:1: error: found 'Title'; expected the lesson's title on the first line, as "
            "'# Title'");
  auto empty_heading = parse_lesson_text("# T\n\n##\n", "x.md");
  ASSERT_FALSE(empty_heading.is_ok());
  EXPECT_EQ(empty_heading.message(),
            "x.md:3:1: error: found an empty section heading; expected '## Heading'");
}

TEST(LessonAnswers, FormatsEachKind) {
  using nlohmann::json;
  EXPECT_EQ(*format_answer(json(7e-5), AnswerFormat::kSeconds), "70.0 us");
  EXPECT_EQ(*format_answer(json(65536.0), AnswerFormat::kBytes), "64.0 KiB");
  EXPECT_EQ(*format_answer(json(14.0), AnswerFormat::kNumber), "14");
  EXPECT_EQ(*format_answer(json(0.125), AnswerFormat::kNumber), "0.125");
  EXPECT_EQ(*format_answer(json::array({4, 256}), AnswerFormat::kShape), "(4, 256)");
  EXPECT_EQ(*format_answer(json("allreduce"), AnswerFormat::kText), "allreduce");
  auto bad = format_answer(json::array({4, 256}), AnswerFormat::kNumber);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message(), "found [4,256]; expected a number");
}

TEST(LessonAnswers, PlaceholdersAndFilling) {
  const std::string text = "a {{x}} b {{ y }} c {{x}}";
  const auto p = answer_placeholders(text);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].first, "x");
  EXPECT_EQ(p[1].first, "y");
  EXPECT_EQ(p[1].second, 10u);
  EXPECT_EQ(fill_answers(text, {{"x", "1"}, {"y", "2"}}), "a 1 b 2 c 1");
  EXPECT_EQ(fill_answers(text, {{"x", "1"}}), "a 1 b {{ y }} c 1");
}

// A lesson in a temporary folder: the YAML and its two texts.
struct TempLesson {
  fs::path dir;
  explicit TempLesson(const std::string& name) {
    dir = fs::temp_directory_path() / ("brigade-lesson-test-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempLesson() { fs::remove_all(dir); }
  void write(const std::string& file, const std::string& text) const {
    std::ofstream(dir / file) << text;
  }
};

const char* kYaml =
    "topology: {preset: cpu-host, devices: 2}\n"
    "model:\n"
    "  mlp: {batch: 8, widths: [16, 16]}\n"
    "strategy: {data: 2}\n"
    "lesson:\n"
    "  steps:\n"
    "    - run: cost LESSON --lang LANG\n"
    "    - {}\n"
    "  answers:\n"
    "    step: {run: cost LESSON --json, take: /step_seconds, as: seconds}\n";

TEST(LessonLoad, ReadsStepsAnswersAndBothTexts) {
  TempLesson t("ok");
  t.write("01-two.yaml", kYaml);
  t.write("01-two.en.md", "# Two\n## A\nstep {{step}}\n## B\nend\n");
  t.write("01-two.zh.md", "# 二\n## 甲\n一步 {{step}}\n## 乙\n完\n");
  auto l = load_lesson((t.dir / "01-two.yaml").string());
  ASSERT_TRUE(l.is_ok()) << l.message();
  EXPECT_EQ(l->number, 1);
  EXPECT_EQ(l->name, "two");
  EXPECT_EQ(l->kind, "tour");
  ASSERT_EQ(l->steps.size(), 2u);
  EXPECT_TRUE(l->steps[1].empty());
  EXPECT_EQ(l->command(0, Lang::kZh),
            (std::vector<std::string>{"cost", (t.dir / "01-two.yaml").string(), "--lang", "zh"}));
  ASSERT_EQ(l->answers.size(), 1u);
  EXPECT_EQ(l->answers[0].pointer, "/step_seconds");
  EXPECT_EQ(l->answers[0].format, AnswerFormat::kSeconds);
  EXPECT_EQ(l->in(Lang::kZh).sections[0].heading, "甲");
  // The scenario reader takes the same file (its lesson: section ignored).
  auto s = load_scenario((t.dir / "01-two.yaml").string());
  EXPECT_TRUE(s.is_ok()) << s.message();
}

TEST(LessonLoad, AnUnknownAnswerIsPositioned) {
  TempLesson t("unknown");
  t.write("01-two.yaml", kYaml);
  t.write("01-two.en.md", "# Two\n## A\nstep {{stpe}}\n## B\nend\n");
  t.write("01-two.zh.md", "# 二\n## 甲\n一步 {{step}}\n## 乙\n完\n");
  auto l = load_lesson((t.dir / "01-two.yaml").string());
  ASSERT_FALSE(l.is_ok());
  EXPECT_EQ(l.message(), (t.dir / "01-two.en.md").string() +
                             ":3:6: error: found answer '{{stpe}}'; expected one of step (did you "
                             "mean 'step'?)");
}

TEST(LessonLoad, AnAnswerMissingInOneLanguage) {
  TempLesson t("missing");
  t.write("01-two.yaml", kYaml);
  t.write("01-two.en.md", "# Two\n## A\nstep {{step}}\n## B\nend\n");
  t.write("01-two.zh.md", "# 二\n## 甲\n一步\n## 乙\n完\n");
  auto l = load_lesson((t.dir / "01-two.yaml").string());
  ASSERT_FALSE(l.is_ok());
  EXPECT_EQ(l.message(), (t.dir / "01-two.zh.md").string() +
                             ": error: found no {{step}}; expected every answer of 01-two.yaml "
                             "shown in each language");
}

TEST(LessonLoad, SectionsMustMatchSteps) {
  TempLesson t("sections");
  t.write("01-two.yaml", kYaml);
  t.write("01-two.en.md", "# Two\n## A\nstep {{step}}\n");
  t.write("01-two.zh.md", "# 二\n## 甲\n一步 {{step}}\n## 乙\n完\n");
  auto l = load_lesson((t.dir / "01-two.yaml").string());
  ASSERT_FALSE(l.is_ok());
  EXPECT_EQ(l.message(), (t.dir / "01-two.en.md").string() +
                             ": error: found 1 section; expected 2, one per step of 01-two.yaml");
}

TEST(LessonLoad, AMissingTranslation) {
  TempLesson t("nozh");
  t.write("01-two.yaml", kYaml);
  t.write("01-two.en.md", "# Two\n## A\nstep {{step}}\n## B\nend\n");
  auto l = load_lesson((t.dir / "01-two.yaml").string());
  ASSERT_FALSE(l.is_ok());
  EXPECT_NE(l.message().find("01-two.zh.md"), std::string::npos) << l.message();
}

TEST(LessonLoad, NumbersWithoutGaps) {
  TempLesson t("gap");
  t.write("02-two.yaml", kYaml);
  t.write("02-two.en.md", "# Two\n## A\nstep {{step}}\n## B\nend\n");
  t.write("02-two.zh.md", "# 二\n## 甲\n一步 {{step}}\n## 乙\n完\n");
  auto l = load_lessons(t.dir.string());
  ASSERT_FALSE(l.is_ok());
  EXPECT_EQ(l.message(), (t.dir / "02-two.yaml").string() +
                             ": error: found lesson number 2; expected 1 (lessons are numbered "
                             "01, 02, ... without gaps or repeats)");
}

// True when `s` holds a CJK ideograph (U+4E00..U+9FFF), i.e. is Chinese text
// and not an English text copied over.
bool has_cjk(const std::string& s) {
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xE4 && c <= 0xE9) return true;  // lead bytes of U+4000..U+9FFF
  }
  return false;
}

// Every bundled lesson loads (both texts, one section per step, every
// answer shown in each language), its scenario loads as a scenario, and the
// Chinese text is Chinese in its title and in every section.
TEST(BundledLessons, AllLoadInBothLanguages) {
  auto lessons = load_lessons(kLessons);
  ASSERT_TRUE(lessons.is_ok()) << lessons.message();
  EXPECT_GE(lessons->size(), 7u);
  for (const Lesson& l : *lessons) {
    SCOPED_TRACE(l.scenario_path);
    auto s = load_scenario(l.scenario_path);
    EXPECT_TRUE(s.is_ok()) << s.message();
    EXPECT_FALSE(l.answers.empty()) << "every lesson asks something the tool answers";
    const LessonText& en = l.in(Lang::kEn);
    const LessonText& zh = l.in(Lang::kZh);
    ASSERT_EQ(en.sections.size(), zh.sections.size());
    EXPECT_TRUE(has_cjk(zh.title)) << zh.title;
    EXPECT_FALSE(has_cjk(en.title)) << en.title;
    for (size_t k = 0; k < zh.sections.size(); ++k) {
      EXPECT_TRUE(has_cjk(zh.sections[k].heading + zh.sections[k].body)) << "section " << k + 1;
      EXPECT_FALSE(en.sections[k].body.empty()) << "section " << k + 1;
    }
    // The same answers in both languages (the loader checks each shows every answer).
    std::set<std::string> en_names, zh_names;
    auto collect = [](const LessonText& t, std::set<std::string>& out) {
      for (const auto& [n, at] : answer_placeholders(t.intro)) out.insert(n);
      for (const LessonSection& section : t.sections)
        for (const auto& [n, at] : answer_placeholders(section.body)) out.insert(n);
    };
    collect(en, en_names);
    collect(zh, zh_names);
    EXPECT_EQ(en_names, zh_names);
    // Every file a step or an answer names exists.
    for (size_t k = 0; k < l.steps.size(); ++k)
      for (const std::string& a : l.command(k, Lang::kEn)) {
        if (a.size() > 5 && a.substr(a.size() - 5) == ".yaml") {
          EXPECT_TRUE(fs::exists(a)) << a;
        }
      }
    for (const LessonAnswer& a : l.answers)
      for (const std::string& arg : l.resolve(a.command, Lang::kEn)) {
        if (arg.size() > 5 && arg.substr(arg.size() - 5) == ".yaml") {
          EXPECT_TRUE(fs::exists(arg)) << arg;
        }
      }
  }
}

// Wrapped lines: a break between Chinese characters goes (no spaces in
// Chinese), between Latin words it stays for Markdown or becomes a space
// for a label; blank lines stay paragraph breaks.
TEST(JoinWrappedLines, ChineseJoinsLatinKeepsItsSpace) {
  EXPECT_EQ(join_wrapped_lines("一位厨师\n做完一步"), "一位厨师做完一步");
  EXPECT_EQ(join_wrapped_lines("one chef\ncooks"), "one chef\ncooks");
  EXPECT_EQ(join_wrapped_lines("one chef\ncooks", true), "one chef cooks");
  EXPECT_EQ(join_wrapped_lines("拿 (4, 256)\n行", true), "拿 (4, 256) 行");
  EXPECT_EQ(join_wrapped_lines("甲\n\n乙\n丙", true), "甲\n\n乙丙");
}

}  // namespace
}  // namespace brigade
