// Lessons: the teaching mode's data, read by the CLI (`brigade lesson`) and
// the app alike, so neither needs the other (no Qt here).
//
// A lesson is three files in scenarios/lessons/ (docs/lessons.md):
//   NN-name.yaml     a scenario every judge reads, with a `lesson:` section
//                    (the judges ignore it) listing the lesson's steps;
//   NN-name.en.md    its text in English;
//   NN-name.zh.md    its text in Chinese.
// The text is Markdown: "# Title", an introduction, then one "## Heading"
// section per step. Step k of the YAML runs a command after section k is
// read (or none: a step of text alone).
//
//   lesson:
//     kind: tour                  # or misconception
//     steps:
//       - run: explain LESSON --kitchen --lang LANG
//       - run: compare LESSON more/05-no-overlap.yaml
//       - {}                      # text only
//     answers:                    # the quiz's answers, computed when read
//       q3_alpha: {run: collective allreduce ... --json, take: /alpha_term_seconds, as: seconds}
//
// The texts name answers as {{q3_alpha}}; a reader (the CLI, the app) runs
// each answer's command with --json, takes the value at the JSON pointer
// `take` and writes it in place, formatted as `as` says. No number of a
// quiz's answer is stored in the text.
// A command is `brigade`'s arguments split at spaces: LESSON stands for the
// lesson's own scenario, LANG for the language being read ("en", "zh"), and
// an argument ending in .yaml, .yml or .json is a file relative to the
// lesson's folder.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/status.hpp"

namespace brigade {

enum class Lang { kEn, kZh };
inline constexpr Lang kAllLangs[] = {Lang::kEn, Lang::kZh};
std::string_view lang_code(Lang lang);  // "en", "zh"
std::optional<Lang> parse_lang(std::string_view code);

// One step's command: `brigade ARGS...`, placeholders not yet replaced.
struct LessonCommand {
  std::vector<std::string> args;  // empty: a step of text alone
  bool empty() const { return args.empty(); }
  const std::string& verb() const { return args.front(); }
};

// How an answer's value is written: a duration ("70.0 us"), a size
// ("1.00 GiB"), a number (integers without a decimal point), a shape
// ("(4, 256)" from [4, 256]) or a string as it is.
enum class AnswerFormat { kSeconds, kBytes, kNumber, kShape, kText };

struct LessonAnswer {
  std::string name;       // "q3_alpha": {{q3_alpha}} in the texts
  LessonCommand command;  // run with its placeholders replaced, like a step's
  std::string pointer;    // a JSON pointer into the command's output, "/alpha_term_seconds"
  AnswerFormat format = AnswerFormat::kNumber;
  SourcePos where;        // the answer's key in the YAML, for messages
};

struct LessonSection {
  std::string heading;  // the "## " line's text
  std::string body;     // Markdown, trimmed
};

struct LessonText {
  std::string file;
  std::string title;  // the "# " line's text
  std::string intro;  // before the first section, trimmed
  std::vector<LessonSection> sections;
};

struct Lesson {
  int number = 0;             // NN
  std::string name;           // "placement-cost"
  std::string kind;           // "tour" or "misconception"
  std::string scenario_path;  // the NN-name.yaml, as found
  std::string folder;         // its folder (relative files are resolved against it)
  std::vector<LessonCommand> steps;  // one per section
  std::vector<LessonAnswer> answers; // in the YAML's order
  std::map<Lang, LessonText> text;   // every language of kAllLangs

  const LessonText& in(Lang lang) const { return text.at(lang); }
  // Step k's command with its placeholders replaced and its files resolved,
  // ready to run as `brigade ARGS...`.
  std::vector<std::string> command(size_t step, Lang lang) const;
  // The same for a command of this lesson (an answer's).
  std::vector<std::string> resolve(const LessonCommand& command, Lang lang) const;
};

// An answer's value as the text shows it. Errors: a value of the wrong
// type for the format ("found [4, 256]; expected a number").
Result<std::string> format_answer(const nlohmann::json& value, AnswerFormat format);

// The {{name}} placeholders of a text, in order, with their byte offsets.
std::vector<std::pair<std::string, size_t>> answer_placeholders(const std::string& text);

// `text` with every {{name}} replaced by values.at(name) (a name missing
// from `values` is left as it is).
std::string fill_answers(const std::string& text, const std::map<std::string, std::string>& values);

// A text's wrapped lines joined: a line break between two characters that
// are not ASCII (Chinese) disappears, since Chinese puts no space between
// words and Markdown would show the break as one; with `latin`, every other
// break becomes a space (one line per paragraph, for plain-text labels).
// Paragraph breaks (blank lines) stay.
std::string join_wrapped_lines(const std::string& text, bool latin = false);

// "# Title / intro / ## sections" Markdown. Errors (FILE:LINE:1): no title
// on the first line, an empty section heading.
Result<LessonText> parse_lesson_text(const std::string& markdown, const std::string& file);

// A lesson from its scenario file (NN-name.yaml) and the two texts beside it.
// Errors: a file name not of the form NN-name.yaml, no `lesson:` section, a
// step's command that is not a string, a text missing, sections that do
// not match the steps ("FILE: error: found 3 sections; expected 4, one per
// step of NN-name.yaml"), a {{name}} that is no answer of the lesson, or an
// answer that a language's text does not show (so every language has every
// answer).
Result<Lesson> load_lesson(const std::string& yaml_path);

// Every lesson of a folder (files NN-name.yaml), by number. Errors: none
// found, a number twice, numbers that are not 1, 2, ..., N.
Result<std::vector<Lesson>> load_lessons(const std::string& folder);

// The bundled lessons' folder: $BRIGADE_LESSONS if set, else the first
// scenarios/lessons found going up from `start` (the executable's folder)
// and then from the working folder; "" if none.
std::string find_lessons_folder(const std::string& start);

}  // namespace brigade
