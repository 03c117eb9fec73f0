#include "gui/views/teach_canvas.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <QCoreApplication>
#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>
#include <QTextLayout>

#include "core/units.hpp"
#include "gui/model/memory_series.hpp"
#include "gui/views/paint_util.hpp"
#include "gui/views/teach_paint.hpp"

namespace brigade::gui {

namespace {

using namespace teach_paint;

constexpr int kParts = kNumStationParts;

// The lines `s` takes at `width` in `font`, broken anywhere (Chinese
// breaks between any two characters; English words whole where they fit).
std::vector<QString> layout_lines(const QFont& font, const QString& s, double width,
                                  QPaintDevice* device) {
  QTextLayout layout(s, font, device);
  QTextOption o;
  o.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  layout.setTextOption(o);
  std::vector<QString> lines;
  layout.beginLayout();
  for (QTextLine l = layout.createLine(); l.isValid(); l = layout.createLine()) {
    l.setLineWidth(width);
    lines.push_back(s.mid(l.textStart(), l.textLength()).trimmed());
  }
  layout.endLayout();
  return lines;
}

// The lines `s` breaks into at `width`: after a comma or semicolon first
// (a role's parts, "张量 0/1，数据 0/8，" | "流水线 0/1", a summary's
// clauses), anywhere only in a part wider than a line.
std::vector<QString> wrap_lines(const QFont& font, const QString& s, double width,
                                QPaintDevice* device) {
  static const QRegularExpression after_comma(QString::fromUtf8("(?<=[，；,;])\\s*"));
  const QFontMetricsF fm(font, device);  // the painter's, not the screen's
  std::vector<QString> lines;
  QString line;
  for (const QString& part : s.split(after_comma, Qt::SkipEmptyParts)) {
    const QString joined =
        line.isEmpty() ? part : line + (line.back().unicode() < 128 ? " " : "") + part;
    if (fm.horizontalAdvance(joined) <= width - 2) {  // text_in elides at whole pixels
      line = joined;
      continue;
    }
    if (!line.isEmpty()) lines.push_back(line);
    std::vector<QString> pieces = layout_lines(font, part, width, device);
    if (pieces.empty()) pieces.push_back(part);
    for (size_t i = 0; i + 1 < pieces.size(); ++i) lines.push_back(pieces[i]);
    line = pieces.back();
  }
  if (!line.isEmpty()) lines.push_back(line);
  return lines;
}

// How many lines `s` needs at `width` in the painter's font, at most `most`.
int lines_needed(QPainter& p, const QString& s, double width, int most) {
  return std::clamp(static_cast<int>(wrap_lines(p.font(), s, width, p.device()).size()), 1, most);
}

// Text in a box on up to `most` lines (the last one elided): the head chef's
// plan and a chef's role, which do not fit one line in every plan.
void wrapped_in(QPainter& p, const QRectF& r, const QString& s, int most) {
  std::vector<QString> lines = wrap_lines(p.font(), s, r.width(), p.device());
  if (lines.empty()) return;
  if (static_cast<int>(lines.size()) > most) {
    QString rest;
    for (size_t i = static_cast<size_t>(most) - 1; i < lines.size(); ++i)
      rest += (!rest.isEmpty() && rest.back().unicode() < 128 ? " " : "") + lines[i];
    lines.resize(static_cast<size_t>(most));
    lines.back() = rest;
  }
  const double h = p.fontMetrics().height();
  double y = r.center().y() - h * static_cast<double>(lines.size()) / 2;
  for (const QString& l : lines) {
    text_in(p, QRectF(r.left(), y, r.width(), h), l, Qt::AlignHCenter | Qt::AlignVCenter);
    y += h;
  }
}

// What a communication is for (the closed form's purposes, the data's words
// in English), in the app's language.
QString purpose_text(const std::string& purpose) {
  static const char* const kPurposes[] = {
      QT_TRANSLATE_NOOP("Purpose", "data"),           QT_TRANSLATE_NOOP("Purpose", "tensor"),
      QT_TRANSLATE_NOOP("Purpose", "pipeline"),       QT_TRANSLATE_NOOP("Purpose", "expert"),
      QT_TRANSLATE_NOOP("Purpose", "expert data"),    QT_TRANSLATE_NOOP("Purpose", "sequence"),
      QT_TRANSLATE_NOOP("Purpose", "tied embedding"), QT_TRANSLATE_NOOP("Purpose", "zero-3 params"),
      QT_TRANSLATE_NOOP("Purpose", "sharding"),       QT_TRANSLATE_NOOP("Purpose", "transfer"),
      QT_TRANSLATE_NOOP("Purpose", "collective"),     QT_TRANSLATE_NOOP("Purpose", "fp8 amax")};
  for (const char* k : kPurposes)
    if (purpose == k) return QCoreApplication::translate("Purpose", k);
  return q(purpose);
}

}  // namespace

TeachCanvas::TeachCanvas(QWidget* parent) : QWidget(parent) {
  setMinimumSize(480, 300);
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
}

void TeachCanvas::set_scene(const TeachScene* scene) {
  scene_ = scene;
  update();
}

void TeachCanvas::set_step(TeachStep step, double progress) {
  step_ = step;
  progress_ = std::clamp(progress, 0.0, 1.0);
  update();
}

QColor TeachCanvas::chef_colour(int index) {
  static const int hues[] = {210, 25, 130, 280, 355, 175, 50, 320};
  return QColor::fromHsv(hues[((index % 8) + 8) % 8], 120, 235);
}

QColor TeachCanvas::part_colour(int k) {
  return QColor::fromRgb(memory_category_rgb(kStationParts[static_cast<size_t>(k)]));
}

QString TeachCanvas::chef_name(int device) const {
  if (scene_)
    for (const TeachChef& c : scene_->chefs)
      if (c.device == device) return q(c.name);
  return tr("device %1").arg(device);
}

void TeachCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(kInk);
  QRectF r = QRectF(rect()).adjusted(16, 10, -16, -10);
  if (!scene_) {
    set_font(p, 14);
    p.setPen(kMuted);
    p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap,
               tr("Open a scenario to see its plan told as a kitchen: chefs (devices), their "
                  "stations (memory), runners (links) and the head chef (the planner)."));
    return;
  }
  switch (teach_mode_of(step_)) {
    case TeachMode::kOverview:
      paint_overview(p, r);
      break;
    case TeachMode::kTransfer:
      paint_transfer(p, r);
      break;
    case TeachMode::kTransform:
      paint_transform(p, r);
      break;
    case TeachMode::kOutput:
      paint_output(p, r);
      break;
    case TeachMode::kPmap:
      paint_pmap(p, r);
      break;
  }
}

