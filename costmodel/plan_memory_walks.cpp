// The memory peaks of ZeRO-2 and ZeRO-3 stages along the pipeline's order
// (plan_stage.hpp, zero2_peak_* and zero3_peak): what the planner holds of
// the whole gradients and the gathered parameters, step by step, beside
// the activations in flight. Kept apart from the step (plan_transformer_step.cpp),
// which reads them for its memory per device.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "costmodel/plan_stage.hpp"

namespace brigade::cost::detail {
namespace {

// The stage's order of forward and backward steps (the planner's
// pipeline_schedule): calls forward(chunk) and backward(chunk) in turn.
// GPipe: every forward, then every backward; 1F1B: min(p - stage - 1, m)
// warm-up forwards, a forward and a backward at a time, the cool-down's
// backwards; interleaved: Megatron-LM's warm-up count, virtual
// micro-batch k running chunk (k mod pv) / p forward and v - 1 - that
// backward.
//
// With `skip` (called as skip(forward, chunk, count)) the walk leaves out
// what repeats: of the steady state's forward-backward pairs a whole number
// of periods of pv pairs (each chunk's forwards and backwards alike, so
// nothing held changes over one), keeping the first period and at least
// the last pair (whose next step is the cool-down's);
// of GPipe's forwards (backwards) with one chunk all but the first two and
// the last two, handed to `skip` as one run. Each step the walk makes sees
// the state it would have seen in the whole order.
template <class Forward, class Backward, class Skip>
void walk_schedule(PipelineSchedule schedule, int p, int m, int v, int stage, Forward forward,
                   Backward backward, Skip skip) {
  const std::int64_t total = static_cast<std::int64_t>(m) * v, group = static_cast<std::int64_t>(p) * v;
  std::int64_t warmup = 0;
  if (schedule == PipelineSchedule::kGpipe)
    warmup = total;
  else if (v == 1)
    warmup = std::min(p - stage - 1, m);
  else
    warmup = m == p ? total : std::min<std::int64_t>(2 * (p - stage - 1) + (v - 1) * p, total);
  auto f = [&](std::int64_t k) { forward(static_cast<int>((k % group) / p)); };
  auto b = [&](std::int64_t k) { backward(static_cast<int>(v - 1 - (k % group) / p)); };
  const bool runs = v == 1 && warmup == total && total > 4;  // GPipe, one chunk
  for (std::int64_t k = 0; k < warmup; ++k) {
    if (runs && k == 2) {
      skip(true, 0, total - 4);
      k = total - 3;
      continue;
    }
    f(k);
  }
  const std::int64_t pairs = total - warmup;
  const std::int64_t left_out = pairs > group + 1 ? (pairs - group - 1) / group * group : 0;
  for (std::int64_t j = 0; j < pairs; ++j) {
    if (j == group && left_out > 0) j += left_out;
    f(warmup + j), b(j);
  }
  for (std::int64_t k = pairs; k < total; ++k) {
    if (runs && k == 2) {
      skip(false, 0, total - 4);
      k = total - 3;
      continue;
    }
    b(k);
  }
}

}  // namespace


// ZeRO-2 (the planner, planner/lower_transformer_stage.cpp): each
// parameter group's whole gradient is written first by the stage's first
// backward (its completing kernel) and lives until its bucket's
// reduce-scatter in the last. So the peak is the largest of: the forwards'
// activations before any backward (no gradient yet); a forward after the
// first backward (1F1B's steady state: the micro-batches in flight and
// every gradient); and, walking each backward's blocks from the top (each
// block's saved activations freed after it, its recomputed ones while it
// runs), the first backward with the gradients it has written so far, a
// later one with all of them. Backward k starts with n_k micro-batches'
// activations held: GPipe m - k; 1F1B, after min(p - stage - 1, m)
// warm-up forwards (w), w + 1 through the steady state, then one fewer a
// backward. The last backward's buckets free their gradients as their
// reduce-scatters end: `last`, where valid, is its peak kernel by kernel
// with those frees (zero2_last_backward); else it is walked as the others.
Zero2Peak zero2_peak_one_chunk(const StageLayout& lay, PipelineSchedule schedule, int p, int m,
                               int stage, double grad_bytes, double whole,
                               const Zero2LastBackward& last) {
  const bool gpipe = schedule == PipelineSchedule::kGpipe;
  const int w = gpipe ? m : std::min(p - stage - 1, m);
  auto in_flight = [&](int k) { return gpipe ? m - k : (k < m - w ? w + 1 : m - k); };
  std::vector<const StageBlock*> order;  // backward order
  lay.for_each_block(0, true, [&](const StageBlock& b) { order.push_back(&b); });
  double one = 0;  // one micro-batch's saved activations
  for (const StageBlock* b : order) one += b->figures->saved_bytes;
  Zero2Peak best{in_flight(0) * one, 0.0};
  auto consider = [&](double a, double g) {
    if (a + g > best.activations + best.grads) best = {a, g};
  };
  if (!gpipe && m - w >= 2) consider((w + 1) * one, whole);
  auto walk = [&](int k) {
    const double held = in_flight(k) * one;
    double freed = 0, g = k == 0 ? 0.0 : whole;
    for (const StageBlock* b : order) {
      if (k == 0) g += b->owned_elements * grad_bytes;
      consider(held - freed + b->figures->recompute_saved_bytes, g);
      freed += b->figures->saved_bytes;
    }
  };
  if (m >= 2 || !last.valid) walk(0);
  if (m >= 3) walk(1);  // the largest of the backwards between the first and the last
  if (last.valid)
    consider(in_flight(m - 1) * one + last.activations, (m >= 2 ? whole : 0.0) + last.grads);
  else if (m >= 2)
    walk(m - 1);
  return best;
}

// The same on an interleaved stage (v chunks; Megatron-LM's order: the
// warm-up's forwards, then a forward and a backward at a time, then the
// cool-down's backwards; virtual micro-batch k runs chunk (k mod pv) / p
// forward and v - 1 - that backward): chunk c's whole gradients appear in
// its first backward and stay. Walked step by step: after each forward the
// activations held and the chunks' gradients so far; in each backward the
// chunk's blocks from the top as zero2_peak_one_chunk walks them; after a
// chunk's last backward its gradients are gone (its buckets' reduce-scatters
// end before the next backward's peak: taken so, not timed, as the one
// bucket clock is not the interleaved cool-down's), without `overlap` only
// after the whole backward (the buckets wait for it).
Zero2Peak zero2_peak_interleaved(const StageLayout& lay, int p, int m, int stage, double grad_bytes,
                                 bool overlap, std::span<const double> freed) {
  const int v = lay.chunks;
  struct Chunk {
    double saved = 0, grads = 0;
    Zero2Peak first, later;  // the largest of (recomputed - freed, written) in a backward
  };
  std::vector<Chunk> chunks(static_cast<size_t>(v));
  for (int c = 0; c < v; ++c) {
    std::vector<const StageBlock*> order;  // backward order
    lay.for_each_block(c, true, [&](const StageBlock& b) { order.push_back(&b); });
    Chunk& k = chunks[static_cast<size_t>(c)];
    double freed = 0, g = 0;
    bool any = false;
    for (const StageBlock* b : order) {
      g += b->owned_elements * grad_bytes;
      const double a = b->figures->recompute_saved_bytes - freed;
      if (!any || a + g > k.first.activations + k.first.grads) k.first = {a, g};
      if (!any || a > k.later.activations) k.later = {a, 0.0};
      any = true;
      freed += b->figures->saved_bytes;
    }
    k.saved = freed, k.grads = g;
  }
  // What each chunk's last backward frees: its buckets' where the buckets
  // hold every gradient the chunks write (a bucket that the next chunk's
  // gradients complete frees with that chunk's), all of its own otherwise.
  std::vector<double> frees(static_cast<size_t>(v));
  double written = 0, bucketed = 0;
  for (int c = 0; c < v; ++c) written += chunks[static_cast<size_t>(c)].grads;
  for (double x : freed) bucketed += x;
  const bool by_bucket =
      freed.size() == static_cast<size_t>(v) && std::fabs(bucketed - written) <= 1e-9 * written;
  for (int c = 0; c < v; ++c)
    frees[static_cast<size_t>(c)] =
        by_bucket ? freed[static_cast<size_t>(c)] : chunks[static_cast<size_t>(c)].grads;
  const std::int64_t total = static_cast<std::int64_t>(m) * v, group = static_cast<std::int64_t>(p) * v;
  const std::int64_t warmup =
      m == p ? total : std::min<std::int64_t>(2 * (p - stage - 1) + (v - 1) * p, total);
  Zero2Peak best;
  double held = 0, live = 0;
  std::vector<char> started(static_cast<size_t>(v), 0);
  std::vector<std::int64_t> last(static_cast<size_t>(v), -1);  // each chunk's last backward
  for (std::int64_t k = std::max<std::int64_t>(0, total - group); k < total; ++k)
    last[static_cast<size_t>(v - 1 - (k % group) / p)] = k;
  auto consider = [&](double a, double g) {
    if (a + g > best.activations + best.grads) best = {a, g};
  };
  auto forward = [&](std::int64_t k) {
    held += chunks[static_cast<size_t>((k % group) / p)].saved;
    consider(held, live);
  };
  auto backward = [&](std::int64_t k) {
    const auto c = static_cast<size_t>(v - 1 - (k % group) / p);
    const Chunk& ch = chunks[c];
    if (!started[c]) {
      consider(held + ch.first.activations, live + ch.first.grads);
      started[c] = 1;
      live += ch.grads;
    } else {
      consider(held + ch.later.activations, live);
    }
    held -= ch.saved;
    if (overlap && k == last[c]) live -= frees[c];  // its last backward's buckets free them
  };
  for (std::int64_t k = 0; k < warmup; ++k) forward(k);
  for (std::int64_t j = 0; j < total - warmup; ++j) forward(warmup + j), backward(j);
  for (std::int64_t k = total - warmup; k < total; ++k) backward(k);
  return best;
}

// ZeRO-3's peak (the planner, lower_transformer_stage.cpp): each block's
// parameters gathered before it computes (with strategy.overlap the next
// block's too, issued as it starts: two blocks whole at a time), freed
// after it; in the backward its unsharded gradient from its first kernel
// to its reduce-scatter, which runs on the 'data' stream before the next
// block's prefetch, so the block before's gradient and the block after's
// parameters are never whole together (the larger counts). Walked over the
// stage's order: the activations held (each forward adds a micro-batch's,
// each backward frees them block by block, recomputing as it goes) and,
// at each block, what is gathered and unsharded then. With
// strategy.zero3_prefetch per_micro_batch or across_passes the last block
// of a pass also gathers the next step's first. Returns the activations and
// the gathered parameters and unsharded gradients at the peak.
Zero3Peak zero3_peak(const StageLayout& lay, const StrategySpec& st, int p, int m, int stage,
                     double e_bytes) {
  const int v = lay.chunks;
  const bool ahead = st.overlap;
  // Each chunk's blocks in forward order as runs of one kind of block (the
  // embedding, the recomputing layers, the kept ones, the head): a run's
  // blocks differ only in where they sit.
  struct Run {
    const StageBlock* blk;
    std::int64_t n;
  };
  struct Chunk {
    Run runs[4];
    int count = 0;  // runs
    std::int64_t blocks = 0;
    double saved = 0;
    // The block at position j (forward order).
    const StageBlock* at(std::int64_t j) const {
      for (int r = 0; r < count; ++r) {
        if (j < runs[r].n) return runs[r].blk;
        j -= runs[r].n;
      }
      return nullptr;
    }
  };
  thread_local std::vector<Chunk> chunks;
  chunks.assign(static_cast<size_t>(v), Chunk{});
  for (int c = 0; c < v; ++c) {
    Chunk& ch = chunks[static_cast<size_t>(c)];
    auto add = [&](const StageBlock* b, std::int64_t n) {
      if (n <= 0) return;
      ch.runs[ch.count++] = {b, n};
      ch.blocks += n;
      ch.saved += static_cast<double>(n) * b->figures->saved_bytes;
    };
    if (c == 0 && lay.first) add(&lay.embedding, 1);
    add(&lay.layer, lay.chunk_recomputed(c));
    add(&lay.layer_kept, lay.chunk_kept(c));
    if (c == v - 1 && lay.last) add(&lay.head, 1);
  }
  auto gathered = [&](const StageBlock* b) { return b->gather_elements * e_bytes; };
  auto unsharded = [&](const StageBlock* b) { return b->owned_elements * e_bytes; };
  Zero3Peak best;
  auto consider = [&](double a, double g, double u) {
    if (a + g + u > best.activations + best.params + best.grads) best = {a, g, u};
  };
  // The steps in order, each with the next one's first block (for the
  // prefetch across steps) known when it runs: the order is walked once to
  // list them.
  struct Step {
    bool forward;
    int chunk;
    std::int64_t repeat;  // > 1: that many steps alike left out (walk_schedule's skip)
  };
  thread_local std::vector<Step> steps;
  steps.clear();
  walk_schedule(
      st.schedule, p, m, v, stage, [&](int c) { steps.push_back({true, c, 1}); },
      [&](int c) { steps.push_back({false, c, 1}); },
      [&](bool f, int c, std::int64_t count) { steps.push_back({f, c, count}); });
  auto first_of = [&](const Step& s) -> const StageBlock* {
    const Chunk& ch = chunks[static_cast<size_t>(s.chunk)];
    if (ch.blocks == 0) return nullptr;
    return s.forward ? ch.at(0) : ch.at(ch.blocks - 1);
  };
  // A block's candidate from the forward's or the backward's walk: the
  // activations relative to what the step found held, the gathered
  // parameters and the unsharded gradients.
  struct Candidate {
    double a = 0, g = 0, u = 0;
    bool valid = false;
  };
  auto better = [](Candidate& into, const Candidate& c) {
    if (!into.valid || c.a + c.g + c.u > into.a + into.g + into.u) into = c;
  };
  // A backward block's candidate: the block before's gradient (its
  // reduce-scatter running) or the block after's parameters, the larger.
  auto backward_candidate = [&](double a, const StageBlock* b, double before, double after) {
    if (!ahead || before >= after) return Candidate{a, gathered(b), unsharded(b) + (ahead ? before : 0.0), true};
    return Candidate{a, gathered(b) + after, unsharded(b), true};
  };
  // Per chunk, the blocks between the first and the last of each walk
  // (their candidates do not depend on the steps around them), once: of a
  // run, the positions where what sits beside changes or the activations
  // are at their most (forward: its last two; backward: its first two and
  // its last).
  struct ChunkWalks {
    Candidate forward_middle, backward_middle;
    double backward_last_a = 0;  // the last block's activations
  };
  thread_local std::vector<ChunkWalks> walks;
  walks.assign(static_cast<size_t>(v), ChunkWalks{});
  for (int c = 0; c < v; ++c) {
    const Chunk& ch = chunks[static_cast<size_t>(c)];
    ChunkWalks& w = walks[static_cast<size_t>(c)];
    const std::int64_t count = ch.blocks;
    // Forward: position j of run r at offset k.
    double cum = 0;
    std::int64_t j0 = 0;
    for (int r = 0; r < ch.count; ++r) {
      const Run& run = ch.runs[r];
      const double s = run.blk->figures->saved_bytes;
      const StageBlock* next = r + 1 < ch.count ? ch.runs[r + 1].blk : nullptr;
      for (std::int64_t k = std::max<std::int64_t>(0, run.n - 2); k < run.n; ++k) {
        const std::int64_t j = j0 + k;
        if (j == 0 || j + 1 >= count) continue;
        const StageBlock* after = k + 1 < run.n ? run.blk : next;
        better(w.forward_middle, {cum + static_cast<double>(k + 1) * s,
                                  gathered(run.blk) + (ahead ? gathered(after) : 0.0), 0.0, true});
      }
      cum += static_cast<double>(run.n) * s;
      j0 += run.n;
    }
    // Backward: the runs from the last, position i of run r at offset k
    // (from its top).
    double freed = 0;
    std::int64_t i0 = 0;
    for (int r = ch.count; r-- > 0;) {
      const Run& run = ch.runs[r];
      const double s = run.blk->figures->saved_bytes;
      const StageBlock* previous = r + 1 < ch.count ? ch.runs[r + 1].blk : nullptr;  // in backward order
      const StageBlock* next = r > 0 ? ch.runs[r - 1].blk : nullptr;
      const std::int64_t ks[3] = {0, 1, run.n - 1};
      for (int q = 0; q < 3; ++q) {
        const std::int64_t k = ks[q];
        if (k < 0 || k >= run.n || (q == 2 && k <= 1) || (q == 1 && k < 1)) continue;
        const std::int64_t i = i0 + k;
        const double at = -(freed + static_cast<double>(k) * s) + run.blk->figures->recompute_saved_bytes;
        if (i + 1 == count) w.backward_last_a = at;
        if (i == 0 || i + 1 >= count) continue;
        const StageBlock* before = k > 0 ? run.blk : previous;
        const StageBlock* after = k + 1 < run.n ? run.blk : next;
        better(w.backward_middle, backward_candidate(at, run.blk, unsharded(before), gathered(after)));
      }
      freed += static_cast<double>(run.n) * s;
      i0 += run.n;
    }
  }
  double held = 0;
  // The last backward block's gradient, its reduce-scatter running: whole
  // beside the next step's first block only if that block's gather was
  // prefetched (issued before the reduce-scatter); a cold gather waits
  // behind it on the 'data' stream, and the block behind the gather.
  double rs_pending = 0;
  bool warm = false;  // this step's first block was gathered by the step before
  // A step in the same state as the last of its kind (chunk, activations
  // held, gradient in flight, next gather: 1F1B's steady state) gives the
  // same candidates: skipped.
  struct State {
    int chunk = -1;
    double held = -1, rs = -1, next = -1;
    bool operator==(const State&) const = default;
  };
  State last_state[2];
  for (size_t n = 0; n < steps.size(); ++n) {
    const Step& s = steps[n];
    const Chunk& ch = chunks[static_cast<size_t>(s.chunk)];
    const ChunkWalks& w = walks[static_cast<size_t>(s.chunk)];
    if (s.repeat > 1) {
      // GPipe's middle forwards (backwards): each step's state lies between
      // the walked ones' before and after it (the activations held grow or
      // fall steadily, nothing else differs), so none is larger.
      const double r = static_cast<double>(s.repeat);
      held += s.forward ? r * ch.saved : -r * ch.saved;
      rs_pending = !s.forward && ahead && ch.blocks > 0 ? unsharded(ch.at(0)) : 0.0;
      continue;
    }
    if (!warm) rs_pending = 0;
    double next_first = 0;  // the next step's first block, prefetched by this one's last
    const bool prefetches = ahead && n + 1 < steps.size() &&
                            st.zero3_prefetch != Zero3Prefetch::kPerPass &&
                            (st.zero3_prefetch == Zero3Prefetch::kAcrossPasses || !steps[n + 1].forward);
    if (prefetches)
      if (const StageBlock* b = first_of(steps[n + 1])) next_first = gathered(b);
    warm = prefetches;
    const std::int64_t count = ch.blocks;
    if (count == 0) continue;
    const State now{s.chunk, held, rs_pending, next_first};
    State& seen = last_state[s.forward ? 0 : 1];
    const bool same = now == seen;
    seen = now;
    if (same) {
      held += s.forward ? ch.saved : -ch.saved;
      rs_pending = !s.forward && ahead ? unsharded(ch.at(0)) : 0.0;
      continue;
    }
    if (s.forward) {
      // The first block (with the reduce-scatter still running), the
      // middle ones, the last (with the next step's first gathered).
      const StageBlock* first = ch.at(0);
      const double a0 = held + first->figures->saved_bytes;
      const double after0 = !ahead ? 0.0 : count > 1 ? gathered(ch.at(1)) : next_first;
      consider(a0, gathered(first) + after0, rs_pending);
      if (w.forward_middle.valid)
        consider(held + w.forward_middle.a, w.forward_middle.g, w.forward_middle.u);
      if (count > 1)
        consider(held + ch.saved, gathered(ch.at(count - 1)) + (ahead ? next_first : 0.0), 0.0);
      rs_pending = 0;
      held += ch.saved;
    } else {
      auto backward_at = [&](std::int64_t i, double a) {
        const StageBlock* b = ch.at(count - 1 - i);
        const double before = i == 0 ? rs_pending : unsharded(ch.at(count - i));
        const double after = !ahead ? 0.0 : i + 1 < count ? gathered(ch.at(count - 2 - i)) : next_first;
        const Candidate c = backward_candidate(a, b, before, after);
        consider(c.a, c.g, c.u);
      };
      backward_at(0, held + ch.at(count - 1)->figures->recompute_saved_bytes);
      if (w.backward_middle.valid)
        consider(held + w.backward_middle.a, w.backward_middle.g, w.backward_middle.u);
      if (count > 1) backward_at(count - 1, held + w.backward_last_a);
      held -= ch.saved;
      rs_pending = ahead ? unsharded(ch.at(0)) : 0.0;
    }
  }
  return best;
}

}  // namespace brigade::cost::detail
