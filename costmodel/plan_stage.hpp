// Private to the transformer judge (costmodel/plan_transformer.cpp: the stage
// loop; costmodel/plan_stage.cpp: the rank map, a stage's layout and pace;
// costmodel/plan_transformer_step.cpp: the step and memory from the stages'
// figures; costmodel/plan_buckets.cpp: the gradient buckets;
// costmodel/plan_data_parallel.cpp: a stage's data-parallel part). Not part
// of the library's interface.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "core/status.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/plan_internal.hpp"
#include "costmodel/plan_memo.hpp"
#include "costmodel/plan_transformer_cache.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost::detail {

// A block of one pipeline stage as the planner lays it out
// (planner/lower_transformer_stage.cpp, build_blocks): its template, the parameter
// groups the device keeps (the last stage's head keeps a copy of the tied word
// embedding), and what ZeRO-3 gathers before it computes. Element counts are
// whole numbers (below 2^53), so their sums are exact in any order.
struct StageBlock {
  const BlockTemplate* tpl = nullptr;
  const TemplateFigures* figures = nullptr;
  // The groups of `tpl` the device keeps, or the tied embedding: their
  // elements (ParamGroup::local_elements), `owned` of them.
  const double* group_elements = nullptr;
  const char* group_expert = nullptr;  // per group: 1 for experts split over 'expert'
  const double* group_fp8 = nullptr;   // per group: its FP8 weights' elements (ParamGroup::fp8_elements)
  int owned = 0;
  int tied = -1;  // index among the owned groups of the tied word embedding
  bool is_head = false;
  double owned_elements = 0;
  double replicated_elements = 0;  // of the owned groups, not split over the tensor group
  double expert_elements = 0;      // of the owned groups, experts split over 'expert'
  double fp8_elements = 0;         // of the owned groups but the experts', FP8 weights
  double gather_elements = 0;
  bool is_expert(int g) const { return group_expert != nullptr && group_expert[g] != 0; }
};

// The blocks of device stage `stage` per model chunk (virtual stage
// c * P + stage): the embedding on virtual stage 0 (chunk 0 of stage 0),
// `layers_per_chunk` layers, the head on the last virtual stage (chunk v - 1
// of stage P - 1). Held as the kinds of block, not block by block. Under
// block recomputation a chunk's first layers_per_chunk - kept_per_chunk
// layers run `layer` (the full-recomputation template) and its last
// kept_per_chunk run `layer_kept` (without recomputation).
//
// With the embedding or the loss counted in the pipeline split
// (core/plan_check.hpp, PipelineSplit) chunk 0 of stage 0 builds
// `fewer_first` = 1 layer fewer and chunk v - 1 of stage P - 1 `fewer_last`
// = 1 fewer; the chunk_* functions give each chunk's counts, the
// *_per_chunk figures every other chunk's.
struct StageLayout {
  StageBlock embedding, layer, head, layer_kept;
  bool first = false, last = false;  // runs the embedding / the head
  int chunks = 1;
  std::int64_t layers_per_chunk = 0;
  std::int64_t kept_per_chunk = 0;
  std::int64_t fewer_first = 0, fewer_last = 0;
  // Block recomputation's recompute_num_layers (block_recompute_layers); -1
  // without it.
  std::int64_t recompute_cap = -1;
  // The stage's layers of each template, summed over its chunks.
  std::int64_t recomputed_layers = 0, kept_layers = 0;

