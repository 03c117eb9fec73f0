// The simulator's event queue (sim/event_queue.hpp): events come out by
// time, then by push order, whatever the heap's shape; events pushed at the
// time of the most recent push share its bucket, and events pushed while a
// bucket is handled at its own time join that bucket.
#include "sim/event_queue.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

namespace brigade::sim {
namespace {

// Pops every bucket (its first event and its extras), in order.
std::vector<std::uint32_t> drain(EventQueue& q) {
  std::vector<std::uint32_t> out;
  while (!q.empty()) {
    out.push_back(q.pop().id);
    for (size_t i = 0; i < q.extras(); ++i) out.push_back(q.extra(i).id);
    q.release();
  }
  return out;
}

TEST(EventQueue, PopsByTimeThenByPushOrder) {
  // Hand-made: times 3, 1, 2, 1 (a new bucket: not the most recent push's
  // time), 1 (joins the previous push's bucket), 0.5.
  EventQueue q;
  q.push(3.0, Event{0, 0});
  q.push(1.0, Event{1, 0});
  q.push(2.0, Event{2, 0});
  q.push(1.0, Event{3, 0});
  q.push(1.0, Event{4, 0});
  q.push(0.5, Event{5, 0});
  EXPECT_EQ(drain(q), (std::vector<std::uint32_t>{5, 1, 3, 4, 2, 0}));
}

TEST(EventQueue, MinusZeroIsTheSameTimeAsZero) {
  EventQueue q;
  q.push(0.0, Event{0, 0});
  q.push(1.0, Event{1, 0});
  q.push(-0.0, Event{2, 0});  // time 0, pushed after the first: after it
  q.push(2.0, Event{3, 0});
  EXPECT_EQ(drain(q), (std::vector<std::uint32_t>{0, 2, 1, 3}));
}

TEST(EventQueue, MatchesASortByTimeAndPushOrderOnRandomPushesAndPops) {
  // Random interleavings of pushes and pops over few distinct times (many
  // ties) and many buckets (a deep heap), times from 0 (+0 and -0) to large
  // ones, against a sorted list of
  // (time, push number). A pop takes the earliest bucket; its events are
  // those of its time pushed back to back.
  std::mt19937 rng(20261202);
  for (int round = 0; round < 20; ++round) {
    EventQueue q;
    std::set<std::tuple<double, std::uint64_t, std::uint32_t>> ref;  // pending, in order
    std::uint64_t pushes = 0;
    double now = 0;
    std::vector<std::uint32_t> got, want;
    const int distinct = round % 2 == 0 ? 7 : 100000;
    for (int op = 0; op < 20000; ++op) {
      if (ref.empty() || rng() % 3 != 0) {
        // Now and later, and now and then earlier than now (which the
        // simulator never pushes; the queue keeps the order all the same).
        const double t = now + static_cast<double>(rng() % static_cast<unsigned>(distinct)) -
                         (rng() % 50 == 0 ? static_cast<double>(rng() % 4) : 0.0);
        const auto id = static_cast<std::uint32_t>(pushes);
        q.push(t, Event{id, 0});
        ref.emplace(t, pushes++, id);
        continue;
      }
      // Pop one bucket from both.
      now = std::get<0>(*ref.begin());
      EXPECT_EQ(q.top_time(), now);
      got.push_back(q.pop().id);
      for (size_t i = 0; i < q.extras(); ++i) got.push_back(q.extra(i).id);
      q.release();
      // The bucket: the earliest event and those of its time pushed right
      // after it with no push of another time in between.
      auto it = ref.begin();
      want.push_back(std::get<2>(*it));
      for (auto next = std::next(it);
           next != ref.end() && std::get<0>(*next) == now && std::get<1>(*next) == std::get<1>(*it) + 1;
           it = next++)
        want.push_back(std::get<2>(*next));
      ref.erase(ref.begin(), std::next(it));
    }
    ASSERT_EQ(got, want) << "round " << round;
  }
}

TEST(EventQueue, APushAtTheTimeOfTheMostRecentBucketWhileItIsHandledJoinsIt) {
  // The bucket of time 1 is the most recent push's: taken, it still takes
  // events of its time (handling an event may push more at the same
  // instant), which keeps (time, push order).
  EventQueue q;
  q.push(2.0, Event{2, 0});
  q.push(1.0, Event{1, 0});
  EXPECT_EQ(q.pop().id, 1u);
  q.push(1.0, Event{3, 0});
  ASSERT_EQ(q.extras(), 1u);
  EXPECT_EQ(q.extra(0).id, 3u);
  q.release();
  q.push(2.0, Event{4, 0});  // after release: a bucket of its own, after 2's
  EXPECT_EQ(drain(q), (std::vector<std::uint32_t>{2, 4}));
}

}  // namespace
}  // namespace brigade::sim
