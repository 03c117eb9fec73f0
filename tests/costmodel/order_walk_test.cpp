// The closed form's pipeline order walk extended by its period
// (costmodel/plan_order_walk.hpp, chunk_order_periodic): its three runs of
// m1, m1 + p and m1 + 2p micro-batches share their first steps, walked
// once, and each shorter run's rest is walked from there and taken back. A
// speed change only: its ends must be bit for bit those of the three runs
// walked apart (chunk_order_ends each) and extended as before, for every
// schedule, with and without a stage's extra first-forward and last-
// backward time (one chunk) and with ZeRO-3's stream in each prefetch mode.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "costmodel/plan_order_walk.hpp"

namespace brigade::cost::detail {
namespace {

// The extension as the three runs walked apart give it (the walk before the
// shared steps): m1, `first` (m1's ends) and `ends`.
std::int64_t three_apart(const ChunkOrder& o, std::int64_t m, std::vector<double>& ends,
                         std::vector<double>& first) {
  const int p = o.p;
  first.clear();
  if (m <= 4 * p) return chunk_order_ends(o, m, ends), m;
  const std::int64_t m1 = 2 * p + (m - 2 * p) % p;
  std::vector<double> e2, e3;
  chunk_order_ends(o, m1, first), chunk_order_ends(o, m1 + p, e2),
      chunk_order_ends(o, m1 + 2 * p, e3);
  const double periods = static_cast<double>((m - m1) / p);
  ends.resize(first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    const double d1 = e2[i] - first[i], d2 = e3[i] - e2[i];
    if (std::fabs(d2 - d1) > 1e-9 * std::max(1e-12, std::fabs(e3[i]))) {
      first.clear();
      return chunk_order_ends(o, m, ends), m;
    }
    ends[i] = first[i] + periods * d1;
  }
  return m1;
}

struct Drawn {
  PipelineSchedule schedule = PipelineSchedule::k1F1B;
  int p = 2, v = 1;
  std::int64_t m = 0;
  std::vector<double> f, b, to_next, to_previous, last_extra, first_extra, f_extra, b_extra;
  std::vector<Zero3Stage> zero3;
  Zero3Prefetch mode = Zero3Prefetch::kPerPass;
  bool prefetch = true;
  ChunkOrder order() const {
    ChunkOrder o{schedule, p, v, f, b, to_next, to_previous, {}, {}, last_extra, first_extra};
    o.zero3 = zero3, o.f_extra = f_extra, o.b_extra = b_extra, o.mode = mode, o.prefetch = prefetch;
    return o;
  }
};

// A random order: `kind` 0 plain, 1 one chunk with extras, 2 ZeRO-3. Times
// on a coarse grid (multiples of 1/8 ms) some of the time, so that passes
// tie and the order settles into its period, and continuous otherwise.
Drawn draw(std::mt19937_64& rng, int kind) {
  Drawn d;
  std::uniform_int_distribution<int> pick(0, 2);
  const int s = pick(rng);
  d.schedule = s == 0   ? PipelineSchedule::kGpipe
               : s == 1 ? PipelineSchedule::k1F1B
                        : PipelineSchedule::kInterleaved;
  if (kind == 1 && d.schedule == PipelineSchedule::kInterleaved)
    d.schedule = PipelineSchedule::k1F1B;
  d.p = std::uniform_int_distribution<int>(2, 6)(rng);
  d.v = d.schedule == PipelineSchedule::kInterleaved ? std::uniform_int_distribution<int>(2, 3)(rng)
                                                     : 1;
  // Past 4p (the shared walk's range); interleaved, a multiple of p.
  d.m = std::uniform_int_distribution<std::int64_t>(4 * d.p + 1, 11 * d.p)(rng);
  if (d.v > 1) d.m = (d.m / d.p) * d.p;
  const bool grid = std::bernoulli_distribution(0.5)(rng);
  auto time = [&](double lo, double hi) {
    const double x = std::uniform_real_distribution<double>(lo, hi)(rng);
    return grid ? std::round(x * 8e3) / 8e3 : x;
  };
  const auto cells = static_cast<size_t>(d.p * d.v);
  for (size_t x = 0; x < cells; ++x)
    d.f.push_back(time(1e-3, 4e-3)), d.b.push_back(time(2e-3, 8e-3));
  for (int i = 0; i < d.p; ++i)
    d.to_next.push_back(time(0, 2e-4)), d.to_previous.push_back(time(0, 2e-4));
  if (kind == 1)
    for (int i = 0; i < d.p; ++i)
      d.last_extra.push_back(time(0, 3e-3)), d.first_extra.push_back(time(0, 3e-3));
  if (kind == 2) {
    const int modes = pick(rng);
    d.mode = modes == 0   ? Zero3Prefetch::kPerPass
             : modes == 1 ? Zero3Prefetch::kPerMicroBatch
                          : Zero3Prefetch::kAcrossPasses;
    d.prefetch = std::bernoulli_distribution(0.8)(rng);
    const int layers = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int i = 0; i < d.p; ++i) {
      Zero3Stage z;
      for (int c = 0; c <= d.v; ++c)
        z.chunk_begin.push_back(static_cast<std::uint32_t>(c * layers));
      Zero3Block like;  // a chunk's layers alike, as a model's are
      like.f = time(2e-4, 1e-3), like.b = 2 * like.f, like.f_tp = 0.1 * like.f,
      like.b_tp = 0.1 * like.b;
      like.g = time(1e-4, 1.2e-3), like.g_share = 0.1, like.r = like.g, like.r_share = 0.1;
      for (int x = 0; x < d.v * layers; ++x) z.blocks.push_back(like);
      if (std::bernoulli_distribution(0.5)(rng)) {  // FP8 delayed scaling's amax reduction
        z.amax_fwd = z.amax_bwd = Zero3Amax{time(0, 2e-5), time(0, 4e-5), time(0, 2e-5)};
        z.amax_chunk.assign(static_cast<size_t>(d.v), 1);
      }
      d.zero3.push_back(z);
    }
    for (size_t x = 0; x < cells; ++x)
      d.f_extra.push_back(time(0, 1e-4)), d.b_extra.push_back(time(0, 1e-4));
  }
  return d;
}

TEST(OrderWalkPeriodic, SharedStepsGiveTheThreeRunsEndsBitForBit) {
  std::mt19937_64 rng(20261208);
  int extended = 0, cases = 0;
  for (int kind = 0; kind < 3; ++kind)
    for (int n = 0; n < 150; ++n) {
      const Drawn d = draw(rng, kind);
      const ChunkOrder o = d.order();
      std::vector<double> ends, first, want_ends, want_first;
      const std::int64_t m1 = chunk_order_periodic(o, d.m, ends, first);
      const std::int64_t want_m1 = three_apart(o, d.m, want_ends, want_first);
      SCOPED_TRACE("kind " + std::to_string(kind) + " case " + std::to_string(n) + ": p " +
                   std::to_string(d.p) + " v " + std::to_string(d.v) + " m " + std::to_string(d.m) +
                   " schedule " + std::string(schedule_name(d.schedule)));
      ASSERT_EQ(m1, want_m1);
      ASSERT_EQ(ends.size(), want_ends.size());
      for (size_t i = 0; i < ends.size(); ++i) EXPECT_EQ(ends[i], want_ends[i]) << "end " << i;
      ASSERT_EQ(first, want_first);
      ++cases, extended += m1 < d.m;
    }
  // Most orders settle into their period (the shared walk's case).
  EXPECT_GT(extended, cases / 2);
}

// Twice in a row with other orders between (the kept steps and shared
// prefixes reused): the same ends.
TEST(OrderWalkPeriodic, KeptStepsServeAgain) {
  std::mt19937_64 rng(7);
  std::vector<Drawn> drawn;
  for (int n = 0; n < 12; ++n) drawn.push_back(draw(rng, n % 3));
  std::vector<std::vector<double>> once;
  for (const Drawn& d : drawn) {
    std::vector<double> ends, first;
    chunk_order_periodic(d.order(), d.m, ends, first);
    once.push_back(ends);
  }
  for (size_t x = drawn.size(); x-- > 0;) {
    std::vector<double> ends, first;
    chunk_order_periodic(drawn[x].order(), drawn[x].m, ends, first);
    EXPECT_EQ(ends, once[x]) << "order " << x;
  }
}

}  // namespace
}  // namespace brigade::cost::detail