  // The layers of a chunk that recompute (all but the kept ones).
  std::int64_t recomputed_per_chunk() const { return layers_per_chunk - kept_per_chunk; }
  // Chunk c's layers, kept ones and recomputing ones.
  std::int64_t chunk_layers(int c) const {
    return layers_per_chunk - (c == 0 ? fewer_first : 0) - (c == chunks - 1 ? fewer_last : 0);
  }
  std::int64_t chunk_kept(int c) const {
    return kept_layers_of(chunk_layers(c), recompute_cap);
  }
  std::int64_t chunk_recomputed(int c) const { return chunk_layers(c) - chunk_kept(c); }
  // The stage's layers.
  std::int64_t layers() const { return recomputed_layers + kept_layers; }
  // Whether a chunk differs from the others.
  bool uneven() const { return fewer_first > 0 || fewer_last > 0; }
  // Chunk c's layer j (0: its first in forward order).
  const StageBlock& layer_at(int c, std::int64_t j) const {
    return j < chunk_recomputed(c) ? layer : layer_kept;
  }
  // Calls f(block) for each block of chunk c in the order its forward runs
  // them (the embedding on chunk 0 of the first stage, the layers, the head
  // on the last chunk of the last stage), or in its backward's order.
  template <class F>
  void for_each_block(int c, bool backward, F&& f) const {
    const bool with_embedding = c == 0 && first, with_head = c == chunks - 1 && last;
    const std::int64_t n = chunk_layers(c);
    if (backward) {
      if (with_head) f(head);
      for (std::int64_t j = n; j-- > 0;) f(layer_at(c, j));
      if (with_embedding) f(embedding);
    } else {
      if (with_embedding) f(embedding);
      for (std::int64_t j = 0; j < n; ++j) f(layer_at(c, j));
      if (with_head) f(head);
    }
  }
  // Calls f(block, n) for each kind of block the stage runs, n blocks of it
  // (n > 0): the embedding, the layers (the recomputing ones, then the
  // kept ones), the head.
  template <class F>
  void for_each_kind(F&& f) const {
    if (first) f(embedding, 1.0);
    if (recomputed_layers > 0) f(layer, static_cast<double>(recomputed_layers));
    if (kept_layers > 0) f(layer_kept, static_cast<double>(kept_layers));
    if (last) f(head, 1.0);
  }
  // The sum of a whole-number figure over every block (exact: below 2^53).
  template <class F>
  double sum(F&& figure) const {
    double total = 0;
    for_each_kind([&](const StageBlock& b, double n) { total += n * figure(b); });
    return total;
  }
};

// The stage's bucket list from the cache, filled there first if no entry
// has the same key (plan_transformer_cache.hpp).
BucketList& stage_buckets(TransformerCache& cache, const TransformerBlocks& tb,
                          const StageLayout& lay, bool pipelined, const KernelTimes& times,
                          double bytes_per_element, double bucket_bytes);

// ZeRO-2's last backward on a one-chunk stage, as the planner lowers it
// (planner/lower_transformer_stage.cpp): kernel by kernel on the buckets'
// clock, each block's recomputed activations allocated where its
// recomputation starts and freed with its saved ones after its last kernel;
// with `writes` (the stage's first backward too: one micro-batch) each
// parameter group's whole gradient allocated when its completing kernel
// starts; each bucket's freed when its reduce-scatter ends (`ends_work`,
// BucketList::Sums). The peak over the allocations, from the backward's
// start: what the activations held then differ by (the recomputed less
// the freed) and the whole gradients (those written less those freed).
struct Zero2LastBackward {
  bool valid = false;
  double activations = 0, grads = 0;
};
Zero2LastBackward zero2_last_backward(const StageLayout& lay, const KernelTimes& times,
                                      const BucketList& bl, double bucket_bytes_per_element,
                                      double grad_bytes, bool writes);

// A ZeRO-2 stage's peak of activations and whole gradients.
struct Zero2Peak {
  double activations = 0;  // saved and recomputed activations at the peak
  double grads = 0;        // whole gradients live then (beyond the shard)
};
// ZeRO-2 (the planner, planner/lower_transformer_stage.cpp): each parameter
// group's whole gradient lives from its chunk's first backward to its
// bucket's reduce-scatter in the last. One chunk: each backward walked
// block by block, the last with `last` (its peak on the buckets' clock)
// where valid; interleaved: Megatron-LM's order step by step
// (plan_memory_walks.cpp says how), each chunk's last backward freeing
// `freed[c]` of the whole gradients where given (ChunkBuckets::freed: a
// bucket that spans into the next chunk frees with it) and all of the
// chunk's otherwise.
Zero2Peak zero2_peak_one_chunk(const StageLayout& lay, PipelineSchedule schedule, int p, int m,
                               int stage, double grad_bytes, double whole,
                               const Zero2LastBackward& last);
