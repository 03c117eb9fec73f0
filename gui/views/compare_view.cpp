#include "gui/views/compare_view.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>

#include <QApplication>
#include <QClipboard>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

#include "gui/views/language.hpp"
#include "gui/views/timeline_canvas.hpp"

namespace brigade::gui {

// A load of B and its comparison with A, in flight (WorkerJobs: the
// worker fills it under the job's mutex, then posts take_results(id)).
struct CompareView::Work {
  DocumentPtr a;                                    // the A compared
  std::optional<Result<DocumentPtr>> loaded;        // B, when a file was loaded
  std::optional<Result<RunComparison>> comparison;  // when A and B were there
  QString progress;
};

namespace {

constexpr int kBarRole = Qt::UserRole + 1;   // CompareTableRow::bar
constexpr int kSignRole = Qt::UserRole + 2;  // the delta's sign
const QColor kRunA(0x1f, 0x5f, 0xa8);
const QColor kRunB(0x8e, 0x44, 0xad);
const QColor kMore(0xd9, 0x53, 0x4f, 80);  // B took more time or memory than A
const QColor kLess(0x2c, 0x9a, 0x4a, 80);  // B took less

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// The B - A column: a bar as long as the difference against the section's
// largest, under the text.
class DeltaBarDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* p, const QStyleOptionViewItem& o, const QModelIndex& i) const override {
    const double bar = i.data(kBarRole).toDouble();
    if (bar > 0) {
      QRectF r = QRectF(o.rect).adjusted(2, 3, -2, -3);
      r.setWidth(r.width() * std::min(bar, 1.0));
      p->fillRect(r, i.data(kSignRole).toDouble() > 0 ? kMore : kLess);
    }
    QStyledItemDelegate::paint(p, o, i);
  }
};

QString run_header(const char* tag, const QColor& colour, const QString& file,
                   const QString& summary) {
  return QString("<b style='color:%1'>%2</b>&nbsp;&nbsp;<b>%3</b>%4")
      .arg(colour.name(), tag, file.toHtmlEscaped(),
           summary.isEmpty() ? QString() : " &nbsp;·&nbsp; " + summary.toHtmlEscaped());
}

}  // namespace

