// The timeline view: the canvas (timeline_canvas.hpp) with a tool row
// (find by name, zoom buttons, arrows on/off), the details of the selected
// span and the statistics of the selected time range.
#pragma once

#include <vector>

#include "gui/views/view.hpp"

class QLabel;
class QLineEdit;
class QTextBrowser;
class QTableWidget;
class QCheckBox;

namespace brigade::gui {

class TimelineCanvas;

class TimelineView : public View {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void set_document(DocumentPtr doc) override;
  void set_time_seconds(double seconds) override;
  bool shows(const Document& doc) const override { return doc.has_trace(); }

  TimelineCanvas* canvas() const { return canvas_; }
  // Find by name: highlights every match and selects the first; next/prev step.
  void find(const QString& text);
  void find_next(int step);
  int found_count() const { return static_cast<int>(found_.size()); }
  // The details panel's and the range statistics' text (tests read them).
  QString details_text() const;
  QString range_text() const;

 protected:
  void changeEvent(QEvent* e) override;  // LanguageChange: retranslate()

 private:
  void retranslate();
  void show_details(int span);
  void show_range(double t0, double t1);

  DocumentPtr doc_;
  TimelineCanvas* canvas_;
  QLineEdit* find_edit_;
  QLabel* find_label_;
  QTextBrowser* details_;
  QTableWidget* stats_;
  QLabel* stats_label_;
  std::vector<std::int32_t> found_;
  int found_at_ = -1;
  double range_t0_ = 0, range_t1_ = 0;  // the selected range (none: equal)
};

}  // namespace brigade::gui
