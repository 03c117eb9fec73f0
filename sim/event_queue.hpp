// Internal to sim/: the simulator's event queue.
//
// Order: by time, then by push order (a stable key: the same input pushes in
// the same order, so runs are deterministic). Events pushed with exactly the
// time of the most recent push share one bucket, so the thousands of events
// a collective step produces at one instant cost one heap entry: pushing is
// O(1) for them and popping a bucket is O(log buckets). A bucket's first
// event lives in its heap entry (most buckets hold one); the rest spill into
// a recycled vector. A warm queue does not allocate.
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
    if (last_open_ && time == last_time_) {
      extra_[static_cast<size_t>(last_bucket_)].push_back(e);
      return;
    }
    std::int32_t b;
    if (!free_.empty()) {
      b = free_.back();
      free_.pop_back();
    } else {
      b = static_cast<std::int32_t>(extra_.size());
      extra_.emplace_back();
    }
    heap_.push_back(Node{time, seq_++, e, b});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    last_open_ = true;
    last_bucket_ = b;
    last_time_ = time;
  }
  bool empty() const { return heap_.empty(); }
  double top_time() const { return heap_.front().time; }

  // The earliest bucket: its first event inline, the rest in extra(bucket)
  // (re-read the vector each time: handling an event may push more events at
  // the same time into this very bucket, which keeps the (time, push order)
  // order). Call release(bucket) when done.
  struct Bucket {
    Event first;
    std::int32_t bucket;
  };
  Bucket pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Node n = heap_.back();
    heap_.pop_back();
    return Bucket{n.first, n.bucket};
  }
  const std::vector<Event>& extra(std::int32_t b) const { return extra_[static_cast<size_t>(b)]; }
  void release(std::int32_t b) {
    extra_[static_cast<size_t>(b)].clear();
    free_.push_back(b);
    if (last_bucket_ == b) last_open_ = false;
  }

 private:
  struct Node {
    double time;
    std::uint64_t seq;
    Event first;
    std::int32_t bucket;
  };
  struct Later {
    bool operator()(const Node& a, const Node& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::vector<Node> heap_;
  std::vector<std::vector<Event>> extra_;  // events after a bucket's first
  std::vector<std::int32_t> free_;
  bool last_open_ = false;  // the most recent bucket can still take events
  std::int32_t last_bucket_ = -1;
  double last_time_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace brigade::sim
