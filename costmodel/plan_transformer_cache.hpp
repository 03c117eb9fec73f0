// Private to the transformer judge (costmodel/plan_transformer.cpp) and its
// memo (costmodel/plan_memo.*): the gradient buckets of a pipeline stage,
// kept from stage to stage and, inside a search's memo, from plan to plan.
//
// A stage's buckets depend only on the blocks it runs (the shape's templates,
// the stage's place: first, last, or neither, and whether there is a
// pipeline), the layers per chunk, the chunks, the bucket size, the element
// size and the times of the backward and recomputation kernels (which set
// when each bucket is ready). Those are the key, compared in full: an entry
// found is the same list the judge would fill, bit for bit.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "core/scenario.hpp"

namespace brigade {
struct BlockTemplate;
struct DeviceProfile;
}  // namespace brigade

namespace brigade::cost::detail {

// The time of every kernel of the block templates as one stage runs them:
// per template (embedding, layer, head, and block recomputation's kept
// layer) and list, in the lists' order.
struct KernelTimes {
  struct Lists {
    std::vector<double> forward, recompute, backward;
    // The same lists as the stage's clock runs them, what each adds to the
    // stage's time: a collective beside its next kernel (Kernel::beside)
    // adds what outlasts that kernel, the kernel its time beside the
    // collective (slowed where NCCL's kernel holds SMs), where the lists
    // above price each alone. The gradient buckets' and the parameter
    // gathers' clocks read these.
    std::vector<double> forward_clock, recompute_clock, backward_clock;
    // A context-parallel ring kernel's one block (0 for every other
    // kernel), in the recompute and backward lists: where its blocks wait
    // for a hop no kernel runs (the gradient buckets' clock).
    std::vector<double> recompute_ring, backward_ring;
  };
  const BlockTemplate* tpl[4] = {};
  Lists lists[4];
  int slot(const BlockTemplate* t) const {
    return t == tpl[0] ? 0 : t == tpl[1] ? 1 : t == tpl[2] ? 2 : 3;
  }
  const Lists& of(const BlockTemplate* t) const { return lists[slot(t)]; }
};

// What a compute kernel's time depends on besides the kernel: the device's
// profile entry, peaks and memory bandwidth, and the stage's speed.
struct ComputeKey {
  const DeviceProfile* profile = nullptr;
  PerDType peak{};
  double memory_bandwidth = 0, speed = 0;
  bool operator==(const ComputeKey&) const = default;
};

// Kernel times whose compute entries are known for `computed_for`, per
// template slot (`ready`); the collective entries are rewritten by every
// stage that reads them.
struct TimedKernels {
  KernelTimes times;
  ComputeKey computed_for;
  bool ready[4] = {false, false, false, false};
};

struct GradientBucket {
  double bytes = 0;
  double ready_seconds = 0;
};

struct BucketList {
  // The key.
  const void* blocks = nullptr;  // the TransformerBlocks the stage runs
  int role = 0;                  // bit 0: first stage, 1: last stage, 2: pipeline > 1
  int virtual_stages = 0;
  std::int64_t layers_per_chunk = 0;
  std::int64_t kept_per_chunk = 0;  // StageLayout's (block recomputation)
  std::int64_t fewer_first = 0, fewer_last = 0;  // StageLayout's (the pipeline split's ends)
  double bucket_bytes = 0, element_bytes = 0;
  std::vector<double> times;  // backward and recompute kernel times of the blocks run

  // The buckets in the order the backward fills them, their distinct sizes
  // (in order of first appearance) and each bucket's index among them, the
  // sum of their bytes (in bucket order) and the backward's length.
  std::vector<GradientBucket> buckets;
  std::vector<double> sizes;
  std::vector<std::uint32_t> size_index;
  double bytes_sum = 0;
  double window_seconds = 0;
  // Where on its clock the backward keeps its whole rate beside the
  // buckets (its own tensor-parallel collectives, or a kernel on fewer SMs
  // already): (from, to), in order.
  std::vector<std::pair<double, double>> full_rate;

