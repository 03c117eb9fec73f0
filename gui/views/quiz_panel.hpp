// The Lessons dock's quiz tab: the first seed text's ten questions
// (planner/quiz.hpp), each answered by the user (one choice, or several
// where the question says so) and checked against the answer the tool
// computes from the lessons' scenarios, with the explanation and its
// numbers. The quiz is computed on a worker thread when first shown and
// again for each language.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <QWidget>

#include "core/lesson.hpp"
#include "planner/quiz.hpp"

class QAbstractButton;
class QLabel;
class QPushButton;
class QVBoxLayout;

namespace brigade::gui {

class QuizPanel : public QWidget {
  Q_OBJECT
 public:
  explicit QuizPanel(QWidget* parent = nullptr);
  ~QuizPanel() override;

  void set_lessons_folder(const std::string& folder);
  // Waits for the quiz of the current language; false after `timeout_ms`.
  bool wait_ready(int timeout_ms);
  // The quiz shown (nullptr while computing or after an error).
  const planner::Quiz* quiz() const;
  QString error_text() const { return error_; }
  // Picks `letters` for question `number` (1-based) and checks them, as the
  // user would; the verdict line ("Right" / "Not quite: ...").
  QString answer(int number, const QString& letters);
  void reveal_all();

 protected:
  void changeEvent(QEvent* e) override;
  void showEvent(QShowEvent* e) override;

 private:
  void start();
  void rebuild();
  void retranslate();
  QString check(size_t index);
  void join();

  std::string folder_;
  std::map<Lang, planner::Quiz> quizzes_;
  Lang shown_lang_ = Lang::kEn;
  QString error_;
  std::thread worker_;
  bool running_ = false;
  struct Row {
    QLabel* verdict;
    std::vector<QAbstractButton*> choices;
  };
  std::vector<Row> rows_;
  QLabel* intro_;
  QPushButton* reveal_;
  QVBoxLayout* questions_;
};

}  // namespace brigade::gui
