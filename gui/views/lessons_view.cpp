#include "gui/views/lessons_view.hpp"

#include <filesystem>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include "gui/views/language.hpp"
#include "gui/views/quiz_panel.hpp"

namespace brigade::gui {
namespace fs = std::filesystem;

QString brigade_executable() {
  const QString env = qEnvironmentVariable("BRIGADE_EXE");
  if (!env.isEmpty()) return env;
  const QString dir = QCoreApplication::applicationDirPath();
  for (const QString& rel : {QStringLiteral("brigade"), QStringLiteral("../cli/brigade"),
                             QStringLiteral("../../cli/brigade")}) {
    const QFileInfo f(QDir(dir).filePath(rel));
    if (f.isFile() && f.isExecutable()) return f.canonicalFilePath();
  }
  return QStandardPaths::findExecutable(QStringLiteral("brigade"));
}

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// A command as the text shows it: files by their names in the lessons' folder.
std::string shown_command(const std::vector<std::string>& args, const std::string& folder) {
  std::string out = "brigade";
  for (const std::string& a : args) {
    std::string shown = a;
    std::error_code ec;
    const fs::path rel = fs::path(a).lexically_relative(folder);
    if (fs::exists(a, ec) && !rel.empty() && rel.begin()->string() != "..") shown = rel.string();
    out += " " + shown;
  }
  return out;
}

// Every {{name}} of a text replaced by "…" (the number is being computed).
std::string pending(const std::string& text) {
  std::map<std::string, std::string> dots;
  for (const auto& [name, at] : answer_placeholders(text)) dots[name] = "…";
  return fill_answers(text, dots);
}

}  // namespace

LessonsView::LessonsView(QWidget* parent) : View(parent) {
  tabs_ = new QTabWidget(this);
  auto* tour = new QWidget(tabs_);
  auto* split = new QSplitter(Qt::Horizontal, tour);
  list_ = new QListWidget(split);
  list_->setObjectName("lesson_list");
  auto* right = new QWidget(split);
  text_ = new QTextBrowser(right);
  text_->setObjectName("lesson_text");
  text_->setOpenExternalLinks(false);
  status_ = new QLabel(right);
  status_->setWordWrap(true);
  prev_ = new QPushButton(right);
  next_ = new QPushButton(right);
  open_ = new QPushButton(right);
  open_->setObjectName("open_lesson_scenario");
  prev_->setObjectName("previous_lesson");
  next_->setObjectName("next_lesson");
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(prev_);
  buttons->addWidget(next_);
  buttons->addStretch(1);
  buttons->addWidget(status_, 4);
  buttons->addWidget(open_);
  auto* rl = new QVBoxLayout(right);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->addWidget(text_, 1);
  rl->addLayout(buttons);
  split->addWidget(list_);
  split->addWidget(right);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 4);
  auto* tl = new QVBoxLayout(tour);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->addWidget(split);
  quiz_ = new QuizPanel(tabs_);
  tabs_->addTab(tour, QString());
  tabs_->addTab(quiz_, QString());
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tabs_);

  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row < 0 || row == index_) return;
    index_ = row;
    render();
    request_answers();
  });
  connect(prev_, &QPushButton::clicked, this, [this] {
    if (index_ > 0) list_->setCurrentRow(index_ - 1);
  });
  connect(next_, &QPushButton::clicked, this, [this] {
    if (index_ + 1 < lesson_count()) list_->setCurrentRow(index_ + 1);
  });
  connect(open_, &QPushButton::clicked, this, [this] {
    if (index_ >= 0) emit open_file_requested(qs(lessons_[index_].scenario_path));
  });

  folder_ = find_lessons_folder(QCoreApplication::applicationDirPath().toStdString());
  if (folder_.empty()) {
    error_ = tr("Found no scenarios/lessons folder near brigade-gui or the working folder; "
                "expected one, or $BRIGADE_LESSONS naming it.");
  } else {
    auto lessons = load_lessons(folder_);
    if (lessons.is_ok())
      lessons_ = std::move(*lessons);
    else
      error_ = qs(lessons.message());
  }
  quiz_->set_lessons_folder(folder_);
  retranslate();
  fill_list();
  if (!lessons_.empty()) list_->setCurrentRow(0);
  else render();
}

LessonsView::~LessonsView() {
  if (proc_) {
    proc_->disconnect(this);
    proc_->kill();
    proc_->waitForFinished(2000);
  }
}

void LessonsView::retranslate() {
  tabs_->setTabText(0, tr("Tour"));
  tabs_->setTabText(1, tr("Quiz"));
  prev_->setText(tr("◀ Previous"));
  next_->setText(tr("Next ▶"));
  open_->setText(tr("Open the scenario"));
  open_->setToolTip(tr("Load this lesson's scenario in the timeline, topology and memory views"));
}

void LessonsView::fill_list() {
  const Lang lang = ui_language();
  const int keep = index_;
  list_->blockSignals(true);
  list_->clear();
  for (const Lesson& l : lessons_) {
    auto* item = new QListWidgetItem(QStringLiteral("%1  %2").arg(l.number, 2, 10, QChar('0')).arg(
                                         qs(l.in(lang).title)),
                                     list_);
    if (l.kind == "misconception") {
      QFont f = item->font();
      f.setItalic(true);
      item->setFont(f);
      item->setToolTip(tr("A misconception, shown"));
    } else {
      item->setToolTip(tr("A lesson of the guided tour"));
    }
  }
  list_->setCurrentRow(keep);
  list_->blockSignals(false);
}

int LessonsView::current_lesson() const {
  return index_ >= 0 ? lessons_[static_cast<size_t>(index_)].number : 0;
}

