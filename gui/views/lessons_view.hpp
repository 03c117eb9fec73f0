// The Lessons dock: the guided tour of the kitchen analogy (issue 17), in
// English or Chinese (gui/views/language.hpp). The list of lessons
// (scenarios/lessons/NN-name.yaml, core/lesson.hpp), the chosen lesson's
// text rendered from Markdown with its numbers filled in, previous / next,
// and "Open the scenario", which loads the lesson's scenario in the app's
// other views. A second tab holds the optional quiz (gui/views/quiz_panel).
//
// The numbers of a text ({{answer}}) are computed when the lesson is shown,
// by the same commands the CLI runs: `brigade lesson NN --json --no-run` in
// a child process (the executable beside brigade-gui, or $BRIGADE_EXE),
// never read from a stored text. Until it answers, each number shows "…".
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/lesson.hpp"
#include "gui/views/view.hpp"

class QLabel;
class QListWidget;
class QProcess;
class QPushButton;
class QTabWidget;
class QTextBrowser;

namespace brigade::gui {

class QuizPanel;

// The `brigade` executable the app runs for lesson answers: $BRIGADE_EXE,
// else beside brigade-gui, else in the build tree's cli/ folder, else on
// PATH; "" if none.
QString brigade_executable();

class LessonsView : public View {
  Q_OBJECT
 public:
  explicit LessonsView(QWidget* parent = nullptr);
  ~LessonsView() override;

  void set_document(DocumentPtr doc) override;
  bool shows(const Document& doc) const override;
  // Waits for the shown lesson's numbers (and the quiz's answers).
  bool wait_ready(int timeout_ms) override;

  int lesson_count() const { return static_cast<int>(lessons_.size()); }
  // The lesson shown (its number; 0 when none could be read).
  int current_lesson() const;
  // Shows lesson `number`; false if there is none.
  bool show_lesson(int number);
  // The Markdown shown now (numbers filled in, or "…" while computing).
  QString markdown() const { return markdown_; }
  // The one-line reason the lessons could not be read, or a command failed ("" if none).
  QString error_text() const { return error_; }
  void show_quiz(bool quiz);
  QuizPanel* quiz() const { return quiz_; }

 protected:
  void changeEvent(QEvent* e) override;

 private:
  void retranslate();
  void fill_list();
  void render();
  void request_answers();
  void on_answers(int number, Lang lang, const QByteArray& json, const QString& err, bool ok);

  std::vector<Lesson> lessons_;
  std::string folder_;
  int index_ = -1;  // into lessons_
  // What `brigade lesson NN --json` said, by (lesson number, language).
  struct Filled {
    std::string intro;
    std::vector<std::string> bodies;
  };
  std::map<std::pair<int, Lang>, Filled> filled_;
  QProcess* proc_ = nullptr;
  QString markdown_;
  QString error_;
  std::string open_path_;  // the document's path, to mark its lesson

  QTabWidget* tabs_;
  QListWidget* list_;
  QTextBrowser* text_;
  QLabel* status_;
  QPushButton* prev_;
  QPushButton* next_;
  QPushButton* open_;
  QuizPanel* quiz_;
};

}  // namespace brigade::gui