void TeachCanvas::paint_title(QPainter& p, QRectF& r, const QString& title,
                              const QString& subtitle) {
  set_font(p, 15, true);
  p.setPen(kInk);
  const double h = p.fontMetrics().height() + 4;
  text_in(p, QRectF(r.left(), r.top(), r.width(), h), title);
  set_font(p, 10);
  p.setPen(kMuted);
  const double h2 = p.fontMetrics().height() + 2;
  text_in(p, QRectF(r.left(), r.top() + h, r.width(), h2), subtitle);
  p.setPen(kInk);
  r.setTop(r.top() + h + h2 + 8);
}

QRectF TeachCanvas::paint_chef(QPainter& p, QRectF box, int index, const QString& name,
                               bool active) {
  const QColor c = chef_colour(index);
  const QColor fill = active ? QColor::fromHsv(c.hue(), 38, 252) : QColor(0xf0, 0xf0, 0xf0);
  const QColor edge = active ? c.darker(135) : QColor(0xb8, 0xb8, 0xb8);
  // The toque: a puffed white hat on a band, above the box.
  const double hat_w = std::min(box.width() * 0.36, 40.0), hat_h = hat_w * 0.5;
  const QRectF band(box.center().x() - hat_w * 0.32, box.top() - hat_h * 0.45, hat_w * 0.64,
                    hat_h * 0.45);
  const QRectF puff(box.center().x() - hat_w / 2, band.top() - hat_h * 0.7, hat_w, hat_h);
  p.setPen(QPen(edge, 1));
  p.setBrush(Qt::white);
  p.drawEllipse(puff);
  p.drawRect(band);
  p.setBrush(fill);
  p.setPen(QPen(edge, 1.5));
  p.drawRoundedRect(box, 8, 8);
  p.fillRect(QRectF(box.left() + 1, box.top() + 1, 6, box.height() - 2), active ? c : edge);
  set_font(p, 10.5, true);
  p.setPen(kInk);
  text_in(p, QRectF(box.left() + 8, box.top() + 4, box.width() - 16, 20), name,
          Qt::AlignHCenter | Qt::AlignVCenter);
  return box;
}

