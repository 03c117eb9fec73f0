// brigade lesson [NAME]: the teaching mode at the command line, for a
// projector and a terminal. Without NAME, the list of lessons; with it, the
// lesson's text in the language asked for, each step's command run after
// its section, and the quiz's answers computed live by the judges (each
// answer is a command's --json output, core/lesson.hpp), never read from
// the text. Lessons are data files (scenarios/lessons/NN-name.yaml with
// NN-name.en.md and NN-name.zh.md) that the app reads too.
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/lesson.hpp"
#include "planner/quiz.hpp"

namespace brigade::cli {
namespace {
namespace fs = std::filesystem;

struct LessonOptions {
  std::string name;
  std::string lang = "en";
  std::string lessons;  // --lessons DIR
  int step = 0;         // --step K (1-based; 0: every step)
  bool step_given = false;  // --step 0 is refused, not read as "every step"
  bool no_run = false;
  bool json = false;
  bool quiz = false;    // --quiz
};

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// A path as short as it can be shown: relative to the working folder when
// it lies below it.
std::string shown_path(const std::string& path) {
  std::error_code ec;
  const fs::path rel = fs::path(path).lexically_relative(fs::current_path(ec));
  if (ec || rel.empty() || rel.begin()->string() == "..") return path;
  return rel.string();
}

// Runs `brigade ARGS...` in this process and returns what it wrote on
// stdout (stderr passes through). A command that fails is the lesson's
// fault: BadInput naming `where` (the lesson's file).
std::string run_in_process(const std::vector<std::string>& args, const std::string& where) {
  const std::string shown = "`brigade " + join(args) + "`";
  if (args.empty() || args.front() == "lesson")
    throw BadInput{"brigade: error: " + where + ": found " + shown +
                   "; expected a command of another verb (a lesson does not run lessons)"};
  CLI::App app{"brigade"};
  app.name("brigade");
  app.require_subcommand(1);
  for (const Verb& v : verb_registry()) v.setup(app);
  std::ostringstream captured;
  std::streambuf* const old = std::cout.rdbuf(captured.rdbuf());
  struct Restore {
    std::streambuf* old;
    ~Restore() { std::cout.rdbuf(old); }
  } restore{old};
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them backwards
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw BadInput{"brigade: error: " + where + ": found " + shown + " (" + e.what() +
                   "); expected a command brigade can run"};
  } catch (const BadInput& e) {
    throw BadInput{"brigade: error: " + where + ": " + shown + " failed: " + e.message};
  }
  return captured.str();
}

// The lesson NAME names: its number ("3", "03"), its name ("ring-allreduce")
// or both ("03-ring-allreduce").
const Lesson& find_lesson(const std::vector<Lesson>& lessons, const std::string& name) {
  std::vector<std::string> names;
  for (const Lesson& l : lessons) {
    const std::string full = fmt::format("{:02d}-{}", l.number, l.name);
    if (name == l.name || name == full || name == std::to_string(l.number) ||
        name == fmt::format("{:02d}", l.number))
      return l;
    names.push_back(l.name);
  }
  std::string msg = fmt::format(
      "brigade: error: NAME: found '{}'; expected a lesson's number from 1 to {} or its name ({})",
      name, lessons.size(), fmt::format("{}", fmt::join(names, ", ")));
  if (auto m = closest_match_in(name, names)) msg += " (did you mean '" + *m + "'?)";
  throw BadInput{msg};
}

struct Answer {
  nlohmann::json value;
  std::string text;
};

// Each answer of the lesson, computed now by running its command.
std::map<std::string, Answer> compute_answers(const Lesson& lesson, Lang lang) {
  std::map<std::string, Answer> out;
  for (const LessonAnswer& a : lesson.answers) {
    const std::vector<std::string> args = lesson.resolve(a.command, lang);
    const std::string where = a.where.str();
    const std::string output = run_in_process(args, where);
    nlohmann::json j = nlohmann::json::parse(output, nullptr, false);
    if (j.is_discarded())
      throw BadInput{where + ": error: found output of `brigade " + join(args) +
                     "` that is not JSON; expected a command with --json"};
    nlohmann::json::json_pointer ptr;
    try {
      ptr = nlohmann::json::json_pointer(a.pointer);
    } catch (const nlohmann::json::exception&) {
      throw BadInput{where + ": error: found '" + a.pointer +
                     "'; expected a JSON pointer such as /devices/0/name"};
    }
    if (!j.contains(ptr))
      throw BadInput{where + ": error: found no value at " + a.pointer + " in the output of `brigade " +
                     join(args) + "`; expected a JSON pointer to one"};
    auto text = format_answer(j.at(ptr), a.format);
    if (!text.is_ok()) throw BadInput{where + ": error: answer '" + a.name + "': " + text.message()};
    out[a.name] = Answer{j.at(ptr), *text};
  }
  return out;
}

void list_lessons(const std::vector<Lesson>& lessons, Lang lang, bool json) {
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const Lesson& l : lessons)
      j.push_back({{"number", l.number},
                   {"name", l.name},
                   {"kind", l.kind},
                   {"title", l.in(lang).title},
                   {"scenario", l.scenario_path},
                   {"steps", l.steps.size()}});
    std::cout << j.dump(2) << "\n";
    return;
  }
  for (const Lesson& l : lessons)
    std::cout << fmt::format("{:02d}  {:<22} {:<13} {}\n", l.number, l.name, l.kind,
                             l.in(lang).title);
  std::cout << "\n"
            << (lang == Lang::kZh ? "运行 `brigade lesson N --lang zh` 阅读第 N 课。\n"
                                  : "Run `brigade lesson N` to read lesson N (--lang zh: in Chinese).\n");
}

