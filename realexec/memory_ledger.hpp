// Book-keeping of what a real run holds, per device and memory category,
// against two limits: each device's capacity (Device::memory_bytes, the plan's
// promise) for the Program's buffers, and a host safety limit for everything
// the run allocates on the host (Program buffers and kernel workspaces on the
// CPU backend; nothing on the CUDA backend, whose buffers live on the GPUs).
// The messages are part of the interface (tests assert them exactly):
//   "cpu backend: out of memory on device 1 'cpu1': buffer 'act' (task 4 'fwd')
//    needs 1.00 GiB; 3.50 GiB of 4.00 GiB are in use"
// Thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/program.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "core/trace.hpp"

namespace brigade::realexec {

class MemoryLedger {
 public:
  // `backend` prefixes messages ("cpu backend"); host_limit_bytes <= 0: none.
  MemoryLedger(const Program& program, const Topology& topology, std::string backend,
               double host_limit_bytes, bool host_counts_buffers);

  // Reserves buffer `b` for task `by` (-1: resident) at `time_seconds`.
  // Fails (nothing reserved) when the device or the host limit would be exceeded.
  Status reserve(BufferId b, TaskId by, double time_seconds);
  // Releases buffer `b` (reserved before) at `time_seconds`.
  void release(BufferId b, double time_seconds);
  // Reserves host memory for a kernel workspace of a device ("GEMM operands of stream 'compute'").
  Status reserve_workspace(int device, double bytes, const std::string& what);

  bool is_live(BufferId b) const;
  // Memory samples recorded so far (a step function per device and category).
  std::vector<MemorySample> take_samples();
  // Drops samples and restarts the time line (the live state is kept).
  void restart_samples(double time_seconds);
  double host_bytes() const;

 private:
  std::string task_label(TaskId t) const;
  const Program& program_;
  const Topology& topology_;
  std::string backend_;
  double host_limit_bytes_;
  bool host_counts_buffers_;
  mutable std::mutex mu_;
  std::vector<double> device_bytes_;                 // live Program buffers per device
  std::vector<std::vector<double>> category_bytes_;  // [device][category]
  std::vector<char> live_;
  double host_bytes_ = 0;
  std::vector<MemorySample> samples_;
};

}  // namespace brigade::realexec
