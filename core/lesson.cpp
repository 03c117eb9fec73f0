#include "core/lesson.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "core/scenario.hpp"
#include "core/units.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {
namespace fs = std::filesystem;

std::string_view lang_code(Lang lang) { return lang == Lang::kZh ? "zh" : "en"; }

std::optional<Lang> parse_lang(std::string_view code) {
  if (code == "en") return Lang::kEn;
  if (code == "zh") return Lang::kZh;
  return std::nullopt;
}

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

bool is_file_arg(const std::string& a) {
  for (const char* ext : {".yaml", ".yml", ".json"}) {
    const std::string e(ext);
    if (a.size() > e.size() && a.compare(a.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t j = s.find(' ', i);
    if (i < s.size()) out.push_back(s.substr(i, j == std::string::npos ? std::string::npos : j - i));
    i = j == std::string::npos ? s.size() : j;
  }
  return out;
}

// NN-name.yaml -> (NN, name); nullopt otherwise.
std::optional<std::pair<int, std::string>> lesson_file_name(const fs::path& p) {
  static const std::regex kName(R"(^([0-9]{2})-([a-z0-9][a-z0-9-]*)\.yaml$)");
  std::smatch m;
  const std::string file = p.filename().string();
  if (!std::regex_match(file, m, kName)) return std::nullopt;
  return std::make_pair(std::stoi(m[1].str()), m[2].str());
}

// Every {{name}} of `markdown` is an answer of the lesson, and every answer
// is shown at least once.
Status check_answers_shown(const Lesson& lesson, const std::string& markdown,
                           const std::string& file) {
  std::vector<std::string> names;
  for (const LessonAnswer& a : lesson.answers) names.push_back(a.name);
  std::set<std::string> shown;
  for (const auto& [name, at] : answer_placeholders(markdown)) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      const int line = 1 + static_cast<int>(std::count(markdown.begin(), markdown.begin() + static_cast<long>(at), '\n'));
      const size_t line_start = markdown.rfind('\n', at == 0 ? 0 : at - 1);
      const int col = 1 + static_cast<int>(line_start == std::string::npos || at == 0 ? at : at - line_start - 1);
      std::string msg = "found answer " + yamlio::quote("{{" + name + "}}") + "; expected ";
      if (names.empty()) {
        msg += "an answer of the lesson's answers: section, which has none";
      } else {
        msg += "one of";
        for (size_t i = 0; i < names.size(); ++i) msg += (i ? ", " : " ") + names[i];
        if (auto m = closest_match_in(name, names)) msg += " (did you mean '" + *m + "'?)";
      }
      return Status::at(SourcePos{file, line, col}, msg);
    }
    shown.insert(name);
  }
  for (const std::string& n : names)
    if (!shown.count(n))
      return Status::error(file + ": error: found no {{" + n + "}}; expected every answer of " +
                           fs::path(lesson.scenario_path).filename().string() +
                           " shown in each language");
  return Status::ok();
}

}  // namespace

std::vector<std::string> Lesson::command(size_t step, Lang lang) const {
  return resolve(steps.at(step), lang);
}

std::vector<std::string> Lesson::resolve(const LessonCommand& cmd, Lang lang) const {
  std::vector<std::string> out;
  for (const std::string& a : cmd.args) {
    if (a == "LESSON") {
      out.push_back(scenario_path);
    } else if (a == "LANG") {
      out.emplace_back(lang_code(lang));
    } else if (is_file_arg(a) && fs::path(a).is_relative()) {
      out.push_back((fs::path(folder) / a).lexically_normal().string());
    } else {
      out.push_back(a);
    }
  }
  return out;
}

Result<std::string> format_answer(const nlohmann::json& value, AnswerFormat format) {
  auto expected = [&](const std::string& what) -> Status {
    return Status::error("found " + value.dump() + "; expected " + what);
  };
  switch (format) {
    case AnswerFormat::kSeconds:
      if (!value.is_number()) return expected("a duration in seconds");
      return format_seconds(value.get<double>());
    case AnswerFormat::kBytes:
      if (!value.is_number()) return expected("a size in bytes");
      return format_bytes(value.get<double>());
    case AnswerFormat::kNumber: {
      if (!value.is_number()) return expected("a number");
      const double v = value.get<double>();
      char buf[64];
      if (v == std::floor(v) && std::fabs(v) < 1e15)
        std::snprintf(buf, sizeof buf, "%.0f", v);
      else
        std::snprintf(buf, sizeof buf, "%.4g", v);
      return std::string(buf);
    }
    case AnswerFormat::kShape: {
      if (!value.is_array() || value.empty()) return expected("a shape (a list of sizes)");
      std::string out = "(";
      for (size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_number_integer()) return expected("a shape (a list of sizes)");
        out += (i ? ", " : "") + std::to_string(value[i].get<std::int64_t>());
      }
      return out + ")";
    }
    case AnswerFormat::kText:
      if (value.is_string()) return value.get<std::string>();
      if (value.is_number() || value.is_boolean()) return value.dump();
      return expected("a string");
  }
  return expected("a value");
}

