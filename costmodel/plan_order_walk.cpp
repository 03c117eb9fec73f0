// The closed form's pipeline order walk (costmodel/plan_order_walk.hpp).
#include "costmodel/plan_order_walk.hpp"

#include <array>
#include <limits>

namespace brigade::cost::detail {
namespace {

// A stage's 'data' stream under ZeRO-3 (ChunkOrder::zero3): its runs so far
// (from, to, share), `next` the first not over at the stage's clock, `end`
// the last one's end; `ready`, each block's gather's end for the pass that
// uses it (-1: none issued), `ahead` the next pass's first block's, issued
// at the end of the pass before.
struct Zero3Stream {
  std::vector<StreamRun> runs;
  std::vector<double> ready;
  size_t next = 0;
  double end = 0;
  double computed = 0;  // the stage's last compute's end
  void reset(size_t blocks) {
    runs.clear(), ready.assign(blocks, -1.0), next = 0, end = 0, computed = 0;
  }
};

// One pass of chunk c on a ZeRO-3 stage (as zero3_walk without a pipeline,
// planner/lower_transformer_stage.cpp): its first gathers issued when the
// stage's compute before it ends (`free`), its first block computing once
// its input is there (`ready`) and its gather has ended; each block's gather
// then the next's issued at its start (past the last, the next pass's
// first, block `ahead` where the prefetch mode reaches it, -1: none), a
// backward block's reduce-scatter at its end; a block slowed beside a run
// by its share, but for its tensor-parallel collectives. Its end.
double zero3_pass(Zero3Stream& s, const Zero3Stage& z, int c, bool forward, double free,
                  double ready, long ahead, bool prefetch) {
  const size_t lo = z.chunk_begin[static_cast<size_t>(c)];
  const size_t hi = z.chunk_begin[static_cast<size_t>(c) + 1];
  double t = free;
  auto issue = [&](double seconds, double share) {
    const double start = std::max(s.end, t);
    s.end = start + seconds;
    s.runs.push_back({start, s.end, share});
    return s.end;
  };
  auto gather = [&](size_t j) {
    if (z.blocks[j].g > 0 && s.ready[j] < 0) s.ready[j] = issue(z.blocks[j].g, z.blocks[j].g_share);
  };
  double ahead_ready = -1;
  const size_t n = hi - lo;
  auto at = [&](size_t i) { return forward ? lo + i : hi - 1 - i; };
  // A run of like blocks (a chunk's layers) repeats its state once it is
  // settled: after block i the state relative to the clock (the stream's
  // end, the next block's gather, the runs not over) is block i - 1's moved
  // by the same amount, so each further like block moves it once more, and
  // all but the run's last are stepped over at once (the same sums as
  // block by block, up to rounding).
  struct Live {
    double from, to, share;
  };
  thread_local std::vector<Live> before;  // block i - 1's runs not over, less its clock
  double before_t = 0, before_end = 0, before_next = 0;
  bool settled_candidate = false;
  for (size_t i = 0; i < n; ++i) {
    const size_t j = at(i);
    gather(j);
    if (!prefetch) {
    } else if (i + 1 < n) {
      gather(forward ? j + 1 : j - 1);
    } else if (ahead >= 0 && z.blocks[static_cast<size_t>(ahead)].g > 0) {
      const Zero3Block& a = z.blocks[static_cast<size_t>(ahead)];
      ahead_ready = issue(a.g, a.g_share);
    }
    if (i == 0) t = std::max(t, ready);
    t = std::max(t, s.ready[j]);
    t = compute_beside(s.runs, s.next, t, forward ? z.blocks[j].f : z.blocks[j].b,
                       forward ? z.blocks[j].f_tp : z.blocks[j].b_tp);
    if (!forward && z.blocks[j].r > 0) issue(z.blocks[j].r, z.blocks[j].r_share);
    // Like blocks ahead (the run's last excepted: what follows it differs)?
    size_t like = 0;
    while (i + 1 + like + 1 < n && z.blocks[at(i + 1 + like)] == z.blocks[j]) ++like;
    const bool like_before = i > 0 && z.blocks[at(i - 1)] == z.blocks[j];
    if (!prefetch || like == 0 || !like_before) {
      settled_candidate = false;
      continue;
    }
    while (s.next < s.runs.size() && s.runs[s.next].to <= t) ++s.next;
    const double next_ready = s.ready[at(i + 1)];
    if (settled_candidate) {
      const double d = t - before_t;
      const double eps = 1e-12 * t;  // (rounding: the state as of two like blocks)
      auto near = [&](double a, double b) { return std::fabs(a - b) <= eps; };
      bool same = d > 0 && near(s.end - before_end, d) && near(next_ready - before_next, d) &&
                  s.runs.size() - s.next == before.size();
      for (size_t x = 0; same && x < before.size(); ++x) {
        const auto& r = s.runs[s.next + x];
        same = near(r.from - t, before[x].from) && near(r.to - t, before[x].to) &&
               r.share == before[x].share;
      }
      if (same && like >= 2) {
        // Blocks i + 1 ... i + k stepped over; block i + k + 1, the run's
        // last like one, runs as its own (its gather was issued at block
        // i + k's start, one like block's later), prefetching what follows.
        const size_t k = like - 1;
        const double shift = static_cast<double>(k) * d;
        t += shift, s.end += shift;
        for (size_t x = s.next; x < s.runs.size(); ++x) s.runs[x].from += shift, s.runs[x].to += shift;
        s.ready[at(i + 1)] = -1.0;
        s.ready[at(i + 1 + k)] = next_ready + shift;
        i += k;
        settled_candidate = false;
        continue;
      }
    }
    before.clear();
    for (size_t x = s.next; x < s.runs.size(); ++x)
      before.push_back({s.runs[x].from - t, s.runs[x].to - t, s.runs[x].share});
    before_t = t, before_end = s.end, before_next = next_ready;
    settled_candidate = true;
  }
  // FP8 delayed scaling: the pass ends with its chunk's amax reduction, on
  // the compute stream beside the data stream's runs (the next pass's
  // gathers go after it).
  if (static_cast<size_t>(c) < z.amax_chunk.size() && z.amax_chunk[static_cast<size_t>(c)])
    t = amax_beside(s.runs, s.next, t, forward ? z.amax_fwd : z.amax_bwd);
  for (size_t j = lo; j < hi; ++j) s.ready[j] = -1.0;
  if (ahead >= 0) s.ready[static_cast<size_t>(ahead)] = ahead_ready;
  return t;
}

// One stage's bucket stream beside its backwards (ChunkOrder::buckets): the
// runs started so far (from, to, share), in order; `next`: the first not
// over at the stage's clock; `end`: the last one's end; `z`: the next
// bucket to start.
struct BucketStream {
  struct Run {
    double from, to, share;
  };
  std::vector<Run> runs;
  size_t next = 0, z = 0;
  double end = 0;
  void reset() { runs.clear(), next = 0, z = 0, end = 0; }
};

// A backward of chunk c of `cb`'s stage from t0, `work` long at its whole
// rate (`scale`: work per second of its clock), the last of its chunk or
// not, beside the stream's runs: its end. The last starts its chunk's
// buckets as it reaches them (buckets_beside_backward's clock, over passes).
[[gnu::noinline]] double backward_beside(BucketStream& s, const ChunkBuckets& cb, int c, bool last, double t0,
                       double work, double scale) {
  if (!last && (s.runs.empty() || s.runs.back().to <= t0)) return t0 + work;
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const auto sc = static_cast<size_t>(c);
  const size_t f_begin = cb.full_begin[sc], f_end = cb.full_begin[sc + 1];
  size_t fi = f_begin;
  double t = t0, w = 0;
  auto advance = [&](double target) {
    while (w < target) {
      while (s.next < s.runs.size() && s.runs[s.next].to <= t) ++s.next;
      const bool in_run = s.next < s.runs.size() && s.runs[s.next].from <= t;
      const double slow = in_run ? 1 - std::min(1.0, s.runs[s.next].share) : 1.0;
      const double t_limit = s.next < s.runs.size()
                                 ? (in_run ? s.runs[s.next].to : s.runs[s.next].from)
                                 : kNever;
      if (slow >= 1) {  // no run beside: the whole rate, stretches or not
        if (t + (target - w) <= t_limit) {
          t += target - w, w = target;
        } else {
          w += t_limit - t, t = t_limit;
        }
        continue;
      }
      while (w < target) {
        while (fi < f_end && cb.full_rate[fi].second * scale <= w) ++fi;
        const bool in_full = fi < f_end && cb.full_rate[fi].first * scale <= w;
        const double rate = in_full ? 1.0 : slow;
        double w_limit = target;
        if (fi < f_end)
          w_limit = std::min(w_limit, (in_full ? cb.full_rate[fi].second : cb.full_rate[fi].first) *
                                          scale);
        if (rate <= 0) {
          t = t_limit;
          break;
        }
        const double done_at = t + (w_limit - w) / rate;
        if (done_at <= t_limit) {
          t = done_at, w = w_limit;
        } else {
          w += rate * (t_limit - t), t = t_limit;
          break;
        }
      }
    }
    return t;
  };
  if (last)
    for (; s.z < cb.chunk.size() && cb.chunk[s.z] == c; ++s.z) {
      const double start = std::max(s.end, advance(std::min(cb.offset[s.z] * scale, work)));
      s.end = start + cb.seconds[s.z];
      s.runs.push_back({start, s.end, cb.share[s.z]});
    }
  return advance(work);
}
// The order of every stage for (schedule, p, v, m), step by step (the
// planner's pipeline_schedule): each step's virtual stage and micro-batch,
// a backward's virtual stage as -1 - vs. Kept per thread for the last few,
// the least recently used replaced: a search walks the same four again and
// again, and chunk_order_periodic holds three at once.
struct ChunkSteps {
  bool gpipe = false;
  int p = 0, v = 0;
  std::int64_t m = 0;
  std::uint64_t used = 0;
  std::vector<std::int32_t> vs;  // stage i's steps at [i * 2 m v, (i + 1) * 2 m v)
  std::vector<std::int32_t> k;
};
const ChunkSteps& chunk_steps(bool gpipe, int p, int v, std::int64_t m) {
  thread_local std::array<ChunkSteps, 6> kept;
  thread_local std::uint64_t clock = 0;
  ++clock;
  ChunkSteps* oldest = &kept[0];
  for (ChunkSteps& c : kept) {
    if (c.used > 0 && c.gpipe == gpipe && c.p == p && c.v == v && c.m == m) {
      c.used = clock;
      return c;
    }
    if (c.used < oldest->used) oldest = &c;
  }
  ChunkSteps& c = *oldest;
  c.gpipe = gpipe, c.p = p, c.v = v, c.m = m, c.used = clock;
  const std::int64_t total = m * v, group = static_cast<std::int64_t>(p) * v;
  c.vs.resize(static_cast<size_t>(p * 2 * total)), c.k.resize(c.vs.size());
  for (int i = 0; i < p; ++i) {
    size_t n = static_cast<size_t>(i) * static_cast<size_t>(2 * total);
    if (v == 1) {  // GPipe; 1F1B: p - i - 1 forwards, then one of each
      auto put = [&](std::int64_t k, bool forward) {
        c.vs[n] = forward ? i : -1 - i;
        c.k[n] = static_cast<std::int32_t>(k);
        ++n;
      };
      const std::int64_t warmup = gpipe ? m : std::min<std::int64_t>(p - i - 1, m);
      for (std::int64_t k = 0; k < warmup; ++k) put(k, true);
      for (std::int64_t k = 0; k < m - warmup; ++k) put(warmup + k, true), put(k, false);
      if (gpipe)
        for (std::int64_t k = m; k-- > 0;) put(k, false);
      else
        for (std::int64_t k = m - warmup; k < m; ++k) put(k, false);
      continue;
    }
    const std::int64_t warmup =
        m == p ? total : std::min<std::int64_t>(2 * (p - i - 1) + (v - 1) * p, total);
    const std::int64_t remaining = total - warmup;
    auto put = [&](std::int64_t x, bool forward) {
      int chunk = static_cast<int>((x % group) / p);
      if (!forward) chunk = v - 1 - chunk;
      const int vs = chunk * p + i;
      c.vs[n] = forward ? vs : -1 - vs;
      c.k[n] = static_cast<std::int32_t>((x / group) * p + x % p);
      ++n;
    };
    for (std::int64_t x = 0; x < warmup; ++x) put(x, true);
    for (std::int64_t x = 0; x < remaining; ++x) put(warmup + x, true), put(x, false);
    for (std::int64_t x = remaining; x < total; ++x) put(x, false);
  }
  return c;
}

// The walk's state: each virtual stage's passes' ends by micro-batch
// (`stride` a virtual stage; -1: not yet walked), each stage's next step
// and the end of its last, its bucket or ZeRO-3 stream. With `log` on, the
// ends written are noted, so that a mark can take them back.
struct WalkState {
  int p = 0;
  size_t stride = 0;
  std::vector<double> f_end, b_end;
  std::vector<size_t> pos;
  std::vector<double> free_at;
  std::vector<BucketStream> streams;
  std::vector<Zero3Stream> z3;
  std::vector<int> work;
  std::vector<size_t> written;  // f_end (2 x) or b_end (2 x + 1) since the mark
  bool log = false;
};

void start_walk(WalkState& w, const ChunkOrder& o, std::int64_t stride) {
  w.p = o.p;
  w.stride = static_cast<size_t>(stride);
  const size_t cells = static_cast<size_t>(o.p * o.v) * w.stride;
  w.f_end.assign(cells, -1.0), w.b_end.assign(cells, -1.0);
  w.pos.assign(static_cast<size_t>(o.p), 0), w.free_at.assign(static_cast<size_t>(o.p), 0.0);
  if (o.buckets.size() == static_cast<size_t>(o.p)) {
    w.streams.resize(static_cast<size_t>(o.p));
    for (BucketStream& x : w.streams) x.reset();
  }
  if (o.zero3.size() == static_cast<size_t>(o.p)) {
    w.z3.resize(static_cast<size_t>(o.p));
    for (size_t i = 0; i < w.z3.size(); ++i) w.z3[i].reset(o.zero3[i].blocks.size());
  }
  w.written.clear(), w.log = false;
}

// Walks each stage of `order` (m micro-batches) on from where it stands, to
// its step limit[i] (none: to its end) or until it waits for a pass not yet
// walked.
void walk_steps(WalkState& w, const ChunkOrder& o, const ChunkSteps& order, std::int64_t m,
                const size_t* limit) {
  const int p = o.p, v = o.v;
  const auto steps = static_cast<size_t>(2 * m * v);
  const bool gpipe = v == 1 && o.schedule == PipelineSchedule::kGpipe;
  const size_t last_k = gpipe ? 0 : static_cast<size_t>(m) - 1;  // each stage's last backward's
  const bool extras = !o.last_extra.empty();
  const size_t mm = w.stride;
  const bool with_buckets = o.buckets.size() == static_cast<size_t>(p);
  const bool with_zero3 = o.zero3.size() == static_cast<size_t>(p);
  const int last_vs = p * v - 1;
  std::vector<double>& f_end = w.f_end;
  std::vector<double>& b_end = w.b_end;
  w.work.clear();
  for (int i = p; i-- > 0;) w.work.push_back(i);
  while (!w.work.empty()) {
    const int i = w.work.back();
    w.work.pop_back();
    const auto si = static_cast<size_t>(i);
    const std::int32_t* vs_of = order.vs.data() + si * steps;
    const std::int32_t* k_of = order.k.data() + si * steps;
    const double from_before = o.to_next[static_cast<size_t>((i + p - 1) % p)];
    const double from_after = o.to_previous[static_cast<size_t>((i + 1) % p)];
    const size_t stop = limit ? std::min(limit[si], steps) : steps;
    size_t n = w.pos[si];
    double free = w.free_at[si];
    bool moved = false;
    for (; n < stop; ++n) {
      const std::int32_t x = vs_of[n];
      const bool forward = x >= 0;
      const int vs = forward ? x : -1 - x;
      const auto k = static_cast<size_t>(k_of[n]);
      double ready = 0;
      if (forward) {
        if (vs > 0) {
          const double before = f_end[static_cast<size_t>(vs - 1) * mm + k];
          if (before < 0) break;
          ready = before + from_before;
        }
      } else if (vs == last_vs) {
        ready = f_end[static_cast<size_t>(vs) * mm + k];
      } else {
        const double after = b_end[static_cast<size_t>(vs + 1) * mm + k];
        if (after < 0) break;
        ready = after + from_after;
      }
      const double start = std::max(free, ready);
      if (with_zero3) {
        // The next pass of this stage, and its first block, where the
        // prefetch reaches it.
        long ahead = -1;
        if (n + 1 < steps && o.mode != Zero3Prefetch::kPerPass) {
          const std::int32_t y = vs_of[n + 1];
          const bool next_forward = y >= 0;
          if (o.mode == Zero3Prefetch::kAcrossPasses || !next_forward) {
            const int nc = (next_forward ? y : -1 - y) / p;
            const Zero3Stage& zs = o.zero3[si];
            ahead = next_forward ? static_cast<long>(zs.chunk_begin[static_cast<size_t>(nc)])
                                 : static_cast<long>(zs.chunk_begin[static_cast<size_t>(nc) + 1]) - 1;
          }
        }
        // (Its gathers go when the stage's compute before it ended, before
        // a blocking send after that compute; the pass computes after it.)
        Zero3Stream& zs = w.z3[si];
        const double computed =
            zero3_pass(zs, o.zero3[si], vs / p, forward, zs.computed, start, ahead, o.prefetch);
        zs.computed = computed;
        free = computed + (forward ? o.f_extra : o.b_extra)[static_cast<size_t>(vs)];
      } else if (!forward && with_buckets) {
        const ChunkBuckets& cb = o.buckets[si];
        const int c = vs / p;
        const double slowed = o.b_work[static_cast<size_t>(vs)];
        const double length = cb.length[static_cast<size_t>(c)];
        free = backward_beside(w.streams[si], cb, c, k == last_k, start, slowed,
                               length > 0 ? slowed / length : 1.0) +
               (o.b[static_cast<size_t>(vs)] - slowed);
      } else if (extras) {
        free = start + (forward ? o.f[si] + (k == 0 ? o.first_extra[si] : 0.0)
                                : o.b[si] + (k == last_k ? o.last_extra[si] : 0.0));
      } else {
        free = start + (forward ? o.f : o.b)[static_cast<size_t>(vs)];
      }
      const size_t at = static_cast<size_t>(vs) * mm + k;
      (forward ? f_end : b_end)[at] = free;
      if (w.log) w.written.push_back(2 * at + (forward ? 0 : 1));
      moved = true;
    }
    w.pos[si] = n, w.free_at[si] = free;
    // What this stage ran may let its neighbours go on.
    if (moved) w.work.push_back((i + 1) % p), w.work.push_back((i + p - 1) % p);
  }
}

// Each stage's last backward's end (and with buckets or ZeRO-3, its
// stream's end after the p ends) once the order of m micro-batches is walked.
void walk_ends(const WalkState& w, const ChunkOrder& o, std::int64_t m, std::vector<double>& ends) {
  const int p = o.p;
  const bool gpipe = o.v == 1 && o.schedule == PipelineSchedule::kGpipe;
  const size_t last_k = gpipe ? 0 : static_cast<size_t>(m) - 1;
  const bool with_buckets = o.buckets.size() == static_cast<size_t>(p);
  const bool with_zero3 = o.zero3.size() == static_cast<size_t>(p);
  ends.resize(static_cast<size_t>(with_buckets || with_zero3 ? 2 * p : p));
  for (int i = 0; i < p; ++i)
    ends[static_cast<size_t>(i)] = w.b_end[static_cast<size_t>(i) * w.stride + last_k];
  if (with_buckets)
    for (int i = 0; i < p; ++i)
      ends[static_cast<size_t>(p + i)] = w.streams[static_cast<size_t>(i)].end;
  if (with_zero3)
    for (int i = 0; i < p; ++i) ends[static_cast<size_t>(p + i)] = w.z3[static_cast<size_t>(i)].end;
}

// A walk's state to come back to: each stage's place, and of its ZeRO-3
// stream what a later step can still change (the runs from `next` on: the
// ones before are over at the stage's clock, never read again); the ends
// written after it are noted in the walk (WalkState::log) and taken back.
struct WalkMark {
  std::vector<size_t> pos;
  std::vector<double> free_at;
  struct Stream {
    size_t size = 0, next = 0;
    double end = 0, computed = 0;
    std::vector<StreamRun> tail;
    std::vector<double> ready;
  };
  std::vector<Stream> z3;
};

void mark_walk(WalkState& w, WalkMark& mark) {
  mark.pos = w.pos, mark.free_at = w.free_at;
  mark.z3.resize(w.z3.size());
  for (size_t i = 0; i < w.z3.size(); ++i) {
    const Zero3Stream& s = w.z3[i];
    WalkMark::Stream& x = mark.z3[i];
    x.size = s.runs.size(), x.next = s.next, x.end = s.end, x.computed = s.computed;
    x.tail.assign(s.runs.begin() + static_cast<std::ptrdiff_t>(s.next), s.runs.end());
    x.ready = s.ready;
  }
  w.written.clear(), w.log = true;
}

void back_to(WalkState& w, const WalkMark& mark) {
  for (size_t x : w.written) (x % 2 ? w.b_end : w.f_end)[x / 2] = -1.0;
  w.written.clear(), w.log = false;
  w.pos = mark.pos, w.free_at = mark.free_at;
  for (size_t i = 0; i < w.z3.size(); ++i) {
    Zero3Stream& s = w.z3[i];
    const WalkMark::Stream& x = mark.z3[i];
    s.runs.resize(x.size);
    std::copy(x.tail.begin(), x.tail.end(), s.runs.begin() + static_cast<std::ptrdiff_t>(x.next));
    s.next = x.next, s.end = x.end, s.computed = x.computed, s.ready = x.ready;
  }
}

// The steps the orders of ma and mb > ma micro-batches share, stage by
// stage (the first q[i] steps of stage i): alike in both (and so is the
// step after each, which a ZeRO-3 pass reads for its prefetch), before the
// shorter order's last backward (which ends with its extra time). Where
// each waits only for passes among them (true of every schedule here: the
// walk checks it, as a stage that waits for a pass past another's shared
// steps stops short of its own), they take the same inputs in both walks
// and end at the same times, bit for bit. Kept per thread for the last few.
struct SharedSteps {
  bool gpipe = false;
  int p = 0, v = 0;
  std::int64_t ma = 0, mb = 0;
  std::vector<size_t> q;
};
const std::vector<size_t>& shared_steps(bool gpipe, int p, int v, std::int64_t ma,
                                        std::int64_t mb) {
  thread_local std::array<SharedSteps, 4> kept;
  thread_local size_t next = 0;
  for (const SharedSteps& s : kept)
    if (!s.q.empty() && s.gpipe == gpipe && s.p == p && s.v == v && s.ma == ma && s.mb == mb)
      return s.q;
  SharedSteps& s = kept[next];
  next = (next + 1) % kept.size();
  s.gpipe = gpipe, s.p = p, s.v = v, s.ma = ma, s.mb = mb;
  const ChunkSteps& a = chunk_steps(gpipe, p, v, ma);
  const ChunkSteps& b = chunk_steps(gpipe, p, v, mb);
  const auto sa = static_cast<size_t>(2 * ma * v), sb = static_cast<size_t>(2 * mb * v);
  const auto last_k = static_cast<std::int32_t>(gpipe ? 0 : ma - 1);
  s.q.assign(static_cast<size_t>(p), 0);
  for (size_t i = 0; i < static_cast<size_t>(p); ++i) {
    const std::int32_t* va = a.vs.data() + i * sa;
    const std::int32_t* ka = a.k.data() + i * sa;
    const std::int32_t* vb = b.vs.data() + i * sb;
    const std::int32_t* kb = b.k.data() + i * sb;
    size_t alike = 0;
    while (alike < sa && va[alike] == vb[alike] && ka[alike] == kb[alike] &&
           !(va[alike] < 0 && ka[alike] == last_k))
      ++alike;
    s.q[i] = alike > 0 ? alike - 1 : 0;
  }
  return s.q;
}

}  // namespace

double compute_beside(const std::vector<StreamRun>& runs, size_t& next, double t, double work,
                      double full) {
  const double kernels = work > 0 ? 1 - full / work : 1.0;  // the share a run slows
  double w = 0;
  while (w < work) {
    while (next < runs.size() && runs[next].to <= t) ++next;
    const bool in_run = next < runs.size() && runs[next].from <= t;
    const double slow = in_run ? 1 - std::min(1.0, runs[next].share) : 1.0;
    const double rate = slow >= 1   ? 1.0
                        : slow <= 0 ? (kernels > 0 ? 0.0 : 1.0)
                                    : 1 / (kernels / slow + 1 - kernels);
    const double limit = next < runs.size() ? (in_run ? runs[next].to : runs[next].from)
                                            : std::numeric_limits<double>::infinity();
    if (rate <= 0) {
      t = limit;
      continue;
    }
    const double done_at = t + (work - w) / rate;
    if (done_at <= limit) {
      t = done_at, w = work;
    } else {
      w += rate * (limit - t), t = limit;
    }
  }
  return t;
}

double amax_beside(const std::vector<StreamRun>& runs, size_t& next, double t, const Zero3Amax& a) {
  t = compute_beside(runs, next, t, a.cat, 0);
  t = compute_beside(runs, next, t, a.reduce, a.reduce);
  return compute_beside(runs, next, t, a.update, 0);
}

void chunk_order_ends(const ChunkOrder& o, std::int64_t m, std::vector<double>& ends) {
  const bool gpipe = o.v == 1 && o.schedule == PipelineSchedule::kGpipe;
  thread_local WalkState w;
  start_walk(w, o, m);
  walk_steps(w, o, chunk_steps(gpipe, o.p, o.v, m), m, nullptr);
  walk_ends(w, o, m, ends);
}

std::int64_t chunk_order_periodic(const ChunkOrder& o, std::int64_t m, std::vector<double>& ends,
                                  std::vector<double>& first) {
  const int p = o.p;
  first.clear();
  if (m <= 4 * p) return chunk_order_ends(o, m, ends), m;
  const std::int64_t m1 = 2 * p + (m - 2 * p) % p, m2 = m1 + p, m3 = m1 + 2 * p;
  const bool gpipe = o.v == 1 && o.schedule == PipelineSchedule::kGpipe;
  thread_local std::vector<double> e2, e3;
  thread_local std::vector<size_t> q1;
  // The steps the three orders share, and those the two longer share more.
  q1 = shared_steps(gpipe, p, o.v, m1, m3);
  const std::vector<size_t>& q12 = shared_steps(gpipe, p, o.v, m1, m2);
  for (size_t i = 0; i < q1.size(); ++i) q1[i] = std::min(q1[i], q12[i]);
  const std::vector<size_t>& q2 = shared_steps(gpipe, p, o.v, m2, m3);
  const ChunkSteps& s1 = chunk_steps(gpipe, p, o.v, m1);
  const ChunkSteps& s2 = chunk_steps(gpipe, p, o.v, m2);
  const ChunkSteps& s3 = chunk_steps(gpipe, p, o.v, m3);
  thread_local WalkState w;
  thread_local WalkMark mark;
  auto reached = [&](const std::vector<size_t>& q) { return w.pos == q; };
  bool shared = o.buckets.empty();
  for (size_t i = 0; shared && i < q1.size(); ++i) shared = q2[i] >= q1[i];
  if (shared) {
    // The shared steps once; then each shorter order's rest, and back.
    start_walk(w, o, m3);
    walk_steps(w, o, s1, m1, q1.data());
    shared = reached(q1);
  }
  if (shared) {
    mark_walk(w, mark);
    walk_steps(w, o, s1, m1, nullptr);
    walk_ends(w, o, m1, first);
    back_to(w, mark);
    walk_steps(w, o, s2, m2, q2.data());
    shared = reached(q2);
  }
  if (shared) {
    mark_walk(w, mark);
    walk_steps(w, o, s2, m2, nullptr);
    walk_ends(w, o, m2, e2);
    back_to(w, mark);
    walk_steps(w, o, s3, m3, nullptr);
    walk_ends(w, o, m3, e3);
  } else {  // (not expected: the three walked apart)
    chunk_order_ends(o, m1, first), chunk_order_ends(o, m2, e2), chunk_order_ends(o, m3, e3);
  }
  const double periods = static_cast<double>((m - m1) / p);
  ends.resize(first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    const double d1 = e2[i] - first[i], d2 = e3[i] - e2[i];
    if (std::fabs(d2 - d1) > 1e-9 * std::max(1e-12, std::fabs(e3[i]))) {
      first.clear();
      return chunk_order_ends(o, m, ends), m;
    }
    ends[i] = first[i] + periods * d1;
  }
  return m1;
}

}  // namespace brigade::cost::detail