Zero2Peak zero2_peak_interleaved(const StageLayout& lay, int p, int m, int stage, double grad_bytes,
                                 bool overlap, std::span<const double> freed = {});

// ZeRO-3's peak: the activations, the gathered parameters and the unsharded
// gradients, walked along the stage's order (plan_memory_walks.cpp).
struct Zero3Peak {
  double activations = 0, params = 0, grads = 0;
};
Zero3Peak zero3_peak(const StageLayout& lay, const StrategySpec& st, int p, int m, int stage,
                     double e_bytes);

// strategy.overlap_param_gather (Megatron-LM's --overlap-param-gather) on
// a ZeRO-1/2 stage: the last step's updated weights gathered over 'data' at
// the start of the step, one bucket ahead of the first micro-batch's
// forward (planner/lower_transformer_param_gather.cpp, param_gather_chain). Each
// chunk's buckets are filled as the gradient buckets are (whole groups in
// the backward's completion order, closed at `bucket_bytes` gradient
// bytes) and taken in forward order; gather k starts at max(gather k-1's
// end, the start of the first block using bucket k-1), gather 0 at the
// step's start (chunk 0) or the chunk's first forward; the first block using
// bucket k starts no sooner than gather k ends. Chunk 0's forward starts at
// `arrival` (a later pipeline stage's warm-up: the gathers that run before
// it are hidden), a later chunk's at its gather 0. With more than one chunk
// (interleaved; `pipeline_size` P, this stage's `rank`, `hop` one pipeline
// send) Megatron-LM's aligned dispatch instead: chunks 0 and 1's gathers at
// the step's start, chunk c >= 2's when the rank's forward of virtual
// micro-batch (c-1)*P - rank starts (aligned_param_gathers in
// plan_buckets.cpp; docs/costmodel.md); its later chunks' first forwards
// start `later_arrival` later too (the earlier stages' later-chunk delays,
// which the first micro-batch carries to this one: its own later delays
// are what its gathers add beyond those, not beside them).
struct ParamGatherChain {
  double chunk0_delay = 0;  // how much later chunk 0's first forward ends
  double later_delay = 0;   // the same, summed over chunks 1..v-1
  double chunk0_forward = 0;  // chunk 0's forward of one micro-batch
  // Interleaved: what the gathers' NCCL kernels add to this stage's compute
  // beside them, its own (not carried down the pipeline as the chunks'
  // delays are); one chunk: in chunk0_delay.
  double slowed = 0;
  double seconds = 0, bytes = 0, calls = 0;  // every gather of the step
};
// `share`: the share of the device's SMs a gather of that many bytes
// holds (0 where NCCL's kernels take none): the forward's kernels beside it
// run at 1 - share of their rate (docs/costmodel.md, "Overlapped parameter
// gathers"), which the chunks' delays carry.
Result<ParamGatherChain> param_gather_chain(
    const StageLayout& lay, const KernelTimes& times, double grad_bytes_per_element,
    double weight_bytes_per_element, double fp8_weight_bytes_per_element, double bucket_bytes,
    double arrival, int pipeline_size, int rank, double hop,
    const std::function<Result<double>(double)>& price,
    const std::function<Result<double>(double)>& share, double later_arrival = 0);

// A device's index from its tensor, data, pipeline and context ranks.
struct RankMap {
  int stride_tensor = 1, stride_data = 1, stride_pipeline = 1, stride_context = 1;
  int device(int t, int d, int p, int c = 0) const {
    return t * stride_tensor + d * stride_data + p * stride_pipeline + c * stride_context;
  }
};

