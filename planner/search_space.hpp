// The strategy space `brigade search` explores for a transformer on a fixed
// cluster: tensor x pipeline x data x context (their product is the
// topology's device count; x expert inside data for a mixture of experts) x
// sequence parallelism x ZeRO stage x micro-batch x schedule and
// virtual stages x recomputation x rank order x gradient bucket size.
// docs/search.md gives every key's values and the reasons for them.
//
// The space is enumerated as "time classes" (the keys that decide the
// kernels a device runs: tensor, pipeline, data, expert, context, sequence
// parallelism, micro-batch, schedule, virtual stages, recomputation), each
// expanded over
// the keys that only change communication and model states (ZeRO, rank
// order, bucket). The ranking (search_rank.cpp) prunes whole classes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade::planner {

// A rank order, innermost axis first: indices into {tensor, data, pipeline,
// context}. Every order lists the four axes; with context 1 the context axis
// takes no devices and the names and labels leave it out.
using RankOrder = std::array<std::uint8_t, 4>;
inline constexpr std::uint8_t kContextAxis = 3;
// The default order: tensor, context, data, pipeline (Megatron-Core's
// tp-cp-dp-pp; with context 1, the scenario default [tensor, data, pipeline]).
inline constexpr RankOrder kDefaultRankOrder = {0, 3, 1, 2};
// The axes' names, innermost first; "context" only when `context` > 1 (a
// scenario's rank_order without it puts context right after tensor).
std::vector<std::string> rank_order_names(const RankOrder& order, int context = 1);
// "T-D-P" for {tensor, (context,) data, pipeline} with context 1; "T-C-D-P"
// with context > 1.
std::string rank_order_label(const RankOrder& order, int context = 1);
// The order of names written in a scenario (three axes or four), as a
// RankOrder; context goes right after tensor when not listed (full_rank_order).
RankOrder rank_order_of(const std::vector<std::string>& names);
// "25MB" for a whole number of megabytes, else format_bytes.
std::string bucket_label(double bytes);

// One point of the space: every key `search` chooses.
struct StrategyPoint {
  int tensor = 1, pipeline = 1, data = 1;
  int expert = 1;  // expert parallelism (mixtures of experts; 1 for a dense model)
  int context = 1;  // context parallelism (ring attention over the sequence)
  bool sequence_parallel = false;
  int zero = 0;
  std::int64_t micro_batch = 1;
  PipelineSchedule schedule = PipelineSchedule::k1F1B;
  int virtual_stages = 1;
  Recompute recompute = Recompute::kNone;
  RankOrder rank_order = kDefaultRankOrder;
  double bucket_bytes = 25e6;

  bool operator==(const StrategyPoint& o) const;
  // Total order for deterministic ties.
  bool operator<(const StrategyPoint& o) const;
};

// The same plan: equal keys, rank orders compared without their degree-1
// axes, buckets ignored without data parallelism.
bool equivalent(const StrategyPoint& a, const StrategyPoint& b);

// "tensor 8, pipeline 16, data 8, sp, zero 1, micro 1, interleaved x2,
// selective, T-D-P, bucket 25 MB" ("data 8, expert 8, ..." with expert > 1,
// "data 8, context 16, ..., T-C-D-P, ..." with context > 1).
std::string point_label(const StrategyPoint& p);

// The point a scenario's own strategy and training keys describe.
StrategyPoint point_of(const Scenario& sc);

// Writes a point into a scenario's strategy and training (the other keys,
// algorithm, overlap, optimizer, batch, stay as they are; data_mode becomes
// batch). Cheap: no allocation but the rank order's three strings.
// training.tp_comm_overlap follows `base`'s where the point can take it
// (sequence parallelism over tensor > 1) and is off where it cannot.
void apply_point(const StrategyPoint& p, Scenario& sc, const Scenario& base);
// The same with `sc` its own base: for a scenario a point is written into
// once (a copy reused for many points keeps an overlap it lost).
inline void apply_point(const StrategyPoint& p, Scenario& sc) { apply_point(p, sc, sc); }

