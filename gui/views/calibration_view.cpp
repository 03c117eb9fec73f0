#include "gui/views/calibration_view.hpp"

#include <algorithm>
#include <cmath>

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include "core/units.hpp"
#include "gui/model/chart_units.hpp"
#include "gui/views/chart_util.hpp"
#include "gui/views/language.hpp"

namespace brigade::gui {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// One colour per group (dtype, link class, collective kind).
QColor group_colour(int group) {
  static const QColor kColours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28),
                                    QColor(0x2c, 0xa0, 0x2c), QColor(0xff, 0x7f, 0x0e),
                                    QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                    QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf)};
  return kColours[static_cast<size_t>(group) % 8];
}

// A log axis drawn as a linear one over log10 of the values, labelled in
// units at its ticks (chart_units' log_ticks).
QCategoryAxis* log_axis(double lo, double hi, LogUnit unit, const QString& title, int max_ticks) {
  auto* a = new QCategoryAxis();
  a->setTitleText(title);
  a->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  const double pad = 0.04 * (std::log10(hi) - std::log10(lo));
  a->setRange(std::log10(lo) - pad, std::log10(hi) + pad);
  for (const LogTick& t : log_ticks(lo, hi, unit, max_ticks)) a->append(q(t.label), t.position);
  a->setGridLineVisible(true);
  return a;
}

}  // namespace

CalibrationView::CalibrationView(QWidget* parent) : View(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout();
  models_ = new QComboBox(this);
  keep_tr(models_, "toolTip", this, QT_TR_NOOP("The device model whose profile entry is drawn"));
  models_->setMinimumWidth(220);
  kinds_ = new QComboBox(this);
  kinds_->addItem(QString(), -1);  // "all kinds": retranslate()
  for (int k = 0; k < kNumCollectiveKinds; ++k)
    kinds_->addItem(q(std::string(collective_kind_name(static_cast<CollectiveKind>(k)))), k);
  keep_tr(kinds_, "toolTip", this, QT_TR_NOOP("Collectives drawn in the bus bandwidth plot"));
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* models_label = new QLabel(this);
  keep_tr(models_label, "text", this, QT_TR_NOOP("Device model:"));
  auto* kinds_label = new QLabel(this);
  keep_tr(kinds_label, "text", this, QT_TR_NOOP("Collectives:"));
  bar->addWidget(models_label);
  bar->addWidget(models_);
  bar->addWidget(kinds_label);
  bar->addWidget(kinds_);
  bar->addSpacing(8);
  bar->addWidget(header_, 1);
  layout->addLayout(bar);

  auto* grid = new QGridLayout();
  grid->setSpacing(2);
  auto make_chart = [&](int row, int col) {
    auto* c = new QChart();
    c->setTitleFont([&] {
      QFont f = c->titleFont();
      f.setPointSizeF(f.pointSizeF() * 0.95);
      return f;
    }());
    c->setAnimationOptions(QChart::NoAnimation);
    c->legend()->setAlignment(Qt::AlignBottom);
    c->setMargins(QMargins(2, 2, 6, 2));
    auto* v = new QChartView(c, this);
    v->setRenderHint(QPainter::Antialiasing);
    // Small enough that the bottom dock area, which this view shares with
    // the others, leaves the timeline its 60% at 900 pixels of height.
    v->setMinimumSize(240, 140);
    grid->addWidget(v, row, col);
    chart_views_.push_back(v);
    return c;
  };
  gemm_ = make_chart(0, 0);
  memory_ = make_chart(0, 1);
  transfers_ = make_chart(1, 0);
  collectives_ = make_chart(1, 1);
  layout->addLayout(grid, 1);
  absent_ = new QLabel(this);
  absent_->setWordWrap(true);
  absent_->setContentsMargins(6, 4, 6, 4);
  absent_->setStyleSheet("QLabel { background: #f4f4f4; color: #404040; }");
  layout->addWidget(absent_);

  fits_ = new QTableWidget(this);
  fits_->setColumnCount(3);
  fits_->verticalHeader()->setVisible(false);
  fits_->verticalHeader()->setDefaultSectionSize(20);
  fits_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  fits_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  fits_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(fits_);

  connect(models_, qOverload<int>(&QComboBox::activated), this,
          [this](int) { show_model(models_->currentText()); });
  connect(kinds_, qOverload<int>(&QComboBox::activated), this,
          [this](int) { draw(collectives_, plots_.collectives, false); });
  set_document(nullptr);
  retranslate();
}

