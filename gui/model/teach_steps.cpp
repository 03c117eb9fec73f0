#include "gui/model/teach_steps.hpp"

#include <algorithm>

namespace brigade::gui {

std::string_view teach_mode_name(TeachMode m) {
  switch (m) {
    case TeachMode::kOverview:
      return "overview";
    case TeachMode::kTransfer:
      return "transfer";
    case TeachMode::kTransform:
      return "transform";
    case TeachMode::kOutput:
      return "output";
    case TeachMode::kPmap:
      return "pmap";
  }
  return "overview";
}

TeachMode teach_mode_of(TeachStep step) {
  const int s = static_cast<int>(step);
  if (s >= first_step_of(TeachMode::kPmap)) return TeachMode::kPmap;
  if (s >= first_step_of(TeachMode::kOutput)) return TeachMode::kOutput;
  if (s >= first_step_of(TeachMode::kTransform)) return TeachMode::kTransform;
  if (s >= first_step_of(TeachMode::kTransfer)) return TeachMode::kTransfer;
  return TeachMode::kOverview;
}

int first_step_of(TeachMode mode) {
  switch (mode) {
    case TeachMode::kOverview:
      return static_cast<int>(TeachStep::kKitchen);
    case TeachMode::kTransfer:
      return static_cast<int>(TeachStep::kTransferAlpha);
    case TeachMode::kTransform:
      return static_cast<int>(TeachStep::kBatchSplit);
    case TeachMode::kOutput:
      return static_cast<int>(TeachStep::kOutputStacked);
    case TeachMode::kPmap:
      return static_cast<int>(TeachStep::kPmapDevices);
  }
  return 0;
}

int steps_in(TeachMode mode) {
  const int m = static_cast<int>(mode);
  const int end =
      m + 1 < kNumTeachModes ? first_step_of(static_cast<TeachMode>(m + 1)) : kNumTeachSteps;
  return end - first_step_of(mode);
}

PmapFrame pmap_frame(TeachStep step) {
  PmapFrame f;
  if (teach_mode_of(step) != TeachMode::kPmap) return f;
  const int k = static_cast<int>(step) - first_step_of(TeachMode::kPmap);
  f.devices = true;
  f.batch_whole = k == 0;
  f.shards = k >= 1;
  f.computing = k == 2;
  f.local_grads = k >= 2 && k <= 3;
  f.bowl = k == 3 || k == 4;
  f.summed = k == 3;
  f.mean = k >= 4;
  f.gathered = k == 5;
  f.updated = k == 6;
  f.clock_compute = k >= 2;
  f.clock_allreduce = k >= 4;
  return f;
}

void TeachPlayer::play() {
  if (step_ == kNumTeachSteps - 1 && phase_ >= 1) step_ = 0;
  if (phase_ >= 1) phase_ = 0;
  playing_ = true;
}

void TeachPlayer::pause() {
  playing_ = false;
}

bool TeachPlayer::next() {
  return go_to(step_ + 1);
}
bool TeachPlayer::previous() {
  return go_to(step_ - 1);
}

bool TeachPlayer::go_to(int step) {
  if (step < 0 || step >= kNumTeachSteps) return false;
  playing_ = false;
  step_ = step;
  phase_ = 1;
  return true;
}

bool TeachPlayer::tick(double seconds) {
  if (!playing_ || seconds <= 0) return false;
  phase_ += seconds / kStepSeconds;
  while (phase_ >= 1) {
    if (step_ + 1 >= kNumTeachSteps) {
      phase_ = 1;
      playing_ = false;
      return true;
    }
    ++step_;
    phase_ -= 1;
  }
  return true;
}

}  // namespace brigade::gui
