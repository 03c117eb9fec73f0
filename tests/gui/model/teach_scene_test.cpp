// The teaching view's numbers (gui/model/teach_scene.hpp) from the bundled
// lessons' plans, checked against values worked out by hand from the
// scenarios and the presets (core/presets.cpp, core/profile.cpp).
#include <gtest/gtest.h>

#include "gui/model/loader.hpp"
#include "gui/model/teach_scene.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

TeachScene scene_of(const std::string& relative) {
  auto doc = load_document(kSrc + "/" + relative);
  EXPECT_TRUE(doc.is_ok()) << doc.message();
  if (!doc.is_ok()) return {};
  return build_teach_scene(*(*doc)->scenario, *(*doc)->plan);
}

TEST(ShapeText, WritesTuplesAsPythonDoes) {
  EXPECT_EQ(shape_text({4, 256}), "(4, 256)");
  EXPECT_EQ(shape_text({8}), "(8,)");
  EXPECT_EQ(shape_text({8, 4, 256}), "(8, 4, 256)");
}

// Lesson 1: x·w1 on gpu0, relu, then mm2 on gpu1: the edge a -> mm2 crosses.
// pcie-4gpu: 5 us device to device, 31.5 GB/s links at the PCIe class's
// efficiency 0.8 = 25.2 GB/s. a is (8, 2048) f32 = 8 x 2048 x 4 = 65536 B.
// M/B = 65536 / 25.2e9 = 2.6006 us; T = 5 + 2.6006 = 7.6006 us (the same
// as `brigade explain`'s transfer).
TEST(TeachScene, TransferOfLessonOneIsThePlansEdgeAlphaPlusMOverB) {
  const TeachScene s = scene_of("scenarios/lessons/01-placement-cost.yaml");
  const TeachTransfer& t = s.transfer;
  EXPECT_EQ(t.source, TransferSource::kPlanTransfer);
  EXPECT_EQ(t.tensor, "a");
  EXPECT_EQ(t.from, 0);
  EXPECT_EQ(t.to, 1);
  EXPECT_EQ(t.bytes, 65536);
  EXPECT_NEAR(t.alpha_part_seconds, 5e-6, 1e-12);
  EXPECT_NEAR(t.bandwidth_bytes_per_second, 25.2e9, 1);
  EXPECT_NEAR(t.beta_part_seconds, 65536 / 25.2e9, 1e-12);
  EXPECT_NEAR(t.seconds(), 7.6006e-6, 1e-10);
  EXPECT_EQ(s.total_devices, 4);
  EXPECT_EQ(s.used_devices, 2);
  ASSERT_EQ(s.chefs.size(), 4u);
  EXPECT_TRUE(s.chefs[0].used);
  EXPECT_FALSE(s.chefs[2].used) << "the plan places nothing on gpu2";
}

