#include "gui/views/memory_view.hpp"

#include <algorithm>
#include <functional>

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QCoreApplication>
#include <QEvent>
#include <QGraphicsTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include "core/units.hpp"
#include "gui/views/chart_util.hpp"
#include "gui/views/language.hpp"

namespace brigade::gui {

namespace {

constexpr int kBins = 1500;  // a chart 1600 px wide: two points a pixel at most

QColor rgb(std::uint32_t c) {
  return QColor::fromRgb(c);
}
QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// Mouse on the chart: a click picks a time, hovering tells what is live.
class MemoryChartView : public QChartView {
 public:
  MemoryChartView(QChart* chart, QWidget* parent) : QChartView(chart, parent) {
    setMouseTracking(true);
    setRenderHint(QPainter::Antialiasing);
  }
  std::function<void(double)> on_click;
  std::function<QString(double)> tooltip;

 protected:
  void mousePressEvent(QMouseEvent* e) override {
    if (e->button() == Qt::LeftButton && on_click && chart()->plotArea().contains(e->position()))
      on_click(chart()->mapToValue(e->position()).x());
    QChartView::mousePressEvent(e);
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (tooltip && chart()->plotArea().contains(e->position()))
      QToolTip::showText(e->globalPosition().toPoint(),
                         tooltip(chart()->mapToValue(e->position()).x()), this);
    QChartView::mouseMoveEvent(e);
  }
};

// "params 8.01 MiB · activations 24.0 MiB · ..." of the categories with bytes.
QString breakdown(const CategoryBytes& live, const QString& sep) {
  QStringList parts;
  for (int c = 0; c < kNumMemoryCategories; ++c)
    if (live[static_cast<size_t>(c)] > 0)
      parts << model_text(memory_category_label(static_cast<MemoryCategory>(c))) + " " +
                   q(format_bytes(live[static_cast<size_t>(c)]));
  return parts.isEmpty() ? QCoreApplication::translate("brigade::gui::MemoryView", "nothing live")
                         : parts.join(sep);
}

// A range with ticks at multiples of a 1-2-5 step (at most `ticks` of them),
// the top rounded up to a tick.
void set_nice_range(QValueAxis* axis, double lo, double hi, int ticks) {
  if (!(hi > lo)) hi = lo + 1;
  const double step = nice_step(hi - lo, ticks);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(lo);
  axis->setTickInterval(step);
  axis->setRange(lo, hi);
  axis->setLabelFormat(step >= 1 ? "%.0f" : step >= 0.1 ? "%.1f" : step >= 0.01 ? "%.2f" : "%.3g");
}

void hide_from_legend(QChart* chart, QAbstractSeries* s) {
  for (QLegendMarker* m : chart->legend()->markers(s)) m->setVisible(false);
}

}  // namespace

MemoryView::MemoryView(QWidget* parent) : View(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout();
  auto* label = new QLabel(this);
  keep_tr(label, "text", this, QT_TR_NOOP("Device:"));
  devices_ = new QComboBox(this);
  devices_->setEditable(true);
  devices_->setInsertPolicy(QComboBox::NoInsert);
  devices_->completer()->setFilterMode(Qt::MatchContains);
  devices_->completer()->setCompletionMode(QCompleter::PopupCompletion);
  devices_->setMinimumWidth(300);
  keep_tr(devices_, "toolTip", this,
          QT_TR_NOOP("Devices by peak memory, highest first; type to search"));
  to_capacity_ = new QCheckBox(this);
  keep_tr(to_capacity_, "text", this, QT_TR_NOOP("Scale to capacity"));
  keep_tr(
      to_capacity_, "toolTip", this,
      QT_TR_NOOP("Draw the axis up to the device's capacity even when the peak is far below it"));
  summary_ = new QLabel(this);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bar->addWidget(label);
  bar->addWidget(devices_);
  bar->addWidget(to_capacity_);
  bar->addSpacing(12);
  bar->addWidget(summary_, 1);
  layout->addLayout(bar);

  chart_ = new QChart();
  chart_->setAnimationOptions(QChart::NoAnimation);
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->setMargins(QMargins(4, 4, 8, 4));
  auto* view = new MemoryChartView(chart_, this);
  view->on_click = [this](double x) {
    const double t = x * time_unit_.seconds;
    set_time_seconds(t);
    emit time_selected(t);
  };
  view->tooltip = [this](double x) -> QString {
    if (stack_.empty()) return {};
    const double t = x * time_unit_.seconds;
    const CategoryBytes live = live_at(stack_, t);
    double total = 0;
    for (double b : live) total += b;
    return tr("at %1: %2 live\n%3")
        .arg(q(format_seconds(t)), q(format_bytes(total)), breakdown(live, "\n"));
  };
  chart_view_ = view;
  layout->addWidget(chart_view_, 1);
  info_ = new QLabel(this);
  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  info_->setContentsMargins(4, 2, 4, 2);
  layout->addWidget(info_);

  connect(devices_, qOverload<int>(&QComboBox::activated), this, [this](int i) {
    if (i >= 0) set_device(devices_->itemData(i).toInt());
  });
  connect(to_capacity_, &QCheckBox::toggled, this, [this] { rebuild_chart(); });
  set_document(nullptr);
}

QString MemoryView::info_text() const {
  return info_->text();
}

double MemoryView::capacity_bytes(int device) const {
  const Topology* topo = doc_ ? doc_->topology() : nullptr;
  if (!topo || device < 0 || device >= topo->num_devices()) return 0;
  return topo->device(device).memory_bytes;
}

double MemoryView::end_seconds() const {
  double end = doc_ && doc_->has_trace() ? doc_->trace->step_seconds() : 0;
  if (doc_ && doc_->result) end = std::max(end, doc_->result->step_seconds);
  if (!stack_.empty()) end = std::max(end, stack_.times_seconds.back());
  return end;
}

void MemoryView::set_document(DocumentPtr doc) {
  doc_ = std::move(doc);
  devices_->clear();
  peaks_.clear();
  device_ = -1;
  stack_ = MemoryStack{};
  if (!doc_ || !doc_->has_trace() || doc_->trace->memory.empty()) {
    reset_chart();
    chart_->setTitle({});
    summary_->clear();
    info_->setText(
        doc_ ? tr("This %1 has no memory samples.")
                   .arg(doc_->kind == DocumentKind::kProfile ? tr("profile") : tr("trace"))
             : tr("Open a scenario or a trace to see its memory over time."));
    return;
  }
  const Trace& trace = *doc_->trace;
  peaks_ = peak_bytes_by_device(trace);
  std::vector<int> order;
  for (size_t d = 0; d < peaks_.size(); ++d) order.push_back(static_cast<int>(d));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return peaks_[static_cast<size_t>(a)] > peaks_[static_cast<size_t>(b)];
  });
  for (int d : order) {
    const QString name = static_cast<size_t>(d) < trace.device_names.size()
                             ? q(trace.device_names[static_cast<size_t>(d)])
                             : tr("device %1").arg(d);
    QString text =
        name + "  —  " + tr("peak %1").arg(q(format_bytes(peaks_[static_cast<size_t>(d)])));
    if (const double cap = capacity_bytes(d); cap > 0)
      text += tr(" of %1").arg(q(format_bytes(cap)));
    devices_->addItem(text, d);
  }
  set_device(device_with_highest_peak(trace));
}

