#include "gui/views/whatif_view.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/plan_check.hpp"
#include "core/units.hpp"
#include "gui/model/loader.hpp"
#include "gui/views/language.hpp"

namespace brigade::gui {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// Sliders move in hundredths of a decade: factor = 10^(value / 100).
double factor_of(int value) {
  return std::pow(10.0, value / 100.0);
}
int value_of(double factor) {
  return static_cast<int>(std::lround(100.0 * std::log10(factor)));
}

const char* const kRankOrders[][3] = {
    {"tensor", "data", "pipeline"}, {"tensor", "pipeline", "data"}, {"data", "tensor", "pipeline"},
    {"data", "pipeline", "tensor"}, {"pipeline", "tensor", "data"}, {"pipeline", "data", "tensor"}};

QString change_text(double before, double after) {
  const double r = relative_change(before, after);
  if (r == 0) return QCoreApplication::translate("brigade::gui::WhatIfView", "unchanged");
  if (std::isinf(r)) return QCoreApplication::translate("brigade::gui::WhatIfView", "new");
  return QString("%1%2%")
      .arg(QString(r > 0 ? "+" : ""))
      .arg(100 * r, 0, 'f', std::abs(r) < 0.1 ? 1 : 0);
}

// "before → after (change)", the change green when it fell, red when it rose.
template <typename Format>
QString moved(double before, double after, Format format) {
  const double r = relative_change(before, after);
  if (r == 0)
    return QString("<b>%1</b> <span style='color:#555555'>(%2)</span>")
        .arg(q(format(after)), change_text(before, after));
  const QString colour = r < -1e-9 ? "#1b7f2a" : r > 1e-9 ? "#b00000" : "#555555";
  return QString("%1 → <b>%2</b> <span style='color:%3'>(%4)</span>")
      .arg(q(format(before)), q(format(after)), colour, change_text(before, after));
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignRight) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(align | Qt::AlignVCenter);
  return item;
}

// A label whose text is the tr() source `text` of `context`'s class, kept
// translated (language.hpp).
QLabel* kept_label(QWidget* parent, const QObject* context, const char* text) {
  auto* l = new QLabel(parent);
  keep_tr(l, "text", context, text);
  return l;
}

}  // namespace

WhatIfView::WhatIfView(QWidget* parent) : View(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  plan_box_ = new QGroupBox(this);
  keep_tr(plan_box_, "title", this, QT_TR_NOOP("Plan"));
  hardware_box_ = new QGroupBox(this);
  keep_tr(hardware_box_, "title", this, QT_TR_NOOP("Hardware"));
  build_plan_box(plan_box_);
  build_hardware_box(hardware_box_);
  auto* left = new QVBoxLayout();
  left->addWidget(plan_box_);
  left->addWidget(hardware_box_);
  auto* buttons = new QHBoxLayout();
  reset_ = new QPushButton(this);
  keep_tr(reset_, "text", this, QT_TR_NOOP("Reset"));
  keep_tr(reset_, "toolTip", this, QT_TR_NOOP("Back to the starting plan"));
  save_ = new QPushButton(this);
  keep_tr(save_, "text", this, QT_TR_NOOP("Save as scenario…"));
  keep_tr(save_, "toolTip", this, QT_TR_NOOP("Write the edited plan as a scenario file"));
  buttons->addWidget(reset_);
  buttons->addStretch(1);
  buttons->addWidget(save_);
  left->addLayout(buttons);
  left->addStretch(1);
  layout->addLayout(left);

  auto* right = new QVBoxLayout();
  summary_ = new QLabel(this);
  summary_->setTextFormat(Qt::RichText);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  reason_label_ = new QLabel(this);
  reason_label_->setWordWrap(true);
  reason_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  reason_label_->setStyleSheet(
      "QLabel { color: #b00000; background: #fdecec; border: 1px solid #e8b4b4; padding: 4px; }");
  notes_ = new QLabel(this);
  notes_->setWordWrap(true);
  notes_->setStyleSheet("QLabel { color: #505050; }");
  table_caption_ = new QLabel(this);
  table_ = new QTableWidget(this);
  table_->setColumnCount(7);
  table_->verticalHeader()->setVisible(false);
  table_->verticalHeader()->setDefaultSectionSize(22);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  right->addWidget(summary_);
  right->addWidget(reason_label_);
  right->addWidget(notes_);
  right->addWidget(table_caption_);
  right->addWidget(table_, 1);
  layout->addLayout(right, 1);

  connect(reset_, &QPushButton::clicked, this, [this] { reset(); });
  connect(save_, &QPushButton::clicked, this, [this] { save_dialog(); });

  runner_ = std::make_unique<LatestRequestRunner>(
      [this](const Scenario& s, const std::atomic<bool>* cancel) {
        return judge_simulated(s, cancel, granularity_);
      },
      [this](std::uint64_t id, Result<Judgement> r) {
        auto shared = std::make_shared<Result<Judgement>>(std::move(r));
        QMetaObject::invokeMethod(
            this, [this, id, shared] { take_simulated(id, shared); }, Qt::QueuedConnection);
      });
  set_document(nullptr);
  retranslate();
}

