// The closed-form plan judge. One function per model kind; every duration
// comes from the formulas of collectives.hpp, compute.hpp (core's
// kernel_seconds), memory.hpp, model_size.hpp and scaling.hpp; this file
// only decides which kernels and collectives a plan has and how they overlap.
#include "costmodel/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/plan_check.hpp"
#include "core/tr.hpp"
#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/plan_internal.hpp"
#include "costmodel/plan_memo.hpp"
#include "costmodel/plan_warnings.hpp"
#include "costmodel/scaling.hpp"

namespace brigade::cost {
namespace detail {

Status bad_at(const Scenario& sc, const std::string& key, const std::string& message,
              ErrorKind kind) {
  return Status::at(sc.where(key), message, kind);
}

// A collective on a group of devices; a group of one is no collective at all.
Result<double> collective_seconds(const Topology& topo, const HardwareProfile& prof,
                                  CollectiveKind kind, CollectiveAlgorithm algorithm,
                                  const std::vector<int>& group, double bytes) {
  if (group.size() <= 1 || bytes <= 0) return 0.0;
  // A search's memo (costmodel/plan_memo.hpp), when one is installed.
  PlanMemo* memo = PlanMemo::current(topo, prof);
  if (memo != nullptr)
    if (auto t = memo->find_collective(kind, algorithm, group, bytes)) return *t;
  BRIGADE_ASSIGN_OR_RETURN(CollectiveQuery q,
                           collective_query_on(topo, prof, kind, algorithm, group, bytes));
  BRIGADE_ASSIGN_OR_RETURN(CollectiveCost c, collective_cost(q));
  if (memo != nullptr) memo->store_collective(kind, algorithm, group, bytes, c.seconds);
  return c.seconds;
}

Result<double> collective_sm_share(const Topology& topo, const HardwareProfile& prof,
                                   const DeviceProfile& device, CollectiveKind kind,
                                   CollectiveAlgorithm algorithm, const std::vector<int>& group,
                                   double bytes) {
  if (group.size() <= 1 || bytes <= 0 || nccl_sm_share(device, 1) <= 0) return 0.0;
  BRIGADE_ASSIGN_OR_RETURN(CollectiveQuery q,
                           collective_query_on(topo, prof, kind, algorithm, group, bytes));
  return q.nccl ? nccl_sm_share(device, q.nccl_sm_channels) : 0.0;
}

BucketsBeside buckets_beside_backward(const std::vector<double>& ready,
                                      const std::vector<double>& seconds,
                                      const std::vector<double>& shares, double window,
                                      const std::vector<std::pair<double, double>>& full_rate,
                                      std::vector<double>* ends_work) {
  BucketsBeside out;
  out.backward_end = window;
  // The buckets' runs so far (from, to, share), in order, and the
  // backward's clock: at wall time `t` it has done `w` of its work; runs
  // before `next` and full-rate stretches before `fi` are behind it.
  struct Run {
    double from, to, share;
  };
  thread_local std::vector<Run> runs;  // (kept from call to call: a search asks often)
  runs.clear();
  double t = 0, w = 0;
  size_t next = 0, fi = 0;
  constexpr double kNever = std::numeric_limits<double>::infinity();
  // The wall time at which the backward has done `work` (not less than
  // what it has done), or `cap` if that comes first: at 1 - share of its
  // rate while a bucket runs beside one of its kernels, at its whole rate
  // otherwise (between runs, or through a full-rate stretch).
  const size_t n_full = full_rate.size();
  auto advance = [&](double work, double cap) {
    while (w < work && t < cap) {
      while (next < runs.size() && runs[next].to <= t) ++next;
      const bool in_run = next < runs.size() && runs[next].from <= t;
      // The rate outside the full-rate stretches until the next edge
      // of a run (time), read once for every stretch's edge before it.
      const double slow = in_run ? 1 - std::min(1.0, runs[next].share) : 1.0;
      const double t_limit = std::min(
          cap, next < runs.size() ? (in_run ? runs[next].to : runs[next].from) : kNever);
      while (w < work) {
        while (fi < n_full && full_rate[fi].second <= w) ++fi;
        const bool in_full = fi < n_full && full_rate[fi].first <= w;
        const double rate = in_full ? 1.0 : slow;
        // How far this rate holds: to the work asked for or the next edge
        // of a stretch (work), or the run's edge (time).
        double w_limit = work;
        if (fi < n_full)
          w_limit = std::min(w_limit, in_full ? full_rate[fi].second : full_rate[fi].first);
        if (rate <= 0) {  // standing still until the run ends
          t = t_limit;
          break;
        }
        const double done_at = t + (w_limit - w) / rate;
        if (done_at <= t_limit) {
          t = done_at;
          w = w_limit;
        } else {
          w += rate * (t_limit - t);
          t = t_limit;
          break;
        }
      }
    }
    return t;
  };
  auto time_of = [&](double work) { return advance(work, kNever); };
  double end = 0;
  for (size_t z = 0; z < seconds.size(); ++z) {
    const double start = std::max(end, time_of(std::min(ready[z], window)));
    end = start + seconds[z];
    runs.push_back({start, end, z < shares.size() ? shares[z] : 0.0});
  }
  out.end = end;
  out.backward_end = time_of(window);
  if (ends_work != nullptr) {
    // Each bucket's end as the work the backward has done by then: the
    // same clock again from its start, the runs all known (each started
    // after the clock had passed it, so the clock runs as it did).
    ends_work->assign(runs.size(), kNever);
    t = 0, w = 0, next = 0, fi = 0;
    for (size_t z = 0; z < runs.size(); ++z) {
      if (runs[z].to > out.backward_end) break;  // after the backward (and so the rest)
      advance(window, runs[z].to);
      (*ends_work)[z] = w;
    }
  }
  return out;
}

// The same, with a failure reported at the strategy's `algorithm` key.
Result<double> plan_collective(const Scenario& sc, CollectiveKind kind,
                               const std::vector<int>& group, double bytes) {
  auto r = collective_seconds(sc.topology, sc.profile, kind, sc.strategy.algorithm, group, bytes);
  if (!r.is_ok()) return bad_at(sc, "strategy.algorithm", r.message());
  return r;
}

Result<Buckets> bucketed(const Scenario& sc, CollectiveKind kind, const std::vector<int>& group,
                         double bytes) {
  Buckets b;
  if (group.size() <= 1 || bytes <= 0) return b;
  const double bucket = sc.strategy.bucket_bytes > 0 ? sc.strategy.bucket_bytes : bytes;
  b.count = std::ceil(bytes / bucket);
  BRIGADE_ASSIGN_OR_RETURN(double one, plan_collective(sc, kind, group, bytes / b.count));
  b.seconds = b.count * one;
  b.last_seconds = one;
  return b;
}

// The overlap model of communication issued while compute of length `window`
// proceeds (gradient buckets during backward, ZeRO-3 prefetches): the stream
// of calls hides behind the window except that the last call cannot start
// before the window ends. exposed = max(last call, total - window).
double exposed_on_one_stream(double gathers, double last_gather, double scatters,
                             double last_scatter, double window, bool overlap) {
  if (!overlap) return gathers + scatters;
  // Each beside the window is max(last, total - window) (at most its total);
  // together they need at least their sum minus the window.
  const double separate = exposed_after_overlap(gathers, window, last_gather, true) +
                          exposed_after_overlap(scatters, window, last_scatter, true);
  return std::max(separate, gathers + scatters - window);
}

double exposed_after_overlap(double total, double window, double last_call, bool overlap) {
  if (!overlap) return total;
  return std::min(total, std::max(last_call, total - window));
}

Zero3Exposure zero3_exposure(Zero3Prefetch mode, bool overlap, int chunks, double f_total,
                             double f_first, double b_total, double b_first, double rs_total,
                             double rs_last, double fwd_window, double bwd_window) {
  const bool fwd_warm = overlap && mode == Zero3Prefetch::kAcrossPasses;
  const bool bwd_warm = overlap && mode != Zero3Prefetch::kPerPass;
  // A warm pass's first gather ran in the pass before, which in turn
  // carries the next pass's: the stream's load per pass is the same, only
  // the floor goes (a cold pass waits for its first gather before any block
  // computes). With `chunks` model chunks a micro-batch's forward (backward)
  // on a stage is that many passes, each cold or each warm.
  const double v = chunks;
  const double f_gathers = f_total, b_gathers = b_total;
  const double f_floor = fwd_warm ? 0 : v * f_first, b_floor = bwd_warm ? 0 : v * b_first;
  // The pass after a backward waits behind its last reduce-scatter where it
  // starts cold: after each chunk's under per_pass, after the micro-batch's
  // under per_micro_batch (its next forward); under across_passes the next
  // pass's first gather was issued before it.
  const double rs_floor_seconds = !overlap || mode == Zero3Prefetch::kPerPass ? v * rs_last
                                  : mode == Zero3Prefetch::kPerMicroBatch     ? rs_last
                                                                              : 0;
  Zero3Exposure z;
  const double backward_gathers = exposed_after_overlap(b_gathers, bwd_window, b_floor, overlap);
  const double scatters = exposed_after_overlap(rs_total, bwd_window, rs_floor_seconds, overlap);
  const double backward =
      exposed_on_one_stream(b_gathers, b_floor, rs_total, rs_floor_seconds, bwd_window, overlap);
  z.gathered = exposed_after_overlap(f_gathers, fwd_window, f_floor, overlap) + backward_gathers;
  // The rest of the stream's overflow is the reduce-scatters' (0 unless the
  // stream, not compute, bounds the backward).
  const double separate = backward_gathers + scatters;
  z.scattered = scatters + (backward - separate);
  if (fwd_warm) {
    z.per_step_gather = f_first;
    z.per_step = f_first + rs_last;
  }
  return z;
}

std::string kind_name(CollectiveKind k) {
  return std::string(collective_kind_name(k));
}

void finish_flops(PlanEstimate& e, const Device& d, const HardwareProfile& profile, DType dtype) {
  const DeviceProfile& dp = profile.for_device(d);
  e.streaming_bytes_per_second =
      peak_memory_bandwidth_bytes_per_second(d, dp) * dp.memory_efficiency;
  if (e.step_seconds <= 0 || e.devices < 1) return;
  e.achieved_flops_per_second_per_device =
      e.hardware_flops_per_iteration / e.step_seconds / e.devices;
  e.model_flops_per_second_per_device = e.model_flops_per_iteration / e.step_seconds / e.devices;
  const double peak = peak_flops_per_second(d, dp, dtype);
  if (peak > 0) {
    e.mfu = e.model_flops_per_second_per_device / peak;
    e.hfu = e.achieved_flops_per_second_per_device / peak;
  }
}

DeviceMemoryEstimate memory_entry(int device, int stage, const ModelStateBytes& states,
                                  double activations, double other, double capacity) {
  DeviceMemoryEstimate m;
  m.device = device;
  m.stage = stage;
  MemoryBreakdown b{states.params_bytes, states.grads_bytes, states.optimizer_bytes, activations,
                    other};
  m.params_bytes = b.params_bytes;
  m.grads_bytes = b.grads_bytes;
  m.optimizer_bytes = b.optimizer_bytes;
  m.activations_bytes = b.activations_bytes;
  m.other_bytes = b.other_bytes;
  m.peak_bytes = b.peak_bytes();
  m.capacity_bytes = capacity;
  m.fits = m.peak_bytes <= capacity;
  return m;
}

// ---- one collective on its own ---------------------------------------------------------

Result<PlanEstimate> estimate_collective(const Scenario& sc) {
  const CollectiveBenchSpec& cs = sc.collective;
  std::vector<int> group = cs.group;
  if (group.empty())
    for (int i = 0; i < sc.topology.num_devices(); ++i) group.push_back(i);
  auto q = collective_query_on(sc.topology, sc.profile, cs.kind, cs.algorithm, group, cs.bytes);
  if (!q.is_ok()) return bad_at(sc, "model.collective", q.message());
  auto c = collective_cost(*q);
  if (!c.is_ok()) return bad_at(sc, "model.collective", c.message());
  PlanEstimate e;
  e.name = sc.name;
  e.model_kind = "collective";
  e.devices = static_cast<int>(group.size());
  e.step_seconds = c->seconds;
  e.exposed_communication_seconds = c->seconds;
  CommLedger ledger;
  ledger.add("collective", kind_name(cs.kind), e.devices, 1, cs.bytes, c->seconds, c->seconds);
  e.communication = ledger.take();
  e.communication_device = group.front();
  for (int dev : group)
    e.memory.push_back(memory_entry(dev, 0, ModelStateBytes{}, 0.0, cs.bytes,
                                    sc.topology.device(dev).memory_bytes));
  e.notes.push_back(
      fmt::format("{} {}: algBw {}, busBw {} (nccl-tests); memory is the M-byte buffer per rank",
                  collective_algorithm_name(cs.algorithm), collective_kind_name(cs.kind),
                  format_bandwidth(c->alg_bandwidth_bytes_per_second),
                  format_bandwidth(c->bus_bandwidth_bytes_per_second)));
  return e;
}

}  // namespace detail

namespace {
Result<PlanEstimate> estimate_by_kind(const Scenario& scenario, const EstimateOptions& options) {
  using namespace detail;
  switch (scenario.model_kind) {
    case ModelKind::kTransformer:
      return estimate_transformer(scenario, options);
    case ModelKind::kMlp:
    case ModelKind::kGraph:
      return estimate_op_graph(scenario);
    case ModelKind::kCollective:
      return estimate_collective(scenario);
    case ModelKind::kNone:
      break;
  }
  return detail::bad_at(scenario, "model",
                        "found no model; expected one of mlp, transformer, graph or collective");
}
}  // namespace

Result<PlanEstimate> estimate_plan(const Scenario& scenario) {
  return estimate_plan(scenario, EstimateOptions{});
}

Result<PlanEstimate> estimate_plan(const Scenario& scenario, const EstimateOptions& options) {
  BRIGADE_RETURN_IF_ERROR(check_plan(scenario));
  BRIGADE_ASSIGN_OR_RETURN(PlanEstimate e, estimate_by_kind(scenario, options));
  if (!options.every_device) return e;  // no notes (EstimateOptions)
  for (std::string& n : plan_warnings(scenario)) e.notes.push_back(std::move(n));
  for (const JudgeDifference& d : judge_differences(scenario))
    e.notes.push_back("differs from `simulate --network ideal`: " + d.text);
  // The runtime conditions are not seen by the closed form, by design
  // (core/runtime.hpp): it plans on what is known, as XLA's cost model does.
  if (!scenario.runtime.empty())
    e.notes.push_back("runtime: (" + describe_runtime(scenario.runtime, scenario.topology) +
                      ") is not seen by the closed form, the planner or `search`, by design: "
                      "`brigade simulate` and the executors honour it");
  return e;
}

PlanWarningFacts plan_warning_facts(const Scenario& sc) {
  PlanWarningFacts f;
  const StrategySpec& st = sc.strategy;
  f.interleaved_as_1f1b = sc.model_kind == ModelKind::kTransformer &&
                          st.schedule == PipelineSchedule::kInterleaved && st.virtual_stages <= 1;
  const int n = sc.topology.num_devices();
  const bool distributed = sc.has_strategy || sc.mesh || !sc.placement.empty() ||
                           !sc.device_put.empty() || sc.model_kind == ModelKind::kCollective;
  if (!distributed && n > 1 && sc.model_kind != ModelKind::kNone) f.one_of_devices = n;
  return f;
}

std::vector<std::string> plan_warnings(const Scenario& sc) {
  return plan_warning_texts(plan_warning_facts(sc));
}

std::vector<std::string> plan_warning_texts(const PlanWarningFacts& f) {
  std::vector<std::string> out;
  if (f.interleaved_as_1f1b)
    out.push_back(tr_text(
        "PlanWarnings",
        "schedule: interleaved with virtual_stages: 1 is plain 1F1B (interleaving needs 2 or more "
        "model chunks per device): judged as 1F1B"));
  if (f.one_of_devices > 0)
    out.push_back(fill_args(
        tr_text(
            "PlanWarnings",
            "no strategy: the plan uses 1 of the topology's %1 devices (strategy: {data: %1} would "
            "use them all; `brigade search` looks for a strategy)"),
        {std::to_string(f.one_of_devices)}));
  return out;
}

// The modelling differences between the closed form and `brigade simulate
// --network ideal` that remain, each with the bound the cross-judge test holds
// it to (tests/planner/cross_judge_test.cpp; docs/costmodel.md, "The closed
// form against the simulator"). Everything else agrees to rounding.
std::vector<JudgeDifference> judge_differences(const Scenario& sc, bool fused_tasks) {
  std::vector<JudgeDifference> out;
  const StrategySpec& st = sc.strategy;
  const bool training = !sc.training.inference;
  const bool transformer = sc.model_kind == ModelKind::kTransformer;
  // Fused tasks read each GEMM's efficiency at their mean kernel's FLOPs
  // (or per shape under a wave model), and at step granularity a step's
  // tensor-parallel collectives of one kind are one collective standing for
  // its calls (Collective::parts: each call's latency paid, NCCL's choice at
  // the mean call's bytes), and a run's identical pairs of a collective
  // beside its GEMM are one such collective beside those GEMMs. Before
  // 2026-12-06 a merged collective paid its alpha once: nemo2412_03 (GPT-3
  // 175B, fp8) simulated 1.2% faster than the closed form at its step
  // granularity (once 7.5%, issue 18), the same plan in bf16 0.9%; now
  // within 0.2%. Before 2026-12-07 a run's beside collectives went as one
  // a kind beside the whole run, which hid what each exposes beside its
  // own GEMM: Llama 3.1 405B's Megatron-Bridge plan (bridge2604_02)
  // simulated 1.2% faster at step granularity than the closed form, now
  // 0.13% slower; the cross-judge plans gpt175b_width_tensor16_*_step,
  // -4.1% and -17.1%, now +0.02% and -0.52%.
  if (fused_tasks)
    out.push_back(
        {"the simulator runs this plan at region or step granularity (one task per run "
         "of kernels: a fused task pays a launch a kernel and reads the GEMM efficiency "
         "at its mean kernel's FLOPs, or times each GEMM shape as its kernel under a "
         "profile with a wave model; at step granularity a step's tensor-parallel "
         "collectives of a kind are one, timed as the calls it stands for, and a run's "
         "identical pairs of a collective beside its GEMM one such pair), the "
         "closed form times every kernel and collective: step within 2%, "
         "communication within 5%, memory within 2%, calls differ",
         0.02, 0.05, 0.02, true});
  if (transformer && st.pipeline > 1 && st.schedule == PipelineSchedule::kInterleaved &&
      st.virtual_stages > 1)
    out.push_back(
        training
            ? JudgeDifference{"interleaved 1F1B: the closed form walks Megatron-LM's order "
                              "micro-batch by micro-batch at each chunk's forward, backward and "
                              "sends (blocking ones and the scatter-gather's AllGathers in the "
                              "pass they follow), the simulator kernel by kernel: the same where a "
                              "chunk's micro-batches take the same time: step within 0.1%; its "
                              "activations in flight count Megatron-LM's warm-up chunks: memory "
                              "within 1%",
                              0.001, 0, 0.01, false}
            : JudgeDifference{"interleaved 1F1B, forward only: the closed form's fill and drain "
                              "((sum - max of the stage times) / v) average over the model "
                              "chunks, and each group of micro-batches waits for the sends at "
                              "every return to stage 0; the simulator runs the schedule's exact "
                              "order: step within 2%, memory within 1%",
                              0.02, 0, 0.01, false});
  else if (transformer && training && st.pipeline > 1 &&
           st.pipeline_engine == PipelineEngine::kDeepSpeed)
    out.push_back(
        {"pipeline_engine deepspeed: the closed form, m x the slowest stage + the others "
         "once, counts every stage's blocking sends, receives and rebuilds in the fill "
         "and drain; the simulator's fill and drain wait only for those on their path "
         "(one transfer a link each way), so it is the faster by up to the other "
         "stages' exchanges: step within 2% where they are small beside a stage's "
         "compute",
         0.02, 0, 0, false});
  else if (transformer && st.pipeline > 1 && !(training && st.virtual_stages <= 1) &&
           (st.embedding_in_pipeline_split || st.loss_in_pipeline_split))
    out.push_back(
        {"pipeline split with the embedding or the loss counted: the end stages are a "
         "layer short of the others (or, with one end counted, the stages a layer "
         "apart), and the closed form's schedule (m x the slowest stage + the others "
         "once) and its step's end (the pipeline's end + the largest stage's per-step "
         "work, the last stage's after the first's buckets under a tied embedding) are "
         "exact for stages of equal time; the simulator runs the order: step within 1% "
         "(0.17% on a toy of 3 and 4 layers a stage)",
         0.01, 0, 0, false});
  else if (transformer && st.pipeline > 1)
    out.push_back(
        {training && st.virtual_stages <= 1
             ? "pipeline: the closed form walks 1F1B's or GPipe's order micro-batch by "
               "micro-batch at each stage's forward, backward and sends (blocking ones and "
               "the scatter-gather's AllGathers in the pass they follow), the simulator "
               "kernel by kernel: the same where a stage's micro-batches take the same "
               "time: step within 0.1%"
             : "pipeline: the closed form's schedule, m x the slowest stage + the others "
               "once + one micro-batch's sends through the pipeline and back, is exact for "
               "stages and sends of equal time; stages of unequal time (the embedding, the "
               "logits) shift the simulated fill and drain: step within 0.1%",
         0.001, 0, 0, false});
  // The host lane (DeviceProfile::host_op_seconds): a stage's micro-batch
  // at the longer of its device's and its host's time against the kernels
  // issued one by one; measured on small GPTs over h = 2-40 us (a kernel of
  // 4-30 us): within 0.7% without a pipeline, 6.1% with one (where stages
  // change between device- and host-bound, the pipeline's fill and drain).
  if (transformer && detail::slowest_host_op_seconds(sc) > 0)
    out.push_back(
        {st.pipeline > 1
             ? "host: the closed form takes a stage's micro-batch at the longer of its "
               "device's and its host's time (operations x host_op_time) and the fill and "
               "drain at the devices' pace; the simulator issues every kernel after the "
               "one before and a pipeline's hosts ahead of their data: equal where the "
               "device or the host sets the pace throughout, step within 8% between"
             : "host: the closed form takes a micro-batch at the longer of its device's and "
               "its host's time (operations x host_op_time); the simulator issues every "
               "kernel after the one before, the two interleaved: equal where either sets "
               "the pace throughout, step within 1% between",
         st.pipeline > 1 ? 0.08 : 0.01, 0, 0, false});
  const int replicas = st.data * st.context;  // the gradient group: data x context
  // NCCL's kernels take SMs from the kernels beside them on some device
  // (docs/costmodel.md, "NCCL's kernels take SMs").
  bool sm_shares = false;
  for (int d = 0; d < sc.topology.num_devices(); ++d)
    sm_shares |= nccl_sm_share(sc.profile.for_device(sc.topology.device(d)), 1) > 0;
  // ZeRO-3: each pass walked block by block (without a pipeline,
  // costmodel/plan_data_parallel.cpp zero3_walk; over one, in the order
  // walk, plan_transformer_step.cpp zero3_pass); without overlap and a
  // pipeline the window model, exact there.
  if (transformer && training && replicas > 1 && st.zero == 3 && (st.pipeline > 1 || st.overlap))
    out.push_back(
        {std::string("ZeRO-3: the closed form walks each pass block by block, each gather and "
                     "reduce-scatter on the one 'data' stream as the planner issues them") +
             (st.pipeline > 1 ? ", in the pipeline's order" : "") +
             ", a block's kernels slowed beside them by their NCCL kernels' SMs at the block's "
             "mean (its tensor-parallel collectives spread through it, not slowed); the "
             "simulator kernel by kernel: " +
             (st.pipeline > 1
                  ? "step within 2% (1.73% measured, with context parallelism; 1.0% without)"
                  : "step within 1% (0.36% measured, every prefetch mode, 1F1B and GPipe)"),
         st.pipeline > 1 ? 0.02 : 0.01, 0, 0, false});
  if (transformer && training && sm_shares && replicas > 1 && st.zero <= 2 && st.overlap &&
      st.pipeline > 1 && st.schedule == PipelineSchedule::kInterleaved && st.virtual_stages > 1)
    out.push_back(
        {"interleaved 1F1B with gradient buckets beside the backward: the closed form's "
         "order walk runs each stage's buckets beside its backwards, each ready where its "
         "chunk's last backward completes it, each slowing the kernels beside it by its NCCL "
         "kernel's SMs, at a backward's mean rate between the bucket list's points; the "
         "simulator kernel by kernel: step within 0.5% (0.15% measured without "
         "overlap_param_gather or context parallelism, whose own differences add to it)",
         0.005, 0, 0, false});
  if (transformer && training && sm_shares && replicas > 1 && st.zero <= 2 && st.overlap &&
      st.context > 1)
    out.push_back(
        {"context parallelism with gradient buckets beside the backward: a ring's block "
         "waits for the hop sent beside the block before, a wait in time; the closed form's "
         "bucket clock keeps the wait's length at the whole rate after the block before, "
         "slowed by a bucket, where the simulator's slowed block eats into the wait: step "
         "within 0.5% (0.25% measured, one micro-batch on 8 H100s)",
         0.005, 0, 0, false});
  if (transformer && training && sm_shares && replicas > 1 && (st.zero == 1 || st.zero == 2) &&
      st.overlap && st.overlap_param_gather)
    out.push_back(
        {"overlap_param_gather: the simulator slows the kernels beside the parameter "
         "gathers by the SMs their NCCL kernels hold, kernel by kernel; so does the closed "
         "form through a chunk's first forward without interleaving (since stop 68), and "
         "to first order, at the share of the chunk's forward a gather slows, past it and "
         "under interleaving's aligned dispatch: step within 0.1% (0.03% measured on the "
         "cross-judge plans; 1% before 2026-12-07, when the closed form charged none)",
         0.001, 0, 0, false});
  if (transformer && training && sm_shares && replicas > 1 && st.zero <= 2 && st.overlap &&
      st.tensor > 1 && (sc.training.tp_backward_overlap || sc.training.tp_comm_overlap))
    out.push_back(
        {"gradient buckets beside a backward that runs collectives beside its GEMMs: "
         "the closed form's backward clock takes each such pair as the stage's time does "
         "(the GEMM slowed beside the collective, then what of the collective outlasts it), "
         "the simulator runs them together, so the buckets' NCCL kernels slow a "
         "slightly different stretch of kernels: step within 0.5%",
         0.005, 0, 0, false});
  if (!transformer && sm_shares && training && sc.model_kind != ModelKind::kCollective)
    out.push_back(
        {"op graph: the simulator slows the kernels that run beside a collective (the "
         "gradients' reductions beside the backward) by the SMs its NCCL kernel holds, "
         "the closed form's schedule does not: step within 3%",
         0.03, 0, 0, false});
  // ZeRO-2 whose stages run no forward after their first backward (GPipe, or
  // 1F1B with m <= p): fused tasks allocate a backward step's gradients with
  // its first task, beside the step's activations (one buffer, freed at its
  // end), where the closed form walks the backward block by block.
  if (fused_tasks && transformer && training && replicas > 1 && st.zero == 2 && st.pipeline > 1) {
    const std::int64_t per_replica = sc.training.global_batch / std::max(1, st.data);
    const std::int64_t micro = sc.training.micro_batch > 0 ? sc.training.micro_batch : per_replica;
    const std::int64_t m = micro > 0 ? per_replica / micro : 1;
    const bool one_chunk = st.schedule != PipelineSchedule::kInterleaved || st.virtual_stages <= 1;
    if (st.schedule == PipelineSchedule::kGpipe || (one_chunk && m <= st.pipeline))
      out.push_back(
          {"ZeRO-2 with fused tasks: a backward step's unsharded gradients are allocated "
           "with its first fused task, beside all of the step's activations, where the "
           "closed form lets the backward write them block by block as it frees the "
           "activations: the simulated peak up to 5% higher",
           0, 0, 0.05, false});
  }
  // ZeRO-3's peak (zero3_peak, costmodel/plan_memory_walks.cpp) is walked
  // without time: a block's backward holds the block before's unsharded
  // gradient (its reduce-scatter running) throughout, where the simulator
  // frees it when the reduce-scatter ends, which can come before the
  // block's activation peak (a selective recomputation's attention core).
  // Found by scripts/judge-sweep --strict on ZeRO-3 variants of sweep plans
  // over GPipe pipelines (stop 55: 8 of 295, +0.06..+3.3%; 2026-12-06: 3
  // of 92, +0.49..+2.96%, e.g. tensor 4, pipeline 2, data 8, h 8192, a
  // layer and the head on the last stage, whose 128 MiB head gradient the
  // closed form holds at the layer's recomputation). Never below.
  if (transformer && training && replicas > 1 && st.zero == 3 && st.overlap)
    out.push_back(
        {"ZeRO-3's peak: the closed form holds the block before's unsharded gradient "
         "through a block's whole backward (its reduce-scatter running), the simulator "
         "frees it when the reduce-scatter ends, at times before the block's activation "
         "peak: the closed form's peak up to that gradient higher (3.3% measured): memory "
         "within 5%",
         0, 0, 0.05, false});
  // ZeRO-3 with fused tasks: a fused run's blocks' gathers and unsharded
  // gradients are held with the run, not block by block as the closed form
  // (and the simulator at kernel granularity) holds them.
  if (fused_tasks && transformer && training && replicas > 1 && st.zero == 3)
    out.push_back(
        {"ZeRO-3 with fused tasks: a fused run holds its blocks' gathered parameters and "
         "unsharded gradients with the run, where the closed form holds them block by "
         "block as the planner does at kernel granularity: memory within 5%",
         0, 0, 0.05, false});
  if (fused_tasks && transformer && st.context > 1)
    out.push_back(
        {"context parallelism with fused tasks: a fused run's KV ring hops go as one "
         "transfer from the run's start beside its compute, where the closed form "
         "overlaps each hop with one attention block: alike when the blocks hide the "
         "hops; step within 5%, communication within 10%, calls differ",
         0.05, 0.10, 0, true});
  const bool tree =
      (sc.model_kind == ModelKind::kCollective &&
       sc.collective.algorithm == CollectiveAlgorithm::kTree) ||
      (sc.model_kind != ModelKind::kCollective && st.algorithm == CollectiveAlgorithm::kTree);
  if (tree)
    out.push_back(
        {"tree collectives under --network ideal: the two trees' flows share every link, "
         "and the ideal network gives each flow the link's whole bandwidth, where the "
         "closed form (and --network flow) share it: the simulated collective up to 45% "
         "faster",
         0.45, 0.45, 0, false});
  return out;
}

}  // namespace brigade::cost
