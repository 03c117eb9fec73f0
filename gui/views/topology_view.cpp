#include "gui/views/topology_view.hpp"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "gui/model/ruler.hpp"
#include "gui/views/language.hpp"
#include "gui/views/topology_canvas.hpp"

namespace brigade::gui {

namespace {
constexpr int kSliderSteps = 1000;
constexpr int kFrameMs = 33;
constexpr double kPlaySeconds = 10;  // the whole step at 1x
}  // namespace

TopologyView::TopologyView(QWidget* parent) : View(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout();
  bar->setContentsMargins(4, 2, 4, 0);
  play_ = new QToolButton(this);
  play_->setCheckable(true);
  keep_tr(play_, "toolTip", this, QT_TR_NOOP("Animate the step: packets move along their routes"));
  all_nodes_ = new QToolButton(this);
  keep_tr(all_nodes_, "text", this, QT_TR_NOOP("◀ All nodes"));
  keep_tr(all_nodes_, "toolTip", this, QT_TR_NOOP("Back to every node of the cluster (Esc)"));
  all_nodes_->setVisible(false);
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setRange(0, kSliderSteps);
  time_label_ = new QLabel(this);
  time_label_->setMinimumWidth(90);
  speed_ = new QComboBox(this);
  for (const char* s : {"0.1x", "0.25x", "0.5x", "1x", "2x", "4x"}) speed_->addItem(s);
  speed_->setCurrentText("1x");
  keep_tr(speed_, "toolTip", this, QT_TR_NOOP("Playback speed: 1x plays the whole step in 10 s"));
  whole_step_ = new QCheckBox(this);
  keep_tr(whole_step_, "text", this, QT_TR_NOOP("Whole step"));
  keep_tr(whole_step_, "toolTip", this,
          QT_TR_NOOP("Colour links and devices by their use over the whole step"));
  bar->addWidget(all_nodes_);
  bar->addWidget(play_);
  bar->addWidget(slider_, 1);
  bar->addWidget(time_label_);
  bar->addWidget(speed_);
  bar->addWidget(whole_step_);
  layout->addLayout(bar);
  canvas_ = new TopologyCanvas(this);
  layout->addWidget(canvas_, 1);
  timer_ = new QTimer(this);
  timer_->setInterval(kFrameMs);
  connect(timer_, &QTimer::timeout, this, &TopologyView::tick);
  connect(play_, &QToolButton::toggled, this, &TopologyView::play);
  connect(slider_, &QSlider::valueChanged, this, &TopologyView::set_time_from_slider);
  connect(slider_, &QSlider::sliderReleased, this,
          [this] { emit time_selected(canvas_->time_seconds()); });
  connect(whole_step_, &QCheckBox::toggled, canvas_, &TopologyCanvas::set_whole_step);
  connect(canvas_, &TopologyCanvas::node_clicked, this, &TopologyView::focus_node);
  connect(canvas_, &TopologyCanvas::back_requested, this, [this] { focus_node(-1); });
  connect(all_nodes_, &QToolButton::clicked, this, [this] { focus_node(-1); });
  show_play_text();
}

void TopologyView::changeEvent(QEvent* e) {
  View::changeEvent(e);
  if (e->type() == QEvent::LanguageChange) show_play_text();  // the canvas repaints itself
}

void TopologyView::show_play_text() {
  play_->setText(playing() ? tr("❚❚ Pause") : tr("▶ Play"));
}

void TopologyView::focus_node(int node) {
  canvas_->set_focus_node(node);
  all_nodes_->setVisible(canvas_->focus_node() >= 0);
  if (canvas_->focus_node() >= 0)
    emit message(tr("Node %1 expanded; Esc or ◀ All nodes goes back").arg(node));
}

void TopologyView::set_document(DocumentPtr doc) {
  play(false);
  doc_ = std::move(doc);
  canvas_->set_document(doc_);
  all_nodes_->setVisible(false);
  const bool ok = doc_ && doc_->usage;
  for (QWidget* w : {static_cast<QWidget*>(play_), static_cast<QWidget*>(slider_),
                     static_cast<QWidget*>(speed_), static_cast<QWidget*>(whole_step_)})
    w->setEnabled(ok);
  // Open where the links are busiest (at t = 0 little has happened yet).
  const int start =
      ok ? static_cast<int>(std::lround((doc_->usage->busiest_bin() + 0.5) /
                                        doc_->usage->bins() * kSliderSteps))
         : 0;
  {
    const QSignalBlocker block(slider_);
    slider_->setValue(start);
  }
  set_time_from_slider(start);
}

void TopologyView::set_time_seconds(double seconds) {
  if (!doc_ || !doc_->usage) return;
  const double t0 = doc_->usage->start_seconds(), t1 = doc_->usage->end_seconds();
  const QSignalBlocker block(slider_);
  slider_->setValue(static_cast<int>(std::lround((seconds - t0) / (t1 - t0) * kSliderSteps)));
  canvas_->set_time_seconds(seconds);
  time_label_->setText(QString::fromStdString(format_duration(seconds)));
}

void TopologyView::set_time_from_slider(int value) {
  if (!doc_ || !doc_->usage) {
    time_label_->clear();
    return;
  }
  const double t0 = doc_->usage->start_seconds(), t1 = doc_->usage->end_seconds();
  const double t = t0 + (t1 - t0) * value / kSliderSteps;
  canvas_->set_time_seconds(t);
  time_label_->setText(QString::fromStdString(format_duration(t)));
}

void TopologyView::play(bool on) {
  if (on && (!doc_ || !doc_->usage)) on = false;
  {
    const QSignalBlocker block(play_);
    play_->setChecked(on);
  }
  if (on) {
    if (slider_->value() >= kSliderSteps) slider_->setValue(0);
    timer_->start();
  } else {
    timer_->stop();
  }
  show_play_text();
}

bool TopologyView::playing() const {
  return timer_->isActive();
}

void TopologyView::tick() {
  const double speed = speed_->currentText().chopped(1).toDouble();
  const double per_frame = kSliderSteps * speed * kFrameMs / (kPlaySeconds * 1000);
  const int next = slider_->value() + std::max(1, static_cast<int>(std::lround(per_frame)));
  if (next >= kSliderSteps) {
    slider_->setValue(kSliderSteps);
    play(false);
    return;
  }
  slider_->setValue(next);
}

}  // namespace brigade::gui