bool LessonsView::show_lesson(int number) {
  for (size_t i = 0; i < lessons_.size(); ++i)
    if (lessons_[i].number == number) {
      list_->setCurrentRow(static_cast<int>(i));
      return true;
    }
  return false;
}

void LessonsView::show_quiz(bool quiz) { tabs_->setCurrentIndex(quiz ? 1 : 0); }

void LessonsView::render() {
  prev_->setEnabled(index_ > 0);
  next_->setEnabled(index_ >= 0 && index_ + 1 < lesson_count());
  open_->setEnabled(index_ >= 0);
  if (index_ < 0) {
    markdown_ = "# " + tr("Lessons") + "\n\n" + error_;
    text_->document()->setMarkdown(markdown_);
    status_->setText(error_);
    return;
  }
  const Lang lang = ui_language();
  const Lesson& l = lessons_[static_cast<size_t>(index_)];
  const LessonText& t = l.in(lang);
  const auto it = filled_.find({l.number, lang});
  const Filled* f = it == filled_.end() ? nullptr : &it->second;
  std::string md = "# " + std::to_string(l.number) + " · " + t.title + "\n\n";
  if (l.kind == "misconception") md += "*" + tr("A misconception, shown.").toStdString() + "*\n\n";
  md += (f ? f->intro : pending(t.intro)) + "\n\n";
  for (size_t k = 0; k < t.sections.size(); ++k) {
    md += "## " + std::to_string(k + 1) + ". " + t.sections[k].heading + "\n\n";
    md += (f && k < f->bodies.size() ? f->bodies[k] : pending(t.sections[k].body)) + "\n\n";
    if (!l.steps[k].empty())
      md += "```\n$ " + shown_command(l.command(k, lang), folder_) + "\n```\n\n";
  }
  markdown_ = qs(join_wrapped_lines(md));
  text_->document()->setMarkdown(markdown_);
  if (!error_.isEmpty())
    status_->setText(error_);
  else
    status_->setText(f ? QString() : tr("Computing this lesson's numbers…"));
}

void LessonsView::request_answers() {
  if (index_ < 0) return;
  const Lang lang = ui_language();
  const Lesson& l = lessons_[static_cast<size_t>(index_)];
  if (filled_.count({l.number, lang})) return;
  if (proc_) {  // the latest request wins
    proc_->disconnect(this);
    proc_->kill();
    proc_->waitForFinished(2000);
    proc_->deleteLater();
    proc_ = nullptr;
  }
  const QString exe = brigade_executable();
  if (exe.isEmpty()) {
    error_ = tr("Found no brigade executable beside brigade-gui or on PATH; expected one to "
                "compute the lessons' numbers ($BRIGADE_EXE names it).");
    render();
    return;
  }
  error_.clear();
  proc_ = new QProcess(this);
  const int number = l.number;
  QProcess* p = proc_;
  connect(p, &QProcess::finished, this, [this, p, number, lang](int code, QProcess::ExitStatus st) {
    const QByteArray out = p->readAllStandardOutput();
    const QString err = QString::fromUtf8(p->readAllStandardError()).trimmed();
    if (proc_ == p) proc_ = nullptr;
    p->deleteLater();
    on_answers(number, lang, out, err, code == 0 && st == QProcess::NormalExit);
  });
  connect(p, &QProcess::errorOccurred, this, [this, p, number, lang](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    if (proc_ == p) proc_ = nullptr;
    p->deleteLater();
    on_answers(number, lang, {}, tr("could not start %1").arg(brigade_executable()), false);
  });
  p->start(exe, {"lesson", QString::number(number), "--lessons", qs(folder_), "--lang",
                 QString::fromLatin1(lang_code(lang).data()), "--json", "--no-run"});
}

void LessonsView::on_answers(int number, Lang lang, const QByteArray& json, const QString& err,
                             bool ok) {
  nlohmann::json j = nlohmann::json::parse(json.toStdString(), nullptr, false);
  if (!ok || j.is_discarded() || !j.contains("sections")) {
    error_ = err.isEmpty() ? tr("brigade lesson %1 gave no answers").arg(number) : err;
  } else {
    Filled f;
    f.intro = j.value("intro", "");
    for (const auto& s : j["sections"]) f.bodies.push_back(s.value("body", ""));
    filled_[{number, lang}] = std::move(f);
  }
  if (current_lesson() == number && ui_language() == lang) render();
}

bool LessonsView::wait_ready(int timeout_ms) {
  QElapsedTimer timer;
  timer.start();
  while (proc_ && timer.elapsed() < timeout_ms) {
    proc_->waitForFinished(std::max<int>(1, static_cast<int>(timeout_ms - timer.elapsed())));
    QCoreApplication::processEvents();
  }
  const bool quiz_ready = quiz_->wait_ready(std::max<int>(0, static_cast<int>(timeout_ms - timer.elapsed())));
  return !proc_ && quiz_ready;
}

void LessonsView::set_document(DocumentPtr doc) {
  open_path_ = doc ? doc->path : std::string();
  for (int i = 0; i < list_->count(); ++i) {
    QFont f = list_->item(i)->font();
    std::error_code ec;
    f.setBold(!open_path_.empty() &&
              fs::equivalent(lessons_[static_cast<size_t>(i)].scenario_path, open_path_, ec));
    list_->item(i)->setFont(f);
  }
}

bool LessonsView::shows(const Document& doc) const {
  std::error_code ec;
  for (const Lesson& l : lessons_)
    if (fs::equivalent(l.scenario_path, doc.path, ec)) return true;
  return false;
}

void LessonsView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() != QEvent::LanguageChange) return;
  retranslate();
  fill_list();
  render();
  request_answers();
}

}  // namespace brigade::gui
