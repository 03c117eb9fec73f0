// The gradient buckets of a pipeline stage (costmodel/plan_stage.hpp): the
// transformer judge's bucket fill, kept apart from its stage loop.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "costmodel/plan_stage.hpp"

namespace brigade::cost::detail {
namespace {

// Whether the clock's place j of kernel list `ks` (clock_list,
// plan_transformer.cpp) runs no kernel that a data-parallel NCCL kernel
// takes SMs from: a collective alone, what of a collective outlasts the
// kernel beside it, or a kernel on fewer SMs already (`sm_held`: TE's
// userbuffers took them, and the simulator slows such a kernel no further,
// docs/simulator.md "NCCL's kernels take SMs"); a pair's place holds the
// kernel beside its collective.
bool place_at_full_rate(const std::vector<Kernel>& ks, size_t j) {
  if (opens_pair(ks, j)) return ks[j + 1].sm_held > 0;
  const bool closes = j > 0 && opens_pair(ks, j - 1);
  return closes || ks[j].is_collective || ks[j].sm_held > 0;
}

// The stage's gradient buckets as PyTorch DDP and the planner fill them. The
// backward of the last micro-batch completes the stage's gradient groups in
// order (chunks last to first, blocks in reverse, each block's groups in the
// order of its backward kernels; `times`: each kernel's, from the start of
// that backward): whole groups in completion order join the current bucket,
// which closes as soon as it holds at least `bucket_bytes` (ready when the
// group that filled it is); the last one closes when the backward ends
// (`window_seconds`, the backward's length).
// On a first stage with layers, `middle` gets the fill up to the embedding:
// a middle stage's (MiddleFill); `middle_ready` fills a middle stage's list
// from it instead of its kernels.
void fill_buckets(const StageLayout& lay, const KernelTimes& times, double bytes_per_element,
                  double bucket_bytes, BucketList& out, FlatBackward (&flat)[4], MiddleFill* middle,
                  const MiddleFill* middle_ready) {
  out.buckets.clear();
  // Each kind of block flattened once (FlatBackward): its additions to the
  // clock in order and the groups it completes; the blocks then replay them,
  // the same additions in the same order as kernel by kernel.
  auto flatten = [&](const StageBlock& blk, FlatBackward& f) {
    f.xs.clear();
    f.events.clear();
    f.full_rate.clear();
    const BlockTemplate& tpl = *blk.tpl;
    const KernelTimes::Lists& t = times.of(&tpl);
    const bool tied_head = blk.is_head && blk.tied >= 0;
    const int tied_wgrad = tied_head ? blk.figures->tied_wgrad : -1;
    const int* grads = blk.figures->backward_grad.data();
    // The recomputation runs just before backward kernel `recompute_before`
    // (after the last one when it equals their count; never outside that).
    const int count = static_cast<int>(tpl.backward.size());
    const int before = tpl.recompute_before;
    const bool recomputes = before >= 0 && before <= count;
    const auto cut = t.backward_clock.begin() + (recomputes ? before : count);
    f.xs.insert(f.xs.end(), t.backward_clock.begin(), cut);
    if (recomputes) f.xs.insert(f.xs.end(), t.recompute_clock.begin(), t.recompute_clock.end());
    f.xs.insert(f.xs.end(), cut, t.backward_clock.end());
    // A collective beside its next kernel (Kernel::beside) holds that
    // kernel's time at its place on the clock, and the kernel's place what
    // of the collective outlasts it (clock_list, plan_transformer.cpp).
    auto closes_pair = [&](const std::vector<Kernel>& ks, size_t j) {
      return j > 0 && opens_pair(ks, j - 1);
    };
    {
      // Where on the block's clock (the recomputation's at its place) the
      // clock keeps its whole rate beside the buckets.
      double at = 0;
      const int n_rec = recomputes ? static_cast<int>(t.recompute_clock.size()) : 0;
      size_t x = 0;
      // A ring kernel (context parallelism) runs its blocks one after
      // another, each after the hop beside the one before: where a hop
      // outlasts a block, nothing runs until it ends (`ring`: its block).
      auto place = [&](const std::vector<Kernel>& ks, size_t j, const std::vector<double>& ring) {
        const double len = f.xs[x++];
        if (place_at_full_rate(ks, j) && len > 0) f.full_rate.emplace_back(at, at + len);
        const int steps = ks[j].ring_steps;
        const double block = j < ring.size() ? ring[j] : 0.0;
        if (steps > 1 && block > 0) {
          const double pace = (len - block) / (steps - 1);  // max(block, hop)
          if (pace > block)
            for (int k = 0; k + 1 < steps; ++k)
              f.full_rate.emplace_back(at + k * pace + block, at + (k + 1) * pace);
        }
        at += len;
      };
      for (int n = 0; n <= count; ++n) {
        if (recomputes && n == before)
          for (int r = 0; r < n_rec; ++r) place(tpl.recompute, static_cast<size_t>(r), t.recompute_ring);
        if (n == count) break;
        place(tpl.backward, static_cast<size_t>(n), t.backward_ring);
      }
    }
    // Backward kernel n is addition n + 1 (and the recomputation's after it
    // when it comes later); beside a collective, addition n, which holds its
    // time.
    const auto shift = static_cast<std::uint32_t>(recomputes ? t.recompute_clock.size() : 0);
    for (int n = 0; n < count; ++n) {
      const int group = tied_head ? (tied_wgrad == n ? blk.tied : -1) : grads[n];
      const int q = closes_pair(tpl.backward, static_cast<size_t>(n)) ? n - 1 : n;
      if (group >= 0 && group < blk.owned && !blk.is_expert(group))
        f.events.push_back(
            {static_cast<std::uint32_t>(q + 1) + (recomputes && q >= before ? shift : 0),
             blk.group_elements[group] * bytes_per_element});
    }
  };
  GradientBucket cur;
  bool open = false;
  double now = 0;
  out.full_rate.clear();
  if (middle_ready != nullptr) {
    out.buckets = middle_ready->buckets;
    cur = middle_ready->current;
    open = middle_ready->open;
    now = middle_ready->now;
    out.full_rate = middle_ready->full_rate;
  } else {
    if (lay.last) flatten(lay.head, flat[2]);
    if (lay.recomputed_layers > 0) flatten(lay.layer, flat[1]);
    if (lay.kept_layers > 0) flatten(lay.layer_kept, flat[3]);
    if (lay.first) flatten(lay.embedding, flat[0]);
  }
  // (The clock and the bucket's bytes are separate sums: each takes its
  // additions in the same order as kernel by kernel, the bytes up to the
  // group that fills the bucket, then the clock up to that group's kernel.)
  auto block = [&](const FlatBackward& f) {
    for (const auto& [a, b] : f.full_rate) out.full_rate.emplace_back(now + a, now + b);
    const double* xs = f.xs.data();
    const FlatBackward::Event* ev = f.events.data();
    const size_t events = f.events.size();
    std::uint32_t n = 0;
    auto clock_to = [&](std::uint32_t end) {
      double t = now;
      for (; n + 4 <= end; n += 4) {
        t += xs[n];
        t += xs[n + 1];
        t += xs[n + 2];
        t += xs[n + 3];
      }
      for (; n < end; ++n) t += xs[n];
      now = t;
    };
    size_t e = 0;
    while (e < events) {
      double bytes = cur.bytes;
      size_t fills = events;
      for (; e < events; ++e) {
        bytes += ev[e].bytes;
        if (bytes >= bucket_bytes) {
          fills = e;
          break;
        }
      }
      cur.bytes = bytes;
      open = true;
      if (fills == events) break;
      clock_to(ev[fills].end);
      cur.ready_seconds = now;
      out.buckets.push_back(cur);
      cur = GradientBucket{};
      open = false;
      ++e;
    }
    clock_to(static_cast<std::uint32_t>(f.xs.size()));
  };
  for (int c = lay.chunks; c-- > 0 && middle_ready == nullptr;) {
    if (c == lay.chunks - 1 && lay.last) block(flat[2]);
    // (A chunk's layers from its last: block recomputation's kept ones first.)
    for (std::int64_t j = lay.chunk_kept(c); j-- > 0;) block(flat[3]);
    for (std::int64_t j = lay.chunk_recomputed(c); j-- > 0;) block(flat[1]);
    if (c == 0 && lay.first) {
      if (middle != nullptr) {
        middle->buckets = out.buckets;
        middle->current = cur;
        middle->open = open;
        middle->now = now;
        middle->full_rate = out.full_rate;
      }
      block(flat[0]);
    }
  }
  if (open) {
    cur.ready_seconds = now;
    out.buckets.push_back(cur);
  }
  out.window_seconds = now;
  out.sizes.clear();
  out.size_index.resize(out.buckets.size());
  out.bytes_sum = 0;
  // The sizes recur in the same order block after block: the search for
  // each starts after the last one found (the same index as from the start:
  // the sizes are distinct).
  size_t last = 0;
  const size_t n_buckets = out.buckets.size();
  for (size_t k = 0; k < n_buckets; ++k) {
    const double bytes = out.buckets[k].bytes;
    const size_t n_sizes = out.sizes.size();
    size_t at = n_sizes;
    for (size_t step = 0, x = last + 1; step < n_sizes; ++step, ++x) {
      if (x >= n_sizes) x -= n_sizes;
      if (out.sizes[x] == bytes) {
        at = x;
        break;
      }
    }
    if (at == n_sizes) out.sizes.push_back(bytes);
    last = at;
    out.size_index[k] = static_cast<std::uint32_t>(at);
    out.bytes_sum += bytes;
  }
  out.reduce.valid = out.gather.valid = false;
}

}  // namespace

// The stage's bucket list from the cache, filled there first if no entry
// has the same key (plan_transformer_cache.hpp).
BucketList& stage_buckets(TransformerCache& cache, const TransformerBlocks& tb,
                          const StageLayout& lay, bool pipelined, const KernelTimes& times,
                          double bytes_per_element, double bucket_bytes) {
  std::vector<double>& key = cache.key;
  key.clear();
  auto add = [&](const BlockTemplate& tpl) {
    const KernelTimes::Lists& t = times.of(&tpl);
    key.insert(key.end(), t.backward_clock.begin(), t.backward_clock.end());
    key.insert(key.end(), t.recompute_clock.begin(), t.recompute_clock.end());
    key.insert(key.end(), t.backward_ring.begin(), t.backward_ring.end());
    key.insert(key.end(), t.recompute_ring.begin(), t.recompute_ring.end());
  };
  if (lay.recomputed_layers > 0) add(tb.layer);
  if (lay.kept_layers > 0) add(tb.layer_kept);
  const size_t layer_times = key.size();
  if (lay.first) add(tb.embedding);
  if (lay.last) add(tb.head);
  const int role = (lay.first ? 1 : 0) | (lay.last ? 2 : 0) | (pipelined ? 4 : 0);
  for (BucketList& l : cache.lists)
    if (l.blocks == &tb && l.role == role && l.virtual_stages == lay.chunks &&
        l.layers_per_chunk == lay.layers_per_chunk && l.kept_per_chunk == lay.kept_per_chunk &&
        l.fewer_first == lay.fewer_first && l.fewer_last == lay.fewer_last &&
        l.bucket_bytes == bucket_bytes &&
        l.element_bytes == bytes_per_element && l.times == key)
      return l;
  if (cache.lists.size() < TransformerCache::kLists) cache.lists.emplace_back();
  BucketList& l = cache.lists[cache.next];
  cache.next = (cache.next + 1) % TransformerCache::kLists;
  l.blocks = &tb;
  l.role = role;
  l.virtual_stages = lay.chunks;
  l.layers_per_chunk = lay.layers_per_chunk;
  l.kept_per_chunk = lay.kept_per_chunk;
  l.fewer_first = lay.fewer_first;
  l.fewer_last = lay.fewer_last;
  l.bucket_bytes = bucket_bytes;
  l.element_bytes = bytes_per_element;
  l.times = key;
  // A middle stage after a first stage with the same layer times (a
  // pipeline's, judged in stage order) starts from where that one's
  // embedding began, which the first stage leaves in `middle`.
  MiddleFill& middle = cache.middle;
  const bool from_middle =
      role == 4 && middle.blocks == &tb && middle.virtual_stages == lay.chunks &&
      middle.layers_per_chunk == lay.layers_per_chunk &&
      middle.kept_per_chunk == lay.kept_per_chunk && middle.bucket_bytes == bucket_bytes &&
      middle.element_bytes == bytes_per_element && middle.times == key;
  // (Not a first stage a layer short: a middle stage's chunks are whole.)
  const bool leaves_middle = role == 5 && lay.layers_per_chunk > 0 && !lay.uneven();
  if (leaves_middle) {
    middle.blocks = &tb;
    middle.virtual_stages = lay.chunks;
    middle.layers_per_chunk = lay.layers_per_chunk;
    middle.kept_per_chunk = lay.kept_per_chunk;
    middle.bucket_bytes = bucket_bytes;
    middle.element_bytes = bytes_per_element;
    middle.times.assign(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(layer_times));
  }
  fill_buckets(lay, times, bytes_per_element, bucket_bytes, l, cache.flat,
               leaves_middle ? &middle : nullptr, from_middle ? &middle : nullptr);
  return l;
}

namespace {

// One chunk's blocks (forward order), their forward of one micro-batch and
// the gather buckets (forward order), as param_gather_chain fills them.
struct ChunkGathers {
  struct Bucket {
    double bytes = 0;
    std::size_t first = 0;
  };
  std::vector<const StageBlock*> blocks;
  std::vector<double> forward;
  double total = 0;
  // Of the forward, what runs on kernels a gather's NCCL kernel takes SMs
  // from (place_at_full_rate false).
  double slowable = 0;
  std::vector<Bucket> list;
  // The share of the forward a gather slows (0 when it has none).
  double sigma() const { return total > 0 ? slowable / total : 0.0; }
};

// A gather on the data-parallel stream: when it runs and the share of the
// device's SMs its NCCL kernel holds.
struct Busy {
  double from = 0, to = 0, share = 0;
};
// A stretch of the stage's compute (in the chain's timeline) and the share
// of it that a gather slows.
struct Compute {
  double from = 0, to = 0, sigma = 0;
};

// What the gathers' NCCL kernels add to the compute beside them: while a
// gather holding share s of the SMs runs beside compute of which sigma is
// on kernels it slows, that compute runs at 1 - s sigma of its rate, so
// each second of overlap leaves s sigma seconds of it for later (the
// simulator's rate model, docs/simulator.md "NCCL's kernels take SMs", to
// first order: the lost work is not itself slowed again).
double gathers_slowdown(const std::vector<Busy>& busy, const std::vector<Compute>& compute) {
  double extra = 0;
  for (const Busy& b : busy) {
    if (b.share <= 0) continue;
    for (const Compute& c : compute) {
      const double overlap = std::min(b.to, c.to) - std::max(b.from, c.from);
      if (overlap > 0) extra += b.share * c.sigma * overlap;
    }
  }
  return extra;
}

// Where a kernel of `d` seconds started at `t` ends: at its whole rate but
// where a gather of `busy` (in time order, one after the other on the
// data-parallel stream) runs beside it, at 1 - its share there where the
// kernel is one a gather's NCCL kernel takes SMs from (`slowable`), as the
// simulator runs it (docs/simulator.md, "NCCL's kernels take SMs").
double end_beside_gathers(double t, double d, bool slowable, const std::vector<Busy>& busy) {
  if (!slowable || !(d > 0)) return t + d;
  double left = d;
  for (const Busy& b : busy) {
    if (b.to <= t || !(b.share > 0)) continue;
    if (b.from > t) {
      if (left <= b.from - t) return t + left;
      left -= b.from - t;
      t = b.from;
    }
    const double rate = 1 - b.share;
    if (!(rate > 0)) {
      t = b.to;
      continue;
    }
    if (left <= (b.to - t) * rate) return t + left / rate;
    left -= (b.to - t) * rate;
    t = b.to;
  }
  return t + left;
}

// `f` asked once for each distinct argument, its answers kept.
std::function<Result<double>(double)> once(const std::function<Result<double>(double)>& f) {
  auto seen = std::make_shared<std::vector<std::pair<double, double>>>();
  return [f, seen](double x) -> Result<double> {
    for (const auto& [key, value] : *seen)
      if (key == x) return value;
    BRIGADE_ASSIGN_OR_RETURN(const double value, f(x));
    seen->emplace_back(x, value);
    return value;
  };
}

ChunkGathers chunk_gathers(const StageLayout& lay, const KernelTimes& times, int c,
                           double grad_bytes_per_element, double weight_bytes_per_element,
                           double fp8_weight_bytes_per_element, double bucket_bytes) {
  ChunkGathers g;
  lay.for_each_block(c, false, [&](const StageBlock& b) { g.blocks.push_back(&b); });
  for (const StageBlock* blk : g.blocks) {
    double f = 0;
    const std::vector<double>& clock = times.of(blk->tpl).forward_clock;
    for (size_t n = 0; n < clock.size(); ++n) {
      f += clock[n];
      if (!place_at_full_rate(blk->tpl->forward, n)) g.slowable += clock[n];
    }
    g.forward.push_back(f);
    g.total += f;
  }
  ChunkGathers::Bucket cur;
  double grad_bytes = 0;
  bool open = false;
  for (std::size_t j = g.blocks.size(); j-- > 0;) {
    const StageBlock& blk = *g.blocks[j];
    const bool tied_head = blk.is_head && blk.tied >= 0;
    const int tied_wgrad = tied_head ? blk.figures->tied_wgrad : -1;
    const int count = static_cast<int>(blk.tpl->backward.size());
    for (int n = 0; n < count; ++n) {
      const int group = tied_head ? (tied_wgrad == n ? blk.tied : -1)
                                  : blk.figures->backward_grad[static_cast<std::size_t>(n)];
      if (group < 0 || group >= blk.owned || blk.is_expert(group)) continue;
      grad_bytes += blk.group_elements[group] * grad_bytes_per_element;
      cur.bytes += blk.group_elements[group] * weight_bytes_per_element;
      if (blk.group_fp8 != nullptr)  // FP8 primary weights gathered in FP8
        cur.bytes -= blk.group_fp8[group] * (weight_bytes_per_element - fp8_weight_bytes_per_element);
      cur.first = j;
      open = true;
      if (grad_bytes >= bucket_bytes) {
        g.list.push_back(cur);
        cur = ChunkGathers::Bucket{};
        grad_bytes = 0;
        open = false;
      }
    }
  }
  if (open) g.list.push_back(cur);
  std::reverse(g.list.begin(), g.list.end());
  return g;
}

// Interleaved schedules (virtual_stages > 1): Megatron-LM's
// align_param_gather (ParamGatherChain in plan_stage.hpp). Chunks 0 and 1's
// gathers issued at the step's start, chunk c >= 2's when this rank's
// forward of virtual micro-batch (c-1)*P - rank starts; each block of a
// chunk's first forward waits for its bucket. The warm-up's forwards on
// this rank, virtual micro-batch by virtual micro-batch (chunk j = k / P,
// micro-batch n = k % P of the first round), kernel by kernel: each
// kernel a gather's NCCL kernel takes SMs from runs at 1 - its share while
// one runs beside it (end_beside_gathers), as the simulator runs it, so a
// forward slowed before a wait waits the less. Chunk j's first micro-
// batch starts at arrival + j * P * (f + hop) (f: one chunk's layers'
// forward, hop: one pipeline send), later by the earlier stages' later-
// chunk delays (`later_arrival`) and this rank's first forwards' delays so
// far, and no sooner than this rank has ended chunk j-1's P micro-batches;
// a chunk's other micro-batches follow its first. Each chunk's delay is
// how much later its first forward ends than it would start plus its
// length (carried down the pipeline); what the warm-up ends later by
// beyond those delays, and what gathers that outlast it take from the
// compute after it (to first order, at the last chunk's share), is the
// stage's own `slowed`.
Result<ParamGatherChain> aligned_param_gathers(
    const StageLayout& lay, const KernelTimes& times, double grad_bytes_per_element,
    double weight_bytes_per_element, double fp8_weight_bytes_per_element, double bucket_bytes,
    double arrival, int pipeline_size, int rank, double hop,
    const std::function<Result<double>(double)>& price_once,
    const std::function<Result<double>(double)>& share_once, double later_arrival) {
  ParamGatherChain out;
  const int v = lay.chunks, P = std::max(1, pipeline_size);
  std::vector<ChunkGathers> ch;
  for (int c = 0; c < v; ++c)
    ch.push_back(chunk_gathers(lay, times, c, grad_bytes_per_element, weight_bytes_per_element,
                               fp8_weight_bytes_per_element, bucket_bytes));
  // One chunk's layers' forward (block recomputation's kept layers timed
  // by their own template).
  auto forward_of = [&](const StageBlock& blk) {
    double one = 0;
    for (double x : times.of(blk.tpl).forward_clock) one += x;
    return one;
  };
  double f = forward_of(lay.layer) * static_cast<double>(lay.recomputed_per_chunk());
  if (lay.kept_per_chunk > 0)
    f += forward_of(lay.layer_kept) * static_cast<double>(lay.kept_per_chunk);
  // Chunk j's first micro-batch's start here, without the gathers.
  std::vector<double> begin(static_cast<std::size_t>(v), 0.0);
  for (int j = 0; j < v; ++j) {
    const auto sj = static_cast<std::size_t>(j);
    begin[sj] = arrival + j * P * (f + hop);
    if (j > 0) begin[sj] = std::max(begin[sj], begin[sj - 1] + P * ch[sj - 1].total);
  }
  // The earlier stages' later-chunk delays reach this stage's later chunks
  // with the first micro-batch.
  for (int j = 1; j < v; ++j) begin[static_cast<std::size_t>(j)] += later_arrival;
  const double unslowed_end = begin.back() + P * ch.back().total;
  std::vector<std::vector<double>> ends(static_cast<std::size_t>(v));
  double stream = 0;
  std::vector<Busy> busy;
  auto issue = [&](int c, double gate) -> Status {
    auto& e = ends[static_cast<std::size_t>(c)];
    for (const ChunkGathers::Bucket& bk : ch[static_cast<std::size_t>(c)].list) {
      BRIGADE_ASSIGN_OR_RETURN(const double seconds, price_once(bk.bytes));
      BRIGADE_ASSIGN_OR_RETURN(const double share, share_once(bk.bytes));
      const double from = std::max(stream, gate);
      stream = from + seconds;
      busy.push_back({from, stream, share});
      e.push_back(stream);
      out.seconds += seconds, out.bytes += bk.bytes, out.calls += 1;
    }
    return Status::ok();
  };
  for (int c = 0; c < std::min(2, v); ++c) BRIGADE_RETURN_IF_ERROR(issue(c, 0.0));
  for (int c = 2; c < v; ++c)
    if ((c - 1) * P - rank < 0) BRIGADE_RETURN_IF_ERROR(issue(c, 0.0));
  // Chunk c's forward from t, kernel by kernel beside the gathers; its
  // first waits for its buckets. (Past the last gather's end, at its whole
  // rate.)
  auto forward = [&](int c, double t, bool first) {
    const ChunkGathers& g = ch[static_cast<std::size_t>(c)];
    for (std::size_t j = 0; j < g.blocks.size(); ++j) {
      if (first)
        for (std::size_t b = 0; b < g.list.size(); ++b)
          if (g.list[b].first == j) t = std::max(t, ends[static_cast<std::size_t>(c)][b]);
      if (t >= stream) {
        t += g.forward[j];
        continue;
      }
      const BlockTemplate* tpl = g.blocks[j]->tpl;
      const std::vector<double>& kernels = times.of(tpl).forward_clock;
      for (std::size_t n = 0; n < kernels.size(); ++n)
        t = end_beside_gathers(t, kernels[n], !place_at_full_rate(tpl->forward, n), busy);
    }
    return t;
  };
  double shift = 0;  // the first-forward delays of the chunks so far, here
  double clock = 0;  // where this rank's forwards have got to
  for (int c = 0; c < v; ++c) {
    const auto sc = static_cast<std::size_t>(c);
    const ChunkGathers& g = ch[sc];
    const double start = begin[sc] + shift;
    for (int n = 0; n < P; ++n) {
      // Chunk c' >= 2's gathers, dispatched at this virtual micro-batch.
      const int k = c * P + n;
      const double at = n == 0 ? std::max(start, clock) : clock;
      for (int later = 2; later < v; ++later)
        if ((later - 1) * P - rank == k) BRIGADE_RETURN_IF_ERROR(issue(later, at));
      clock = forward(c, at, n == 0);
      if (n == 0) {
        const double delay = std::max(0.0, clock - (start + g.total));
        shift += delay;
        if (c == 0) {
          out.chunk0_delay = delay;
          out.chunk0_forward = g.total;
        } else {
          out.later_delay += delay;
        }
      }
    }
  }
  out.slowed =
      std::max(0.0, clock - unslowed_end - shift) +
      gathers_slowdown(busy, {{clock, std::numeric_limits<double>::infinity(), ch.back().sigma()}});
  return out;
}

}  // namespace

Result<ParamGatherChain> param_gather_chain(
    const StageLayout& lay, const KernelTimes& times, double grad_bytes_per_element,
    double weight_bytes_per_element, double fp8_weight_bytes_per_element, double bucket_bytes,
    double arrival, int pipeline_size, int rank, double hop,
    const std::function<Result<double>(double)>& price,
    const std::function<Result<double>(double)>& share, double later_arrival) {
  ParamGatherChain out;
  // Each asked once a size (a stage's buckets repeat their sizes).
  const auto price_once = once(price), share_once = once(share);
  if (lay.chunks > 1)
    return aligned_param_gathers(lay, times, grad_bytes_per_element, weight_bytes_per_element,
                                 fp8_weight_bytes_per_element, bucket_bytes, arrival, pipeline_size,
                                 rank, hop, price_once, share_once, later_arrival);
  for (int c = 0; c < lay.chunks; ++c) {
    // The chunk's blocks, their forward, its buckets (forward order).
    const ChunkGathers g = chunk_gathers(lay, times, c, grad_bytes_per_element,
                                         weight_bytes_per_element,
                                         fp8_weight_bytes_per_element, bucket_bytes);
    const std::vector<const StageBlock*>& blocks = g.blocks;
    const std::vector<ChunkGathers::Bucket>& list = g.list;
    const double total = g.total;
    // The chain against the forward, kernel by kernel: each block's kernels
    // slowed where a gather runs beside them.
    const double start = c == 0 ? arrival : 0.0;
    double clock = start, stream = 0;
    std::size_t issued = 0;  // gathers 0..issued-1 are on the stream
    std::vector<Busy> busy;
    auto issue = [&](double gate) -> Result<double> {
      const double bytes = list[issued].bytes;
      BRIGADE_ASSIGN_OR_RETURN(const double seconds, price_once(bytes));
      BRIGADE_ASSIGN_OR_RETURN(const double sm, share_once(bytes));
      const double from = std::max(stream, gate);
      stream = from + seconds;
      busy.push_back({from, stream, sm});
      out.seconds += seconds, out.bytes += bytes, out.calls += 1;
      ++issued;
      return stream;
    };
    std::vector<double> ends(list.size(), 0.0);
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      const double gate = clock;
      double begin = clock;
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (list[k].first != j) continue;
        if (issued == k) {
          BRIGADE_ASSIGN_OR_RETURN(ends[k], issue(k > 0 || c > 0 ? gate : 0.0));
        }
        if (k + 1 < list.size() && issued == k + 1) {
          BRIGADE_ASSIGN_OR_RETURN(ends[k + 1], issue(gate));
        }
        begin = std::max(begin, ends[k]);
      }
      // (Every gather beside block j is on the stream now: a later one
      // waits for a later block's start.)
      clock = begin;
      const BlockTemplate* tpl = blocks[j]->tpl;
      const std::vector<double>& kernels = times.of(tpl).forward_clock;
      for (std::size_t n = 0; n < kernels.size(); ++n)
        clock = end_beside_gathers(clock, kernels[n], !place_at_full_rate(tpl->forward, n), busy);
    }
    // The chunk's first forward ends later by its waits and its slowed
    // kernels (chunk 0's carried down the pipeline); a gather that outlasts
    // it slows the compute after it, to first order at the forward's share.
    const double after =
        gathers_slowdown(busy, {{clock, std::numeric_limits<double>::infinity(), g.sigma()}});
    const double delay = std::max(0.0, clock - (start + total)) + after;
    if (c == 0) {
      out.chunk0_delay = delay;
      out.chunk0_forward = total;
    } else {
      out.later_delay += delay;
    }
  }
  return out;
}