void WhatIfView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() == QEvent::LanguageChange) retranslate();
}

// The texts that are not kept by keep_tr: the table's header, the ZeRO
// stages, and every line computed from the document and the edits.
void WhatIfView::retranslate() {
  table_->setHorizontalHeaderLabels({tr("devices"), tr("peak memory"), tr("change"), tr("capacity"),
                                     tr("exposed communication"), tr("change"), QString()});
  const QString stages[] = {tr("0 (none)"), tr("1 (optimizer)"), tr("2 (+ gradients)"),
                            tr("3 (FSDP)")};
  for (int i = 0; i < 4; ++i) zero_->setItemText(i, stages[i]);
  if (!doc_ || !doc_->scenario) {
    summary_->setText(empty_text());
    return;
  }
  plan_box_->setToolTip(plan_box_->isEnabled() ? QString() : no_strategy_text());
  show_device_count();
  link_controls_from_edits();
  show_results();
}

QString WhatIfView::empty_text() const {
  return doc_ ? tr("The what-if panel edits a scenario's plan: this is a %1.")
                    .arg(doc_->kind == DocumentKind::kProfile ? tr("profile") : tr("trace"))
              : tr("Open a scenario to try changes to its plan.");
}

QString WhatIfView::no_strategy_text() const {
  return tr(
      "This model has no strategy (a graph is placed by its placement or mesh, a "
      "collective by its group)");
}

WhatIfView::~WhatIfView() {
  runner_.reset();  // cancels and joins before the QObject goes
}

