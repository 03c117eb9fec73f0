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
//
// The buckets not yet taken are kept in a radix heap (Ahuja, Mehlhorn, Orlin
// and Tarjan, "Faster algorithms for the shortest path problem", J. ACM
// 37(2), 1990), which works because the simulator's clock never goes back:
// a bucket's key is its time's bits (ordered as the times are), and a
// bucket sits in the list numbered by the highest bit in which its key
// differs from the last minimum taken; taking the minimum redistributes one
// list into lower ones, so each bucket moves at most 64 times and mostly
// once or twice. On the 405B plan the binary heap it replaces held ~10^5
// buckets and its pops were the event loop's largest single cost
// (docs/PERFORMANCE.md). Times earlier than the last minimum (no caller
// pushes any; kept exact all the same) wait in a small binary heap of their
// own, which comes first.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
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
    if (waiting_) heap_.push(last_);
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
    const Node n = heap_.pop();
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
  // Nodes by (time, seq); pushed in increasing seq (see push).
  class RadixHeap {
   public:
    bool empty() const { return size_ == 0; }
    const Node& front() const {
      if (!past_.empty()) return past_.front();
      if (head_ < b0_.size()) return b0_[head_];
      const size_t i = lowest_list();
      return lists_[i][min_at_[i]];
    }
    void push(const Node& n) {
      const std::uint64_t k = key(n.time);
      if (size_++ == 0) {
        last_ = k;
        b0_.clear();
        head_ = 0;
        b0_.push_back(n);
      } else if (k < last_) {
        past_.push_back(n);
        std::push_heap(past_.begin(), past_.end(), Later{});
      } else if (k == last_) {
        b0_.push_back(n);  // the latest seq: after every node of its time
      } else {
        to_list(n, k);
      }
    }
    Node pop() {
      --size_;
      if (!past_.empty()) {
        std::pop_heap(past_.begin(), past_.end(), Later{});
        const Node n = past_.back();
        past_.pop_back();
        return n;
      }
      if (head_ == b0_.size()) take_lowest_list();
      return b0_[head_++];
    }

   private:
    // Times as ordered keys: the bits of a double, the sign bit flipped for
    // positive ones and all bits for negative ones; -0 as +0 (they are the
    // same time).
    static std::uint64_t key(double t) {
      if (t == 0) t = 0;
      std::uint64_t b = 0;
      std::memcpy(&b, &t, sizeof b);
      return (b >> 63) != 0 ? ~b : b | (std::uint64_t{1} << 63);
    }
    // Lists 1..64; list i holds keys whose highest bit differing from last_
    // is bit i - 1 (all of them above last_, and below every key of a
    // higher list).
    size_t index(std::uint64_t k) const { return 64 - static_cast<size_t>(std::countl_zero(k ^ last_)); }
    size_t lowest_list() const { return static_cast<size_t>(std::countr_zero(nonempty_)) + 1; }
    void to_list(const Node& n, std::uint64_t k) {
      const size_t i = index(k);
      auto& l = lists_[i];
      if (l.empty()) {
        nonempty_ |= std::uint64_t{1} << (i - 1);
        min_key_[i] = k;
        min_at_[i] = 0;
      } else if (k < min_key_[i] || (k == min_key_[i] && n.seq < l[min_at_[i]].seq)) {
        min_key_[i] = k;
        min_at_[i] = l.size();
      }
      l.push_back(n);
    }
    // The nodes of the last minimum's time used up: the clock moves to the
    // lowest list's minimum, and that list's nodes move to lower lists
    // (those of that time to b0_, in seq order).
    void take_lowest_list() {
      const size_t i = lowest_list();
      b0_.clear();
      head_ = 0;
      last_ = min_key_[i];
      // The list's nodes to scratch_, and the buffer that comes back (the
      // last list taken's) freed: a list's buffer then never holds more
      // than twice what the list held since it was last taken; kept, the
      // 64 lists' buffers grew to 26 times the most nodes ever waiting on
      // the 405B plan (240 MB).
      scratch_.swap(lists_[i]);
      std::vector<Node>().swap(lists_[i]);
      nonempty_ &= ~(std::uint64_t{1} << (i - 1));
      for (const Node& n : scratch_) {
        const std::uint64_t k = key(n.time);
        if (k == last_) b0_.push_back(n);
        else to_list(n, k);
      }
      scratch_.clear();
      if (b0_.size() > 1)
        std::sort(b0_.begin(), b0_.end(), [](const Node& a, const Node& b) { return a.seq < b.seq; });
    }
    size_t size_ = 0;
    std::uint64_t last_ = 0;  // the key of the last minimum taken (the clock)
    std::vector<Node> b0_;    // nodes of that key, in seq order, from head_
    size_t head_ = 0;
    std::array<std::vector<Node>, 65> lists_;
    std::uint64_t nonempty_ = 0;  // bit i - 1: list i holds nodes
    std::array<std::uint64_t, 65> min_key_{};  // per non-empty list: its least key
    std::array<size_t, 65> min_at_{};          // and where (the earliest seq of that key)
    std::vector<Node> scratch_;
    std::vector<Node> past_;  // keys below last_: a binary heap
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
  RadixHeap heap_;  // every bucket not yet taken but the most recent
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
