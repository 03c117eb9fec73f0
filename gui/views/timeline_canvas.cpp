#include "gui/views/timeline_canvas.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include "gui/model/palette.hpp"
#include "gui/model/range_stats.hpp"
#include "gui/model/ruler.hpp"
#include "gui/model/span_details.hpp"
#include "gui/views/language.hpp"
#include "gui/views/paint_util.hpp"

namespace brigade::gui {

namespace {

constexpr double kZoomStep = 1.25;    // one W/S press or one wheel notch
constexpr double kPanFraction = 0.1;  // one A/D press: a tenth of the width
const QColor kBackground(0xfa, 0xfa, 0xfa);
const QColor kRowShade(0xf0, 0xf2, 0xf5);
const QColor kGrid(0xe2, 0xe4, 0xe8);
const QColor kText(0x20, 0x24, 0x2a);

QColor rgb(std::uint32_t c) {
  return QColor::fromRgb(c);
}

// A class's colour at a fill level (PixelRow: 1..kFillLevels), faded
// towards the background for runs of spans that only partly fill their
// pixels; computed once.
const QColor& colour_of(int cls, int fill) {
  static const auto table = [] {
    std::array<std::array<QColor, PixelRow::kFillLevels + 1>, kNumSpanClasses> t;
    for (int c = 0; c < kNumSpanClasses; ++c)
      for (int f = 0; f <= PixelRow::kFillLevels; ++f) {
        const QColor x = rgb(class_rgb(static_cast<SpanClass>(c)));
        const double a = 0.35 + 0.65 * f / PixelRow::kFillLevels;
        t[static_cast<size_t>(c)][static_cast<size_t>(f)] = QColor::fromRgbF(
            static_cast<float>(kBackground.redF() + (x.redF() - kBackground.redF()) * a),
            static_cast<float>(kBackground.greenF() + (x.greenF() - kBackground.greenF()) * a),
            static_cast<float>(kBackground.blueF() + (x.blueF() - kBackground.blueF()) * a));
      }
    return t;
  }();
  return table[static_cast<size_t>(std::clamp(cls, 0, kNumSpanClasses - 1))]
              [static_cast<size_t>(std::clamp(fill, 0, PixelRow::kFillLevels))];
}

std::int64_t key(std::int64_t collective, std::int64_t device) {
  return (collective << 24) ^ device;
}

}  // namespace

TimelineCanvas::TimelineCanvas(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(400, 160);
  setAttribute(Qt::WA_OpaquePaintEvent);
  vscroll_ = new QScrollBar(Qt::Vertical, this);
  connect(vscroll_, &QScrollBar::valueChanged, this, [this] { update(); });
}

void TimelineCanvas::set_document(DocumentPtr doc) {
  doc_ = std::move(doc);
  selected_span_ = waited_span_ = -1;
  highlight_.clear();
  selection_.reset();
  zoom_stack_.clear();
  collective_stream_.clear();
  cursor_ = -1;
  device_highlight_ = -1;
  if (doc_ && doc_->has_trace()) {
    layout_.build(*doc_->trace, *doc_->index, doc_->topology());
    layout_.collapse_for_overview();
    // A margin of 1% on each side, so that the first and last spans do not
    // touch the edges.
    const double t0 = doc_->index->start_seconds(), t1 = doc_->index->end_seconds();
    const double pad = std::max((t1 - t0) * 0.01, 1e-9);
    axis_.set_extent(t0 - pad, t1 + pad);
    compute_overview();
    for (const TraceSpan& s : doc_->trace->spans)
      if (s.collective >= 0) collective_stream_.emplace(key(s.collective, s.device), s.stream);
  } else {
    layout_ = LaneLayout();
    axis_.set_extent(0, 1);
    overview_compute_.clear();
    overview_comm_.clear();
  }
  axis_.set_width_pixels(data_rect().width());
  vscroll_->setValue(0);
  update_scroll();
  update();
}

void TimelineCanvas::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() != QEvent::LanguageChange || !doc_ || !doc_->has_trace()) return;
  layout_.relabel(*doc_->trace);
  update();
}

void TimelineCanvas::compute_overview() {
  constexpr int kBins = 600;
  const TimeWindow e = axis_.extent();
  overview_compute_ = utilisation_bins(*doc_->trace, e.start_seconds, e.end_seconds, kBins, true);
  overview_comm_ = utilisation_bins(*doc_->trace, e.start_seconds, e.end_seconds, kBins, false);
}

void TimelineCanvas::set_extent(TimeWindow extent) {
  if (!(extent.duration_seconds() > 0)) return;
  axis_.set_extent(extent.start_seconds, extent.end_seconds);
  zoom_stack_.clear();
  if (doc_ && doc_->has_trace()) compute_overview();
  update();
}

