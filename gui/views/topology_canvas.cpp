#include "gui/views/topology_canvas.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include "core/units.hpp"
#include "gui/model/palette.hpp"
#include "gui/model/ruler.hpp"
#include "gui/model/topology_summary.hpp"
#include "gui/views/paint_util.hpp"

namespace brigade::gui {

namespace {

const QColor kBackground(0xfa, 0xfa, 0xfa);
const QColor kText(0x20, 0x24, 0x2a);
constexpr int kLegendHeight = 26;

QColor rgb(std::uint32_t c) { return QColor::fromRgb(c); }

// Distance from p to the segment ab.
double segment_distance(QPointF p, QPointF a, QPointF b) {
  const QPointF d = b - a;
  const double len2 = d.x() * d.x() + d.y() * d.y();
  double t = len2 > 0 ? ((p.x() - a.x()) * d.x() + (p.y() - a.y()) * d.y()) / len2 : 0;
  t = std::clamp(t, 0.0, 1.0);
  const QPointF q = a + d * t;
  return std::hypot(p.x() - q.x(), p.y() - q.y());
}

}  // namespace

TopologyCanvas::TopologyCanvas(QWidget* parent) : QWidget(parent) {
  setMinimumSize(320, 240);
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setFocusPolicy(Qt::ClickFocus);
}

void TopologyCanvas::set_document(DocumentPtr doc) {
  doc_ = std::move(doc);
  device_streams_.clear();
  time_ = 0;
  focus_node_ = -1;
  if (doc_ && doc_->topology() && doc_->has_trace()) {
    device_streams_.resize(static_cast<size_t>(doc_->topology()->num_devices()));
    for (size_t s = 0; s < doc_->trace->streams.size(); ++s) {
      const int d = doc_->trace->streams[s].device;
      if (d >= 0 && d < static_cast<int>(device_streams_.size()) &&
          !doc_->index->tracks_of_stream(static_cast<int>(s)).empty())
        device_streams_[static_cast<size_t>(d)].push_back(static_cast<int>(s));
    }
  }
  relayout();
  update();
}

void TopologyCanvas::set_time_seconds(double t) {
  time_ = t;
  update();
}

void TopologyCanvas::set_whole_step(bool on) {
  whole_step_ = on;
  update();
}

void TopologyCanvas::resizeEvent(QResizeEvent*) { relayout(); }

void TopologyCanvas::relayout() {
  if (!doc_ || !doc_->topology()) return;
  const QRectF a = area();
  layout_ = layout_topology(*doc_->topology(), a.width() / std::max(1.0, a.height()), 16,
                            focus_node_);
}

void TopologyCanvas::set_focus_node(int node) {
  focus_node_ = doc_ && doc_->topology() && node >= 0 && node < doc_->topology()->num_nodes()
                    ? node
                    : -1;
  relayout();
  update();
}

QRectF TopologyCanvas::node_rect(int node) const {
  const QRectF a = area();
  for (const NodeBox& b : layout_.nodes)
    if (b.node == node)
      return {a.left() + b.x0 * a.width(), a.top() + b.y0 * a.height(), (b.x1 - b.x0) * a.width(),
              (b.y1 - b.y0) * a.height()};
  return {};
}

int TopologyCanvas::node_at(QPointF pos) const {
  if (!doc_ || !doc_->topology()) return -1;
  for (const NodeBox& b : layout_.nodes)
    if (node_rect(b.node).contains(pos)) return b.node;
  return -1;
}

void TopologyCanvas::mousePressEvent(QMouseEvent* e) {
  setFocus();
  if (e->button() == Qt::LeftButton && layout_.aggregated) {
    const int n = node_at(e->position());
    if (n >= 0) emit node_clicked(n);
  }
  QWidget::mousePressEvent(e);
}

void TopologyCanvas::keyPressEvent(QKeyEvent* e) {
  if ((e->key() == Qt::Key_Escape || e->key() == Qt::Key_Backspace) && focus_node_ >= 0) {
    emit back_requested();
    return;
  }
  QWidget::keyPressEvent(e);
}

void TopologyCanvas::wheelEvent(QWheelEvent* e) {
  // Zoom as a user of a map expects: in over a node expands it, out returns.
  if (e->modifiers() & Qt::ControlModifier) {
    if (e->angleDelta().y() > 0 && layout_.aggregated) {
      const int n = node_at(e->position());
      if (n >= 0) emit node_clicked(n);
    } else if (e->angleDelta().y() < 0 && focus_node_ >= 0) {
      emit back_requested();
    }
    e->accept();
    return;
  }
  QWidget::wheelEvent(e);
}

QRectF TopologyCanvas::area() const {
  return QRectF(8, 26, std::max(1, width() - 16), std::max(1, height() - 26 - kLegendHeight - 4));
}

QPointF TopologyCanvas::at(int vertex) const {
  const QRectF a = area();
  const Point2 p = layout_.vertex[static_cast<size_t>(vertex)];
  return {a.left() + p.x * a.width(), a.top() + p.y * a.height()};
}

QRectF TopologyCanvas::device_rect(int device) const {
  const double s = std::clamp(layout_.device_size * area().width(), 4.0, 64.0);
  const QPointF c = at(device);
  return {c.x() - s / 2, c.y() - s / 2, s, s};
}

std::pair<int, int> TopologyCanvas::window_bins() const {
  const TopologyUsage& u = *doc_->usage;
  if (whole_step_) return {0, u.bins() - 1};
  const int b = u.bin_of(time_);
  return {b - 1, b + 1};  // about 1% of the step at 256 bins
}

int TopologyCanvas::collective_at(int device) const {
  if (device < 0 || device >= static_cast<int>(device_streams_.size())) return -1;
  for (int s : device_streams_[static_cast<size_t>(device)])
    for (std::int32_t t : doc_->index->tracks_of_stream(s)) {
      const std::int32_t hit = doc_->index->span_at(t, time_, 0);
      if (hit >= 0 && doc_->trace->spans[static_cast<size_t>(hit)].kind == TaskKind::kCollective)
        return hit;
    }
  return -1;
}

void TopologyCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), kBackground);
  p.setRenderHint(QPainter::Antialiasing, true);
  last_packets_ = last_collective_labels_ = 0;
  if (!doc_ || !doc_->topology() || !doc_->usage) {
    p.setPen(kText);
    p.drawText(rect(), Qt::AlignCenter,
               doc_ ? tr("A trace file carries no topology: open its scenario to see the cluster.")
                    : tr("Open a scenario to see its cluster."));
    return;
  }
  const Topology& t = *doc_->topology();
  const auto [b0, b1] = window_bins();
  const TopologyUsage& u = *doc_->usage;
  // Header: the time and the window the colours cover.
  p.setPen(kText);
  const double lo = u.start_seconds() + std::max(0, b0) * u.bin_seconds();
  const double hi = u.start_seconds() + (std::min(b1, u.bins() - 1) + 1) * u.bin_seconds();
  const QString where = focus_node_ >= 0 ? tr("node %1 of %2 (Esc: all nodes) — ")
                                                .arg(focus_node_)
                                                .arg(t.num_nodes())
                                          : layout_.aggregated
                                                ? tr("click a node to expand it — ")
                                                : QString();
  p.drawText(QRectF(8, 2, width() - 16, 22), Qt::AlignVCenter | Qt::AlignLeft,
             where + (whole_step_ ? tr("%1: %2 devices, %3 links — utilisation over the whole step (%4)")
                               .arg(QString::fromStdString(t.preset))
                               .arg(t.num_devices())
                               .arg(t.links().size())
                               .arg(QString::fromStdString(format_duration(hi - lo)))
                         : tr("%1: %2 devices, %3 links — t = %4, utilisation over %5 to %6")
                               .arg(QString::fromStdString(t.preset))
                               .arg(t.num_devices())
                               .arg(t.links().size())
                               .arg(QString::fromStdString(format_duration(time_)),
                                    QString::fromStdString(format_duration(lo)),
                                    QString::fromStdString(format_duration(hi)))));
  // Node boxes.
  QFont small = font();
  small.setPointSizeF(std::max(6.5, small.pointSizeF() - 2));
  p.setFont(small);
  const QRectF a = area();
  for (const NodeBox& b : layout_.nodes) {
    const QRectF r(a.left() + b.x0 * a.width(), a.top() + b.y0 * a.height(),
                   (b.x1 - b.x0) * a.width(), (b.y1 - b.y0) * a.height());
    p.setPen(QPen(QColor(0xb8, 0xbe, 0xc8), 1));
    p.setBrush(QColor(0xee, 0xf1, 0xf5));
    p.drawRoundedRect(r, 4, 4);
    if (r.width() > 40 && t.num_nodes() > 1 && !layout_.aggregated) {
      p.setPen(QColor(0x60, 0x66, 0x70));
      p.drawText(r.adjusted(4, layout_.aggregated ? 5 : 1, 0, 0), Qt::AlignTop | Qt::AlignLeft,
                 tr("node %1").arg(b.node));
    }
  }
  paint_links(p, b0, b1);
  // Packets where they can be followed: not in the aggregated picture,
  // whose nodes are too small for them (its frames and bars animate).
  if (!whole_step_ && !layout_.aggregated) paint_packets(p);
  paint_devices(p, b0, b1);
  if (layout_.aggregated) paint_node_summaries(p, b0, b1);
  paint_legend(p);
}