void CalibrationView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() != QEvent::LanguageChange) return;
  retranslate();
  // The header and the notes again, on the model shown.
  const QString model = models_->currentText();
  set_document(doc_);
  if (!model.isEmpty() && models_->findText(model) >= 0) {
    models_->setCurrentIndex(models_->findText(model));
    show_model(model);
  }
}

void CalibrationView::retranslate() {
  kinds_->setItemText(0, tr("all kinds"));
  fits_->setHorizontalHeaderLabels({tr("fit"), tr("R²"), tr("what it fits")});
}

QString CalibrationView::header_text() const {
  return header_->text();
}

void CalibrationView::set_document(DocumentPtr doc) {
  doc_ = std::move(doc);
  models_->clear();
  const HardwareProfile* profile = doc_ ? doc_->hardware_profile() : nullptr;
  if (!profile) {
    plots_ = CalibrationPlots{};
    for (QChart* c : {gemm_, memory_, transfers_, collectives_}) {
      clear_chart(c);
      c->setTitle({});
    }
    absent_->hide();
    fits_->setRowCount(0);
    fits_->hide();
    header_->setText(doc_ ? tr("A trace carries no hardware profile: open a profile written by "
                               "brigade calibrate, or a scenario.")
                          : tr("Open a profile (brigade calibrate --out) or a scenario."));
    return;
  }
  for (const std::string& m : calibration_models(*profile, doc_->topology()))
    models_->addItem(q(m));
  models_->setEnabled(models_->count() > 1);
  if (models_->count() > 0) show_model(models_->itemText(0));
}

void CalibrationView::show_model(const QString& model) {
  const HardwareProfile& profile = *doc_->hardware_profile();
  plots_ = calibration_plots(profile, doc_->topology(), model.toStdString());
  QString head = tr("<b>%1</b> (%2)").arg(q(profile.name).toHtmlEscaped(), q(profile.machine_kind));
  if (!profile.source.empty()) head += " — " + q(profile.source).toHtmlEscaped();
  head += plots_.has_samples
              ? tr(". Points: measured; lines: the judges with this profile.")
              : tr(". <i>No samples in this profile: its fits alone</i> (brigade calibrate "
                   "writes them; this profile was written without).");
  if (doc_->scenario) head += tr(" Links and collectives on the scenario's topology.");
  header_->setText(head);
  draw(gemm_, plots_.gemm, true);
  draw(memory_, plots_.memory, false);
  draw(transfers_, plots_.transfers, false);
  draw(collectives_, plots_.collectives, false);
  // A plot with nothing to draw gives its room to the others; what it would
  // have shown, and why not, is said below them.
  QStringList absent;
  const CalibrationPlot* all[] = {&plots_.gemm, &plots_.memory, &plots_.transfers,
                                  &plots_.collectives};
  for (int i = 0; i < 4; ++i) {
    chart_views_[static_cast<size_t>(i)]->setVisible(!all[i]->empty());
    if (!all[i]->empty()) continue;
    QString line = "<b>" + q(all[i]->title).toHtmlEscaped() + "</b>: ";
    QStringList notes;
    for (const std::string& n : all[i]->notes)
      if (n != no_samples_note()) notes << q(n).toHtmlEscaped();
    absent << line + (notes.isEmpty() ? tr("nothing in this profile") : notes.join("; "));
  }
  absent_->setText(absent.join("<br>"));
  absent_->setVisible(!absent.isEmpty());

  fits_->setRowCount(static_cast<int>(plots_.fits.size()));
  for (size_t i = 0; i < plots_.fits.size(); ++i) {
    const FitQuality& f = plots_.fits[i];
    const int row = static_cast<int>(i);
    fits_->setItem(row, 0, new QTableWidgetItem(q(f.name)));
    auto* r2 = new QTableWidgetItem(QString::number(f.r_squared, 'f', 4));
    r2->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (f.r_squared < 0.9) r2->setForeground(QColor(0xb0, 0x30, 0x00));
    fits_->setItem(row, 1, r2);
    fits_->setItem(row, 2, new QTableWidgetItem(q(f.what)));
  }
  fits_->setVisible(!plots_.fits.empty());
  const int rows = std::min<int>(6, static_cast<int>(plots_.fits.size()));
  fits_->setFixedHeight(fits_->horizontalHeader()->sizeHint().height() + rows * 20 +
                        2 * fits_->frameWidth() + 4);
}