void TimelineCanvas::follow(const TimelineCanvas& leader) {
  axis_.set_window(leader.axis_.window());
  zoom_stack_ = leader.zoom_stack_;
  update();
}

void TimelineCanvas::set_scrollbar_reserved(bool on) {
  reserve_scrollbar_ = on;
  const TimeWindow w = axis_.window();
  update_scroll();
  axis_.set_window(w);
  update();
}

void TimelineCanvas::highlight_device(int device) {
  device_highlight_ = device;
  if (doc_ && doc_->has_trace() && device >= 0) {
    const int r = layout_.reveal_device(device);
    update_scroll();
    if (r >= 0) vscroll_->setValue(static_cast<int>(layout_.row(r).y));
  }
  update();
}

void TimelineCanvas::set_cursor_seconds(double t) {
  cursor_ = t;
  update();
}

QRect TimelineCanvas::data_rect() const {
  const int sb = vscroll_->isVisible() ? vscroll_->width()
                 : reserve_scrollbar_  ? vscroll_->sizeHint().width()
                                       : 0;
  return QRect(kLabelWidth, kTopHeight, std::max(1, width() - kLabelWidth - sb),
               std::max(1, height() - kTopHeight - kLegendHeight));
}

void TimelineCanvas::update_scroll() {
  const int data_h = std::max(1, height() - kTopHeight - kLegendHeight);
  layout_.fit_to_height(data_h);
  const int max = std::max(0, static_cast<int>(std::ceil(layout_.total_height())) - data_h);
  vscroll_->setRange(0, max);
  vscroll_->setPageStep(data_h);
  vscroll_->setSingleStep(20);
  vscroll_->setVisible(max > 0);
  vscroll_->setGeometry(width() - vscroll_->sizeHint().width(), kTopHeight,
                        vscroll_->sizeHint().width(), data_h);
  axis_.set_width_pixels(data_rect().width());
}

void TimelineCanvas::resizeEvent(QResizeEvent*) {
  const TimeWindow w = axis_.window();
  update_scroll();
  axis_.set_window(w);
}

void TimelineCanvas::changed() {
  update();
  emit window_changed();
}

double TimelineCanvas::row_top(int r) const {
  return kTopHeight + layout_.row(r).y - vscroll_->value();
}

// ---- navigation --------------------------------------------------------------------

void TimelineCanvas::zoom_in() {
  const QPoint m = mapFromGlobal(QCursor::pos());
  const QRect d = data_rect();
  axis_.zoom(kZoomStep, d.contains(m) ? m.x() - d.left() : d.width() / 2.0);
  changed();
}

void TimelineCanvas::zoom_out() {
  const QPoint m = mapFromGlobal(QCursor::pos());
  const QRect d = data_rect();
  axis_.zoom(1 / kZoomStep, d.contains(m) ? m.x() - d.left() : d.width() / 2.0);
  changed();
}

void TimelineCanvas::pan_left() {
  axis_.pan_pixels(-kPanFraction * axis_.width_pixels());
  changed();
}

void TimelineCanvas::pan_right() {
  axis_.pan_pixels(kPanFraction * axis_.width_pixels());
  changed();
}

void TimelineCanvas::zoom_to_window(TimeWindow w) {
  if (!(w.duration_seconds() > 0)) return;
  zoom_stack_.push(axis_.window());
  axis_.set_window(w);
  changed();
}

void TimelineCanvas::show_all() {
  zoom_to_window(axis_.extent());
}

void TimelineCanvas::zoom_back() {
  if (auto w = zoom_stack_.pop()) {
    axis_.set_window(*w);
    changed();
  }
}

void TimelineCanvas::zoom_to_selection() {
  if (selection_) {
    zoom_to_window(*selection_);
  } else if (doc_ && selected_span_ >= 0) {
    const TraceSpan& s = doc_->trace->spans[static_cast<size_t>(selected_span_)];
    const double pad = std::max((s.end_seconds - s.start_seconds) * 0.1, 1e-9);
    zoom_to_window({s.start_seconds - pad, s.end_seconds + pad});
  }
}

void TimelineCanvas::select_span(int span, bool reveal) {
  selected_span_ = span;
  waited_span_ = -1;
  if (doc_ && span >= 0) {
    waited_span_ = describe_span(*doc_, span).waited_for_span;
    if (reveal) {
      const TraceSpan& s = doc_->trace->spans[static_cast<size_t>(span)];
      layout_.reveal_stream(s.stream);
      update_scroll();
      const int r = layout_.row_showing_stream(s.stream);
      if (r >= 0) {
        const double y = layout_.row(r).y;
        const int data_h = data_rect().height();
        if (y < vscroll_->value() || y > vscroll_->value() + data_h - 20)
          vscroll_->setValue(static_cast<int>(y - data_h / 3.0));
      }
      const TimeWindow w = axis_.window();
      if (s.end_seconds < w.start_seconds || s.start_seconds > w.end_seconds) {
        const double d = w.duration_seconds();
        axis_.set_window({s.start_seconds - d / 2, s.start_seconds + d / 2});
      }
    }
  }
  emit span_selected(span);
  changed();
}

