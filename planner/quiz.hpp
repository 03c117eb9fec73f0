// The first seed text's ten quiz questions (面试题), with answers the tool
// computes live from the lessons' scenarios: no answer letter and no number
// is stored with the questions. Widget-free: `brigade lesson --quiz` and the
// app's Lessons dock both call load_quiz.
//
// The questions and their choices are data, in both languages, beside the
// lessons: scenarios/lessons/quiz.en.md and quiz.zh.md, Markdown as a
// lesson's text (core/lesson.hpp): "# Title", an introduction, then one
// "## Qn. question" section per question whose body is its choices, one a
// line ("- A. ..."), then the explanation, which shows computed facts as
// {{name}}. Which choices are right is decided here, question by question,
// from facts the planner, the closed form and the alpha-beta model give:
//   Q1  pmap's role: the pmap lesson's plan runs the same program on every
//       device on a block of B/N rows of x;
//   Q2  jit with a device: the jit lesson's ops all run on the device named;
//   Q3  2(N-1)alpha: the ring's time at 0 bytes equals its alpha term at M;
//   Q4  (32, 256) over 8: the plan's block per device, and pmap's reshape;
//   Q5  gradient sync: the data-parallel plan's gradient collective's kind;
//   Q6  overlap: exposed communication with and without it, compute equal;
//   Q7  search finds a plan; placement obeys; pmap replicates W; a hand
//       plan loses on paper;
//   Q8  k AllReduces vs 1, 2M vs M, a ring in a node vs across nodes, a
//       model-parallel plan's collectives;
//   Q9  two plans of one model: step and peak move, the math does not;
//   Q10 W row-sharded: the collective that adds the partial sums.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/lesson.hpp"
#include "core/status.hpp"

namespace brigade::planner {

struct QuizChoice {
  char letter = 'A';
  std::string text;
  bool correct = false;  // computed
};

struct QuizQuestion {
  int number = 0;            // 1..10
  std::string question;      // the section's heading
  bool multiple = false;     // "choose all that apply" (the text's marker)
  std::vector<QuizChoice> choices;
  std::string explanation;   // facts filled in
  std::map<std::string, std::string> facts;  // computed values, as shown
  std::vector<std::string> scenarios;        // the files the answer was computed from
  std::string answer() const;                // the correct letters, "B" or "AC"
};

struct Quiz {
  std::string title;
  std::string intro;
  std::vector<QuizQuestion> questions;
};

// The quiz in `lang`, each answer computed now from the scenarios of
// `lessons_folder`. Errors: a text missing or not ten questions, a
// question without four choices, a fact the text names that the tool does
// not compute, a scenario that does not load or plan.
Result<Quiz> load_quiz(const std::string& lessons_folder, Lang lang);

}  // namespace brigade::planner
