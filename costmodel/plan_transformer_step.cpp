// The transformer judge's step from its stages' figures (plan_stage.hpp): the
// pipeline schedule, the busiest stage's report and notes, memory per device.
#include "costmodel/plan_stage.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/units.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/plan_order_walk.hpp"

namespace brigade::cost::detail {

namespace {

std::string_view schedule_label(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::kGpipe: return "GPipe";
    case PipelineSchedule::k1F1B: return "1F1B";
    case PipelineSchedule::kInterleaved: return "interleaved 1F1B";
  }
  return "?";
}

}  // namespace

void pipeline_step(const StrategySpec& st, const TransformerDegrees& x, const RankMap& rm,
                   const StageFigures& figures, std::span<CommLedger> ledgers, bool full,
                   bool ledgers_on, PlanEstimate& e) {
  const int p = x.p, v = x.v, dg = x.dg;
  const std::int64_t m = x.m;
  const bool training = x.training;
  const std::span<const StageTimes> stages = figures.times;
  const std::span<const double> per_step_extra = figures.per_step_extra;
  const std::span<const double> opt_seconds = figures.opt_seconds;
  // Pipeline schedule (Narayanan et al. 2021 §2.2): with per-micro-batch stage times T_i,
  //   pipeline = m max T_i + (sum T_i - max T_i) / v + every send of one micro-batch,
  // forward through all p v model chunks and back (the fill and the drain wait for them;
  // in the steady state a stage's sends run beside its next step), i.e. for equal stages
  // (m + p - 1) T + 2(p - 1) send (GPipe, 1F1B: a bubble of (p-1)/m of the ideal time)
  // or m T + (p - 1) T / v + 2(v p - 1) send (interleaved: a bubble of (p-1)/(v m)).
  // The interleaved sends are not divided by v: Megatron-LM's warm-up is tight around
  // the ring of stages (stage 0 starts chunk c + 1 of a micro-batch p forward slots after
  // chunk c, just when stage p - 1 finishes chunk c without sends), so each of the v
  // rounds of the fill waits for p sends, and so does each round of the drain; exact
  // for equal stages while a send is no longer than a chunk's forward (docs/costmodel.md,
  // "Pipeline schedule"). 1F1B (one chunk) has no such slack in its steady state either:
  // stage i's backward of micro-batch k follows its forward of k + p - i - 1 at once,
  // and waits for the gradient from stage i + 1, whose forward of that micro-batch
  // waited for stage i's send. Each micro-batch's round trip through the pipeline, the
  // stages' work and every send (the chain), takes as long as p of their micro-batches,
  // so a stage can go no faster than (sum T_i + chain) / p a micro-batch (the cycle's
  // mean); where that is above max T_i, the gap is paid p ((m - 2) - floor((m - 2) / p))
  // / (p - 1) times (~ m - 2: worked out from the schedule's order; exact for equal
  // stages and sends). GPipe's and the forward-only orders have no cycle. With
  // strategy.pipeline_blocking_sends each stage's sends are in its T_i
  // (StageTimes::pp_blocking) and the chain is 0: the formula's terms stay,
  // the steady state's wait vanishes (the cycle's mean, sum T_i / p, is then
  // at most max T_i). Per-step work
  // (gradient sync, parameter gathers, the optimizer) follows; the step ends when the
  // slowest stage's has.
  //
  // With a host time per operation (figures.host_op), T_i is the longer of
  // the stage's device time D_i and its host's; every host issues from the
  // step's start and never waits, so the fill and drain (the others once)
  // run at the devices' pace, (sum D_i - D_slowest) / v; where the device
  // sets the pace the step also waits for the host's first issue.
  const double md = static_cast<double>(m);
  double t_max = 0, t_sum = 0, d_sum = 0, extra_max = 0, chain = 0;
  size_t slowest = 0;
  // The drain's chain: each stage's last backward, the one its gradient
  // buckets run beside (their NCCL kernels holding SMs, StageFigures::
  // dp_slowed), waits for the stage after it to finish its own (the gradient
  // it sends), so the slowdowns add up down the pipeline: stage i's last
  // backward ends the slowdowns of stages i + 1 ... p - 1 later than the
  // schedule of unslowed stages says, and its per-step work with it (the
  // simulator's critical path runs through every stage's last backward).
  // `later`: the sum over the stages after i, walking from the last.
  const bool drain_chain =
      training && p > 1 && v == 1 && figures.dp_slowed.size() == stages.size();
  for (size_t i = 0; i < stages.size(); ++i) {
    d_sum += stages[i].device_per_micro_batch();
    t_sum += stages[i].per_micro_batch();
    if (stages[i].per_micro_batch() > t_max) t_max = stages[i].per_micro_batch(), slowest = i;
    chain += stages[i].pp;
  }
  // overlap_param_gather (one chunk a stage): a stage's per-step work holds
  // the delay its gathers put on its first forwards, its own and the one
  // carried down from the stages before it. A stage after the slowest one
  // receives its micro-batches at the slowest one's pace and idles t_max -
  // T_i of each, so over the m - 1 after the first it makes up its own
  // delay up to (t_max - T_i)(m - 1), and the stages after it are not held
  // back by what it made up; before the slowest stage every delay reaches
  // the slowest and stays. `absorbed`: what the stages up to i made up.
  // (Under interleaving the chunks' gathers are dispatched by the schedule
  // itself and nothing is taken off.)
  const bool absorbs =
      training && p > 1 && v == 1 && figures.dp_start_own.size() == stages.size();
  auto made_up = [&](size_t i) {  // what stage i (after the slowest) makes up of its own delay
    return std::min(figures.dp_start_own[i],
                    (t_max - stages[i].per_micro_batch()) * std::max(0.0, md - 1));
  };
  double absorbed = 0;  // by the stages up to i, walking down from the last
  for (size_t i = slowest + 1; absorbs && i < stages.size(); ++i) absorbed += made_up(i);
  const double absorbed_by_last = absorbed;
  // Each stage's step ends after its own last backward, and in 1F1B's and
  // GPipe's drain stage i's ended the backwards of stages 0 ... i - 1 before
  // the pipeline's end (stage 0's last backward): stage j's last backward
  // waits for stage j + 1's. `before`: those backwards (kernels and exposed
  // tensor-parallel collectives, their sends not counted), for stage i,
  // walking down from the last. So a later stage whose per-step work is the
  // largest (the output layer's buckets) ends its step that much sooner.
  const bool by_stage = drain_chain && st.pipeline_engine != PipelineEngine::kDeepSpeed;
  auto backward_of = [&](size_t j) { return stages[j].bwd_kernels + stages[j].tp_bwd; };
  double before = 0;
  for (size_t j = 0; by_stage && j + 1 < stages.size(); ++j) before += backward_of(j);
  double later = 0;
  for (size_t i = stages.size(); i-- > 0;) {
    const bool after_slowest = absorbs && i > slowest;
    extra_max = std::max(extra_max, per_step_extra[i] - (after_slowest ? absorbed : 0.0) + later -
                                        (by_stage && i > 0 ? before : 0.0));
    if (after_slowest) absorbed -= made_up(i);
    if (drain_chain) later += figures.dp_slowed[i];
    if (by_stage && i > 0) before -= backward_of(i - 1);
  }
  // A tied embedding: Megatron-Core's finalize_model_grads, called when the
  // stage's backward is done, finishes the data-parallel gradient sync,
  // all-reduces the sequence-parallel gradients over 'tensor', then the
  // word embedding's gradient over the first and the last stage, then each
  // stage steps its optimizer. The pipeline ends with the first stage's last backward, so
  // the last stage's per-step work after that AllReduce waits for the first
  // stage's buckets past its backward, not its own (which ran while the
  // first stage's backward did). Stage 0's last backward ends after every
  // later stage's slowdown (the drain's chain above), and so does the join.
  if (figures.tied_ends && figures.dp_after_backward.size() == stages.size() && p > 1) {
    const size_t last = stages.size() - 1;
    const double slowed_before_last = drain_chain ? later - figures.dp_slowed[last] : 0.0;
    extra_max =
        std::max(extra_max, figures.dp_after_backward[0] + per_step_extra[last] - absorbed_by_last -
                                figures.dp_after_backward[last] + slowed_before_last);
  }
  const double d_slowest = stages.empty() ? 0 : stages[slowest].device_per_micro_batch();
  double steady = 0;
  if (!training && p > 1 && v > 1) {
    // Forward only, interleaved: every group of p micro-batches goes round the
    // stages v times, and with no backward to fill the gaps each of its v - 1
    // returns to stage 0 waits for p sends, not only the first group's:
    // (v p - 1) + (m / p - 1)(v - 1) p = (v - 1) m + p - 1 sends in all, at
    // the chain's mean send.
    steady = chain / (v * p - 1) * (static_cast<double>((v - 1) * m + p - 1) - (v * p - 1));
  } else if (training && p > 1 && v == 1 && m >= 2 && st.schedule != PipelineSchedule::kGpipe) {
    const double gap = std::max(0.0, (t_sum + chain) / p - t_max);
    const std::int64_t k = m - 2;
    steady = gap * p * static_cast<double>(k - k / p) / (p - 1);
  }
  const double first_issue = figures.host_op > 0 && d_slowest >= t_max ? figures.host_op : 0;
  e.step_seconds = md * t_max + (d_sum - d_slowest) / v + chain + steady + extra_max + first_issue;
  // 1F1B and GPipe on one chunk, Megatron-LM's engine: the order walked
  // micro-batch by micro-batch (pipeline_order_ends) instead of the formula
  // above, exact where stages or sends differ (the embedding's, the loss's;
  // GPipe's pace is max F + max B, not max (F + B)), each stage's last
  // backward slowed by its own buckets and ending where the stages after it
  // let it (the drain's chain, with the slack a faster stage leaves); each
  // stage's step ends after its per-step work. Its sends beside its next
  // step, or, blocking (strategy.pipeline_blocking_sends), in the pass that
  // sends them, as the scatter-gather's AllGathers are in the pass after
  // their receive. Not with DeepSpeed's engine (its sends wait for their
  // receiver), per-micro-batch ZeRO traffic (neither forward nor backward
  // alone) or a host setting the pace: the formula. A host that never sets
  // the pace (every stage's host time a micro-batch within its device's)
  // adds its first issue to the walk's step, as to the formula's.
  bool host_paces = false;
  for (const StageTimes& s : stages) host_paces = host_paces || s.host > s.device_per_micro_batch();
  bool by_order = training && p > 1 && !host_paces &&
                  st.pipeline_engine != PipelineEngine::kDeepSpeed &&
                  figures.layouts.size() == stages.size();
  // (ZeRO-3 over a pipeline: its passes walked block by block.)
  const bool with_zero3 = figures.zero3.size() == stages.size() && p > 1;
  for (const StageTimes& s : stages) by_order = by_order && (s.zero_exposed <= 0 || with_zero3);
  if (by_order) {
    thread_local std::vector<double> f, b, b_work, to_next, to_previous, last_extra, first_extra,
        own, ends, f_extra, b_extra;
    const size_t n = stages.size();
    const size_t passes = n * static_cast<size_t>(v);
    // Interleaved, buckets overlapped: the walk runs them beside the
    // backwards (ChunkOrder::buckets).
    const bool with_buckets = v > 1 && figures.chunk_buckets.size() == n;
    f.resize(passes), b.resize(passes), b_work.resize(with_buckets ? passes : 0);
    f_extra.resize(with_zero3 ? passes : 0), b_extra.resize(with_zero3 ? passes : 0);
    to_next.resize(n), to_previous.resize(n);
    last_extra.assign(n, 0.0), first_extra.assign(n, 0.0), own.resize(n);
    // Blocking sends (strategy.pipeline_blocking_sends) and the scatter-
    // gather's AllGathers are in the stage's own passes, a send in the pass
    // that sends it, an AllGather in the pass after its receive: the next
    // pass waits for a send, and the stage it feeds for nothing more.
    const bool blocking = blocks_on_pipeline_sends(st);
    const bool gathers = scatter_gathers_boundary(st);
    const int last_vs = p * v - 1;
    auto blocking_fwd = [&](size_t i, int vs) {
      return (blocking && vs < last_vs ? stages[i].send_next : 0.0) +
             (gathers && vs > 0 ? stages[i].ds_gather : 0.0);
    };
    auto blocking_bwd = [&](size_t i, int vs) {
      return (blocking && vs > 0 ? stages[i].send_previous : 0.0) +
             (gathers && vs < last_vs ? stages[i].ds_gather : 0.0);
    };
    for (size_t i = 0; i < n; ++i) {
      const StageTimes& T = stages[i];
      to_next[i] = blocking ? 0.0 : T.send_next;
      to_previous[i] = blocking ? 0.0 : T.send_previous;
      // FP8 delayed scaling's amax reduction ends each chunk's passes that
      // run layers (StageTimes::amax_fwd, amax_bwd): ZeRO-3's walk runs it
      // after the pass's blocks, as compute beside the data stream
      // (Zero3Stage::amax_fwd, zero3_pass), before the pass's blocking
      // sends; the stage's next gathers go once it has ended.
      const StageLayout& lay_i = figures.layouts[i];
      auto amax_of = [&](int c, bool fwd) {
        return lay_i.chunk_layers(c) > 0 ? (fwd ? T.amax_fwd : T.amax_bwd) : 0.0;
      };
      if (with_zero3)
        for (int c = 0; c < v; ++c) {
          const auto at = static_cast<size_t>(c) * n + i;
          const int vs = c * p + static_cast<int>(i);
          f_extra[at] = blocking_fwd(i, vs);
          b_extra[at] = blocking_bwd(i, vs);
        }
      if (v == 1) {
        f[i] = T.fwd_kernels + T.tp_fwd + blocking_fwd(i, static_cast<int>(i));
        b[i] = T.bwd_kernels + T.tp_bwd + blocking_bwd(i, static_cast<int>(i));
        continue;
      }
      // A chunk's passes: its blocks' (StageTimes::block_fwd, block_bwd),
      // the stage's other time a micro-batch (what ZeRO-3's collectives
      // slow) shared over its chunks as their backwards are.
      const StageLayout& lay = figures.layouts[i];
      double f_sum = 0, b_sum = 0;
      for (int c = 0; c < v; ++c) {
        const auto at = static_cast<size_t>(c) * n + i;
        auto sum = [&](const std::array<double, 4>& one) {
          return (lay.first && c == 0 ? one[0] : 0.0) +
                 static_cast<double>(lay.chunk_recomputed(c)) * one[1] +
                 static_cast<double>(lay.chunk_kept(c)) * one[3] +
                 (lay.last && c == v - 1 ? one[2] : 0.0);
        };
        f[at] = sum(T.block_fwd) + amax_of(c, true), b[at] = sum(T.block_bwd) + amax_of(c, false);
        f_sum += f[at], b_sum += b[at];
      }
      const double f_scale = f_sum > 0 ? (T.fwd_kernels + T.tp_fwd) / f_sum : 1.0;
      const double b_scale = b_sum > 0 ? (T.bwd_kernels + T.tp_bwd) / b_sum : 1.0;
      for (int c = 0; c < v; ++c) {
        const auto at = static_cast<size_t>(c) * n + i;
        const int vs = c * p + static_cast<int>(i);
        f[at] = f[at] * f_scale + blocking_fwd(i, vs);
        if (with_buckets) b_work[at] = b[at] * b_scale;
        b[at] = b[at] * b_scale + blocking_bwd(i, vs);
      }
    }
    // One chunk: a stage's last backward is longer by its buckets' slowdown
    // (the drain's chain), its first forward by its wait for its parameter
    // gathers (overlap_param_gather: per_step_extra holds each stage's own
    // first-forward delay and those carried down to it; the order carries
    // them). Interleaved, the buckets run beside the backwards in the walk
    // (their slowdown and their time past the backward leave the per-step
    // work), the gathers' figures stay in it.
    double carried = 0;
    for (size_t i = 0; i < n; ++i) {
      if (v == 1) {
        last_extra[i] = drain_chain ? figures.dp_slowed[i] : 0.0;
        first_extra[i] = absorbs ? figures.dp_start_own[i] : 0.0;
      }
      carried += first_extra[i];
      own[i] = per_step_extra[i] - last_extra[i] - carried;
      if (with_buckets) own[i] -= figures.dp_slowed[i] + figures.dp_after_backward[i];
      if (with_zero3) own[i] -= figures.zero3[i].per_step;
    }
    // The order walked without the buckets, then (interleaved, buckets
    // overlapped) with them. The buckets change only the drain, so where
    // the first walked the order's fill and period and extended it
    // (chunk_order_periodic), the second walks the same first run, m1 micro-
    // batches, with the buckets, and is extended by the same shifts.
    // The last walk's inputs and ends are kept per thread: a search judges a
    // plan's ZeRO stages and bucket sizes one after another, and where they
    // leave the passes and sends alike the order's ends are the same.
    struct LastWalk {
      PipelineSchedule schedule = PipelineSchedule::k1F1B;
      int p = 0, v = 0;
      std::int64_t m = 0, m1 = 0;
      std::vector<double> f, b, to_next, to_previous, last_extra, first_extra, ends, first;
    };
    thread_local LastWalk walked;
    const bool same = walked.schedule == st.schedule && walked.p == p && walked.v == v &&
                      walked.m == m && walked.f == f && walked.b == b &&
                      walked.to_next == to_next && walked.to_previous == to_previous &&
                      walked.last_extra == last_extra && walked.first_extra == first_extra;
    // (With buckets and a short order, the one walk with them is the whole.)
    const bool whole_beside = with_buckets && m <= 4 * p;
    if (with_zero3) {
      // (Kept as the last walk is: a search's bucket sizes leave ZeRO-3's
      // walk alike.)
      struct LastZero3 {
        PipelineSchedule schedule = PipelineSchedule::k1F1B;
        Zero3Prefetch mode = Zero3Prefetch::kPerPass;
        bool prefetch = false;
        int p = 0, v = 0;
        std::int64_t m = 0;
        std::vector<double> f_extra, b_extra, to_next, to_previous, ends;
        std::vector<Zero3Stage> zero3;
      };
      thread_local LastZero3 z3;
      auto alike = [](const Zero3Stage& one, const Zero3Stage& other) {
        return one.blocks == other.blocks && one.chunk_begin == other.chunk_begin &&
               one.amax_fwd == other.amax_fwd && one.amax_bwd == other.amax_bwd &&
               one.amax_chunk == other.amax_chunk;
      };
      const bool again =
          z3.schedule == st.schedule && z3.mode == st.zero3_prefetch &&
          z3.prefetch == st.overlap && z3.p == p && z3.v == v && z3.m == m &&
          z3.f_extra == f_extra && z3.b_extra == b_extra && z3.to_next == to_next &&
          z3.to_previous == to_previous &&
          std::equal(figures.zero3.begin(), figures.zero3.end(), z3.zero3.begin(), z3.zero3.end(),
                     alike);
      if (again) {
        ends = z3.ends;
      } else {
        thread_local std::vector<double> unused;
        ChunkOrder z{st.schedule, p, v, f, b, to_next, to_previous, {}, {}, {}, {}};
        z.zero3 = figures.zero3, z.f_extra = f_extra, z.b_extra = b_extra;
        z.mode = st.zero3_prefetch, z.prefetch = st.overlap;
        chunk_order_periodic(z, m, ends, unused);
        z3.schedule = st.schedule, z3.mode = st.zero3_prefetch, z3.prefetch = st.overlap;
        z3.p = p, z3.v = v, z3.m = m, z3.f_extra = f_extra, z3.b_extra = b_extra;
        z3.to_next = to_next, z3.to_previous = to_previous, z3.ends = ends;
        z3.zero3.assign(figures.zero3.begin(), figures.zero3.end());
      }
    } else if (!same && !whole_beside) {
      walked.m1 = chunk_order_periodic(
          {st.schedule,
           p,
           v,
           f,
           b,
           to_next,
           to_previous,
           {},
           {},
           v == 1 ? std::span<const double>(last_extra) : std::span<const double>{},
           v == 1 ? std::span<const double>(first_extra) : std::span<const double>{}},
          m, walked.ends, walked.first);
      walked.schedule = st.schedule, walked.p = p, walked.v = v, walked.m = m;
      walked.f = f, walked.b = b, walked.to_next = to_next, walked.to_previous = to_previous;
      walked.last_extra = last_extra, walked.first_extra = first_extra;
    }
    if (!whole_beside && !with_zero3) ends = walked.ends;
    if (with_buckets) {
      const ChunkOrder beside{st.schedule, p, v, f, b, to_next, to_previous, b_work,
                              figures.chunk_buckets, {}, {}};
      if (whole_beside || walked.m1 == m) {
        chunk_order_ends(beside, m, ends);
      } else {
        thread_local std::vector<double> first;
        chunk_order_ends(beside, walked.m1, first);
        ends.resize(2 * n);
        for (size_t i = 0; i < n; ++i) {
          const double shift = walked.ends[i] - walked.first[i];
          ends[i] = first[i] + shift, ends[n + i] = first[n + i] + shift;
        }
      }
    }
    // A blocking send after the last backward (chunk 0's, to the stage
    // before): the gradient sync runs beside it, the optimizer (next on the
    // stage's stream) waits for both.
    // With the buckets in the walk, a stage's per-step work follows its
    // last backward and its buckets both (`done`).
    double step = 0;
    for (size_t i = 0; i < n; ++i) {
      const double send = blocking && i > 0 ? stages[i].send_previous : 0.0;
      ends[i] -= send;
      const double done = with_buckets || with_zero3 ? std::max(ends[i], ends[n + i]) : ends[i];
      step = std::max(step, std::max(done + own[i], ends[i] + send + opt_seconds[i]));
    }
    if (figures.tied_ends && figures.dp_after_backward.size() == n) {
      const size_t last = n - 1;
      step = std::max(step, with_buckets || with_zero3
                                ? std::max(ends[0], ends[n]) + own[last]
                                : ends[0] + figures.dp_after_backward[0] + own[last] -
                                      figures.dp_after_backward[last]);
    }
    e.step_seconds = step + first_issue;
  }
  {
    // The same schedule with kernels alone: T_i >= D_i >= K_i gives t_max >=
    // K_max and d_sum - d_slowest >= K_sum - K_max, so this is a floor under
    // the step.
    double k_max = 0, k_sum = 0;
    for (const StageTimes& s : stages) {
      k_sum += s.fwd_kernels + s.bwd_kernels;
      k_max = std::max(k_max, s.fwd_kernels + s.bwd_kernels);
    }
    e.kernel_floor_seconds = md * k_max + (k_sum - k_max) / v;
  }
  // The report follows the busiest device (most work of its own); its idle time is the bubble.
  size_t busiest = 0;
  for (size_t i = 0; i < stages.size(); ++i)
    if (md * stages[i].per_micro_batch() + per_step_extra[i] >
        md * stages[busiest].per_micro_batch() + per_step_extra[busiest])
      busiest = i;
  const StageTimes& bt = stages[busiest];
  const double slowed = figures.dp_slowed.empty() ? 0.0 : figures.dp_slowed[busiest];
  e.compute_seconds = md * (bt.fwd_kernels + bt.bwd_kernels) + slowed;
  e.optimizer_seconds = opt_seconds[busiest];
  e.exposed_communication_seconds =
      md * (bt.tp_fwd + bt.tp_bwd + bt.zero_exposed + bt.pp_blocking) + bt.pp + per_step_extra[busiest] -
      e.optimizer_seconds - slowed;
  e.host_wait_seconds = md * std::max(0.0, bt.host - bt.device_per_micro_batch()) + first_issue;
  e.bubble_seconds = std::max(0.0, e.step_seconds - md * bt.per_micro_batch() - bt.pp -
                                       per_step_extra[busiest] - first_issue);
  if (ledgers_on) {
    for (CommLedger& l : ledgers) e.stage_communication.push_back(l.take());
    e.communication = e.stage_communication[busiest];
  }
  e.communication_device = rm.device(0, 0, static_cast<int>(busiest));
  if (full)
    e.notes.push_back(fmt::format("times are those of a device of pipeline stage {} (the busiest)", busiest));
  if (full && p > 1)
    e.notes.push_back(fmt::format("pipeline: {} micro-batches over {} stages ({}), bubble = (sum of "
                                  "stage times - the slowest) / {}",
                                  m, p, schedule_label(st.schedule), v));
  if (full && p > 1 && training && st.pipeline_engine == PipelineEngine::kDeepSpeed)
    e.notes.push_back("pipeline: DeepSpeed's engine: each stage's sends and receives block it, one "
                      "after the other, 1/tensor of the boundary tensor each, and the tensor group "
                      "all-gathers it back (once before a forward, twice before a backward)");
  if (full && training && dg > 1)
    e.notes.push_back(st.overlap ? "data-parallel gradients overlap the backward pass except the last "
                                   "bucket: exposed = max(last bucket, total - backward time)"
                                 : "data-parallel gradients are not overlapped (strategy.overlap: false)");
  const bool blocking_sends = blocks_on_pipeline_sends(st);
  if (full && p > 1 && blocking_sends)
    e.notes.push_back(
        "pipeline sends: Megatron-LM's blocking exchanges (strategy.pipeline_blocking_sends): each "
        "stage waits for its own sends before its next work, so they are in its time per "
        "micro-batch, and the fill and drain wait for nothing more");
  if (full && p > 1 && !blocking_sends &&
      !(training && st.pipeline_engine == PipelineEngine::kDeepSpeed))
    e.notes.push_back(
        v > 1 && !training
            ? fmt::format("pipeline sends: beside the stage's next work; forward only, each group "
                          "of {} micro-batches goes round the stages {} times and waits for {} "
                          "sends at every return to stage 0",
                          p, v, p)
        : v > 1 ? fmt::format("pipeline sends: beside the stage's next work; the fill and drain wait "
                            "for every send of a micro-batch, {} each way through the {} model "
                            "chunks (the interleaved warm-up leaves no slack around the stages)",
                            v * p - 1, v * p)
        : training && st.schedule != PipelineSchedule::kGpipe
            ? std::string("pipeline sends: beside the stage's next work; the fill and drain wait "
                          "for a micro-batch's sends there and back, and in 1F1B's steady state a "
                          "backward waits for its round trip's sends where the stages leave no "
                          "slack")
            : std::string("pipeline sends: beside the stage's next work; the fill and drain wait "
                          "for a micro-batch's sends there and back"));
  if (full && scatter_gathers_boundary(st))
    e.notes.push_back(fmt::format(
        "pipeline sends: Megatron-LM's scatter-gather (strategy.pipeline_scatter_gather): each "
        "tensor rank sends 1/{} of the boundary tensor, and the receiving stage all-gathers it "
        "over 'tensor' after each receive, in its own time",
        x.t));
  if (full && bt.host > 0 && figures.host_op > 0)
    e.notes.push_back(fmt::format(
        "host: {:.0f} operations a micro-batch on stage {}{}, {} of host time against "
        "{} on the device: {}",
        bt.host / figures.host_op, busiest,
        figures.devices_per_host > 1
            ? fmt::format("'s host (for all {} devices it drives)", figures.devices_per_host)
            : std::string(),
        format_seconds(bt.host), format_seconds(bt.device_per_micro_batch()),
        bt.host > bt.device_per_micro_batch() ? "the host sets the pace (host-bound)"
                                              : "the device sets the pace"));
}