// The strides of strategy.rank_order (the parser has checked it names
// tensor, data and pipeline once each, context at most once): the first axis
// varies fastest; context, when not listed, right after tensor.
// (full_rank_order's axes, walked without building its list: a search
// asks once a plan.)
RankMap rank_map(const Scenario& sc);

// The blocks of device stage `stage` of P (v chunks of split.per_chunk
// layers each but the ends that count the embedding or the loss; of each
// chunk's layers those past the first `recompute_cap` run without
// recomputation: block_recompute_layers): what it runs, the parameter
// groups it keeps and ZeRO-3 gathers.
StageLayout stage_layout(int P, int v, int stage, const PipelineSplit& split,
                         std::int64_t recompute_cap, const TransformerBlocks& tb);

// The slowest speed factor (simulation.speed) among `devices`: a stage runs at
// the pace of its slowest rank, whom every collective waits for.
double slowest_speed(const Scenario& sc, const std::vector<int>& devices);

// One pipeline stage's times per micro-batch (estimate_transformer's stage loop).
struct StageTimes {
  double fwd_kernels = 0, bwd_kernels = 0;  // per micro-batch, incl. recomputation in bwd
  double tp_fwd = 0, tp_bwd = 0;            // tensor-parallel collectives (exposed)
  double pp = 0;                            // pipeline sends of one micro-batch
  // One send each way, to the next stage and to the one before (stage i + 1
  // and i - 1 mod P; 0 where the stage sends none that way), whether
  // beside the next step or blocking (then in pp_blocking): the order
  // walk's (pipeline_step).
  double send_next = 0, send_previous = 0;
  // One block of each template the stage runs, by TimesCache slot (0 the
  // embedding, 1 a layer, 2 the head, 3 a kept layer): its forward and its
  // backward (with the recomputation) per micro-batch, kernels and exposed
  // tensor-parallel collectives; a chunk's passes are its blocks' sums (the
  // interleaved order walk's).
  std::array<double, 4> block_fwd{}, block_bwd{};
  // Of them, the exposed tensor-parallel collectives (NCCL kernels on the
  // compute stream, which the data stream's do not slow).
  std::array<double, 4> block_fwd_tp{}, block_bwd_tp{};
  // strategy.pipeline_engine deepspeed: the stage's blocking sends and
  // receives of one micro-batch, one after the other, and the AllGathers
  // that rebuild the boundary tensor (in the stage's own time; pp is 0);
  // with Megatron-LM's strategy.pipeline_scatter_gather, the AllGathers
  // after its receives (its sends still in pp); ds_gather: one such
  // AllGather over the stage's tensor group.
  double pp_blocking = 0, ds_gather = 0;
  // Transformer Engine's delayed-scaling amax reduction (costmodel/
  // transformer_blocks.hpp, fp8_amax_reduction): one chunk's at the end of
  // its forward and at the end of its backward (kernels and the AllReduce
  // over 'tensor', on the compute stream), and of them the AllReduce's; each
  // chunk with layers runs them, and fwd_kernels, tp_fwd and their backward
  // counterparts hold them summed over those chunks.
  double amax_fwd = 0, amax_bwd = 0, amax_fwd_tp = 0, amax_bwd_tp = 0;
  double amax_fwd_cat = 0, amax_bwd_cat = 0;  // of them, the kernels before the AllReduce
  double zero_exposed = 0;                  // ZeRO-2/3 per-micro-batch traffic left exposed
  // Context parallelism's KV ring per micro-batch: hops, bytes sent, their
  // time and what of it the attention blocks do not hide (in tp_fwd/tp_bwd).
  double cp_calls = 0, cp_bytes = 0, cp_seconds = 0, cp_exposed = 0;
  // The stage's own time per micro-batch. Megatron's pipeline sends are not in
  // it: they run on their own stream beside its next step (the planner's
  // `pp`), so only the schedule's path waits for them; DeepSpeed's block
  // the stage (pp_blocking), as do the scatter-gather's AllGathers and, with
  // strategy.pipeline_blocking_sends, Megatron's own sends (pp is then 0).
  // The operations its host issues per micro-batch (kernels, collectives,
  // sends) and their time at the stage's host time per operation
  // (DeviceProfile::host_op_seconds; 0 without one): the host runs ahead of
  // the device within a micro-batch, so the stage takes the longer of the
  // two (docs/costmodel.md, "The host's time per operation").
  double fwd_ops = 0, bwd_ops = 0, host = 0;
  double device_per_micro_batch() const {
    return fwd_kernels + bwd_kernels + tp_fwd + tp_bwd + zero_exposed + pp_blocking;
  }
  double per_micro_batch() const { return std::max(device_per_micro_batch(), host); }
};