Zero2LastBackward zero2_last_backward(const StageLayout& lay, const KernelTimes& times,
                                      const BucketList& bl, double bucket_bytes_per_element,
                                      double grad_bytes, bool writes) {
  Zero2LastBackward best{true, 0.0, 0.0};
  const std::vector<double>& ends = bl.reduce.ends_work;
  if (ends.size() != bl.buckets.size() || bucket_bytes_per_element <= 0) return Zero2LastBackward{};
  // The whole gradients freed once the clock reaches `x` (the buckets end in order).
  size_t z = 0;
  double freed_grads = 0;
  auto free_to = [&](double x) {
    for (; z < ends.size() && ends[z] <= x; ++z)
      freed_grads += bl.buckets[z].bytes / bucket_bytes_per_element * grad_bytes;
  };
  double now = 0, freed = 0, written = 0, recomputed = 0;
  auto consider = [&]() {
    const double a = recomputed - freed, g = written - freed_grads;
    if (a + g > best.activations + best.grads) best.activations = a, best.grads = g;
  };
  free_to(0);
  best.grads = -freed_grads;
  struct Instant {
    double at = 0, recompute = 0, grads = 0;
  };
  std::vector<Instant> instants;
  auto block = [&](const StageBlock& blk) {
    const BlockTemplate& tpl = *blk.tpl;
    const KernelTimes::Lists& t = times.of(&tpl);
    const int count = static_cast<int>(tpl.backward.size());
    const int before = tpl.recompute_before;
    const bool recomputes = before >= 0 && before <= count;
    double rec_len = 0;
    if (recomputes)
      for (double x : t.recompute_clock) rec_len += x;
    // Where backward kernel n starts on the clock (the recomputation's at its place).
    std::vector<double> start(static_cast<size_t>(count) + 1, 0.0);
    double at = now;
    for (int n = 0; n <= count; ++n) {
      if (recomputes && n == before) at += rec_len;
      start[static_cast<size_t>(n)] = at;
      if (n < count) at += t.backward_clock[static_cast<size_t>(n)];
    }
    instants.clear();
    if (recomputes)
      instants.push_back({start[static_cast<size_t>(before)] - rec_len,
                          blk.figures->recompute_saved_bytes, 0.0});
    if (writes) {
      const bool tied_head = blk.is_head && blk.tied >= 0;
      const int tied_wgrad = tied_head ? blk.figures->tied_wgrad : -1;
      for (int n = 0; n < count; ++n) {
        const int group = tied_head ? (tied_wgrad == n ? blk.tied : -1)
                                    : blk.figures->backward_grad[static_cast<size_t>(n)];
        if (group < 0 || group >= blk.owned || blk.is_expert(group)) continue;
        // A GEMM beside a collective starts with it (Kernel::beside).
        const int q = n > 0 && opens_pair(tpl.backward, static_cast<size_t>(n - 1)) ? n - 1 : n;
        instants.push_back({start[static_cast<size_t>(q)], 0.0, blk.group_elements[group] * grad_bytes});
      }
    }
    std::stable_sort(instants.begin(), instants.end(),
                     [](const Instant& a, const Instant& b) { return a.at < b.at; });
    for (const Instant& in : instants) {
      free_to(in.at);
      recomputed += in.recompute;
      written += in.grads;
      consider();
    }
    now = at;
    freed += blk.figures->saved_bytes;
    recomputed = 0;
  };
  lay.for_each_block(0, true, block);
  return best;
}

}  // namespace brigade::cost::detail
