// The memory view: one device's live memory over the step as stacked areas
// by category (Qt Charts), its capacity as a line, the peak marked, an
// out-of-memory event marked at its time with the task that crossed the
// line and the live bytes by category then. A device selector (sorted by
// peak, searchable; default: the device with the highest peak) serves
// traces of a thousand devices. Logic: gui/model/memory_series.hpp.
#pragma once

#include <vector>

#include "gui/model/memory_series.hpp"
#include "gui/views/view.hpp"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QCheckBox;
class QValueAxis;
class QGraphicsTextItem;

namespace brigade::gui {

class MemoryView : public View {
  Q_OBJECT
 public:
  explicit MemoryView(QWidget* parent = nullptr);
  void set_document(DocumentPtr doc) override;
  void set_time_seconds(double seconds) override;
  bool shows(const Document& doc) const override {
    return doc.has_trace() && !doc.trace->memory.empty();
  }

  // The device shown (-1: none), and choosing one.
  int device() const { return device_; }
  void set_device(int device);
  // What the info line says (tests read it).
  QString info_text() const;

 protected:
  void changeEvent(QEvent* e) override;  // LanguageChange: the texts again

 private:
  void rebuild_chart();
  void reset_chart();  // no series, axes or OOM label
  void update_cursor();
  void update_info();
  double capacity_bytes(int device) const;
  double end_seconds() const;

  DocumentPtr doc_;
  int device_ = -1;
  double cursor_seconds_ = -1;
  MemoryStack stack_;  // the device's full stack
  std::vector<double> peaks_;
  TimeUnit time_unit_;
  ByteUnit byte_unit_;
  double y_max_bytes_ = 1;

  QComboBox* devices_;
  QCheckBox* to_capacity_;
  QLabel* summary_;
  QLabel* info_;
  QChartView* chart_view_;
  QChart* chart_;
  QLineSeries* cursor_ = nullptr;  // owned by chart_
  QValueAxis* x_axis_ = nullptr;
  QValueAxis* y_axis_ = nullptr;
  QGraphicsTextItem* oom_label_ = nullptr;  // owned by chart_
};

}  // namespace brigade::gui