void WhatIfView::build_plan_box(QGroupBox* box) {
  auto* grid = new QGridLayout(box);
  grid->setHorizontalSpacing(8);
  grid->setVerticalSpacing(3);
  auto spin = [&](int lo, int hi, const char* tip) {
    auto* s = new QSpinBox(box);
    s->setRange(lo, hi);
    keep_tr(s, "toolTip", this, tip);
    s->setKeyboardTracking(false);
    connect(s, &QSpinBox::valueChanged, this, [this] { judge(); });
    return s;
  };
  auto combo = [&](const QStringList& items, const char* tip) {
    auto* c = new QComboBox(box);
    c->addItems(items);
    keep_tr(c, "toolTip", this, tip);
    connect(c, &QComboBox::currentIndexChanged, this, [this] { judge(); });
    return c;
  };
  auto check = [&](const char* text, const char* tip) {
    auto* c = new QCheckBox(box);
    keep_tr(c, "text", this, text);
    keep_tr(c, "toolTip", this, tip);
    connect(c, &QCheckBox::toggled, this, [this] { judge(); });
    return c;
  };
  data_ = spin(1, 65536, QT_TR_NOOP("Data-parallel degree (strategy.data)"));
  tensor_ = spin(1, 65536, QT_TR_NOOP("Tensor-parallel degree (strategy.tensor, Megatron-LM)"));
  pipeline_ = spin(1, 65536, QT_TR_NOOP("Pipeline stages (strategy.pipeline)"));
  context_ = spin(1, 65536,
                  QT_TR_NOOP("Context-parallel degree (strategy.context): the sequence split "
                             "over this many ranks, ring attention"));
  expert_ = spin(1, 65536,
                 QT_TR_NOOP("Expert-parallel degree (strategy.expert): a MoE layer's experts "
                            "split over this many data-parallel ranks (inside data)"));
  devices_ = new QLabel(box);
  auto* degrees = new QHBoxLayout();
  degrees->addWidget(data_);
  degrees->addWidget(new QLabel("×", box));
  degrees->addWidget(tensor_);
  degrees->addWidget(new QLabel("×", box));
  degrees->addWidget(context_);
  degrees->addWidget(new QLabel("×", box));
  degrees->addWidget(pipeline_);
  degrees->addWidget(devices_, 1);
  sequence_parallel_ = check(QT_TR_NOOP("sequence parallel"),
                             QT_TR_NOOP("strategy.sequence_parallel: needs tensor ≥ 2"));
  overlap_ = check(QT_TR_NOOP("overlap"),
                   QT_TR_NOOP("strategy.overlap: gradient communication during the backward pass"));
  zero_ = combo({"0", "1", "2", "3"},  // their texts: retranslate()
                QT_TR_NOOP("strategy.zero: ZeRO stage over the data-parallel group"));
  data_mode_ = combo({"batch", "pmap"},
                     QT_TR_NOOP("strategy.data_mode: how the data axis splits the batch"));
  micro_batch_ =
      spin(0, 2147483647, QT_TR_NOOP("training.micro_batch: rows per micro-batch on one replica"));
  keep_tr(micro_batch_, "specialValueText", this, QT_TR_NOOP("default"));
  schedule_ =
      combo({"gpipe", "1f1b", "interleaved"}, QT_TR_NOOP("strategy.schedule: pipeline schedule"));
  virtual_stages_ =
      spin(1, 1024, QT_TR_NOOP("strategy.virtual_stages: model chunks per device (interleaved)"));
  recompute_ = combo({"none", "selective", "full", "op"},
                     QT_TR_NOOP("training.recompute: activation recomputation"));
  QStringList orders;
  for (const auto& o : kRankOrders) orders << QString("%1, %2, %3").arg(o[0], o[1], o[2]);
  rank_order_ = combo(orders, QT_TR_NOOP("strategy.rank_order: rank mapping, innermost first"));
  bucket_mb_ = new QDoubleSpinBox(box);
  bucket_mb_->setRange(0.001, 1e6);
  bucket_mb_->setDecimals(3);
  bucket_mb_->setSuffix(" MB");
  bucket_mb_->setKeyboardTracking(false);
  keep_tr(bucket_mb_, "toolTip", this, QT_TR_NOOP("strategy.bucket: gradient AllReduce bucket"));
  connect(bucket_mb_, &QDoubleSpinBox::valueChanged, this, [this] { judge(); });
  QStringList algorithms;
  // Every algorithm in the enum's order (the combo's index is the value), so
  // that the scenario's own choice, `auto` (the collective model's) included,
  // reads back unchanged: a missing `auto` once turned every edit into a
  // change of algorithm.
  for (int a = 0; a < kNumCollectiveAlgorithms; ++a)
    algorithms << q(std::string(collective_algorithm_name(static_cast<CollectiveAlgorithm>(a))));
  algorithm_ = combo(algorithms, QT_TR_NOOP("strategy.algorithm: for the plan's collectives"));

  int row = 0;
  auto add = [&](const char* label, QWidget* w, int col) {
    grid->addWidget(kept_label(box, this, label), row, 2 * col);
    grid->addWidget(w, row, 2 * col + 1);
  };
  grid->addWidget(kept_label(box, this, QT_TR_NOOP("data × tensor × context × pipeline")), row,
                  0);
  grid->addLayout(degrees, row, 1, 1, 3);
  ++row;
  add(QT_TR_NOOP("ZeRO"), zero_, 0);
  add(QT_TR_NOOP("micro-batch"), micro_batch_, 1);
  ++row;
  add(QT_TR_NOOP("schedule"), schedule_, 0);
  add(QT_TR_NOOP("virtual stages"), virtual_stages_, 1);
  ++row;
  add(QT_TR_NOOP("recompute"), recompute_, 0);
  add(QT_TR_NOOP("rank order"), rank_order_, 1);
  ++row;
  add(QT_TR_NOOP("algorithm"), algorithm_, 0);
  add(QT_TR_NOOP("bucket"), bucket_mb_, 1);
  ++row;
  add(QT_TR_NOOP("data mode"), data_mode_, 0);
  auto* flags = new QHBoxLayout();
  flags->addWidget(sequence_parallel_);
  flags->addWidget(overlap_);
  grid->addLayout(flags, row, 2, 1, 2);
  ++row;
  add(QT_TR_NOOP("expert"), expert_, 0);
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(3, 1);
}