Status transformer_memory(const Topology& topo, const StrategySpec& st,
                          const TransformerDegrees& x, const RankMap& rm,
                          const TransformerBlocks* templates, const BytesPerParameter& per,
                          double e_bytes, const StageFigures& figures, bool full, PlanEstimate& e) {
  const int p = x.p, v = x.v, t = x.t, cp = x.cp, dg = x.dg, n_devices = x.n_devices;
  const std::int64_t m = x.m, layers_per_chunk = x.layers_per_chunk;
  const bool training = x.training;
  const std::span<const double> stage_params = figures.params;
  const std::span<const double> stage_fp8_weights = figures.fp8_weights;
  const std::span<const StageLayout> layouts = figures.layouts;
  // Memory per device (per stage without EstimateOptions::every_device).
  if (full)
    e.memory.resize(static_cast<size_t>(n_devices));
  else
    e.memory.reserve(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) {
    const auto si = static_cast<size_t>(i);
    // (Expert parallelism under ZeRO-1: the experts' optimizer state over
    // the expert-data group, data / expert ranks: memory.hpp.)
    const ShardedParameters held{stage_params[si],
                                 figures.experts.empty() ? 0.0 : figures.experts[si], dg,
                                 dg / figures.expert};
    BRIGADE_ASSIGN_OR_RETURN(const ModelStateBytes states, model_state_bytes(held, per, st.zero));
    double act = 0;
    std::vector<double> bytes;  // a short stage's bytes a chunk (the pipeline split, below)
    if (training) {
      // What the planner keeps (costmodel/transformer_blocks.hpp, saved_bytes): each
      // block's saved activations per micro-batch in flight, and one block's
      // recomputed activations at a time.
      const double loads = in_flight_micro_batches(st.schedule, p, static_cast<int>(m), v, i);
      const StageLayout& lay = layouts[si];
      // (Block recomputation: a chunk's kept layers save all of theirs.)
      const double kept = static_cast<double>(lay.kept_per_chunk * v);
      act = loads * static_cast<double>((layers_per_chunk - lay.kept_per_chunk) * v) *
            templates->layer_figures.saved_bytes;
      if (kept > 0) act += loads * kept * templates->layer_kept_figures.saved_bytes;
      const bool chunked = st.schedule == PipelineSchedule::kInterleaved && v > 1 && p > 1;
      const int mi = static_cast<int>(m);
      // With the embedding or the loss counted in the split, chunk 0 of
      // stage 0 and chunk v-1 of stage p-1 are a layer short (a kept one
      // under block recomputation where they have any): each chunk's bytes
      // a micro-batch, weighed by the micro-batches of it the stage holds
      // at its peak (interleaved: the most of the weighted sum over
      // Megatron-LM's order, which holds the most chunks at some step and
      // the most of the larger chunks at another).
      // Each chunk's bytes a micro-batch, `ends`: with the embedding's and
      // the output layer's in their chunks' (the peak holds as many of them
      // as of their chunk).
      auto chunk_bytes = [&](std::vector<double>& out, bool ends) {
        out.assign(static_cast<size_t>(v), 0.0);
        for (int c = 0; c < v; ++c)
          out[static_cast<size_t>(c)] =
              static_cast<double>(lay.chunk_recomputed(c)) * templates->layer_figures.saved_bytes +
              static_cast<double>(lay.chunk_kept(c)) * templates->layer_kept_figures.saved_bytes;
        if (ends && i == 0) out[0] += templates->embedding_figures.saved_bytes;
        if (ends && i == p - 1)
          out[static_cast<size_t>(v - 1)] += templates->head_figures.saved_bytes;
      };
      if (lay.uneven()) {
        chunk_bytes(bytes, chunked);
        act = chunked ? interleaved_weighted_in_flight(p, mi, v, i, bytes) : loads * bytes[0];
      }
      const bool ends_weighed = lay.uneven() && chunked;
      // The embedding (stage 0) and the output layer (stage p-1) are the first and the
      // last layers of the model: they keep as many micro-batches as a stage of one chunk
      // (GPipe all m; 1F1B p - stage; Narayanan et al. 2021 §2.2, Korthikanti §4.3).
      // Interleaved, they are chunk 0 of stage 0 and chunk v-1 of stage p-1, whose
      // micro-batches in flight Megatron-LM's order sets (memory.hpp).
      if (i == 0 && !ends_weighed)
        act += templates->embedding_figures.saved_bytes *
               (chunked ? interleaved_chunk_in_flight(p, mi, v, 0, 0)
                        : in_flight_micro_batches(st.schedule, p, mi, 1, 0));
      if (i == p - 1 && !ends_weighed)
        act += templates->head_figures.saved_bytes *
               (chunked ? interleaved_chunk_in_flight(p, mi, v, p - 1, v - 1)
                        : in_flight_micro_batches(st.schedule, p, mi, 1, p - 1));
      // The first recomputation of a backward step comes after the blocks above the
      // first block that recomputes have run their backward and freed their saved
      // activations (the head's on the last stage, a chunk's kept layers): what
      // chunk c's backward adds, its blocks from its last (the head, the layers,
      // the embedding); -infinity where none recomputes.
      auto backward_extra = [&](int c) {
        double freed = 0;
        double recomputed = -std::numeric_limits<double>::infinity();
        auto visit = [&](const StageBlock& blk) {
          if (blk.figures->recompute_saved_bytes > 0) {
            recomputed = blk.figures->recompute_saved_bytes;
            return false;
          }
          freed += blk.figures->saved_bytes;
          return true;
        };
        bool going = !(lay.last && c == lay.chunks - 1) || visit(lay.head);
        for (std::int64_t j = lay.chunk_layers(c); j-- > 0 && going;)
          going = visit(lay.layer_at(c, j));
        if (going && lay.first && c == 0) visit(lay.embedding);
        return recomputed - freed;
      };
      if (!chunked) {
        act = std::max(act, act + backward_extra(0));
      } else {
        // Interleaved, each chunk's backward starts at a time of its own
        // in the order, holding what the stage then holds (each chunk's
        // bytes with the embedding's and the output layer's in theirs).
        thread_local std::vector<double> weights, extra;
        extra.resize(static_cast<size_t>(v));
        for (int c = 0; c < v; ++c) extra[static_cast<size_t>(c)] = backward_extra(c);
        if (std::any_of(extra.begin(), extra.end(), [](double y) { return std::isfinite(y); })) {
          if (!lay.uneven()) chunk_bytes(weights, true);  // (uneven: `bytes`, above)
          act = std::max(
              act, interleaved_backward_peak(p, mi, v, i, lay.uneven() ? bytes : weights, extra));
        }
      }
    } else {
      // Inference keeps nothing for a backward pass: one block's working set at a time
      // (what its kernels write, the bytes training would save), as the planner
      // allocates it.
      layouts[si].for_each_kind(
          [&](const StageBlock& blk, double) { act = std::max(act, blk.figures->saved_bytes); });
    }
    // ZeRO-2: each parameter group's whole gradient lives from its first backward
    // write (the first micro-batch) to its bucket's reduce-scatter (the last):
    // zero2_peak_one_chunk, zero2_peak_interleaved.
    // ZeRO-3: the blocks' gathered parameters and unsharded gradients as the
    // planner holds them (zero3_peak; planner/lower_transformer_stage.cpp).
    ModelStateBytes live = states;
    // FP8: each FP8 weight's FP8 copy and transpose, resident.
    // (With FP8 primary weights they take the 16-bit weights' place.)
    live.params_bytes += fp8_weight_extra_bytes(stage_fp8_weights[si], e_bytes, figures.fp8_params);
    if (training && dg > 1 && st.zero == 2) {
      const double whole = stage_params[si] * per.grads;
      const StageLayout& lay = layouts[si];
      if (lay.chunks == 1) {
        const Zero2Peak z = zero2_peak_one_chunk(
            lay, st.schedule, p, static_cast<int>(m), i, per.grads, whole,
            figures.zero2_last.size() == layouts.size() ? figures.zero2_last[si] : Zero2LastBackward{});
        act = z.activations;
        live.grads_bytes += z.grads;
      } else {
        const Zero2Peak z =
            zero2_peak_interleaved(lay, p, static_cast<int>(m), i, per.grads, st.overlap,
                                   figures.chunk_buckets.size() == layouts.size()
                                       ? std::span<const double>(figures.chunk_buckets[si].freed)
                                       : std::span<const double>{});
        act = z.activations;
        live.grads_bytes += z.grads;
      }
    }
    if (training && dg > 1 && st.zero == 3) {
      const Zero3Peak z = zero3_peak(layouts[si], st, p, static_cast<int>(m), i, e_bytes);
      act = z.activations;
      live.params_bytes += z.params;
      live.grads_bytes += z.grads;
    }
    // One entry per device; devices of a stage differ only in their capacity.
    const int first = rm.device(0, 0, i);
    const DeviceMemoryEstimate proto = memory_entry(first, i, live, act, 0.0, topo.device(first).memory_bytes);
    if (!full) {  // the stage's first device, and those of another capacity
      e.memory.push_back(proto);
      if (topo.min_device_memory_bytes() == topo.max_device_memory_bytes()) continue;
      for (int k = 0; k < t; ++k)
        for (int j = 0; j < dg; ++j) {
          const int dev = rm.device(k, j / cp, i, j % cp);
          if (topo.device(dev).memory_bytes != proto.capacity_bytes)
            e.memory.push_back(memory_entry(dev, i, live, act, 0.0, topo.device(dev).memory_bytes));
        }
      continue;
    }
    for (int k = 0; k < t; ++k)
      for (int j = 0; j < dg; ++j) {
        const int dev = rm.device(k, j / cp, i, j % cp);
        DeviceMemoryEstimate& slot = e.memory[static_cast<size_t>(dev)];
        if (topo.device(dev).memory_bytes == proto.capacity_bytes) {
          slot = proto;
          slot.device = dev;
        } else {
          slot = memory_entry(dev, i, live, act, 0.0, topo.device(dev).memory_bytes);
        }
      }
  }
  // Entries are written at their device's index, so they are in order already.
  if (!training && full)
    e.notes.push_back("inference: activations are one block's working set at a time (what its "
                      "kernels write)");
  return Status::ok();
}

}  // namespace brigade::cost::detail
