#include "realexec/task_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/profile.hpp"
#include "realexec/ring.hpp"

namespace brigade::realexec {

std::optional<GemmShape> gemm_of(const Task& t, const Device& d) {
  if (t.kind != TaskKind::kCompute) return std::nullopt;
  if (t.compute == ComputeKind::kGemm)
    return GemmShape{t.m, t.n, t.k, std::max<std::int64_t>(1, t.batch)};
  if (t.compute != ComputeKind::kFixed || !(t.flops > 0)) return std::nullopt;
  // Which side of the data sheet's roofline the task is on decides its shape.
  static const DeviceProfile kDataSheet;
  const double peak = peak_flops_per_second(d, kDataSheet, t.dtype);
  const double compute = peak > 0 ? t.flops / peak : 0;
  const double memory =
      d.memory_bandwidth_bytes_per_second > 0 ? t.bytes / d.memory_bandwidth_bytes_per_second : 0;
  if (compute < memory) return std::nullopt;
  GemmShape g;
  g.m = g.n = std::max<std::int64_t>(1, std::llround(std::cbrt(t.flops / 2.0)));
  g.k = std::max<std::int64_t>(
      1, std::llround(t.flops / (2.0 * static_cast<double>(g.m) * static_cast<double>(g.n))));
  return g;
}

int accumulate_width(const Program& p, const Task& t) {
  if (t.kind != TaskKind::kCompute || t.compute != ComputeKind::kGemm || t.gemm_mix == 0) return 0;
  const double elements = static_cast<double>(t.m) * static_cast<double>(t.n) *
                          static_cast<double>(std::max<std::int64_t>(1, t.batch));
  const double bytes = gemm_mix_accumulate_bytes(p.gemm_mix(t.gemm_mix));
  if (!(bytes > 0) || !(elements > 0)) return 0;
  const bool wide = t.dtype == DType::kF32 || t.dtype == DType::kTF32 || t.dtype == DType::kF64;
  const double fresh = wide ? dtype_bytes(t.dtype) : 2.0;
  const double g = (bytes / elements + fresh) / 2;
  int best = 2;
  for (int w : {4, 8})
    if (std::fabs(g - w) < std::fabs(g - best)) best = w;
  return best;
}

CollectiveShape collective_shape(const Collective& c, bool equal_parts) {
  CollectiveShape s;
  if (!collective_element(c.dtype, &s.element)) s.element = Element::kF32;
  const double eb = element_bytes(s.element);
  const int n = static_cast<int>(c.group.size());
  s.count = static_cast<std::int64_t>(c.bytes / eb);
  if (equal_parts &&
      (c.kind == CollectiveKind::kAllGather || c.kind == CollectiveKind::kReduceScatter ||
       c.kind == CollectiveKind::kAllToAll))
    s.count = s.count / n * n;
  s.chunks = chain_chunks(s.count, eb);
  s.steps = ring_steps(c.kind, n, s.chunks);
  return s;
}

Result<std::vector<Trace>> run_repeated(const RunOptions& options, Verify verify,
                                        const std::function<Result<Trace>(bool verify)>& step) {
  std::vector<Trace> traces;
  for (int i = 0; i < options.repeat; ++i) {
    if (cancel_requested(options.cancel)) return cancelled_status();
    const bool check = verify == Verify::kEveryStep || (verify == Verify::kFirstStep && i == 0);
    BRIGADE_ASSIGN_OR_RETURN(Trace trace, step(check));
    if (options.on_progress) options.on_progress(i + 1, options.repeat);
    if (options.repeat > 1 && i == 0) {  // the warm-up step, and more while asked for
      double warm = trace.step_seconds();
      for (int extra = 0; extra < 1000 && warm < options.warmup_seconds; ++extra) {
        if (cancel_requested(options.cancel)) return cancelled_status();
        BRIGADE_ASSIGN_OR_RETURN(Trace more, step(verify == Verify::kEveryStep));
        if (!(more.step_seconds() > 0)) break;
        warm += more.step_seconds();
      }
      continue;
    }
    traces.push_back(std::move(trace));
  }
  return traces;
}

void CommunicationNeed::add(const Program& p, const Task& task, bool equal_parts) {
  if (task.kind == TaskKind::kTransfer) {
    const auto bytes = static_cast<std::size_t>(task.bytes);
    send = std::max(send, bytes);
    receive[task.peer] = std::max(receive[task.peer], bytes);
  } else if (task.kind == TaskKind::kCollective) {
    const CollectiveShape cs =
        collective_shape(p.collectives()[static_cast<size_t>(task.collective)], equal_parts);
    const auto bytes =
        static_cast<std::size_t>(cs.count) * static_cast<std::size_t>(element_bytes(cs.element));
    collective_in[cs.element] = std::max(collective_in[cs.element], bytes);
    collective_out = std::max(collective_out, bytes);
  }
}

std::string task_label(const Program& p, TaskId t) {
  std::string s = "task " + std::to_string(t);
  const auto name = p.task_name(t);
  if (!name.empty()) s += " '" + std::string(name) + "'";
  return s;
}

std::string device_label(const Topology& topology, int device) {
  return "device " + std::to_string(device) + " '" + topology.device(device).name + "'";
}

void finish_trace(Trace& trace) {
  std::sort(trace.spans.begin(), trace.spans.end(), [](const TraceSpan& a, const TraceSpan& b) {
    if (a.start_seconds != b.start_seconds) return a.start_seconds < b.start_seconds;
    if (a.device != b.device) return a.device < b.device;
    if (a.stream != b.stream) return a.stream < b.stream;
    return a.task < b.task;
  });
  std::map<std::pair<int, int>, int> lanes;
  trace.lanes.clear();
  for (TraceTransfer& x : trace.transfers) {
    auto [it, fresh] = lanes.emplace(std::make_pair(x.src, x.dst), static_cast<int>(lanes.size()));
    if (fresh)
      trace.lanes.push_back(trace.device_names[static_cast<size_t>(x.src)] + "->" +
                            trace.device_names[static_cast<size_t>(x.dst)]);
    x.lane = it->second;
  }
  std::stable_sort(trace.transfers.begin(), trace.transfers.end(),
                   [](const TraceTransfer& a, const TraceTransfer& b) {
                     return a.start_seconds < b.start_seconds;
                   });
  std::stable_sort(
      trace.memory.begin(), trace.memory.end(),
      [](const MemorySample& a, const MemorySample& b) { return a.time_seconds < b.time_seconds; });
}

}  // namespace brigade::realexec