void WhatIfView::build_hardware_box(QGroupBox* box) {
  auto* grid = new QGridLayout(box);
  grid->setHorizontalSpacing(8);
  grid->setVerticalSpacing(3);
  auto slider = [&](int lo, int hi, const char* tip) {
    auto* s = new QSlider(Qt::Horizontal, box);
    s->setRange(lo, hi);
    keep_tr(s, "toolTip", this, tip);
    s->setMinimumWidth(160);
    connect(s, &QSlider::valueChanged, this, [this] { judge(); });
    return s;
  };
  link_class_ = new QComboBox(box);
  keep_tr(link_class_, "toolTip", this,
          QT_TR_NOOP("A link class some route of this topology bottlenecks on"));
  connect(link_class_, &QComboBox::currentIndexChanged, this,
          [this] { link_controls_from_edits(); });
  alpha_ =
      slider(-100, 100, QT_TR_NOOP("The class's α (per message), 0.1× to 10× the starting value"));
  bandwidth_ = slider(
      -100, 100, QT_TR_NOOP("The class's bandwidth per direction, 0.1× to 10× the starting value"));
  alpha_label_ = new QLabel(box);
  bandwidth_label_ = new QLabel(box);
  device_ = new QSpinBox(box);
  keep_tr(device_, "toolTip", this, QT_TR_NOOP("The device whose speed the slider sets"));
  connect(device_, &QSpinBox::valueChanged, this, [this] { link_controls_from_edits(); });
  speed_ = slider(-200, 100,
                  QT_TR_NOOP("simulation.speed: the device's compute speed, 0.01× to 10× (a known "
                             "straggler: every judge sees it)"));
  speed_label_ = new QLabel(box);
  for (QLabel* l : {alpha_label_, bandwidth_label_, speed_label_}) l->setMinimumWidth(150);
  host_op_ = new QDoubleSpinBox(box);
  host_op_->setRange(0, 1e6);  // up to 1 s
  host_op_->setDecimals(1);
  host_op_->setSingleStep(5);
  host_op_->setSuffix(" µs");
  host_op_->setKeyboardTracking(false);
  keep_tr(host_op_, "toolTip", this,
          QT_TR_NOOP("simulation.host_op_time: the host's time to issue one operation (a kernel, a "
                     "collective, a send); where the device's kernels are shorter, the host sets the "
                     "pace. 0: the host keeps ahead (every judge sees it)"));
  connect(host_op_, &QDoubleSpinBox::valueChanged, this, [this] { judge(); });
  per_host_ = new QSpinBox(box);
  per_host_->setObjectName("devices_per_host");
  per_host_->setRange(1, 1);  // up to the topology's devices (set_document)
  per_host_->setKeyboardTracking(false);
  keep_tr(per_host_, "toolTip", this,
          QT_TR_NOOP("simulation.devices_per_host: how many devices one host drives, issuing all "
                     "their operations one after another (1: a process per GPU; 8: one process "
                     "for a node's GPUs). Acts with a host time per operation"));
  connect(per_host_, &QSpinBox::valueChanged, this, [this] { judge(); });
  int row = 0;
  grid->addWidget(kept_label(box, this, QT_TR_NOOP("link class")), row, 0);
  grid->addWidget(link_class_, row, 1);
  ++row;
  grid->addWidget(kept_label(box, this, QT_TR_NOOP("α")), row, 0);
  grid->addWidget(alpha_, row, 1);
  grid->addWidget(alpha_label_, row, 2);
  ++row;
  grid->addWidget(kept_label(box, this, QT_TR_NOOP("bandwidth")), row, 0);
  grid->addWidget(bandwidth_, row, 1);
  grid->addWidget(bandwidth_label_, row, 2);
  ++row;
  auto* dev = new QHBoxLayout();
  dev->addWidget(kept_label(box, this, QT_TR_NOOP("speed of device")));
  dev->addWidget(device_);
  grid->addLayout(dev, row, 0);
  grid->addWidget(speed_, row, 1);
  grid->addWidget(speed_label_, row, 2);
  ++row;
  grid->addWidget(kept_label(box, this, QT_TR_NOOP("host time per operation")), row, 0);
  grid->addWidget(host_op_, row, 1);
  ++row;
  grid->addWidget(kept_label(box, this, QT_TR_NOOP("devices per host")), row, 0);
  grid->addWidget(per_host_, row, 1);
  grid->setColumnStretch(1, 1);
}

