#include "gui/views/teach_view.hpp"

#include <QButtonGroup>
#include <QElapsedTimer>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "gui/model/plan_prose.hpp"
#include "gui/views/teach_canvas.hpp"
#include "gui/views/teach_paint.hpp"

namespace brigade::gui {

namespace {

using teach_paint::bandwidth;
using teach_paint::bytes;
using teach_paint::q;
using teach_paint::secs;

// A step's animation plays in the first 60% of its time; the rest holds
// the finished picture so it can be read.
double animation(double phase) {
  return std::min(1.0, phase / 0.6);
}

}  // namespace

TeachView::TeachView(QWidget* parent)
    : View(parent), timer_(new QTimer(this)), clock_(std::make_unique<QElapsedTimer>()) {
  auto* top = new QHBoxLayout;
  top->setContentsMargins(6, 4, 6, 0);
  modes_ = new QButtonGroup(this);
  modes_->setExclusive(true);
  for (int m = 0; m < kNumTeachModes; ++m) {
    auto* b = new QToolButton(this);
    b->setCheckable(true);
    b->setAutoRaise(true);
    b->setObjectName(QString("teach_mode_") +
                     QString::fromUtf8(teach_mode_name(static_cast<TeachMode>(m)).data()));
    modes_->addButton(b, m);
    top->addWidget(b);
    mode_buttons_[m] = b;
  }
  connect(modes_, &QButtonGroup::idClicked, this,
          [this](int m) { show_mode(static_cast<TeachMode>(m)); });
  top->addStretch(1);
  previous_ = new QToolButton(this);
  play_ = new QToolButton(this);
  next_ = new QToolButton(this);
  step_label_ = new QLabel(this);
  for (QToolButton* b : {previous_, play_, next_}) top->addWidget(b);
  top->addWidget(step_label_);
  connect(previous_, &QToolButton::clicked, this, &TeachView::previous);
  connect(next_, &QToolButton::clicked, this, &TeachView::next);
  connect(play_, &QToolButton::clicked, this, [this] { player_.playing() ? pause() : play(); });

  narration_ = new QLabel(this);
  narration_->setWordWrap(true);
  narration_->setContentsMargins(10, 2, 10, 2);
  narration_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont f = narration_->font();
  f.setPointSizeF(f.pointSizeF() + 1.5);
  narration_->setFont(f);
  canvas_ = new TeachCanvas(this);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(top);
  layout->addWidget(narration_);
  layout->addWidget(canvas_, 1);

  setFocusPolicy(Qt::StrongFocus);
  timer_->setInterval(40);
  connect(timer_, &QTimer::timeout, this, &TeachView::on_tick);
  retranslate();
  refresh();
}

TeachView::~TeachView() = default;

void TeachView::set_document(DocumentPtr doc) {
  pause();
  doc_ = std::move(doc);
  scene_.reset();
  if (doc_ && doc_->scenario && doc_->plan)
    scene_ = build_teach_scene(*doc_->scenario, *doc_->plan);
  if (scene_) reword_teach_scene(*scene_, *plan_prose(*doc_));
  canvas_->set_scene(scene_ ? &*scene_ : nullptr);
  refresh();
}

void TeachView::set_step(int step) {
  player_.go_to(step);
  stopped();
}

// After a step button: the player has paused; so does the timer.
void TeachView::stopped() {
  timer_->stop();
  refresh();
}

void TeachView::play() {
  player_.play();
  clock_->start();
  timer_->start();
  refresh();
}

void TeachView::pause() {
  player_.pause();
  stopped();
}

void TeachView::next() {
  player_.next();
  stopped();
}

void TeachView::previous() {
  player_.previous();
  stopped();
}

void TeachView::show_mode(TeachMode mode) {
  player_.go_to_mode(mode);
  stopped();
}

void TeachView::on_tick() {
  const double dt = clock_->restart() / 1000.0;
  player_.tick(dt);
  if (!player_.playing()) timer_->stop();
  refresh();
}

// Keys while the view has the focus (not window-wide shortcuts: the arrow
// keys belong to the what-if panel's fields when they have it).
void TeachView::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_Left:
      previous();
      break;
    case Qt::Key_Right:
      next();
      break;
    case Qt::Key_Space:
      player_.playing() ? pause() : play();
      break;
    default:
      View::keyPressEvent(e);
  }
}

void TeachView::mousePressEvent(QMouseEvent* e) {
  setFocus(Qt::MouseFocusReason);
  View::mousePressEvent(e);
}

void TeachView::changeEvent(QEvent* e) {
  if (e->type() == QEvent::LanguageChange) {
    retranslate();
    // The planner's words (the summary, the chefs' roles) in the new language.
    if (scene_ && doc_) reword_teach_scene(*scene_, *plan_prose(*doc_));
    canvas_->update();
    refresh();
  }
  View::changeEvent(e);
}

void TeachView::retranslate() {
  const QString names[kNumTeachModes] = {tr("Overview"), tr("Transfer"), tr("Transform"),
                                         tr("Output"), tr("pmap demo")};
  const QString tips[kNumTeachModes] = {
      tr("The kitchen: chefs (devices), stations (memory), runners (links), the head chef"),
      tr("A tensor moving between two devices: T = α + M/B, drawn as its two parts"),
      tr("A sharding changing: batch split, AllGather, row split, ReduceScatter"),
      tr("Results gathered back, stacked by device as pmap returns them"),
      tr("The second seed's pmap: device mapping, sharding, psum, pmean, all_gather, one training "
         "step")};
  for (int m = 0; m < kNumTeachModes; ++m) {
    mode_buttons_[m]->setText(names[m]);
    mode_buttons_[m]->setToolTip(tips[m]);
  }
  previous_->setText(tr("◀ Previous"));
  previous_->setToolTip(tr("The step before (Left)"));
  next_->setText(tr("Next ▶"));
  next_->setToolTip(tr("The next step (Right)"));
  play_->setToolTip(tr("Play the steps one after another, or pause (Space)"));
}

