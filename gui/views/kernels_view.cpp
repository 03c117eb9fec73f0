#include "gui/views/kernels_view.hpp"

#include <algorithm>
#include <mutex>
#include <thread>

#include <QCoreApplication>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QMetaObject>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/kernel_summary.hpp"
#include "gui/views/language.hpp"

namespace brigade::gui {

// The bars and cells of a KernelGroupsChart: a row a group, its simulated
// bar over its measured one, then the subtotals under a rule.
class KernelsCanvas : public QWidget {
 public:
  explicit KernelsCanvas(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(200);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
  }
  void set_chart(const KernelGroupsChart& chart) {
    chart_ = chart;
    updateGeometry();
    update();
  }
  const KernelGroupsChart& chart() const { return chart_; }
  QSize sizeHint() const override {
    return {720, static_cast<int>(row_height() * (chart_.lines.size() + 3))};
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm(font());
    const double row = row_height();
    if (chart_.lines.empty()) {
      p.setPen(palette().color(QPalette::PlaceholderText));
      p.drawText(rect(), Qt::AlignCenter,
                 tr_view(QT_TRANSLATE_NOOP("brigade::gui::KernelsView",
                                           "Open a scenario to see its step by kernel group")));
      return;
    }
    const bool measured = chart_.measured;
    int label_w = 0;
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics bold_fm(bold);
    for (const KernelGroupsLine& l : chart_.lines)
      label_w = std::max(
          label_w, (l.subtotal ? bold_fm : fm).horizontalAdvance(QString::fromStdString(l.label)));
    label_w += 12;
    const int cell_w = fm.horizontalAdvance(QStringLiteral("888.8 ms")) + 12;
    const int ratio_w =
        measured ? fm.horizontalAdvance(QStringLiteral("measured/Brigade")) + 12 : 0;
    const int cells_w = cell_w * (measured ? 2 : 1) + ratio_w;
    const double bar_x = 8 + label_w;
    const double bar_w = std::max(40.0, width() - bar_x - cells_w - 16);
    const double cells_x = bar_x + bar_w + 8;
    // Header and legend.
    double y = 4;
    p.setPen(palette().color(QPalette::Text));
    const auto text_at = [&](double x, double w, const QString& s, int align) {
      p.drawText(QRectF(x, y, w, row), align | Qt::AlignVCenter, s);
    };
    const QString brigade_word = tr_view(QT_TRANSLATE_NOOP("brigade::gui::KernelsView", "Brigade"));
    const QString measured_word =
        tr_view(QT_TRANSLATE_NOOP("brigade::gui::KernelsView", "measured"));
    text_at(8, label_w, tr_view(QT_TRANSLATE_NOOP("brigade::gui::KernelsView", "group")),
            Qt::AlignLeft);
    p.fillRect(QRectF(bar_x, y + row * 0.3, 10, row * 0.4), kSimulated);
    text_at(bar_x + 14, 120, brigade_word, Qt::AlignLeft);
    if (measured) {
      p.fillRect(QRectF(bar_x + 120, y + row * 0.3, 10, row * 0.4), kMeasured);
      text_at(bar_x + 134, 120, measured_word, Qt::AlignLeft);
    }
    text_at(cells_x, cell_w, brigade_word, Qt::AlignRight);
    if (measured) {
      text_at(cells_x + cell_w, cell_w, measured_word, Qt::AlignRight);
      text_at(cells_x + 2 * cell_w, ratio_w,
              tr_view(QT_TRANSLATE_NOOP("brigade::gui::KernelsView", "measured/Brigade")),
              Qt::AlignRight);
    }
    y += row;
    bool subtotals = false;
    for (const KernelGroupsLine& l : chart_.lines) {
      if (l.subtotal && !subtotals) {
        subtotals = true;
        p.setPen(palette().color(QPalette::Mid));
        p.drawLine(QPointF(8, y + 2), QPointF(width() - 8, y + 2));
        y += 6;
      }
      QFont f = font();
      f.setBold(l.subtotal);
      p.setFont(f);
      p.setPen(palette().color(l.communication ? QPalette::PlaceholderText : QPalette::Text));
      text_at(8, label_w, QString::fromStdString(l.label), Qt::AlignLeft);
      const double half = measured ? row * 0.36 : row * 0.6;
      const double top = y + (row - (measured ? 2 * half : half)) / 2;
      p.fillRect(QRectF(bar_x, top, bar_w * l.simulated_bar, half), kSimulated);
      if (measured) p.fillRect(QRectF(bar_x, top + half, bar_w * l.measured_bar, half), kMeasured);
      p.setPen(palette().color(QPalette::Text));
      text_at(cells_x, cell_w, QString::fromStdString(l.simulated), Qt::AlignRight);
      if (measured) {
        text_at(cells_x + cell_w, cell_w, QString::fromStdString(l.measured), Qt::AlignRight);
        text_at(cells_x + 2 * cell_w, ratio_w, QString::fromStdString(l.ratio), Qt::AlignRight);
      }
      y += row;
    }
    p.setFont(font());
  }

