#include "gui/model/memory_series.hpp"

#include <algorithm>
#include <cmath>

#include "gui/model/model_tr.hpp"

namespace brigade::gui {

double MemoryStack::total_at_index(size_t i) const {
  double s = 0;
  for (const auto& b : bytes) s += b[i];
  return s;
}

bool MemoryStack::has_category(MemoryCategory c) const {
  for (double v : bytes[static_cast<size_t>(c)])
    if (v != 0) return true;
  return false;
}

MemoryStack memory_stack(const Trace& trace, int device) {
  MemoryStack s;
  s.device = device;
  std::vector<const MemorySample*> mine;
  for (const MemorySample& m : trace.memory)
    if (m.device == device) mine.push_back(&m);
  // Simulator traces are in time order already; a foreign trace need not be.
  std::stable_sort(mine.begin(), mine.end(), [](const MemorySample* a, const MemorySample* b) {
    return a->time_seconds < b->time_seconds;
  });
  CategoryBytes live{};
  for (size_t i = 0; i < mine.size(); ++i) {
    const MemorySample& m = *mine[i];
    live[static_cast<size_t>(m.category)] = m.bytes;
    // Merge samples at one time: push once, after the last of them.
    if (i + 1 < mine.size() && mine[i + 1]->time_seconds == m.time_seconds) continue;
    s.times_seconds.push_back(m.time_seconds);
    double total = 0;
    for (size_t c = 0; c < live.size(); ++c) {
      s.bytes[c].push_back(live[c]);
      total += live[c];
    }
    if (s.times_seconds.size() == 1 || total > s.peak_bytes) {
      s.peak_bytes = total;
      s.peak_time_seconds = m.time_seconds;
    }
  }
  return s;
}

CategoryBytes live_at(const MemoryStack& stack, double t) {
  CategoryBytes out{};
  const auto it = std::upper_bound(stack.times_seconds.begin(), stack.times_seconds.end(), t);
  if (it == stack.times_seconds.begin()) return out;
  const auto i = static_cast<size_t>(it - stack.times_seconds.begin() - 1);
  for (size_t c = 0; c < out.size(); ++c) out[c] = stack.bytes[c][i];
  return out;
}

std::vector<double> peak_bytes_by_device(const Trace& trace) {
  int devices = static_cast<int>(trace.device_names.size());
  for (const MemorySample& m : trace.memory) devices = std::max(devices, m.device + 1);
  std::vector<double> peak(static_cast<size_t>(devices), 0.0);
  std::vector<CategoryBytes> live(static_cast<size_t>(devices), CategoryBytes{});
  std::vector<double> total(static_cast<size_t>(devices), 0.0);
  // In time order (stable: the trace's order among equal times).
  std::vector<const MemorySample*> order;
  order.reserve(trace.memory.size());
  bool sorted = true;
  for (size_t i = 0; i < trace.memory.size(); ++i) {
    order.push_back(&trace.memory[i]);
    if (i > 0 && trace.memory[i].time_seconds < trace.memory[i - 1].time_seconds) sorted = false;
  }
  if (!sorted)
    std::stable_sort(order.begin(), order.end(), [](const MemorySample* a, const MemorySample* b) {
      return a->time_seconds < b->time_seconds;
    });
  // A device's total counts once all its samples at one time are in (an
  // allocation and a free at one instant are no peak together).
  std::vector<size_t> touched;
  for (size_t i = 0; i < order.size(); ++i) {
    const MemorySample& m = *order[i];
    if (m.device < 0) continue;
    const auto d = static_cast<size_t>(m.device);
    double& slot = live[d][static_cast<size_t>(m.category)];
    total[d] += m.bytes - slot;
    slot = m.bytes;
    touched.push_back(d);
    if (i + 1 == order.size() || order[i + 1]->time_seconds != m.time_seconds) {
      for (size_t t : touched) peak[t] = std::max(peak[t], total[t]);
      touched.clear();
    }
  }
  return peak;
}

int device_with_highest_peak(const Trace& trace) {
  if (trace.memory.empty()) return -1;
  const std::vector<double> peak = peak_bytes_by_device(trace);
  return static_cast<int>(std::max_element(peak.begin(), peak.end()) - peak.begin());
}

MemoryStack reduce_points(const MemoryStack& stack, int bins) {
  if (bins < 1) bins = 1;
  const size_t n = stack.size();
  if (n <= static_cast<size_t>(2 * bins)) return stack;
  const double t0 = stack.times_seconds.front();
  const double span = stack.times_seconds.back() - t0;
  std::vector<char> keep(n, 0);
  keep.front() = keep.back() = 1;
  size_t i = 0;
  while (i < n) {
    const int bin =
        span > 0 ? std::min(bins - 1, static_cast<int>((stack.times_seconds[i] - t0) / span * bins))
                 : 0;
    size_t hi = i, lo = i;
    double hi_v = stack.total_at_index(i), lo_v = hi_v;
    size_t j = i + 1;
    for (; j < n; ++j) {
      const int b =
          span > 0
              ? std::min(bins - 1, static_cast<int>((stack.times_seconds[j] - t0) / span * bins))
              : 0;
      if (b != bin) break;
      const double v = stack.total_at_index(j);
      if (v > hi_v) hi_v = v, hi = j;
      if (v < lo_v) lo_v = v, lo = j;
    }
    keep[hi] = keep[lo] = 1;
    i = j;
  }
  MemoryStack out;
  out.device = stack.device;
  out.peak_bytes = stack.peak_bytes;
  out.peak_time_seconds = stack.peak_time_seconds;
  for (size_t k = 0; k < n; ++k) {
    if (!keep[k]) continue;
    out.times_seconds.push_back(stack.times_seconds[k]);
    for (size_t c = 0; c < out.bytes.size(); ++c) out.bytes[c].push_back(stack.bytes[c][k]);
  }
  return out;
}

std::optional<OomMark> oom_mark(const sim::SimResult& result, const Program* program,
                                const MemoryStack& stack) {
  for (const sim::OomEvent& e : result.oom) {
    if (e.device != stack.device) continue;
    OomMark m;
    m.time_seconds = e.time_seconds;
    if (e.task < 0)
      m.task = model_tr("MemorySeries", "resident buffers");
    else if (program)
      m.task = fill_args(model_tr("MemorySeries", "%1 (task %2)"),
                         {program->task_name(e.task), std::to_string(e.task)});
    else
      m.task = fill_args(model_tr("MemorySeries", "task %1"), {std::to_string(e.task)});
    m.live_bytes = e.live_bytes;
    m.capacity_bytes = e.capacity_bytes;
    m.live = live_at(stack, e.time_seconds);
    m.largest_buffers = e.largest_buffers;
    return m;
  }
  return std::nullopt;
}

std::uint32_t memory_category_rgb(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::kParams:
      return 0x4e79a7;  // blue
    case MemoryCategory::kGrads:
      return 0x59a14f;  // green
    case MemoryCategory::kOptimizer:
      return 0xb07aa1;  // purple
    case MemoryCategory::kActivations:
      return 0xf28e2b;  // orange
    case MemoryCategory::kCommBuffers:
      return 0x76b7b2;  // teal
    case MemoryCategory::kOther:
      return 0xbab0ac;  // grey
  }
  return 0xbab0ac;
}

std::string memory_category_label(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::kParams:
      return "parameters";
    case MemoryCategory::kGrads:
      return "gradients";
    case MemoryCategory::kOptimizer:
      return "optimizer state";
    case MemoryCategory::kActivations:
      return "activations";
    case MemoryCategory::kCommBuffers:
      return "communication buffers";
    case MemoryCategory::kOther:
      return "other";
  }
  return "other";
}

}  // namespace brigade::gui
