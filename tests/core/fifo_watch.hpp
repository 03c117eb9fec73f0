// A watch on a FIFO that a test hands to a reader which must refuse it at
// once: after `patience`, a helper opens the FIFO's writing end without
// blocking. That succeeds only if someone is still waiting to read it (a
// reader that opened it with a plain open(2) and blocks until a writer
// comes), and it also ends that wait, so a regression fails the test
// instead of hanging it.
//   FifoWatch watch(path);
//   auto r = read_it(path);
//   EXPECT_FALSE(watch.someone_waited());
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace brigade::testing {

class FifoWatch {
 public:
  explicit FifoWatch(std::string path,
                     std::chrono::milliseconds patience = std::chrono::milliseconds(5000))
      : path_(std::move(path)), helper_([this, patience] {
          const auto until = std::chrono::steady_clock::now() + patience;
          while (!done_ && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          if (done_) return;
          const int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK);
          if (fd >= 0) {
            someone_waited_ = true;
            ::close(fd);
          }
        }) {}
  FifoWatch(const FifoWatch&) = delete;
  FifoWatch& operator=(const FifoWatch&) = delete;
  ~FifoWatch() { stop(); }

  // Stops the helper; true if it found someone waiting on the FIFO.
  bool someone_waited() {
    stop();
    return someone_waited_;
  }

 private:
  void stop() {
    done_ = true;
    if (helper_.joinable()) helper_.join();
  }

  std::string path_;
  std::atomic<bool> done_{false}, someone_waited_{false};
  std::thread helper_;
};

}  // namespace brigade::testing