std::vector<std::pair<std::string, size_t>> answer_placeholders(const std::string& text) {
  std::vector<std::pair<std::string, size_t>> out;
  for (size_t i = text.find("{{"); i != std::string::npos; i = text.find("{{", i + 2)) {
    const size_t end = text.find("}}", i + 2);
    if (end == std::string::npos) break;
    out.emplace_back(trim(text.substr(i + 2, end - i - 2)), i);
  }
  return out;
}

std::string fill_answers(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t from = 0;
  for (const auto& [name, at] : answer_placeholders(text)) {
    const size_t end = text.find("}}", at) + 2;
    const auto it = values.find(name);
    out += text.substr(from, at - from);
    out += it != values.end() ? it->second : text.substr(at, end - at);
    from = end;
  }
  return out + text.substr(from);
}

std::string join_wrapped_lines(const std::string& text, bool latin) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\n') {  // a paragraph break stays
      while (i + 1 < text.size() && text[i + 1] == '\n') out += text[++i];
      out += '\n';
      continue;
    }
    const bool ascii_before = !out.empty() && static_cast<unsigned char>(out.back()) < 128;
    const bool ascii_after = i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 128;
    if (!ascii_before && !ascii_after) continue;  // Chinese on both sides
    out += latin ? ' ' : '\n';
  }
  return out;
}

Result<LessonText> parse_lesson_text(const std::string& markdown, const std::string& file) {
  LessonText t;
  t.file = file;
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= markdown.size()) {
    const size_t nl = markdown.find('\n', start);
    lines.push_back(markdown.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  if (lines.empty() || lines[0].rfind("# ", 0) != 0 || trim(lines[0].substr(2)).empty())
    return Status::at(SourcePos{file, 1, 1},
                      "found " + (lines.empty() || lines[0].empty() ? std::string("no title")
                                                                   : yamlio::quote(lines[0])) +
                          "; expected the lesson's title on the first line, as '# Title'");
  t.title = trim(lines[0].substr(2));
  std::string body;
  LessonSection* current = nullptr;
  auto flush = [&] {
    if (current) current->body = trim(body);
    else t.intro = trim(body);
    body.clear();
  };
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("## ", 0) == 0 || l == "##") {
      flush();
      const std::string heading = l.size() > 3 ? trim(l.substr(3)) : "";
      if (heading.empty())
        return Status::at(SourcePos{file, static_cast<int>(i + 1), 1},
                          "found an empty section heading; expected '## Heading'");
      t.sections.push_back(LessonSection{heading, ""});
      current = &t.sections.back();
      continue;
    }
    body += l + "\n";
  }
  flush();
  return t;
}

