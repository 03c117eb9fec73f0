// The seed's ten quiz questions (planner/quiz.hpp): each answer computed
// from the lessons' scenarios, checked against the seed's answer key and
// hand-worked values.
#include "planner/quiz.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace brigade::planner {
namespace {
namespace fs = std::filesystem;

const std::string kLessons = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/lessons";

const Quiz& quiz_en() {
  static const Quiz q = [] {
    auto r = load_quiz(kLessons, Lang::kEn);
    EXPECT_TRUE(r.is_ok()) << r.message();
    return r.is_ok() ? *r : Quiz{};
  }();
  return q;
}

const QuizQuestion& question(int n) { return quiz_en().questions.at(static_cast<size_t>(n - 1)); }

// The seed's answer key (面试题): B, C, C, B, A, B, AB, AC, BC, C, each
// computed by the tool, not read.
TEST(Quiz, AnswersMatchTheSeedsKey) {
  ASSERT_EQ(quiz_en().questions.size(), 10u);
  const std::vector<std::string> key = {"B", "C", "C", "B", "A", "B", "AB", "AC", "BC", "C"};
  for (int n = 1; n <= 10; ++n) EXPECT_EQ(question(n).answer(), key[static_cast<size_t>(n - 1)]) << "Q" << n;
  EXPECT_TRUE(question(7).multiple);
  EXPECT_FALSE(question(1).multiple);
}

// Q1 and Q4: (32, 256) over 8 devices by rows: 32 / 8 = 4 rows each, (4, 256);
// jax.pmap proper needs the leading axis of 8: (8, 32 / 8, 256) = (8, 4, 256).
TEST(Quiz, Q4ShapesFromThePlanner) {
  EXPECT_EQ(question(4).facts.at("x_local"), "(4, 256)");
  EXPECT_EQ(question(4).facts.at("x_global"), "(32, 256)");
  EXPECT_EQ(question(4).facts.at("pmap_input"), "(8, 4, 256)");
  EXPECT_EQ(question(1).facts.at("rows"), "32 / 8 = 4");
  EXPECT_NE(question(4).explanation.find("(8, 4, 256)"), std::string::npos);
}

// Q3: the ring over the 8 A100s of a DGX: 2(N - 1) = 2 x 7 = 14 messages of
// alpha = 4 us (the NVLink alpha of the dgx-a100 preset) = 56 us, whatever
// M: the time of an AllReduce of 0 bytes.
TEST(Quiz, Q3AlphaTermFromTheAlphaBetaModel) {
  EXPECT_EQ(question(3).facts.at("rounds"), "14");
  EXPECT_EQ(question(3).facts.at("alpha"), "4.00 us");
  EXPECT_EQ(question(3).facts.at("alpha_term"), "56.0 us");
}

// Q2 and Q5: jit(f, device=devices[1]) runs everything on gpu1; data
// parallelism syncs its gradients with an AllReduce.
TEST(Quiz, JitDeviceAndGradientSync) {
  EXPECT_EQ(question(2).facts.at("jit_device"), "gpu1");
  EXPECT_EQ(question(2).facts.at("jit_devices_used"), "1");
  EXPECT_EQ(question(5).facts.at("grad_kind"), "allreduce");
  EXPECT_EQ(question(5).facts.at("grad_group"), "8");
}

// Q10: W (1024, 1024) by rows over 4: (1024 / 4, 1024) = (256, 1024) per
// chef; the partial sums y (8, 1024) f32 = 8 x 1024 x 4 B = 32 KiB are
// added by an AllReduce (JAX's psum).
TEST(Quiz, Q10PsumFromThePlan) {
  EXPECT_EQ(question(10).facts.at("w_local"), "(256, 1024)");
  EXPECT_EQ(question(10).facts.at("combine"), "allreduce");
  EXPECT_EQ(question(10).facts.at("combine_bytes"), "32.0 KiB");
  EXPECT_EQ(question(10).facts.at("chefs"), "4");
}

// Every fact a text names is filled; the Chinese quiz has the same answers.
TEST(Quiz, ChineseHasTheSameAnswers) {
  auto zh = load_quiz(kLessons, Lang::kZh);
  ASSERT_TRUE(zh.is_ok()) << zh.message();
  ASSERT_EQ(zh->questions.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(zh->questions[i].answer(), quiz_en().questions[i].answer()) << "Q" << i + 1;
    EXPECT_EQ(zh->questions[i].explanation.find("{{"), std::string::npos) << "Q" << i + 1;
    EXPECT_EQ(quiz_en().questions[i].explanation.find("{{"), std::string::npos) << "Q" << i + 1;
  }
}

// A fact the tool does not compute is bad input, with the question named.
TEST(Quiz, UnknownFactIsAnError) {
  const fs::path dir = fs::temp_directory_path() / "brigade_quiz_test";
  fs::remove_all(dir);
  fs::copy(kLessons, dir, fs::copy_options::recursive);
  std::ifstream in(dir / "quiz.en.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  s.replace(s.find("{{x_global}}"), 12, "{{x_globl}}");
  std::ofstream(dir / "quiz.en.md") << s;
  auto r = load_quiz(dir.string(), Lang::kEn);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), (dir / "quiz.en.md").string() +
                             ": error: question 1: found {{x_globl}}; expected a fact the tool "
                             "computes for it");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace brigade::planner