void CalibrationView::draw(QChart* chart, const CalibrationPlot& plot, bool x_flops) {
  clear_chart(chart);
  const int kind = chart == collectives_ ? kinds_->currentData().toInt() : -1;
  QString title = "<b>" + q(plot.title).toHtmlEscaped() + "</b>";
  for (const std::string& n : plot.notes) title += "<br><i>" + q(n).toHtmlEscaped() + "</i>";
  chart->setTitle(title);
  std::vector<const PlotSeries*> shown;
  for (const PlotSeries& s : plot.series)
    if ((kind < 0 || s.group == kind) && !s.xy.empty()) shown.push_back(&s);
  if (shown.empty()) return;
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  bool first = true;
  for (const PlotSeries* s : shown)
    for (const auto& [x, y] : s->xy) {
      if (!(x > 0) || !(y > 0)) continue;
      if (first) x_lo = x_hi = x, y_lo = y_hi = y, first = false;
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
  if (first) return;
  if (x_hi <= x_lo) x_hi = x_lo * 10;
  QAbstractAxis* xa =
      log_axis(x_lo, x_hi, x_flops ? LogUnit::kFlops : LogUnit::kBytes, q(plot.x_title), 8);
  QAbstractAxis* ya = nullptr;
  if (plot.y_is_bandwidth) {
    if (y_hi <= y_lo * 1.5) y_lo /= 2, y_hi *= 2;
    ya = log_axis(y_lo / 1.2, y_hi * 1.2, LogUnit::kBytesPerSecond, q(plot.y_title), 8);
  } else {
    auto* v = new QValueAxis();
    v->setTitleText(q(plot.y_title));
    const double top = std::max(1.0, y_hi) * 1.05;
    v->setTickType(QValueAxis::TicksDynamic);
    v->setTickAnchor(0);
    v->setTickInterval(nice_step(top, 8));
    v->setRange(0, top);
    v->setLabelFormat("%.2f");
    ya = v;
  }
  chart->addAxis(xa, Qt::AlignBottom);
  chart->addAxis(ya, Qt::AlignLeft);
  const bool log_y = plot.y_is_bandwidth;
  for (const PlotSeries* s : shown) {
    const QColor colour = group_colour(s->group);
    QXYSeries* series = nullptr;
    if (s->measured) {
      auto* sc = new QScatterSeries();
      sc->setMarkerSize(9);
      sc->setColor(colour);
      sc->setBorderColor(colour.darker(150));
      series = sc;
    } else {
      auto* line = new QLineSeries();
      line->setPen(QPen(colour, 2, s->dashed ? Qt::DashLine : Qt::SolidLine));
      series = line;
    }
    series->setName(q(s->name));
    for (const auto& [x, y] : s->xy)
      if (x > 0 && y > 0) series->append(std::log10(x), log_y ? std::log10(y) : y);
    chart->addSeries(series);
    series->attachAxis(xa);
    series->attachAxis(ya);
    // One legend entry per line: the points of a group with a line share
    // its colour and go unlisted.
    // Likewise a dashed line (a second group) of a colour a solid one has.
    if ((s->measured || s->dashed) &&
        std::any_of(shown.begin(), shown.end(), [&](const PlotSeries* o) {
          return !o->measured && !o->dashed && o->group == s->group;
        }))
      for (QLegendMarker* m : chart->legend()->markers(series)) m->setVisible(false);
    // Hover a point for its values in units.
    const bool flops = x_flops;
    const std::string name = s->name;
    connect(series, &QXYSeries::hovered, this, [name, flops, log_y](const QPointF& p, bool on) {
      if (!on) return;
      const double x = std::pow(10.0, p.x());
      const QString xs = q(flops ? format_flops(x) : format_bytes(x));
      const QString ys =
          log_y ? q(format_bandwidth(std::pow(10.0, p.y()))) : QString::number(p.y(), 'f', 3);
      QToolTip::showText(QCursor::pos(), q(name) + ": " + xs + " → " + ys);
    });
  }
}

}  // namespace brigade::gui
