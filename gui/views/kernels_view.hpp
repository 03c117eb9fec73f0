// The kernels view: an open scenario's step on one device by kernel group
// (GEMMs by width, attention, norms, activations, FP8 casts, optimizer,
// loss, embedding, other streaming, NCCL by collective), a bar a group, and
// beside each the time a profiler's record of the same plan gives
// (Nsight Systems' kernel summary CSV or PyTorch's profiler trace, opened
// with "Profiler record…"), with the ratio: what `brigade kernels
// --measured` prints (docs/FIDELITY.md, "Against a profiler's record").
// Logic: gui/model/kernel_groups_chart.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "core/status.hpp"
#include "gui/model/kernel_groups_chart.hpp"
#include "gui/model/worker_jobs.hpp"
#include "gui/views/view.hpp"

class QLabel;
class QPushButton;
class QSpinBox;

namespace brigade::gui {

class KernelsCanvas;

class KernelsView : public View {
  Q_OBJECT
 public:
  explicit KernelsView(QWidget* parent = nullptr);
  void set_document(DocumentPtr doc) override;
  bool shows(const Document& doc) const override { return doc.program() && doc.trace; }

  // Reads a profiler's record and shows it beside the step; its steps and
  // GPUs from the record where it says (a PyTorch trace's ProfilerStep
  // annotations and devices), else 1. False, with the reader's one-line
  // message in `error`, when the file cannot be read.
  bool load_record(const QString& path, QString* error = nullptr);
  // The same on a thread of its own (a PyTorch trace runs to hundreds of MB:
  // seconds to read), shown when read; "Profiler record…" calls it. A
  // second call drops the first's result.
  void read_record(const QString& path);
  // Whether a read_record is still reading.
  bool reading() const { return reads_.current() != nullptr; }
  void set_steps(int steps);
  void set_gpus(int gpus);
  void set_device(int device);
  const KernelGroupsChart& chart() const;

 protected:
  void changeEvent(QEvent* e) override;  // LanguageChange: the labels again

 private:
  void refresh();
  void choose_record();
  // A record read (or not): shown, or its message given; true when shown.
  bool apply_record(const QString& path, Result<MeasuredKernels> read, QString* error);
  void take_read(std::uint64_t id);

  struct Read {
    QString path;
    std::optional<Result<MeasuredKernels>> result;
  };
  WorkerJobs<Read> reads_;

  DocumentPtr doc_;
  std::unique_ptr<KernelRecord> record_;
  QLabel* title_;
  QSpinBox* device_;
  QPushButton* open_;
  QSpinBox* steps_;
  QSpinBox* gpus_;
  KernelsCanvas* canvas_;
};

}  // namespace brigade::gui