 private:
  static constexpr QColor kSimulated{0x4c, 0x78, 0xa8};
  static constexpr QColor kMeasured{0xf5, 0x85, 0x18};
  static QString tr_view(const char* s) {
    return QCoreApplication::translate("brigade::gui::KernelsView", s);
  }
  double row_height() const { return QFontMetrics(font()).height() * 1.5; }
  KernelGroupsChart chart_;
};

KernelsView::KernelsView(QWidget* parent) : View(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  title_->setContentsMargins(6, 4, 6, 0);
  layout->addWidget(title_);
  auto* bar = new QHBoxLayout();
  bar->setContentsMargins(4, 2, 4, 0);
  auto* device_label = new QLabel(this);
  keep_tr(device_label, "text", this, QT_TR_NOOP("Device"));
  device_ = new QSpinBox(this);
  device_->setRange(0, 0);
  keep_tr(device_, "toolTip", this,
          QT_TR_NOOP("The device whose step is shown (0: pipeline stage 0)"));
  open_ = new QPushButton(this);
  keep_tr(open_, "text", this, QT_TR_NOOP("Profiler record…"));
  keep_tr(open_, "toolTip", this,
          QT_TR_NOOP("Hold the step against a profiler's record of the same plan: Nsight Systems' "
                     "kernel summary (nsys stats --report cuda_gpu_kern_sum --format csv), "
                     "PyTorch's profiler trace (.json, .json.gz), or Brigade's own trace of it "
                     "(brigade execute --trace), the chosen device's spans"));
  auto* steps_label = new QLabel(this);
  keep_tr(steps_label, "text", this, QT_TR_NOOP("Steps"));
  steps_ = new QSpinBox(this);
  steps_->setRange(1, 100000);
  keep_tr(steps_, "toolTip", this, QT_TR_NOOP("How many steps the record covers"));
  auto* gpus_label = new QLabel(this);
  keep_tr(gpus_label, "text", this, QT_TR_NOOP("GPUs"));
  gpus_ = new QSpinBox(this);
  gpus_->setRange(1, 100000);
  keep_tr(gpus_, "toolTip", this, QT_TR_NOOP("How many GPUs the record sums"));
  bar->addStretch(1);
  bar->addWidget(device_label);
  bar->addWidget(device_);
  bar->addWidget(open_);
  bar->addWidget(steps_label);
  bar->addWidget(steps_);
  bar->addWidget(gpus_label);
  bar->addWidget(gpus_);
  layout->addLayout(bar);
  canvas_ = new KernelsCanvas(this);
  layout->addWidget(canvas_, 1);
  connect(open_, &QPushButton::clicked, this, &KernelsView::choose_record);
  connect(device_, &QSpinBox::valueChanged, this, [this] { refresh(); });
  connect(steps_, &QSpinBox::valueChanged, this, [this](int v) {
    if (record_) record_->steps = v;
    refresh();
  });
  connect(gpus_, &QSpinBox::valueChanged, this, [this](int v) {
    if (record_) record_->gpus = v;
    refresh();
  });
  steps_->setEnabled(false);
  gpus_->setEnabled(false);
}

void KernelsView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() == QEvent::LanguageChange) refresh();
}

