#include "gui/views/scaling_view.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include "core/units.hpp"
#include "costmodel/scaling.hpp"
#include "gui/model/chart_units.hpp"
#include "gui/model/loader.hpp"
#include "gui/views/chart_util.hpp"
#include "gui/views/language.hpp"

namespace brigade::gui {

// A sweep in flight (WorkerJobs): the worker fills it under the job's
// mutex and posts take_results(id) to the GUI thread after each judge.
struct ScalingView::Work {
  std::optional<Result<planner::SweepResult>> closed, simulated;
  QString progress;
};

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

const QColor kSimulated(0x1f, 0x5f, 0xa8);
const QColor kClosedForm(0xe0, 0x7b, 0x18);
const QColor kIdeal(0x70, 0x70, 0x70);
const QColor kAmdahl(0x2c, 0x9a, 0x4a);

QLineSeries* line(const QString& name, const XY& xy, const QColor& colour, Qt::PenStyle style,
                  bool points) {
  auto* s = new QLineSeries();
  s->setName(name);
  QPen pen(colour, points ? 2.5 : 2, style);
  s->setPen(pen);
  s->setPointsVisible(points);
  s->setMarkerSize(8);
  for (const auto& [x, y] : xy)
    if (y > 0) s->append(x, y);
  return s;
}

// A log2 axis of device counts from lo to hi, labelled in whole devices.
QLogValueAxis* devices_axis(double lo, double hi) {
  auto* a = new QLogValueAxis();
  a->setBase(2);
  a->setLabelFormat("%.0f");
  a->setTitleText(QCoreApplication::translate("brigade::gui::ScalingView", "devices (log scale)"));
  a->setRange(lo / 1.25, hi * 1.25);
  a->setMinorTickCount(0);
  return a;
}

void attach(QChart* chart, QAbstractSeries* s) {
  chart->addSeries(s);
  for (QAbstractAxis* a : chart->axes()) s->attachAxis(a);
}

// The closed form's points as hollow rings, larger than the simulated dots
// and drawn after them: where the judges agree (as they should), a filled
// dot sat exactly on the other and hid it, and "closed form" was in the
// legend with no point to be seen.
QScatterSeries* rings(const QString& name, const XY& xy, const QColor& colour) {
  auto* s = new QScatterSeries();
  s->setName(name);
  s->setMarkerShape(QScatterSeries::MarkerShapeCircle);
  s->setMarkerSize(18);
  s->setColor(Qt::transparent);
  s->setBorderColor(colour);
  s->setPen(QPen(colour, 3));
  for (const auto& [x, y] : xy)
    if (y > 0) s->append(x, y);
  return s;
}

// The closed form: its dotted line (out of the legend) under the simulated
// series, its rings over them.
void attach_closed_form(QChart* chart, const QString& name, const XY& xy, const XY& simulated,
                        bool with_simulated) {
  QLineSeries* l = line(name, xy, kClosedForm, Qt::DotLine, false);
  attach(chart, l);
  for (QLegendMarker* m : chart->legend()->markers(l)) m->setVisible(false);
  if (with_simulated)
    attach(chart, line(QCoreApplication::translate("brigade::gui::ScalingView", "simulated"),
                       simulated, kSimulated, Qt::SolidLine, true));
  QScatterSeries* r = rings(name, xy, kClosedForm);
  attach(chart, r);
  // The legend's square drawn as the rings are: hollow, orange.
  for (QLegendMarker* m : chart->legend()->markers(r)) m->setPen(QPen(kClosedForm, 2));
}

QString amdahl_text(const planner::SweepResult& r) {
  if (!r.amdahl_p)
    return r.amdahl_note.empty()
               ? QCoreApplication::translate("brigade::gui::ScalingView",
                                             "no Amdahl fit (fewer than two judged device counts)")
               : QString::fromStdString(r.amdahl_note).toHtmlEscaped();
  const double p = *r.amdahl_p;
  QString t = QCoreApplication::translate("brigade::gui::ScalingView", "Amdahl p = %1 (R² %2)")
                  .arg(p, 0, 'f', 4)
                  .arg(r.r_squared.value_or(0), 0, 'f', 4);
  // Outside [0, 1] the planner says why the fit is no parallel fraction,
  // and no curve is drawn (amdahl_curve_drawn).
  if (!amdahl_curve_drawn(r))
    return t + QCoreApplication::translate("brigade::gui::ScalingView", ", no curve drawn: ") +
           QString::fromStdString(r.amdahl_note).toHtmlEscaped();
  if (p >= 1)
    t += QCoreApplication::translate("brigade::gui::ScalingView", ": no serial part");
  else if (p > 0)
    t += QCoreApplication::translate("brigade::gui::ScalingView",
                                     ": at most %1× however many devices")
             .arg(1.0 / (1.0 - p), 0, 'f', 1);
  else
    t += QCoreApplication::translate("brigade::gui::ScalingView",
                                     ": no parallel part, more devices only add cost");
  if (r.doubling_limit && std::isfinite(*r.doubling_limit) && p > 0)
    t += QCoreApplication::translate("brigade::gui::ScalingView",
                                     "; doubling beyond about %1 devices gains less than 10%")
             .arg(QLocale().toString(std::round(*r.doubling_limit), 'f', 0));
  return t;
}

}  // namespace

