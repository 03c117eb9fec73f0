// Private to the plan judge (costmodel/plan*.cpp): helpers shared by the
// estimators of each model kind. Not part of the library's interface.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/plan.hpp"

namespace brigade::cost {
struct TransformerShape;  // costmodel/transformer_blocks.hpp
}  // namespace brigade::cost

namespace brigade::cost::detail {

// The host time per operation (DeviceProfile::host_op_seconds) the closed
// form charges every device, in the op-graph judge's lanes and the
// transformer's stages alike: brigade::slowest_host_op_seconds of the
// scenario's profile and its simulation.host_op_time.
double slowest_host_op_seconds(const Scenario& sc);

// "FILE:LINE:COL: error: MESSAGE" at `key` (Scenario::where's position).
Status bad_at(const Scenario& sc, const std::string& key, const std::string& message,
              ErrorKind kind = ErrorKind::kBadInput);

// A collective on a group of devices; a group of one is no collective at all.
Result<double> collective_seconds(const Topology& topo, const HardwareProfile& prof,
                                  CollectiveKind kind, CollectiveAlgorithm algorithm,
                                  const std::vector<int>& group, double bytes);

// The same with the strategy's algorithm, a failure reported at strategy.algorithm.
Result<double> plan_collective(const Scenario& sc, CollectiveKind kind,
                               const std::vector<int>& group, double bytes);

// The share of `device`'s SMs the collective's NCCL kernel holds while it
// runs (core/profile.hpp, nccl_sm_share, of the query's nccl_sm_channels);
// 0 for a group of one, an empty collective, a collective NCCL's model
// does not time, or a device whose profile leaves NCCL's SMs out.
Result<double> collective_sm_share(const Topology& topo, const HardwareProfile& prof,
                                   const DeviceProfile& device, CollectiveKind kind,
                                   CollectiveAlgorithm algorithm, const std::vector<int>& group,
                                   double bytes);

// Gradient buckets beside a backward pass whose kernels lose `shares[z]` of
// their SMs while bucket z runs (NCCL's kernels take SMs). The backward is
// `window` seconds of work; bucket z is ready when `ready[z]` of it is
// done and takes `seconds[z]`; one bucket at a time (one stream), each
// after the one before and its readiness. The backward's kernels run at 1 - shares[z] of their rate while
// bucket z runs, at their whole rate between buckets. Returns when the last
// bucket ends and when the backward does (both from the backward's start;
// the backward's is `window` when no share applies).
struct BucketsBeside {
  double end = 0;
  double backward_end = 0;
};
// `full_rate`: where on the backward's clock no kernel loses SMs to them
// (sorted, disjoint): its own collectives, where no kernel runs, and its
// kernels on fewer SMs already (Kernel::sm_held); the clock keeps its whole
// rate through them. `ends_work`, where given: each bucket's end as the
// work the backward had done by then (infinity for one that ends after the
// backward), where ZeRO-2 frees its whole gradients.
BucketsBeside buckets_beside_backward(const std::vector<double>& ready,
                                      const std::vector<double>& seconds,
                                      const std::vector<double>& shares, double window,
                                      const std::vector<std::pair<double, double>>& full_rate = {},
                                      std::vector<double>* ends_work = nullptr);

// Bucketed gradient collectives (PyTorch DDP / Megatron buckets): ceil(G/bucket)
// equal calls.
struct Buckets {
  double count = 0;
  double seconds = 0;       // all of them, back to back
  double last_seconds = 0;  // the last one (never overlapped: its gradients come last)
};

Result<Buckets> bucketed(const Scenario& sc, CollectiveKind kind, const std::vector<int>& group,
                         double bytes);

// The overlap model of communication issued while compute of length `window`
// proceeds: exposed = max(last call, total - window) (all of it without overlap).
double exposed_after_overlap(double total, double window, double last_call, bool overlap);

// ZeRO-3's backward pass: the parameter gathers and the gradient
// reduce-scatters share one stream (the planner's `dp` stream,
// planner/lower_transformer_stage.cpp), one after another, beside a backward of
// length `window`: each is exposed at least as exposed_after_overlap says
// beside the window alone (the first block's gather comes before any
// backward kernel, the last block's reduce-scatter after the last one), and
// the stream must carry both totals: exposed = max(that sum, gathers +
// scatters - window); all of them without overlap.
double exposed_on_one_stream(double gathers, double last_gather, double scatters, double last_scatter,
                             double window, bool overlap);

// ZeRO-3's exposed gathers and reduce-scatters under strategy.zero3_prefetch
// (docs/costmodel.md, "ZeRO-3 prefetch"), per micro-batch on one stage of
// `chunks` model chunks (a pass each; forward window `fwd_window`, backward
// `bwd_window`; `f_first`, `b_first`:
// the gather a forward (backward) pass waits for when it starts cold, the
// largest; `rs_last`: the last reduce-scatter). Every pass sets its gathers
// against its window (a warm pass's first ran during the pass before, which
// carried it instead of its own next: the same load); a cold pass waits for
// its first before any block computes, the floor (exposed_after_overlap), a
// warm one has none. per_pass: every pass cold (and
// the next pass's gathers wait behind the last reduce-scatter);
// per_micro_batch: the forward cold, the backward warm; across_passes: every
// pass warm, and once per step the step's first gather and last
// reduce-scatter (nothing comes before or after them to hide them).
// Without overlap every collective is exposed, whatever the mode.
struct Zero3Exposure {
  double gathered = 0, scattered = 0;  // per micro-batch
  double per_step = 0;                 // once per step, of which
  double per_step_gather = 0;          // the gather
};
Zero3Exposure zero3_exposure(Zero3Prefetch mode, bool overlap, int chunks, double f_total,
                             double f_first, double b_total, double b_first, double rs_total,
                             double rs_last, double fwd_window, double bwd_window);

class CommLedger {
 public:
  void add(const std::string& purpose, const std::string& kind, int group_size, double count,
           double bytes, double seconds, double exposed) {
    if (count <= 0) return;
    for (CommunicationEstimate& e : entries_)
      if (e.purpose == purpose && e.kind == kind) {
        e.count += count;
        e.bytes += bytes;
        e.seconds += seconds;
        e.exposed_seconds += exposed;
        return;
      }
    entries_.push_back({purpose, kind, group_size, count, bytes, seconds, exposed});
  }
  std::vector<CommunicationEstimate> take() { return std::move(entries_); }

 private:
  std::vector<CommunicationEstimate> entries_;
};

std::string kind_name(CollectiveKind k);


// Achieved FLOP/s per device and MFU against the device's peak for `dtype`.
void finish_flops(PlanEstimate& e, const Device& d, const HardwareProfile& profile, DType dtype);

// One device's memory entry: M_peak from the categories, capacity, fits.
DeviceMemoryEstimate memory_entry(int device, int stage, const ModelStateBytes& states,
                                  double activations, double other, double capacity);

// What the closed form's report says it models for a transformer (its
// kernels, FP8, the fused attention's kernel, a priced fused gradient
// accumulation), appended to `notes` (plan_transformer_notes.cpp).
void transformer_model_notes(const Scenario& sc, const TransformerShape& shape,
                             std::vector<std::string>& notes);

// The estimators, one per model kind.
Result<PlanEstimate> estimate_transformer(const Scenario& sc, const EstimateOptions& options = {});
// MLPs and explicit graphs (mesh and shardings, data parallel, or a placement).
Result<PlanEstimate> estimate_op_graph(const Scenario& sc);
Result<PlanEstimate> estimate_collective(const Scenario& sc);

}  // namespace brigade::cost::detail