// simulation.devices_per_host > 1: one host issues every operation of the
// devices it drives (consecutive ids), so each stage's `host` becomes the
// busiest of its devices' hosts' time a micro-batch, the sum of their
// devices' stages' own (every stage issues each micro-batch once in the
// steady state). Stages' `host` are their own on entry; t, d, cp: the
// tensor, data and context degrees of `rm`.
void share_hosts(const Scenario& sc, const RankMap& rm, int t, int d, int cp,
                 std::vector<StageTimes>& stages);

// The plan's degrees and batch as estimate_transformer reads them (check_plan has run).
struct TransformerDegrees {
  int t = 1, p = 1, cp = 1, v = 1;  // v: model chunks per device (interleaved)
  int dg = 1;                       // data x context: the ranks holding the same weights
  int n_devices = 1;
  std::int64_t m = 1;                 // micro-batches per replica and step
  std::int64_t layers_per_chunk = 0;  // layers / (p v)
  bool training = true;
};

// Interleaved 1F1B (v > 1 chunks), buckets overlapped (ZeRO 0-2): a stage's
// gradient buckets as the order walk runs them beside its backwards
// (pipeline_step). Each bucket, in order: the chunk whose last backward
// (its last micro-batch's) completes it, where in that backward (on its
// clock, from its start), its collective's time and the share of the SMs
// its NCCL kernel takes. Each chunk: its backward's length on the clock and
// the stretches of it at full rate (the bucket list's, chunk-local,
// [full_begin[c], full_begin[c + 1]) of full_rate).
// ZeRO-3 (costmodel/plan_data_parallel.cpp): a block of a stage as the
// passes walk it, and a stage's blocks chunk by chunk in forward order
// (chunk c's at [chunk_begin[c], chunk_begin[c + 1])), which the order walk
// runs over a pipeline (pipeline_step); `per_step`: the window model's
// per-step part, in per_step_extra, which the walk replaces.
struct Zero3Block {
  double f = 0, b = 0;        // forward, backward (with recomputation) of a micro-batch
  double f_tp = 0, b_tp = 0;  // of them, tensor-parallel collectives (not slowed)
  double g = 0, g_share = 0;  // its gather (0: none)
  double r = 0, r_share = 0;  // its reduce-scatter (0: none)
  bool operator==(const Zero3Block&) const = default;
};
// FP8 delayed scaling's amax reduction at the end of a pass (StageTimes::
// amax_fwd, amax_bwd): the kernels before its AllReduce, the AllReduce
// (over 'tensor' or wider: a collective of the compute stream, which the
// data stream's NCCL kernels do not slow) and the kernels after it.
struct Zero3Amax {
  double cat = 0, reduce = 0, update = 0;
  bool operator==(const Zero3Amax&) const = default;
};
// `amax_fwd`, `amax_bwd`: the reduction a chunk's pass ends with where
// amax_chunk[c] (a chunk that runs layers).
struct Zero3Stage {
  std::vector<Zero3Block> blocks;
  std::vector<std::uint32_t> chunk_begin;
  Zero3Amax amax_fwd, amax_bwd;
  std::vector<std::uint8_t> amax_chunk;
  double per_step = 0;
};
struct ChunkBuckets {
  std::vector<int> chunk;
  std::vector<double> offset, seconds, share;
  std::vector<double> length;
  // Of the stage's whole gradients (as its memory counts them), what each
  // chunk's last backward frees: its buckets' (a bucket that a later
  // chunk's gradients complete frees with that chunk's).
  std::vector<double> freed;
  std::vector<std::uint32_t> full_begin;
  std::vector<std::pair<double, double>> full_rate;
  bool operator==(const ChunkBuckets&) const = default;
};
// What the stage loop found, one entry per pipeline stage.
struct StageFigures {
  std::span<const StageTimes> times;
  std::span<const double> params;          // parameters one device keeps
  std::span<const double> fp8_weights;     // of them, FP8 weights (ParamTensor::fp8)
  // Of them, under expert parallelism, the experts' (0 without it): ZeRO-1
  // shards their optimizer state over the expert-data group, data / expert.
  std::span<const double> experts;
  int expert = 1;  // strategy.expert
  // training.fp8_param_gather: FP8 primary weights (fp8_weight_extra_bytes).
  bool fp8_params = false;
  std::span<const double> per_step_extra;  // gradient sync, parameter gathers, optimizer
  std::span<const double> opt_seconds;     // the optimizer step
  // The backward's kernels slowed by the gradient buckets' NCCL kernels
  // beside them (in per_step_extra: compute, not communication).
  std::span<const double> dp_slowed;
  std::span<const StageLayout> layouts;
  double host_op = 0;  // the hosts' time per operation (slowest_host_op_seconds)
  int devices_per_host = 1;  // simulation.devices_per_host (share_hosts has applied it)
  // The gradient buckets' time past the stage's backward (in per_step_extra),
  // and whether the first and the last stage hold tied copies of the word
  // embedding (training, p > 1): pipeline_step's join of the two.
  std::span<const double> dp_after_backward;
  bool tied_ends = false;
  // overlap_param_gather: each stage's own delay of its first forwards by
  // its gathers (DataParallelFigures::start_own; in per_step_extra with the
  // delay carried down to it).
  std::span<const double> dp_start_own;
  // ZeRO-2, overlapped, one chunk: the last backward's peak with its
  // buckets' frees (DataParallelFigures::zero2_last; not valid elsewhere).
  std::span<const Zero2LastBackward> zero2_last;
  // Interleaved, buckets overlapped: each stage's buckets by chunk (empty
  // elsewhere), which the order walk runs beside its backwards; the
  // stage's dp_slowed and dp_after_backward are then the walk's to replace.
  std::span<const ChunkBuckets> chunk_buckets;
  // ZeRO-3 over a pipeline: each stage's blocks (empty
  // elsewhere), which the order walk runs with their gathers and
  // reduce-scatters.
  std::span<const Zero3Stage> zero3;
};