void TeachCanvas::paint_overview(QPainter& p, QRectF r) {
  const TeachScene& s = *scene_;
  paint_title(p, r, tr("The kitchen: %1").arg(q(s.title)),
              tr("Chefs are devices, their stations the memory, runners the links, the sauce "
                 "bowl AllReduce; the head chef (XLA: the planner) wrote the plan."));
  // The head chef, its plan on up to three lines when one does not hold it.
  const double head_w = std::min(r.width() * 0.7, 980.0);
  set_font(p, 10);
  const QString summary = q(s.summary);
  const int plan_lines = lines_needed(p, summary, head_w - 24, 3);
  const double plan_h = p.fontMetrics().height() * plan_lines;
  const QRectF head(r.center().x() - head_w / 2, r.top(), head_w, 48 + std::max(18.0, plan_h));
  p.setBrush(QColor(0xfb, 0xf3, 0xe0));
  p.setPen(QPen(QColor(0xb0, 0x8a, 0x3a), 1.5));
  p.drawRoundedRect(head, 10, 10);
  set_font(p, 11, true);
  p.setPen(kInk);
  text_in(p, QRectF(head.left() + 12, head.top() + 4, head.width() - 24, 18),
          tr("Head chef (XLA, the planner)"), Qt::AlignHCenter | Qt::AlignVCenter);
  set_font(p, 10);
  wrapped_in(p, QRectF(head.left() + 12, head.top() + 24, head.width() - 24, head.height() - 48),
             summary, 3);
  p.setPen(kMuted);
  text_in(p, QRectF(head.left() + 12, head.bottom() - 22, head.width() - 24, 18),
          s.step_seconds > 0 ? tr("one step: %1 (compute %2, communication left exposed %3)")
                                   .arg(secs(s.step_seconds), secs(s.compute_seconds),
                                        secs(s.exposed_communication_seconds))
                             : tr("the closed form gives no step time for this plan"),
          Qt::AlignHCenter | Qt::AlignVCenter);

  // The chefs, side by side, with runners between them.
  const int n = static_cast<int>(s.chefs.size());
  if (n == 0) return;
  const double more_w = s.hidden_chefs > 0 ? 110 : 0;
  const double gap = n > 1 ? std::clamp((r.width() - more_w) * 0.045, 60.0, 110.0) : 0;
  const double chef_w = std::min(230.0, (r.width() - more_w - gap * (n - 1)) / n);
  const double row_w = chef_w * n + gap * (n - 1);
  const double x0 = r.left() + (r.width() - more_w - row_w) / 2;
  const double top = head.bottom() + 56;
  size_t most_held = 0;
  for (const TeachChef& c : s.chefs) most_held = std::max(most_held, c.holds.size());
  // A role that does not fit one line ("tensor 0/1, data 0/8, pipeline
  // 0/2, expert 0 of 8") takes up to four, and every station moves down
  // as much.
  set_font(p, 8.5);
  int role_lines = 1;
  for (const TeachChef& c : s.chefs)
    if (c.used) role_lines = std::max(role_lines, lines_needed(p, q(c.role), chef_w - 12, 4));
  const double role_h = p.fontMetrics().height() * role_lines;
  const double role_more = std::max(0.0, role_h - 16);
  const double chef_h =
      std::clamp(112.0 + 14.0 * static_cast<double>(most_held), 150.0, 250.0) + role_more;
  std::vector<QRectF> boxes;
  for (int i = 0; i < n; ++i) boxes.emplace_back(x0 + i * (chef_w + gap), top, chef_w, chef_h);
  // The plan reaches every chef.
  p.setPen(QPen(QColor(0xb0, 0x8a, 0x3a, 120), 1, Qt::DotLine));
  for (const QRectF& b : boxes)
    p.drawLine(QPointF(head.center().x(), head.bottom()), QPointF(b.center().x(), b.top() - 24));
  for (int i = 0; i < n; ++i) {
    const TeachChef& c = s.chefs[static_cast<size_t>(i)];
    const QRectF b = paint_chef(p, boxes[static_cast<size_t>(i)], i, q(c.name), c.used);
    set_font(p, 8.5);
    p.setPen(kMuted);
    wrapped_in(p, QRectF(b.left() + 6, b.top() + 22, b.width() - 12, 16 + role_more),
               c.used ? q(c.role) : tr("idle: nothing placed here"), role_lines);
    // The station: the peak's four parts (M_model + M_grad + M_opt + M_act),
    // then how full the station is at that peak.
    const QRectF station(b.left() + 10, b.top() + 42 + role_more, b.width() - 18, 14);
    p.setPen(QPen(kMuted, 1));
    p.setBrush(Qt::white);
    p.drawRect(station);
    double sum = 0;
    for (double v : c.parts_bytes) sum += v;
    double x = station.left();
    for (int k = 0; k < kParts && sum > 0; ++k) {
      const double w = station.width() * c.parts_bytes[static_cast<size_t>(k)] / sum;
      p.fillRect(QRectF(x, station.top() + 1, w, station.height() - 2), TeachCanvas::part_colour(k));
      x += w;
    }
    const double full = c.capacity_bytes > 0 ? c.peak_bytes / c.capacity_bytes : 0;
    const QRectF gauge(station.left(), station.bottom() + 4, station.width(), 6);
    p.fillRect(gauge, QColor(0xe6, 0xe6, 0xe6));
    p.fillRect(
        QRectF(gauge.left(), gauge.top(), gauge.width() * std::min(full, 1.0), gauge.height()),
        full > 1 ? QColor(0xc0, 0x20, 0x20) : QColor(0x55, 0x60, 0x70));
    set_font(p, 8.5);
    p.setPen(full > 1 ? QColor(0xc0, 0x20, 0x20) : kInk);
    text_in(p, QRectF(b.left() + 8, gauge.bottom() + 2, b.width() - 14, 15),
            tr("peak %1").arg(bytes(c.peak_bytes)), Qt::AlignHCenter | Qt::AlignVCenter);
    p.setPen(kMuted);
    text_in(
        p, QRectF(b.left() + 8, gauge.bottom() + 16, b.width() - 14, 15),
        tr("%1% of %2").arg(100 * full, 0, 'f', full < 0.1 ? 2 : 0).arg(bytes(c.capacity_bytes)),
        Qt::AlignHCenter | Qt::AlignVCenter);
    p.setPen(kInk);
    const QRectF station_end(station.left(), gauge.bottom() + 16, station.width(), 15);
    double y = station_end.bottom() + 6;
    for (const std::string& h : c.holds) {
      if (y + 14 > b.bottom() - 4) break;
      text_in(p, QRectF(b.left() + 8, y, b.width() - 16, 14), q(h));
      y += 14;
    }
  }
  // Runners: a little figure on each link with its alpha and bandwidth.
  set_font(p, 8.5);
  for (const TeachRunner& run : s.runners) {
    const QRectF a = boxes[static_cast<size_t>(run.from)], b = boxes[static_cast<size_t>(run.to)];
    if (run.to == run.from + 1) {
      const double y = a.top() + a.height() * 0.5;
      p.setPen(QPen(kMuted, 2));
      p.drawLine(QPointF(a.right(), y), QPointF(b.left(), y));
      const QPointF m((a.right() + b.left()) / 2, y);
      p.setBrush(kAlpha);
      p.setPen(Qt::NoPen);
      p.drawEllipse(m + QPointF(0, -8), 4, 4);                       // head
      p.drawRoundedRect(QRectF(m.x() - 4, m.y() - 4, 8, 12), 2, 2);  // body
      p.setPen(kInk);
      text_in(p, QRectF(m.x() - gap / 2, y - 34, gap, 14),
              QString("α %1").arg(secs(run.alpha_seconds)), Qt::AlignHCenter | Qt::AlignVCenter);
      text_in(p, QRectF(m.x() - gap / 2, y + 10, gap, 14),
              bandwidth(run.bandwidth_bytes_per_second), Qt::AlignHCenter | Qt::AlignVCenter);
      text_in(p, QRectF(m.x() - gap / 2, y + 24, gap, 14), q(run.link_class),
              Qt::AlignHCenter | Qt::AlignVCenter);
    } else {
      // The ring closes under the row.
      const double y = a.bottom() + 22;
      QPainterPath path(QPointF(a.center().x(), a.bottom()));
      path.cubicTo(QPointF(a.center().x(), y + 10), QPointF(b.center().x(), y + 10),
                   QPointF(b.center().x(), b.bottom()));
      p.setBrush(Qt::NoBrush);
      p.setPen(QPen(kMuted, 1.5, Qt::DashLine));
      p.drawPath(path);
      const QString closes =
          tr("runner from %1 back to %2 (the ring closes): α %3, %4")
              .arg(q(s.chefs[static_cast<size_t>(run.from)].name),
                   q(s.chefs[static_cast<size_t>(run.to)].name), secs(run.alpha_seconds),
                   bandwidth(run.bandwidth_bytes_per_second));
      const QRectF label(b.center().x() + 8, y + 12, p.fontMetrics().horizontalAdvance(closes) + 8,
                         14);
      p.fillRect(label, Qt::white);
      p.setPen(kMuted);
      text_in(p, label, closes);
    }
  }
  if (s.hidden_chefs > 0) {
    set_font(p, 10, true);
    p.setPen(kMuted);
    p.drawText(QRectF(boxes.back().right() + 10, top, more_w, chef_h),
               Qt::AlignCenter | Qt::TextWordWrap, tr("… and %n more chef(s)", "", s.hidden_chefs));
  }
  // The sauce bowl: the largest AllReduce (or the platter: AllGather).
  const TeachCommunication* bowl = nullptr;
  for (const TeachCommunication& c : s.communication)
    if (c.kind == "allreduce" && (!bowl || c.bytes > bowl->bytes)) bowl = &c;
  const double bowl_y = top + chef_h + 110;
  if (bowl) {
    const QPointF centre(r.center().x(), bowl_y);
    p.setPen(QPen(kSauce, 1.2, Qt::DashLine));
    for (const QRectF& b : boxes)
      p.drawLine(QPointF(b.center().x(), b.bottom()), centre + QPointF(0, -22));
    paint_bowl(p, centre,
               tr("sauce bowl: AllReduce (%1) over %2 chefs, %3 × %4 a step, %5")
                   .arg(purpose_text(bowl->purpose))
                   .arg(bowl->group_size)
                   .arg(bowl->count)
                   .arg(bytes(bowl->count > 0 ? bowl->bytes / bowl->count : bowl->bytes),
                        secs(bowl->seconds)),
               true);
  }
  // What else the chefs exchange, and the legend.
  double y = bowl_y + 50;
  set_font(p, 9.5);
  p.setPen(kInk);
  if (s.communication.empty()) {
    text_in(p, QRectF(r.left(), y, r.width(), 16),
            tr("Nobody waits: in this plan the chefs never need each other's results."));
    y += 18;
  }
  for (const TeachCommunication& c : s.communication) {
    if (y + 16 > r.bottom() - 20) break;
    text_in(p, QRectF(r.left(), y, r.width() * 0.75, 16),
            tr("%1 (%2) among %3 chefs: %4 × a step, %5 in all, %6")
                .arg(q(c.kind), purpose_text(c.purpose))
                .arg(c.group_size)
                .arg(c.count)
                .arg(bytes(c.bytes), secs(c.seconds)));
    y += 16;
  }
  const QString parts[kParts] = {tr("weights"), tr("gradients"), tr("optimizer state"),
                                 tr("activations"), tr("communication buffers")};
  double lx = r.right() - kParts * 175;
  for (int k = 0; k < kParts; ++k) {
    p.fillRect(QRectF(lx, r.bottom() - 14, 12, 12), TeachCanvas::part_colour(k));
    p.setPen(kInk);
    text_in(p, QRectF(lx + 16, r.bottom() - 16, 157, 16), parts[k]);
    lx += 175;
  }
}

