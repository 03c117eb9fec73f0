#include "gui/model/trace_index.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>

namespace brigade::gui {

// Level k >= 1 of a track: items merged at resolution level_width_[k-1];
// null where the level merged nothing beyond the one below it (shared).
struct TraceIndex::TrackData {
  std::vector<std::int32_t> spans;  // by start; disjoint (one depth)
  std::vector<std::shared_ptr<const std::vector<LodItem>>> levels;
};

TraceIndex::TraceIndex(TraceIndex&&) noexcept = default;
TraceIndex& TraceIndex::operator=(TraceIndex&&) noexcept = default;
TraceIndex::~TraceIndex() = default;

namespace {

// Levels above the raw spans, each 4x coarser; the finest is the trace's
// extent / 4^12 (about 60 ns for a 1 s trace), the coarsest a quarter of it.
constexpr int kLevels = 12;

// Merges items below a resolution: a run of items each shorter than
// `resolution`, less than `resolution` apart and starting in the same bin of
// a grid `resolution` wide (from time 0) becomes one item; an item as long
// as the resolution stays alone. At most one merged item starts in a bin,
// so at most about two items per resolution of time come out: the
// O(visible) bound. The bins keep a merged item under two resolutions wide,
// so its colour (its longest member's) stands for about one pixel, as
// Perfetto colours a pixel by the longest slice in it; a run merged over a
// whole busy row took one colour for the row.
class Merger {
 public:
  Merger(double resolution, std::vector<LodItem>& out, const std::vector<TraceSpan>& spans)
      : r_(resolution), out_(out), spans_(spans) {}
  void add(const LodItem& x) {
    const bool small = x.end_seconds - x.start_seconds < r_;
    if (open_ && small_ && small && x.start_seconds - cur_.end_seconds < r_ &&
        std::floor(x.start_seconds / r_) == std::floor(cur_.start_seconds / r_)) {
      cur_.end_seconds = std::max(cur_.end_seconds, x.end_seconds);
      cur_.busy_seconds += x.busy_seconds;
      cur_.count += x.count;
      if (duration(x.rep) > duration(cur_.rep)) cur_.rep = x.rep;
      return;
    }
    flush();
    cur_ = x;
    small_ = small;
    open_ = true;
  }
  void flush() {
    if (open_) out_.push_back(cur_);
    open_ = false;
  }

 private:
  double duration(std::int32_t s) const {
    const TraceSpan& sp = spans_[static_cast<size_t>(s)];
    return sp.end_seconds - sp.start_seconds;
  }
  double r_;
  std::vector<LodItem>& out_;
  const std::vector<TraceSpan>& spans_;
  LodItem cur_;
  bool small_ = false;
  bool open_ = false;
};

LodItem item_of(const std::vector<TraceSpan>& spans, std::int32_t s) {
  const TraceSpan& sp = spans[static_cast<size_t>(s)];
  return {sp.start_seconds, sp.end_seconds, sp.end_seconds - sp.start_seconds, s, 1};
}

}  // namespace

TraceIndex TraceIndex::build(const Trace& trace, const Program* program) {
  TraceIndex ix;
  ix.trace_ = &trace;
  const std::vector<TraceSpan>& spans = trace.spans;
  const size_t n = spans.size();

  ix.classes_.resize(n);
  ix.depths_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const TraceSpan& s = spans[i];
    const std::string_view name = s.name >= 0 && static_cast<size_t>(s.name) < trace.names.size()
                                      ? std::string_view(trace.names[static_cast<size_t>(s.name)])
                                      : std::string_view();
    ix.classes_[i] = gui::span_class(s, name, program);
    ix.classes_present_ |= class_bit(ix.classes_[i]);
  }
  if (n > 0) {
    ix.start_ = spans[0].start_seconds;
    ix.end_ = spans[0].end_seconds;
    for (const TraceSpan& s : spans) {
      ix.start_ = std::min(ix.start_, s.start_seconds);
      ix.end_ = std::max(ix.end_, s.end_seconds);
    }
  }
  for (const TraceTransfer& x : trace.transfers) {
    if (n == 0 && &x == &trace.transfers.front()) ix.start_ = ix.end_ = x.start_seconds;
    ix.start_ = std::min(ix.start_, x.start_seconds);
    ix.end_ = std::max(ix.end_, x.end_seconds);
  }