// A stage's group's ranks, built when a collective on it must be worked out
// (the memo answers most without them).
using GroupMembers = std::function<const std::vector<int>&()>;

// One stage's collective on one group, priced (the stage loop's per-stage
// lists: a stage's layers and buckets repeat their collectives).
struct PricedCollective {
  CollectiveKind kind;
  double bytes, seconds;
};

// A collective's seconds on a stage's group: from the stage's list
// `priced`, else the memo's (by the group's `handle`), else `compute()`'s;
// kept in the list (up to 64).
template <class Compute>
Result<double> price_on_stage(PlanMemo* memo, std::vector<PricedCollective>& priced, int handle,
                              CollectiveKind kind, CollectiveAlgorithm algorithm, double bytes,
                              Compute&& compute) {
  for (const PricedCollective& x : priced)
    if (x.kind == kind && x.bytes == bytes) return x.seconds;
  std::optional<double> known;
  if (memo != nullptr) known = memo->find_collective(kind, algorithm, handle, bytes);
  double seconds = 0;
  if (known) {
    seconds = *known;
  } else {
    BRIGADE_ASSIGN_OR_RETURN(seconds, compute());
  }
  if (priced.size() < 64) priced.push_back({kind, bytes, seconds});
  return seconds;
}

// The share of a stage device's SMs a collective's NCCL kernel holds
// (collective_sm_share, plan_internal.hpp), through the memo's price
// classes when there is one (`handle`: the group's).
Result<double> stage_sm_share(PlanMemo* memo, const Topology& topo, const HardwareProfile& prof,
                              const DeviceProfile& device, int handle, CollectiveKind kind,
                              CollectiveAlgorithm algorithm, double bytes,
                              const GroupMembers& members);