ScalingView::ScalingView(QWidget* parent) : View(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout();
  devices_edit_ = new QLineEdit(this);
  devices_edit_->setMinimumWidth(260);
  keep_tr(devices_edit_, "toolTip", this,
          QT_TR_NOOP("Device counts to sweep, separated by commas; the data degree scales, the "
                     "global batch stays"));
  run_ = new QPushButton(this);
  keep_tr(run_, "text", this, QT_TR_NOOP("Sweep"));
  keep_tr(run_, "toolTip", this,
          QT_TR_NOOP("Judge every device count with the closed form, then the simulator"));
  cancel_ = new QPushButton(this);
  keep_tr(cancel_, "text", this, QT_TR_NOOP("Cancel"));
  status_ = new QLabel(this);
  auto* devices_label = new QLabel(this);
  keep_tr(devices_label, "text", this, QT_TR_NOOP("Devices:"));
  bar->addWidget(devices_label);
  bar->addWidget(devices_edit_);
  bar->addWidget(run_);
  bar->addWidget(cancel_);
  bar->addSpacing(8);
  bar->addWidget(status_, 1);
  layout->addLayout(bar);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);

  auto* charts = new QSplitter(Qt::Horizontal, this);
  auto make_chart = [&] {
    auto* c = new QChart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->legend()->setAlignment(Qt::AlignBottom);
    c->setMargins(QMargins(4, 4, 8, 4));
    auto* v = new QChartView(c, charts);
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumHeight(200);
    return c;
  };
  speedup_chart_ = make_chart();
  efficiency_chart_ = make_chart();
  table_ = new QTableWidget(this);
  table_->setColumnCount(8);
  table_->verticalHeader()->setVisible(false);
  table_->verticalHeader()->setDefaultSectionSize(24);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(charts, 1);
  layout->addWidget(table_);

  connect(run_, &QPushButton::clicked, this, [this] {
    std::vector<int> counts;
    for (const QString& part : devices_edit_->text().split(',', Qt::SkipEmptyParts)) {
      bool ok = false;
      const int n = part.trimmed().toInt(&ok);
      if (!ok || n < 1) {
        status_->setText(tr("Devices: found '%1'; expected positive whole numbers such as 1, 2, 4")
                             .arg(part.trimmed()));
        return;
      }
      counts.push_back(n);
    }
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    if (counts.empty()) {
      status_->setText(tr("Devices: found nothing; expected counts such as 1, 2, 4"));
      return;
    }
    sweep(counts);
  });
  connect(devices_edit_, &QLineEdit::returnPressed, run_, &QPushButton::click);
  connect(cancel_, &QPushButton::clicked, this, [this] { cancel(); });
  retranslate();
  set_document(nullptr);
}

void ScalingView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() != QEvent::LanguageChange) return;
  retranslate();
  if (!doc_ || !doc_->scenario) status_->setText(empty_text());
  redraw();  // the summary, the charts' axes and series, the table
}

// The charts' titles and the table's header (the buttons' texts are kept by
// keep_tr).
void ScalingView::retranslate() {
  speedup_chart_->setTitle(tr("Speedup against the first device count"));
  efficiency_chart_->setTitle(tr("Parallel efficiency"));
  table_->setHorizontalHeaderLabels({tr("devices"), tr("simulated step"), tr("speedup"),
                                     tr("efficiency"), tr("closed-form step"), tr("speedup"),
                                     tr("efficiency"), tr("note")});
}

QString ScalingView::empty_text() const {
  return doc_ ? tr("A sweep needs a scenario: this is a %1.")
                    .arg(doc_->kind == DocumentKind::kProfile ? tr("profile") : tr("trace"))
              : tr("Open a scenario to sweep it over device counts.");
}

