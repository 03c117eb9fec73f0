#include "realexec/clock.hpp"

#include <chrono>

namespace brigade::realexec {

double SteadyClock::now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double FakeClock::now_seconds() {
  return static_cast<double>(ns_.fetch_add(step_ns_)) * 1e-9;
}

}  // namespace brigade::realexec
