// The teaching canvas's modes that draw shards: transform (a layout turning
// into another) and the pmap demo. See teach_canvas.hpp.
#include <algorithm>
#include <cmath>

#include <QPainter>
#include <QPainterPath>

#include "core/units.hpp"
#include "gui/views/paint_util.hpp"
#include "gui/views/teach_canvas.hpp"
#include "gui/views/teach_paint.hpp"

namespace brigade::gui {

namespace {

using namespace teach_paint;

// A rounded label ("g_0") filled with `c`.
void chip(QPainter& p, const QRectF& r, const QColor& c, const QString& s) {
  p.setBrush(c);
  p.setPen(QPen(c.darker(150), 1));
  p.drawRoundedRect(r, 6, 6);
  p.setPen(kInk);
  text_in(p, r.adjusted(4, 0, -4, 0), s, Qt::AlignCenter);
}

// A line of code in a grey box, in a monospace font.
void paint_code(QPainter& p, const QRectF& box, const QString& code, double points = 11) {
  p.save();
  QFont mono("monospace");
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSizeF(points);
  p.setFont(mono);
  p.setBrush(QColor(0xf3, 0xf4, 0xf6));
  p.setPen(QPen(QColor(0xd0, 0xd4, 0xda), 1));
  p.drawRoundedRect(box, 5, 5);
  p.setPen(kInk);
  text_in(p, box.adjusted(8, 0, -8, 0), code);
  p.restore();
}

// The width of one chef's column when `n` share `width` (paint_layout's).
double column_width(double width, int n) {
  return std::min(260.0, (width - 18.0 * (n - 1)) / std::max(n, 1));
}

}  // namespace

QRectF TeachCanvas::paint_blocks(QPainter& p, QRectF frame, const Shape& global,
                                 const std::vector<ShardBlock>& blocks) {
  // The tensor's aspect (rows against columns), kept within 0.55 and 1.5 so
  // that a (32, 256) batch's row blocks stay visible: the shape is written under it.

  const double rows = global.empty() ? 1 : static_cast<double>(global[0]);
  const double cols = global.size() > 1 ? static_cast<double>(global[1]) : 1;
  const double aspect = std::clamp(rows / cols, 0.55, 1.5);  // height / width
  double w = frame.width(), h = w * aspect;
  if (h > frame.height()) {
    h = frame.height();
    w = h / aspect;
  }
  const QRectF t(frame.center().x() - w / 2, frame.top(), w, h);
  for (const ShardBlock& b : blocks) {
    const QRectF br(t.left() + t.width() * b.col0, t.top() + t.height() * b.row0,
                    t.width() * (b.col1 - b.col0), t.height() * (b.row1 - b.row0));
    const QColor c = b.origin >= 0 ? chef_colour(b.origin).darker(112) : kWhole;
    p.fillRect(br, c);
    if (b.partial) p.fillRect(br, QBrush(c.darker(160), Qt::BDiagPattern));
    p.setPen(QPen(c.darker(170), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(br);
  }
  p.setPen(QPen(kMuted, 1, blocks.empty() ? Qt::DashLine : Qt::SolidLine));
  p.setBrush(Qt::NoBrush);
  p.drawRect(t);
  return t;
}

void TeachCanvas::paint_layout(QPainter& p, QRectF r, const ShardLayout& l,
                               const QString& caption) {
  set_font(p, 10.5, true);
  p.setPen(kInk);
  text_in(p, QRectF(r.left(), r.top(), r.width(), 18), caption + ": " + q(l.tensor));
  r.setTop(r.top() + 24);
  const int n = static_cast<int>(l.blocks.size());
  if (n == 0) return;
  const double gap = 18;
  const double w = column_width(r.width(), n);
  const double x0 = r.left() + (r.width() - (w * n + gap * (n - 1))) / 2;
  for (int k = 0; k < n; ++k) {
    const QRectF col(x0 + k * (w + gap), r.top(), w, r.height());
    p.fillRect(QRectF(col.left(), col.top(), 10, 10), chef_colour(k));
    set_font(p, 9.5, true);
    p.setPen(kInk);
    text_in(p, QRectF(col.left() + 14, col.top() - 3, col.width() - 14, 16), chef_name(k));
    const Shape& local = l.local_shapes[static_cast<size_t>(k)];
    const auto& blocks = l.blocks[static_cast<size_t>(k)];
    const QRectF t = paint_blocks(p, col.adjusted(6, 18, -6, -40), l.global_shape, blocks);
    set_font(p, 9.5);
    p.setPen(local.empty() ? kMuted : kInk);
    text_in(p, QRectF(col.left(), t.bottom() + 4, col.width(), 16),
            local.empty() ? tr("nothing") : q(shape_text(local)),
            Qt::AlignHCenter | Qt::AlignVCenter);
    // Which rows of the whole a single block is (x[kB/N:(k+1)B/N]).
    if (blocks.size() == 1 && !l.global_shape.empty() && blocks[0].row1 - blocks[0].row0 < 1) {
      const auto rows = static_cast<double>(l.global_shape[0]);
      set_font(p, 8.5);
      p.setPen(kMuted);
      text_in(p, QRectF(col.left(), t.bottom() + 20, col.width(), 14),
              tr("rows %1 to %2")
                  .arg(std::llround(blocks[0].row0 * rows))
                  .arg(std::llround(blocks[0].row1 * rows)),
              Qt::AlignHCenter | Qt::AlignVCenter);
    } else if (!blocks.empty() && blocks[0].partial) {
      set_font(p, 8.5);
      p.setPen(kMuted);
      text_in(p, QRectF(col.left(), t.bottom() + 20, col.width(), 14), tr("a partial sum"),
              Qt::AlignHCenter | Qt::AlignVCenter);
    }
  }
}

void TeachCanvas::paint_transform(QPainter& p, QRectF r) {
  const TeachScene& s = *scene_;
  const int index = static_cast<int>(step_) - first_step_of(TeachMode::kTransform);
  const TeachTransform& t =
      s.transforms[static_cast<size_t>(std::clamp(index, 0, kNumTransforms - 1))];
  const int n = static_cast<int>(t.after.blocks.size());
  const QString names[kNumTransforms] = {tr("batch split"), tr("AllGather"), tr("row split"),
                                         tr("ReduceScatter")};
  QString title, subtitle, op;
  const QString xg = q(t.before.tensor) + " " + q(shape_text(t.before.global_shape));
  switch (t.kind) {
    case TransformKind::kBatchSplit:
      title = tr("Batch split: %1 cut by rows into %n block(s), one per chef", "", n).arg(xg);
      subtitle =
          tr("Chef k gets rows kB/N to (k+1)B/N (NamedSharding P('data'); the seed's pmap "
             "split). The host hands out the blocks: no chef waits for another.");
      op = tr("split the rows");
      break;
    case TransformKind::kAllGather:
      title =
          tr("AllGather: every chef puts its block on the shared platter and takes the whole back");
      subtitle =
          tr("all_gather(x, tiled=True): %1 on every chef again. Ring: (N−1)α + (N−1)/N · M/B.")
              .arg(xg);
      op = tr("AllGather of %1: %2").arg(bytes(t.bytes), secs(t.seconds));
      break;
    case TransformKind::kRowSplit:
      title = tr("Row split: %1 cut by rows, block W_k on chef k").arg(xg);
      subtitle =
          tr("Model sharding: each chef keeps 1/N of the weights; y = Σ_k x_k W_k, so each "
             "chef's x_k W_k is only a partial sum.");
      op = tr("split the rows");
      break;
    case TransformKind::kReduceScatter:
      title =
          tr("ReduceScatter: the partial sums go into the bowl, each chef takes back its rows of "
             "the sum");
      subtitle = tr("psum_scatter: %1 partial on each chef → its rows of the sum. AllGather after "
                    "ReduceScatter is an AllReduce (psum).")
                     .arg(xg);
      op = tr("ReduceScatter of %1: %2").arg(bytes(t.bytes), secs(t.seconds));
      break;
  }
  paint_title(p, r, title, subtitle);
  // The four transforms, the current one marked.
  set_font(p, 9.5, true);
  double x = r.left();
  for (int k = 0; k < kNumTransforms; ++k) {
    const QString label = QString("%1. %2").arg(k + 1).arg(names[k]);
    const double w = p.fontMetrics().horizontalAdvance(label) + 24;
    chip(p, QRectF(x, r.top(), w, 22),
         k == index ? QColor(0xff, 0xe0, 0x9a) : QColor(0xee, 0xee, 0xee), label);
    x += w + 8;
  }
  set_font(p, 9.5);
  p.setPen(t.in_plan ? QColor(0x2a, 0x7a, 0x2a) : kMuted);
  text_in(
      p, QRectF(x + 10, r.top(), r.right() - x - 10, 22),
      t.in_plan
          ? tr("this is the plan's own layout of %1").arg(q(t.after.tensor))
          : tr("the plan does not do this to %1; shown with its shapes").arg(q(t.after.tensor)));
  r.setTop(r.top() + 34);
  // Each layout as tall as its tensors need (columns as paint_layout sizes them).
  const double band = 56;
  const auto need = [&](const ShardLayout& l) {
    const int cols = std::max<int>(1, static_cast<int>(l.blocks.size()));
    const double w = column_width(r.width(), cols) - 12;
    const double rows = l.global_shape.empty() ? 1 : static_cast<double>(l.global_shape[0]);
    const double columns = l.global_shape.size() > 1 ? static_cast<double>(l.global_shape[1]) : 1;
    return 24 + 18 + w * std::clamp(rows / columns, 0.55, 1.5) + 44;
  };
  const double code_h = 40;
  const double room = (r.height() - band - code_h) / 2;
  const double hb = std::min(room, need(t.before)), ha = std::min(room, need(t.after));
  r.setTop(r.top() + std::max(0.0, (2 * room - hb - ha) / 3));  // centred, a little high
  paint_layout(p, QRectF(r.left(), r.top(), r.width(), hb), t.before, tr("before"));
  // The operation between the layouts.
  const QRectF mid(r.left(), r.top() + hb, r.width(), band);
  p.setPen(QPen(kMuted, 2));
  draw_arrow(p, QPointF(mid.center().x(), mid.top() + 4),
             QPointF(mid.center().x(), mid.bottom() - 4), kMuted, 10, 5);
  set_font(p, 11, true);
  p.setPen(kSauce.darker(120));
  text_in(p, QRectF(mid.center().x() + 16, mid.top(), r.width() / 2 - 16, band), op);
  p.setOpacity(0.25 + 0.75 * progress_);
  paint_layout(p, QRectF(r.left(), mid.bottom(), r.width(), ha), t.after, tr("after"));
  p.setOpacity(1);
  // The same in JAX.
  const QString code[kNumTransforms] = {
      "jax.device_put(" + q(t.before.tensor) + ", NamedSharding(mesh, P('data', None)))",
      "lax.all_gather(" + q(t.before.tensor) + ", 'data', tiled=True)",
      "jax.device_put(" + q(t.before.tensor) + ", NamedSharding(mesh, P('model', None)))",
      "lax.psum_scatter(y, 'model', tiled=True)"};
  paint_code(p, QRectF(r.left(), mid.bottom() + ha + 8, std::min(r.width(), 720.0), 28),
             code[static_cast<int>(t.kind)]);
}

void TeachCanvas::paint_pmap(QPainter& p, QRectF r) {
  const TeachScene& s = *scene_;
  const TeachPmap& m = s.pmap;
  const PmapFrame f = pmap_frame(step_);
  const int k = static_cast<int>(step_) - first_step_of(TeachMode::kPmap);
  const int n = std::min(m.devices, kMaxChefs);
  const QString step_names[] = {tr("device mapping"),
                                tr("data sharding"),
                                tr("compute on every chef at once"),
                                tr("psum: pour into the sauce bowl"),
                                tr("pmean: take the average back"),
                                tr("all_gather: the shared platter"),
                                tr("update: one step done")};
  const QString code[] = {
      "jax.devices()  # " + QString::number(m.devices),
      "x.reshape" + q(shape_text(m.input_reshaped.empty() ? m.input_local : m.input_reshaped)),
      "g = pmap(grad(loss), axis_name='data')(w, x)",
      "lax.psum(g, 'data')",
      "lax.pmean(g, 'data')",
      "lax.all_gather(x, 'data')",
      "w = w - 0.01 * g"};
  paint_title(
      p, r,
      tr("pmap, step %1 of %2: %3").arg(k + 1).arg(steps_in(TeachMode::kPmap)).arg(step_names[k]),
      tr("The second seed's data-parallel step on this plan: %1 chefs, %2 %3 split by rows.")
          .arg(m.devices)
          .arg(q(m.input), q(shape_text(m.input_global))));
  // The code of the step, as the seed writes it.
  paint_code(p, QRectF(r.right() - 460, r.top() - 2, 460, 26), code[k]);
  // The host with the batch.
  const QRectF host(r.left(), r.top() + 4, 380, 74);
  p.setBrush(QColor(0xf7, 0xf7, 0xf7));
  p.setPen(QPen(kMuted, 1));
  p.drawRoundedRect(host, 8, 8);
  set_font(p, 9.5, true);
  p.setPen(kInk);
  text_in(p, QRectF(host.left() + 8, host.top() + 2, host.width() - 16, 18),
          tr("host (the restaurant owner)"));
  std::vector<ShardBlock> whole;
  if (f.batch_whole)
    whole.push_back({0, 1, 0, 1, -1});
  else
    for (int j = 0; j < n; ++j)
      whole.push_back({static_cast<double>(j) / n, static_cast<double>(j + 1) / n, 0, 1, j});
  paint_blocks(p, QRectF(host.left() + 8, host.top() + 22, 60, 48), m.input_global, whole);
  set_font(p, 9);
  p.drawText(QRectF(host.left() + 76, host.top() + 22, host.width() - 84, 48),
             Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
          f.batch_whole
              ? tr("%1 %2: the whole batch").arg(q(m.input), q(shape_text(m.input_global)))
              : tr("%1 → %2: row block d for device d")
                    .arg(q(shape_text(m.input_global)), q(shape_text(m.input_reshaped))));
  // The chefs along the device axis.
  const double top = host.bottom() + 56;
  const double gap = 26;
  const double w = std::min(180.0, (r.width() - gap * (n - 1)) / std::max(n, 1));
  const double x0 = r.left() + (r.width() - (w * n + gap * (n - 1))) / 2;
  const double chef_h = 200;
  std::vector<QRectF> boxes;
  for (int d = 0; d < n; ++d) {
    const QRectF box(x0 + d * (w + gap), top, w, chef_h);
    boxes.push_back(box);
    paint_chef(p, box, d, chef_name(d));
    set_font(p, 8.5);
    p.setPen(kMuted);
    text_in(p, QRectF(box.left() + 4, box.top() + 22, box.width() - 8, 14),
            tr("device axis index %1").arg(d), Qt::AlignHCenter | Qt::AlignVCenter);
    double y = box.top() + 40;
    if (f.batch_whole) {
      // jax.devices(): who is in the kitchen today.
      paint_code(p, QRectF(box.left() + 10, y + 4, box.width() - 20, 24),
                 QString("jax.devices()[%1]").arg(d), 8.5);
      set_font(p, 9);
      p.setPen(kInk);
      if (d < static_cast<int>(s.chefs.size()))
        text_in(p, QRectF(box.left() + 4, y + 34, box.width() - 8, 16),
                tr("memory %1").arg(bytes(s.chefs[static_cast<size_t>(d)].capacity_bytes)),
                Qt::AlignHCenter | Qt::AlignVCenter);
      text_in(p, QRectF(box.left() + 4, y + 52, box.width() - 8, 16), tr("waiting for its shard"),
              Qt::AlignHCenter | Qt::AlignVCenter);
    }
    if (f.shards) {
      if (f.gathered) {
        std::vector<ShardBlock> all;
        for (int j = 0; j < n; ++j)
          all.push_back({static_cast<double>(j) / n, static_cast<double>(j + 1) / n, 0, 1, j});
        paint_blocks(p, QRectF(box.left() + 10, y, box.width() - 20, 46), m.input_global, all);
        set_font(p, 8.5);
        p.setPen(kInk);
        text_in(p, QRectF(box.left() + 4, y + 46, box.width() - 8, 14),
                q(shape_text(m.input_reshaped.empty() ? m.input_global : m.input_reshaped)),
                Qt::AlignHCenter | Qt::AlignVCenter);
      } else {
        paint_blocks(p, QRectF(box.left() + 10, y, box.width() - 20, 46), m.input_local,
                     {{0, 1, 0, 1, d}});
        set_font(p, 8.5);
        p.setPen(kInk);
        text_in(p, QRectF(box.left() + 4, y + 46, box.width() - 8, 14),
                QString("%1[%2] %3").arg(q(m.input)).arg(d).arg(q(shape_text(m.input_local))),
                Qt::AlignHCenter | Qt::AlignVCenter);
      }
      y += 66;
    }
    if (f.computing) {
      // One program, every shard at the same time: the bars move together.
      const QRectF bar(box.left() + 10, y, box.width() - 20, 12);
      p.fillRect(bar, QColor(0xea, 0xea, 0xea));
      p.fillRect(QRectF(bar.left(), bar.top(), bar.width() * progress_, bar.height()), kCompute);
      set_font(p, 8.5);
      p.setPen(kInk);
      text_in(p, QRectF(box.left() + 4, y + 13, box.width() - 8, 14),
              tr("f(x[%1]), %2").arg(d).arg(secs(m.compute_seconds)),
              Qt::AlignHCenter | Qt::AlignVCenter);
      y += 30;
    }
    set_font(p, 9, true);
    if (f.local_grads)
      chip(p, QRectF(box.left() + 14, y, box.width() - 28, 20), chef_colour(d).darker(110),
           QString("g_%1").arg(d));
    if (f.mean)
      chip(p, QRectF(box.left() + 14, y, box.width() - 28, 20), kSauce.lighter(150),
           tr("ḡ = Σ g / %1").arg(m.devices));
    if (f.local_grads || f.mean) y += 26;
    if (f.updated) {
      set_font(p, 8.5, true);
      chip(p, QRectF(box.left() + 8, y, box.width() - 16, 20), QColor(0xd8, 0xee, 0xd0),
           tr("%1 ← %1 − η·ḡ").arg(q(m.param.empty() ? std::string("w") : m.param)));
    }
  }
  // The device axis under the chefs.
  if (n > 1) {
    const double ay = top + chef_h + 16;
    p.setPen(QPen(kMuted, 1.5));
    draw_arrow(p, QPointF(boxes.front().left(), ay), QPointF(boxes.back().right(), ay), kMuted, 9, 4);
    set_font(p, 9);
    p.setPen(kMuted);
    text_in(p, QRectF(boxes.front().left(), ay + 2, boxes.back().right() - boxes.front().left(), 16),
            tr("pmap's device axis: index d runs on device d (0 to %1)").arg(m.devices - 1),
            Qt::AlignHCenter | Qt::AlignVCenter);
  }
  // From the host to each chef.
  if (f.shards) {
    p.setPen(QPen(kMuted, 1));
    for (const QRectF& b : boxes)
      draw_arrow(p, QPointF(host.center().x(), host.bottom()),
                 QPointF(b.center().x(), b.top() - 26), kMuted);
  }
  const double below = (top + chef_h + r.bottom() - 60) / 2;
  if (f.bowl) {
    const QPointF c(r.center().x(), below);
    p.setPen(QPen(kSauce, 1.5));
    for (const QRectF& b : boxes) {
      if (f.summed)
        draw_arrow(p, QPointF(b.center().x(), b.bottom()), c + QPointF(0, -24), kSauce);
      else
        draw_arrow(p, c + QPointF(0, -24), QPointF(b.center().x(), b.bottom() + 2), kSauce);
    }
    paint_bowl(
        p, c,
        f.summed
            ? (m.gradient_if_trained
                   ? tr("psum: Σ_d g_d, %1 from each chef (AllReduce %2, were this plan trained)")
                   : tr("psum: Σ_d g_d, %1 from each chef (AllReduce %2)"))
                  .arg(bytes(m.gradient_bytes), secs(m.allreduce_seconds))
            : tr("pmean: Σ_d g_d / %1 back to every chef").arg(m.devices),
        true);
  }
  if (f.gathered) {
    const QRectF platter(r.center().x() - 150, below - 20, 300, 40);
    p.setBrush(QColor(0xf0, 0xf0, 0xe8));
    p.setPen(QPen(kMuted, 1.5));
    p.drawEllipse(platter);
    for (int j = 0; j < n; ++j)
      p.fillRect(QRectF(platter.left() + 60 + j * 180.0 / n, platter.top() + 12, 180.0 / n - 2, 16),
                 chef_colour(j).darker(112));
    set_font(p, 9.5, true);
    p.setPen(kInk);
    text_in(p, QRectF(platter.right() + 10, platter.top(), r.right() - platter.right() - 10, 40),
            tr("the shared platter: each chef puts down its block and takes all %1 (AllGather %2)")
                .arg(m.devices)
                .arg(secs(m.allgather_seconds)));
    p.setPen(QPen(kMuted, 1));
    for (const QRectF& b : boxes) p.drawLine(QPointF(b.center().x(), b.bottom()), platter.center());
  }
  if (f.computing) {
    set_font(p, 11, true);
    p.setPen(kCompute.darker(140));
    text_in(p, QRectF(r.left(), below - 12, r.width(), 24),
            tr("pmap is not a for loop: all %1 chefs run the same program on their own shard at "
               "the same time.")
                .arg(m.devices),
            Qt::AlignHCenter | Qt::AlignVCenter);
  }
  // The step's clock: compute, then the AllReduce (the closed form's figures).
  const QRectF clock(r.left() + 40, r.bottom() - 40, r.width() - 80, 22);
  const double total = m.compute_seconds + m.allreduce_seconds;
  set_font(p, 9.5);
  p.setPen(kInk);
  text_in(p, QRectF(clock.left(), clock.top() - 20, clock.width(), 18),
          (m.gradient_if_trained
               ? tr("this plan's step (closed form): compute %1, the whole step %3; a gradient "
                    "AllReduce would add %2 were it trained")
               : tr("one training step (closed form): compute %1 + gradient AllReduce %2; the "
                    "whole step %3"))
              .arg(secs(m.compute_seconds), secs(m.allreduce_seconds), secs(m.step_seconds)));
  p.setPen(QPen(kMuted, 1));
  p.setBrush(Qt::white);
  p.drawRect(clock);
  if (total > 0) {
    const double wc = std::max(clock.width() * m.compute_seconds / total, 4.0);
    if (f.clock_compute)
      p.fillRect(QRectF(clock.left(), clock.top(), std::min(wc, clock.width()), clock.height()),
                 kCompute);
    if (f.clock_allreduce)
      p.fillRect(
          QRectF(clock.left() + wc, clock.top(), std::max(clock.width() - wc, 0.0), clock.height()),
          kSauce);
  }
}

}  // namespace brigade::gui
