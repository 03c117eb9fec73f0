// Internal to sim/: the simulator's event queue.
//
// Order: by time, then by push order (a stable key: the same input pushes in
// the same order, so runs are deterministic). Events pushed with exactly the
// time of the most recent push share one bucket, so the thousands of events
// a collective step produces at one instant cost one heap entry: pushing is
// O(1) for them and popping a bucket is O(log buckets). Buckets are recycled;
// a warm queue does not allocate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace brigade::sim {

struct Event {
  std::uint32_t id = 0;   // a task, flow slot, collective, ... depending on the kind
  std::uint32_t tag = 0;  // kind in the low 4 bits, a version above
};

class EventQueue {
 public:
  void push(double time, Event e) {
    if (last_bucket_ >= 0 && time == last_time_) {
      buckets_[static_cast<size_t>(last_bucket_)].push_back(e);
      return;
    }
    std::int32_t b;
    if (!free_.empty()) {
      b = free_.back();
      free_.pop_back();
    } else {
      b = static_cast<std::int32_t>(buckets_.size());
      buckets_.emplace_back();
    }
    buckets_[static_cast<size_t>(b)].push_back(e);
    heap_.push_back(Node{time, seq_++, b});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    last_bucket_ = b;
    last_time_ = time;
  }
  bool empty() const { return heap_.empty(); }
  double top_time() const { return heap_.front().time; }

  // Removes the earliest bucket from the heap and returns it. Its events are
  // read with bucket(b)[i] (re-read the vector each time: handling an event
  // may push more events at the same time into this very bucket, which keeps
  // the (time, push order) order). Call release(b) when done.
  std::int32_t pop_bucket() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const std::int32_t b = heap_.back().bucket;
    heap_.pop_back();
    return b;
  }
  const std::vector<Event>& bucket(std::int32_t b) const { return buckets_[static_cast<size_t>(b)]; }
  void release(std::int32_t b) {
    buckets_[static_cast<size_t>(b)].clear();
    free_.push_back(b);
    if (last_bucket_ == b) last_bucket_ = -1;
  }

 private:
  struct Node {
    double time;
    std::uint64_t seq;
    std::int32_t bucket;
  };
  struct Later {
    bool operator()(const Node& a, const Node& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::vector<Node> heap_;
  std::vector<std::vector<Event>> buckets_;
  std::vector<std::int32_t> free_;
  std::int32_t last_bucket_ = -1;
  double last_time_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace brigade::sim