void KernelsView::set_document(DocumentPtr doc) {
  doc_ = std::move(doc);
  if (record_) {
    if (doc_)
      check_kernel_record(*record_, *doc_);
    else
      record_->plan.reset();
  }
  const int devices = doc_ && doc_->topology() ? doc_->topology()->num_devices() : 1;
  {
    const QSignalBlocker block(device_);
    device_->setRange(0, std::max(0, devices - 1));
    device_->setValue(0);
  }
  refresh();
}

const KernelGroupsChart& KernelsView::chart() const {
  return canvas_->chart();
}

void KernelsView::set_steps(int steps) {
  steps_->setValue(steps);
}
void KernelsView::set_gpus(int gpus) {
  gpus_->setValue(gpus);
}
void KernelsView::set_device(int device) {
  device_->setValue(device);
}

bool KernelsView::load_record(const QString& path, QString* error) {
  reads_.retire();  // a read in flight is older than this one
  return apply_record(path, read_measured_kernels(path.toStdString()), error);
}

void KernelsView::read_record(const QString& path) {
  WorkerJob<Read>* j = &reads_.start();
  j->out.path = path;
  const std::uint64_t id = j->id;
  const std::string file = path.toStdString();
  j->thread = std::thread([this, j, id, file] {
    Result<MeasuredKernels> read = read_measured_kernels(file);
    {
      std::lock_guard<std::mutex> lock(j->mutex);
      j->out.result.emplace(std::move(read));
    }
    j->done = true;
    QMetaObject::invokeMethod(
        this, [this, id] { take_read(id); }, Qt::QueuedConnection);
  });
  emit message(tr("Reading %1…").arg(path));
}

void KernelsView::take_read(std::uint64_t id) {
  reads_.reap();  // retired reads that ended are joined here, on the GUI thread
  WorkerJob<Read>* job = reads_.current();
  if (!job || job->id != id || !job->done) return;
  const std::unique_ptr<WorkerJob<Read>> done = reads_.take();  // joins: the worker returned
  apply_record(done->out.path, std::move(*done->out.result), nullptr);
}

bool KernelsView::apply_record(const QString& path, Result<MeasuredKernels> read, QString* error) {
  if (!read.is_ok()) {
    if (error) *error = QString::fromStdString(read.message());
    emit message(QString::fromStdString(read.message()));
    return false;
  }
  auto record = std::make_unique<KernelRecord>();
  record->path = path.toStdString();
  record->kernels = std::move(read).value();
  record->steps = std::max(1, record->kernels.steps);
  // Brigade's trace: the chosen device's spans, one at a time.
  record->gpus = record->kernels.format == "brigade"
                     ? 1
                     : std::max(1, static_cast<int>(record->kernels.devices.size()));
  if (doc_) check_kernel_record(*record, *doc_);
  record_ = std::move(record);
  {
    const QSignalBlocker a(steps_), b(gpus_);
    steps_->setValue(record_->steps);
    gpus_->setValue(record_->gpus);
  }
  // Brigade's trace is one step of one device (brigade kernels refuses
  // --steps and --gpus with it): nothing to set there.
  const bool profiler = record_->kernels.format != "brigade";
  steps_->setEnabled(profiler);
  gpus_->setEnabled(profiler);
  refresh();
  return true;
}

void KernelsView::choose_record() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Profiler record"), QString(),
      tr("Profiler records and Brigade traces (*.csv *.json *.json.gz);;All files (*)"));
  if (!path.isEmpty()) read_record(path);
}

void KernelsView::refresh() {
  const KernelGroupsChart chart =
      doc_ ? kernel_groups_chart(*doc_, device_->value(), record_.get()) : KernelGroupsChart{};
  QString title = QString::fromStdString(chart.title);
  if (!chart.record.empty()) title += QStringLiteral("\n") + QString::fromStdString(chart.record);
  if (!chart.note.empty()) title += QStringLiteral("\n") + QString::fromStdString(chart.note);
  title_->setText(title);
  canvas_->set_chart(chart);
  layout()->activate();  // the title's lines now, not at the next event loop's turn (a grab)
}

}  // namespace brigade::gui
