// The data-parallel part of a pipeline stage (costmodel/plan_stage.hpp,
// stage_data_parallel): the gradient buckets beside the last micro-batch's
// backward and the updated weights' gathers (ZeRO 0-2), or ZeRO-3's gathers
// and reduce-scatters every micro-batch; kept apart from the transformer
// judge's stage loop (plan_transformer.cpp), which calls it once a stage.
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "costmodel/plan_internal.hpp"
#include "costmodel/plan_order_walk.hpp"
#include "costmodel/plan_stage.hpp"

namespace brigade::cost::detail {
namespace {

// The working vectors, kept per thread from stage to stage and plan to plan
// (each is filled afresh before it is read).
struct Scratch {
  std::vector<double> shares, ready, seconds, held;
  std::vector<std::pair<double, double>> full_rate;
  std::vector<PricedCollective> priced;  // the gradient group's ZeRO-3 collectives
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// ZeRO-3 on a stage of its own (no pipeline), overlapped: its passes walked
// block by block as the planner issues them (planner/lower_transformer_
// stage.cpp, gather / prefetch_next_step): before a block computes, its
// gather (if not already issued), then the next block's (one block of
// prefetch; past a pass's last block, the next pass's first where
// strategy.zero3_prefetch reaches it); after a block's backward, its
// reduce-scatter; all on the one 'data' stream in the order issued, each
// when the compute before it has ended. A block computes when its gather
// has ended, at 1 - share of its rate while a collective's NCCL kernel runs
// beside it; a pass ends with FP8 delayed scaling's amax reduction where
// `amax_fwd`, `amax_bwd` hold one (amax_beside). The passes in the
// schedule's order (1F1B: each micro-batch's
// forward then backward; GPipe: the forwards, then the backwards).
struct Zero3Walk {
  double waits = 0;   // compute waiting for gathers
  double slowed = 0;  // compute longer beside the collectives
  double tail = 0;    // the stream past the last backward
};
Zero3Walk zero3_walk(const std::vector<Zero3Block>& blocks, std::int64_t m, bool gpipe,
                     Zero3Prefetch mode, const Zero3Amax& amax_fwd, const Zero3Amax& amax_bwd) {
  thread_local std::vector<StreamRun> runs;
  thread_local std::vector<double> ready;  // a block's gather's end in this pass (-1: none issued)
  runs.clear();
  const size_t n = blocks.size();
  ready.assign(n, -1.0);
  size_t next = 0;
  double t = 0, free = 0;
  Zero3Walk out;
  auto issue = [&](double seconds, double share) {
    const double start = std::max(free, t);
    free = start + seconds;
    runs.push_back({start, free, share});
    return free;
  };
  auto gather = [&](size_t j) {
    if (blocks[j].g > 0 && ready[j] < 0) ready[j] = issue(blocks[j].g, blocks[j].g_share);
  };
  const auto passes = 2 * m;
  for (std::int64_t x = 0; x < passes; ++x) {
    const bool forward = gpipe ? x < m : x % 2 == 0;
    const bool next_forward = gpipe ? x + 1 < m : (x + 1) % 2 == 0;
    const bool ahead = x + 1 < passes && (mode == Zero3Prefetch::kAcrossPasses ||
                                          (mode == Zero3Prefetch::kPerMicroBatch && !next_forward));
    const size_t first = next_forward ? 0 : n - 1;  // the next pass's first block
    double next_first = -1;
    for (size_t i = 0; i < n; ++i) {
      const size_t j = forward ? i : n - 1 - i;
      gather(j);
      if (i + 1 < n)
        gather(forward ? j + 1 : j - 1);
      else if (ahead && blocks[first].g > 0)
        next_first = issue(blocks[first].g, blocks[first].g_share);
      if (ready[j] > t) out.waits += ready[j] - t, t = ready[j];
      const double work = forward ? blocks[j].f : blocks[j].b;
      const double begin = t;
      t = compute_beside(runs, next, t, work, forward ? blocks[j].f_tp : blocks[j].b_tp);
      out.slowed += (t - begin) - work;
      if (!forward && blocks[j].r > 0) issue(blocks[j].r, blocks[j].r_share);
    }
    // FP8 delayed scaling's amax reduction ends the pass, on the compute
    // stream beside the data stream (the next pass's gathers go after it).
    if (const Zero3Amax& a = forward ? amax_fwd : amax_bwd; a != Zero3Amax{}) {
      const double begin = t;
      t = amax_beside(runs, next, t, a);
      out.slowed += (t - begin) - (a.cat + a.reduce + a.update);
    }
    ready.assign(n, -1.0);
    if (next_first >= 0) ready[first] = next_first;
  }
  out.tail = std::max(0.0, free - t);
  return out;
}

// The stage's buckets by chunk (ChunkBuckets): the list's window is the
// chunks' last backwards back to back, chunk v - 1's first (fill_buckets);
// each chunk's length on it is its blocks' clocks.
void chunk_buckets(const StageLayout& lay, const KernelTimes& times, const BucketList& bl,
                   const std::vector<double>& priced, const std::vector<double>& shares,
                   ChunkBuckets& out) {
  const int v = lay.chunks;
  auto clock_of = [&](const StageBlock& blk) {
    const KernelTimes::Lists& t = times.of(blk.tpl);
    double x = 0;
    for (double y : t.backward_clock) x += y;
    for (double y : t.recompute_clock) x += y;
    return x;
  };
  const double emb = lay.first ? clock_of(lay.embedding) : 0.0;
  const double head = lay.last ? clock_of(lay.head) : 0.0;
  const double layer = lay.recomputed_layers > 0 ? clock_of(lay.layer) : 0.0;
  const double kept = lay.kept_layers > 0 ? clock_of(lay.layer_kept) : 0.0;
  out.length.resize(static_cast<size_t>(v));
  thread_local std::vector<double> start;
  start.resize(static_cast<size_t>(v));
  double at = 0;
  for (int c = v; c-- > 0;) {
    const double len = (c == 0 ? emb : 0.0) + static_cast<double>(lay.chunk_recomputed(c)) * layer +
                       static_cast<double>(lay.chunk_kept(c)) * kept + (c == v - 1 ? head : 0.0);
    out.length[static_cast<size_t>(c)] = len, start[static_cast<size_t>(c)] = at;
    at += len;
  }
  // The chunk a point of the window falls in (its end: the chunk before's
  // next in the order, so a point on a boundary is the earlier chunk's).
  const double slack = 1e-12 * std::max(at, bl.window_seconds);
  auto chunk_at = [&](double x) {
    for (int c = v - 1; c > 0; --c)
      if (x <= start[static_cast<size_t>(c)] + out.length[static_cast<size_t>(c)] + slack) return c;
    return 0;
  };
  const size_t n = bl.buckets.size();
  out.chunk.resize(n), out.offset.resize(n), out.seconds.resize(n), out.share.resize(n);
  for (size_t z = 0; z < n; ++z) {
    const double r = bl.buckets[z].ready_seconds;
    const int c = chunk_at(r);
    out.chunk[z] = c;
    out.offset[z] = std::clamp(r - start[static_cast<size_t>(c)], 0.0,
                               out.length[static_cast<size_t>(c)]);
    out.seconds[z] = priced[bl.size_index[z]];
    out.share[z] = shares[bl.size_index[z]];
  }
  // The list's stretches run in window order (chunk v - 1's first), each
  // within one block; chunk by chunk from chunk 0, each chunk's from where
  // they enter its window (found from the window's end backwards).
  out.full_rate.clear();
  out.full_begin.assign(static_cast<size_t>(v) + 1, 0);
  const auto& fr = bl.full_rate;
  size_t end = fr.size();
  for (int c = 0; c < v; ++c) {
    out.full_begin[static_cast<size_t>(c)] = static_cast<std::uint32_t>(out.full_rate.size());
    const double a0 = start[static_cast<size_t>(c)], len = out.length[static_cast<size_t>(c)];
    size_t first = end;
    while (first > 0 && fr[first - 1].second > a0) --first;
    for (size_t x = first; x < end; ++x) {
      const double lo = std::max(fr[x].first - a0, 0.0), hi = std::min(fr[x].second - a0, len);
      if (hi > lo) out.full_rate.emplace_back(lo, hi);
    }
    end = first;
  }
  out.full_begin[static_cast<size_t>(v)] = static_cast<std::uint32_t>(out.full_rate.size());
}

}  // namespace

Result<double> stage_sm_share(PlanMemo* memo, const Topology& topo, const HardwareProfile& prof,
                              const DeviceProfile& device, int handle, CollectiveKind kind,
                              CollectiveAlgorithm algorithm, double bytes,
                              const GroupMembers& members) {
  if (memo != nullptr)
    if (const auto known = memo->find_sm_share(kind, algorithm, handle, bytes)) return *known;
  BRIGADE_ASSIGN_OR_RETURN(const double share, collective_sm_share(topo, prof, device, kind,
                                                                   algorithm, members(), bytes));
  if (memo != nullptr) memo->store_sm_share(kind, algorithm, handle, bytes, share);
  return share;
}

Status stage_data_parallel(const DataParallelInputs& in, DataParallelCarry& carry, StageTimes& T,
                           CommLedger& ledger, DataParallelFigures& out) {
  const Scenario& sc = in.sc;
  const StrategySpec& st = sc.strategy;
  PlanMemo* const memo = in.memo;
  const StageLayout& lay = in.lay;
  const KernelTimes& times = in.times;
  const std::uint64_t times_written = in.times_written;
  const DeviceProfile& dp = in.device;
  const int p = in.stages, i = in.stage, dg = in.dg, dp_handle = in.handle;
  const double m = in.micro_batches, g_bytes = in.g_bytes, e_bytes = in.e_bytes;
  const double host_op = in.host_op;
  const bool ledgers_on = in.ledgers_on, param_gather_ahead = in.param_gather_ahead;
  auto dp_vec = [&]() -> const std::vector<int>& { return in.members(); };
  auto sm_share_of = [&](int handle, CollectiveKind kind, CollectiveAlgorithm algorithm,
                         double bytes) {
    return stage_sm_share(memo, sc.topology, sc.profile, dp, handle, kind, algorithm, bytes,
                          in.members);
  };
  Scratch& work = scratch();
  work.priced.clear();
  out = DataParallelFigures{};
  if (st.zero <= 2) {
    // The dp stream during the last micro-batch's backward (time 0 at its start,
    // `window` long): bucket k starts when it is full and bucket k-1 is done
    // (after the whole backward without overlap); what runs past the backward's
    // end is exposed. Each distinct bucket size is priced once.
    // The list of the stage before when this one runs the same blocks and
    // no kernel time has been written since (stage_buckets' key is those
    // blocks' times): a pipeline's middle stages.
    const bool same_list = carry.last_list != nullptr && carry.last_list_written == times_written &&
                           carry.last_list_first == lay.first && carry.last_list_last == lay.last;
    BucketList& bl = same_list ? *carry.last_list
                               : stage_buckets(in.cache, in.templates, lay, p > 1, times, g_bytes,
                                               st.bucket_bytes);
    carry.last_list = &bl;
    carry.last_list_written = times_written;
    carry.last_list_first = lay.first, carry.last_list_last = lay.last;
    const double window_seconds = bl.window_seconds;
    const std::vector<GradientBucket>& buckets = bl.buckets;
    const CollectiveKind k =
        st.zero == 0 ? CollectiveKind::kAllReduce : CollectiveKind::kReduceScatter;
    std::vector<double>& priced = in.cache.priced;
    // The sizes are distinct and each kind is priced once per stage, so
    // the stage's own list (`price`) could never answer: the memo, or
    // the collective model, directly.
    // `scale`: the updated weights' bytes per gradient byte (e / g: 1/2
    // for bf16 weights gathered after fp32 main_grad reduce-scatters).
    auto price_sizes = [&](CollectiveKind kind, double scale) -> Status {
      priced.resize(bl.sizes.size());
      for (size_t z = 0; z < bl.sizes.size(); ++z) {
        const double bytes = bl.sizes[z] * scale;
        std::optional<double> known;
        if (memo != nullptr) known = memo->find_collective(kind, st.algorithm, dp_handle, bytes);
        if (known) {
          priced[z] = *known;
        } else {
          BRIGADE_ASSIGN_OR_RETURN(priced[z], plan_collective(sc, kind, dp_vec(), bytes));
        }
      }
      return Status::ok();
    };
    BRIGADE_RETURN_IF_ERROR(price_sizes(k, 1.0));
    // The shares of the device's SMs each size's NCCL kernel holds
    // (NCCL's kernels take SMs), where the backward runs beside them.
    std::vector<double>& shares = work.shares;
    shares.assign(bl.sizes.size(), 0.0);
    bool any_share = false;
    if (st.overlap && nccl_sm_share(dp, 1) > 0)
      for (size_t z = 0; z < bl.sizes.size(); ++z) {
        BRIGADE_ASSIGN_OR_RETURN(shares[z], sm_share_of(dp_handle, k, st.algorithm, bl.sizes[z]));
        any_share |= shares[z] > 0;
      }
    // ZeRO-2 frees each bucket's whole gradients when its reduce-scatter
    // ends: where in the last backward (zero2_last_backward).
    const bool frees = st.zero == 2 && st.overlap && lay.chunks == 1;
    // FP8 delayed scaling, one chunk: the chunk's amax reduction
    // (StageTimes::amax_bwd: a cat, the AllReduce over 'tensor' at its whole
    // rate, an update) ends the backward, after the window the buckets
    // fill, and the window takes it. A last bucket short of the bucket size
    // is ready after it (the planner closes it when the stage's steps end),
    // a full one at its last gradient, before it. (Interleaved, the order
    // walk runs the reduction in each chunk's pass.)
    const double amax = lay.chunks == 1 ? T.amax_bwd : 0.0;
    const double window = window_seconds + amax;
    if (!(bl.reduce.valid && bl.reduce.overlap == st.overlap && bl.reduce.priced == priced &&
          bl.reduce.shares == shares && bl.reduce.amax == amax &&
          (!frees || bl.reduce.ends_work.size() == buckets.size()))) {
      double total = 0, dp_end = 0, backward_end = window;
      const bool last_after =
          amax > 0 && !buckets.empty() && buckets.back().bytes < st.bucket_bytes;
      auto ready_of = [&](size_t z) {
        return last_after && z + 1 == buckets.size() ? window : buckets[z].ready_seconds;
      };
      const size_t n_buckets = buckets.size();
      std::vector<double>& ends_work = bl.reduce.ends_work;
      ends_work.clear();
      if (any_share) {
        std::vector<double>& ready = work.ready;
        std::vector<double>& seconds = work.seconds;
        std::vector<double>& held = work.held;
        ready.resize(n_buckets), seconds.resize(n_buckets), held.resize(n_buckets);
        for (size_t z = 0; z < n_buckets; ++z) {
          ready[z] = ready_of(z);
          seconds[z] = priced[bl.size_index[z]];
          held[z] = shares[bl.size_index[z]];
          total += seconds[z];
        }
        const std::vector<std::pair<double, double>>* full_rate = &bl.full_rate;
        std::vector<std::pair<double, double>>& with_amax = work.full_rate;
        if (T.amax_bwd_tp > 0 && amax > 0) {
          with_amax.assign(bl.full_rate.begin(), bl.full_rate.end());
          with_amax.emplace_back(window_seconds + T.amax_bwd_cat,
                                 window_seconds + T.amax_bwd_cat + T.amax_bwd_tp);
          full_rate = &with_amax;
        }
        const BucketsBeside beside = buckets_beside_backward(
            ready, seconds, held, window, *full_rate, frees ? &ends_work : nullptr);
        dp_end = beside.end, backward_end = beside.backward_end;
      } else {
        for (size_t z = 0; z < n_buckets; ++z) {
          const double one = priced[bl.size_index[z]];
          dp_end = std::max(dp_end, st.overlap ? ready_of(z) : window) + one;
          total += one;
          if (frees)  // (the backward at its whole rate: its work is the time)
            ends_work.push_back(dp_end <= window ? dp_end
                                                 : std::numeric_limits<double>::infinity());
        }
      }
      bl.reduce.valid = true, bl.reduce.overlap = st.overlap;  // (in place: no allocation)
      bl.reduce.amax = amax;
      bl.reduce.priced.assign(priced.begin(), priced.end());
      bl.reduce.shares.assign(shares.begin(), shares.end());
      bl.reduce.total = total, bl.reduce.end = dp_end;
      bl.reduce.backward_end = backward_end;
    }
    if (in.chunk_buckets != nullptr && st.overlap && lay.chunks > 1) {
      ChunkBuckets& cb = *in.chunk_buckets;
      chunk_buckets(lay, times, bl, priced, shares, cb);
      cb.freed.assign(static_cast<size_t>(lay.chunks), 0.0);
      for (size_t z = 0; z < bl.buckets.size(); ++z)
        cb.freed[static_cast<size_t>(cb.chunk[z])] +=
            bl.buckets[z].bytes / g_bytes * in.grad_memory_bytes;
    }
    const double total = bl.reduce.total, dp_end = bl.reduce.end, bytes = bl.bytes_sum;
    out.slowed = bl.reduce.backward_end - window;
    out.after_backward = std::max(0.0, dp_end - bl.reduce.backward_end);
    out.per_step += out.slowed + out.after_backward;
    if (frees) out.zero2_last = zero2_last_backward(lay, times, bl, g_bytes, in.grad_memory_bytes, m <= 1);
    if (ledgers_on)
      ledger.add("data", kind_name(k), dg, static_cast<double>(buckets.size()), bytes, total,
                 std::min(total, out.after_backward));
    if (param_gather_ahead) {
      // overlap_param_gather: at the start of the step, one bucket ahead
      // of the first micro-batch's forward; exposed, what that forward
      // ends later by (chunk 0's carried down the pipeline).
      auto price_gather = [&](double size) -> Result<double> {
        std::optional<double> known;
        if (memo != nullptr)
          known = memo->find_collective(CollectiveKind::kAllGather, st.algorithm, dp_handle, size);
        if (known) return *known;
        return plan_collective(sc, CollectiveKind::kAllGather, dp_vec(), size);
      };
      // The share of the SMs each gather's NCCL kernel holds, where NCCL's
      // kernels take SMs (the buckets' too: above).
      const bool gather_shares = st.overlap && nccl_sm_share(dp, 1) > 0;
      auto share_gather = [&](double size) -> Result<double> {
        if (!gather_shares) return 0.0;
        return sm_share_of(dp_handle, CollectiveKind::kAllGather, st.algorithm, size);
      };
      BRIGADE_ASSIGN_OR_RETURN(
          const ParamGatherChain chain,
          param_gather_chain(lay, times, g_bytes, e_bytes, in.fp8_gather_bytes, st.bucket_bytes,
                             carry.pg_arrival + carry.pg_carry, p, i,
                             p > 1 ? in.forward_send(i > 0 ? i - 1 : 1, i > 0 ? i : 0) : 0.0,
                             price_gather, share_gather, carry.pg_later));
      carry.pg_carry += chain.chunk0_delay;
      carry.pg_later += chain.later_delay;
      carry.pg_forward = chain.chunk0_forward;
      const double exposed = carry.pg_carry + carry.pg_later;
      out.per_step += exposed + chain.slowed;
      out.start_own = chain.chunk0_delay + chain.later_delay;
      if (ledgers_on)
        ledger.add("data", "allgather", dg, chain.calls, chain.bytes, chain.seconds,
                   std::min(chain.seconds, exposed));
    } else if (st.zero >= 1) {
      // Updated weights gathered after the optimizer step (not overlapped),
      // each bucket at the stage's weight bytes per gradient byte: e / g,
      // less with FP8 primary weights gathered in FP8 (the same mean over
      // the stage's data-parallel groups as the planner's, so the buckets'
      // bytes sum to the weights').
      double gathered = e_bytes / g_bytes;
      if (in.fp8_gather_bytes != e_bytes) {
        const double elements =
            lay.sum([](const StageBlock& blk) { return blk.owned_elements - blk.expert_elements; });
        const double fp8 = lay.sum([](const StageBlock& blk) { return blk.fp8_elements; });
        if (elements > 0)
          gathered = (elements * e_bytes - fp8 * (e_bytes - in.fp8_gather_bytes)) /
                     (elements * g_bytes);
      }
      BRIGADE_RETURN_IF_ERROR(price_sizes(CollectiveKind::kAllGather, gathered));
      if (!(bl.gather.valid && bl.gather.priced == priced)) {
        double gather = 0;
        const size_t n_buckets = buckets.size();
        for (size_t z = 0; z < n_buckets; ++z) gather += priced[bl.size_index[z]];
        bl.gather.valid = true, bl.gather.overlap = false;
        bl.gather.priced.assign(priced.begin(), priced.end());
        bl.gather.total = gather, bl.gather.end = 0.0;
      }
      const double gather = bl.gather.total;
      out.per_step += gather;
      if (ledgers_on)
        ledger.add("data", "allgather", dg, static_cast<double>(buckets.size()),
                   bytes * gathered, gather, gather);
    }
  } else {
    double f_total = 0, b_total = 0, f_last = 0, b_last = 0, rs_total = 0, rs_last = 0;
    double gathers = 0, gather_bytes = 0, scatters = 0, scatter_bytes = 0;
    // The gathers' and reduce-scatters' seconds weighted by the share of
    // the SMs their NCCL kernels hold (NCCL's kernels take SMs).
    double f_held = 0, rs_held = 0;
    const bool z3_shares = st.overlap && nccl_sm_share(dp, 1) > 0;
    // Blocks with the same figures are timed once (layers are alike), in
    // the order of their (gather, owned) elements.
    struct Kind {
      double gather = 0, owned = 0, n = 0;
    };
    std::array<Kind, 4> kinds{};
    size_t n_kinds = 0;
    lay.for_each_kind([&](const StageBlock& blk, double count_of) {
      for (size_t x = 0; x < n_kinds; ++x)
        if (kinds[x].gather == blk.gather_elements && kinds[x].owned == blk.owned_elements) {
          kinds[x].n += count_of;
          return;
        }
      kinds[n_kinds++] = {blk.gather_elements, blk.owned_elements, count_of};
    });
    for (size_t x = 1; x < n_kinds; ++x)  // at most four: insertion
      for (size_t y = x; y > 0 && std::pair(kinds[y].gather, kinds[y].owned) <
                                      std::pair(kinds[y - 1].gather, kinds[y - 1].owned);
           --y)
        std::swap(kinds[y], kinds[y - 1]);
    for (size_t x = 0; x < n_kinds; ++x) {
      const Kind& kd = kinds[x];
      const double n = kd.n;
      if (kd.gather > 0) {
        const double bytes = kd.gather * e_bytes;
        BRIGADE_ASSIGN_OR_RETURN(
            double one,
            price_on_stage(
                memo, work.priced, dp_handle, CollectiveKind::kAllGather, st.algorithm, bytes,
                [&] { return plan_collective(sc, CollectiveKind::kAllGather, dp_vec(), bytes); }));
        f_total += n * one, b_total += n * one;
        f_last = std::max(f_last, one), b_last = std::max(b_last, one);
        if (z3_shares) {
          BRIGADE_ASSIGN_OR_RETURN(
              const double share,
              sm_share_of(dp_handle, CollectiveKind::kAllGather, st.algorithm, bytes));
          f_held += n * one * share;
        }
        gathers += 2 * n, gather_bytes += 2 * n * bytes;
      }
      if (kd.owned > 0) {
        const double bytes = kd.owned * e_bytes;
        BRIGADE_ASSIGN_OR_RETURN(
            double one, price_on_stage(memo, work.priced, dp_handle, CollectiveKind::kReduceScatter,
                                       st.algorithm, bytes, [&] {
                                         return plan_collective(sc, CollectiveKind::kReduceScatter,
                                                                dp_vec(), bytes);
                                       }));
        rs_total += n * one, rs_last = std::max(rs_last, one);
        if (z3_shares) {
          BRIGADE_ASSIGN_OR_RETURN(
              const double share,
              sm_share_of(dp_handle, CollectiveKind::kReduceScatter, st.algorithm, bytes));
          rs_held += n * one * share;
        }
        scatters += n, scatter_bytes += n * bytes;
      }
    }
    // The forward's gathers beside the forward; the backward's gathers and
    // reduce-scatters one after another on the one `dp` stream beside the
    // backward (exposed_on_one_stream). The backward's exposed time is
    // the gathers' alone over the window, the rest the reduce-scatters'.
    // strategy.zero3_prefetch: a pass that starts cold waits for its first
    // (the largest) gather; one whose first gather the pass before
    // prefetched has no such floor (zero3_exposure).
    // Without a pipeline (and overlapped) the passes are walked block by
    // block instead (zero3_walk); over one, the order walk walks them
    // (in.zero3, pipeline_step), the window model's figures kept for the
    // stage's report.
    thread_local std::vector<Zero3Block> blocks_here;
    std::vector<Zero3Block>& blocks = in.zero3 != nullptr ? in.zero3->blocks : blocks_here;
    // FP8 delayed scaling's amax reduction ending each pass that runs
    // layers (StageTimes::amax_fwd, amax_bwd), in its pieces.
    auto amax_of = [&](bool fwd) {
      const double all = fwd ? T.amax_fwd : T.amax_bwd, cat = fwd ? T.amax_fwd_cat : T.amax_bwd_cat;
      const double reduce = fwd ? T.amax_fwd_tp : T.amax_bwd_tp;
      return all > 0 ? Zero3Amax{cat, reduce, all - cat - reduce} : Zero3Amax{};
    };
    const Zero3Amax amax_fwd = lay.layers() > 0 ? amax_of(true) : Zero3Amax{};
    const Zero3Amax amax_bwd = lay.layers() > 0 ? amax_of(false) : Zero3Amax{};
    const bool hides_amax = p == 1 && !st.overlap && T.amax_bwd > 0 && lay.layers() > 0;
    if ((p == 1 && (st.overlap || hides_amax)) || in.zero3 != nullptr) {
      blocks.clear();
      auto price = [&](CollectiveKind kind, double bytes, double& seconds,
                       double& share) -> Status {
        seconds = 0, share = 0;
        if (bytes <= 0) return Status::ok();
        BRIGADE_ASSIGN_OR_RETURN(
            seconds, price_on_stage(memo, work.priced, dp_handle, kind, st.algorithm, bytes, [&] {
              return plan_collective(sc, kind, dp_vec(), bytes);
            }));
        if (z3_shares) {
          BRIGADE_ASSIGN_OR_RETURN(share, sm_share_of(dp_handle, kind, st.algorithm, bytes));
        }
        return Status::ok();
      };
      auto add = [&](const StageBlock& blk) -> Status {
        Zero3Block z;
        const auto slot = static_cast<size_t>(times.slot(blk.tpl));
        z.f = T.block_fwd[slot], z.b = T.block_bwd[slot];
        z.f_tp = T.block_fwd_tp[slot], z.b_tp = T.block_bwd_tp[slot];
        BRIGADE_RETURN_IF_ERROR(
            price(CollectiveKind::kAllGather, blk.gather_elements * e_bytes, z.g, z.g_share));
        BRIGADE_RETURN_IF_ERROR(
            price(CollectiveKind::kReduceScatter, blk.owned_elements * e_bytes, z.r, z.r_share));
        blocks.push_back(z);
        return Status::ok();
      };
      if (in.zero3 != nullptr) in.zero3->chunk_begin.clear();
      for (int c = 0; c < lay.chunks; ++c) {
        if (in.zero3 != nullptr)
          in.zero3->chunk_begin.push_back(static_cast<std::uint32_t>(blocks.size()));
        Status added = Status::ok();
        lay.for_each_block(c, false, [&](const StageBlock& b) {
          if (added.is_ok()) added = add(b);
        });
        BRIGADE_RETURN_IF_ERROR(added);
      }
      if (in.zero3 != nullptr) {
        in.zero3->chunk_begin.push_back(static_cast<std::uint32_t>(blocks.size()));
        in.zero3->per_step = 0;
        in.zero3->amax_fwd = amax_of(true), in.zero3->amax_bwd = amax_of(false);
        in.zero3->amax_chunk.clear();  // (none without an amax reduction)
        if (T.amax_fwd > 0 || T.amax_bwd > 0)
          for (int c = 0; c < lay.chunks; ++c)
            in.zero3->amax_chunk.push_back(lay.chunk_layers(c) > 0 ? 1 : 0);
      }
    }
    if (p == 1 && st.overlap) {
      const auto mb = static_cast<std::int64_t>(m);
      const Zero3Walk w = zero3_walk(blocks, mb, st.schedule == PipelineSchedule::kGpipe,
                                     st.zero3_prefetch, amax_fwd, amax_bwd);
      T.zero_exposed += w.waits / m;
      T.bwd_kernels += w.slowed / m;
      T.host += (gathers + scatters) * host_op;
      out.per_step += w.tail;
      if (ledgers_on) {
        ledger.add("zero-3 params", "allgather", dg, gathers * m, gather_bytes * m,
                   (f_total + b_total) * m, w.waits);
        ledger.add("data", "reducescatter", dg, scatters * m, scatter_bytes * m, rs_total * m,
                   w.tail);
      }
      return Status::ok();
    }
    const Zero3Exposure z =
        zero3_exposure(st.zero3_prefetch, st.overlap, lay.chunks, f_total, f_last, b_total, b_last,
                       rs_total, rs_last, T.fwd_kernels, T.bwd_kernels);
    // Not overlapped, on a stage of its own: each micro-batch's backward
    // ends with its last block's reduce-scatter (blocks.front()'s) and,
    // beside it on the compute stream, the amax reduction; the next
    // forward's first gather (or the optimizer) waits for both, so each
    // hides what it can of the other.
    double amax_hidden = 0;
    if (hides_amax && !blocks.empty() && blocks.front().r > 0) {
      const Zero3Block& last = blocks.front();
      thread_local std::vector<StreamRun> one;
      one.assign(1, StreamRun{0, last.r, last.r_share});
      size_t next = 0;
      const double end = amax_beside(one, next, 0, amax_bwd);
      amax_hidden = last.r + T.amax_bwd - std::max(last.r, end);
    }
    T.zero_exposed += z.gathered + z.scattered - amax_hidden;
    // What the kernels beside the hidden part lose to NCCL's SMs (to
    // first order: each hidden second of a collective on share r costs
    // the kernels beside it r seconds; the simulator times it exactly).
    if (f_held > 0 || rs_held > 0) {
      const double g_all = f_total + b_total;
      const double g_share = g_all > 0 ? f_held / f_total : 0.0;  // forward and backward alike
      const double rs_share = rs_total > 0 ? rs_held / rs_total : 0.0;
      const double slowed = g_share * std::max(0.0, g_all - z.gathered) +
                            rs_share * std::max(0.0, rs_total - z.scattered);
      T.bwd_kernels += slowed;
    }
    T.host += (gathers + scatters) * host_op;  // each issued by the host too
    out.per_step += z.per_step;
    if (in.zero3 != nullptr) in.zero3->per_step = z.per_step;
    if (ledgers_on) {
      ledger.add("zero-3 params", "allgather", dg, gathers * m, gather_bytes * m,
                 (f_total + b_total) * m, z.gathered * m + z.per_step_gather);
      ledger.add("data", "reducescatter", dg, scatters * m, scatter_bytes * m, rs_total * m,
                 (z.scattered - amax_hidden) * m + (z.per_step - z.per_step_gather));
    }
  }
  return Status::ok();
}

}  // namespace brigade::cost::detail
