// The compare view (issue 17): the open run (A) and a second run (B) side
// by side: simulated against measured (the .sim.json and .measured.json
// that `brigade validate --trace-dir` writes), two scenarios, or two
// strategies. Two timelines on one time axis whose zoom and pan move
// together, each under its run's name; the differences per device (busy,
// communication, exposed, idle), per device's peak memory and per task
// kind, largest first, computed by `brigade compare`'s core functions so
// that both print the same numbers. A row's click opens and shades the
// device's lanes in both timelines, or outlines the kind's spans. Runs of
// different programs are compared as far as they can be, what differs said
// in a line above; a B that cannot be opened is a line too, and the
// comparison shown stays. B is loaded (a scenario lowered and simulated)
// on a worker thread. Logic: gui/model/compare.hpp.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/run_compare.hpp"
#include "gui/model/compare.hpp"
#include "gui/model/loader.hpp"
#include "gui/model/worker_jobs.hpp"
#include "gui/views/view.hpp"

class QLabel;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTableWidget;

namespace brigade::gui {

class TimelineCanvas;

class CompareView : public View {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  // Run A: the open document.
  void set_document(DocumentPtr doc) override;
  void set_time_seconds(double seconds) override;
  bool shows(const Document& doc) const override { return b_ && doc.has_trace(); }
  bool wait_ready(int timeout_ms) override;

  // Opens `path` as run B on the worker thread (a scenario lowered and
  // simulated as the loader does, with `options`) and compares A with it.
  // Until it is loaded the previous B, if any, stays; if it cannot be
  // opened, its one-line error shows above the timelines.
  void compare_with(const QString& path, const LoadOptions& options);
  // The options the view's own "Compare with…" button and drops use.
  void set_load_options(const LoadOptions& options) { options_ = options; }
  // Asks for B's file (a file dialog) and compares with it.
  void choose_file();
  // Forgets B.
  void clear_b();

  DocumentPtr run_b() const { return b_; }
  const RunComparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }
  TimelineCanvas* canvas_a() const { return canvas_a_; }
  TimelineCanvas* canvas_b() const { return canvas_b_; }
  // The line above the timelines: what differs, or why B is not there ("" none).
  QString notes_text() const;
  bool has_error() const { return !error_.isEmpty(); }
  QString error_text() const { return error_; }
  // The table as `brigade compare A B --rows 0` prints it ("" without a comparison).
  QString table_text() const;
  // The table's rows (titles included), and a click on row `row`.
  const std::vector<CompareTableRow>& table_rows() const { return rows_; }
  void activate_row(int row);

 signals:
  // The comparison asked for by compare_with() is shown: the main window
  // brings the view to the front.
  void comparison_ready();

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void changeEvent(QEvent* e) override;  // LanguageChange: retranslate(), the texts again

 private:
  void retranslate();
  struct Work;
  void start(const QString& path, const LoadOptions& options);
  void take_results(std::uint64_t id);
  void show_comparison();
  void fill_table();
  void update_headers();

  DocumentPtr a_, b_;
  std::optional<RunComparison> comparison_;
  std::vector<CompareTableRow> rows_;
  QString error_;
  LoadOptions options_;
  bool raise_when_ready_ = false;
  WorkerJobs<Work> jobs_;

  QPushButton* choose_;
  QPushButton* copy_;
  QPushButton* clear_;
  QLabel* status_;
  QLabel* notes_;
  QLabel* header_a_;
  QLabel* header_b_;
  QLabel* step_;
  TimelineCanvas* canvas_a_;
  TimelineCanvas* canvas_b_;
  QStackedWidget* b_stack_;
  QTableWidget* table_;
  QSplitter* body_;
  bool sized_ = false;  // the body's split set once, at the first real width
};

}  // namespace brigade::gui
