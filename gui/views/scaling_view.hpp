// The scaling view: the open scenario swept over device counts (strong
// scaling: the data degree grows, the global batch stays), drawn as speedup
// against devices (log-log: the ideal is the diagonal) and as parallel
// efficiency: the simulator's points, the closed form's, the ideal, and
// Amdahl's law with its fitted p; a table of every point below. The sweep
// runs on a worker thread when the view is first shown for a scenario (the
// closed form first, in milliseconds; the simulator after, a plan's
// simulation per point), with progress and a cancel button; the device
// counts can be edited and swept again. Logic: gui/model/scaling.hpp.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "gui/model/scaling.hpp"
#include "gui/model/worker_jobs.hpp"
#include "gui/views/view.hpp"

class QChart;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace brigade::gui {

class ScalingView : public View {
  Q_OBJECT
 public:
  explicit ScalingView(QWidget* parent = nullptr);
  ~ScalingView() override;
  void set_document(DocumentPtr doc) override;
  bool shows(const Document& doc) const override { return doc.scenario != nullptr; }
  bool wait_ready(int timeout_ms) override;

  // Sweeps these device counts (replacing any sweep in flight).
  void sweep(const std::vector<int>& devices);
  bool busy() const { return jobs_.current() != nullptr; }
  // The sweeps shown (null until judged).
  const planner::SweepResult* simulated() const { return simulated_ ? &*simulated_ : nullptr; }
  const planner::SweepResult* closed_form() const { return closed_ ? &*closed_ : nullptr; }
  QString summary_text() const;

 protected:
  void showEvent(QShowEvent* e) override;
  void changeEvent(QEvent* e) override;  // LanguageChange: retranslate(), redraw()

 private:
  void retranslate();
  QString empty_text() const;
  struct Work;
  void start_if_needed();
  void take_results(std::uint64_t id);
  void cancel();
  void redraw();
  void fill_table();

  DocumentPtr doc_;
  std::vector<int> counts_;
  std::optional<planner::SweepResult> simulated_, closed_;
  QString sim_error_;
  WorkerJobs<Work> jobs_;

  QLineEdit* devices_edit_;
  QPushButton* run_;
  QPushButton* cancel_;
  QLabel* status_;
  QLabel* summary_;
  QChart* speedup_chart_;
  QChart* efficiency_chart_;
  QTableWidget* table_;
};

}  // namespace brigade::gui
