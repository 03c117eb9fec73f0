#include "gui/views/timeline_view.hpp"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/units.hpp"
#include "gui/model/range_stats.hpp"
#include "gui/model/ruler.hpp"
#include "gui/model/span_details.hpp"
#include "gui/views/language.hpp"
#include "gui/views/timeline_canvas.hpp"

namespace brigade::gui {

namespace {

// A tool button whose text and tip are tr() sources of the parent's class.
QToolButton* tool(QWidget* parent, const char* text, const char* tip) {
  auto* b = new QToolButton(parent);
  keep_tr(b, "text", parent, text);
  keep_tr(b, "toolTip", parent, tip);
  b->setAutoRaise(true);
  return b;
}

QString html_escape(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : View(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);

  auto* bar = new QHBoxLayout();
  bar->setContentsMargins(4, 2, 4, 0);
  find_edit_ = new QLineEdit(this);
  keep_tr(find_edit_, "placeholderText", this,
          QT_TR_NOOP("Find spans by name (Ctrl+F; Enter: next)"));
  find_edit_->setClearButtonEnabled(true);
  find_edit_->setMinimumWidth(240);
  find_edit_->setMaximumWidth(320);
  find_label_ = new QLabel(this);
  auto* prev = tool(this, QT_TR_NOOP("◀"), QT_TR_NOOP("Previous match (Shift+Enter)"));
  auto* next = tool(this, QT_TR_NOOP("▶"), QT_TR_NOOP("Next match (Enter)"));
  auto* zin = tool(this, QT_TR_NOOP("Zoom in"), QT_TR_NOOP("Zoom in (W, Ctrl+wheel)"));
  auto* zout = tool(this, QT_TR_NOOP("Zoom out"), QT_TR_NOOP("Zoom out (S)"));
  auto* zsel = tool(this, QT_TR_NOOP("Zoom to selection"),
                    QT_TR_NOOP("Zoom to the selected range or span (Z)"));
  auto* zback = tool(this, QT_TR_NOOP("Back"), QT_TR_NOOP("Back to the previous zoom (Backspace)"));
  auto* zall = tool(this, QT_TR_NOOP("All"), QT_TR_NOOP("Show the whole trace (0)"));
  auto* arrows = new QCheckBox(this);
  keep_tr(arrows, "text", this, QT_TR_NOOP("Arrows"));
  arrows->setChecked(true);
  keep_tr(arrows, "toolTip", this,
          QT_TR_NOOP("Draw transfers and collective steps as arrows between lanes"));
  bar->addWidget(find_edit_);
  bar->addWidget(prev);
  bar->addWidget(next);
  bar->addWidget(find_label_);
  bar->addStretch(1);
  for (QWidget* w :
       {static_cast<QWidget*>(zin), static_cast<QWidget*>(zout), static_cast<QWidget*>(zsel),
        static_cast<QWidget*>(zback), static_cast<QWidget*>(zall), static_cast<QWidget*>(arrows)})
    bar->addWidget(w);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Vertical, this);
  canvas_ = new TimelineCanvas(split);
  auto* bottom = new QSplitter(Qt::Horizontal, split);
  details_ = new QTextBrowser(bottom);
  keep_tr(details_, "placeholderText", this,
          QT_TR_NOOP("Click a span for its details; drag to select a time range."));
  auto* stats_box = new QWidget(bottom);
  auto* stats_layout = new QVBoxLayout(stats_box);
  stats_layout->setContentsMargins(0, 0, 0, 0);
  stats_label_ = new QLabel(stats_box);
  stats_label_->setWordWrap(true);
  stats_ = new QTableWidget(0, 6, stats_box);
  stats_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  stats_->verticalHeader()->hide();
  stats_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  stats_layout->addWidget(stats_label_);
  stats_layout->addWidget(stats_);
  split->addWidget(canvas_);
  split->addWidget(bottom);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  split->setSizes({600, 150});
  layout->addWidget(split, 1);

  // Ctrl+F: find, as in every viewer.
  auto* find_key = new QShortcut(QKeySequence::Find, this);
  find_key->setContext(Qt::WidgetWithChildrenShortcut);
  connect(find_key, &QShortcut::activated, this, [this] {
    find_edit_->setFocus();
    find_edit_->selectAll();
  });
  connect(zin, &QToolButton::clicked, canvas_, &TimelineCanvas::zoom_in);
  connect(zout, &QToolButton::clicked, canvas_, &TimelineCanvas::zoom_out);
  connect(zsel, &QToolButton::clicked, canvas_, &TimelineCanvas::zoom_to_selection);
  connect(zback, &QToolButton::clicked, canvas_, &TimelineCanvas::zoom_back);
  connect(zall, &QToolButton::clicked, canvas_, &TimelineCanvas::show_all);
  connect(arrows, &QCheckBox::toggled, canvas_, &TimelineCanvas::set_arrows_shown);
  connect(find_edit_, &QLineEdit::textChanged, this, &TimelineView::find);
  connect(find_edit_, &QLineEdit::returnPressed, this, [this] { find_next(1); });
  connect(prev, &QToolButton::clicked, this, [this] { find_next(-1); });
  connect(next, &QToolButton::clicked, this, [this] { find_next(1); });
  connect(canvas_, &TimelineCanvas::span_selected, this, &TimelineView::show_details);
  connect(canvas_, &TimelineCanvas::range_selected, this, &TimelineView::show_range);
  connect(canvas_, &TimelineCanvas::time_clicked, this, &View::time_selected);
  retranslate();
}

void TimelineView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() == QEvent::LanguageChange) retranslate();
}