// What a stage's data-parallel part (stage_data_parallel) reads from the
// stage loop (costmodel/plan_transformer.cpp).
struct DataParallelInputs {
  const Scenario& sc;
  PlanMemo* memo;                      // null outside a search
  TransformerCache& cache;             // the gradient buckets' lists
  const TransformerBlocks& templates;  // the blocks the stages run
  const StageLayout& lay;              // this stage's
  const KernelTimes& times;            // this stage's kernels' times
  std::uint64_t times_written;         // the stage loop's kernel-time writes so far
  const DeviceProfile& device;         // the stage's device's profile
  int stage, stages, dg;               // i, p, the gradient group's size (data x context)
  int handle;                          // the gradient group's in the memo (-1: none)
  const GroupMembers& members;         // the gradient group's ranks
  double micro_batches;                // m, per replica and step
  double g_bytes, e_bytes;             // a gradient's and a weight's bytes
  // An FP8 weight's bytes as gathered over 'data': 1 with FP8 primary
  // weights (training.fp8_param_gather: Megatron-Core's uint8 parameter
  // buffer), else e_bytes.
  double fp8_gather_bytes;
  double grad_memory_bytes;            // a whole gradient's bytes in memory (ZeRO-2)
  double host_op;                      // the hosts' time per operation
  bool param_gather_ahead;             // strategy.overlap_param_gather, where it applies
  bool ledgers_on;                     // EstimateOptions::communication
  // One activation's send from stage `from` to `to` (overlap_param_gather's
  // chain).
  const std::function<double(int, int)>& forward_send;
  // Interleaved, overlapped: filled with the stage's buckets by chunk (null
  // elsewhere).
  ChunkBuckets* chunk_buckets = nullptr;
  // ZeRO-3 over a pipeline: filled with the stage's blocks.
  Zero3Stage* zero3 = nullptr;
};
// What it carries from stage to stage: the bucket list the last stage used
// (at which count of kernel-time writes, for which ends of the pipeline),
// and overlap_param_gather's chain (param_gather_chain: `pg_arrival`, when
// the stage's first forward would start without the gathers; `pg_carry`,
// how much later the stages before's gathers made it; `pg_forward`, the
// last stage's chunk-0 forward of one micro-batch; `pg_later`, the later
// chunks' delays so far).
struct DataParallelCarry {
  BucketList* last_list = nullptr;
  std::uint64_t last_list_written = 0;
  bool last_list_first = false, last_list_last = false;
  double pg_arrival = 0, pg_carry = 0, pg_forward = 0, pg_later = 0;
};
// What it gives the stage, once a step: the work past the micro-batches
// (into per_step_extra), the backward's slowdown by the buckets' NCCL
// kernels (StageFigures::dp_slowed; in per_step too) and the buckets' time
// past the backward.
struct DataParallelFigures {
  double per_step = 0, slowed = 0, after_backward = 0;
  Zero2LastBackward zero2_last;  // ZeRO-2, overlapped, one chunk
  // overlap_param_gather: the stage's own delay of its first forwards by its
  // gathers (in per_step with the delay carried from the stages before).
  double start_own = 0;
};
// Data parallelism and ZeRO (Rajbhandari et al. 2020 §7), as the planner
// lowers them, on one stage of a training plan with a gradient group of
// more than one: stages 0-2 reduce the gradients once per step in buckets
// filled with whole parameter groups as the last micro-batch's backward
// completes them, overlapped with what remains of it, the backward slowed
// by their NCCL kernels' SMs (buckets_beside_backward); stages 1-2 gather
// the updated weights after the optimizer step (or ahead of the first
// forward: overlap_param_gather). Stage 3 gathers each block's parameters
// before its forward and again before its backward and reduce-scatters its
// gradients after its backward, every micro-batch (into `T`).
Status stage_data_parallel(const DataParallelInputs& in, DataParallelCarry& carry, StageTimes& T,
                           CommLedger& ledger, DataParallelFigures& out);