QRectF TeachCanvas::paint_bowl(QPainter& p, QPointF c, const QString& label, bool full) {
  const QRectF bowl(c.x() - 44, c.y() - 22, 88, 40);
  QPainterPath path;
  path.moveTo(bowl.left(), bowl.top() + 8);
  path.cubicTo(bowl.left(), bowl.bottom() + 6, bowl.right(), bowl.bottom() + 6, bowl.right(),
               bowl.top() + 8);
  path.closeSubpath();
  p.setPen(QPen(kSauce.darker(140), 1.5));
  p.setBrush(QColor(0xf4, 0xe6, 0xd8));
  p.drawPath(path);
  if (full) {
    p.setBrush(kSauce);
    p.setPen(Qt::NoPen);
    p.drawEllipse(QRectF(bowl.left() + 6, bowl.top() + 3, bowl.width() - 12, 10));
  }
  set_font(p, 9.5, true);
  p.setPen(kSauce.darker(130));
  const double w = p.fontMetrics().horizontalAdvance(label) + 8;
  p.drawText(QRectF(c.x() + 52, c.y() - 12, w, 20), Qt::AlignLeft | Qt::AlignVCenter, label);
  return bowl;
}

void TeachCanvas::paint_two_part_bar(QPainter& p, QRectF r, double a, double b,
                                     const QString& alabel, const QString& blabel,
                                     double progress) {
  const double total = a + b;
  if (!(total > 0)) return;
  // Each part at least 8 px so both stay visible when one dwarfs the other.
  double wa = r.width() * a / total, wb = r.width() - wa;
  if (wa < 8) {
    wa = 8;
    wb = r.width() - 8;
  }
  if (wb < 8) {
    wb = 8;
    wa = r.width() - 8;
  }
  const QRectF ra(r.left(), r.top(), wa, r.height()), rb(r.left() + wa, r.top(), wb, r.height());
  p.fillRect(ra, kAlpha);
  p.fillRect(rb, kBeta);
  p.setPen(QPen(kInk, 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(r);
  set_font(p, 9.5, true);
  // Labels inside when they fit, else above (alpha) and below (beta).
  const auto fm = p.fontMetrics();
  p.setPen(Qt::white);
  if (alabel.isEmpty() && blabel.isEmpty()) return;
  if (fm.horizontalAdvance(alabel) + 8 < wa)
    p.drawText(ra, Qt::AlignCenter, alabel);
  else {
    p.setPen(kAlpha.darker(130));
    p.drawText(QRectF(r.left(), r.top() - 18, r.width(), 16), Qt::AlignLeft | Qt::AlignVCenter,
               "▼ " + alabel);
  }
  p.setPen(Qt::white);
  if (fm.horizontalAdvance(blabel) + 8 < wb)
    p.drawText(rb, Qt::AlignCenter, blabel);
  else {
    p.setPen(kBeta.darker(130));
    p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), 16), Qt::AlignRight | Qt::AlignVCenter,
               blabel + " ▲");
  }
  if (progress >= 0 && progress <= 1) {
    const double x = r.left() + r.width() * progress;
    p.setPen(QPen(kInk, 2));
    p.drawLine(QPointF(x, r.top() - 4), QPointF(x, r.bottom() + 4));
  }
}