// The texts that depend on the state: the table's header, the find count,
// the selected range's line (the buttons' texts are kept by keep_tr).
void TimelineView::retranslate() {
  QStringList header = {tr("device"),       tr("busy %"), tr("comm %"),
                        tr("exposed comm"), tr("sent"),   tr("received")};
  if (doc_ && doc_->host) header << tr("host %");  // the host lane: its host issuing
  stats_->setColumnCount(static_cast<int>(header.size()));
  stats_->setHorizontalHeaderLabels(header);
  if (!found_.empty())
    find_label_->setText(tr("%1 of %2").arg(found_at_ + 1).arg(found_.size()));
  else if (!find_edit_->text().isEmpty())
    find_label_->setText(tr("no match"));
  show_range(range_t0_, range_t1_);
  // The selected span's details (gui/model composes them in the language).
  if (doc_ && canvas_->selected_span() >= 0 && !details_->toPlainText().isEmpty())
    show_details(canvas_->selected_span());
}

void TimelineView::set_document(DocumentPtr doc) {
  doc_ = std::move(doc);
  found_.clear();
  found_at_ = -1;
  find_label_->clear();
  canvas_->set_document(doc_);
  details_->clear();
  range_t0_ = range_t1_ = 0;
  retranslate();  // the table's columns (a host lane adds one) and an empty range
  if (!find_edit_->text().isEmpty()) find(find_edit_->text());
}

QString TimelineView::details_text() const {
  return details_->toPlainText();
}

QString TimelineView::range_text() const {
  QString s = stats_label_->text();
  for (int r = 0; r < stats_->rowCount(); ++r) {
    s += "\n";
    for (int c = 0; c < stats_->columnCount(); ++c)
      s += (c ? " | " : "") + (stats_->item(r, c) ? stats_->item(r, c)->text() : QString());
  }
  return s;
}

void TimelineView::set_time_seconds(double seconds) {
  canvas_->set_cursor_seconds(seconds);
}

void TimelineView::find(const QString& text) {
  found_.clear();
  found_at_ = -1;
  if (doc_ && doc_->has_trace()) found_ = find_spans(*doc_->trace, text.toStdString());
  canvas_->set_highlight(found_);
  if (text.isEmpty())
    find_label_->clear();
  else if (found_.empty())
    find_label_->setText(tr("no match"));
  else
    find_next(1);
}

void TimelineView::find_next(int step) {
  if (found_.empty()) return;
  const int n = static_cast<int>(found_.size());
  found_at_ = found_at_ < 0 ? 0 : ((found_at_ + step) % n + n) % n;
  find_label_->setText(tr("%1 of %2").arg(found_at_ + 1).arg(n));
  canvas_->select_span(found_[static_cast<size_t>(found_at_)], true);
}

void TimelineView::show_details(int span) {
  if (!doc_ || span < 0) {
    details_->clear();
    return;
  }
  const SpanDetails d = describe_span(*doc_, span);
  QString html = "<b>" + html_escape(d.title) + "</b><table cellspacing=2>";
  for (const DetailLine& l : d.lines)
    html += "<tr><td style='color:#555'>" + html_escape(l.key) + "</td><td>" +
            html_escape(l.value) + "</td></tr>";
  html += "</table>";
  details_->setHtml(html);
  emit message(QString::fromStdString(span_summary(*doc_, span)));
}

void TimelineView::show_range(double t0, double t1) {
  range_t0_ = t0;
  range_t1_ = t1;
  stats_->setRowCount(0);
  if (!doc_ || !doc_->has_trace() || !(t1 > t0)) {
    stats_label_->setText(tr("Drag over the timeline to select a time range."));
    return;
  }
  const RangeStats r = range_stats(*doc_->trace, *doc_->index, t0, t1, doc_->host.get());
  const double len = t1 - t0;
  stats_label_->setText(tr("%1 to %2 (%3): %4 spans, %5 moved")
                            .arg(QString::fromStdString(format_duration(t0)),
                                 QString::fromStdString(format_duration(t1)),
                                 QString::fromStdString(format_duration(len)))
                            .arg(r.spans)
                            .arg(QString::fromStdString(format_bytes(r.bytes_moved))));
  stats_->setRowCount(static_cast<int>(r.devices.size()));
  const auto& names = doc_->trace->device_names;
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const DeviceRangeStats& s = r.devices[i];
    const QString name = s.device >= 0 && static_cast<size_t>(s.device) < names.size()
                             ? QString::fromStdString(names[static_cast<size_t>(s.device)])
                             : QString::number(s.device);
    QStringList cells = {name,
                         QString::number(100 * s.busy_seconds / len, 'f', 1),
                         QString::number(100 * s.comm_seconds / len, 'f', 1),
                         QString::fromStdString(format_duration(s.exposed_comm_seconds)),
                         QString::fromStdString(format_bytes(s.bytes_sent)),
                         QString::fromStdString(format_bytes(s.bytes_received))};
    if (doc_->host) cells << QString::number(100 * std::max(0.0, s.host_seconds) / len, 'f', 1);
    for (int c = 0; c < cells.size(); ++c)
      stats_->setItem(static_cast<int>(i), c, new QTableWidgetItem(cells[c]));
  }
}

}  // namespace brigade::gui