void TopologyCanvas::paint_links(QPainter& p, int b0, int b1) {
  const Topology& t = *doc_->topology();
  const TopologyUsage& u = *doc_->usage;
  // Width by capacity, in log scale between the thinnest and the widest link.
  double cmin = INFINITY, cmax = 0;
  for (int c = 0; c < t.num_channels(); ++c) {
    const double cap = u.channel_capacity_bytes_per_second(c);
    if (cap > 0) {
      cmin = std::min(cmin, cap);
      cmax = std::max(cmax, cap);
    }
  }
  auto width_of = [&](double cap) {
    if (!(cap > 0) || !(cmax > cmin)) return 2.5;
    return 1.0 + 5.0 * std::log(cap / cmin) / std::log(cmax / cmin);
  };
  auto draw = [&](QPointF a, QPointF b, double cap, double util) {
    QColor c = rgb(utilisation_rgb(util));
    p.setPen(QPen(c, width_of(cap), Qt::SolidLine, Qt::RoundCap));
    p.drawLine(a, b);
  };
  if (!layout_.aggregated) {
    for (size_t l = 0; l < t.links().size(); ++l) {
      const Link& k = t.links()[l];
      if (!drawn(layout_, k.a) || !drawn(layout_, k.b)) continue;
      draw(at(k.a), at(k.b), u.channel_capacity_bytes_per_second(channel_of(static_cast<int>(l), false)),
           u.link_utilisation(static_cast<int>(l), b0, b1));
    }
    return;
  }
  // Aggregated: the links inside a node colour its box's frame; the links
  // out of a node to each switch beyond it become one bundle.
  auto node_of_vertex = [&](int v) {
    return v < t.num_devices() ? t.device(v).node : t.switches()[static_cast<size_t>(v - t.num_devices())].node;
  };
  std::map<std::pair<int, int>, std::pair<double, double>> bundles;  // (node, vertex) -> (bytes, cap)
  std::map<int, double> inside;                                     // node -> busiest link
  for (size_t l = 0; l < t.links().size(); ++l) {
    const Link& k = t.links()[l];
    const int na = node_of_vertex(k.a), nb = node_of_vertex(k.b);
    const double util = u.link_utilisation(static_cast<int>(l), b0, b1);
    if (na == nb && na >= 0) {
      inside[na] = std::max(inside[na], util);
      continue;
    }
    const int node = na >= 0 ? na : nb;
    const int far = na >= 0 ? k.b : k.a;
    auto& [bytes, cap] = bundles[{node, far}];
    const ChannelId c0 = channel_of(static_cast<int>(l), false), c1 = channel_of(static_cast<int>(l), true);
    bytes += std::max(u.channel_bytes(c0, b0, b1), u.channel_bytes(c1, b0, b1));
    cap += u.channel_capacity_bytes_per_second(c0);
  }
  const QRectF a = area();
  const double time = (std::min(b1, u.bins() - 1) - std::max(0, b0) + 1) * u.bin_seconds();
  // Each node's uplinks as a bar along the top of its box (lines to the
  // fabric from a hundred nodes would hide the nodes).
  std::map<int, std::pair<double, double>> uplink;  // node -> (bytes, capacity)
  for (const auto& [key, v] : bundles) {
    uplink[key.first].first += v.first;
    uplink[key.first].second += v.second;
  }
  for (const auto& [node, v] : uplink) {
    if (node < 0) continue;
    const NodeBox& b = layout_.nodes[static_cast<size_t>(node)];
    const QRectF r(a.left() + b.x0 * a.width(), a.top() + b.y0 * a.height(),
                   (b.x1 - b.x0) * a.width(), 5);
    p.fillRect(r, rgb(utilisation_rgb(v.second > 0 && time > 0 ? v.first / (v.second * time) : 0)));
  }
  for (const auto& [node, util] : inside) {
    const NodeBox& b = layout_.nodes[static_cast<size_t>(node)];
    const QRectF r(a.left() + b.x0 * a.width(), a.top() + b.y0 * a.height(),
                   (b.x1 - b.x0) * a.width(), (b.y1 - b.y0) * a.height());
    p.setPen(QPen(rgb(utilisation_rgb(util)), 2.5));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(r, 4, 4);
  }
}