ScalingView::~ScalingView() = default;  // the jobs' destructors cancel and join

void ScalingView::set_document(DocumentPtr doc) {
  if (doc && doc == doc_) return;
  jobs_.retire();
  doc_ = std::move(doc);
  simulated_.reset();
  closed_.reset();
  sim_error_.clear();
  counts_.clear();
  const bool scenario = doc_ && doc_->scenario;
  devices_edit_->setEnabled(scenario);
  run_->setEnabled(scenario);
  cancel_->setVisible(false);
  if (scenario) {
    counts_ = scaling_device_counts(*doc_->scenario);
    QStringList parts;
    for (int n : counts_) parts << QString::number(n);
    devices_edit_->setText(parts.join(", "));
    status_->clear();
  } else {
    devices_edit_->clear();
    status_->setText(empty_text());
  }
  redraw();
  start_if_needed();
}

void ScalingView::showEvent(QShowEvent* e) {
  View::showEvent(e);
  start_if_needed();
}

void ScalingView::start_if_needed() {
  if (!doc_ || !doc_->scenario || jobs_.current() || simulated_ || !sim_error_.isEmpty() ||
      !isVisible())
    return;
  sweep(counts_);
}

void ScalingView::sweep(const std::vector<int>& devices) {
  if (!doc_ || !doc_->scenario) return;
  jobs_.retire();
  counts_ = devices;
  simulated_.reset();
  closed_.reset();
  sim_error_.clear();
  WorkerJob<Work>* j = &jobs_.start();
  const DocumentPtr doc = doc_;  // the worker keeps the scenario alive
  const std::uint64_t id = j->id;
  j->thread = std::thread([this, j, doc, devices, id] {
    auto post = [this, id] {
      QMetaObject::invokeMethod(
          this, [this, id] { take_results(id); }, Qt::QueuedConnection);
    };
    auto closed = scaling_sweep(*doc->scenario, devices, ScalingJudge::kClosedForm, &j->cancel);
    {
      std::lock_guard<std::mutex> lock(j->mutex);
      j->out.closed = std::move(closed);
      j->out.progress = tr("simulating %1 device counts…").arg(devices.size());
    }
    post();
    auto simulated = scaling_sweep(
        *doc->scenario, devices, ScalingJudge::kSimulator, &j->cancel,
        [&](int done, int total, const planner::SweepPoint& p) {
          {
            std::lock_guard<std::mutex> lock(j->mutex);
            j->out.progress =
                tr("simulated %1 of %2 (%3 devices: %4)")
                    .arg(done)
                    .arg(total)
                    .arg(p.devices)
                    .arg(p.error.empty() ? q(format_seconds(p.step_seconds)) : tr("not judged"));
          }
          post();
        });
    {
      std::lock_guard<std::mutex> lock(j->mutex);
      j->out.simulated = std::move(simulated);
    }
    j->done = true;
    post();
  });
  cancel_->setVisible(true);
  run_->setEnabled(false);
  status_->setText(tr("Judging %1 device counts…").arg(devices.size()));
  redraw();
}

void ScalingView::take_results(std::uint64_t id) {
  jobs_.reap();  // retired jobs that ended are joined here, on the GUI thread
  WorkerJob<Work>* job = jobs_.current();
  if (!job || job->id != id) return;
  bool changed = false;
  {
    std::lock_guard<std::mutex> lock(job->mutex);
    if (job->out.closed && !closed_ && job->out.closed->is_ok()) {
      closed_ = job->out.closed->value();
      changed = true;
    }
    if (job->out.simulated) {
      if (job->out.simulated->is_ok())
        simulated_ = job->out.simulated->value();
      else if (!is_cancelled(job->out.simulated->status()))
        sim_error_ = q(job->out.simulated->message());
      changed = true;
    }
    status_->setText(job->out.progress);
  }
  if (job->done) {
    jobs_.take();  // joins: the worker has returned
    cancel_->setVisible(false);
    run_->setEnabled(true);
    status_->setText(sim_error_.isEmpty() ? QString() : tr("Not simulated: %1").arg(sim_error_));
    emit message(tr("Scaling sweep done"));
  }
  if (changed) redraw();
}

