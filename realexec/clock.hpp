// The clock seam of the real executors: every timestamp a real executor puts
// in a Trace comes from a Clock, so that tests can substitute a FakeClock
// (Ninja's DiskInterface idea applied to time).
#pragma once

#include <atomic>
#include <cstdint>

namespace brigade::realexec {

// Seconds on a monotonic time line with an arbitrary origin. Implementations
// must be safe to call from many threads at once.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_seconds() = 0;
};

// std::chrono::steady_clock (CLOCK_MONOTONIC on Linux, nanosecond resolution).
class SteadyClock final : public Clock {
 public:
  double now_seconds() override;
};

// A clock that moves only when told: tick(dt) advances it by dt seconds, and
// every read advances it by `step_seconds` after returning (0: reads do not
// move it). With a positive step, reads are strictly increasing in the order
// they happen, so a trace taken with it shows the order in which the
// executor's threads observed events, without any dependence on speed.
// Thread-safe (an atomic count of nanoseconds).
class FakeClock final : public Clock {
 public:
  explicit FakeClock(double step_seconds = 0) : step_ns_(to_ns(step_seconds)) {}
  double now_seconds() override;
  void tick(double seconds) { ns_.fetch_add(to_ns(seconds)); }

 private:
  static std::int64_t to_ns(double s) { return static_cast<std::int64_t>(s * 1e9 + 0.5); }
  std::atomic<std::int64_t> ns_{0};
  std::int64_t step_ns_;
};

}  // namespace brigade::realexec