// Lesson 2: a (32, 256) batch over 8 host threads (shared memory, 1 us,
// 10 GB/s at efficiency 1), batch sharding: (32 / 8, 256) = (4, 256) each.
TEST(TeachScene, TransformsOfLessonTwoAreThePlannersShards) {
  const TeachScene s = scene_of("scenarios/lessons/04-pmap-sharding.yaml");
  const TeachTransform& split = s.transforms[0];
  EXPECT_EQ(split.kind, TransformKind::kBatchSplit);
  EXPECT_TRUE(split.in_plan);
  EXPECT_EQ(split.before.global_shape, (Shape{32, 256}));
  ASSERT_EQ(split.after.local_shapes.size(), 8u);
  for (const Shape& local : split.after.local_shapes) EXPECT_EQ(local, (Shape{4, 256}));
  EXPECT_EQ(split.before.local_shapes[1], Shape{}) << "only the first chef holds the whole before";
  EXPECT_DOUBLE_EQ(split.after.blocks[3][0].row0, 3.0 / 8);
  EXPECT_DOUBLE_EQ(split.after.blocks[3][0].row1, 4.0 / 8);
  EXPECT_EQ(split.after.blocks[3][0].origin, 3);
  // AllGather of x: M = 32 x 256 x 4 = 32768 B; ring (N-1)alpha + (N-1)/N M/B
  // = 7 x 1 us + 7/8 x 32768 / 10e9 = 7 us + 2.8672 us, plus the host
  // threads' 2 us call overhead (a barrier, core/profile.cpp) = 11.8672 us.
  const TeachTransform& gather = s.transforms[1];
  EXPECT_EQ(gather.bytes, 32768);
  EXPECT_NEAR(gather.seconds, 11.8672e-6, 1e-10);
  ASSERT_EQ(gather.after.blocks[5].size(), 8u) << "every chef holds all 8 blocks";
  // w1 (256, 256) is replicated in this plan: the row split is shown, not the plan's.
  const TeachTransform& rows = s.transforms[2];
  EXPECT_FALSE(rows.in_plan);
  EXPECT_EQ(rows.after.local_shapes[0], (Shape{32, 256}));
  // ReduceScatter of y = x w1, (32, 256): partial sums in, rows of the sum out.
  const TeachTransform& scatter = s.transforms[3];
  EXPECT_TRUE(scatter.before.blocks[0][0].partial);
  EXPECT_EQ(scatter.after.local_shapes[7], (Shape{4, 256}));
  EXPECT_EQ(scatter.after.blocks[7][0].origin, -1) << "rows of the sum hold every chef's part";
  EXPECT_FALSE(scatter.after.blocks[7][0].partial);
  EXPECT_GT(scatter.seconds, 7e-6) << "at least its 7 latencies";
  // Output: y stacked by device (8, 4, 256) as pmap returns it, or (32, 256).
  EXPECT_EQ(s.output.tensor, "y");
  EXPECT_EQ(s.output.stacked_shape, (Shape{8, 4, 256}));
  EXPECT_EQ(s.output.concatenated_shape, (Shape{32, 256}));
  // The pmap demo's reshape: (32, 256) -> (8, 4, 256).
  EXPECT_EQ(s.pmap.devices, 8);
  EXPECT_EQ(s.pmap.input_reshaped, (Shape{8, 4, 256}));
  EXPECT_FALSE(s.pmap.training);
}

// Lesson 2 moves nothing between chefs: the transfer is device 0's largest
// tensor, w1 (256, 256) f32 = 262144 B, were it sent to device 1:
// 1 us + 262144 / 10e9 = 1 us + 26.2144 us.
TEST(TeachScene, APlanThatMovesNothingShowsItsLargestTensorAsAWhatIf) {
  const TeachScene s = scene_of("scenarios/lessons/04-pmap-sharding.yaml");
  EXPECT_EQ(s.transfer.source, TransferSource::kWhatIf);
  EXPECT_EQ(s.transfer.tensor, "w1");
  EXPECT_EQ(s.transfer.bytes, 262144);
  EXPECT_NEAR(s.transfer.alpha_part_seconds, 1e-6, 1e-12);
  EXPECT_NEAR(s.transfer.beta_part_seconds, 26.2144e-6, 1e-11);
  EXPECT_FALSE(s.transfer.has_collective);
  EXPECT_TRUE(s.communication.empty());
}

// Lesson 3: one 1 GiB ring AllReduce over the 8 A100s of a DGX: one ring
// step hands M/N = 1 GiB / 8 = 128 MiB to the neighbour; the ring pays
// 2(N-1) = 14 latencies in series (the seed's 2(N-1)alpha).
TEST(TeachScene, TransferOfLessonThreeIsOneRingStepOfTheSauceBowl) {
  const TeachScene s = scene_of("scenarios/lessons/05-sauce-bowl.yaml");
  const TeachTransfer& t = s.transfer;
  EXPECT_EQ(t.source, TransferSource::kRingStep);
  EXPECT_EQ(t.tensor, "allreduce");
  EXPECT_EQ(t.bytes, 134217728.0);
  ASSERT_TRUE(t.has_collective);
  EXPECT_EQ(t.ranks, 8);
  EXPECT_EQ(t.collective_bytes, 1073741824.0);
  EXPECT_EQ(t.alpha_messages, 14);
  EXPECT_GT(t.beta_term_seconds, 100 * t.alpha_term_seconds) << "1 GiB: the beta term dominates";
  ASSERT_EQ(s.chefs.size(), 8u);
  EXPECT_EQ(s.runners.size(), 8u) << "seven neighbours and the ring's closing link";
  EXPECT_EQ(s.runners.back().from, 7);
  EXPECT_EQ(s.runners.back().to, 0);
}