CompareView::CompareView(QWidget* parent) : View(parent) {
  setAcceptDrops(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);

  auto* bar = new QHBoxLayout;
  choose_ = new QPushButton(this);
  keep_tr(choose_, "text", this, QT_TR_NOOP("Compare with…"));
  keep_tr(choose_, "toolTip", this,
          QT_TR_NOOP("Open a second run beside the open one: a scenario (simulated) or a "
                     "trace (File > Compare with…, Ctrl+Shift+O; or drop a file here)"));
  copy_ = new QPushButton(this);
  keep_tr(copy_, "text", this, QT_TR_NOOP("Copy table"));
  keep_tr(copy_, "toolTip", this,
          QT_TR_NOOP("Copy the differences as text, as `brigade compare A B --rows 0` prints "
                     "them"));
  clear_ = new QPushButton(this);
  keep_tr(clear_, "text", this, QT_TR_NOOP("Clear B"));
  status_ = new QLabel(this);
  bar->addWidget(choose_);
  bar->addWidget(copy_);
  bar->addWidget(clear_);
  bar->addWidget(status_, 1);
  layout->addLayout(bar);

  notes_ = new QLabel(this);
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notes_->setContentsMargins(8, 3, 8, 3);
  notes_->hide();
  layout->addWidget(notes_);

  auto side = [this](QLabel*& header, QWidget* body) {
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    header = new QLabel(w);
    header->setTextFormat(Qt::RichText);
    header->setContentsMargins(4, 2, 4, 0);
    v->addWidget(header);
    v->addWidget(body, 1);
    return w;
  };
  canvas_a_ = new TimelineCanvas(this);
  canvas_b_ = new TimelineCanvas(this);
  for (TimelineCanvas* c : {canvas_a_, canvas_b_}) {
    c->setMinimumHeight(120);
    c->set_scrollbar_reserved(true);
  }
  b_stack_ = new QStackedWidget(this);
  auto* placeholder = new QLabel(b_stack_);
  keep_tr(placeholder, "text", this,
          QT_TR_NOOP("Nothing to compare with yet.\n\nFile > Compare with… (Ctrl+Shift+O), the "
                     "button above, or a file dropped here sets a second run beside the open "
                     "one: a scenario (simulated here) or a trace, such as the .sim.json and "
                     ".measured.json that `brigade validate --trace-dir` writes."));
  placeholder->setAlignment(Qt::AlignCenter);
  placeholder->setWordWrap(true);
  placeholder->setContentsMargins(40, 10, 40, 10);
  placeholder->setStyleSheet("QLabel { color: #50555c; background: #f4f5f7; }");
  b_stack_->addWidget(placeholder);
  b_stack_->addWidget(canvas_b_);

  auto* lanes = new QSplitter(Qt::Vertical, this);
  lanes->addWidget(side(header_a_, canvas_a_));
  lanes->addWidget(side(header_b_, b_stack_));
  lanes->setChildrenCollapsible(false);

  auto* right = new QWidget(this);
  auto* rv = new QVBoxLayout(right);
  rv->setContentsMargins(0, 0, 0, 0);
  step_ = new QLabel(right);
  step_->setWordWrap(true);
  step_->setContentsMargins(4, 2, 4, 2);
  QFont sf = step_->font();
  sf.setBold(true);
  step_->setFont(sf);
  rv->addWidget(step_);
  table_ = new QTableWidget(0, 6, right);
  keep_tr(table_, "toolTip", this,
          QT_TR_NOOP("Largest difference first in each part. Click a device's row to open and "
                     "shade its lanes in both timelines, a kind's to outline its spans."));
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setItemDelegateForColumn(4, new DeltaBarDelegate(table_));
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->setShowGrid(false);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  rv->addWidget(table_, 1);

  body_ = new QSplitter(Qt::Horizontal, this);
  body_->addWidget(lanes);
  body_->addWidget(right);
  body_->setStretchFactor(0, 3);
  body_->setStretchFactor(1, 2);
  body_->setChildrenCollapsible(false);
  layout->addWidget(body_, 1);

  // One axis: whichever timeline the user moves, the other follows.
  connect(canvas_a_, &TimelineCanvas::window_changed, this,
          [this] { canvas_b_->follow(*canvas_a_); });
  connect(canvas_b_, &TimelineCanvas::window_changed, this,
          [this] { canvas_a_->follow(*canvas_b_); });
  for (TimelineCanvas* c : {canvas_a_, canvas_b_})
    connect(c, &TimelineCanvas::time_clicked, this, [this](double t) {
      canvas_a_->set_cursor_seconds(t);
      canvas_b_->set_cursor_seconds(t);
      emit time_selected(t);
    });
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) { activate_row(row); });
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row, int, int previous, int) {
    if (row != previous) activate_row(row);
  });
  connect(choose_, &QPushButton::clicked, this, &CompareView::choose_file);
  connect(clear_, &QPushButton::clicked, this, &CompareView::clear_b);
  connect(copy_, &QPushButton::clicked, this, [this] {
    QApplication::clipboard()->setText(table_text());
    emit message(tr("Copied the differences as text"));
  });
  retranslate();
  show_comparison();
}

void CompareView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() != QEvent::LanguageChange) return;
  retranslate();
  show_comparison();  // the headers, the table's rows and the notes again
}

// The table's header (the buttons' texts are kept by keep_tr).
void CompareView::retranslate() {
  table_->setHorizontalHeaderLabels(
      {tr("device / kind"), tr("figure"), tr("A"), tr("B"), tr("B − A"), tr("change")});
}

CompareView::~CompareView() = default;  // the jobs' destructors cancel and join

void CompareView::set_document(DocumentPtr doc) {
  if (doc == a_) return;
  a_ = std::move(doc);
  comparison_.reset();
  canvas_a_->set_document(a_);
  // A load of B in flight compares with the new A when it ends.
  if (!jobs_.current() && a_ && b_) start({}, options_);
  show_comparison();
}

void CompareView::set_time_seconds(double seconds) {
  canvas_a_->set_cursor_seconds(seconds);
  canvas_b_->set_cursor_seconds(seconds);
}

void CompareView::compare_with(const QString& path, const LoadOptions& options) {
  options_ = options;
  options_.cancel = nullptr;
  options_.on_progress = nullptr;
  raise_when_ready_ = true;
  start(path, options_);
  show_comparison();
}

void CompareView::choose_file() {
  QSettings settings;
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Compare with a scenario or a trace"), settings.value("last_dir").toString(),
      tr("Runs (*.yaml *.yml *.json *.json.gz);;Scenarios (*.yaml *.yml *.json);;"
         "Chrome traces (*.json *.json.gz);;All files (*)"));
  if (!path.isEmpty()) compare_with(path, options_);
}

void CompareView::clear_b() {
  jobs_.retire();
  b_.reset();
  comparison_.reset();
  error_.clear();
  status_->clear();
  canvas_b_->set_document(nullptr);
  canvas_a_->highlight_device(-1);
  canvas_a_->set_highlight({});
  canvas_a_->set_document(a_);  // its own axis again
  show_comparison();
}

