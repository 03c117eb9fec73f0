// The timeline's painted area: lane labels, ruler, spans at their level of
// detail, transfer arrows, selection, cursor and legend (QPainter). Logic
// (time <-> pixel, zoom stack, lanes, LOD, colours) is the view-model's
// (gui/model); this class paints it and turns input into its calls.
#pragma once

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include <QWidget>

#include "gui/model/document.hpp"
#include "gui/model/lane_layout.hpp"
#include "gui/model/pixel_row.hpp"
#include "gui/model/time_axis.hpp"

class QFontMetrics;
class QScrollBar;

namespace brigade::gui {

class TimelineCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineCanvas(QWidget* parent = nullptr);

  void set_document(DocumentPtr doc);
  void set_cursor_seconds(double t);

  // Navigation (keys W/S/A/D, 0, Z, Backspace call these too).
  void zoom_in();
  void zoom_out();
  void pan_left();
  void pan_right();
  void show_all();                    // pushes the current window on the zoom stack
  void zoom_back();                   // pops it
  void zoom_to_selection();           // the selected range, else the selected span
  void zoom_to_window(TimeWindow w);  // pushes the current window
  void select_span(int span, bool reveal);
  void set_arrows_shown(bool on);
  void set_highlight(std::vector<std::int32_t> spans);  // found spans, outlined

  // Two timelines on one axis (the compare view): the extent to show instead
  // of the trace's own (the window: all of it; the zoom stack cleared).
  void set_extent(TimeWindow extent);
  // Takes `leader`'s window and zoom stack without emitting window_changed:
  // the other of two timelines follows the one the user moved.
  void follow(const TimelineCanvas& leader);
  // Keeps the vertical scroll bar's width free even while it is hidden, so
  // that canvases of one width map a time to the same x.
  void set_scrollbar_reserved(bool on);
  // Opens a device's lanes, scrolls them to the top and shades them; -1 clears.
  void highlight_device(int device);
  int highlighted_device() const { return device_highlight_; }

  const TimeAxis& axis() const { return axis_; }
  const ZoomStack& zoom_stack() const { return zoom_stack_; }
  std::optional<TimeWindow> selection() const { return selection_; }
  int selected_span() const { return selected_span_; }
  LaneLayout& layout() { return layout_; }
  // Items painted in the last frame (spans or merged runs) and arrows.
  std::int64_t last_frame_items() const { return last_items_; }
  std::int64_t last_frame_arrows() const { return last_arrows_; }

  static constexpr int kLabelWidth = 190;
  // The overview (the whole trace's utilisation, the window marked) above the ruler.
  static constexpr int kOverviewHeight = 30;
  static constexpr int kRulerHeight = 26;
  static constexpr int kTopHeight = kOverviewHeight + kRulerHeight;
  static constexpr int kLegendHeight = 22;
  // Arrows are drawn while at most this many transfers are in view.
  static constexpr int kMaxArrows = 1500;

 signals:
  void span_selected(int span);               // -1: none
  void range_selected(double t0, double t1);  // t1 < t0: cleared
  void time_clicked(double t);
  void window_changed();

 protected:
  void paintEvent(QPaintEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  bool event(QEvent* e) override;
  void changeEvent(QEvent* e) override;  // LanguageChange: the rows' labels again

 private:
  QRect data_rect() const;
  void update_scroll();
  void changed();               // the window moved: repaint and tell
  double row_top(int r) const;  // y of a row on screen
  int span_under(QPoint pos) const;
  QString tooltip_at(QPoint pos) const;
  int dst_stream_of_transfer(std::int32_t transfer) const;
  double stream_center_y(int stream) const;
  void paint_rows(QPainter& p, const QRect& area);
  void paint_host_row(QPainter& p, const QRect& area, double y, int device);
  void paint_labels(QPainter& p, const QRect& area, double ty, double th, const QFontMetrics& fm,
                    const std::function<NameId(std::int32_t)>& name_of);
  int host_slice_under(QPoint pos) const;  // Trace::host index, -1 if none
  void paint_arrows(QPainter& p, const QRect& area);
  void paint_ruler(QPainter& p, const QRect& area);
  void paint_legend(QPainter& p);
  void paint_overview(QPainter& p, const QRect& area);
  void center_on_overview(int x);
  void paint_overlays(QPainter& p, const QRect& area);
  void compute_overview();

  DocumentPtr doc_;
  LaneLayout layout_;
  TimeAxis axis_;
  ZoomStack zoom_stack_;
  QScrollBar* vscroll_;
  int selected_span_ = -1;
  int waited_span_ = -1;
  std::vector<std::int32_t> highlight_;
  std::optional<TimeWindow> selection_;
  double cursor_ = -1;
  bool arrows_ = true;
  bool reserve_scrollbar_ = false;
  int device_highlight_ = -1;
  enum class Drag { kNone, kSelect, kPan, kOverview } drag_ = Drag::kNone;
  QPoint drag_from_;
  TimeWindow drag_window_;
  // (collective, device) -> the stream of that device's rank task.
  std::unordered_map<std::int64_t, std::int32_t> collective_stream_;
  std::int64_t last_items_ = 0, last_arrows_ = 0;
  // Utilisation of the whole trace for the overview, per bin.
  std::vector<double> overview_compute_, overview_comm_;
  mutable std::vector<LodItem> items_;
  std::vector<LodItem> labels_;
  PixelRow pixels_;
};

}  // namespace brigade::gui