  // Spans by stream, then by (start, longer first) so that an enclosing span
  // comes before the spans it encloses.
  int nstreams = static_cast<int>(trace.streams.size());
  for (const TraceSpan& s : spans) nstreams = std::max(nstreams, s.stream + 1);
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    const TraceSpan& x = spans[static_cast<size_t>(a)];
    const TraceSpan& y = spans[static_cast<size_t>(b)];
    if (x.stream != y.stream) return x.stream < y.stream;
    if (x.start_seconds != y.start_seconds) return x.start_seconds < y.start_seconds;
    if (x.end_seconds != y.end_seconds) return x.end_seconds > y.end_seconds;
    return a < b;
  });

  // Depths: each span takes the smallest depth free at its start (interval
  // partitioning), so nested spans go one below their parent.
  ix.stream_track_offsets_.assign(static_cast<size_t>(nstreams) + 1, 0);
  size_t i = 0;
  for (int st = 0; st < nstreams; ++st) {
    std::vector<std::vector<std::int32_t>> depth_spans;
    using Busy = std::pair<double, int>;  // (end, depth)
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
    std::priority_queue<int, std::vector<int>, std::greater<>> free_depths;
    for (; i < n && spans[static_cast<size_t>(order[i])].stream == st; ++i) {
      const TraceSpan& s = spans[static_cast<size_t>(order[i])];
      while (!busy.empty() && busy.top().first <= s.start_seconds) {
        free_depths.push(busy.top().second);
        busy.pop();
      }
      int d;
      if (!free_depths.empty()) {
        d = free_depths.top();
        free_depths.pop();
      } else {
        d = static_cast<int>(depth_spans.size());
        depth_spans.emplace_back();
      }
      depth_spans[static_cast<size_t>(d)].push_back(order[i]);
      ix.depths_[static_cast<size_t>(order[i])] = static_cast<std::uint16_t>(std::min(d, 65535));
      busy.push({s.end_seconds, d});
    }
    for (size_t d = 0; d < depth_spans.size(); ++d) {
      ix.stream_tracks_.push_back(static_cast<std::int32_t>(ix.tracks_.size()));
      ix.tracks_.push_back({st, static_cast<std::int32_t>(d)});
      TrackData td;
      td.spans = std::move(depth_spans[d]);
      ix.data_.push_back(std::move(td));
    }
    ix.stream_track_offsets_[static_cast<size_t>(st) + 1] =
        static_cast<std::int64_t>(ix.stream_tracks_.size());
  }

  // Levels of detail.
  const double extent = std::max(ix.end_ - ix.start_, 1e-12);
  for (int k = 1; k <= kLevels; ++k)
    ix.level_width_.push_back(extent * std::pow(4.0, k - 1 - kLevels));
  std::vector<LodItem> scratch;
  for (TrackData& td : ix.data_) {
    td.levels.assign(kLevels, nullptr);
    std::shared_ptr<const std::vector<LodItem>> below;  // null: the raw spans
    size_t below_count = td.spans.size();
    for (int k = 0; k < kLevels; ++k) {
      if (below_count <= 1) {
        td.levels[static_cast<size_t>(k)] = below;
        continue;
      }
      scratch.clear();
      Merger m(ix.level_width_[static_cast<size_t>(k)], scratch, spans);
      if (below) {
        for (const LodItem& x : *below) m.add(x);
      } else {
        for (std::int32_t s : td.spans) m.add(item_of(spans, s));
      }
      m.flush();
      if (scratch.size() < below_count) {
        below = std::make_shared<const std::vector<LodItem>>(scratch);
        below_count = scratch.size();
      }
      td.levels[static_cast<size_t>(k)] = below;
    }
  }

  // Transfers by start, with the running maximum of their ends (they overlap).
  ix.transfers_by_start_.resize(trace.transfers.size());
  std::iota(ix.transfers_by_start_.begin(), ix.transfers_by_start_.end(), 0);
  std::sort(ix.transfers_by_start_.begin(), ix.transfers_by_start_.end(),
            [&](std::int32_t a, std::int32_t b) {
              const double sa = trace.transfers[static_cast<size_t>(a)].start_seconds;
              const double sb = trace.transfers[static_cast<size_t>(b)].start_seconds;
              return sa != sb ? sa < sb : a < b;
            });
  ix.transfer_max_end_.resize(ix.transfers_by_start_.size());
  double mx = -INFINITY;
  for (size_t k = 0; k < ix.transfers_by_start_.size(); ++k) {
    mx = std::max(mx, trace.transfers[static_cast<size_t>(ix.transfers_by_start_[k])].end_seconds);
    ix.transfer_max_end_[k] = mx;
  }

  TaskId max_task = -1;
  for (const TraceSpan& s : spans) max_task = std::max(max_task, s.task);
  ix.task_span_.assign(static_cast<size_t>(max_task + 1), -1);
  for (size_t k = 0; k < n; ++k)
    if (spans[k].task >= 0 && ix.task_span_[static_cast<size_t>(spans[k].task)] < 0)
      ix.task_span_[static_cast<size_t>(spans[k].task)] = static_cast<std::int32_t>(k);
  return ix;
}