void MemoryView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() != QEvent::LanguageChange) return;
  // The device list, the chart's titles and the lines below it, again in
  // the new language (the controls' texts are kept by keep_tr).
  const int device = device_;
  set_document(doc_);
  if (device >= 0) set_device(device);
}

void MemoryView::set_device(int device) {
  if (!doc_ || !doc_->has_trace()) return;
  device_ = device;
  const int at = devices_->findData(device);
  if (at >= 0) devices_->setCurrentIndex(at);
  stack_ = memory_stack(*doc_->trace, device);
  rebuild_chart();
}

void MemoryView::reset_chart() {
  delete oom_label_;
  oom_label_ = nullptr;
  brigade::gui::clear_chart(chart_);
  cursor_ = nullptr;
  x_axis_ = y_axis_ = nullptr;
}

void MemoryView::rebuild_chart() {
  reset_chart();
  if (stack_.empty()) return;

  const double end = end_seconds();
  const double capacity = capacity_bytes(device_);
  std::optional<OomMark> oom;
  if (doc_->result) oom = oom_mark(*doc_->result, doc_->program(), stack_);
  // The axis reaches the capacity when it is near the peak (or asked for),
  // else the peak, so that a few bytes on a big device still show.
  const bool reach_capacity =
      capacity > 0 && (to_capacity_->isChecked() || stack_.peak_bytes >= 0.25 * capacity);
  y_max_bytes_ = std::max(stack_.peak_bytes, reach_capacity ? capacity : 0.0) * 1.1;
  if (!(y_max_bytes_ > 0)) y_max_bytes_ = 1;
  time_unit_ = time_unit_for(end);
  byte_unit_ = byte_unit_for(y_max_bytes_);
  const double tx = 1.0 / time_unit_.seconds, by = 1.0 / byte_unit_.bytes;

  const MemoryStack s = reduce_points(stack_, kBins);
  std::vector<double> lower(s.size(), 0.0);
  QLineSeries* below = nullptr;
  for (int c = 0; c < kNumMemoryCategories; ++c) {
    const auto cat = static_cast<MemoryCategory>(c);
    if (!stack_.has_category(cat)) continue;
    const std::vector<double>& v = s.bytes[static_cast<size_t>(c)];
    auto* upper = new QLineSeries();
    QList<QPointF> pts;
    pts.reserve(static_cast<qsizetype>(2 * s.size() + 1));
    std::vector<double> top(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      top[i] = lower[i] + v[i];
      // A step: the previous level up to this time, then this one.
      if (i > 0) pts.append(QPointF(s.times_seconds[i] * tx, top[i - 1] * by));
      pts.append(QPointF(s.times_seconds[i] * tx, top[i] * by));
    }
    pts.append(QPointF(end * tx, top.back() * by));
    upper->replace(pts);
    auto* area = new QAreaSeries(upper, below);
    upper->setParent(area);
    area->setName(model_text(memory_category_label(cat)));
    area->setColor(rgb(memory_category_rgb(cat)));
    area->setBorderColor(rgb(memory_category_rgb(cat)).darker(130));
    chart_->addSeries(area);
    // The next category stacks on this one's top (its own copy: an area
    // series does not own its lower line).
    below = new QLineSeries(area);
    below->replace(pts);
    lower = std::move(top);
  }

  x_axis_ = new QValueAxis();
  x_axis_->setTitleText(tr("time (%1)").arg(time_unit_.name));
  set_nice_range(x_axis_, 0, end * tx, 10);
  y_axis_ = new QValueAxis();
  y_axis_->setTitleText(tr("live memory (%1)").arg(byte_unit_.name));
  set_nice_range(y_axis_, 0, y_max_bytes_ * by, 8);
  chart_->addAxis(x_axis_, Qt::AlignBottom);
  chart_->addAxis(y_axis_, Qt::AlignLeft);

  auto add = [&](QAbstractSeries* series) {
    chart_->addSeries(series);
    series->attachAxis(x_axis_);
    series->attachAxis(y_axis_);
  };
  for (QAbstractSeries* series : chart_->series()) {
    series->attachAxis(x_axis_);
    series->attachAxis(y_axis_);
  }
  if (capacity > 0 && capacity * by <= y_axis_->max()) {
    auto* cap = new QLineSeries();
    cap->setName(tr("capacity %1").arg(q(format_bytes(capacity))));
    QPen pen(QColor(0xc0, 0x10, 0x10), 2, Qt::DashLine);
    cap->setPen(pen);
    cap->append(0, capacity * by);
    cap->append(end * tx, capacity * by);
    add(cap);
  }
  auto* peak = new QScatterSeries();
  peak->setName(tr("peak %1").arg(q(format_bytes(stack_.peak_bytes))));
  peak->setMarkerSize(9);
  peak->setColor(Qt::black);
  peak->append(stack_.peak_time_seconds * tx, stack_.peak_bytes * by);
  add(peak);
  if (oom) {
    auto* line = new QLineSeries();
    line->setName(tr("OOM at %1: %2").arg(q(format_seconds(oom->time_seconds)), q(oom->task)));
    line->setPen(QPen(QColor(0xd0, 0x00, 0x00), 3));
    line->append(oom->time_seconds * tx, 0);
    line->append(oom->time_seconds * tx, y_axis_->max());
    add(line);
    auto* dot = new QScatterSeries();
    dot->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    dot->setMarkerSize(11);
    dot->setColor(QColor(0xd0, 0x00, 0x00));
    dot->append(oom->time_seconds * tx, oom->live_bytes * by);
    add(dot);
    hide_from_legend(chart_, dot);
    // The task's name beside the line, kept in place as the plot area moves.
    auto* label = new QGraphicsTextItem(chart_);
    label->setPlainText(tr("OOM: %1").arg(q(oom->task)));
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    label->setDefaultTextColor(QColor(0xb0, 0x00, 0x00));
    oom_label_ = label;
    const QPointF at(oom->time_seconds * tx, y_axis_->max());
    auto place = [this, label, at] {
      const QPointF p = chart_->mapToPosition(at);
      const QRectF plot = chart_->plotArea();
      const double w = label->boundingRect().width();
      // Right of the line, or left of it where the plot ends.
      const double x = p.x() + 6 + w < plot.right() ? p.x() + 6 : p.x() - 6 - w;
      label->setPos(x, plot.top() + 4);
    };
    place();
    connect(chart_, &QChart::plotAreaChanged, label, place);
  }
  cursor_ = new QLineSeries();
  cursor_->setPen(QPen(QColor(0x30, 0x30, 0x30), 1, Qt::DotLine));
  add(cursor_);
  hide_from_legend(chart_, cursor_);

  const QString name = static_cast<size_t>(device_) < doc_->trace->device_names.size()
                           ? q(doc_->trace->device_names[static_cast<size_t>(device_)])
                           : tr("device %1").arg(device_);
  QString title = tr("%1: peak %2 at %3")
                      .arg(name, q(format_bytes(stack_.peak_bytes)),
                           q(format_seconds(stack_.peak_time_seconds)));
  if (capacity > 0)
    title += tr(" of %1 (%2%)")
                 .arg(q(format_bytes(capacity)))
                 .arg(100.0 * stack_.peak_bytes / capacity, 0, 'f', 1);
  chart_->setTitle(title);
  summary_->setText(reach_capacity || capacity <= 0
                        ? QString()
                        : tr("The axis stops at the peak: the capacity (%1) lies far above.")
                              .arg(q(format_bytes(capacity))));
  update_cursor();
  update_info();
}