// path: B's file to load; empty: compare A with the B already loaded.
void CompareView::start(const QString& path, const LoadOptions& options) {
  WorkerJob<Work>& j = jobs_.start();
  j.out.a = a_;
  const std::uint64_t id = j.id;
  const DocumentPtr b = path.isEmpty() ? b_ : nullptr;
  const std::string file = path.toStdString();
  j.thread = std::thread([this, &j, id, b, file, options] {
    auto post = [this, id] {
      QMetaObject::invokeMethod(
          this, [this, id] { take_results(id); }, Qt::QueuedConnection);
    };
    DocumentPtr run_b = b;
    if (!run_b) {
      LoadOptions o = options;
      o.cancel = &j.cancel;
      auto last = std::chrono::steady_clock::now();
      o.on_progress = [&](const std::string& stage, double done, double total) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(100)) return;
        last = now;
        {
          std::lock_guard<std::mutex> lock(j.mutex);
          j.out.progress =
              tr("B: %1 %2")
                  .arg(q(stage), total > 0
                                     ? QString("%1%").arg(static_cast<int>(100 * done / total))
                                     : QString());
        }
        post();
      };
      auto loaded = load_document(file, o);
      if (loaded.is_ok() && (*loaded)->kind == DocumentKind::kProfile)
        loaded = figures_of_document(**loaded).status();  // no run: said as the CLI says it
      if (loaded.is_ok()) run_b = *loaded;
      std::lock_guard<std::mutex> lock(j.mutex);
      j.out.loaded = std::move(loaded);
    }
    if (run_b && j.out.a && !j.cancel) {
      auto c = compare_documents(*j.out.a, *run_b);
      std::lock_guard<std::mutex> lock(j.mutex);
      j.out.comparison = std::move(c);
    }
    j.done = true;
    post();
  });
  status_->setText(path.isEmpty() ? tr("Comparing…")
                                  : tr("Opening %1…").arg(QFileInfo(path).fileName()));
}

void CompareView::take_results(std::uint64_t id) {
  jobs_.reap();  // retired jobs that ended are joined here, on the GUI thread
  WorkerJob<Work>* current = jobs_.current();
  if (!current || current->id != id) return;
  if (!current->done) {
    std::lock_guard<std::mutex> lock(current->mutex);
    status_->setText(current->out.progress);
    return;
  }
  const std::unique_ptr<WorkerJob<Work>> job = jobs_.take();  // its worker has returned
  Work& w = job->out;
  status_->clear();
  if (w.loaded) {
    if (w.loaded->is_ok()) {
      b_ = w.loaded->value();
      error_.clear();
      canvas_b_->set_document(b_->has_trace() ? b_ : nullptr);
      comparison_.reset();
    } else if (!is_cancelled(w.loaded->status())) {
      error_ = q(w.loaded->message());
      raise_when_ready_ = false;
    }
  }
  if (w.comparison) {
    if (!w.comparison->is_ok()) {
      error_ = q(w.comparison->message());
      comparison_.reset();
    } else if (w.a == a_) {
      comparison_ = w.comparison->value();
    }
  }
  if (w.a != a_ && a_ && b_) {
    start({}, options_);  // A changed meanwhile: compare the A open now
  } else if (comparison_ && raise_when_ready_) {
    raise_when_ready_ = false;
    show_comparison();
    emit comparison_ready();
    emit message(tr("Compared %1 with %2")
                     .arg(QFileInfo(q(a_->path)).fileName(), QFileInfo(q(b_->path)).fileName()));
    return;
  }
  show_comparison();
}