void WhatIfView::set_document(DocumentPtr doc) {
  if (doc && doc == doc_) return;
  runner_->cancel();
  sim_id_ = 0;
  doc_ = std::move(doc);
  cf_before_.reset();
  sim_before_.reset();
  cf_after_.reset();
  sim_after_.reset();
  reason_.clear();
  sim_status_.clear();
  knobs_.clear();
  const bool scenario = doc_ && doc_->scenario;
  plan_box_->setEnabled(scenario);
  hardware_box_->setEnabled(scenario);
  reset_->setEnabled(scenario);
  save_->setEnabled(scenario);
  if (!scenario) {
    start_ = edits_ = WhatIfEdits{};
    summary_->setText(empty_text());
    reason_label_->hide();
    notes_->clear();
    table_caption_->clear();
    table_->setRowCount(0);
    return;
  }
  const Scenario& s = *doc_->scenario;
  start_ = edits_ = starting_edits(s);
  knobs_ = link_class_knobs(s);
  {
    const QSignalBlocker block(link_class_);
    link_class_->clear();
    for (const LinkClassKnob& k : knobs_)
      link_class_->addItem(q(std::string(link_class_name(k.link_class))));
  }
  device_->setRange(0, std::max(0, s.topology.num_devices() - 1));
  {
    const QSignalBlocker block(per_host_);
    per_host_->setRange(1, std::max(1, s.topology.num_devices()));
  }
  // The strategy's keys mean nothing to a graph or a lone collective.
  const bool degrees = s.model_kind == ModelKind::kTransformer || s.model_kind == ModelKind::kMlp;
  plan_box_->setEnabled(degrees);
  plan_box_->setToolTip(degrees ? QString() : no_strategy_text());
  if (auto cf = judge_closed_form(s); cf.is_ok()) cf_before_ = std::move(cf).value();
  if (doc_->result) sim_before_ = judgement_of(*doc_->result);
  // Read by the worker: set while no request runs (cancelled above; the
  // runner takes the next request only after submit, below).
  granularity_ =
      whatif_granularity(doc_->plan ? doc_->plan->granularity : planner::Granularity::kAuto);
  cf_after_ = cf_before_;
  sim_after_ = sim_before_;
  controls_from_edits();
  show_results();
}

void WhatIfView::show_device_count() {
  const StrategySpec& st = edits_.strategy;
  if (!plan_box_->isEnabled()) {  // no degrees: a graph or a lone collective
    devices_->clear();
    return;
  }
  devices_->setText(tr("= %1 of %2 devices")
                        .arg(static_cast<qint64>(st.data) * st.tensor * st.context * st.pipeline)
                        .arg(doc_->scenario->topology.num_devices()));
}

void WhatIfView::controls_from_edits() {
  filling_ = true;
  const StrategySpec& st = edits_.strategy;
  data_->setValue(st.data);
  tensor_->setValue(st.tensor);
  pipeline_->setValue(st.pipeline);
  context_->setValue(st.context);
  expert_->setValue(st.expert);
  sequence_parallel_->setChecked(st.sequence_parallel);
  overlap_->setChecked(st.overlap);
  zero_->setCurrentIndex(std::clamp(st.zero, 0, 3));
  data_mode_->setCurrentIndex(st.data_mode == DataMode::kPmap ? 1 : 0);
  micro_batch_->setValue(static_cast<int>(std::min<std::int64_t>(edits_.micro_batch, 2147483647)));
  schedule_->setCurrentIndex(static_cast<int>(st.schedule));
  virtual_stages_->setValue(st.virtual_stages);
  recompute_->setCurrentIndex(static_cast<int>(edits_.recompute));
  // The scenario's block recomputation rides on `full` (set_recompute keeps
  // it there, drops it with the others): the item says so.
  const TrainingSpec& original = doc_->scenario->training;
  recompute_->setItemText(
      2, original.recompute_method == RecomputeMethod::kBlock
             ? tr("full (block of %1)").arg(original.recompute_num_layers)
             : QStringLiteral("full"));
  int order = -1;
  for (int i = 0; i < 6; ++i)
    if (st.rank_order ==
        std::vector<std::string>{kRankOrders[i][0], kRankOrders[i][1], kRankOrders[i][2]})
      order = i;
  // An order the six do not hold (context listed, say) is kept as the
  // seventh item: choosing nothing once rewrote it as a three-axis order,
  // an edit the user never made.
  while (rank_order_->count() > 6) rank_order_->removeItem(6);
  if (order < 0) {
    own_rank_order_ = st.rank_order;
    QStringList axes;
    for (const std::string& a : st.rank_order) axes << q(a);
    rank_order_->addItem(axes.join(", "));
    order = 6;
  }
  rank_order_->setCurrentIndex(order);
  bucket_mb_->setValue(st.bucket_bytes / 1e6);
  algorithm_->setCurrentIndex(static_cast<int>(st.algorithm));
  // The speed slider shows the first device given a speed, if any.
  if (!edits_.speed.empty()) {
    const QSignalBlocker block(device_);
    device_->setValue(edits_.speed.begin()->first);
  }
  // The link sliders show the first edited class, if any.
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (edits_.links.count(knobs_[i].link_class)) {
      const QSignalBlocker block(link_class_);
      link_class_->setCurrentIndex(static_cast<int>(i));
      break;
    }
  filling_ = false;
  show_device_count();
  link_controls_from_edits();
}