void TimelineCanvas::set_arrows_shown(bool on) {
  arrows_ = on;
  update();
}

void TimelineCanvas::set_highlight(std::vector<std::int32_t> spans) {
  highlight_ = std::move(spans);
  std::sort(highlight_.begin(), highlight_.end());
  update();
}

// ---- painting ----------------------------------------------------------------------

void TimelineCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), kBackground);
  last_items_ = last_arrows_ = 0;
  const QRect area = data_rect();
  if (!doc_ || !doc_->has_trace() || doc_->trace->spans.empty()) {
    p.setPen(kText);
    p.drawText(rect(), Qt::AlignCenter,
               doc_ ? tr("This document has no trace to show.")
                    : tr("Open a scenario or a trace (File > Open, or drop a file here)."));
    return;
  }
  // The ruler's grid under the spans.
  p.setPen(QPen(kGrid, 1, Qt::DotLine));
  for (const Tick& t : ruler_ticks(axis_))
    if (t.major)
      p.drawLine(QPointF(area.left() + t.x, area.top()), QPointF(area.left() + t.x, area.bottom()));
  paint_rows(p, area);
  paint_legend(p);  // before the arrows, which may leave a note in its strip
  if (arrows_) paint_arrows(p, area);
  paint_overlays(p, area);
  paint_ruler(p, area);
  paint_overview(p, area);
}

void TimelineCanvas::paint_overview(QPainter& p, const QRect& area) {
  const QRect box(area.left(), 0, area.width(), kOverviewHeight);
  p.fillRect(QRect(0, 0, width(), kOverviewHeight), QColor(0xdf, 0xe3, 0xea));
  p.setPen(kText);
  QFont f = font();
  f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1.5));
  p.setFont(f);
  p.drawText(QRect(6, 0, kLabelWidth - 10, kOverviewHeight), Qt::AlignVCenter | Qt::AlignLeft,
             tr("utilisation (all devices)"));
  const int n = static_cast<int>(overview_compute_.size());
  if (n == 0) return;
  // Compute from the bottom up, communication stacked on it (both capped at the box).
  const double bw = static_cast<double>(box.width()) / n;
  const double h = box.height() - 2;
  const QColor compute = rgb(class_rgb(SpanClass::kForward));
  const QColor comm = rgb(class_rgb(SpanClass::kAllReduce));
  for (int k = 0; k < n; ++k) {
    const double c = overview_compute_[static_cast<size_t>(k)] * h;
    const double m = std::min(h - c, overview_comm_[static_cast<size_t>(k)] * h);
    const double x = box.left() + k * bw;
    p.fillRect(QRectF(x, box.bottom() - c, bw + 0.5, c), compute);
    p.fillRect(QRectF(x, box.bottom() - c - m, bw + 0.5, m), comm);
  }
  // The window, as a frame over the whole extent.
  const TimeWindow e = axis_.extent(), w = axis_.window();
  const double scale = box.width() / e.duration_seconds();
  const double x0 = box.left() + (w.start_seconds - e.start_seconds) * scale;
  const double x1 = box.left() + (w.end_seconds - e.start_seconds) * scale;
  p.fillRect(QRectF(box.left(), 0, x0 - box.left(), kOverviewHeight), QColor(255, 255, 255, 120));
  p.fillRect(QRectF(x1, 0, box.right() - x1, kOverviewHeight), QColor(255, 255, 255, 120));
  p.setPen(QPen(QColor(0x30, 0x70, 0xe0), 1.5));
  p.drawRect(QRectF(x0, 1, std::max(2.0, x1 - x0), kOverviewHeight - 2));
}

void TimelineCanvas::center_on_overview(int x) {
  const QRect area = data_rect();
  const TimeWindow e = axis_.extent(), w = axis_.window();
  const double t = e.start_seconds + (x - area.left()) * e.duration_seconds() / area.width();
  const double d = w.duration_seconds();
  axis_.set_window({t - d / 2, t + d / 2});
  changed();
}