namespace brigade::cost::detail {
namespace {

// FP8 delayed scaling's amax reduction ends each ZeRO-3 pass as compute
// (zero3_pass): the stage's next gathers wait for it, and beside the data
// stream's runs its kernels are slowed and its AllReduce is not. Worked by
// hand: 1F1B, two stages, one micro-batch, a block a stage (forward 1,
// backward 2, a gather and a reduce-scatter of 0.5 each, the reduce-
// scatter taking half the SMs), the reduction 0.1 + 0.2 (its AllReduce) +
// 0.1 each way, nothing prefetched.
//   stage 0, forward: gather [0, 0.5], block [0.5, 1.5], reduction to 1.9.
//   stage 1, forward: from 1.9, block to 2.9, reduction to 3.3; backward:
//     gather [3.3, 3.8], block [3.8, 5.8], reduce-scatter [5.8, 6.3]
//     beside the reduction: 0.1 at half rate to 6.0, the AllReduce to 6.2,
//     0.05 of the last 0.1 by 6.3 and the rest at the whole rate: 6.35.
//   stage 0, backward: from 6.35, block to 8.35, reduce-scatter [8.35,
//     8.85], the reduction 8.55, 8.75, then 0.05 by 8.85 and 0.05: 8.9.
// (With the reduction after the pass unslowed, as the walk had it, stage
// 1's backward ended at 6.2 and stage 0's at 8.75.)
TEST(OrderWalkZero3, AmaxReductionEndsEachPassBesideTheDataStream) {
  Zero3Stage z;
  Zero3Block blk;
  blk.f = 1, blk.b = 2, blk.g = 0.5, blk.r = 0.5, blk.r_share = 0.5;
  z.blocks = {blk};
  z.chunk_begin = {0, 1};
  z.amax_fwd = z.amax_bwd = Zero3Amax{0.1, 0.2, 0.1};
  z.amax_chunk = {1};
  const std::vector<Zero3Stage> stages = {z, z};
  const std::vector<double> f = {1, 1}, b = {2, 2}, zero = {0, 0};
  ChunkOrder o{PipelineSchedule::k1F1B, 2, 1, f, b, zero, zero, {}, {}, {}, {}};
  o.zero3 = stages, o.f_extra = zero, o.b_extra = zero;
  o.mode = Zero3Prefetch::kPerPass, o.prefetch = false;
  std::vector<double> ends;
  chunk_order_ends(o, 1, ends);
  ASSERT_EQ(ends.size(), 4u);
  EXPECT_NEAR(ends[0], 8.9, 1e-12);   // stage 0's last backward
  EXPECT_NEAR(ends[1], 6.35, 1e-12);  // stage 1's
  EXPECT_NEAR(ends[2], 8.85, 1e-12);  // stage 0's data stream
  EXPECT_NEAR(ends[3], 6.3, 1e-12);
}

}  // namespace
}  // namespace brigade::cost::detail