void WhatIfView::link_controls_from_edits() {
  filling_ = true;
  const int i = link_class_->currentIndex();
  const bool link = i >= 0 && i < static_cast<int>(knobs_.size());
  alpha_->setEnabled(link && knobs_[i].alpha_seconds > 0);
  bandwidth_->setEnabled(link);
  if (link) {
    const LinkClassKnob& start = knobs_[i];
    auto it = edits_.links.find(start.link_class);
    const LinkClassKnob& now = it != edits_.links.end() ? it->second : start;
    alpha_->setValue(start.alpha_seconds > 0 ? value_of(now.alpha_seconds / start.alpha_seconds)
                                             : 0);
    bandwidth_->setValue(
        value_of(now.bandwidth_bytes_per_second / start.bandwidth_bytes_per_second));
    alpha_label_->setText(
        tr("%1 (×%2)")
            .arg(q(format_seconds(now.alpha_seconds)))
            .arg(start.alpha_seconds > 0 ? now.alpha_seconds / start.alpha_seconds : 1, 0, 'f', 2));
    bandwidth_label_->setText(
        tr("%1 (×%2)")
            .arg(q(format_bandwidth(now.bandwidth_bytes_per_second)))
            .arg(now.bandwidth_bytes_per_second / start.bandwidth_bytes_per_second, 0, 'f', 2));
  } else {
    alpha_label_->setText(tr("no links"));
    bandwidth_label_->clear();
  }
  const auto sp = edits_.speed.find(device_->value());
  const double speed = sp != edits_.speed.end() ? sp->second : 1.0;
  speed_->setValue(value_of(speed));
  speed_label_->setText(tr("%1× %2").arg(speed, 0, 'f', 2).arg(speed < 1 ? tr("(straggler)") : ""));
  host_op_->setValue(shown_host_op_seconds() * 1e6);
  per_host_->setValue(edits_.devices_per_host);
  filling_ = false;
}

void WhatIfView::edits_from_controls() {
  StrategySpec& st = edits_.strategy;
  const StrategySpec before = st;
  st.data = data_->value();
  st.tensor = tensor_->value();
  st.pipeline = pipeline_->value();
  st.context = context_->value();
  st.expert = expert_->value();
  st.sequence_parallel = sequence_parallel_->isChecked();
  st.overlap = overlap_->isChecked();
  st.zero = zero_->currentIndex();
  st.data_mode = data_mode_->currentIndex() == 1 ? DataMode::kPmap : DataMode::kBatch;
  st.schedule = static_cast<PipelineSchedule>(schedule_->currentIndex());
  st.virtual_stages = virtual_stages_->value();
  const int o = rank_order_->currentIndex();
  if (o >= 0 && o < 6)
    st.rank_order = {kRankOrders[o][0], kRankOrders[o][1], kRankOrders[o][2]};
  else if (o == 6)
    st.rank_order = own_rank_order_;
  // The spin box shows MB to 3 decimals: keep the exact starting bytes
  // until the user moves it.
  if (std::abs(bucket_mb_->value() - before.bucket_bytes / 1e6) > 5e-4)
    st.bucket_bytes = bucket_mb_->value() * 1e6;
  st.algorithm = static_cast<CollectiveAlgorithm>(algorithm_->currentIndex());
  // A scenario without a strategy gets one once a key of it is edited.
  WhatIfEdits strategy_only = start_;
  strategy_only.strategy = st;
  edits_.has_strategy = start_.has_strategy || !(strategy_only == start_);
  edits_.micro_batch = micro_batch_->value();
  edits_.recompute = static_cast<Recompute>(recompute_->currentIndex());
  // A slider that still shows the value set keeps it exactly (set_edits
  // may set values between its steps); one moved sets start x its factor.
  const int i = link_class_->currentIndex();
  if (i >= 0 && i < static_cast<int>(knobs_.size())) {
    const LinkClassKnob& start = knobs_[i];
    const auto it = edits_.links.find(start.link_class);
    LinkClassKnob k = it != edits_.links.end() ? it->second : start;
    if (start.alpha_seconds > 0 &&
        alpha_->value() != value_of(k.alpha_seconds / start.alpha_seconds))
      k.alpha_seconds = start.alpha_seconds * factor_of(alpha_->value());
    if (bandwidth_->value() !=
        value_of(k.bandwidth_bytes_per_second / start.bandwidth_bytes_per_second))
      k.bandwidth_bytes_per_second =
          start.bandwidth_bytes_per_second * factor_of(bandwidth_->value());
    if (k == start)
      edits_.links.erase(start.link_class);
    else
      edits_.links[start.link_class] = k;
  }
  // The spin box shows 0.1 us: keep the exact value set until it is moved.
  if (std::abs(host_op_->value() - shown_host_op_seconds() * 1e6) > 0.05)
    edits_.host_op_seconds = host_op_->value() * 1e-6;
  edits_.devices_per_host = per_host_->value();
  const int device = device_->value();
  const auto sp = edits_.speed.find(device);
  const double speed = sp != edits_.speed.end() ? sp->second : 1.0;
  if (speed_->value() != value_of(speed)) {
    if (speed_->value() == 0)
      edits_.speed.erase(device);
    else
      edits_.speed[device] = factor_of(speed_->value());
  }
}