std::span<const std::int32_t> TraceIndex::tracks_of_stream(int stream) const {
  if (stream < 0 || static_cast<size_t>(stream) + 1 >= stream_track_offsets_.size()) return {};
  const auto b = static_cast<size_t>(stream_track_offsets_[static_cast<size_t>(stream)]);
  const auto e = static_cast<size_t>(stream_track_offsets_[static_cast<size_t>(stream) + 1]);
  return {stream_tracks_.data() + b, e - b};
}

std::span<const std::int32_t> TraceIndex::track_spans(int t) const {
  return data_[static_cast<size_t>(t)].spans;
}

void TraceIndex::query(int t, double t0, double t1, double resolution_seconds,
                       std::vector<LodItem>& out) const {
  const TrackData& td = data_[static_cast<size_t>(t)];
  const std::vector<TraceSpan>& spans = trace_->spans;
  int level = 0;
  while (level < kLevels && level_width_[static_cast<size_t>(level)] <= resolution_seconds) ++level;
  Merger m(resolution_seconds, out, spans);
  const std::vector<LodItem>* items =
      level > 0 ? td.levels[static_cast<size_t>(level - 1)].get() : nullptr;
  if (items) {
    auto it = std::lower_bound(items->begin(), items->end(), t0,
                               [](const LodItem& x, double v) { return x.end_seconds < v; });
    for (; it != items->end() && it->start_seconds <= t1; ++it) m.add(*it);
  } else {
    auto it = std::lower_bound(td.spans.begin(), td.spans.end(), t0, [&](std::int32_t s, double v) {
      return spans[static_cast<size_t>(s)].end_seconds < v;
    });
    for (; it != td.spans.end() && spans[static_cast<size_t>(*it)].start_seconds <= t1; ++it)
      m.add(item_of(spans, *it));
  }
  m.flush();
}

void TraceIndex::spans_in(int t, double t0, double t1, std::vector<std::int32_t>& out) const {
  const TrackData& td = data_[static_cast<size_t>(t)];
  const std::vector<TraceSpan>& spans = trace_->spans;
  auto it = std::lower_bound(td.spans.begin(), td.spans.end(), t0, [&](std::int32_t s, double v) {
    return spans[static_cast<size_t>(s)].end_seconds < v;
  });
  for (; it != td.spans.end() && spans[static_cast<size_t>(*it)].start_seconds <= t1; ++it)
    out.push_back(*it);
}

std::int32_t TraceIndex::span_at(int t, double at, double tolerance_seconds) const {
  const TrackData& td = data_[static_cast<size_t>(t)];
  const std::vector<TraceSpan>& spans = trace_->spans;
  auto it = std::lower_bound(
      td.spans.begin(), td.spans.end(), at - tolerance_seconds,
      [&](std::int32_t s, double v) { return spans[static_cast<size_t>(s)].end_seconds < v; });
  std::int32_t best = -1;
  double best_d = INFINITY;
  for (; it != td.spans.end(); ++it) {
    const TraceSpan& s = spans[static_cast<size_t>(*it)];
    if (s.start_seconds > at + tolerance_seconds) break;
    const double d = at < s.start_seconds ? s.start_seconds - at
                     : at > s.end_seconds ? at - s.end_seconds
                                          : 0.0;
    if (d < best_d) {
      best_d = d;
      best = *it;
    }
    if (d == 0) break;
  }
  return best;
}

void TraceIndex::transfers_in(double t0, double t1, std::vector<std::int32_t>& out) const {
  const auto b = std::lower_bound(transfer_max_end_.begin(), transfer_max_end_.end(), t0);
  const std::vector<TraceTransfer>& xs = trace_->transfers;
  for (size_t k = static_cast<size_t>(b - transfer_max_end_.begin());
       k < transfers_by_start_.size(); ++k) {
    const TraceTransfer& x = xs[static_cast<size_t>(transfers_by_start_[k])];
    if (x.start_seconds > t1) break;
    if (x.end_seconds >= t0) out.push_back(transfers_by_start_[k]);
  }
}

std::int32_t TraceIndex::span_of_task(TaskId task) const {
  if (task < 0 || static_cast<size_t>(task) >= task_span_.size()) return -1;
  return task_span_[static_cast<size_t>(task)];
}

}  // namespace brigade::gui
