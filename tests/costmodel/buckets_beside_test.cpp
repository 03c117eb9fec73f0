// Gradient buckets beside a backward whose kernels lose SMs to their NCCL
// kernels (costmodel/plan_internal.hpp, buckets_beside_backward; docs/
// costmodel.md, "NCCL's kernels take SMs"). Timelines worked by hand.
#include <gtest/gtest.h>

#include "costmodel/plan_internal.hpp"

namespace brigade::cost {
namespace {

TEST(BucketsBeside, NoShareIsTheBucketTimeline) {
  // Window 10, buckets ready at 4 and 10 taking 2 and 1: [4, 6], [10, 11].
  const detail::BucketsBeside b =
      detail::buckets_beside_backward({4, 10}, {2, 1}, {0, 0}, 10);
  EXPECT_DOUBLE_EQ(b.end, 11);
  EXPECT_DOUBLE_EQ(b.backward_end, 10);
}

TEST(BucketsBeside, TheBackwardSlowsWhileABucketRuns) {
  // Share 0.5 each. The first bucket runs [4, 6]; the backward does 1 of
  // work in those 2 seconds (5 by t = 6), then the 5 left at its whole
  // rate: it ends at 11, where the second bucket is ready: [11, 12].
  const detail::BucketsBeside b =
      detail::buckets_beside_backward({4, 10}, {2, 1}, {0.5, 0.5}, 10);
  EXPECT_DOUBLE_EQ(b.end, 12);
  EXPECT_DOUBLE_EQ(b.backward_end, 11);
}

TEST(BucketsBeside, ABucketReadyWhileTheOneBeforeRuns) {
  // The second bucket is ready at work 5: the backward reaches it at
  // 4 + 1 / 0.5 = 6, as the first ends: it runs [6, 7], the backward at
  // half rate again (5.5 by t = 7), the 4.5 left after: it ends at 11.5.
  const detail::BucketsBeside b =
      detail::buckets_beside_backward({4, 5}, {2, 1}, {0.5, 0.5}, 10);
  EXPECT_DOUBLE_EQ(b.end, 7);
  EXPECT_DOUBLE_EQ(b.backward_end, 11.5);
  // Ready at work 4.5 (t = 5), it waits for the first: [6, 7] all the same.
  const detail::BucketsBeside c =
      detail::buckets_beside_backward({4, 4.5}, {2, 1}, {0.5, 0.5}, 10);
  EXPECT_DOUBLE_EQ(c.end, 7);
  EXPECT_DOUBLE_EQ(c.backward_end, 11.5);
}

TEST(BucketsBeside, AllSmsTakenStopsTheBackward) {
  // Share 1: the backward stands still for the first bucket's 2 seconds.
  const detail::BucketsBeside b =
      detail::buckets_beside_backward({4, 10}, {2, 1}, {1, 1}, 10);
  EXPECT_DOUBLE_EQ(b.backward_end, 12);
  EXPECT_DOUBLE_EQ(b.end, 13);
}

TEST(BucketsBeside, TheBackwardsOwnCollectivesKeepTheirPace) {
  // One bucket ready at 4 taking 4 ([4, 8]) at share 0.5; the backward runs
  // a collective of its own over its clock's [5, 6], where no kernel loses
  // SMs. From t = 4 at half rate to w = 5 (t = 6), through the collective
  // at the whole rate (w = 6 at t = 7), at half rate to the bucket's end
  // (w = 6.5 at t = 8), then the 3.5 left: 11.5. Without the collective's
  // place it would end at 12 (w = 6 at t = 8, then 4 more).
  const detail::BucketsBeside b =
      detail::buckets_beside_backward({4}, {4}, {0.5}, 10, {{5, 6}});
  EXPECT_DOUBLE_EQ(b.end, 8);
  EXPECT_DOUBLE_EQ(b.backward_end, 11.5);
  EXPECT_DOUBLE_EQ(detail::buckets_beside_backward({4}, {4}, {0.5}, 10).backward_end, 12);
}

}  // namespace
}  // namespace brigade::cost