double WhatIfView::shown_host_op_seconds() const {
  if (!doc_ || !doc_->scenario) return edits_.host_op_seconds.value_or(0.0);
  return slowest_host_op_seconds(doc_->scenario->profile,
                                 edits_.host_op_seconds);  // as the judges take it
}

void WhatIfView::set_edits(const WhatIfEdits& edits) {
  if (!doc_ || !doc_->scenario) return;
  edits_ = edits;
  controls_from_edits();
  judge();
}

void WhatIfView::reset() {
  set_edits(start_);
}

void WhatIfView::judge() {
  if (filling_ || !doc_ || !doc_->scenario) return;
  edits_from_controls();
  link_controls_from_edits();
  show_device_count();
  const Scenario& base = *doc_->scenario;
  reason_.clear();
  sim_status_.clear();
  cf_after_.reset();
  auto stop_simulator = [this] {
    runner_->cancel();
    sim_id_ = 0;
    sim_after_.reset();
  };
  if (edits_ == start_) {
    stop_simulator();
    cf_after_ = cf_before_;
    sim_after_ = sim_before_;
    show_results();
    return;
  }
  auto s = apply_edits(base, edits_);
  if (!s.is_ok()) {
    reason_ = q(reason_of(s.status()));
    stop_simulator();
    show_results();
    return;
  }
  if (const Status check = check_plan(*s); !check.is_ok()) {
    reason_ = q(reason_of(check));
    stop_simulator();
    show_results();
    return;
  }
  auto cf = judge_closed_form(*s);
  if (cf.is_ok())
    cf_after_ = std::move(cf).value();
  else
    sim_status_ = tr("Closed form: %1").arg(q(reason_of(cf.status())));
  sim_after_.reset();
  sim_id_ = runner_->submit(std::move(s).value());
  show_results();
}

void WhatIfView::take_simulated(std::uint64_t id, std::shared_ptr<Result<Judgement>> result) {
  if (id != sim_id_) return;  // an older edit's verdict
  sim_id_ = 0;
  if (result->is_ok())
    sim_after_ = std::move(*result).value();
  else if (!is_cancelled(result->status()))
    sim_status_ = tr("Simulator: %1").arg(q(reason_of(result->status())));
  show_results();
  emit message(tr("What-if: the simulator has judged the edited plan"));
}

bool WhatIfView::wait_ready(int timeout_ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  QCoreApplication::processEvents();  // the verdict posted, and the layout of the text shown
  while (sim_id_ != 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    QCoreApplication::processEvents();
  }
  return sim_id_ == 0;
}

QString WhatIfView::reason_text() const {
  return reason_;
}

QString WhatIfView::summary_text() const {
  return summary_->text();
}