void TimelineCanvas::paint_rows(QPainter& p, const QRect& area) {
  const Trace& trace = *doc_->trace;
  const TraceIndex& index = *doc_->index;
  const double top = vscroll_->value();
  const TimeWindow w = axis_.window();
  const double spp = axis_.seconds_per_pixel();
  const double track_h = layout_.track_height();
  QFont small = font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1.5));
  p.setFont(small);
  const QFontMetrics fm(small);
  std::vector<std::int32_t> selected_tracks;
  for (int r : layout_.rows_in(top, top + area.height())) {
    const LaneRow& row = layout_.row(r);
    const double y = row_top(r);
    const QRectF band(0, y, width(), row.height);
    const bool header = row.kind == RowKind::kNode || row.kind == RowKind::kDevice;
    // Label column and shading: devices alternate, headers are shaded.
    if (header) p.fillRect(band, kRowShade);
    if (device_highlight_ >= 0 && row.kind != RowKind::kNode && row.device == device_highlight_) {
      p.fillRect(band, QColor(0xff, 0xd4, 0x00, 60));
      p.fillRect(QRectF(0, y, 4, row.height), QColor(0xe0, 0x9a, 0x00));
    }
    p.setPen(kGrid);
    p.drawLine(QPointF(0, y + row.height), QPointF(width(), y + row.height));
    p.setPen(kText);
    const double x = 6 + 12 * row.indent;
    if (header) {
      QPainterPath tri;  // collapse triangle
      const double cy = y + row.height / 2;
      if (row.collapsed) {
        tri.moveTo(x, cy - 4);
        tri.lineTo(x + 6, cy);
        tri.lineTo(x, cy + 4);
      } else {
        tri.moveTo(x - 1, cy - 3);
        tri.lineTo(x + 7, cy - 3);
        tri.lineTo(x + 3, cy + 3);
      }
      p.fillPath(tri, kText);
    }
    QFont lf = small;
    lf.setBold(header);
    lf.setItalic(row.kind == RowKind::kHost);
    p.setFont(lf);
    p.drawText(QRectF(x + 10, y, kLabelWidth - x - 14, std::min(row.height, track_h)),
               Qt::AlignVCenter | Qt::AlignLeft,
               QFontMetrics(lf).elidedText(QString::fromStdString(row.label), Qt::ElideMiddle,
                                           static_cast<int>(kLabelWidth - x - 14)));
    p.setFont(small);

    if (row.kind == RowKind::kHost) {
      paint_host_row(p, area, y, row.device);
      continue;
    }
    // Spans, gathered a pixel column at a time (PixelRow) and painted as
    // runs: at most one rectangle per column however many tracks a
    // collapsed row holds; then the names of spans wide enough for them.
    const std::vector<int> streams = layout_.streams_of_row(r);
    if (streams.empty()) continue;
    const bool merged_row = row.kind != RowKind::kStream;
    // A collapsed row is an overview: half the resolution is plenty.
    const double resolution = merged_row ? 2 * spp : spp;
    p.save();
    p.setClipRect(area);
    const int lanes = merged_row ? 1 : std::max(1, row.depths);
    for (int lane = 0; lane < lanes; ++lane) {
      const double ty = y + lane * track_h + 1;
      const double th = track_h - 2;
      if (ty > area.bottom() || ty + th < area.top()) continue;
      pixels_.reset(area.width());
      labels_.clear();
      for (int s : streams) {
        for (std::int32_t t : index.tracks_of_stream(s)) {
          if (!merged_row && index.track(t).depth != lane) continue;
          items_.clear();
          index.query(t, w.start_seconds, w.end_seconds, resolution, items_);
          last_items_ += static_cast<std::int64_t>(items_.size());
          for (const LodItem& it : items_) {
            const double x0 = axis_.time_to_x(it.start_seconds);
            const double x1 = axis_.time_to_x(it.end_seconds);
            const double fill =
                it.count > 1 ? it.busy_seconds / std::max(it.end_seconds - it.start_seconds, 1e-30)
                             : 1.0;
            pixels_.add(x0, x1, static_cast<int>(index.span_class(it.rep)), fill, it.count == 1);
            if (!merged_row && it.count == 1 && x1 - x0 > 36) labels_.push_back(it);
          }
        }
      }
      for (const PixelRow::Run& run : pixels_.runs())
        p.fillRect(QRectF(area.left() + run.x0, ty, run.x1 - run.x0, th),
                   colour_of(run.cls, run.fill));
      paint_labels(p, area, ty, th, fm, [&](std::int32_t rep) {
        return std::max<NameId>(0, trace.spans[static_cast<size_t>(rep)].name);
      });
    }
    p.restore();
  }
}