void TeachCanvas::paint_transfer(QPainter& p, QRectF r) {
  const TeachScene& s = *scene_;
  const TeachTransfer& t = s.transfer;
  paint_title(p, r, tr("Transfer: a runner carries a tensor, T = α + M/B"),
              tr("α: the latency every message pays, however small; M/B: its bytes over the "
                 "link's bandwidth."));
  if (t.source == TransferSource::kNone) {
    set_font(p, 13);
    p.setPen(kMuted);
    p.drawText(r, Qt::AlignCenter,
               tr("One chef alone: nothing moves between devices in this kitchen."));
    return;
  }
  set_font(p, 10.5);
  p.setPen(kInk);
  QString what;
  switch (t.source) {
    case TransferSource::kPlanTransfer:
      what = tr("The plan sends %1 (%2) from %3 to %4.")
                 .arg(q(t.tensor), bytes(t.bytes), q(t.from_name), q(t.to_name));
      break;
    case TransferSource::kRingStep:
      what =
          tr("One step of the plan's ring %1: each chef hands its neighbour M/N = %2 (%3 to %4).")
              .arg(q(t.tensor), bytes(t.bytes), q(t.from_name), q(t.to_name));
      break;
    case TransferSource::kWhatIf:
      what = tr("This plan moves nothing between chefs; were %1 (%2) sent from %3 to %4:")
                 .arg(q(t.tensor), bytes(t.bytes), q(t.from_name), q(t.to_name));
      break;
    case TransferSource::kNone:
      break;
  }
  text_in(p, QRectF(r.left(), r.top(), r.width(), 20), what);
  r.setTop(r.top() + 40);
  // Two chefs and the runner's lane.
  const double chef_w = std::min(220.0, r.width() * 0.18), chef_h = 110;
  const QRectF a(r.left() + 20, r.top() + 24, chef_w, chef_h);
  const QRectF b(r.right() - 20 - chef_w, r.top() + 24, chef_w, chef_h);
  paint_chef(p, a, 0, q(t.from_name));
  paint_chef(p, b, 1, q(t.to_name));
  set_font(p, 9.5);
  p.setPen(kInk);
  text_in(p, a.adjusted(12, 30, -8, -40),
          t.source == TransferSource::kRingStep ? tr("sends a chunk of the %1").arg(q(t.tensor))
                                                : tr("sends %1").arg(q(t.tensor)),
          Qt::AlignHCenter | Qt::AlignVCenter);
  text_in(
      p, b.adjusted(12, 30, -8, -40),
      t.source == TransferSource::kRingStep
          ? (step_ == TeachStep::kTransferArrived ? tr("has the chunk") : tr("waits for the chunk"))
          : (step_ == TeachStep::kTransferArrived ? tr("has %1").arg(q(t.tensor))
                                                  : tr("waits for %1").arg(q(t.tensor))),
      Qt::AlignHCenter | Qt::AlignVCenter);
  const double lane_y = a.center().y() + 10;
  p.setPen(QPen(kMuted, 3));
  p.drawLine(QPointF(a.right(), lane_y), QPointF(b.left(), lane_y));
  set_font(p, 9.5);
  p.setPen(kInk);
  text_in(p, QRectF(a.right() + 10, lane_y + 8, b.left() - a.right() - 20, 16),
          tr("link: α %1, bandwidth %2")
              .arg(secs(t.alpha_seconds), bandwidth(t.bandwidth_bytes_per_second)),
          Qt::AlignHCenter | Qt::AlignVCenter);
  // Where the dish is: waiting out alpha at the sender, crossing during M/B, arrived.
  double along = 0;
  if (step_ == TeachStep::kTransferBeta) along = progress_;
  if (step_ == TeachStep::kTransferArrived) along = 1;
  const double dish_w = 96, dish_h = 36;
  const double x = a.right() + 8 + (b.left() - a.right() - 16 - dish_w) * along;
  const QRectF dish(x, lane_y - dish_h - 6, dish_w, dish_h);
  p.setBrush(chef_colour(0).darker(105));
  p.setPen(QPen(kInk, 1));
  p.drawRoundedRect(dish, 6, 6);
  set_font(p, 9, true);
  text_in(p, dish.adjusted(4, 0, -4, -dish_h / 2), q(t.tensor.empty() ? "M" : t.tensor),
          Qt::AlignCenter);
  set_font(p, 8.5);
  text_in(p, dish.adjusted(4, dish_h / 2, -4, 0), bytes(t.bytes), Qt::AlignCenter);
  if (step_ == TeachStep::kTransferAlpha) {
    // The runner sets off: the latency, whatever the size.
    p.setPen(QPen(kAlpha, 2));
    p.setBrush(Qt::NoBrush);
    const double rad = 10 + 8 * progress_;
    p.drawArc(QRectF(dish.right() + 6, dish.center().y() - rad, 2 * rad, 2 * rad), 90 * 16,
              static_cast<int>(-360 * 16 * progress_));
  }
  // The time, in its two parts.
  double cursor = 0;
  const double total = t.seconds();
  if (total > 0) {
    if (step_ == TeachStep::kTransferAlpha) cursor = progress_ * t.alpha_part_seconds / total;
    if (step_ == TeachStep::kTransferBeta)
      cursor = (t.alpha_part_seconds + progress_ * t.beta_part_seconds) / total;
    if (step_ == TeachStep::kTransferArrived) cursor = 1;
  }
  const QRectF bar(r.left() + 40, a.bottom() + 70, r.width() - 80, 34);
  set_font(p, 10.5, true);
  p.setPen(kInk);
  text_in(
      p, QRectF(bar.left(), bar.top() - 44, bar.width(), 18),
      tr("T = α + M/B = %1 + %2 / %3 = %4 + %5 = %6")
          .arg(secs(t.alpha_part_seconds), bytes(t.bytes), bandwidth(t.bandwidth_bytes_per_second),
               secs(t.alpha_part_seconds), secs(t.beta_part_seconds), secs(total)));
  paint_two_part_bar(p, bar, t.alpha_part_seconds, t.beta_part_seconds,
                     tr("α %1").arg(secs(t.alpha_part_seconds)),
                     tr("M/B %1").arg(secs(t.beta_part_seconds)), cursor);
  double y = bar.bottom() + 60;
  // The collective this message belongs to: its alpha term and beta term.
  if (t.has_collective) {
    const QRectF cbar(bar.left(), y + 26, bar.width(), 34);
    set_font(p, 10.5, true);
    p.setPen(step_ == TeachStep::kTransferArrived ? kInk : kMuted);
    text_in(
        p, QRectF(cbar.left(), cbar.top() - 44, cbar.width(), 18),
        (t.source == TransferSource::kRingStep
             ? tr("The whole %1 %2 over %3 chefs (M = %4): %5 latencies in series, α term %6; β "
                  "term %7")
             : tr("The plan's largest collective, a %1 %2 over %3 chefs (M = %4): %5 latencies in "
                  "series, α term %6; β term %7"))
            .arg(q(t.algorithm), q(t.collective_kind))
            .arg(t.ranks)
            .arg(bytes(t.collective_bytes))
            .arg(t.alpha_messages >= 0 ? QString::number(t.alpha_messages) : QStringLiteral("?"))
            .arg(secs(t.alpha_term_seconds), secs(t.beta_term_seconds)));
    paint_two_part_bar(p, cbar, t.alpha_term_seconds, t.beta_term_seconds,
                       tr("α term %1").arg(secs(t.alpha_term_seconds)),
                       tr("β term %1").arg(secs(t.beta_term_seconds)), -1);
    y = cbar.bottom() + 40;
  }
  // The same runner with other dishes: small ones are all latency, big ones all bandwidth.
  set_font(p, 10.5, true);
  p.setPen(kInk);
  text_in(p, QRectF(bar.left(), y, bar.width(), 18),
          tr("The same runner with other dishes: T = α + M/B"));
  y += 26;
  std::vector<double> sizes = {1024.0, 1024.0 * 1024, 1024.0 * 1024 * 1024};
  if (std::find(sizes.begin(), sizes.end(), t.bytes) == sizes.end()) sizes.push_back(t.bytes);
  std::sort(sizes.begin(), sizes.end());
  for (double m : sizes) {
    if (y + 22 > r.bottom() - 22) break;
    const double beta = m / t.bandwidth_bytes_per_second;
    const double tt = t.alpha_part_seconds + beta;
    set_font(p, 9.5, m == t.bytes);
    p.setPen(kInk);
    text_in(p, QRectF(bar.left(), y, 150, 20),
            m == t.bytes ? tr("%1 (this one)").arg(bytes(m)) : bytes(m));
    text_in(p, QRectF(bar.right() - 330, y, 330, 20),
            tr("%1 + %2 = %3 (α %4%)")
                .arg(secs(t.alpha_part_seconds), secs(beta), secs(tt))
                .arg(tt > 0 ? 100 * t.alpha_part_seconds / tt : 0, 0, 'f', 0),
            Qt::AlignRight | Qt::AlignVCenter);
    paint_two_part_bar(p, QRectF(bar.left() + 160, y + 3, bar.width() - 500, 14),
                       t.alpha_part_seconds, beta, QString(), QString(), -1);
    y += 26;
  }
  // Legend.
  set_font(p, 9.5);
  p.fillRect(QRectF(r.left(), r.bottom() - 14, 12, 12), kAlpha);
  p.setPen(kInk);
  text_in(p, QRectF(r.left() + 16, r.bottom() - 16, 420, 16),
          tr("latency α: paid per message, independent of its size"));
  p.fillRect(QRectF(r.left() + 460, r.bottom() - 14, 12, 12), kBeta);
  text_in(p, QRectF(r.left() + 476, r.bottom() - 16, 420, 16),
          tr("bandwidth term M/B: grows with the bytes"));
}

