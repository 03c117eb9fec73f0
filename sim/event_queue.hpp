// Internal to sim/: the simulator's event queue.
//
// Order: by time, then by push order (a stable key: the same input pushes in
// the same order, so runs are deterministic). Events pushed with exactly the
// time of the most recent push share one bucket, so the thousands of events
// a collective step produces at one instant cost one heap entry: pushing is
// O(1) for them and popping a bucket is O(log buckets). A bucket's first
// event lives in its node (most buckets hold one); the rest spill into a
// recycled vector, taken only when a second event joins, so that handling a
// bucket of one event touches no spill vector. The most recent bucket's node
// waits outside the heap until a push of another time (it can still grow;
// its push order is the latest, so it comes after every node of its time in
// the heap). A warm queue does not allocate.
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
    if (open_ && time == last_.time) {
      if (last_.spill < 0) {
        last_.spill = new_spill();
        if (last_current_) current_spill_ = last_.spill;
      }
      spill_[static_cast<size_t>(last_.spill)].push_back(e);
      return;
    }
    if (waiting_) {
      heap_.push_back(last_);
      std::push_heap(heap_.begin(), heap_.end(), Later{});
    }
    last_ = Node{time, seq_++, e, -1};
    open_ = waiting_ = true;
    last_current_ = false;
  }
  bool empty() const { return heap_.empty() && !waiting_; }
  double top_time() const {
    return waiting_ && (heap_.empty() || last_.time < heap_.front().time) ? last_.time : heap_.front().time;
  }

  // Takes the earliest bucket and returns its first event; the rest are
  // extra(0), extra(1), ... up to extras() (re-read the count each time:
  // handling an event may push more events at the same time into this very
  // bucket, which keeps the (time, push order) order). Call release() when
  // done.
  Event pop() {
    if (waiting_ && (heap_.empty() || last_.time < heap_.front().time)) {
      waiting_ = false;
      last_current_ = true;
      current_spill_ = last_.spill;
      return last_.first;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Node n = heap_.back();
    heap_.pop_back();
    current_spill_ = n.spill;
    return n.first;
  }
  size_t extras() const {
    return current_spill_ < 0 ? 0 : spill_[static_cast<size_t>(current_spill_)].size();
  }
  Event extra(size_t i) const { return spill_[static_cast<size_t>(current_spill_)][i]; }
  void release() {
    if (current_spill_ >= 0) {
      spill_[static_cast<size_t>(current_spill_)].clear();
      free_.push_back(current_spill_);
      current_spill_ = -1;
    }
    if (last_current_) open_ = last_current_ = false;  // no more events join it
  }

  // Whether an event of the next bucket (the one pop() would take)
  // satisfies `pred`; the queue is left as it is.
  template <class Pred>
  bool next_bucket_has(Pred&& pred) const {
    const Node& n = waiting_ && (heap_.empty() || last_.time < heap_.front().time) ? last_ : heap_.front();
    if (pred(n.first)) return true;
    if (n.spill >= 0)
      for (const Event e : spill_[static_cast<size_t>(n.spill)])
        if (pred(e)) return true;
    return false;
  }

 private:
  struct Node {
    double time;
    std::uint64_t seq;
    Event first;
    std::int32_t spill;  // index into spill_ of its further events, -1: none
  };
  struct Later {
    bool operator()(const Node& a, const Node& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::int32_t new_spill() {
    if (!free_.empty()) {
      const std::int32_t b = free_.back();
      free_.pop_back();
      return b;
    }
    spill_.emplace_back();
    return static_cast<std::int32_t>(spill_.size()) - 1;
  }
  std::vector<Node> heap_;  // every bucket not yet taken but the most recent
  Node last_{};             // the most recent bucket
  bool waiting_ = false;    // last_ is not taken yet and not in heap_
  bool open_ = false;       // events of last_'s time join last_
  bool last_current_ = false;  // last_ is the bucket taken (being handled)
  std::int32_t current_spill_ = -1;  // the taken bucket's further events
  std::vector<std::vector<Event>> spill_;
  std::vector<std::int32_t> free_;
  std::uint64_t seq_ = 0;
};

}  // namespace brigade::sim