void TopologyCanvas::paint_packets(QPainter& p) {
  const Topology& t = *doc_->topology();
  std::vector<std::int32_t> xs;
  doc_->index->transfers_in(time_, time_, xs);
  if (static_cast<int>(xs.size()) > kMaxPackets) xs.resize(kMaxPackets);
  for (std::int32_t i : xs) {
    const TraceTransfer& x = doc_->trace->transfers[static_cast<size_t>(i)];
    if (x.src == x.dst || x.src < 0 || x.dst < 0 || x.src >= t.num_devices() || x.dst >= t.num_devices())
      continue;
    const Route& r = t.route(x.src, x.dst);
    // The route's vertices; where a focused layout leaves some out, the
    // packet is drawn only while it is on a hop between two drawn ones.
    std::vector<int> hops{x.src};
    for (ChannelId c : r.channels) hops.push_back(t.channel_to(c));
    const double d = x.end_seconds - x.start_seconds;
    const double f = std::clamp(d > 0 ? (time_ - x.start_seconds) / d : 1.0, 0.0, 1.0);
    const double along = f * static_cast<double>(hops.size() - 1);
    const size_t k = std::min(hops.size() - 2, static_cast<size_t>(along));
    if (hops.size() < 2 || !drawn(layout_, hops[k]) || !drawn(layout_, hops[k + 1])) continue;
    const QPointF pos = at(hops[k]) + (at(hops[k + 1]) - at(hops[k])) * (along - k);
    const std::int32_t span = doc_->index->span_of_task(x.task);
    const QColor c = span >= 0 ? rgb(class_rgb(doc_->index->span_class(span)))
                               : rgb(class_rgb(SpanClass::kTransfer));
    p.setPen(QPen(c.darker(150), 1));
    p.setBrush(c);
    p.drawEllipse(pos, 3.5, 3.5);
    ++last_packets_;
  }
}

