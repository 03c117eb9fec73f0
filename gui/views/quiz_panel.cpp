#include "gui/views/quiz_panel.hpp"

#include <QButtonGroup>
#include <QCheckBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QThread>
#include <QVBoxLayout>

#include "gui/views/language.hpp"

namespace brigade::gui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

QuizPanel::QuizPanel(QWidget* parent) : QWidget(parent) {
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  auto* inner = new QWidget(scroll);
  auto* il = new QVBoxLayout(inner);
  intro_ = new QLabel(inner);
  intro_->setWordWrap(true);
  reveal_ = new QPushButton(inner);
  connect(reveal_, &QPushButton::clicked, this, &QuizPanel::reveal_all);
  auto* top = new QHBoxLayout;
  top->addWidget(intro_, 1);
  top->addWidget(reveal_);
  il->addLayout(top);
  questions_ = new QVBoxLayout;
  il->addLayout(questions_);
  il->addStretch(1);
  scroll->setWidget(inner);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(scroll);
  retranslate();
}

QuizPanel::~QuizPanel() { join(); }

void QuizPanel::join() {
  if (worker_.joinable()) worker_.join();
}

void QuizPanel::set_lessons_folder(const std::string& folder) {
  folder_ = folder;
  quizzes_.clear();
  rebuild();
}

void QuizPanel::retranslate() {
  reveal_->setText(tr("Show every answer"));
  if (running_)
    intro_->setText(tr("Computing the answers from the lessons' scenarios…"));
  else if (!error_.isEmpty())
    intro_->setText(error_);
}

void QuizPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  start();
}

// Computes the quiz of the current language on a worker thread (once).
void QuizPanel::start() {
  const Lang lang = ui_language();
  if (running_ || folder_.empty() || quizzes_.count(lang)) return;
  join();
  running_ = true;
  error_.clear();
  retranslate();
  QPointer<QuizPanel> self(this);
  const std::string folder = folder_;
  worker_ = std::thread([self, folder, lang] {
    auto quiz = std::make_shared<Result<planner::Quiz>>(planner::load_quiz(folder, lang));
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, quiz, lang] {
          if (!self) return;
          self->running_ = false;
          if (quiz->is_ok())
            self->quizzes_[lang] = std::move(quiz->value());
          else
            self->error_ = qs(quiz->message());
          self->rebuild();
        },
        Qt::QueuedConnection);
  });
}

bool QuizPanel::wait_ready(int timeout_ms) {
  if (!isVisible() && !running_) return true;  // not asked for
  QElapsedTimer t;
  t.start();
  while (running_ && t.elapsed() < timeout_ms) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    QThread::msleep(5);
  }
  return !running_;
}

const planner::Quiz* QuizPanel::quiz() const {
  const auto it = quizzes_.find(ui_language());
  return it == quizzes_.end() ? nullptr : &it->second;
}

void QuizPanel::rebuild() {
  rows_.clear();
  while (QLayoutItem* item = questions_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  const planner::Quiz* q = quiz();
  if (!q) {
    retranslate();
    if (isVisible()) start();
    return;
  }
  shown_lang_ = ui_language();
  intro_->setText("<b>" + qs(q->title).toHtmlEscaped() + "</b><br>" + qs(q->intro).toHtmlEscaped());
  for (size_t i = 0; i < q->questions.size(); ++i) {
    const planner::QuizQuestion& question = q->questions[i];
    auto* box = new QGroupBox(this);
    box->setTitle(QStringLiteral("Q%1").arg(question.number));
    auto* bl = new QVBoxLayout(box);
    auto* text = new QLabel(qs(question.question), box);
    text->setWordWrap(true);
    bl->addWidget(text);
    Row row;
    auto* group = new QButtonGroup(box);
    group->setExclusive(!question.multiple);
    for (const planner::QuizChoice& c : question.choices) {
      const QString label = QString(QChar(c.letter)) + ". " + qs(c.text);
      QAbstractButton* b = question.multiple ? static_cast<QAbstractButton*>(new QCheckBox(label, box))
                                             : new QRadioButton(label, box);
      group->addButton(b);
      bl->addWidget(b);
      row.choices.push_back(b);
    }
    auto* check_button = new QPushButton(tr("Check"), box);
    row.verdict = new QLabel(box);
    row.verdict->setWordWrap(true);
    row.verdict->setTextFormat(Qt::PlainText);
    auto* hl = new QHBoxLayout;
    hl->addWidget(check_button);
    hl->addWidget(row.verdict, 1);
    bl->addLayout(hl);
    connect(check_button, &QPushButton::clicked, this, [this, i] { check(i); });
    questions_->addWidget(box);
    rows_.push_back(row);
  }
}

QString QuizPanel::check(size_t index) {
  const planner::Quiz* q = quiz();
  if (!q || index >= rows_.size()) return {};
  const planner::QuizQuestion& question = q->questions[index];
  QString picked;
  for (size_t k = 0; k < question.choices.size(); ++k)
    if (rows_[index].choices[k]->isChecked()) picked += QChar(question.choices[k].letter);
  const QString right = qs(question.answer());
  const QString why = qs(question.explanation);
  QString verdict;
  if (picked.isEmpty())
    verdict = tr("Pick an answer first.");
  else if (picked == right)
    verdict = tr("Right: %1. %2").arg(right, why);
  else
    verdict = tr("Not quite: the tool computes %1. %2").arg(right, why);
  rows_[index].verdict->setText(verdict);
  rows_[index].verdict->setStyleSheet(picked == right ? "color: #1a6a1a;" : "color: #8a1010;");
  return verdict;
}

QString QuizPanel::answer(int number, const QString& letters) {
  const size_t i = static_cast<size_t>(number - 1);
  if (number < 1 || i >= rows_.size()) return {};
  const planner::Quiz* q = quiz();
  for (size_t k = 0; k < rows_[i].choices.size(); ++k) {
    QAbstractButton* b = rows_[i].choices[k];
    const bool want = letters.contains(QChar(q->questions[i].choices[k].letter));
    // Radio buttons in an exclusive group cannot be unchecked one by one.
    if (b->group() && b->group()->exclusive() && !want) continue;
    b->setChecked(want);
  }
  return check(i);
}

void QuizPanel::reveal_all() {
  const planner::Quiz* q = quiz();
  if (!q) return;
  for (size_t i = 0; i < rows_.size(); ++i) {
    const planner::QuizQuestion& question = q->questions[i];
    rows_[i].verdict->setText(tr("Answer: %1. %2").arg(qs(question.answer()), qs(question.explanation)));
    rows_[i].verdict->setStyleSheet("color: #1a3a6a;");
  }
}

void QuizPanel::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() != QEvent::LanguageChange) return;
  retranslate();
  if (ui_language() != shown_lang_ || !quiz()) rebuild();
}

}  // namespace brigade::gui
