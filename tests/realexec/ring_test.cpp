// The collective schedules of realexec/ring.hpp, run step by step on one
// thread: every output the reference defines comes out right, and no rank
// reads in a step what a peer writes in that same step (so the barrier after
// each step is the only synchronisation the schedules need).
#include "realexec/ring.hpp"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "realexec/pattern.hpp"

namespace brigade::realexec {
namespace {

struct Case {
  CollectiveKind kind;
  int ranks;
  std::int64_t count;
  int root;
};

class RingSchedule : public ::testing::TestWithParam<Case> {};

// Runs the schedule with int elements. `snapshot`: reads in step s see the
// outputs as they were after step s-1 (what a barrier guarantees); otherwise
// ranks run one after another in each step, reading whatever is there.
std::vector<std::vector<int>> run_schedule(const Case& c, const std::vector<std::int32_t>& group,
                                           bool snapshot) {
  const int n = c.ranks;
  std::vector<std::vector<int>> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    in[static_cast<size_t>(r)].resize(static_cast<size_t>(c.count));
    for (std::int64_t i = 0; i < c.count; ++i)
      in[static_cast<size_t>(r)][static_cast<size_t>(i)] =
          input_value(group[static_cast<size_t>(r)], i);
    out[static_cast<size_t>(r)].assign(static_cast<size_t>(c.count), -7);
  }
  const int chunks = chain_chunks(c.count, 4.0);
  const int steps = ring_steps(c.kind, n, chunks);
  std::vector<RingOp> ops;
  for (int s = 0; s < steps; ++s) {
    const auto before = out;
    for (int r = 0; r < n; ++r) {
      ring_step_ops(c.kind, n, r, c.root, c.count, chunks, s, ops);
      for (const RingOp& op : ops) {
        const auto q = static_cast<size_t>(op.src_rank);
        const std::vector<int>& src =
            op.src == RingSource::kInput ? in[q] : (snapshot ? before[q] : out[q]);
        for (std::int64_t i = 0; i < op.count; ++i) {
          int v = src[static_cast<size_t>(op.src_begin + i)];
          if (op.reduce) v += in[static_cast<size_t>(r)][static_cast<size_t>(op.dst_begin + i)];
          out[static_cast<size_t>(r)][static_cast<size_t>(op.dst_begin + i)] = v;
        }
      }
    }
  }
  return out;
}

TEST_P(RingSchedule, OutputsMatchTheReference) {
  const Case c = GetParam();
  std::vector<std::int32_t> group;
  for (int r = 0; r < c.ranks; ++r) group.push_back(3 * r + 1);  // devices 1, 4, 7, ...
  const auto out = run_schedule(c, group, /*snapshot=*/true);
  for (int r = 0; r < c.ranks; ++r) {
    ExpectedOutput e{c.kind, group.data(), c.ranks, r, c.root, c.count};
    std::int64_t begin = 0, end = 0;
    checked_range(e, &begin, &end);
    for (std::int64_t i = begin; i < end; ++i)
      ASSERT_EQ(out[static_cast<size_t>(r)][static_cast<size_t>(i)], expected_value(e, i))
          << collective_kind_name(c.kind) << " rank " << r << " element " << i;
  }
}

TEST_P(RingSchedule, NoRankReadsWhatAPeerWritesInTheSameStep) {
  const Case c = GetParam();
  std::vector<std::int32_t> group;
  for (int r = 0; r < c.ranks; ++r) group.push_back(r);
  // If a read in step s could see a write of step s, running ranks in order
  // without the snapshot would give different outputs somewhere.
  EXPECT_EQ(run_schedule(c, group, true), run_schedule(c, group, false));
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (int k = 0; k < kNumCollectiveKinds; ++k)
    for (int n : {1, 2, 3, 4, 5})
      for (std::int64_t count : {0LL, 1LL, 7LL, 64LL, 1000LL})
        v.push_back(Case{static_cast<CollectiveKind>(k), n, count, n > 2 ? 2 : 0});
  // Long pipelined chains (many chunks).
  v.push_back(Case{CollectiveKind::kBroadcast, 4, (3 << 18) + 5, 1});  // 4 chunks of ~1 MiB
  v.push_back(Case{CollectiveKind::kReduce, 3, (3 << 18) + 5, 2});
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllKinds, RingSchedule, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           std::string s(collective_kind_name(param_info.param.kind));
                           return s + "_n" + std::to_string(param_info.param.ranks) + "_count" +
                                  std::to_string(param_info.param.count);
                         });

TEST(RingSchedule, StepCountsFollowTheAlgorithms) {
  // Ring AllReduce: 2(N-1) steps; ReduceScatter, AllGather, AllToAll: N-1;
  // pipelined chains: chunks + N - 2.
  EXPECT_EQ(ring_steps(CollectiveKind::kAllReduce, 4, 1), 6);
  EXPECT_EQ(ring_steps(CollectiveKind::kAllGather, 4, 1), 3);
  EXPECT_EQ(ring_steps(CollectiveKind::kReduceScatter, 4, 1), 3);
  EXPECT_EQ(ring_steps(CollectiveKind::kAllToAll, 4, 1), 3);
  EXPECT_EQ(ring_steps(CollectiveKind::kBroadcast, 4, 8), 10);
  EXPECT_EQ(ring_steps(CollectiveKind::kReduce, 1, 8), 1);
  // 3 MiB of f32 in 1 MiB chunks: 3 chunks; 100 MiB: capped at 32.
  EXPECT_EQ(chain_chunks(3 << 18, 4.0), 3);
  EXPECT_EQ(chain_chunks(25 << 20, 4.0), 32);
  EXPECT_EQ(chain_chunks(5, 4.0), 1);
}

}  // namespace
}  // namespace brigade::realexec
