#include "planner/sharding.hpp"

#include <gtest/gtest.h>

namespace brigade::planner {
namespace {

Mesh mesh_2x4() {
  return Mesh{{"data", "model"}, {2, 4}};
}

TEST(Mesh, GroupsAlongAxes) {
  const Mesh m = mesh_2x4();
  EXPECT_EQ(m.size(), 8);
  EXPECT_EQ(m.coords(6), (std::vector<int>{1, 2}));
  EXPECT_EQ(m.groups({1}), (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(m.groups({0}), (std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(m.groups({0, 1}), (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(m.axes_string({0, 1}), "('data', 'model')");
}

TEST(Sharding, LocalShapeOfTheSeedsBatch) {
  // The seed's question: a (32, 256) batch over 8 devices -> (4, 256) each.
  const Mesh m{{"data"}, {8}};
  auto s = local_shape("x", {32, 256}, {0, -1}, m);
  ASSERT_TRUE(s.is_ok());
  EXPECT_EQ(*s, (std::vector<std::int64_t>{4, 256}));
  auto bad = local_shape("x", {30, 256}, {0, -1}, m);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message(),
            "tensor 'x': dimension 0 of size 30 cannot be split over 'data' of size 8; expected "
            "a multiple of 8");
  EXPECT_EQ(spec_string({0, -1}, m), "('data', None)");
}

TEST(Sharding, PartialSumBecomesPsumOrPsumScatter) {
  const Mesh m = mesh_2x4();
  // A (8, 256) f32 partial over 'model' wanted replicated: one psum of the
  // local 8*256*4 = 8192 bytes.
  auto steps = reshard({{-1, -1}, {1}}, {-1, -1}, {8, 256}, 4, m);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(steps[0].axes, (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(steps[0].bytes, 8192);
  EXPECT_EQ(steps[0].what, "psum over 'model'");
  // Wanted split over 'model' by columns: psum_scatter; its bytes are the
  // unreduced input (nccl-tests' size).
  steps = reshard({{-1, -1}, {1}}, {-1, 1}, {8, 256}, 4, m);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, CollectiveKind::kReduceScatter);
  EXPECT_DOUBLE_EQ(steps[0].bytes, 8192);
  EXPECT_EQ(steps[0].spec_after, (PartitionSpec{-1, 1}));
}

TEST(Sharding, GatherMoveAndFreeSlice) {
  const Mesh m = mesh_2x4();
  // ('data', None) -> (None, None): all_gather; bytes = the gathered (8, 256) f32.
  auto g = reshard({{0, -1}, {}}, {-1, -1}, {8, 256}, 4, m);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].kind, CollectiveKind::kAllGather);
  EXPECT_DOUBLE_EQ(g[0].bytes, 8192);
  // ('model', None) -> (None, 'model'): all_to_all of the local (2, 256) block.
  auto a = reshard({{1, -1}, {}}, {-1, 1}, {8, 256}, 4, m);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind, CollectiveKind::kAllToAll);
  EXPECT_DOUBLE_EQ(a[0].bytes, 2.0 * 256 * 4);
  // Replicated -> sharded: a local slice, no communication.
  EXPECT_TRUE(reshard({{-1, -1}, {}}, {0, 1}, {8, 256}, 4, m).empty());
}

TEST(Sharding, RowShardedMatmulLeavesPartialSums) {
  // The seed's y = x W with W split by rows over 'model': x is sliced to
  // match (free), and the contracted k leaves partial sums over 'model'.
  const Mesh m{{"model"}, {4}};
  auto p = propagate_einsum({{"mk", "kn"}, "mn"}, {{{-1, -1}, {}}, {{0, -1}, {}}},
                            {8.0 * 512 * 4, 512.0 * 256 * 4}, m);
  EXPECT_EQ(p.inputs[0], (PartitionSpec{-1, 0}));
  EXPECT_EQ(p.inputs[1], (PartitionSpec{0, -1}));
  EXPECT_EQ(p.output.spec, (PartitionSpec{-1, -1}));
  EXPECT_EQ(p.output.partial, (std::vector<int>{0}));
}

TEST(Sharding, ColumnShardedMatmulNeedsNoSum) {
  const Mesh m{{"model"}, {4}};
  auto p = propagate_einsum({{"mk", "kn"}, "mn"}, {{{-1, -1}, {}}, {{-1, 0}, {}}},
                            {8.0 * 512 * 4, 512.0 * 256 * 4}, m);
  EXPECT_EQ(p.output.spec, (PartitionSpec{-1, 0}));
  EXPECT_TRUE(p.output.partial.empty());
}

TEST(Sharding, OneAxisCannotSplitTwoDimensions) {
  // x split by rows over 'model' and W by rows over 'model' too: W is the
  // larger operand and keeps its split; x's rows must be gathered.
  const Mesh m{{"model"}, {4}};
  auto p = propagate_einsum({{"mk", "kn"}, "mn"}, {{{0, -1}, {}}, {{0, -1}, {}}},
                            {8.0 * 512 * 4, 512.0 * 256 * 4}, m);
  EXPECT_EQ(p.inputs[0], (PartitionSpec{-1, 0}));
  EXPECT_EQ(p.inputs[1], (PartitionSpec{0, -1}));
  EXPECT_FALSE(p.notes.empty());
}

}  // namespace
}  // namespace brigade::planner