bool ScalingView::wait_ready(int timeout_ms) {
  start_if_needed();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (jobs_.current() && !jobs_.current()->done && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (jobs_.current() && jobs_.current()->done) take_results(jobs_.current()->id);
  return !jobs_.current();
}

void ScalingView::cancel() {
  if (!jobs_.current()) return;
  jobs_.retire();
  cancel_->setVisible(false);
  run_->setEnabled(doc_ && doc_->scenario);
  status_->setText(tr("Cancelled; press Sweep to start again."));
  sim_error_ = tr("cancelled");
  redraw();
}

QString ScalingView::summary_text() const {
  return summary_->text();
}

void ScalingView::redraw() {
  clear_chart(speedup_chart_);
  clear_chart(efficiency_chart_);
  fill_table();
  const planner::SweepResult* main = simulated_ ? &*simulated_ : closed_ ? &*closed_ : nullptr;
  if (!main) {
    summary_->setText(
        doc_ && doc_->scenario
            ? tr("Sweeping %1 over device counts…").arg(q(doc_->title).toHtmlEscaped())
            : QString());
    return;
  }
  // Amdahl's curve runs on to 4x the last count where it bends (0 < p < 1).
  auto extend = [](const planner::SweepResult& r) {
    return r.amdahl_p && *r.amdahl_p > 0 && *r.amdahl_p < 1 ? 4.0 : 1.0;
  };
  const ScalingCurves sim =
      simulated_ ? scaling_curves(*simulated_, 64, extend(*simulated_)) : ScalingCurves{};
  const ScalingCurves cf =
      closed_ ? scaling_curves(*closed_, 64, extend(*closed_)) : ScalingCurves{};
  const ScalingCurves& m = simulated_ ? sim : cf;
  if (m.speedup.empty()) {
    summary_->setText(tr("No device count could be judged; see the table."));
    return;
  }
  // The ideal as far as the curves go.
  XY ideal = m.ideal;
  const bool extrapolated =
      !m.amdahl.empty() && m.amdahl.back().first > m.speedup.back().first * 1.001;
  if (extrapolated) {
    const double base = m.ideal.front().first / m.ideal.front().second;
    ideal.emplace_back(m.amdahl.back().first, m.amdahl.back().first / base);
  }
  double n_lo = m.speedup.front().first, n_hi = m.speedup.back().first;
  double s_lo = 1, s_hi = 1;
  for (const XY* xy : {&sim.speedup, &cf.speedup, &m.amdahl, static_cast<const XY*>(&ideal)})
    for (const auto& [n, s] : *xy) {
      n_lo = std::min(n_lo, n), n_hi = std::max(n_hi, n);
      if (s > 0) s_lo = std::min(s_lo, s), s_hi = std::max(s_hi, s);
    }
  if (n_hi <= n_lo) n_hi = n_lo * 2;

  // Speedup, log-log: the ideal is the diagonal.
  speedup_chart_->addAxis(devices_axis(n_lo, n_hi), Qt::AlignBottom);
  auto* sy = new QLogValueAxis();
  sy->setBase(s_hi / s_lo > 64 ? 10 : 2);
  sy->setLabelFormat(s_lo < 0.1 ? "%.2g" : "%.3g");
  sy->setTitleText(tr("speedup (×, log scale)"));
  sy->setRange(s_lo / 1.3, s_hi * 1.3);
  sy->setMinorTickCount(0);
  speedup_chart_->addAxis(sy, Qt::AlignLeft);
  attach(speedup_chart_, line(tr("ideal (linear)"), ideal, kIdeal, Qt::DashLine, false));
  if (!m.amdahl.empty())
    attach(speedup_chart_,
           line(extrapolated ? tr("Amdahl fit, p = %1 (on to %2 devices)")
                                   .arg(*main->amdahl_p, 0, 'f', 4)
                                   .arg(std::round(m.amdahl.back().first))
                             : tr("Amdahl fit, p = %1").arg(*main->amdahl_p, 0, 'f', 4),
                m.amdahl, kAmdahl, Qt::SolidLine, false));
  if (closed_)
    attach_closed_form(speedup_chart_, tr("closed form"), cf.speedup, sim.speedup,
                       simulated_.has_value());
  else if (simulated_)
    attach(speedup_chart_, line(tr("simulated"), sim.speedup, kSimulated, Qt::SolidLine, true));

  // Efficiency, linear in %.
  efficiency_chart_->addAxis(devices_axis(n_lo, n_hi), Qt::AlignBottom);
  double e_hi = 100;
  for (const XY* xy : {&sim.efficiency, &cf.efficiency, &m.amdahl_efficiency})
    for (const auto& [n, e] : *xy) e_hi = std::max(e_hi, e);
  auto* ey = new QValueAxis();
  ey->setTitleText(tr("efficiency (%)"));
  const double top = e_hi * 1.08;
  const double step = nice_step(top, 8);
  ey->setTickType(QValueAxis::TicksDynamic);
  ey->setTickAnchor(0);
  ey->setTickInterval(step);
  ey->setRange(0, std::ceil(top / step) * step);
  ey->setLabelFormat("%.0f");
  efficiency_chart_->addAxis(ey, Qt::AlignLeft);
  XY ideal_eff;
  for (const auto& [n, s] : ideal) ideal_eff.emplace_back(n, 100.0);
  attach(efficiency_chart_, line(tr("ideal (100%)"), ideal_eff, kIdeal, Qt::DashLine, false));
  if (!m.amdahl_efficiency.empty())
    attach(efficiency_chart_,
           line(tr("Amdahl fit"), m.amdahl_efficiency, kAmdahl, Qt::SolidLine, false));
  if (closed_)
    attach_closed_form(efficiency_chart_, tr("closed form"), cf.efficiency, sim.efficiency,
                       simulated_.has_value());
  else if (simulated_)
    attach(efficiency_chart_,
           line(tr("simulated"), sim.efficiency, kSimulated, Qt::SolidLine, true));

  QStringList lines;
  const QString what = doc_ ? q(doc_->title).toHtmlEscaped() : QString();
  QString batch;
  if (doc_ && doc_->scenario && doc_->scenario->training.global_batch > 0)
    batch = tr(", global batch %1").arg(doc_->scenario->training.global_batch);
  lines << tr("<b>%1</b>: strong scaling (the data degree grows%2).").arg(what, batch);
  // When both judges fit alike, one sentence says it for both.
  const QString sim_fit = simulated_ ? amdahl_text(*simulated_) : QString();
  const QString cf_fit = closed_ ? amdahl_text(*closed_) : QString();
  if (simulated_ && closed_ && sim_fit == cf_fit)
    lines << tr("Simulated and closed form alike: %1.").arg(sim_fit);
  else {
    if (simulated_) lines << tr("Simulated: %1.").arg(sim_fit);
    if (closed_) lines << tr("Closed form: %1.").arg(cf_fit);
  }
  if (main->stops_paying_after)
    lines << (*main->stops_paying_after == 1
                  ? tr("Adding devices stops paying after 1 device: the next count is no faster.")
                  : tr("Adding devices stops paying after %1 devices: the next count is no faster.")
                        .arg(*main->stops_paying_after));
  summary_->setText(lines.join(" "));
}

void ScalingView::fill_table() {
  table_->setRowCount(0);
  const std::vector<int>& rows = counts_;
  table_->setRowCount(static_cast<int>(rows.size()));
  auto find = [](const std::optional<planner::SweepResult>& r,
                 int n) -> const planner::SweepPoint* {
    if (!r) return nullptr;
    for (const planner::SweepPoint& p : r->points)
      if (p.value == std::to_string(n)) return &p;
    return nullptr;
  };
  auto set = [&](int row, int col, const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(col == 7 ? Qt::AlignLeft | Qt::AlignVCenter
                                    : Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(row, col, item);
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    const int row = static_cast<int>(i);
    set(row, 0, QString::number(rows[i]));
    QString note;
    auto put = [&](const planner::SweepPoint* p, int col) {
      if (!p) {
        set(row, col, tr("…"));
        return;
      }
      if (!p->error.empty()) {
        set(row, col, tr("—"));
        note = q(p->error);
        return;
      }
      set(row, col, q(format_seconds(p->step_seconds)));
      set(row, col + 1, QString::number(p->speedup, 'f', 2) + "×");
      set(row, col + 2, QString::number(100 * p->efficiency, 'f', 1) + "%");
    };
    put(find(simulated_, rows[i]), 1);
    put(find(closed_, rows[i]), 4);
    if (!simulated_ && !sim_error_.isEmpty()) set(row, 1, tr("not simulated"));
    set(row, 7, note);
  }
  // The table as tall as its rows (up to 8; it scrolls beyond), the charts
  // take the rest.
  const int shown = std::min<int>(8, std::max<int>(1, table_->rowCount()));
  int h = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth() + 6;
  for (int r = 0; r < shown; ++r) h += r < table_->rowCount() ? table_->rowHeight(r) : 24;
  table_->setFixedHeight(h);
}

}  // namespace brigade::gui