// A device's host row (RowKind::kHost): its host slices at their level of
// detail in the host colour, fuller where the host was busier, with the
// issued task's name where a slice is wide enough.
void TimelineCanvas::paint_host_row(QPainter& p, const QRect& area, double y, int device) {
  if (!doc_->host) return;
  const int t = doc_->host->track_of_device(device);
  if (t < 0) return;
  const TimeWindow w = axis_.window();
  const double track_h = layout_.track_height();
  const double ty = y + 1, th = track_h - 2;
  p.save();
  p.setClipRect(area);
  pixels_.reset(area.width());
  labels_.clear();
  items_.clear();
  doc_->host->index().query(t, w.start_seconds, w.end_seconds, axis_.seconds_per_pixel(), items_);
  last_items_ += static_cast<std::int64_t>(items_.size());
  const int cls = static_cast<int>(SpanClass::kHost);
  std::vector<double> starts;  // of slices wide enough to show where they begin
  for (const LodItem& it : items_) {
    const double x0 = axis_.time_to_x(it.start_seconds);
    const double x1 = axis_.time_to_x(it.end_seconds);
    const double fill =
        it.count > 1 ? it.busy_seconds / std::max(it.end_seconds - it.start_seconds, 1e-30) : 1.0;
    pixels_.add(x0, x1, cls, fill, it.count == 1);
    if (it.count == 1 && x1 - x0 > 36) labels_.push_back(it);
    if (it.count == 1 && x1 - x0 >= 6) starts.push_back(x0);
  }
  for (const PixelRow::Run& run : pixels_.runs())
    p.fillRect(QRectF(area.left() + run.x0, ty, run.x1 - run.x0, th), colour_of(run.cls, run.fill));
  // A host busy issuing one task after another is one solid bar: a hairline
  // of background marks where each slice begins, where it has room.
  p.setPen(QPen(kBackground, 1));
  for (double x : starts)
    if (x > 0)
      p.drawLine(QPointF(area.left() + x + 0.5, ty), QPointF(area.left() + x + 0.5, ty + th));
  paint_labels(p, area, ty, th, QFontMetrics(p.font()),
               [&](std::int32_t rep) { return doc_->host->slice(rep).name; });
  p.restore();
}

// The names of labels_' items wide enough for them, in white, elided;
// `name_of` gives an item's NameId from its representative (none drawn
// where it is not a name of the trace).
void TimelineCanvas::paint_labels(QPainter& p, const QRect& area, double ty, double th,
                                  const QFontMetrics& fm,
                                  const std::function<NameId(std::int32_t)>& name_of) {
  const std::vector<std::string>& names = doc_->trace->names;
  p.setPen(Qt::white);
  for (const LodItem& it : labels_) {
    const double x0 = std::max(0.0, axis_.time_to_x(it.start_seconds));
    const double x1 = std::min(static_cast<double>(area.width()), axis_.time_to_x(it.end_seconds));
    if (x1 - x0 < 30) continue;
    const NameId name = name_of(it.rep);
    if (name < 0 || static_cast<size_t>(name) >= names.size()) continue;
    p.drawText(QRectF(area.left() + x0 + 3, ty, x1 - x0 - 6, th), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(QString::fromStdString(names[static_cast<size_t>(name)]),
                             Qt::ElideRight, static_cast<int>(x1 - x0 - 6)));
  }
}

int TimelineCanvas::dst_stream_of_transfer(std::int32_t transfer) const {
  const Trace& trace = *doc_->trace;
  const TraceTransfer& x = trace.transfers[static_cast<size_t>(transfer)];
  const std::int32_t src_span = doc_->index->span_of_task(x.task);
  if (src_span >= 0) {
    const TraceSpan& s = trace.spans[static_cast<size_t>(src_span)];
    if (s.collective >= 0) {
      auto it = collective_stream_.find(key(s.collective, x.dst));
      if (it != collective_stream_.end()) return it->second;
    }
    // A point-to-point transfer: the receiver's stream of the same name.
    const std::string& name = trace.streams[static_cast<size_t>(s.stream)].name;
    for (size_t k = 0; k < trace.streams.size(); ++k)
      if (trace.streams[k].device == x.dst && trace.streams[k].name == name)
        return static_cast<int>(k);
  }
  for (size_t k = 0; k < trace.streams.size(); ++k)
    if (trace.streams[k].device == x.dst &&
        !doc_->index->tracks_of_stream(static_cast<int>(k)).empty())
      return static_cast<int>(k);
  return -1;
}

double TimelineCanvas::stream_center_y(int stream) const {
  const int r = layout_.row_showing_stream(stream);
  if (r < 0) return NAN;
  const LaneRow& row = layout_.row(r);
  return row_top(r) + std::min(row.height, layout_.track_height()) / 2;
}

