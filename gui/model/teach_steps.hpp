// The teaching view's steps and its player: a pure state machine (no Qt,
// no clock of its own) that the view drives with a QTimer.
//
// The demo is one sequence of steps, mode after mode, as a teacher at a
// projector walks through it with "next":
//   overview   0      the kitchen: chefs, stations, runners, the head chef
//   transfer   1-3    a tensor from one chef to another: alpha, then M/B, arrived
//   transform  4-7    batch split, AllGather, row split, ReduceScatter
//   output     8-9    results stacked by device (pmap), or concatenated
//   pmap       10-16  the second seed's data-parallel step: devices, shards,
//                     compute, psum, pmean, all_gather, update
// `brigade-gui --screenshot --view teach --step K` shows step K.
#pragma once

#include <string_view>

namespace brigade::gui {

enum class TeachMode { kOverview, kTransfer, kTransform, kOutput, kPmap };
inline constexpr int kNumTeachModes = 5;
std::string_view teach_mode_name(TeachMode m);  // "overview", "transfer", ...

enum class TeachStep {
  kKitchen,
  kTransferAlpha,
  kTransferBeta,
  kTransferArrived,
  kBatchSplit,
  kAllGather,
  kRowSplit,
  kReduceScatter,
  kOutputStacked,
  kOutputConcatenated,
  kPmapDevices,
  kPmapShard,
  kPmapCompute,
  kPmapPsum,
  kPmapPmean,
  kPmapAllGather,
  kPmapUpdate,
};
inline constexpr int kNumTeachSteps = 17;

TeachMode teach_mode_of(TeachStep step);
// The first step of a mode, and how many it has.
int first_step_of(TeachMode mode);
int steps_in(TeachMode mode);

// What a step of the pmap demo shows (the second seed's "设备映射",
// "数据分片", "通信原语" and "训练实战"); every field false outside it.
struct PmapFrame {
  bool devices = false;      // the N chefs, each with its index on the device axis
  bool batch_whole = false;  // x (B, d) on the host, not yet split
  bool shards = false;       // x[d] of shape (B/N, d) on chef d
  bool computing = false;    // every chef runs f on its shard at the same time
  bool local_grads = false;  // each chef holds its own gradient g_d
  bool bowl = false;         // the sauce bowl, the chefs pouring into it
  bool summed = false;       // psum: the bowl holds sum_d g_d, every chef takes it back
  bool mean = false;         // pmean: every chef holds sum_d g_d / N
  bool gathered = false;     // all_gather: every chef holds all N shards, (N, B/N, d)
  bool updated = false;      // w <- w - eta * mean gradient, the same w on every chef
  // The step's clock at this step's end, as parts of the closed form's step:
  // compute (forward and backward), then the AllReduce.
  bool clock_compute = false;
  bool clock_allreduce = false;
};
PmapFrame pmap_frame(TeachStep step);

// The player. Time is given to it (tick): tests drive it without a clock.
class TeachPlayer {
 public:
  static constexpr double kStepSeconds = 2.5;  // one step's animation, played

  int step() const { return step_; }
  TeachStep current() const { return static_cast<TeachStep>(step_); }
  TeachMode mode() const { return teach_mode_of(current()); }
  bool playing() const { return playing_; }
  // How far the current step's animation has gone, 0 to 1 (1: at rest, as a
  // screenshot shows it).
  double phase() const { return phase_; }

  // Play from the current step (from the start when at the end); pause stops
  // where it is.
  void play();
  void pause();
  void toggle() { playing_ ? pause() : play(); }
  // Step buttons: pause and move one step (false at either end).
  bool next();
  bool previous();
  // Jump (paused) to a step; false (nothing changes) when out of range.
  bool go_to(int step);
  void go_to_mode(TeachMode mode) { go_to(first_step_of(mode)); }
  // Advances a playing animation by `seconds`: the phase runs to 1, then the
  // next step starts at phase 0; at the last step's end playing stops.
  // Returns whether anything changed (a paused player: never).
  bool tick(double seconds);

 private:
  int step_ = 0;
  double phase_ = 1;
  bool playing_ = false;
};

}  // namespace brigade::gui