// The values the space takes for each key. Degrees and micro-batches are
// filtered per class (a tensor degree must divide the heads, ...); the lists
// here are the candidates before that.
struct SpaceGrid {
  std::vector<int> tensor;                 // empty: every divisor allowed by the model
  std::vector<int> pipeline;               // empty: every divisor of the layers
  std::vector<int> expert;                 // empty: every divisor of the experts (MoE only)
  std::vector<int> context;                // empty: every degree check_plan accepts
  std::vector<bool> sequence_parallel = {false, true};
  std::vector<int> zero = {0, 1, 2, 3};
  std::vector<std::int64_t> micro_batch;   // empty: every divisor of the per-replica batch
  std::vector<PipelineSchedule> schedule = {PipelineSchedule::kGpipe, PipelineSchedule::k1F1B,
                                            PipelineSchedule::kInterleaved};
  std::vector<int> virtual_stages;         // empty: every divisor >= 2 of layers / pipeline
  std::vector<Recompute> recompute = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  std::vector<RankOrder> rank_order;       // empty: all six orders
  std::vector<double> bucket_bytes = {25e6, 100e6, 500e6};
};

// The keys `search --set KEY=V1,V2` may restrict, in the order of the table.
std::vector<std::string> space_keys();

// Restricts one key of the grid to the values written ("tensor", "4,8").
// Errors, one line: "--set tensor: found 'x'; expected a positive integer",
// "--set: found key 'tensr'; expected one of ... (did you mean 'tensor'?)".
Status restrict_grid(SpaceGrid& grid, const std::string& key, const std::string& values);

// The keys that decide a device's kernels: every point of a class runs the
// same kernels for the same time on identical devices.
struct TimeClass {
  int tensor = 1, pipeline = 1, data = 1;
  int expert = 1;
  int context = 1;
  bool sequence_parallel = false;
  std::int64_t micro_batch = 1;
  PipelineSchedule schedule = PipelineSchedule::k1F1B;
  int virtual_stages = 1;
  Recompute recompute = Recompute::kNone;
};

// The space of one scenario: its classes and, per class, the values of the
// keys that vary inside it.
class StrategySpace {
 public:
  // Errors: a scenario that is not a transformer, a grid restricted to
  // nothing that fits the model (said per key).
  static Result<StrategySpace> make(const Scenario& sc, const SpaceGrid& grid);

  const std::vector<TimeClass>& classes() const { return classes_; }
  std::vector<int> zero_values(const TimeClass& c) const;
  std::vector<RankOrder> rank_orders(const TimeClass& c) const;
  std::vector<double> bucket_values(const TimeClass& c) const;
  // Points in a class (zero x rank orders x buckets).
  std::uint64_t class_size(const TimeClass& c) const;
  // Whether the space holds a plan equivalent to `p` (rank orders compared
  // without their degree-1 axes; the bucket ignored without data parallelism).
  bool contains(const StrategyPoint& p) const;
  // Points in the whole space.
  std::uint64_t size() const { return size_; }

  // One line per key: "tensor: 1, 2, 4, 8 (divisors of 1024 that divide heads 96, ...)".
  const std::vector<std::string>& describe() const { return lines_; }
  // Whether the model is a mixture of experts (the space has an expert key).
  bool experts() const { return experts_; }
  // Whether the space holds context degrees above 1.
  bool contexts() const { return contexts_; }
  // Combinations of the grid's values left out because check_plan refuses
  // them (expert and context parallelism's conditions), per reason, in
  // points: the points those classes and ZeRO stages would have held.
  const std::vector<std::pair<std::string, std::uint64_t>>& refused() const { return refused_; }
  int devices() const { return devices_; }
  bool training() const { return training_; }

 private:
  SpaceGrid grid_;
  std::vector<TimeClass> classes_;
  std::uint64_t size_ = 0;
  std::vector<std::string> lines_;
  int devices_ = 0;
  bool training_ = true;
  bool experts_ = false;
  bool contexts_ = false;
  std::vector<std::pair<std::string, std::uint64_t>> refused_;
};

// The point of a class with the given inner keys.
StrategyPoint point_in(const TimeClass& c, int zero, const RankOrder& order, double bucket_bytes);

}  // namespace brigade::planner