  // The last sums over the buckets for one pricing of the sizes (stages
  // whose groups price them alike share them).
  struct Sums {
    bool valid = false;
    bool overlap = false;
    std::vector<double> priced;
    std::vector<double> shares;  // per size: NCCL's kernel's share of the SMs (reduce only)
    double total = 0, end = 0;
    double backward_end = 0;  // the backward's end beside them (reduce only)
    double amax = 0;          // the chunk's amax reduction after the window (reduce only)
    // ZeRO-2, overlapped: each bucket's end as the backward's work done by
    // then (infinity: after it), where its whole gradients are freed.
    std::vector<double> ends_work;
  };
  Sums reduce, gather;
};

// One kind of block's backward as the bucket fill replays it, block after
// block: the kernel times in the order they are added to the clock (the
// recomputation's at its place) and, after the `end`-th addition, the bytes
// of the gradient group that completes there.
struct FlatBackward {
  struct Event {
    std::uint32_t end = 0;
    double bytes = 0;
  };
  std::vector<double> xs;
  std::vector<Event> events;
  // Where the block's clock keeps its whole rate, from the block's start:
  // its collectives alone, or a kernel on fewer SMs already; NCCL's kernels
  // of the gradient buckets take no SMs from a kernel there
  // (buckets_beside_backward).
  std::vector<std::pair<double, double>> full_rate;
};

// The first stage's bucket fill where its embedding's backward starts: up to
// there it is the fill of a middle stage whose layers have the same times
// (the first stage runs their backward, chunk by chunk, then the
// embedding's). Its buckets so far (the first `closed` of the list
// `filled_from`, which holds `bucket_bytes`), the bucket still open and the
// clock; keyed as BucketList is.
struct MiddleFill {
  const void* blocks = nullptr;
  int virtual_stages = 0;
  std::int64_t layers_per_chunk = 0;
  std::int64_t kept_per_chunk = 0;
  double bucket_bytes = 0, element_bytes = 0;
  std::vector<double> times;  // the layers' backward and recompute kernel times
  std::vector<GradientBucket> buckets;
  bool open = false;
  GradientBucket current;
  double now = 0;
  std::vector<std::pair<double, double>> full_rate;  // as BucketList's, so far
};

// The model's parameter count and FLOPs per step (transformer_parameters,
// transformer_model_flops, transformer_hardware_flops) with their inputs.
struct ModelTotals {
  bool valid = false;
  TransformerSpec spec;
  double global_batch = 0;
  bool training = false;
  Recompute recompute = Recompute::kNone;
  double recomputed_fraction = 1;  // block recomputation's share of the layers
  bool fp8_linears = false;        // op-level recomputation replays every FP8 linear
  double parameters = 0, model_flops = 0, hardware_flops = 0;
};

// The model's totals for `sc` and a global batch of `global_batch`, from
// `last` where it was worked out for the same inputs and `memoize` (a
// search's plans share the model and the batch), else worked out into it
// (plan_memo.cpp).
const ModelTotals& model_totals(ModelTotals& last, const Scenario& sc, double global_batch,
                                bool training, bool memoize);

struct TransformerCache {
  ModelTotals totals;  // the last plan's
  static constexpr std::size_t kLists = 64;
  MiddleFill middle;  // the last first stage's, when it had layers
  std::vector<BucketList> lists;  // at most kLists, replaced in turn
  std::size_t next = 0;
  std::vector<double> key;        // scratch: the times of the stage being judged
  std::vector<double> priced;     // scratch: one stage's bucket prices
  FlatBackward flat[4];  // scratch: the embedding's, a layer's, the head's, a kept layer's
  // Kernel times kept from plan to plan, per TransformerBlocks (a shape's
  // templates): the memo owns the templates, so their address names one
  // shape for the memo's whole life.
  std::unordered_map<const void*, TimedKernels> kernels;
};

}  // namespace brigade::cost::detail
