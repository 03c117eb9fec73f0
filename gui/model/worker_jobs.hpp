// Work on threads of their own for the app's views (the scaling sweep, the
// compare view's second run): a job is asked to stop through `cancel` and
// joined when destroyed, so its owner can drop it at any time; the worker
// fills `out` under `mutex`, sets `done` last and reports by id (the owner
// re-checks the id on its thread: a retired job's report is stale).
// Thread safety: WorkerJobs is the owner's (the GUI thread's) alone.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace brigade::gui {

template <class Out>
struct WorkerJob {
  WorkerJob() = default;
  WorkerJob(const WorkerJob&) = delete;
  WorkerJob& operator=(const WorkerJob&) = delete;
  ~WorkerJob() {
    cancel = true;
    if (thread.joinable()) thread.join();
  }
  std::thread thread;
  std::atomic<bool> cancel{false};
  std::atomic<bool> done{false};
  std::uint64_t id = 0;
  std::mutex mutex;
  Out out;
};

// The owner's current job and the retired ones whose workers may still run.
template <class Out>
class WorkerJobs {
 public:
  using Job = WorkerJob<Out>;

  // Retires the current job and makes a new one, with the next id (1, 2, ...);
  // the caller starts its thread.
  Job& start() {
    retire();
    current_ = std::make_unique<Job>();
    current_->id = next_id_++;
    return *current_;
  }
  Job* current() const { return current_.get(); }
  // Asks the current job to stop; it is joined once its worker has ended.
  void retire() {
    if (!current_) return;
    current_->cancel = true;
    retired_.push_back(std::move(current_));
  }
  // Joins the retired jobs whose workers have ended.
  void reap() {
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                  [](const std::unique_ptr<Job>& j) { return j->done.load(); }),
                   retired_.end());
  }
  // The current job, handed over (it joins when dropped): for when it is done.
  std::unique_ptr<Job> take() { return std::move(current_); }

 private:
  std::unique_ptr<Job> current_;
  std::vector<std::unique_ptr<Job>> retired_;
  std::uint64_t next_id_ = 1;
};

}  // namespace brigade::gui
