#include "core/run_figures.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <utility>

namespace brigade {
namespace {

using Intervals = std::vector<std::pair<double, double>>;

// Sorts and merges in place; returns the length of the union.
double merge(Intervals& v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  double total = 0;
  for (const auto& [s, e] : v) {
    if (!(e > s)) continue;
    if (!out.empty() && s <= out.back().second) {
      out.back().second = std::max(out.back().second, e);
    } else {
      out.emplace_back(s, e);
    }
  }
  for (const auto& [s, e] : out) total += e - s;
  v = std::move(out);
  return total;
}

// Length of a minus b, both merged (sorted, disjoint).
double minus(const Intervals& a, const Intervals& b) {
  double total = 0;
  size_t j = 0;
  for (const auto& [s, e] : a) {
    double cur = s;
    while (j < b.size() && b[j].second <= cur) ++j;
    for (size_t k = j; k < b.size() && b[k].first < e; ++k) {
      if (b[k].first > cur) total += b[k].first - cur;
      cur = std::max(cur, b[k].second);
      if (cur >= e) break;
    }
    if (cur < e) total += e - cur;
  }
  return total;
}

bool brigade_source(const std::string& source) {
  return source.rfind("sim", 0) == 0 || source.rfind("cpu", 0) == 0 ||
         source.rfind("cuda", 0) == 0;
}

}  // namespace

std::string span_kind_key(const Trace& trace, const TraceSpan& span, const Program* program) {
  switch (span.kind) {
    case TaskKind::kCompute: {
      static const std::array<const char*, 5> kPhase = {"compute fwd", "compute bwd",
                                                        "compute recompute", "compute opt",
                                                        "compute other"};
      const auto p = static_cast<size_t>(span.phase);
      return p < kPhase.size() ? kPhase[p] : "compute other";
    }
    case TaskKind::kTransfer:
      return "transfer";
    case TaskKind::kCollective:
      break;
  }
  if (program && span.collective >= 0 &&
      static_cast<size_t>(span.collective) < program->collectives().size())
    return std::string(
        collective_kind_name(program->collectives()[static_cast<size_t>(span.collective)].kind));
  const std::string_view name =
      span.name >= 0 && static_cast<size_t>(span.name) < trace.names.size()
          ? std::string_view(trace.names[static_cast<size_t>(span.name)])
          : std::string_view();
  // JAX's names, NCCL's kernel names and Brigade's own (core/program.hpp).
  if (const auto kind = collective_kind_in_name(name, NameContext::kCollective))
    return std::string(collective_kind_name(*kind));
  return "collective";
}

namespace {

// figures_of_trace, with the Program naming collectives' kinds and the
// step given (`step_seconds` >= 0) when the run is a simulation.
RunFigures figures(const Trace& trace, const std::string& label, const Program* program,
                   double step_seconds) {
  RunFigures f;
  f.label = label;
  f.source = trace.source;
  f.program = trace.program;
  f.basis = KindBasis::kDeviceSeconds;
  f.spans = static_cast<std::int64_t>(trace.spans.size());
  double first = 0, last = 0;
  bool any = false;
  for (const TraceSpan& s : trace.spans) {
    first = any ? std::min(first, s.start_seconds) : s.start_seconds;
    last = any ? std::max(last, s.end_seconds) : s.end_seconds;
    any = true;
  }
  // A Brigade trace counts from the step's start (an input pipeline's wait
  // before the first span is part of the step); another tool's from its
  // first span.
  const double origin = brigade_source(trace.source) ? std::min(first, 0.0) : first;
  f.step_seconds = step_seconds >= 0 ? step_seconds : any ? last - origin : 0;

  std::map<int, std::pair<Intervals, Intervals>> by_device;  // compute, communication
  std::map<std::string, KindFigures> kinds;
  std::map<TaskId, std::string> task_kind;  // for transfers' bytes
  for (const TraceSpan& s : trace.spans) {
    auto& [compute, comm] = by_device[s.device];
    (s.kind == TaskKind::kCompute ? compute : comm).emplace_back(s.start_seconds, s.end_seconds);
    const std::string key = span_kind_key(trace, s, program);
    KindFigures& k = kinds[key];
    k.kind = key;
    ++k.count;
    k.seconds += s.end_seconds - s.start_seconds;
    if (s.task >= 0) task_kind.emplace(s.task, key);
  }
  for (const TraceTransfer& x : trace.transfers) {
    auto it = task_kind.find(x.task);
    const std::string key = it != task_kind.end() ? it->second : "transfer";
    KindFigures& k = kinds[key];
    k.kind = key;
    k.bytes += x.bytes;
  }
  // Peak memory: per device, the total over categories of a step function
  // (samples at one instant applied together, so an allocation and a free
  // at once are no peak).
  std::map<int, std::vector<const MemorySample*>> samples;
  for (const MemorySample& m : trace.memory) samples[m.device].push_back(&m);
  std::map<int, double> peak;
  for (auto& [device, v] : samples) {
    std::stable_sort(v.begin(), v.end(), [](const MemorySample* a, const MemorySample* b) {
      return a->time_seconds < b->time_seconds;
    });
    std::array<double, kNumMemoryCategories> live{};
    double best = 0;
    for (size_t i = 0; i < v.size();) {
      const double t = v[i]->time_seconds;
      for (; i < v.size() && v[i]->time_seconds == t; ++i)
        live[static_cast<size_t>(v[i]->category) % live.size()] = v[i]->bytes;
      double total = 0;
      for (double b : live) total += b;
      best = std::max(best, total);
    }
    peak[device] = best;
    by_device[device];  // a device with memory samples alone is still a device
  }
  for (auto& [device, intervals] : by_device) {
    auto& [compute, comm] = intervals;
    DeviceFigures d;
    d.device = device;
    d.name = device >= 0 && static_cast<size_t>(device) < trace.device_names.size()
                 ? trace.device_names[static_cast<size_t>(device)]
                 : "device " + std::to_string(device);
    d.busy_seconds = merge(compute);
    d.comm_seconds = merge(comm);
    d.exposed_seconds = minus(comm, compute);
    d.idle_seconds = std::max(0.0, f.step_seconds - (d.busy_seconds + d.exposed_seconds));
    if (auto it = peak.find(device); it != peak.end()) d.peak_memory_bytes = it->second;
    f.devices.push_back(std::move(d));
  }
  for (auto& [key, k] : kinds) f.kinds.push_back(std::move(k));
  return f;
}

}  // namespace

std::vector<KernelRow> kernel_rows(const Trace& trace, int device) {
  std::map<NameId, KernelRow> by_name;
  for (const TraceSpan& s : trace.spans) {
    if (s.device != device || s.kind != TaskKind::kCompute) continue;
    KernelRow& r = by_name[s.name];
    ++r.count;
    r.seconds += s.end_seconds - s.start_seconds;
  }
  std::vector<KernelRow> rows;
  rows.reserve(by_name.size());
  for (auto& [id, r] : by_name) {
    r.name = id >= 0 && static_cast<size_t>(id) < trace.names.size()
                 ? trace.names[static_cast<size_t>(id)]
                 : "?";
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.seconds != b.seconds ? a.seconds > b.seconds : a.name < b.name;
  });
  return rows;
}

RunFigures figures_of_trace(const Trace& trace, const std::string& label) {
  return figures(trace, label, nullptr, -1);
}

RunFigures figures_of_simulation(const Trace& trace, const Program& program, double step_seconds,
                                 const std::string& label) {
  return figures(trace, label, &program, step_seconds);
}

}  // namespace brigade