void TimelineCanvas::paint_arrows(QPainter& p, const QRect& area) {
  const Trace& trace = *doc_->trace;
  std::vector<std::int32_t> xs;
  const TimeWindow w = axis_.window();
  doc_->index->transfers_in(w.start_seconds, w.end_seconds, xs);
  if (xs.empty()) return;
  if (static_cast<int>(xs.size()) > kMaxArrows) {
    // Said in the legend strip, out of the lanes' way.
    p.setPen(QColor(0x60, 0x60, 0x60));
    p.drawText(QRect(0, height() - kLegendHeight, width() - 8, kLegendHeight),
               Qt::AlignRight | Qt::AlignVCenter,
               tr("%1 transfers in view: zoom in to see their arrows")
                   .arg(QLocale::system().toString(static_cast<qlonglong>(xs.size()))));
    return;
  }
  p.save();
  p.setClipRect(area);
  // Antialiased lines cost ten times more: only while few are in view.
  p.setRenderHint(QPainter::Antialiasing, xs.size() <= 300);
  for (std::int32_t i : xs) {
    const TraceTransfer& x = trace.transfers[static_cast<size_t>(i)];
    const std::int32_t src_span = doc_->index->span_of_task(x.task);
    const int src_stream = src_span >= 0 ? trace.spans[static_cast<size_t>(src_span)].stream : -1;
    const int dst_stream = dst_stream_of_transfer(i);
    if (src_stream < 0 || dst_stream < 0) continue;
    const double y0 = stream_center_y(src_stream), y1 = stream_center_y(dst_stream);
    if (!std::isfinite(y0) || !std::isfinite(y1)) continue;
    if ((y0 < area.top() && y1 < area.top()) || (y0 > area.bottom() && y1 > area.bottom()))
      continue;
    const QPointF a(area.left() + axis_.time_to_x(x.start_seconds), y0);
    const QPointF b(area.left() + axis_.time_to_x(x.end_seconds), y1);
    QColor c = src_span >= 0 ? rgb(class_rgb(doc_->index->span_class(src_span)))
                             : rgb(class_rgb(SpanClass::kTransfer));
    c = c.darker(140);
    c.setAlpha(170);
    p.setPen(QPen(c, 1.2));
    draw_arrow(p, a, b, c);  // the head at the receiver
    ++last_arrows_;
  }
  p.restore();
}

void TimelineCanvas::paint_overlays(QPainter& p, const QRect& area) {
  p.save();
  p.setClipRect(area);
  const Trace& trace = *doc_->trace;
  auto span_box = [&](int s) -> std::optional<QRectF> {
    const TraceSpan& sp = trace.spans[static_cast<size_t>(s)];
    const int r = layout_.row_showing_stream(sp.stream);
    if (r < 0) return std::nullopt;
    const LaneRow& row = layout_.row(r);
    const int depth = row.kind == RowKind::kStream ? doc_->index->depth_of_span(s) : 0;
    const double th = layout_.track_height();
    const double x0 = area.left() + axis_.time_to_x(sp.start_seconds);
    const double x1 = area.left() + axis_.time_to_x(sp.end_seconds);
    return QRectF(x0, row_top(r) + depth * th + 1, std::max(2.0, x1 - x0), th - 2);
  };
  // Found spans: thin outlines (at most a few thousand in view).
  if (!highlight_.empty()) {
    p.setPen(QPen(QColor(0xff, 0xd4, 0x00), 2));
    const TimeWindow w = axis_.window();
    int drawn = 0;
    for (std::int32_t s : highlight_) {
      const TraceSpan& sp = trace.spans[static_cast<size_t>(s)];
      if (sp.end_seconds < w.start_seconds || sp.start_seconds > w.end_seconds) continue;
      if (auto b = span_box(s)) p.drawRect(*b);
      if (++drawn > 2000) break;
    }
  }
  // The selected range.
  if (selection_) {
    const double x0 = area.left() + axis_.time_to_x(selection_->start_seconds);
    const double x1 = area.left() + axis_.time_to_x(selection_->end_seconds);
    p.fillRect(QRectF(x0, area.top(), x1 - x0, area.height()), QColor(0x30, 0x70, 0xe0, 40));
    p.setPen(QPen(QColor(0x30, 0x70, 0xe0), 1));
    p.drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom()));
    p.drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom()));
  }
  // The selected span, and the one it waited for with an arrow between them.
  std::optional<QRectF> sel = selected_span_ >= 0 ? span_box(selected_span_) : std::nullopt;
  if (sel) {
    p.setPen(QPen(Qt::black, 2));
    p.drawRect(*sel);
  }
  if (waited_span_ >= 0 && sel) {
    if (auto wb = span_box(waited_span_)) {
      p.setRenderHint(QPainter::Antialiasing, true);
      p.setPen(QPen(Qt::black, 1.5, Qt::DashLine));
      p.drawRect(*wb);
      const QPointF a(wb->right(), wb->center().y()), b(sel->left(), sel->center().y());
      p.setPen(QPen(QColor(0x10, 0x10, 0x10), 1.8));
      draw_arrow(p, a, b, QColor(0x10, 0x10, 0x10), 9, 4);
    }
  }
  // The time cursor.
  if (cursor_ >= 0) {
    const double x = area.left() + axis_.time_to_x(cursor_);
    p.setPen(QPen(QColor(0xd0, 0x20, 0x20), 1.5));
    p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
  }
  p.restore();
}