void WhatIfView::show_results() {
  if (!doc_ || !doc_->scenario) return;
  const bool edited = !(edits_ == start_);
  reason_label_->setVisible(!reason_.isEmpty());
  reason_label_->setText(tr("This plan cannot be: %1").arg(reason_.toHtmlEscaped()));
  save_->setEnabled(reason_.isEmpty());

  // Step time, the highest peak and the most exposed communication, by
  // both judges, starting plan → edited plan.
  const QString pending = sim_id_ != 0 ? tr("simulating…") : QString("—");
  auto column = [&](const std::optional<Judgement>& before, const std::optional<Judgement>& after,
                    int what, const QString& missing) -> QString {
    if (!before) return tr("not judged");
    if (!after) return missing;
    if (what == 0) return moved(before->step_seconds, after->step_seconds, format_seconds);
    if (what == 1)
      return moved(before->max_peak_memory_bytes(), after->max_peak_memory_bytes(), format_bytes);
    return moved(before->max_exposed_comm_seconds(), after->max_exposed_comm_seconds(),
                 format_seconds);
  };
  QString html = "<table cellspacing='0' cellpadding='3'>";
  html += "<tr><th align='left'>" +
          (edited ? tr("starting plan → edited plan") : tr("starting plan")) +
          "</th><th align='left'>" + tr("closed form") + "</th><th align='left'>" +
          tr("simulator") + "</th></tr>";
  const QString rows[] = {tr("step time"), tr("peak memory (highest device)"),
                          tr("exposed communication (most exposed device)")};
  for (int what = 0; what < 3; ++what)
    html += "<tr><td>" + rows[what] + "</td><td>" +
            column(cf_before_, cf_after_, what, QString("—")) + "</td><td>" +
            column(sim_before_, sim_after_, what, pending) + "</td></tr>";
  html += "</table>";
  summary_->setText(html);

  QStringList notes;
  if (!sim_status_.isEmpty()) notes << sim_status_;
  const std::optional<Judgement>& shown = sim_after_ ? sim_after_ : cf_after_;
  if (shown)
    for (const std::string& n : shown->notes()) notes << q(n);
  notes_->setText(notes.join("\n"));
  notes_->setVisible(!notes.isEmpty());

  // Per device: the simulator's when it has judged, else the closed form's.
  const bool sim = sim_after_ && sim_before_;
  const std::optional<Judgement>& before = sim ? sim_before_ : cf_before_;
  const std::optional<Judgement>& after = sim ? sim_after_ : cf_after_;
  table_->setRowCount(0);
  if (!before || !after) {
    table_caption_->setText(reason_.isEmpty() ? tr("Per device: waiting for a judge") : QString());
    layout()->activate();
    return;
  }
  const WhatIfDelta d = compare_judgements(*before, *after);
  constexpr int kMaxRows = 256;
  table_caption_->setText(tr("Per device (%1), devices alike in one row, largest change first%2")
                              .arg(sim ? tr("simulator") : tr("closed form"))
                              .arg(static_cast<int>(d.rows.size()) > kMaxRows
                                       ? tr("; the first %1 rows").arg(kMaxRows)
                                       : QString()));
  const int n = std::min<int>(kMaxRows, static_cast<int>(d.rows.size()));
  table_->setRowCount(n);
  for (int r = 0; r < n; ++r) {
    const DeviceDeltaRow& row = d.rows[static_cast<size_t>(r)];
    table_->setItem(r, 0, cell(q(device_ranges_text(row.devices)), Qt::AlignLeft));
    table_->setItem(r, 1,
                    cell(QString("%1 → %2").arg(q(format_bytes(row.peak_before_bytes)),
                                                q(format_bytes(row.peak_after_bytes)))));
    table_->setItem(r, 2, cell(change_text(row.peak_before_bytes, row.peak_after_bytes)));
    table_->setItem(r, 3, cell(q(format_bytes(row.capacity_bytes))));
    table_->setItem(r, 4,
                    cell(QString("%1 → %2").arg(q(format_seconds(row.exposed_before_seconds)),
                                                q(format_seconds(row.exposed_after_seconds)))));
    table_->setItem(r, 5, cell(change_text(row.exposed_before_seconds, row.exposed_after_seconds)));
    const bool over = row.capacity_bytes > 0 && row.peak_after_bytes > row.capacity_bytes;
    table_->setItem(r, 6, cell(over ? tr("over capacity") : QString(), Qt::AlignLeft));
    if (over) table_->item(r, 6)->setForeground(QColor(0xb0, 0, 0));
  }
  layout()->activate();  // the summary's rows at once, for a picture taken now
}

Status WhatIfView::save_to(const QString& path) {
  if (!doc_ || !doc_->scenario) return Status::error("no scenario open");
  auto s = apply_edits(*doc_->scenario, edits_);
  if (!s.is_ok()) return s.status();
  const Status st = save_whatif_scenario(*s, !edits_.links.empty(), path.toStdString());
  emit message(st.is_ok() ? tr("Saved the edited plan as %1").arg(path) : q(st.message()));
  return st;
}

void WhatIfView::save_dialog() {
  if (!doc_ || !doc_->scenario) return;
  const QFileInfo from(q(doc_->scenario->path));
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save the edited plan as a scenario"),
      from.dir().filePath(from.completeBaseName() + "-whatif.yaml"), tr("Scenarios (*.yaml)"));
  if (path.isEmpty()) return;
  const Status st = save_to(path);
  if (!st.is_ok()) {
    sim_status_ = tr("Not saved: %1").arg(q(st.message()));
    show_results();
  }
}

}  // namespace brigade::gui