bool CompareView::wait_ready(int timeout_ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (jobs_.current() && std::chrono::steady_clock::now() < until) {
    if (jobs_.current()->done) {
      take_results(jobs_.current()->id);  // may start a comparison with a newer A
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return !jobs_.current();
}

void CompareView::show_comparison() {
  b_stack_->setCurrentIndex(b_ ? 1 : 0);
  copy_->setEnabled(comparison_.has_value());
  clear_->setEnabled(b_ != nullptr);
  if (comparison_ && a_ && b_) {
    // One axis for both, the window: all of it.
    const TimeWindow e = shared_extent(*a_, *b_);
    canvas_a_->set_extent(e);
    canvas_b_->set_extent(e);
  }
  update_headers();
  fill_table();
  // The line above: B's error, else what differs between the runs.
  QString text;
  bool error = false;
  if (!error_.isEmpty()) {
    text = error_;
    error = true;
  } else if (a_ && !a_->has_trace()) {
    text = tr("A %1 has no run to compare: open a scenario or a trace.")
               .arg(a_->kind == DocumentKind::kProfile ? tr("profile") : tr("document"));
  } else if (comparison_ && !comparison_->differences.empty()) {
    QStringList parts;
    for (const std::string& d : comparison_->differences) parts << q(d);
    text = (comparison_->same_program ? tr("Note: ") : tr("Compared as far as they can be: ")) +
           parts.join("; ") + ".";
  }
  notes_->setText(text);
  notes_->setStyleSheet(error ? "QLabel { color: #8a1010; background: #fde8e8; }"
                              : "QLabel { color: #5a4300; background: #fff4d6; }");
  notes_->setVisible(!text.isEmpty());
}

void CompareView::update_headers() {
  const auto file = [](const DocumentPtr& d) { return QFileInfo(q(d->path)).fileName(); };
  if (!a_) {
    header_a_->setText(run_header("A", kRunA, tr("nothing open"), {}));
  } else {
    header_a_->setText(run_header("A", kRunA, file(a_),
                                  comparison_ ? q(run_summary(comparison_->a)) : q(a_->title)));
    header_a_->setToolTip(q(a_->path));
  }
  if (!b_) {
    header_b_->setText(run_header("B", kRunB, tr("none yet"), {}));
    header_b_->setToolTip({});
  } else {
    header_b_->setText(run_header("B", kRunB, file(b_),
                                  comparison_ ? q(run_summary(comparison_->b)) : q(b_->title)));
    header_b_->setToolTip(q(b_->path));
  }
  step_->setText(comparison_ ? q(step_summary(*comparison_))
                 : b_ || jobs_.current()
                     ? QString()
                     : tr("Choose a second run to see the differences per device and "
                          "per task kind."));
}

void CompareView::fill_table() {
  rows_ = comparison_ ? compare_table(*comparison_) : std::vector<CompareTableRow>{};
  table_->clearSpans();
  table_->clearContents();
  table_->setRowCount(static_cast<int>(rows_.size()));
  const QColor title_bg(0xe4, 0xe8, 0xee);
  for (int i = 0; i < static_cast<int>(rows_.size()); ++i) {
    const CompareTableRow& r = rows_[static_cast<size_t>(i)];
    if (r.title) {
      auto* item = new QTableWidgetItem(model_text(r.scope));
      QFont f = item->font();
      f.setBold(true);
      item->setFont(f);
      item->setBackground(title_bg);
      item->setFlags(Qt::ItemIsEnabled);
      table_->setItem(i, 0, item);
      table_->setSpan(i, 0, 1, 6);
      continue;
    }
    const QString cells[6] = {q(r.scope), model_text(r.figure), q(r.a), q(r.b), q(r.delta), q(r.percent)};
    for (int c = 0; c < 6; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (c == 4) {
        item->setData(kBarRole, r.bar);
        item->setData(kSignRole, std::isnan(r.delta_value) ? 0.0 : r.delta_value);
      }
      table_->setItem(i, c, item);
    }
  }
  table_->resizeColumnsToContents();
  // The names' column takes what is left (titles span the table: they do
  // not widen it), the figures stay together on the right.
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
}

void CompareView::activate_row(int row) {
  if (row < 0 || row >= static_cast<int>(rows_.size()) || !a_ || !b_ || !a_->trace || !b_->trace)
    return;
  const CompareTableRow& r = rows_[static_cast<size_t>(row)];
  if (r.title) return;
  if (r.section == CompareSection::kKinds) {
    canvas_a_->highlight_device(-1);
    canvas_b_->highlight_device(-1);
    auto sa = spans_of_kind(*a_, r.scope);
    auto sb = spans_of_kind(*b_, r.scope);
    emit message(
        tr("%1: %2 spans in A, %3 in B, outlined").arg(q(r.scope)).arg(sa.size()).arg(sb.size()));
    canvas_a_->set_highlight(std::move(sa));
    canvas_b_->set_highlight(std::move(sb));
    return;
  }
  canvas_a_->set_highlight({});
  canvas_b_->set_highlight({});
  const auto [da, db] = devices_of_scope(*a_->trace, *b_->trace, r.scope);
  canvas_a_->highlight_device(da);
  canvas_b_->highlight_device(db);
  emit message(
      tr("%1 %2: A %3, B %4, B − A %5").arg(q(r.scope), model_text(r.figure), q(r.a), q(r.b), q(r.delta)));
}

QString CompareView::notes_text() const {
  return notes_->isHidden() ? QString() : notes_->text();
}

QString CompareView::table_text() const {
  return comparison_ ? q(comparison_text(*comparison_, 0)) : QString();
}

void CompareView::resizeEvent(QResizeEvent* e) {
  View::resizeEvent(e);
  // The timelines three fifths, the table two: its six columns fit.
  if (!sized_ && width() >= 600) {
    sized_ = true;
    body_->setSizes({width() * 3 / 5, width() * 2 / 5});
  }
}

void CompareView::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void CompareView::dropEvent(QDropEvent* e) {
  const auto urls = e->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile())
    compare_with(urls.front().toLocalFile(), options_);
}

}  // namespace brigade::gui
