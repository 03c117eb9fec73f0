// The plan judge for GPT-style transformers under data, tensor (+ sequence),
// pipeline parallelism and ZeRO: Megatron-LM's kernels and collectives.
// This file: the stage loop (each stage's kernels, collectives and per-step
// work); the rank map and a stage's layout in plan_stage.cpp; its pipeline
// sends in plan_pipeline_sends.cpp; the step and memory from the stages'
// figures in plan_transformer_step.cpp; what the report says it models in
// plan_transformer_notes.cpp.
#include "costmodel/plan_internal.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>

#include "core/plan_check.hpp"
#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/plan_memo.hpp"
#include "costmodel/plan_pipeline_sends.hpp"
#include "costmodel/plan_stage.hpp"
#include "costmodel/plan_transformer_cache.hpp"
#include "costmodel/scaling.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost::detail {

using std::int64_t;

namespace {

// The judge's working vectors, kept per thread from plan to plan so that a
// plan allocates none of them (a search judges 10^5 plans a second; each is
// sized and filled afresh by every plan, so no figure depends on the last).
struct Scratch {
  std::vector<StageTimes> stages;
  std::vector<double> stage_params, stage_fp8_weights, stage_experts, per_step_extra, opt_seconds,
      dp_after_backward, dp_slowed, dp_start_own;
  std::vector<Zero2LastBackward> zero2_last;
  std::vector<ChunkBuckets> chunk_buckets;
  std::vector<Zero3Stage> zero3;
  std::vector<StageLayout> layouts;
  TimedKernels kernels;
  std::vector<PricedCollective> tp_priced;
  std::vector<int> group, g, edp;
  std::vector<double> stage_prices, previous_prices;
  // Per price: the share of the stage device's SMs the collective's NCCL
  // kernel holds (collective_sm_share; 0 where none applies).
  std::vector<double> stage_shares, previous_shares;
  std::vector<CommLedger> ledgers;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

}  // namespace

Result<PlanEstimate> estimate_transformer(const Scenario& sc, const EstimateOptions& options) {
  const TransformerSpec& ts = sc.transformer;
  const StrategySpec& st = sc.strategy;
  const TrainingSpec& tr = sc.training;
  const Topology& topo = sc.topology;
  const HardwareProfile& prof = sc.profile;
  const bool training = !tr.inference;
  const int d = st.data, t = st.tensor, p = st.pipeline, cp = st.context;
  const int v = st.schedule == PipelineSchedule::kInterleaved ? std::max(1, st.virtual_stages) : 1;
  const int n_devices = d * t * cp * p;
  // The ranks holding the same weights: data x context (Megatron-Core sums
  // gradients and shards the distributed optimizer over the data-parallel
  // group with context parallelism).
  const int dg = d * cp;
  // check_plan (estimate_plan calls it first) has made the degrees use every
  // device, heads, FFN width and vocabulary divide by t (the sequence too
  // under SP), layers by p x v (core/plan_check.hpp, PipelineSplit), and the
  // global batch B by data x micro-batch.
  // Batch: global B sequences per step, micro-batches of b, m per replica.
  const int64_t B = global_batch(sc);
  const int64_t b = micro_batch_size(sc);
  const int64_t m = per_replica_batch(sc) / b;
  const RankMap rm = rank_map(sc);

  PlanEstimate e;
  e.name = sc.name;
  e.model_kind = "transformer";
  e.devices = n_devices;
  const DType dt = ts.dtype;
  const bool ledgers_on = options.communication;
  // Per step, one device of each stage (EstimateOptions::communication).
  std::vector<CommLedger>& ledgers = scratch().ledgers;  // (taken by the estimate below)
  ledgers.assign(ledgers_on ? static_cast<size_t>(p) : 1, CommLedger{});
  const bool full = options.every_device;  // notes and memory per device (EstimateOptions)
  // One description of the work (costmodel/transformer_blocks.hpp): the blocks a
  // tensor-parallel rank runs for one micro-batch, as the planner lowers them.
  const TransformerShape shape = transformer_shape(sc);
  if (full) transformer_model_notes(sc, shape, e.notes);
  // A search's memo (costmodel/plan_memo.hpp) builds each shape's templates once.
  PlanMemo* memo = PlanMemo::current(topo, prof);
  TransformerBlocks own;
  const TransformerBlocks* templates = &own;
  if (memo != nullptr) {
    BRIGADE_ASSIGN_OR_RETURN(templates, memo->blocks(shape));
  } else {
    BRIGADE_ASSIGN_OR_RETURN(own.layer, transformer_layer(shape));
    BRIGADE_ASSIGN_OR_RETURN(own.embedding, embedding_block(shape));
    BRIGADE_ASSIGN_OR_RETURN(own.head, head_block(shape));
    if (shape.recompute_block) {
      BRIGADE_ASSIGN_OR_RETURN(own.layer_kept, transformer_layer_kept(shape));
    }
    own.prepare();
  }
  const BlockTemplate& layer = templates->layer;
  const BlockTemplate& embedding = templates->embedding;
  const BlockTemplate& head = templates->head;
  const BlockTemplate& layer_kept = templates->layer_kept;

  Scratch& work = scratch();
  // Per micro-batch, per stage.
  std::vector<StageTimes>& stages = work.stages;
  stages.assign(static_cast<size_t>(p), StageTimes{});

  // Tensor-parallel and data-parallel groups of stage i (tensor rank 0, data rank 0 as the
  // representative; the others are the same by symmetry): {first, first + stride, ...}.
  auto tp_first = [&](int i) { return rm.device(0, 0, i); };
  auto fill_group = [](std::vector<int>& g, int first, int stride, int size) {
    g.resize(static_cast<size_t>(size));
    for (int k = 0; k < size; ++k) g[static_cast<size_t>(k)] = first + k * stride;
  };
  // Stage i's gradient group (tensor rank 0): data x context ranks, context
  // fastest (replica j = data x cp + context, as the planner numbers them). A
  // progression when context is 1 or sits right inside data in rank_order.
  const bool grad_progression = cp == 1 || rm.stride_data == rm.stride_context * cp;
  const int grad_stride = cp == 1 ? rm.stride_data : rm.stride_context;
  auto fill_grad_group = [&](std::vector<int>& g, int i) {
    if (grad_progression) return fill_group(g, tp_first(i), grad_stride, dg);
    g.clear();
    for (int j = 0; j < d; ++j)
      for (int c = 0; c < cp; ++c) g.push_back(rm.device(0, j, i, c));
  };

  const BytesPerParameter per =
      bytes_per_parameter(optimizer_kind(tr.optimizer), dt, tr.mixed_precision, training,
                          tr.main_grad_fp32, optimizer_layout(tr));
  const OptimizerStepBytes opt_step =
      megatron_optimizer_step_bytes(optimizer_kind(tr.optimizer), dt, tr.mixed_precision,
                                    tr.main_grad_fp32, optimizer_layout(tr));
  const double e_bytes = dtype_bytes(dt);
  // The gradients' width as they are kept and reduced over 'data': the
  // weights', or 4 with Megatron-LM's fp32 main_grad (grad_reduce_in_fp32:
  // its DDP buffers hold main_grad and reduce them in place).
  const double g_bytes = training && tr.main_grad_fp32 ? 4.0 : e_bytes;
  std::vector<double>& stage_params = work.stage_params;
  stage_params.assign(static_cast<size_t>(p), 0.0);
  std::vector<double>& stage_fp8_weights = work.stage_fp8_weights;
  stage_fp8_weights.assign(static_cast<size_t>(p), 0.0);
  // Under expert parallelism, the expert parameters one device keeps (their
  // optimizer state shards over the expert-data group); 0 without it.
  std::vector<double>& stage_experts = work.stage_experts;
  stage_experts.assign(static_cast<size_t>(p), 0.0);
  std::vector<double>& per_step_extra = work.per_step_extra;  // dp sync, param gather, optimizer
  per_step_extra.assign(static_cast<size_t>(p), 0.0);
  std::vector<double>& opt_seconds = work.opt_seconds;
  opt_seconds.assign(static_cast<size_t>(p), 0.0);
  // Gradient buckets past the backward.
  std::vector<double>& dp_after_backward = work.dp_after_backward;
  dp_after_backward.assign(static_cast<size_t>(p), 0.0);
  // The backward's kernels slowed by the gradient buckets' NCCL kernels
  // beside them (buckets_beside_backward), once a step; in per_step_extra.
  std::vector<double>& dp_slowed = work.dp_slowed;
  dp_slowed.assign(static_cast<size_t>(p), 0.0);
  std::vector<double>& dp_start_own = work.dp_start_own;
  dp_start_own.assign(static_cast<size_t>(p), 0.0);
  std::vector<Zero2LastBackward>& zero2_last = work.zero2_last;
  zero2_last.assign(static_cast<size_t>(p), Zero2LastBackward{});
  std::vector<StageLayout>& layouts = work.layouts;
  layouts.assign(static_cast<size_t>(p), StageLayout{});
  // Interleaved with its gradient buckets overlapped (ZeRO 0-2): each
  // stage's buckets by chunk, for the order walk (pipeline_step).
  std::vector<ChunkBuckets>& chunk_buckets = work.chunk_buckets;
  chunk_buckets.resize(training && v > 1 && dg > 1 && st.overlap && st.zero <= 2
                           ? static_cast<size_t>(p)
                           : 0);
  // ZeRO-3 over a pipeline: each stage's blocks, for the walk.
  std::vector<Zero3Stage>& zero3 = work.zero3;
  zero3.resize(training && p > 1 && dg > 1 && st.zero == 3 ? static_cast<size_t>(p) : 0);
  // Each chunk's layers (with the embedding or the loss counted in the
  // split, one fewer at either end: core/plan_check.hpp, PipelineSplit).
  const PipelineSplit split = pipeline_split(sc);
  const std::int64_t layers_per_chunk = split.per_chunk;
  // Block recomputation: of each chunk's layers, those past the first
  // recompute_num_layers run layer_kept (docs/costmodel.md, "Block recomputation").
  const std::int64_t recompute_cap = block_recompute_layers(sc);
  // Gradient buckets, kept from stage to stage (and, in a search, from plan
  // to plan: the memo's): costmodel/plan_transformer_cache.hpp.
  TransformerCache own_cache;
  TransformerCache& cache = memo != nullptr ? memo->transformer_cache() : own_cache;

  // Kernel times, kept from stage to stage (and, in a search, from plan to
  // plan: the memo's): a compute kernel's time depends on the device only
  // through its profile entry, peaks and memory bandwidth, and on the
  // stage's speed (ComputeKey); stages alike in those reuse the first one's
  // (a search judges 10^5 plans a second).
  // (Every list is written in full before it is read: compute_ready below.)
  TimedKernels& timed = memo != nullptr ? cache.kernels[templates] : work.kernels;
  KernelTimes& times = timed.times;
  {
    const BlockTemplate* const now[4] = {&embedding, &layer, &head, &layer_kept};
    for (int k = 0; k < 4; ++k) {
      if (memo == nullptr || times.tpl[k] != now[k]) timed.ready[k] = false;
      times.tpl[k] = now[k];
    }
  }
  ComputeKey& computed_for = timed.computed_for;
  bool* const compute_ready = timed.ready;
  // One stage's collectives on the tensor group priced once per (kind,
  // size): a stage's layers repeat them (price_on_stage).
  std::vector<PricedCollective>& tp_priced = work.tp_priced;
  const double pp_bytes = p > 1 ? pipeline_boundary_bytes(shape) : 0.0;
  // FP8 delayed scaling: the FP8 modules of a layer, whose amaxes each chunk
  // reduces at the end of its passes (fp8_amax_reduction); 0 without it.
  const double amax_modules =
      reduces_fp8_amax(shape, training) ? fp8_modules_per_layer(templates->layer) : 0.0;
  // strategy.pipeline_scatter_gather (Megatron-LM 2021-02 .. 2023-01, Narayanan
  // et al. 2021 §4.1): without sequence parallelism each tensor rank sends
  // 1/t of the boundary and the receiving stage all-gathers it back over
  // 'tensor' on its compute stream, once a receive (megatron/
  // p2p_communication.py at 77efcccb, _communicate: split_tensor_into_1d_
  // equal_chunks, then gather_split_1d_tensor).
  const bool scatter_gather = scatter_gathers_boundary(st);
  // strategy.pipeline_blocking_sends (Megatron-LM's batch_isend_irecv, then
  // req.wait() and torch.cuda.synchronize()): a stage's sends in its own time
  // (StageTimes::pp_blocking), not beside its next step; so nothing is left
  // for the schedule's path to wait for (pp = 0, the chain 0). Refused with
  // DeepSpeed's engine, which blocks in its own way (core/plan_check.cpp).
  const bool blocking_sends = blocks_on_pipeline_sends(st);
  // The stage's tensor and data groups, built when a collective is priced.
  std::vector<int>& group = work.group;
  std::vector<int>& g = work.g;
  std::vector<int> ep_group;  // the stage's first expert-parallel group, built when priced
  std::vector<AlphaBeta> ring_hops;  // the stage's context ring, built when priced
  const int ep = st.expert;

  // Tensor-parallel collectives of a stage, by kind: calls, bytes and
  // seconds per micro-batch.
  struct TpTally {
    bool used = false;
    double calls = 0, bytes = 0, seconds = 0, exposed = 0;
    bool operator==(const TpTally&) const = default;
  };
  // The last stage whose kernels were summed: its compute, blocks, prices and sums.
  struct Summed {
    bool valid = false;
    ComputeKey key;
    std::array<std::pair<const BlockTemplate*, double>, 4> count{};
    StageTimes times;
    std::array<TpTally, kNumCollectiveKinds> tally{};
  } previous;
  std::array<TpTally, kNumCollectiveKinds> tally{};             // the stage's (below)
  std::vector<double>& previous_prices = work.previous_prices;  // the last summed stage's prices
  std::vector<double>& stage_prices = work.stage_prices;
  std::vector<double>& previous_shares = work.previous_shares;
  std::vector<double>& stage_shares = work.stage_shares;
  StageGradientCarry gradient_carry;  // the tied embedding's AllReduce (first and last stage)
  // Kernel-time writes so far (a stage that sums its kernels afresh writes
  // its lists), and the bucket list the last stage used, at which count.
  std::uint64_t times_written = 0;

  // The last optimizer step priced: its compute key, bytes and time.
  struct {
    bool valid = false;
    ComputeKey key;
    double bytes = 0, seconds = 0;
  } opt_previous;
  // Each stage's pipeline sends per micro-batch, by engine and switches
  // (costmodel/plan_pipeline_sends.hpp).
  const PipelineSends pipeline_sends{
      .p = p,
      .v = v,
      .t = t,
      .m = m,
      .training = training,
      .ledgers_on = ledgers_on,
      .scatter_gather = scatter_gather,
      .blocking = blocking_sends,
      .deepspeed = training && p > 1 && st.pipeline_engine == PipelineEngine::kDeepSpeed,
      .boundary_bytes = pp_bytes,
      .rm = &rm,
      .topo = &topo,
      .prof = &prof,
      .memo = memo};
  auto stage_sends = [&](int i, StageTimes& T, CommLedger& ledger) {
    pipeline_sends.charge(i, T, ledger);
  };
  // The handles of each stage's groups in the memo (tensor, gradients when
  // a progression, experts; expert data and context when asked).
  const int* const tp_handles =
      memo != nullptr ? memo->stage_handles(tp_first(0), rm.stride_pipeline, p, rm.stride_tensor, t)
                      : nullptr;
  const int* const dp_handles =
      memo != nullptr && training && dg > 1 && grad_progression
          ? memo->stage_handles(tp_first(0), rm.stride_pipeline, p, grad_stride, dg)
          : nullptr;
  const int* const ep_handles =
      memo != nullptr && ep > 1
          ? memo->stage_handles(tp_first(0), rm.stride_pipeline, p, rm.stride_data, ep)
          : nullptr;
  const int* edp_handles = nullptr;
  const int* cp_handles = nullptr;
  // The last middle stage judged, by what its figures depend on (a middle
  // stage like it takes them: below).
  struct Alike {
    bool valid = false;
    ComputeKey key;
    int tp = -1, dp = -1, ep = -1, edp = -1, cp = -1;  // price classes (-1: no such group)
    bool operator==(const Alike&) const = default;
  } alike;
  // strategy.overlap_param_gather (ZeRO-1/2, Megatron-LM's
  // --overlap-param-gather; param_gather_chain in plan_stage.hpp): the
  // updated weights gathered in the step's first forward. `pg_arrival`: when
  // stage i's first forward would start without the gathers (the warm-up:
  // the stages before's first forward and send), `pg_carry`: how much later
  // the gathers of the stages before made it, `pg_forward`: the last judged
  // stage's chunk-0 forward of one micro-batch. (Stages are judged one by
  // one: no middle stage takes the one before's figures.)
  const bool param_gather_ahead = training && dg > 1 && (st.zero == 1 || st.zero == 2) &&
                                  st.overlap && st.overlap_param_gather &&
                                  tr.optimizer != Optimizer::kNone;
  // `pg_later`: the later chunks' delays of the stages so far (the first
  // micro-batch passes every virtual stage in turn, chunk c + 1 after chunk
  // c on every stage: each one's delay adds to the step). In `carry`, with
  // the bucket list the last stage used.
  DataParallelCarry carry;
  auto forward_send = [&](int from, int to) { return pipeline_sends.send_seconds(from, to); };
  const std::function<double(int, int)> send_forward = [&forward_send](int from, int to) {
    return forward_send(from, to);
  };
  const double host_op = slowest_host_op_seconds(sc);
  for (int i = 0; i < p; ++i) {
    const auto si = static_cast<size_t>(i);
    if (param_gather_ahead && i > 0) carry.pg_arrival += carry.pg_forward + forward_send(i - 1, i);
    const Device& dev = topo.device(rm.device(0, 0, i));
    const DeviceProfile& dp =
        memo != nullptr ? memo->device_profile(rm.device(0, 0, i)) : prof.for_device(dev);
    group.clear();
    g.clear();
    ep_group.clear();
    auto tp_vec = [&]() -> const std::vector<int>& {
      if (group.empty()) fill_group(group, tp_first(i), rm.stride_tensor, t);
      return group;
    };
    auto dp_vec = [&]() -> const std::vector<int>& {
      if (g.empty()) fill_grad_group(g, i);
      return g;
    };
    // A middle stage (neither first nor last) is laid out as the one before
    // it when that one is a middle stage too: stage_layout reads the stage's
    // index only through those two.
    if (i >= 2 && i < p - 1)
      layouts[si] = layouts[si - 1];
    else
      layouts[si] = stage_layout(p, v, i, split, recompute_cap, *templates);
    const StageLayout& lay = layouts[si];
    // The stage runs at its slowest device's pace (simulation.speed): its
    // tensor-parallel collectives and its data-parallel buckets wait for it.
    double speed = 1;
    if (!sc.simulation.speed.empty()) {
      std::vector<int> stage_devices;
      for (int k = 0; k < t; ++k)
        for (int j = 0; j < d; ++j)
          for (int c = 0; c < cp; ++c) stage_devices.push_back(rm.device(k, j, i, c));
      speed = slowest_speed(sc, stage_devices);
    }
    // Tensor-parallel collectives of this stage per micro-batch (they sit on
    // the compute stream: not overlapped); kept for the communication lists
    // alone.
    if (ledgers_on) tally = {};
    // The templates this stage runs and how many blocks of each, in the
    // order of their addresses (the order the sums below add them in).
    std::array<std::pair<const BlockTemplate*, double>, 4> count{
        {{&embedding, 0.0}, {&layer, 0.0}, {&head, 0.0}, {&layer_kept, 0.0}}};
    lay.for_each_kind(
        [&](const StageBlock& blk, double n) { count[static_cast<size_t>(times.slot(blk.tpl))].second += n; });
    std::sort(count.begin(), count.end(), [](const auto& x, const auto& y) {
      return std::less<const BlockTemplate*>()(x.first, y.first);
    });
    // Each kernel's time as the stage runs it: compute at the stage's speed;
    // tensor-parallel collectives by the collective model's own choice
    // (CollectiveAlgorithm::kAuto, as the planner's; strategy.algorithm is for
    // the data-parallel ones).
    const ComputeKey key{&dp, dev.peak_flops_per_second, dev.memory_bandwidth_bytes_per_second,
                         speed};
    if (!(key == computed_for)) {
      computed_for = key;
      compute_ready[0] = compute_ready[1] = compute_ready[2] = compute_ready[3] = false;
    }
    tp_priced.clear();
    const int tp_handle = tp_handles != nullptr ? tp_handles[i] : -1;
    // A block's collectives: over 'tensor', except the MoE dispatch and
    // combine AllToAll (the templates' only AllToAll), over the stage's first
    // expert-parallel group: data ranks 0..ep-1 (tensor 1: check_plan).
    const int ep_handle = ep_handles != nullptr ? ep_handles[i] : -1;
    // The gradient group's (data parallelism below).
    const int dp_handle = memo == nullptr || !(training && dg > 1) ? -1
                          : grad_progression                       ? dp_handles[i]
                                                                   : memo->group_handle(dp_vec());
    StageTimes& T = stages[si];
    // The stage's groups' ranks, built only when a collective on them is
    // worked out (one reference captured: no allocation).
    const GroupMembers tp_members = [&tp_vec]() -> const std::vector<int>& { return tp_vec(); };
    const GroupMembers dp_members = [&dp_vec]() -> const std::vector<int>& { return dp_vec(); };
    // A middle stage whose compute and groups' price classes (the memo's
    // handles: costmodel/plan_memo.hpp) are those of the middle stage before
    // it runs the same blocks (the same layout), prices every collective and
    // route of its own the same, so it has that stage's times, sums and
    // per-step work; only its pipeline sends, to other stages, are its own.
    // (Every figure is the one the full pass below gives; without a memo,
    // or with the communication lists, every stage takes that pass.)
    if (memo != nullptr && !ledgers_on && !param_gather_ahead && i >= 1 && i < p - 1) {
      Alike now{true, key, tp_handle, dp_handle, ep_handle, -1, -1};
      if (training && ep > 1 && d / ep > 1) {
        if (edp_handles == nullptr)
          edp_handles =
              memo->stage_handles(tp_first(0), rm.stride_pipeline, p, rm.stride_data * ep, d / ep);
        now.edp = edp_handles[i];
      }
      if (cp > 1) {
        if (cp_handles == nullptr)
          cp_handles =
              memo->stage_handles(tp_first(0), rm.stride_pipeline, p, rm.stride_context, cp);
        now.cp = cp_handles[i];
      }
      const bool known =
          now.tp >= 0 && (now.dp >= 0 || !(training && dg > 1)) && (now.ep >= 0 || ep == 1) &&
          (now.edp >= 0 || !(training && ep > 1 && d / ep > 1)) && (now.cp >= 0 || cp == 1);
      if (i >= 2 && known && alike == now) {
        const size_t before = si - 1;
        T = stages[before];
        stage_params[si] = stage_params[before];
        stage_fp8_weights[si] = stage_fp8_weights[before];
        stage_experts[si] = stage_experts[before];
        per_step_extra[si] = per_step_extra[before];
        opt_seconds[si] = opt_seconds[before];
        dp_after_backward[si] = dp_after_backward[before];
        dp_slowed[si] = dp_slowed[before];
        dp_start_own[si] = dp_start_own[before];
        zero2_last[si] = zero2_last[before];
        if (!chunk_buckets.empty()) chunk_buckets[si] = chunk_buckets[before];
        if (!zero3.empty()) zero3[si] = zero3[before];
        stage_sends(i, T, ledgers[0]);
        continue;
      }
      alike = known ? now : Alike{};
    } else {
      alike = Alike{};
    }
    auto block_collective = [&](CollectiveKind kind, double bytes) -> Result<double> {
      if (kind == CollectiveKind::kAllToAll && ep > 1)
        return price_on_stage(memo, tp_priced, ep_handle, kind, CollectiveAlgorithm::kAuto, bytes, [&] {
          if (ep_group.empty()) fill_group(ep_group, tp_first(i), rm.stride_data, ep);
          return collective_seconds(topo, prof, kind, CollectiveAlgorithm::kAuto, ep_group, bytes);
        });
      return price_on_stage(memo, tp_priced, tp_handle, kind, CollectiveAlgorithm::kAuto, bytes, [&] {
        return collective_seconds(topo, prof, kind, CollectiveAlgorithm::kAuto, tp_vec(), bytes);
      });
    };
    // Context parallelism: the hops of the stage's first context ring
    // (tensor and data rank 0: the others are alike), context rank c to
    // c + 1; a hop of the ring waits for its slowest link.
    ring_hops.clear();
    auto hop_seconds = [&](double bytes) {
      if (ring_hops.empty() && memo != nullptr)  // the ring's distinct hops, once per search
        ring_hops = memo->ring_alpha_betas(rm.device(0, 0, i, 0), rm.stride_context, cp);
      if (ring_hops.empty())
        for (int c = 0; c < cp; ++c) {
          const int from = rm.device(0, 0, i, c), to = rm.device(0, 0, i, (c + 1) % cp);
          if (memo != nullptr) {
            ring_hops.push_back(memo->route_alpha_beta(from, to));
          } else {
            const Route& route = topo.route(from, to);
            ring_hops.push_back(AlphaBeta{route_alpha_seconds(route, prof),
                                          route_bandwidth_bytes_per_second(route, topo, prof)});
          }
        }
      double x = 0;
      for (const AlphaBeta& ab : ring_hops) x = std::max(x, p2p_seconds(bytes, ab));
      return x;
    };
    // A ring kernel's blocks (1/steps of its FLOPs and bytes each, timed as
    // the kernel is: ring_block_seconds) and its time with the hops between
    // them (ring_attention_seconds).
    auto ring_block = [&](const Kernel& k) { return ring_block_seconds(dev, dp, k) / speed; };
    auto ring_total = [&](const Kernel& k) {
      return ring_attention_seconds(k.ring_steps, ring_block(k), hop_seconds(k.ring_bytes));
    };
    // Where each template's distinct collectives' prices start in
    // `stage_prices` (by KernelTimes slot).
    std::array<size_t, 4> prices_at{};
    // A list's kernel times: its collectives from `stage_prices` (`slots`:
    // each kernel's index among its template's distinct collectives).
    auto time_list = [&](const std::vector<Kernel>& ks, const std::vector<int>& slots, size_t at,
                         std::vector<double>& out, bool compute_known) {
      const size_t count_of = ks.size();
      out.resize(count_of);
      double* const o = out.data();
      const int* const slot_of = slots.data();
      for (size_t n = 0; n < count_of; ++n) {
        const int slot = slot_of[n];
        if (slot >= 0) {  // a collective
          o[n] = stage_prices[at + static_cast<size_t>(slot)];
          continue;
        }
        if (slot == -2) {  // a ring kernel
          o[n] = ring_total(ks[n]);
          continue;
        }
        if (compute_known) continue;
        const Kernel& k = ks[n];
        if (k.compute == ComputeKind::kGemm) {
          // A GEMM adding into the gradient buffer pays what of those bytes
          // the profile says shows (fused gradient accumulation).
          out[n] = (gemm_seconds(dev, dp, k.m, k.n, k.k, k.dtype, k.batch, k.kernel_class) +
                    accumulate_seconds(dev, dp, k.accumulate_bytes)) /
                   speed;
          if (k.sm_held > 0) out[n] /= sm_share(dp, k.sm_held);
        } else if (k.compute == ComputeKind::kFixed) {
          out[n] = kernel_seconds(dev, dp, k.dtype, k.fixed_flops, k.bytes, ComputeKind::kFixed, 0,
                                  k.kernel_class, k.m, k.k) /
                   speed;
        } else {
          out[n] = memory_bound_seconds(dev, dp, k.bytes, k.dtype, 0, k.kernel_class) / speed;
        }
      }
    };
    // The kernel after collective j, which runs beside it (Kernel::beside:
    // tp_comm_overlap, the column-parallel backward's collectives): its time
    // beside the collective. A kernel on all of its SMs loses those NCCL's
    // kernel holds while the collective runs (nccl_sm_share; TE's
    // userbuffers hold the GEMM's sm_held instead, already in its time).
    auto beside_seconds = [&](const std::vector<Kernel>& ks, const std::vector<int>& slots,
                              size_t at, const std::vector<double>& xs, size_t j) {
      const int slot = slots[j];
      const double share = !ks[j].userbuffers && slots[j + 1] == -1 && ks[j + 1].sm_held == 0
                               ? stage_shares[at + static_cast<size_t>(slot)]
                               : 0.0;
      return kernel_beside_collective_seconds(xs[j + 1], xs[j], share);
    };
    // The list as the stage's clock runs it (KernelTimes::Lists::
    // backward_clock): each pair of a collective and the kernel beside it
    // adds what `run` adds for them in the order they happen: at the
    // collective's place the kernel beside it (both start together; the
    // kernel's gradient is ready when it ends), at the kernel's place what
    // of the collective outlasts it (the next kernel waits for that).
    auto clock_list = [&](const std::vector<Kernel>& ks, const std::vector<int>& slots, size_t at,
                          const std::vector<double>& xs, std::vector<double>& out) {
      out.assign(xs.begin(), xs.end());
      for (size_t j = 0; j + 1 < ks.size(); ++j)
        if (opens_pair(ks, j)) {
          const double slowed = beside_seconds(ks, slots, at, xs, j);
          out[j] = slowed;
          out[j + 1] = std::max(0.0, xs[j] - slowed);
        }
    };
    // Each ring kernel's block (KernelTimes::Lists::backward_ring), the
    // list empty where it has none.
    auto ring_list = [&](const std::vector<Kernel>& ks, const std::vector<int>& slots,
                         std::vector<double>& out) {
      out.clear();
      for (size_t j = 0; j < ks.size(); ++j)
        if (slots[j] == -2) {
          out.resize(ks.size(), 0.0);
          out[j] = ring_block(ks[j]);
        }
    };
    CommLedger& ledger = ledgers[ledgers_on ? si : 0];
    // Adds `n` x the kernels' durations to `compute` and `collectives`
    // (`slots`: the template figures' kinds of kernel; the tallies serve the
    // communication lists alone).
    auto run = [&](const std::vector<Kernel>& ks, const std::vector<int>& slots, size_t at,
                   const std::vector<double>& xs, double n, double& compute, double& collectives,
                   double& ops) {
      const size_t count_of = ks.size();
      ops += n * static_cast<double>(count_of);  // each kernel and collective, issued once
      const double* const x_of = xs.data();
      const int* const slot_of = slots.data();
      for (size_t j = 0; j < count_of; ++j) {
        const double x = x_of[j];
        const int slot = slot_of[j];
        if (slot == -1) {
          compute += n * x;
        } else if (slot >= 0) {
          const Kernel& k = ks[j];
          // Beside the next kernel (tp_comm_overlap, the column-parallel
          // backward's collectives): what outlasts it. A kernel on all of
          // its SMs loses those NCCL's kernel holds while the collective
          // runs (nccl_sm_share; TE's userbuffers hold the GEMM's sm_held
          // instead, already in its time): its time beside the collective.
          double shown = x;
          if (opens_pair(ks, j)) {
            const double slowed = beside_seconds(ks, slots, at, xs, j);
            compute += n * (slowed - x_of[j + 1]);
            shown = std::max(0.0, x - slowed);
          }
          collectives += n * shown;
          if (!ledgers_on) continue;
          TpTally& y = tally[static_cast<size_t>(k.collective)];
          y.used = true;
          y.calls += n, y.bytes += n * k.collective_bytes, y.seconds += n * x;
          y.exposed += n * shown;
        } else {
          const Kernel& k = ks[j];
          // The blocks are compute; what the hops add beyond them is exposed.
          const double blocks = k.ring_steps * ring_block(k);
          compute += n * blocks;
          collectives += n * (x - blocks);
          const double hops = k.ring_steps - 1;
          ops += n * (k.ring_steps + hops - 1);  // its blocks and hops, not one kernel
          T.cp_calls += n * hops, T.cp_bytes += n * hops * k.ring_bytes;
          T.cp_seconds += n * hops * hop_seconds(k.ring_bytes), T.cp_exposed += n * (x - blocks);
        }
      }
    };
    // The stage's tensor-parallel collectives priced in the order the lists
    // below meet them: a stage with the same blocks, compute and prices as
    // the one before has the same sums (a pipeline's middle stages).
    // (Each distinct (kind, size) of a template once: the lists repeat them.
    // Two stages with the same blocks have the same prices exactly when
    // their distinct collectives do.)
    stage_prices.clear();
    stage_shares.clear();
    // NCCL's kernels take SMs from the kernels beside them on this device
    // (core/profile.hpp, nccl_sm_share): the shares of the beside
    // collectives' prices.
    const bool sm_shares = nccl_sm_share(dp, 1) > 0;
    for (const auto& [tpl, n] : count) {
      if (n == 0) continue;
      const TemplateFigures& f = templates->figures_of(tpl);
      prices_at[static_cast<size_t>(times.slot(tpl))] = stage_prices.size();
      const int priced_here = training ? static_cast<int>(f.distinct.size()) : f.forward_distinct;
      for (int z = 0; z < priced_here; ++z) {
        const auto& kb = f.distinct[static_cast<size_t>(z)];
        BRIGADE_ASSIGN_OR_RETURN(const double one, block_collective(kb.first, kb.second));
        stage_prices.push_back(one);
        double share = 0;
        if (sm_shares && !(kb.first == CollectiveKind::kAllToAll && ep > 1)) {
          BRIGADE_ASSIGN_OR_RETURN(share, stage_sm_share(memo, topo, prof, dp, tp_handle, kb.first,
                                                         CollectiveAlgorithm::kAuto, kb.second,
                                                         tp_members));
        }
        stage_shares.push_back(share);
      }
      // The context ring's hops are priced per stage too.
      if (cp > 1)
        for (const auto* list : {&tpl->forward, &tpl->recompute, &tpl->backward})
          for (const Kernel& k : *list)
            if (k.ring_steps > 1) {
              stage_prices.push_back(hop_seconds(k.ring_bytes));
              stage_shares.push_back(0);
            }
    }
    const bool same_sums = previous.valid && previous.key == key && previous.count == count &&
                           previous_prices == stage_prices && previous_shares == stage_shares;
    if (same_sums) {
      T.fwd_kernels = previous.times.fwd_kernels, T.bwd_kernels = previous.times.bwd_kernels;
      T.fwd_ops = previous.times.fwd_ops, T.bwd_ops = previous.times.bwd_ops;
      T.tp_fwd = previous.times.tp_fwd, T.tp_bwd = previous.times.tp_bwd;
      T.cp_calls = previous.times.cp_calls, T.cp_bytes = previous.times.cp_bytes;
      T.cp_seconds = previous.times.cp_seconds, T.cp_exposed = previous.times.cp_exposed;
      T.block_fwd = previous.times.block_fwd, T.block_bwd = previous.times.block_bwd;
      T.block_fwd_tp = previous.times.block_fwd_tp, T.block_bwd_tp = previous.times.block_bwd_tp;
      tally = previous.tally;
    }
    // Per micro-batch: every chunk's blocks forward, then (training) each block's
    // recomputation and backward.
    // (Each template timed once and counted: layers are alike.)
    for (const auto& [tpl, n] : count) {
      if (same_sums) break;
      if (n == 0) continue;
      const int slot = times.slot(tpl);
      KernelTimes::Lists& lt = times.lists[slot];
      const bool known = compute_ready[slot];
      const TemplateFigures& f = templates->figures_of(tpl);
      const size_t at = prices_at[static_cast<size_t>(slot)];
      time_list(tpl->forward, f.forward_slot, at, lt.forward, known);
      if (training) {
        time_list(tpl->recompute, f.recompute_slot, at, lt.recompute, known);
        time_list(tpl->backward, f.backward_slot, at, lt.backward, known);
      }
      compute_ready[slot] = true;
      const double fwd_before = T.fwd_kernels + T.tp_fwd, bwd_before = T.bwd_kernels + T.tp_bwd;
      const double fwd_tp_before = T.tp_fwd, bwd_tp_before = T.tp_bwd;
      run(tpl->forward, f.forward_slot, at, lt.forward, n, T.fwd_kernels, T.tp_fwd, T.fwd_ops);
      clock_list(tpl->forward, f.forward_slot, at, lt.forward, lt.forward_clock);
      if (training) {
        run(tpl->recompute, f.recompute_slot, at, lt.recompute, n, T.bwd_kernels, T.tp_bwd,
            T.bwd_ops);
        run(tpl->backward, f.backward_slot, at, lt.backward, n, T.bwd_kernels, T.tp_bwd,
            T.bwd_ops);
        clock_list(tpl->recompute, f.recompute_slot, at, lt.recompute, lt.recompute_clock);
        clock_list(tpl->backward, f.backward_slot, at, lt.backward, lt.backward_clock);
        ring_list(tpl->recompute, f.recompute_slot, lt.recompute_ring);
        ring_list(tpl->backward, f.backward_slot, lt.backward_ring);
      }
      const auto ss = static_cast<size_t>(slot);
      T.block_fwd[ss] = (T.fwd_kernels + T.tp_fwd - fwd_before) / n;
      T.block_bwd[ss] = (T.bwd_kernels + T.tp_bwd - bwd_before) / n;
      T.block_fwd_tp[ss] = (T.tp_fwd - fwd_tp_before) / n;
      T.block_bwd_tp[ss] = (T.tp_bwd - bwd_tp_before) / n;
    }
    if (!same_sums) ++times_written;
    if (!same_sums) {
      previous = Summed{true, key, count, T, tally};
      previous_prices.swap(stage_prices);  // stage_prices is cleared before it is next read
      previous_shares.swap(stage_shares);
    }
    // Transformer Engine's delayed-scaling amax reduction at the end of each
    // chunk's forward and backward (fp8_amax_reduction): the AllReduce on the
    // compute stream, priced as the layers' collectives over 'tensor', or
    // with context parallelism over the stage's first 'tensor' x 'context'
    // group (data rank 0; Kernel::group kTensorContext), or over every rank
    // of the stage (kStage), replicas (data, then context) and tensor ranks
    // fastest as the planner lists them.
    // The data and context ranks a reduction's group spans.
    auto amax_extent = [&](const Kernel& k) {
      return std::pair{k.group == Kernel::Group::kStage ? d : 1,
                       k.group == Kernel::Group::kTensor ? 1 : cp};
    };
    auto amax_collective = [&](const Kernel& k) -> Result<double> {
      const auto [datas, contexts] = amax_extent(k);
      if (datas * contexts <= 1) return block_collective(k.collective, k.collective_bytes);
      std::vector<int> members;
      members.reserve(static_cast<size_t>(t * contexts * datas));
      for (int j = 0; j < datas; ++j)
        for (int c = 0; c < contexts; ++c)
          for (int r = 0; r < t; ++r) members.push_back(rm.device(r, j, i, c));
      return collective_seconds(topo, prof, k.collective, CollectiveAlgorithm::kAuto, members,
                                k.collective_bytes);
    };
    T.amax_fwd = T.amax_bwd = T.amax_fwd_tp = T.amax_bwd_tp = T.amax_fwd_cat = T.amax_bwd_cat = 0;
    // Its own line of the communication table ("fp8 amax"), at its group's
    // size: 'tensor', 'tensor' x 'context' or the whole stage.
    TpTally amax_tally;
    int amax_ranks = t;
    if (amax_modules > 0) {
      double chunks = 0;
      for (int c = 0; c < lay.chunks; ++c) chunks += lay.chunk_layers(c) > 0 ? 1.0 : 0.0;
      const Fp8AmaxReduction red =
          fp8_amax_reduction(shape, static_cast<double>(lay.layers()) * amax_modules);
      for (const bool fwd : {true, false}) {
        double all = 0, tp = 0;
        const std::vector<Kernel>& ks = fwd ? red.forward : red.backward;
        for (const Kernel& k : ks) {
          if (!k.is_collective) {
            all += memory_bound_seconds(dev, dp, k.bytes, k.dtype, 0, k.kernel_class) / speed;
            if (tp == 0) (fwd ? T.amax_fwd_cat : T.amax_bwd_cat) = all;
            continue;
          }
          BRIGADE_ASSIGN_OR_RETURN(const double x, amax_collective(k));
          all += x, tp += x;
          if (ledgers_on) {
            amax_tally.used = true;
            amax_tally.calls += chunks, amax_tally.bytes += chunks * k.collective_bytes;
            amax_tally.seconds += chunks * x, amax_tally.exposed += chunks * x;
            const auto [datas, contexts] = amax_extent(k);
            amax_ranks = t * datas * contexts;
          }
        }
        (fwd ? T.amax_fwd : T.amax_bwd) = all;
        (fwd ? T.amax_fwd_tp : T.amax_bwd_tp) = tp;
        (fwd ? T.fwd_kernels : T.bwd_kernels) += chunks * (all - tp);
        (fwd ? T.tp_fwd : T.tp_bwd) += chunks * tp;
        (fwd ? T.fwd_ops : T.bwd_ops) += chunks * static_cast<double>(ks.size());
      }
    }
    if (ledgers_on)
      for (size_t kind = 0; kind < tally.size(); ++kind)
        if (const TpTally& x = tally[kind]; x.used) {
          const bool expert =
              static_cast<CollectiveKind>(kind) == CollectiveKind::kAllToAll && ep > 1;
          ledger.add(expert ? "expert" : "tensor", kind_name(static_cast<CollectiveKind>(kind)),
                     expert ? ep : t, x.calls * m, x.bytes * m, x.seconds * m, x.exposed * m);
        }
    if (ledgers_on && amax_tally.used)
      ledger.add("fp8 amax", kind_name(CollectiveKind::kAllReduce), amax_ranks,
                 amax_tally.calls * m, amax_tally.bytes * m, amax_tally.seconds * m,
                 amax_tally.exposed * m);
    if (ledgers_on && T.cp_calls > 0)
      ledger.add("context", "p2p", 2, T.cp_calls * m, T.cp_bytes * m, T.cp_seconds * m,
                 T.cp_exposed * m);

    if ((pipeline_sends.deepspeed && t > 1) || scatter_gather) {
      BRIGADE_ASSIGN_OR_RETURN(T.ds_gather, block_collective(CollectiveKind::kAllGather, pp_bytes));
    }
    stage_sends(i, T, ledger);

    // The host's issue per micro-batch (DeviceProfile::host_op_seconds): the
    // stage's kernels and collectives and its pipeline sends (one each way
    // per chunk, none before the first stage or past the last), at the
    // slowest host's time per operation.
    if (host_op > 0) {
      const double sends = p > 1 ? 2.0 * v - (i == 0 ? 1 : 0) - (i == p - 1 ? 1 : 0) : 0;
      // (With scatter_gather, an AllGather after each receive: as many.)
      T.host = (T.fwd_ops + T.bwd_ops + (training ? sends : sends / 2) * (scatter_gather ? 2 : 1)) *
               host_op;
    }

    // Parameters this device keeps (one tensor-parallel rank of the stage).
    double params = 0;
    params = lay.sum([](const StageBlock& blk) { return blk.owned_elements; });
    stage_params[si] = params;
    // FP8 (training.fp8): the linear layers' weights, of which Transformer
    // Engine keeps FP8 copies (the layers' only: the embedding and head stay 16-bit).
    stage_fp8_weights[si] =
        static_cast<double>(lay.layers()) * templates->layer_figures.fp8_weight_elements;
    if (ep > 1) stage_experts[si] = lay.sum([](const StageBlock& blk) { return blk.expert_elements; });

    // Data parallelism and ZeRO (plan_data_parallel.cpp).
    if (training && dg > 1) {
      const DataParallelInputs in{.sc = sc,
                                  .memo = memo,
                                  .cache = cache,
                                  .templates = *templates,
                                  .lay = lay,
                                  .times = times,
                                  .times_written = times_written,
                                  .device = dp,
                                  .stage = i,
                                  .stages = p,
                                  .dg = dg,
                                  .handle = dp_handle,
                                  .members = dp_members,
                                  .micro_batches = static_cast<double>(m),
                                  .g_bytes = g_bytes,
                                  .e_bytes = e_bytes,
                                  .fp8_gather_bytes =
                                      training && tr.fp8_param_gather ? 1.0 : e_bytes,
                                  .grad_memory_bytes = per.grads,
                                  .host_op = host_op,
                                  .param_gather_ahead = param_gather_ahead,
                                  .ledgers_on = ledgers_on,
                                  .forward_send = send_forward,
                                  .chunk_buckets =
                                      chunk_buckets.empty() ? nullptr : &chunk_buckets[si],
                                  .zero3 = zero3.empty() ? nullptr : &zero3[si]};
      DataParallelFigures dpf;
      BRIGADE_RETURN_IF_ERROR(stage_data_parallel(in, carry, T, ledger, dpf));
      dp_slowed[si] = dpf.slowed;
      dp_after_backward[si] = dpf.after_backward;
      dp_start_own[si] = dpf.start_own;
      zero2_last[si] = dpf.zero2_last;
      per_step_extra[si] += dpf.per_step;
    }
    // The stage's other gradient collectives once a step: the experts' over
    // their expert-data group, the sequence-parallel and QK-norm ones over
    // 'tensor', the tied embedding's (plan_stage_gradients.cpp).
    if (training) {
      std::vector<int>& edp = work.edp;
      edp.clear();
      const GroupMembers tensor_members = [&tp_vec]() -> const std::vector<int>& {
        return tp_vec();
      };
      const GroupMembers expert_data_members = [&]() -> const std::vector<int>& {
        if (edp.empty()) fill_group(edp, tp_first(i), rm.stride_data * ep, d / ep);
        return edp;
      };
      const StageGradientInputs in{.sc = sc,
                                   .memo = memo,
                                   .templates = *templates,
                                   .lay = lay,
                                   .stage = i,
                                   .stages = p,
                                   .tensor = t,
                                   .data = d,
                                   .expert = ep,
                                   .dg = dg,
                                   .experts = stage_experts[si],
                                   .g_bytes = g_bytes,
                                   .e_bytes = e_bytes,
                                   .tp_handle = tp_handle,
                                   .tensor_members = tensor_members,
                                   .expert_data_members = expert_data_members,
                                   .tied_pair = {rm.device(0, 0, 0), rm.device(0, 0, p - 1)},
                                   .ledgers_on = ledgers_on};
      BRIGADE_RETURN_IF_ERROR(
          stage_gradients(in, tp_priced, gradient_carry, ledger, per_step_extra[si]));
    }
    // The optimizer step: memory-bound over the local (ZeRO-sharded) optimizer state.
    // FP8: with it, the step's cast of the updated 16-bit weights to their FP8
    // copies (Transformer Engine casts them in the first micro-batch's forward,
    // is_first_microbatch; the same bytes once a step), as the planner lowers it;
    // with FP8 primary weights the gathered weights' transposes instead
    // (fp8_step_cast_bytes).
    // (The stage before's when its compute and bytes are the same: a
    // pipeline's middle stages.)
    if (training && tr.optimizer != Optimizer::kNone) {
      // (Expert parallelism under ZeRO-1: the experts' shards are 1/(d/ep)
      // of them, the expert-data group's, the rest's 1/d: memory.hpp.)
      const int edg = dg / ep;
      const ShardedParameters local{params, stage_experts[si], dg, edg};
      const ShardedParameters fp8{stage_fp8_weights[si],
                                  stage_experts[si] > 0
                                      ? static_cast<double>(lay.layers()) *
                                            templates->layer_figures.fp8_expert_elements
                                      : 0.0,
                                  dg, edg};
      const double bytes =
          optimizer_step_traffic(local, opt_step, st.zero) +
          fp8_step_cast_bytes(fp8, e_bytes, tr.fp8_scaling, tr.fp8_param_gather, st.zero);
      if (!(opt_previous.valid && opt_previous.key == key && opt_previous.bytes == bytes))
        opt_previous = {true, key, bytes, memory_bound_seconds(dev, dp, bytes, DType::kF32) / speed};
      opt_seconds[si] = opt_previous.seconds;
      per_step_extra[si] += opt_seconds[si];
    }
  }

  share_hosts(sc, rm, t, d, cp, stages);  // simulation.devices_per_host
  // The step, the busiest stage's report and memory per device from the stages'
  // figures (plan_transformer_step.cpp).
  const TransformerDegrees degrees{t, p, cp, v, dg, n_devices, m, layers_per_chunk, training};
  const StageFigures figures{stages,
                             stage_params,
                             stage_fp8_weights,
                             stage_experts,
                             ep,
                             training && tr.fp8_param_gather,
                             per_step_extra,
                             opt_seconds,
                             dp_slowed,
                             layouts,
                             host_op,
                             sc.simulation.devices_per_host,
                             dp_after_backward,
                             training && p > 1 && ts.tie_embeddings,
                             dp_start_own,
                             zero2_last,
                             chunk_buckets,
                             zero3};
  pipeline_step(st, degrees, rm, figures, ledgers, full, ledgers_on, e);
  // Where the tensor-parallel collectives run (as the planner lowers them).
  if (full && t > 1)
    e.notes.push_back(
        training && tr.tp_comm_overlap
            ? "tensor-parallel collectives: the sequence-parallel all-gathers and reduce-scatters "
              "beside their GEMMs (Transformer Engine's userbuffers, training.tp_comm_overlap: "
              "the last chunk exposed, the GEMMs on the SMs left), the rest between kernels"
        : training && tr.tp_backward_overlap
            ? "tensor-parallel collectives: between kernels, on the critical path, except the "
              "column-parallel backward's, beside its GEMMs (training.tp_backward_overlap)"
            : "tensor-parallel collectives: between kernels, on the critical path (not "
              "overlapped)");
  BRIGADE_RETURN_IF_ERROR(
      transformer_memory(topo, st, degrees, rm, templates, per, e_bytes, figures, full, e));

  const ModelTotals& totals =
      model_totals(cache.totals, sc, static_cast<double>(B), training, memo != nullptr);
  e.parameters = totals.parameters;
  e.model_flops_per_iteration = totals.model_flops;
  e.hardware_flops_per_iteration = totals.hardware_flops;
  finish_flops(e, topo.device(rm.device(0, 0, 0)), sc.profile, dt);
  return e;
}

}  // namespace brigade::cost::detail