void TimelineCanvas::paint_ruler(QPainter& p, const QRect& area) {
  const int top = kOverviewHeight;
  const QRect ruler(0, top, width(), kRulerHeight);
  p.fillRect(ruler, QColor(0xe9, 0xec, 0xf1));
  p.setPen(kGrid);
  p.drawLine(0, top + kRulerHeight - 1, width(), top + kRulerHeight - 1);
  QFont f = font();
  f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1.5));
  p.setFont(f);
  p.setPen(kText);
  const TimeWindow w = axis_.window();
  p.drawText(QRect(6, top, kLabelWidth - 10, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
             tr("view %1").arg(QString::fromStdString(format_duration(w.duration_seconds()))));
  p.save();
  p.setClipRect(QRect(area.left(), 0, area.width(), height()));
  for (const Tick& t : ruler_ticks(axis_)) {
    const double x = area.left() + t.x;
    p.setPen(kText);
    p.drawLine(QPointF(x, top + kRulerHeight - (t.major ? 9 : 4)),
               QPointF(x, top + kRulerHeight - 1));
    if (t.major)
      p.drawText(QPointF(x + 3, top + kRulerHeight - 11), QString::fromStdString(t.label));
  }
  p.restore();
}

void TimelineCanvas::paint_legend(QPainter& p) {
  const int y = height() - kLegendHeight;
  p.fillRect(QRect(0, y, width(), kLegendHeight), QColor(0xe9, 0xec, 0xf1));
  QFont f = font();
  f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1.5));
  p.setFont(f);
  const QFontMetrics fm(f);
  double x = 8;
  ClassSet present = doc_->index->classes_present();
  if (doc_->host) present |= class_bit(SpanClass::kHost);
  for (int c = 0; c < kNumSpanClasses; ++c) {
    const auto cls = static_cast<SpanClass>(c);
    if (!(present & class_bit(cls))) continue;
    const QString label = model_text(std::string(class_style(cls).label));
    p.fillRect(QRectF(x, y + 6, 12, 10), rgb(class_rgb(cls)));
    p.setPen(kText);
    p.drawText(QPointF(x + 16, y + 15), label);
    x += 16 + fm.horizontalAdvance(label) + 14;
  }
  if (!doc_->trace->transfers.empty()) {
    p.setPen(QPen(QColor(0x50, 0x50, 0x50), 1.2));
    p.drawLine(QPointF(x, y + 11), QPointF(x + 14, y + 11));
    p.drawText(QPointF(x + 18, y + 15), tr("transfer / collective step"));
  }
}

// ---- input ----------------------------------------------------------------------------

int TimelineCanvas::span_under(QPoint pos) const {
  if (!doc_ || !doc_->has_trace()) return -1;
  const QRect area = data_rect();
  if (!area.contains(pos)) return -1;
  const double y = pos.y() - kTopHeight + vscroll_->value();
  const int r = layout_.row_at(y);
  if (r < 0) return -1;
  const LaneRow& row = layout_.row(r);
  const double t = axis_.x_to_time(pos.x() - area.left());
  const double tol = 2 * axis_.seconds_per_pixel();
  const int depth = row.kind == RowKind::kStream
                        ? static_cast<int>((y - row.y) / layout_.track_height())
                        : -1;
  int best = -1;
  for (int s : layout_.streams_of_row(r))
    for (std::int32_t tk : doc_->index->tracks_of_stream(s)) {
      if (depth >= 0 && doc_->index->track(tk).depth != depth) continue;
      const std::int32_t hit = doc_->index->span_at(tk, t, tol);
      if (hit < 0) continue;
      const TraceSpan& h = doc_->trace->spans[static_cast<size_t>(hit)];
      if (h.start_seconds <= t && t <= h.end_seconds) return hit;
      if (best < 0) best = hit;
    }
  return best;
}

int TimelineCanvas::host_slice_under(QPoint pos) const {
  if (!doc_ || !doc_->has_trace() || !doc_->host) return -1;
  const QRect area = data_rect();
  if (!area.contains(pos)) return -1;
  const int r = layout_.row_at(pos.y() - kTopHeight + vscroll_->value());
  if (r < 0 || layout_.row(r).kind != RowKind::kHost) return -1;
  const double t = axis_.x_to_time(pos.x() - area.left());
  return doc_->host->slice_at(layout_.row(r).device, t, 2 * axis_.seconds_per_pixel());
}

QString TimelineCanvas::tooltip_at(QPoint pos) const {
  const int s = span_under(pos);
  if (s < 0) {
    const int h = host_slice_under(pos);
    return h < 0 ? QString() : QString::fromStdString(doc_->host->describe(h, doc_->index.get()));
  }
  QString text = QString::fromStdString(span_summary(*doc_, s));
  const TraceSpan& sp = doc_->trace->spans[static_cast<size_t>(s)];
  const double px = (sp.end_seconds - sp.start_seconds) / axis_.seconds_per_pixel();
  if (px < 2) {
    // Count what shares these pixels.
    const QRect area = data_rect();
    const double t = axis_.x_to_time(pos.x() - area.left());
    const double r = 2 * axis_.seconds_per_pixel();
    std::vector<std::int32_t> hits;
    for (std::int32_t tk : doc_->index->tracks_of_stream(sp.stream))
      doc_->index->spans_in(tk, t - r, t + r, hits);
    if (hits.size() > 1)
      text += tr("\n%1 spans share these pixels: zoom in (W) to tell them apart").arg(hits.size());
  }
  return text;
}