void MemoryView::set_time_seconds(double seconds) {
  cursor_seconds_ = seconds;
  update_cursor();
  update_info();
}

void MemoryView::update_cursor() {
  if (!cursor_ || !y_axis_) return;
  cursor_->clear();
  if (cursor_seconds_ < 0) return;
  const double x = cursor_seconds_ / time_unit_.seconds;
  cursor_->append(x, 0);
  cursor_->append(x, y_axis_->max());
}

void MemoryView::update_info() {
  if (stack_.empty() || !doc_) return;
  QStringList lines;
  if (doc_->result)
    if (auto oom = oom_mark(*doc_->result, doc_->program(), stack_)) {
      QString line = tr("<b style='color:#b00000'>Out of memory</b> at %1: %2 brought it to %3 "
                        "of %4 — live then: %5.")
                         .arg(q(format_seconds(oom->time_seconds)), q(oom->task).toHtmlEscaped(),
                              q(format_bytes(oom->live_bytes)),
                              q(format_bytes(oom->capacity_bytes)), breakdown(oom->live, " · "));
      if (!oom->largest_buffers.empty()) {
        QStringList b;
        for (const auto& [n, bytes] : oom->largest_buffers)
          b << q(n).toHtmlEscaped() + " " + q(format_bytes(bytes));
        line += tr(" Largest buffers: %1.").arg(b.join(", "));
      }
      lines << line;
    }
  if (cursor_seconds_ >= 0) {
    const CategoryBytes live = live_at(stack_, cursor_seconds_);
    double total = 0;
    for (double b : live) total += b;
    lines << tr("At %1: %2 live — %3.")
                 .arg(q(format_seconds(cursor_seconds_)), q(format_bytes(total)),
                      breakdown(live, " · "));
  } else {
    lines << tr("Click the chart to place the time cursor; hover for what is live.");
  }
  info_->setText(lines.join("<br>"));
}

}  // namespace brigade::gui