// What a stage's gradient collectives beside data parallelism's
// (stage_gradients) read from the stage loop (plan_transformer.cpp).
struct StageGradientInputs {
  const Scenario& sc;
  PlanMemo* memo;                      // null outside a search
  const TransformerBlocks& templates;  // the blocks the stages run
  const StageLayout& lay;              // this stage's
  int stage, stages;                   // i, p
  int tensor, data, expert, dg;        // t, d, ep, the gradient group's size (data x context)
  double experts;                      // the expert parameters a device of the stage keeps
  double g_bytes, e_bytes;             // a gradient's and a weight's bytes
  // An FP8 weight's bytes as gathered over 'data': 1 with FP8 primary
  // weights (training.fp8_param_gather: Megatron-Core's uint8 parameter
  // buffer), else e_bytes.
  double fp8_gather_bytes;
  int tp_handle;                       // the tensor group's in the memo (-1: none)
  const GroupMembers& tensor_members;       // the stage's tensor group
  const GroupMembers& expert_data_members;  // the d/ep data ranks holding its experts
  std::pair<int, int> tied_pair;       // the first and last stage's tensor-rank-0 devices
  bool ledgers_on;                     // EstimateOptions::communication
};
// What it carries from stage to stage: the tied embedding's AllReduce, the
// same pair and size for the first and the last stage, priced once.
struct StageGradientCarry {
  std::optional<double> tied_seconds;
};
// A training stage's gradient collectives once a step beside data
// parallelism's (plan_stage_gradients.cpp), each exposed after the
// backward and before the optimizer: the experts' over their expert-data
// group (an AllReduce, or under ZeRO-1 a ReduceScatter and the updated
// weights' AllGather), the sequence-parallel replicated gradients' and
// the QK-norm gains' over 'tensor', the tied embedding's over the first
// and last stages. Adds their seconds to `per_step` one by one (the
// stage's per_step_extra: the search's goldens hold its sums bit for bit);
// `tp_priced` is the stage's list of tensor-group collectives
// (price_on_stage).
Status stage_gradients(const StageGradientInputs& in, std::vector<PricedCollective>& tp_priced,
                       StageGradientCarry& carry, CommLedger& ledger, double& per_step);

// The step (Narayanan et al. 2021 §2.2, the schedule's bubble), the busiest
// stage's compute, optimizer, exposed communication and bubble, its
// communication lists (`ledgers`, one a stage when `ledgers_on`, taken), and,
// with `full`, the notes that say how.
void pipeline_step(const StrategySpec& st, const TransformerDegrees& x, const RankMap& rm,
                   const StageFigures& figures, std::span<CommLedger> ledgers, bool full,
                   bool ledgers_on, PlanEstimate& e);

// Memory per device (per stage, and per device of another capacity, without
// `full`): model states under ZeRO, activations in flight and recomputed, FP8
// weight copies, ZeRO-2's whole gradients and ZeRO-3's gathered blocks.
Status transformer_memory(const Topology& topo, const StrategySpec& st,
                          const TransformerDegrees& x, const RankMap& rm,
                          const TransformerBlocks* templates, const BytesPerParameter& per,
                          double e_bytes, const StageFigures& figures, bool full, PlanEstimate& e);

}  // namespace brigade::cost::detail