void TeachView::refresh() {
  const TeachStep step = player_.current();
  mode_buttons_[static_cast<int>(teach_mode_of(step))]->setChecked(true);
  play_->setText(player_.playing() ? tr("❚❚ Pause") : tr("▶ Play"));
  previous_->setEnabled(player_.step() > 0);
  next_->setEnabled(player_.step() + 1 < kNumTeachSteps);
  step_label_->setText(tr("step %1 of %2").arg(player_.step()).arg(kNumTeachSteps - 1));
  narration_->setText(narration());
  canvas_->set_step(step, animation(player_.phase()));
}

QString TeachView::narration() const {
  return narration_of(player_.current());
}

QString TeachView::narration_of(TeachStep step) const {
  if (!scene_) return tr("Open a scenario (File > Open) to teach with its plan.");
  const TeachScene& s = *scene_;
  const TeachTransfer& t = s.transfer;
  const TeachPmap& m = s.pmap;
  switch (step) {
    case TeachStep::kKitchen:
      return tr("The kitchen of %1: %n chef(s) (devices), each with a station (its memory, filled "
                "to its peak); runners (links) carry dishes between them, and the head chef (XLA, "
                "the planner) decided: %2.",
                "", s.total_devices)
          .arg(q(s.title), q(s.summary));
    case TeachStep::kTransferAlpha:
      return tr("A runner sets off from %1: before a single byte moves, the message pays the "
                "link's latency α = %2, however small it is.")
          .arg(q(t.from_name), secs(t.alpha_part_seconds));
    case TeachStep::kTransferBeta:
      return tr("Then the bytes cross: M/B = %1 / %2 = %3. Bigger dishes take longer; the "
                "latency does not grow with them.")
          .arg(bytes(t.bytes), bandwidth(t.bandwidth_bytes_per_second), secs(t.beta_part_seconds));
    case TeachStep::kTransferArrived:
      return t.has_collective
                 ? tr("Arrived at %1 after α + M/B = %2. The whole ring %3 pays %4 latencies in "
                      "series (α term %5) and the β term %6: for small messages α dominates.")
                       .arg(q(t.to_name), secs(t.seconds()), q(t.collective_kind))
                       .arg(t.alpha_messages)
                       .arg(secs(t.alpha_term_seconds), secs(t.beta_term_seconds))
                 : tr("Arrived at %1 after α + M/B = %2.").arg(q(t.to_name), secs(t.seconds()));
    case TeachStep::kBatchSplit:
      return tr("Batch split: each chef gets its own rows of %1 and cooks the same recipe on them.")
          .arg(q(s.transforms[0].before.tensor));
    case TeachStep::kAllGather:
      return tr("AllGather: the blocks are put on the shared platter and every chef takes the "
                "whole tensor back: %1 on this kitchen's links.")
          .arg(secs(s.transforms[1].seconds));
    case TeachStep::kRowSplit:
      return tr("Row split: the weights %1 are cut by rows, so each chef holds 1/N of them; each "
                "chef's product is then a partial sum.")
          .arg(q(s.transforms[2].before.tensor));
    case TeachStep::kReduceScatter:
      return tr("ReduceScatter: the partial sums meet in the sauce bowl and each chef takes back "
                "only its rows of the total: %1.")
          .arg(secs(s.transforms[3].seconds));
    case TeachStep::kOutputStacked:
      return tr(
          "pmap gives the results back stacked: a new leading axis of %n device(s), "
          "entry d from chef d.",
          "", static_cast<int>(s.output.local_shapes.size()));
    case TeachStep::kOutputConcatenated:
      return tr("Batch sharding gives them back as one batch: the rows concatenated, %1.")
          .arg(q(shape_text(s.output.concatenated_shape)));
    case TeachStep::kPmapDevices:
      return tr(
          "jax.devices() lists the chefs: %n device(s), each an index on pmap's device "
          "axis.",
          "", m.devices);
    case TeachStep::kPmapShard:
      return tr("The batch %1 is reshaped to %2: row block d goes to device d.")
          .arg(q(shape_text(m.input_global)), q(shape_text(m.input_reshaped)));
    case TeachStep::kPmapCompute:
      return tr("Every chef runs the same compiled function on its own block, all at once "
                "(%1 each): each ends with its own gradient g_d.")
          .arg(secs(m.compute_seconds));
    case TeachStep::kPmapPsum:
      return tr("psum: every chef pours its gradient (%1) into the sauce bowl; the bowl holds "
                "the sum. This AllReduce takes %2.")
          .arg(bytes(m.gradient_bytes), secs(m.allreduce_seconds));
    case TeachStep::kPmapPmean:
      return tr("pmean: the sum divided by %1 goes back to every chef, so all of them hold the "
                "same averaged gradient.")
          .arg(m.devices);
    case TeachStep::kPmapAllGather:
      return tr("all_gather: each chef puts its block on the shared platter and takes every "
                "block back (%1).")
          .arg(secs(m.allgather_seconds));
    case TeachStep::kPmapUpdate:
      return tr("Every chef updates its copy of the weights with the same averaged gradient: "
                "the copies stay equal. One step: %1.")
          .arg(secs(m.step_seconds));
  }
  return {};
}

}  // namespace brigade::gui