bool TimelineCanvas::event(QEvent* e) {
  return handle_tooltip(this, e, [this](QPoint pos) { return tooltip_at(pos); }) ||
         QWidget::event(e);
}

void TimelineCanvas::wheelEvent(QWheelEvent* e) {
  const QRect area = data_rect();
  const double notches = e->angleDelta().y() / 120.0;
  if (e->modifiers() & Qt::ControlModifier) {
    const double x = std::clamp(e->position().x() - area.left(), 0.0, double(area.width()));
    axis_.zoom(std::pow(kZoomStep, notches), x);
    changed();
  } else if ((e->modifiers() & Qt::ShiftModifier) || e->angleDelta().x() != 0) {
    const double dx = e->angleDelta().x() != 0 ? -e->angleDelta().x() / 120.0 : -notches;
    axis_.pan_pixels(dx * kPanFraction * axis_.width_pixels());
    changed();
  } else {
    vscroll_->setValue(vscroll_->value() -
                       static_cast<int>(notches * 3 * layout_.track_height()));
  }
  e->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* e) {
  setFocus();
  const QPoint pos = e->position().toPoint();
  if (pos.y() < kOverviewHeight && pos.x() >= kLabelWidth) {
    drag_ = Drag::kOverview;
    center_on_overview(pos.x());
    return;
  }
  if (pos.x() < kLabelWidth && pos.y() > kTopHeight && pos.y() < height() - kLegendHeight) {
    const int r = layout_.row_at(pos.y() - kTopHeight + vscroll_->value());
    if (r >= 0 && layout_.row(r).kind != RowKind::kStream) {
      layout_.toggle(r);
      update_scroll();
      update();
    }
    return;
  }
  drag_from_ = pos;
  drag_window_ = axis_.window();
  if (e->button() == Qt::LeftButton && !(e->modifiers() & Qt::ShiftModifier))
    drag_ = Drag::kSelect;
  else
    drag_ = Drag::kPan;
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  const QRect area = data_rect();
  if (drag_ == Drag::kOverview) {
    center_on_overview(pos.x());
  } else if (drag_ == Drag::kPan) {
    axis_.set_window(drag_window_);
    axis_.pan_pixels(drag_from_.x() - pos.x());
    changed();
  } else if (drag_ == Drag::kSelect && std::abs(pos.x() - drag_from_.x()) >= 3) {
    const double a = axis_.x_to_time(drag_from_.x() - area.left());
    const double b = axis_.x_to_time(pos.x() - area.left());
    selection_ = TimeWindow{std::min(a, b), std::max(a, b)};
    update();
  }
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  const QRect area = data_rect();
  if (drag_ == Drag::kSelect) {
    if (std::abs(pos.x() - drag_from_.x()) < 3) {
      // A click: pick the span and move the cursor.
      selection_.reset();
      emit range_selected(1, 0);
      if (area.contains(pos)) {
        cursor_ = axis_.x_to_time(pos.x() - area.left());
        emit time_clicked(cursor_);
      }
      select_span(span_under(pos), false);
    } else if (selection_) {
      emit range_selected(selection_->start_seconds, selection_->end_seconds);
    }
  }
  drag_ = Drag::kNone;
  update();
}

void TimelineCanvas::mouseDoubleClickEvent(QMouseEvent* e) {
  const int s = span_under(e->position().toPoint());
  if (s < 0) return;
  select_span(s, false);
  zoom_to_selection();
}

void TimelineCanvas::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoom_in();
      break;
    case Qt::Key_S:
    case Qt::Key_Minus:
      zoom_out();
      break;
    case Qt::Key_A:
    case Qt::Key_Left:
      pan_left();
      break;
    case Qt::Key_D:
    case Qt::Key_Right:
      pan_right();
      break;
    case Qt::Key_Z:
    case Qt::Key_M:
      zoom_to_selection();
      break;
    case Qt::Key_Backspace:
      zoom_back();
      break;
    case Qt::Key_0:
    case Qt::Key_Home:
      show_all();
      break;
    case Qt::Key_Up:
      vscroll_->setValue(vscroll_->value() - 40);
      break;
    case Qt::Key_Down:
      vscroll_->setValue(vscroll_->value() + 40);
      break;
    case Qt::Key_Escape:
      selection_.reset();
      emit range_selected(1, 0);
      select_span(-1, false);
      break;
    default:
      QWidget::keyPressEvent(e);
      return;
  }
  e->accept();
}

}  // namespace brigade::gui