// Lesson 5: W (1024, 1024) row-sharded over 4 chefs: (1024 / 4, 1024) =
// (256, 1024) each, the plan's own; the partial sums y (8, 1024) meet in
// the bowl: an AllReduce of 8 x 1024 x 4 = 32768 B, 2(4-1) = 6 latencies.
TEST(TeachScene, LessonFivesRowSplitIsThePlans) {
  const TeachScene s = scene_of("scenarios/lessons/07-model-sharding.yaml");
  const TeachTransform& rows = s.transforms[2];
  EXPECT_TRUE(rows.in_plan);
  EXPECT_EQ(rows.before.global_shape, (Shape{1024, 1024}));
  ASSERT_EQ(rows.after.local_shapes.size(), 4u);
  EXPECT_EQ(rows.after.local_shapes[2], (Shape{256, 1024}));
  EXPECT_FALSE(s.transforms[0].in_plan) << "x is split by columns here, not rows";
  EXPECT_EQ(s.transforms[3].before.global_shape, (Shape{8, 1024}));
  EXPECT_EQ(s.transfer.source, TransferSource::kRingStep);
  EXPECT_EQ(s.transfer.collective_bytes, 32768);
  EXPECT_EQ(s.transfer.bytes, 8192);
  EXPECT_EQ(s.transfer.alpha_messages, 6);
  // Host threads: alpha 1 us, so the alpha term 2(N-1) alpha = 6 x 1 us = 6 us.
  EXPECT_NEAR(s.transfer.alpha_term_seconds, 6e-6, 1e-12);
}

// The seed's pmap train step: 4 chefs, x (8, 1) -> (4, 2, 1); the gradient
// of the scalar w is 4 bytes (f32) poured into the bowl.
TEST(TeachScene, PmapTrainStepPoursTheScalarGradientIntoTheBowl) {
  const TeachScene s = scene_of("scenarios/pmap_train_step.yaml");
  EXPECT_EQ(s.pmap.devices, 4);
  EXPECT_TRUE(s.pmap.training);
  EXPECT_EQ(s.pmap.input_global, (Shape{8, 1}));
  EXPECT_EQ(s.pmap.input_local, (Shape{2, 1}));
  EXPECT_EQ(s.pmap.input_reshaped, (Shape{4, 2, 1}));
  EXPECT_EQ(s.pmap.param, "w1");
  EXPECT_EQ(s.pmap.gradient_bytes, 4);
  EXPECT_GT(s.pmap.allreduce_seconds, 0);
  EXPECT_GT(s.pmap.step_seconds, s.pmap.allreduce_seconds);
  // Each station: w1, its gradient (4 B each) and activations.
  EXPECT_GT(s.chefs[0].peak_bytes, 0);
  EXPECT_EQ(s.chefs[0].parts_bytes[0], 4);
}

TEST(TeachScene, AThousandChefsShowEightAndCountTheRest) {
  LoadOptions o;
  o.granularity = planner::Granularity::kStep;
  auto doc = load_document(kSrc + "/scenarios/gpt3_175b_1024.yaml", o);
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  const TeachScene s = build_teach_scene(*(*doc)->scenario, *(*doc)->plan);
  EXPECT_EQ(s.chefs.size(), 8u);
  EXPECT_EQ(s.hidden_chefs, 1016);
  EXPECT_EQ(s.total_devices, 1024);
  EXPECT_FALSE(s.communication.empty());
  EXPECT_EQ(s.transfer.source, TransferSource::kPlanTransfer) << "the pipeline's activations";
}

}  // namespace
}  // namespace brigade::gui
