// The teaching view's steps and player (gui/model/teach_steps.hpp): which
// mode each step belongs to, what each step of the pmap demo shows, and
// the play / pause / step state machine driven by tick() without a clock.
#include <gtest/gtest.h>

#include "gui/model/teach_steps.hpp"

namespace brigade::gui {
namespace {

TEST(TeachSteps, ModesFollowTheSeedsOrderAndCoverEveryStepOnce) {
  EXPECT_EQ(first_step_of(TeachMode::kOverview), 0);
  EXPECT_EQ(steps_in(TeachMode::kOverview), 1);
  EXPECT_EQ(steps_in(TeachMode::kTransfer), 3);
  EXPECT_EQ(steps_in(TeachMode::kTransform), 4);
  EXPECT_EQ(steps_in(TeachMode::kOutput), 2);
  EXPECT_EQ(steps_in(TeachMode::kPmap), 7);
  int total = 0;
  for (int m = 0; m < kNumTeachModes; ++m) {
    const auto mode = static_cast<TeachMode>(m);
    EXPECT_EQ(first_step_of(mode), total) << teach_mode_name(mode);
    for (int k = 0; k < steps_in(mode); ++k)
      EXPECT_EQ(teach_mode_of(static_cast<TeachStep>(total + k)), mode);
    total += steps_in(mode);
  }
  EXPECT_EQ(total, kNumTeachSteps);
  EXPECT_EQ(teach_mode_name(TeachMode::kPmap), "pmap");
}

// What step K of the pmap demo shows: one row per step, every field.
struct FrameCase {
  TeachStep step;
  PmapFrame expected;
};

PmapFrame frame(bool batch_whole, bool shards, bool computing, bool local_grads, bool bowl,
                bool summed, bool mean, bool gathered, bool updated, bool clock_compute,
                bool clock_allreduce) {
  PmapFrame f;
  f.devices = true;
  f.batch_whole = batch_whole;
  f.shards = shards;
  f.computing = computing;
  f.local_grads = local_grads;
  f.bowl = bowl;
  f.summed = summed;
  f.mean = mean;
  f.gathered = gathered;
  f.updated = updated;
  f.clock_compute = clock_compute;
  f.clock_allreduce = clock_allreduce;
  return f;
}

class PmapFrames : public ::testing::TestWithParam<FrameCase> {};

TEST_P(PmapFrames, StepKShowsExactlyTheseThings) {
  const PmapFrame got = pmap_frame(GetParam().step);
  const PmapFrame& want = GetParam().expected;
  EXPECT_EQ(got.devices, want.devices);
  EXPECT_EQ(got.batch_whole, want.batch_whole);
  EXPECT_EQ(got.shards, want.shards);
  EXPECT_EQ(got.computing, want.computing);
  EXPECT_EQ(got.local_grads, want.local_grads);
  EXPECT_EQ(got.bowl, want.bowl);
  EXPECT_EQ(got.summed, want.summed);
  EXPECT_EQ(got.mean, want.mean);
  EXPECT_EQ(got.gathered, want.gathered);
  EXPECT_EQ(got.updated, want.updated);
  EXPECT_EQ(got.clock_compute, want.clock_compute);
  EXPECT_EQ(got.clock_allreduce, want.clock_allreduce);
}

//                     whole  shards compute grads  bowl   sum    mean   gather update clkC   clkAR
INSTANTIATE_TEST_SUITE_P(
    Steps, PmapFrames,
    ::testing::Values(FrameCase{TeachStep::kPmapDevices, frame(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
                      FrameCase{TeachStep::kPmapShard, frame(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
                      FrameCase{TeachStep::kPmapCompute, frame(0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0)},
                      FrameCase{TeachStep::kPmapPsum, frame(0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0)},
                      FrameCase{TeachStep::kPmapPmean, frame(0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1)},
                      FrameCase{TeachStep::kPmapAllGather, frame(0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 1)},
                      FrameCase{TeachStep::kPmapUpdate, frame(0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1)}));

TEST(PmapFrames, OtherModesShowNoPmapFrame) {
  const PmapFrame f = pmap_frame(TeachStep::kAllGather);
  EXPECT_FALSE(f.devices || f.shards || f.bowl || f.gathered || f.updated);
}

TEST(TeachPlayer, StartsPausedOnTheKitchenAtRest) {
  TeachPlayer p;
  EXPECT_EQ(p.step(), 0);
  EXPECT_EQ(p.mode(), TeachMode::kOverview);
  EXPECT_FALSE(p.playing());
  EXPECT_EQ(p.phase(), 1.0);
  EXPECT_FALSE(p.tick(10)) << "a paused player does not move";
  EXPECT_EQ(p.step(), 0);
}

TEST(TeachPlayer, StepButtonsMoveOneStepAndStopAtTheEnds) {
  TeachPlayer p;
  EXPECT_FALSE(p.previous());
  EXPECT_EQ(p.step(), 0);
  EXPECT_TRUE(p.next());
  EXPECT_EQ(p.current(), TeachStep::kTransferAlpha);
  EXPECT_TRUE(p.go_to(kNumTeachSteps - 1));
  EXPECT_FALSE(p.next());
  EXPECT_EQ(p.current(), TeachStep::kPmapUpdate);
  EXPECT_FALSE(p.go_to(kNumTeachSteps));
  EXPECT_FALSE(p.go_to(-1));
  EXPECT_EQ(p.current(), TeachStep::kPmapUpdate);
  p.go_to_mode(TeachMode::kTransform);
  EXPECT_EQ(p.current(), TeachStep::kBatchSplit);
}

TEST(TeachPlayer, PlayAnimatesEachStepThenMovesOn) {
  TeachPlayer p;
  p.go_to_mode(TeachMode::kPmap);
  p.play();
  EXPECT_TRUE(p.playing());
  EXPECT_EQ(p.phase(), 0.0) << "play starts the step's animation from its beginning";
  // Half a step: 2.5 s x 0.5.
  EXPECT_TRUE(p.tick(TeachPlayer::kStepSeconds / 2));
  EXPECT_EQ(p.current(), TeachStep::kPmapDevices);
  EXPECT_DOUBLE_EQ(p.phase(), 0.5);
  // Three quarters more: into the next step by a quarter.
  p.tick(TeachPlayer::kStepSeconds * 0.75);
  EXPECT_EQ(p.current(), TeachStep::kPmapShard);
  EXPECT_DOUBLE_EQ(p.phase(), 0.25);
}

TEST(TeachPlayer, PauseHoldsAndStepButtonsPause) {
  TeachPlayer p;
  p.play();
  p.tick(TeachPlayer::kStepSeconds * 0.4);
  p.pause();
  EXPECT_FALSE(p.playing());
  EXPECT_FALSE(p.tick(100));
  EXPECT_EQ(p.step(), 0);
  EXPECT_DOUBLE_EQ(p.phase(), 0.4);
  p.play();  // resumes where it was
  EXPECT_DOUBLE_EQ(p.phase(), 0.4);
  EXPECT_TRUE(p.next());
  EXPECT_FALSE(p.playing());
  EXPECT_EQ(p.phase(), 1.0);
}

TEST(TeachPlayer, PlayingStopsAtTheLastStepAndPlayAgainStartsOver) {
  TeachPlayer p;
  p.go_to(kNumTeachSteps - 2);
  p.play();
  p.tick(TeachPlayer::kStepSeconds * 5);
  EXPECT_FALSE(p.playing());
  EXPECT_EQ(p.step(), kNumTeachSteps - 1);
  EXPECT_EQ(p.phase(), 1.0);
  p.play();
  EXPECT_EQ(p.step(), 0);
  EXPECT_TRUE(p.playing());
}

}  // namespace
}  // namespace brigade::gui
