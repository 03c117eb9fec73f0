// The what-if panel: the open scenario's plan as controls (every key of its
// strategy: data / tensor / pipeline degrees, sequence parallelism, ZeRO
// stage, data mode, schedule and virtual stages, rank order, bucket,
// overlap, collective algorithm; training's micro-batch and recomputation)
// and sliders for a link class's alpha and bandwidth and one device's speed
// (simulation.speed: a known straggler). Each edit is judged at once by the
// closed form on the GUI thread and re-judged by the simulator on a worker
// (gui/model/whatif.hpp's LatestRequestRunner: the latest edit wins, the
// run it replaces is cancelled). How step time, peak memory per device and
// exposed communication moved against the starting plan is shown for both
// judges; a plan that cannot be gets its one-line reason inline. "Save as
// scenario..." writes the edited plan (save_whatif_scenario). Logic:
// gui/model/whatif.hpp.
#pragma once

#include <atomic>
#include <memory>
#include <optional>

#include "gui/model/whatif.hpp"
#include "gui/views/view.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableWidget;

namespace brigade::gui {

class WhatIfView : public View {
  Q_OBJECT
 public:
  explicit WhatIfView(QWidget* parent = nullptr);
  ~WhatIfView() override;
  void set_document(DocumentPtr doc) override;
  bool shows(const Document& doc) const override { return doc.scenario != nullptr; }
  // Waits for the simulator's verdict on the latest edit.
  bool wait_ready(int timeout_ms) override;

  // The edits shown; set_edits puts them in the controls and judges them
  // (as if the user had turned the controls).
  const WhatIfEdits& edits() const { return edits_; }
  void set_edits(const WhatIfEdits& edits);
  // Back to the starting plan.
  void reset();
  // The verdicts on the edited plan (null: none, or not yet).
  const Judgement* closed_form() const { return cf_after_ ? &*cf_after_ : nullptr; }
  const Judgement* simulated() const { return sim_after_ ? &*sim_after_ : nullptr; }
  // The inline reason an edited plan cannot be ("" when it can).
  QString reason_text() const;
  QString summary_text() const;
  // Writes the edited plan (the "Save as scenario..." button asks for the path).
  Status save_to(const QString& path);

 protected:
  void changeEvent(QEvent* e) override;  // LanguageChange: retranslate()

 private:
  void retranslate();
  QString empty_text() const;
  QString no_strategy_text() const;
  void build_plan_box(QGroupBox* box);
  void build_hardware_box(QGroupBox* box);
  void controls_from_edits();
  void edits_from_controls();
  // The host time per operation the spin box shows: the edit's, else the
  // profile's (the largest entry, as the judges take it).
  double shown_host_op_seconds() const;
  void link_controls_from_edits();
  void show_device_count();
  void judge();
  void take_simulated(std::uint64_t id, std::shared_ptr<Result<Judgement>> result);
  void show_results();
  void save_dialog();

  DocumentPtr doc_;
  WhatIfEdits start_, edits_;
  std::vector<LinkClassKnob> knobs_;
  std::optional<Judgement> cf_before_, sim_before_, cf_after_, sim_after_;
  QString reason_, sim_status_;
  std::uint64_t sim_id_ = 0;  // the request whose verdict is awaited (0: none)
  std::atomic<planner::Granularity> granularity_{planner::Granularity::kAuto};
  bool filling_ = false;  // controls set from edits: no judging
  std::unique_ptr<LatestRequestRunner> runner_;

  QGroupBox* plan_box_;
  QGroupBox* hardware_box_;
  QSpinBox* data_;
  QSpinBox* tensor_;
  QSpinBox* pipeline_;
  QSpinBox* context_;
  QSpinBox* expert_;
  QLabel* devices_;
  QCheckBox* sequence_parallel_;
  QComboBox* zero_;
  QComboBox* data_mode_;
  QSpinBox* micro_batch_;
  QComboBox* schedule_;
  QSpinBox* virtual_stages_;
  QComboBox* recompute_;
  QComboBox* rank_order_;
  // The scenario's own rank order when it is none of the combo's six (it
  // lists context, say): the combo's seventh item, kept as it is.
  std::vector<std::string> own_rank_order_;
  QDoubleSpinBox* bucket_mb_;
  QCheckBox* overlap_;
  QComboBox* algorithm_;
  QComboBox* link_class_;
  QSlider* alpha_;
  QLabel* alpha_label_;
  QSlider* bandwidth_;
  QLabel* bandwidth_label_;
  QSpinBox* device_;
  QSlider* speed_;
  QLabel* speed_label_;
  QDoubleSpinBox* host_op_;  // simulation.host_op_time, in us
  QSpinBox* per_host_;       // simulation.devices_per_host
  QLabel* summary_;
  QLabel* reason_label_;
  QLabel* notes_;
  QLabel* table_caption_;
  QTableWidget* table_;
  QPushButton* reset_;
  QPushButton* save_;
};

}  // namespace brigade::gui
