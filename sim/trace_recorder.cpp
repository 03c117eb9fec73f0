#include "sim/trace_recorder.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace brigade::sim {

void TraceRecorder::start(Mode mode, const Program& program, const Topology& topology,
                          std::string source, const TraceFilter& filter, bool merge_steps) {
  mode_ = mode;
  merge_ = merge_steps;
  last_of_.clear();
  trace_ = Trace{};
  channels_ = topology.num_channels();
  const auto nd = static_cast<std::size_t>(program.num_devices);
  const bool filtered = mode == Mode::kFull;  // the isolated runs keep everything
  all_devices_ = !filtered || filter.devices.empty();
  keep_.assign(all_devices_ ? 0 : nd, 0);
  if (!all_devices_)
    for (std::int32_t d : filter.devices)
      if (d >= 0 && static_cast<std::size_t>(d) < nd) keep_[static_cast<std::size_t>(d)] = 1;
  lo_ = filtered ? filter.start_seconds : -std::numeric_limits<double>::infinity();
  hi_ = filtered ? filter.end_seconds : std::numeric_limits<double>::infinity();
  if (mode != Mode::kFull) return;
  trace_.source = std::move(source);
  trace_.program = program.name;
  trace_.filter = filter.str();
  trace_.device_names.reserve(nd);
  for (std::size_t d = 0; d < nd; ++d)
    trace_.device_names.push_back(topology.device(static_cast<int>(d)).name);
  trace_.streams = program.streams();
  trace_.lanes.reserve(static_cast<std::size_t>(channels_));
  for (ChannelId c = 0; c < channels_; ++c)
    trace_.lanes.push_back(topology.vertex_name(topology.channel_from(c)) + "->" +
                           topology.vertex_name(topology.channel_to(c)));
  trace_.names = program.names();
  last_sample_.assign(nd * kNumMemoryCategories, -1);
}

void TraceRecorder::reserve(std::size_t spans, std::size_t transfers) {
  if (mode_ == Mode::kOff) return;
  // A device filter keeps about its share; a window, an unknown share (the
  // vectors grow as they must).
  double share = 1;
  if (!all_devices_ && !keep_.empty()) {
    std::size_t kept = 0;
    for (std::uint8_t k : keep_) kept += k;
    share = static_cast<double>(kept) / static_cast<double>(keep_.size());
  }
  const bool windowed = lo_ > 0 || hi_ != std::numeric_limits<double>::infinity();
  if (windowed) return;
  if (mode_ == Mode::kFull)
    trace_.spans.reserve(static_cast<std::size_t>(share * static_cast<double>(spans)) + 1);
  // A transfer is kept when either end is: at most twice the share. Merged
  // messages: no estimate (they grow as they must).
  if (merge_) return;
  trace_.transfers.reserve(
      static_cast<std::size_t>(std::min(1.0, 2 * share) * static_cast<double>(transfers)) + 1);
}

bool TraceRecorder::merge(TaskId task, std::int32_t src, std::int32_t dst, double bytes,
                          double start_seconds, double end_seconds, ChannelId lane) {
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(task)) << 32) |
                            static_cast<std::uint32_t>(dst);
  auto [it, fresh] = last_of_.try_emplace(key, static_cast<std::uint32_t>(trace_.transfers.size()));
  if (!fresh) {
    TraceTransfer& last = trace_.transfers[it->second];
    if (last.end_seconds == start_seconds && last.src == src && last.lane == lane) {
      last.end_seconds = end_seconds;
      last.bytes += bytes;
      return true;
    }
    it->second = static_cast<std::uint32_t>(trace_.transfers.size());
  }
  return false;  // the caller appends it at the index just recorded
}

void TraceRecorder::memory(std::int32_t device, MemoryCategory category, double now, double bytes) {
  if (mode_ != Mode::kFull || !keeps_device(device) || now > hi_) return;
  const auto key =
      static_cast<std::size_t>(device) * kNumMemoryCategories + static_cast<std::size_t>(category);
  std::int32_t& idx = last_sample_[key];
  if (idx >= 0) {
    MemorySample& last = trace_.memory[static_cast<std::size_t>(idx)];
    if (last.time_seconds == now) {
      last.bytes = bytes;
      return;
    }
    if (now < lo_) {  // before the window: the series' value when it opens
      last.time_seconds = now;
      last.bytes = bytes;
      return;
    }
  }
  idx = static_cast<std::int32_t>(trace_.memory.size());
  trace_.memory.push_back(MemorySample{device, category, now, bytes});
}

}  // namespace brigade::sim
