#include "gui/model/range_stats.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace brigade::gui {

namespace {

using Intervals = std::vector<std::pair<double, double>>;

// The union of `v` clipped to [t0, t1], as sorted disjoint intervals.
Intervals merged(Intervals& v, double t0, double t1) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (auto [a, b] : v) {
    a = std::max(a, t0);
    b = std::min(b, t1);
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second)
      out.back().second = std::max(out.back().second, b);
    else
      out.emplace_back(a, b);
  }
  return out;
}

double length(const Intervals& v) {
  double s = 0;
  for (const auto& [a, b] : v) s += b - a;
  return s;
}

double overlap(const Intervals& a, const Intervals& b) {
  double s = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) s += hi - lo;
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return s;
}

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

}  // namespace

double union_seconds(Intervals& v, double t0, double t1) {
  return length(merged(v, t0, t1));
}

double difference_seconds(Intervals& a, Intervals& b, double t0, double t1) {
  const Intervals ma = merged(a, t0, t1);
  const Intervals mb = merged(b, t0, t1);
  return length(ma) - overlap(ma, mb);
}

std::vector<double> bin_coverage(Intervals& v, double t0, double t1, int bins) {
  std::vector<double> out(static_cast<size_t>(std::max(bins, 0)), 0.0);
  if (bins <= 0 || !(t1 > t0)) return out;
  const double w = (t1 - t0) / bins;
  for (const auto& [a, b] : merged(v, t0, t1)) {
    auto first = static_cast<int>((a - t0) / w);
    auto last = static_cast<int>((b - t0) / w);
    first = std::clamp(first, 0, bins - 1);
    last = std::clamp(last, 0, bins - 1);
    for (int k = first; k <= last; ++k) {
      const double lo = std::max(a, t0 + k * w);
      const double hi = std::min(b, t0 + (k + 1) * w);
      if (hi > lo) out[static_cast<size_t>(k)] += (hi - lo) / w;
    }
  }
  for (double& x : out) x = std::min(x, 1.0);
  return out;
}

std::vector<double> utilisation_bins(const Trace& trace, double t0, double t1, int bins,
                                     bool compute) {
  std::vector<double> out(static_cast<size_t>(std::max(bins, 0)), 0.0);
  if (bins <= 0 || !(t1 > t0)) return out;
  const double w = (t1 - t0) / bins;
  for (const TraceSpan& s : trace.spans) {
    if ((s.kind == TaskKind::kCompute) != compute) continue;
    const double a = std::max(s.start_seconds, t0), b = std::min(s.end_seconds, t1);
    if (!(b > a)) continue;
    const int first = std::clamp(static_cast<int>((a - t0) / w), 0, bins - 1);
    const int last = std::clamp(static_cast<int>((b - t0) / w), 0, bins - 1);
    for (int k = first; k <= last; ++k) {
      const double lo = std::max(a, t0 + k * w), hi = std::min(b, t0 + (k + 1) * w);
      if (hi > lo) out[static_cast<size_t>(k)] += hi - lo;
    }
  }
  const double devices = std::max<double>(1, static_cast<double>(trace.device_names.size()));
  for (double& x : out) x = std::min(1.0, x / (devices * w));
  return out;
}

RangeStats range_stats(const Trace& trace, const TraceIndex& index, double t0, double t1,
                       const HostLane* host) {
  RangeStats r;
  r.start_seconds = t0;
  r.end_seconds = t1;
  std::map<int, std::pair<Intervals, Intervals>> by_device;  // (compute, comm)
  std::vector<std::int32_t> hits;
  for (int t = 0; t < index.num_tracks(); ++t) {
    hits.clear();
    index.spans_in(t, t0, t1, hits);
    r.spans += static_cast<std::int64_t>(hits.size());
    for (std::int32_t s : hits) {
      const TraceSpan& sp = trace.spans[static_cast<size_t>(s)];
      auto& [compute, comm] = by_device[sp.device];
      (sp.kind == TaskKind::kCompute ? compute : comm)
          .emplace_back(sp.start_seconds, sp.end_seconds);
    }
  }
  std::map<int, DeviceRangeStats> stats;
  for (auto& [d, iv] : by_device) {
    DeviceRangeStats& s = stats[d];
    s.device = d;
    Intervals compute = merged(iv.first, t0, t1);
    Intervals comm = merged(iv.second, t0, t1);
    s.busy_seconds = length(compute);
    s.comm_seconds = length(comm);
    s.exposed_comm_seconds = s.comm_seconds - overlap(comm, compute);
  }
  std::vector<std::int32_t> xs;
  index.transfers_in(t0, t1, xs);
  for (std::int32_t i : xs) {
    const TraceTransfer& x = trace.transfers[static_cast<size_t>(i)];
    const double d = x.end_seconds - x.start_seconds;
    const double part =
        d > 0 ? std::max(0.0, std::min(x.end_seconds, t1) - std::max(x.start_seconds, t0)) / d
              : 1.0;
    const double bytes = x.bytes * part;
    r.bytes_moved += bytes;
    DeviceRangeStats& src = stats[x.src];
    src.device = x.src;
    src.bytes_sent += bytes;
    DeviceRangeStats& dst = stats[x.dst];
    dst.device = x.dst;
    dst.bytes_received += bytes;
  }
  if (host) {
    // A host's slices never overlap: their clipped lengths add up.
    for (auto& [d, s] : stats) s.host_seconds = 0;
    for (int t = 0; t < host->index().num_tracks(); ++t) {
      hits.clear();
      host->index().spans_in(t, t0, t1, hits);
      for (std::int32_t i : hits) {
        const HostSpan& h = host->slice(i);
        DeviceRangeStats& s = stats[h.device];
        s.device = h.device;
        s.host_seconds = std::max(0.0, s.host_seconds) +
                         std::max(0.0, std::min(h.end_seconds, t1) - std::max(h.start_seconds, t0));
      }
    }
  }
  for (auto& [d, s] : stats) r.devices.push_back(s);
  return r;
}

std::vector<std::int32_t> find_spans(const Trace& trace, std::string_view needle) {
  std::vector<std::int32_t> out;
  if (needle.empty()) return out;
  const std::string n = lower(needle);
  std::vector<char> match(trace.names.size(), 0);
  for (size_t i = 0; i < trace.names.size(); ++i)
    match[i] = lower(trace.names[i]).find(n) != std::string::npos;
  for (size_t i = 0; i < trace.spans.size(); ++i) {
    const NameId id = trace.spans[i].name;
    if (id >= 0 && static_cast<size_t>(id) < match.size() && match[static_cast<size_t>(id)])
      out.push_back(static_cast<std::int32_t>(i));
  }
  std::stable_sort(out.begin(), out.end(), [&](std::int32_t a, std::int32_t b) {
    return trace.spans[static_cast<size_t>(a)].start_seconds <
           trace.spans[static_cast<size_t>(b)].start_seconds;
  });
  return out;
}

}  // namespace brigade::gui