// The seed's ten questions, each answer computed now from the lessons'
// scenarios (planner/quiz.hpp).
void print_quiz(const std::string& folder, Lang lang, bool json) {
  auto quiz = planner::load_quiz(folder, lang);
  if (!quiz.is_ok()) throw_status(quiz.status());
  if (json) {
    nlohmann::json j = {{"title", quiz->title}, {"intro", quiz->intro}, {"lang", lang_code(lang)}};
    j["questions"] = nlohmann::json::array();
    for (const planner::QuizQuestion& q : quiz->questions) {
      nlohmann::json choices = nlohmann::json::array();
      for (const planner::QuizChoice& c : q.choices)
        choices.push_back({{"letter", std::string(1, c.letter)}, {"text", c.text}, {"correct", c.correct}});
      j["questions"].push_back({{"number", q.number},
                                {"question", q.question},
                                {"multiple", q.multiple},
                                {"choices", choices},
                                {"answer", q.answer()},
                                {"explanation", q.explanation},
                                {"facts", q.facts},
                                {"scenarios", q.scenarios}});
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << quiz->title << "\n\n" << quiz->intro << "\n";
  const char* answer_format = lang == Lang::kZh ? "答案：{}。{}\n" : "Answer: {}. {}\n";
  for (const planner::QuizQuestion& q : quiz->questions) {
    std::cout << fmt::format("\nQ{}. {}\n", q.number, q.question);
    for (const planner::QuizChoice& c : q.choices) std::cout << fmt::format("  {}. {}\n", c.letter, c.text);
    std::cout << fmt::format(fmt::runtime(answer_format), q.answer(), q.explanation);
  }
}

void run_lesson(const LessonOptions& o) {
  const auto lang = parse_lang(o.lang);
  if (!lang) parse_choice_flag("--lang", o.lang, {"en", "zh"});  // throws with the choices
  std::string folder = o.lessons;
  if (folder.empty()) {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    folder = find_lessons_folder(ec ? std::string() : exe.parent_path().string());
    if (folder.empty())
      throw BadInput{"brigade: error: found no scenarios/lessons folder near brigade or the "
                     "working folder; expected --lessons DIR or $BRIGADE_LESSONS"};
  }
  if (o.quiz) {
    if (!o.name.empty())
      throw BadInput{"brigade: error: --quiz: found it with lesson '" + o.name +
                     "'; expected --quiz alone (the quiz draws on every lesson)"};
    print_quiz(folder, *lang, o.json);
    return;
  }
  auto lessons = load_lessons(folder);
  if (!lessons.is_ok()) throw_status(lessons.status());
  if (o.name.empty()) {
    if (o.step_given) throw_flag_error("--step", std::to_string(o.step), "a lesson NAME with it");
    list_lessons(*lessons, *lang, o.json);
    return;
  }
  const Lesson& lesson = find_lesson(*lessons, o.name);
  if ((o.step_given && o.step < 1) || o.step < 0 || o.step > static_cast<int>(lesson.steps.size()))
    throw_flag_error("--step", std::to_string(o.step),
                     fmt::format("a step from 1 to {} of lesson {:02d}", lesson.steps.size(),
                                 lesson.number));
  const std::map<std::string, Answer> answers = compute_answers(lesson, *lang);
  std::map<std::string, std::string> values;
  for (const auto& [name, a] : answers) values[name] = a.text;
  const LessonText& text = lesson.in(*lang);

  nlohmann::json j;
  if (o.json) {
    j = {{"number", lesson.number},     {"name", lesson.name},
         {"kind", lesson.kind},         {"lang", lang_code(*lang)},
         {"title", text.title},         {"intro", fill_answers(text.intro, values)},
         {"scenario", lesson.scenario_path}};
    j["answers"] = nlohmann::json::object();
    for (const auto& [name, a] : answers) j["answers"][name] = {{"value", a.value}, {"text", a.text}};
    j["sections"] = nlohmann::json::array();
  } else if (o.step == 0) {
    std::cout << fmt::format("{:02d} · {}\n\n", lesson.number, text.title);
    if (!text.intro.empty()) std::cout << fill_answers(text.intro, values) << "\n";
  }
  for (size_t k = 0; k < lesson.steps.size(); ++k) {
    if (o.step != 0 && static_cast<int>(k + 1) != o.step) continue;
    const LessonSection& s = text.sections[k];
    const std::string body = fill_answers(s.body, values);
    std::vector<std::string> args;
    std::string output;
    std::vector<std::string> shown_args;  // files as short as they can be shown; run as shown
    if (!lesson.steps[k].empty()) {
      args = lesson.command(k, *lang);
      for (const std::string& a : args) shown_args.push_back(fs::exists(a) ? shown_path(a) : a);
      if (!o.no_run)
        output = run_in_process(shown_args, fmt::format("{} (step {})", lesson.scenario_path, k + 1));
    }
    if (o.json) {
      nlohmann::json sj = {{"heading", s.heading}, {"body", body}, {"command", shown_args}};
      sj["output"] = o.no_run || args.empty() ? nlohmann::json(nullptr) : nlohmann::json(output);
      j["sections"].push_back(sj);
      continue;
    }
    std::cout << fmt::format("\n## {}. {}\n\n{}\n", k + 1, s.heading, body);
    if (!args.empty()) {
      std::cout << "\n$ brigade " << join(shown_args) << "\n";
      if (!o.no_run) std::cout << output;
    }
  }
  if (o.json) std::cout << j.dump(2) << "\n";
}

const RegisterVerb kRegister("lesson", 26, [](CLI::App& app) {
  auto opts = std::make_shared<LessonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lesson",
      "The teaching mode: the kitchen analogy of device placement in lessons (chefs are\n"
      "devices, stations their memory, runners the links, the sauce bowl AllReduce, the head\n"
      "chef XLA). Without NAME, the list; with it, the lesson's text, each step's command run\n"
      "after its section, and the quiz's answers computed live by the judges.");
  cmd->add_option("NAME", opts->name, "a lesson's number (3, 03) or name (ring-allreduce)");
  cmd->add_option("--lang", opts->lang, "en (default) or zh");
  CLI::Option* step = cmd->add_option("--step", opts->step, "only step K (1-based) of the lesson");
  cmd->add_flag("--no-run", opts->no_run,
                "print the steps' commands without running them (answers are still computed)");
  cmd->add_option("--lessons", opts->lessons,
                  "the lessons' folder (default: $BRIGADE_LESSONS, else scenarios/lessons "
                  "near brigade or the working folder)")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v.empty() ? std::string("found ''; expected a folder") : std::string();
          },
          ""));
  cmd->add_flag("--quiz", opts->quiz,
                "the first seed text's ten questions, each answer computed now from the "
                "lessons' scenarios");
  cmd->add_flag("--json", opts->json,
                "one JSON object: the text, the commands, their output and the answers");
  cmd->callback([opts, step] {
    opts->step_given = step->count() > 0;
    run_lesson(*opts);
  });
});

}  // namespace
}  // namespace brigade::cli