void TopologyCanvas::paint_devices(QPainter& p, int b0, int b1) {
  const Topology& t = *doc_->topology();
  const TopologyUsage& u = *doc_->usage;
  QFont small = font();
  small.setPointSizeF(std::max(6.5, small.pointSizeF() - 2));
  p.setFont(small);
  const QFontMetrics fm(small);
  const QColor busy = rgb(class_rgb(SpanClass::kForward));
  // Switches: grey rounded squares, named where there is room.
  for (size_t s = 0; s < t.switches().size(); ++s) {
    if (!drawn(layout_, t.num_devices() + static_cast<int>(s))) continue;
    // Aggregated: a node's own switch is its frame (the summary takes its place).
    if (layout_.aggregated && t.switches()[s].node >= 0) continue;
    const QPointF c = at(t.num_devices() + static_cast<int>(s));
    const double r = std::max(4.0, layout_.device_size * area().width() * 0.4);
    p.setPen(QPen(QColor(0x55, 0x5b, 0x66), 1));
    p.setBrush(QColor(0x8a, 0x92, 0x9e));
    p.drawRoundedRect(QRectF(c.x() - r, c.y() - r / 2, 2 * r, r), 2, 2);
    if (!layout_.aggregated || t.switches()[s].node < 0) {
      p.setPen(kText);
      p.drawText(QPointF(c.x() + r + 3, c.y() + fm.ascent() / 2.0),
                 QString::fromStdString(t.switches()[s].name));
    }
  }
  for (const Device& d : t.devices()) {
    if (!drawn(layout_, d.id)) continue;
    const QRectF r = device_rect(d.id);
    const double occ = u.device_occupancy(d.id, b0, b1);
    p.setPen(Qt::NoPen);
    p.setBrush(Qt::white);
    p.drawRect(r);
    p.setBrush(busy);
    p.drawRect(QRectF(r.left(), r.bottom() - occ * r.height(), r.width(), occ * r.height()));
    const int coll = whole_step_ ? -1 : collective_at(d.id);
    const QColor frame = coll >= 0 ? rgb(class_rgb(doc_->index->span_class(coll))) : QColor(0x40, 0x44, 0x4c);
    p.setPen(QPen(frame, coll >= 0 ? 2.5 : 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
    if (r.width() >= 26) {
      p.setPen(kText);
      const QString name = QString::fromStdString(d.name.substr(d.name.rfind('/') + 1));
      p.drawText(QRectF(r.left() - 20, r.bottom() + 1, r.width() + 40, fm.height()),
                 Qt::AlignHCenter | Qt::AlignTop, name);
      if (coll >= 0) {
        const std::string& n = doc_->trace->names[static_cast<size_t>(
            std::max<NameId>(0, doc_->trace->spans[static_cast<size_t>(coll)].name))];
        p.setPen(frame.darker(130));
        p.drawText(QRectF(r.left() - 30, r.bottom() + 1 + fm.height(), r.width() + 60, fm.height()),
                   Qt::AlignHCenter | Qt::AlignTop,
                   fm.elidedText(QString::fromStdString(n), Qt::ElideRight,
                                 static_cast<int>(r.width() + 60)));
        ++last_collective_labels_;
      }
    }
  }
}

// Aggregated: each node box says its name and mean occupancy on its top
// line, and the collective most of its devices are in along its bottom
// (in the kind's colour, with how many of its devices), where the
// devices' own labels would not fit.
void TopologyCanvas::paint_node_summaries(QPainter& p, int b0, int b1) {
  const Topology& t = *doc_->topology();
  const std::vector<NodeSummary> sums = node_summaries(
      t, *doc_->usage, b0, b1,
      [this](int d) { return whole_step_ ? -1 : collective_at(d); }, *doc_->trace);
  QFont small = font();
  small.setPointSizeF(std::max(6.5, small.pointSizeF() - 2));
  p.setFont(small);
  const QFontMetrics fm(small);
  for (const NodeSummary& s : sums) {
    const QRectF r = node_rect(s.node);
    if (r.width() < 30) continue;
    p.setPen(QColor(0x40, 0x46, 0x50));
    const QString head = fm.elidedText(
        tr("node %1 · %2%").arg(s.node).arg(100 * s.occupancy, 0, 'f', 0), Qt::ElideRight,
        static_cast<int>(r.width() - 6));
    p.drawText(r.adjusted(4, 6, -2, 0), Qt::AlignTop | Qt::AlignLeft, head);
    if (s.collective_span < 0) continue;
    const QColor c = rgb(class_rgb(doc_->index->span_class(s.collective_span)));
    p.setPen(c.darker(140));
    QString line = QString::fromStdString(s.collective_name);
    if (s.in_collective < s.devices) line += QStringLiteral(" ×%1").arg(s.in_collective);
    p.drawText(r.adjusted(4, 0, -2, -3), Qt::AlignBottom | Qt::AlignLeft,
               fm.elidedText(line, Qt::ElideRight, static_cast<int>(r.width() - 6)));
    ++last_collective_labels_;
  }
}

void TopologyCanvas::paint_legend(QPainter& p) {
  const double y = height() - kLegendHeight;
  QFont small = font();
  small.setPointSizeF(std::max(6.5, small.pointSizeF() - 1.5));
  p.setFont(small);
  p.setPen(kText);
  double x = 8;
  p.drawText(QPointF(x, y + 16), tr("link utilisation"));
  x += QFontMetrics(small).horizontalAdvance(tr("link utilisation")) + 6;
  for (int i = 0; i <= 40; ++i)
    p.fillRect(QRectF(x + i * 3, y + 6, 3, 12), rgb(utilisation_rgb(i / 40.0)));
  p.drawText(QPointF(x + 126, y + 16), tr("100%  (width: capacity)"));
  x += 126 + QFontMetrics(small).horizontalAdvance(tr("100%  (width: capacity)")) + 20;
  p.fillRect(QRectF(x, y + 6, 12, 12), rgb(class_rgb(SpanClass::kForward)));
  p.drawText(QPointF(x + 16, y + 16), tr("device fill: compute occupancy"));
  x += 16 + QFontMetrics(small).horizontalAdvance(tr("device fill: compute occupancy")) + 20;
  p.setPen(QPen(rgb(class_rgb(SpanClass::kAllReduce)), 2.5));
  p.drawRect(QRectF(x, y + 6, 12, 12));
  p.setPen(kText);
  const QString frame = layout_.aggregated
                            ? tr("frame: collective in flight; node frame: its NVLink, top bar: its "
                                 "uplinks; click a node for its packets")
                            : tr("frame: collective in flight (its kind's colour); dots: packets");
  p.drawText(QPointF(x + 16, y + 16), frame);
}

QString TopologyCanvas::tooltip_at(QPointF pos) const {
  if (!doc_ || !doc_->topology() || !doc_->usage) return {};
  const Topology& t = *doc_->topology();
  const TopologyUsage& u = *doc_->usage;
  const auto [b0, b1] = window_bins();
  for (const Device& d : t.devices())
    if (drawn(layout_, d.id) && device_rect(d.id).adjusted(-2, -2, 2, 2).contains(pos)) {
      QString s = tr("%1 (%2)\ncompute occupancy %3%")
                      .arg(QString::fromStdString(d.name), QString::fromStdString(d.model))
                      .arg(100 * u.device_occupancy(d.id, b0, b1), 0, 'f', 0);
      const int c = collective_at(d.id);
      if (c >= 0)
        s += tr("\nin flight: %1").arg(QString::fromStdString(
                 doc_->trace->names[static_cast<size_t>(std::max<NameId>(0, doc_->trace->spans[static_cast<size_t>(c)].name))]));
      return s;
    }
  if (layout_.aggregated) {
    const int n = node_at(pos);
    if (n < 0) return {};
    const NodeSummary s = node_summaries(t, u, b0, b1, [this](int d) { return collective_at(d); },
                                         *doc_->trace)[static_cast<size_t>(n)];
    QString text = tr("node %1: %2 devices, compute occupancy %3%\nlinks out of the node: %4%")
                       .arg(n)
                       .arg(s.devices)
                       .arg(100 * s.occupancy, 0, 'f', 0)
                       .arg(100 * s.uplink_utilisation, 0, 'f', 1);
    if (s.collective_span >= 0)
      text += tr("\nin flight on %1 of its devices: %2")
                  .arg(s.in_collective)
                  .arg(QString::fromStdString(s.collective_name));
    return text + tr("\nclick (or Ctrl+wheel) to expand");
  }
  for (size_t l = 0; l < t.links().size(); ++l) {
    const Link& k = t.links()[l];
    if (!drawn(layout_, k.a) || !drawn(layout_, k.b)) continue;
    if (segment_distance(pos, at(k.a), at(k.b)) > 4) continue;
    const int c0 = channel_of(static_cast<int>(l), false);
    return tr("%1\ncapacity %2 each way (%3)\nutilisation %4% (%5 carried)")
        .arg(QString::fromStdString(k.name.empty() ? t.vertex_name(k.a) + " <-> " + t.vertex_name(k.b) : k.name),
             QString::fromStdString(format_bandwidth(u.channel_capacity_bytes_per_second(c0))),
             QString::fromStdString(std::string(link_class_name(k.link_class))))
        .arg(100 * u.link_utilisation(static_cast<int>(l), b0, b1), 0, 'f', 1)
        .arg(QString::fromStdString(format_bytes(u.channel_bytes(c0, b0, b1) +
                                                 u.channel_bytes(c0 + 1, b0, b1))));
  }
  return {};
}

bool TopologyCanvas::event(QEvent* e) {
  return handle_tooltip(this, e, [this](QPoint pos) { return tooltip_at(pos); }) ||
         QWidget::event(e);
}

}  // namespace brigade::gui
