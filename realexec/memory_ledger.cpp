#include "realexec/memory_ledger.hpp"

#include "core/units.hpp"

namespace brigade::realexec {

MemoryLedger::MemoryLedger(const Program& program, const Topology& topology, std::string backend,
                           double host_limit_bytes, bool host_counts_buffers)
    : program_(program),
      topology_(topology),
      backend_(std::move(backend)),
      host_limit_bytes_(host_limit_bytes),
      host_counts_buffers_(host_counts_buffers),
      device_bytes_(static_cast<size_t>(program.num_devices), 0.0),
      category_bytes_(static_cast<size_t>(program.num_devices),
                      std::vector<double>(kNumMemoryCategories, 0.0)),
      live_(program.buffers().size(), 0) {}

std::string MemoryLedger::task_label(TaskId t) const {
  if (t < 0) return "resident";
  std::string s = "task " + std::to_string(t);
  const auto name = program_.task_name(t);
  if (!name.empty()) s += " '" + std::string(name) + "'";
  return s;
}

Status MemoryLedger::reserve(BufferId b, TaskId by, double time_seconds) {
  const Buffer& buf = program_.buffers()[static_cast<size_t>(b)];
  const auto dev = static_cast<size_t>(buf.device);
  const Device& device = topology_.device(buf.device);
  std::lock_guard<std::mutex> lock(mu_);
  const std::string who = "buffer '" + buf.name + "' (" + task_label(by) + ")";
  if (device.memory_bytes > 0 && device_bytes_[dev] + buf.bytes > device.memory_bytes)
    return Status::error(backend_ + ": out of memory on device " + std::to_string(buf.device) +
                             " '" + device.name + "': " + who + " needs " +
                             format_bytes(buf.bytes) + "; " + format_bytes(device_bytes_[dev]) +
                             " of " + format_bytes(device.memory_bytes) + " are in use",
                         ErrorKind::kBadInput);
  if (host_counts_buffers_ && host_limit_bytes_ > 0 && host_bytes_ + buf.bytes > host_limit_bytes_)
    return Status::error(backend_ + ": host memory limit reached: " + who + " on device " +
                             std::to_string(buf.device) + " '" + device.name + "' needs " +
                             format_bytes(buf.bytes) + "; " + format_bytes(host_bytes_) +
                             " of the " + format_bytes(host_limit_bytes_) + " limit are in use",
                         ErrorKind::kBadInput);
  device_bytes_[dev] += buf.bytes;
  if (host_counts_buffers_) host_bytes_ += buf.bytes;
  double& cat = category_bytes_[dev][static_cast<size_t>(buf.category)];
  cat += buf.bytes;
  live_[static_cast<size_t>(b)] = 1;
  samples_.push_back(MemorySample{buf.device, buf.category, time_seconds, cat});
  return Status::ok();
}

void MemoryLedger::release(BufferId b, double time_seconds) {
  const Buffer& buf = program_.buffers()[static_cast<size_t>(b)];
  const auto dev = static_cast<size_t>(buf.device);
  std::lock_guard<std::mutex> lock(mu_);
  if (!live_[static_cast<size_t>(b)]) return;
  live_[static_cast<size_t>(b)] = 0;
  device_bytes_[dev] -= buf.bytes;
  if (host_counts_buffers_) host_bytes_ -= buf.bytes;
  double& cat = category_bytes_[dev][static_cast<size_t>(buf.category)];
  cat -= buf.bytes;
  samples_.push_back(MemorySample{buf.device, buf.category, time_seconds, cat});
}

Status MemoryLedger::reserve_workspace(int device, double bytes, const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  if (host_limit_bytes_ > 0 && host_bytes_ + bytes > host_limit_bytes_)
    return Status::error(backend_ + ": host memory limit reached: " + what + " on device " +
                             std::to_string(device) + " '" + topology_.device(device).name +
                             "' need " + format_bytes(bytes) + "; " + format_bytes(host_bytes_) +
                             " of the " + format_bytes(host_limit_bytes_) + " limit are in use",
                         ErrorKind::kBadInput);
  host_bytes_ += bytes;
  return Status::ok();
}

bool MemoryLedger::is_live(BufferId b) const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_[static_cast<size_t>(b)] != 0;
}

std::vector<MemorySample> MemoryLedger::take_samples() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<MemorySample> out;
  out.swap(samples_);
  return out;
}

void MemoryLedger::restart_samples(double time_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  samples_.clear();
  for (size_t d = 0; d < category_bytes_.size(); ++d)
    for (int c = 0; c < kNumMemoryCategories; ++c)
      if (category_bytes_[d][static_cast<size_t>(c)] > 0)
        samples_.push_back(MemorySample{static_cast<std::int32_t>(d),
                                        static_cast<MemoryCategory>(c), time_seconds,
                                        category_bytes_[d][static_cast<size_t>(c)]});
}

double MemoryLedger::host_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return host_bytes_;
}

}  // namespace brigade::realexec