Result<Lesson> load_lesson(const std::string& yaml_path) {
  const fs::path path(yaml_path);
  const auto name = lesson_file_name(path);
  if (!name)
    return Status::error(yaml_path + ": error: found a lesson file named '" +
                         path.filename().string() +
                         "'; expected NN-name.yaml (two digits, a dash, lower-case words)");
  Lesson lesson;
  lesson.number = name->first;
  lesson.name = name->second;
  lesson.scenario_path = yaml_path;
  lesson.folder = path.parent_path().string();
  if (lesson.folder.empty()) lesson.folder = ".";

  std::string text;
  BRIGADE_RETURN_IF_ERROR(yamlio::read_file_text(yaml_path, "a lesson scenario (NN-name.yaml)",
                                                 &text, ScenarioLimits::kMaxFileBytes));
  BRIGADE_ASSIGN_OR_RETURN(const yamlio::Tree tree,
                           yamlio::read_tree(text, yaml_path, "a lesson scenario"));
  yamlio::Document doc{yaml_path, nullptr};
  const yamlio::Cursor root(&doc, tree, "", SourcePos{yaml_path, 1, 1});
  BRIGADE_RETURN_IF_ERROR(root.expect_map("a lesson scenario"));
  BRIGADE_RETURN_IF_ERROR(
      root.require("lesson", "the lesson's steps: lesson: {kind: tour, steps: [...]}"));
  const yamlio::Cursor c = root.get("lesson");
  BRIGADE_RETURN_IF_ERROR(c.expect_map("the lesson's steps: {kind: tour, steps: [...]}"));
  BRIGADE_RETURN_IF_ERROR(c.check_keys({"kind", "steps", "answers"}));
  BRIGADE_ASSIGN_OR_RETURN(lesson.kind,
                           c.get_enum<std::string>("kind", "tour",
                                                   {{"tour", "tour"}, {"misconception", "misconception"}}));
  BRIGADE_RETURN_IF_ERROR(c.require("steps", "a list of steps, such as [{run: cost LESSON}, {}]"));
  const yamlio::Cursor steps = c.get("steps");
  BRIGADE_RETURN_IF_ERROR(steps.expect_list("a list of steps, such as [{run: cost LESSON}, {}]"));
  for (const yamlio::Cursor& s : steps.items()) {
    LessonCommand cmd;
    if (!s.is_null()) {
      BRIGADE_RETURN_IF_ERROR(s.expect_map("a step: {run: COMMAND} or {} for text alone"));
      BRIGADE_RETURN_IF_ERROR(s.check_keys({"run"}));
      if (s.has("run")) {
        BRIGADE_ASSIGN_OR_RETURN(const std::string run, s.get("run").as_name());
        cmd.args = split_words(run);
        if (cmd.args.empty())
          return s.get("run").error("found an empty command; expected brigade's arguments, such as 'cost LESSON'");
      }
    }
    lesson.steps.push_back(std::move(cmd));
  }
  if (lesson.steps.empty())
    return steps.error("found no steps; expected at least one step");
  if (c.has("answers")) {
    const yamlio::Cursor answers = c.get("answers");
    BRIGADE_RETURN_IF_ERROR(answers.expect_map(
        "the quiz's answers: {NAME: {run: COMMAND --json, take: /POINTER, as: FORMAT}}"));
    for (const auto& [k, v] : answers.entries()) {
      LessonAnswer a;
      BRIGADE_ASSIGN_OR_RETURN(a.name, k.as_name());
      a.where = k.pos();
      BRIGADE_RETURN_IF_ERROR(v.expect_map("an answer: {run: COMMAND --json, take: /POINTER, as: FORMAT}"));
      BRIGADE_RETURN_IF_ERROR(v.check_keys({"run", "take", "as"}));
      BRIGADE_RETURN_IF_ERROR(v.require("run", "the command whose --json output holds the answer"));
      BRIGADE_RETURN_IF_ERROR(v.require("take", "a JSON pointer into its output, such as /seconds"));
      BRIGADE_ASSIGN_OR_RETURN(const std::string run, v.get("run").as_name());
      a.command.args = split_words(run);
      BRIGADE_ASSIGN_OR_RETURN(a.pointer, v.get("take").as_name());
      if (a.pointer.front() != '/')
        return v.get("take").error("found " + yamlio::quote(a.pointer) +
                                   "; expected a JSON pointer starting with '/', such as /seconds");
      BRIGADE_ASSIGN_OR_RETURN(a.format, v.get_enum<AnswerFormat>(
                                             "as", AnswerFormat::kNumber,
                                             {{"seconds", AnswerFormat::kSeconds},
                                              {"bytes", AnswerFormat::kBytes},
                                              {"number", AnswerFormat::kNumber},
                                              {"shape", AnswerFormat::kShape},
                                              {"text", AnswerFormat::kText}}));
      lesson.answers.push_back(std::move(a));
    }
  }

  for (Lang lang : kAllLangs) {
    fs::path md = path;
    md.replace_extension(std::string(".") + std::string(lang_code(lang)) + ".md");
    std::string markdown;
    BRIGADE_RETURN_IF_ERROR(yamlio::read_file_text(
        md.string(), "the lesson's text in " + std::string(lang_code(lang)) + " beside its scenario",
        &markdown, std::size_t{1} << 20));
    BRIGADE_ASSIGN_OR_RETURN(LessonText t, parse_lesson_text(markdown, md.string()));
    BRIGADE_RETURN_IF_ERROR(check_answers_shown(lesson, markdown, md.string()));
    if (t.sections.size() != lesson.steps.size())
      return Status::error(md.string() + ": error: found " + std::to_string(t.sections.size()) +
                           " section" + (t.sections.size() == 1 ? "" : "s") + "; expected " +
                           std::to_string(lesson.steps.size()) + ", one per step of " +
                           path.filename().string());
    lesson.text.emplace(lang, std::move(t));
  }
  return lesson;
}

Result<std::vector<Lesson>> load_lessons(const std::string& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    return Status::error(folder + ": error: found no folder; expected the lessons' folder "
                                  "(scenarios/lessons)");
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec))
    if (e.is_regular_file() && lesson_file_name(e.path())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty())
    return Status::error(folder + ": error: found no lesson; expected files NN-name.yaml");
  std::vector<Lesson> out;
  for (const fs::path& f : files) {
    BRIGADE_ASSIGN_OR_RETURN(Lesson l, load_lesson(f.string()));
    const int expected = static_cast<int>(out.size()) + 1;
    if (l.number != expected)
      return Status::error(f.string() + ": error: found lesson number " + std::to_string(l.number) +
                           "; expected " + std::to_string(expected) +
                           " (lessons are numbered 01, 02, ... without gaps or repeats)");
    out.push_back(std::move(l));
  }
  return out;
}

std::string find_lessons_folder(const std::string& start) {
  if (const char* env = std::getenv("BRIGADE_LESSONS"); env && *env) return env;
  std::error_code ec;
  for (fs::path base : {fs::path(start), fs::current_path(ec)}) {
    for (int up = 0; up < 6 && !base.empty(); ++up) {
      const fs::path candidate = base / "scenarios" / "lessons";
      if (fs::is_directory(candidate, ec)) return candidate.lexically_normal().string();
      if (base == base.parent_path()) break;
      base = base.parent_path();
    }
  }
  return "";
}

}  // namespace brigade