void TeachCanvas::paint_output(QPainter& p, QRectF r) {
  const TeachScene& s = *scene_;
  const TeachOutput& o = s.output;
  const bool stacked = step_ == TeachStep::kOutputStacked;
  paint_title(p, r, tr("Output: every chef's %1 gathered back").arg(q(o.tensor)),
              tr("pmap returns the results stacked by device: the leading axis is the device axis. "
                 "Batch sharding returns them concatenated along the batch."));
  const int n = static_cast<int>(o.local_shapes.size());
  if (n == 0) return;
  // The chefs' results, one block each.
  const double gap = 24;
  const double w = std::min(170.0, (r.width() - gap * (n - 1)) / n);
  const double x0 = r.left() + (r.width() - (w * n + gap * (n - 1))) / 2;
  const double chef_h = 120;
  std::vector<QRectF> cells;
  for (int k = 0; k < n; ++k) {
    const QRectF box(x0 + k * (w + gap), r.top() + 26, w, chef_h);
    paint_chef(p, box, k, chef_name(k));
    const QRectF frame = box.adjusted(14, 28, -14, -26);
    p.fillRect(frame, chef_colour(k).darker(112));
    p.setPen(QPen(kInk, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(frame);
    set_font(p, 9);
    text_in(p, QRectF(box.left(), box.bottom() - 22, box.width(), 18),
            q(shape_text(o.local_shapes[static_cast<size_t>(k)])),
            Qt::AlignHCenter | Qt::AlignVCenter);
    cells.push_back(frame);
  }
  const double y = r.top() + 26 + chef_h + 50;
  const double half = r.width() / 2;
  const QRectF left(r.left(), y, half - 20, r.bottom() - y),
      right(r.left() + half + 20, y, half - 20, r.bottom() - y);
  // Arrows down to the result the mode shows.
  const QRectF& target = stacked ? left : right;
  p.setPen(QPen(kMuted, 1.2));
  for (const QRectF& c : cells)
    draw_arrow(p, QPointF(c.center().x(), c.bottom() + 28),
               QPointF(target.center().x(), target.top() + 30), kMuted);
  // Stacked: N slabs behind one another, the device axis first.
  {
    p.setOpacity(stacked ? 1 : 0.35);
    set_font(p, 11, true);
    p.setPen(kInk);
    text_in(p, QRectF(left.left(), left.top() + 30, left.width(), 20),
            o.stacked_shape.empty()
                ? tr("pmap: the rows do not split evenly over %1 devices").arg(n)
                : tr("pmap: stacked, shape %1").arg(q(shape_text(o.stacked_shape))),
            Qt::AlignHCenter | Qt::AlignVCenter);
    const double sw = std::min(320.0, left.width() * 0.55),
                 sh = std::min(230.0, left.height() * 0.5);
    const double dx = std::min(16.0, 90.0 / n), dy = std::min(12.0, 70.0 / n);
    const QPointF o0(left.center().x() - sw / 2 - dx * n / 2, left.top() + 64);
    for (int k = n - 1; k >= 0; --k) {
      const QRectF slab(o0.x() + dx * k, o0.y() + dy * k, sw, sh);
      p.setBrush(chef_colour(k).darker(115));
      p.setPen(QPen(kInk, 1));
      p.drawRect(slab);
    }
    set_font(p, 9.5);
    p.setPen(kInk);
    text_in(p, QRectF(left.left(), o0.y() + dy * n + sh + 10, left.width(), 18),
            tr("out[d] is chef d's result: axis 0 has one entry per device"),
            Qt::AlignHCenter | Qt::AlignVCenter);
    p.setOpacity(1);
  }
  // Concatenated: row blocks one under another.
  {
    p.setOpacity(stacked ? 0.35 : 1);
    set_font(p, 11, true);
    p.setPen(kInk);
    text_in(p, QRectF(right.left(), right.top() + 30, right.width(), 20),
            tr("batch sharding: concatenated, shape %1").arg(q(shape_text(o.concatenated_shape))),
            Qt::AlignHCenter | Qt::AlignVCenter);
    const double cw = std::min(320.0, right.width() * 0.55),
                 ch = std::min(300.0, right.height() * 0.62);
    const QRectF frame(right.center().x() - cw / 2, right.top() + 64, cw, ch);
    const std::vector<ShardBlock> blocks = [&] {
      std::vector<ShardBlock> v;
      for (int k = 0; k < n; ++k)
        v.push_back({static_cast<double>(k) / n, static_cast<double>(k + 1) / n, 0, 1, k});
      return v;
    }();
    paint_blocks(p, frame, o.concatenated_shape, blocks);
    set_font(p, 9.5);
    p.setPen(kInk);
    text_in(p, QRectF(right.left(), frame.bottom() + 10, right.width(), 18),
            tr("rows of chef d follow those of chef d−1: the batch is whole again"),
            Qt::AlignHCenter | Qt::AlignVCenter);
    p.setOpacity(1);
  }
}

}  // namespace brigade::gui
