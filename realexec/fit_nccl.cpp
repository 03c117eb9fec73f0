#include "realexec/fit_nccl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/units.hpp"
#include "realexec/calibrate.hpp"
#include "realexec/fit.hpp"

namespace brigade::realexec {
namespace {

int nccl_steps(CollectiveKind kind, int n) {
  return kind == CollectiveKind::kAllReduce ? 2 * (n - 1) : n - 1;
}

struct Segment {
  double latency = 0, per_byte = 0, sse = 0;
  bool ok = false;
};

// T = a + c M over points [lo, hi), a, c >= 0, relative residuals.
Segment fit_segment(const std::vector<NcclSizePoint>& p, size_t lo, size_t hi) {
  Segment s;
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (size_t i = lo; i < hi; ++i) {
    rows.push_back({1.0, p[i].bytes});
    y.push_back(p[i].seconds);
  }
  auto f = fit_nonnegative(rows, y);
  if (!f.is_ok() || !(f->coefficients[1] > 0)) return s;
  s.latency = f->coefficients[0];
  s.per_byte = f->coefficients[1];
  for (size_t i = lo; i < hi; ++i) {
    const double r = (s.latency + s.per_byte * p[i].bytes - p[i].seconds) / p[i].seconds;
    s.sse += r * r;
  }
  s.ok = true;
  return s;
}

// The protocol the table's ring model picks at `bytes`.
NcclProtocol ring_pick(const NcclTable& t, const cost::NcclGroupShape& g, CollectiveKind kind,
                       double bytes) {
  NcclProtocol best = NcclProtocol::kSimple;
  double best_t = std::numeric_limits<double>::infinity();
  for (int pi = 0; pi < kNumNcclProtocols; ++pi) {
    const auto p = static_cast<NcclProtocol>(pi);
    const cost::NcclEstimate e = cost::nccl_estimate(t, g, kind, bytes, NcclAlgorithm::kRing, p);
    if (e.available && e.seconds < best_t) {
      best_t = e.seconds;
      best = p;
    }
  }
  return best;
}

// The ring envelope of `t` at `bytes` (launch excluded).
double envelope(const NcclTable& t, const cost::NcclGroupShape& g, CollectiveKind kind,
                double bytes) {
  double best = std::numeric_limits<double>::infinity();
  for (int pi = 0; pi < kNumNcclProtocols; ++pi) {
    const cost::NcclEstimate e =
        cost::nccl_estimate(t, g, kind, bytes, NcclAlgorithm::kRing, static_cast<NcclProtocol>(pi));
    if (e.available) best = std::min(best, e.seconds);
  }
  return best;
}

}  // namespace

Result<NcclProtocolFit> fit_nccl_protocols(const NcclTable& table,
                                           const cost::NcclGroupShape& group, CollectiveKind kind,
                                           std::vector<NcclSizePoint> points,
                                           double launch_seconds) {
  if (kind != CollectiveKind::kAllReduce && kind != CollectiveKind::kAllGather &&
      kind != CollectiveKind::kReduceScatter)
    return Status::error(
        fmt::format("found {}; expected allreduce, allgather or reducescatter (the "
                    "ring's per-protocol figures)",
                    collective_kind_name(kind)));
  if (group.nodes != 1 || group.ranks < 2)
    return Status::error(
        fmt::format("found {} ranks on {} nodes; expected at least 2 ranks on one "
                    "node (the fit reads the intra-node step)",
                    group.ranks, group.nodes));
  if (!table.present())
    return Status::error("found no NCCL table; expected one to fit (its structure is kept)");
  std::sort(points.begin(), points.end(),
            [](const NcclSizePoint& a, const NcclSizePoint& b) { return a.bytes < b.bytes; });
  std::vector<NcclSizePoint> p;
  for (const NcclSizePoint& x : points)
    if (x.bytes > 0 && x.seconds - launch_seconds > 0)
      p.push_back({x.bytes, x.seconds - launch_seconds});
  if (p.size() < 2)
    return Status::error(
        fmt::format("found {} usable sizes; expected at least 2 (positive sizes "
                    "with times above the launch)",
                    p.size()));

  const size_t n = p.size();
  const int steps = nccl_steps(kind, group.ranks);
  const double per_alg = static_cast<double>(steps) / group.ranks;  // busBw = algBw x this
  // Every split [0, i) [i, j) [j, n) (empty segments allowed, others >= 2 sizes).
  struct Best {
    double sse = std::numeric_limits<double>::infinity();
    std::vector<std::pair<NcclProtocol, std::pair<size_t, size_t>>> segs;
    std::vector<Segment> fits;
  } best;
  for (size_t i = 0; i <= n; ++i)
    for (size_t j = i; j <= n; ++j) {
      const std::pair<size_t, size_t> ranges[3] = {{0, i}, {i, j}, {j, n}};
      std::vector<std::pair<NcclProtocol, std::pair<size_t, size_t>>> segs;
      std::vector<Segment> fits;
      double sse = 0;
      bool ok = true;
      for (const auto& r : ranges) {
        if (r.first == r.second) continue;
        if (r.second - r.first < 2) {
          ok = false;
          break;
        }
        Segment s = fit_segment(p, r.first, r.second);
        if (!s.ok) {
          ok = false;
          break;
        }
        const double mid = std::sqrt(p[r.first].bytes * p[r.second - 1].bytes);
        const NcclProtocol proto = ring_pick(table, group, kind, mid);
        if (!segs.empty() && (proto <= segs.back().first || s.latency < fits.back().latency ||
                              s.per_byte > fits.back().per_byte)) {
          ok = false;  // protocols, latencies and bandwidths all rise
          break;
        }
        segs.push_back({proto, r});
        fits.push_back(s);
        sse += s.sse;
      }
      if (ok && !segs.empty() && sse < best.sse) best = {sse, std::move(segs), std::move(fits)};
    }
  if (best.segs.empty())
    return Status::error(
        "found no envelope of protocol lines whose latency and bandwidth both rise from ll to "
        "ll128 to simple; expected times that NCCL's protocols explain");

  NcclProtocolFit out;
  out.table = table;
  NcclTable& t = out.table;
  const size_t hop = static_cast<size_t>(group.intra_hop);
  const double graph = group.intra_bandwidth_bytes_per_second;
  double top_bus = 0;
  for (size_t k = 0; k < best.segs.size(); ++k) {
    NcclProtocolLine line;
    line.protocol = best.segs[k].first;
    line.latency_seconds = best.fits[k].latency;
    line.alg_bandwidth_bytes_per_second = 1.0 / best.fits[k].per_byte;
    line.bus_bandwidth_bytes_per_second = line.alg_bandwidth_bytes_per_second * per_alg;
    line.min_bytes = p[best.segs[k].second.first].bytes;
    line.max_bytes = p[best.segs[k].second.second - 1].bytes;
    line.points = static_cast<int>(best.segs[k].second.second - best.segs[k].second.first);
    top_bus = std::max(top_bus, line.bus_bandwidth_bytes_per_second);
    out.lines.push_back(line);
  }
  // A measured bus bandwidth above the graph's: over NVLink the graph is the
  // table's (nvlink_bandwidth), raised to the measurement; elsewhere it is
  // the route's, which a fit cannot raise.
  double g_bw = graph;
  if (top_bus > graph) {
    if (group.intra_hop != NcclHop::kNvlink || t.nvlink_bandwidth_bytes_per_second <= 0)
      return Status::error(fmt::format(
          "found a bus bandwidth of {} measured over a route of {}; expected at most the route's "
          "(raise the profile's link bandwidth first)",
          format_bandwidth(top_bus), format_bandwidth(graph)));
    t.nvlink_bandwidth_bytes_per_second = top_bus;
    g_bw = top_bus;
  }
  for (const NcclProtocolLine& line : out.lines) {
    NcclEntry& e = t.at(NcclAlgorithm::kRing, line.protocol);
    // Latency: NCCL's base and per-step latency scaled together.
    const double modelled = e.latency_seconds + steps * e.hop_latency_seconds[hop];
    if (modelled > 0) {
      const double f = line.latency_seconds / modelled;
      e.latency_seconds *= f;
      e.hop_latency_seconds[hop] *= f;
    } else {
      e.latency_seconds = line.latency_seconds;
    }
    // Bandwidth: the factor on the graph, no single-node cap (it is measured).
    e.bandwidth_factor = line.bus_bandwidth_bytes_per_second / g_bw;
    e.max_bandwidth_bytes_per_second[0] = 0;
  }
  // The measured times already hold the channels NCCL ran each size on (its
  // enqueue's fewer channels for small sizes) and whatever capped them: on
  // one node the fitted lines are the times, so the table's channel counts,
  // which would cut the small sizes' bandwidth again, and the per-channel
  // caps, which would clip the fitted bandwidth, are dropped there (kept
  // across nodes, which the fit does not see).
  t.channels[0] = 0;
  t.graph_channels[0] = 0;

  // How well the table, as written, reproduces every point.
  cost::NcclGroupShape g2 = group;
  g2.intra_bandwidth_bytes_per_second = g_bw;
  g2.launch_overhead_seconds = 0;
  double sw = 0, swy = 0;
  for (const NcclSizePoint& x : p) {
    sw += 1 / (x.seconds * x.seconds);
    swy += 1 / x.seconds;
  }
  const double mean = swy / sw;
  double ss_res = 0, ss_tot = 0;
  for (const NcclSizePoint& x : p) {
    const double m = envelope(t, g2, kind, x.bytes);
    const double w = 1 / (x.seconds * x.seconds);
    ss_res += w * (m - x.seconds) * (m - x.seconds);
    ss_tot += w * (x.seconds - mean) * (x.seconds - mean);
    const double miss = (m - x.seconds) / x.seconds;
    if (std::fabs(miss) > std::fabs(out.worst_miss)) out.worst_miss = miss;
  }
  out.r_squared = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
  return out;
}

std::string nccl_fit_refusal(const NcclProtocolFit& fit, const std::vector<NcclSizePoint>& points) {
  // The rules of calibrate's other collective fits (realexec/calibrate_sanity.cpp).
  std::vector<CollectivePoint> p;
  for (const NcclSizePoint& x : points)
    p.push_back(CollectivePoint{.bytes = x.bytes, .seconds = x.seconds});
  if (std::string why = contradicting_sizes(p); !why.empty()) return why;
  if (fit.r_squared < kFitMinRSquared)
    return fmt::format("the protocols' lines explain little of the times (R² {:.2f})",
                       fit.r_squared);
  if (fit.worst_miss > kFitMaxMiss - 1 || fit.worst_miss < 1 / kFitMaxMiss - 1)
    return fmt::format("the fitted table misses a measured size by {:+.0f}%", 100 * fit.worst_miss);
  if (Status s = check_nccl_table(fit.table); !s.is_ok()) return s.message();
  return "";
}

void apply_nccl_fit(Calibration& cal, const Topology& topo) {
  if (cal.profile.devices.empty()) return;
  DeviceProfile& dp = cal.profile.devices.back();
  if (!dp.nccl.present()) return;
  const CollectiveKind kind =
      dp.nccl.has(NcclAlgorithm::kNvls) ? CollectiveKind::kAllGather : CollectiveKind::kAllReduce;
  const CollectiveCalibration* cc = nullptr;
  for (const CollectiveCalibration& c : cal.collectives)
    if (c.kind == kind && c.ranks >= 2) cc = &c;
  if (cc == nullptr) return;
  std::vector<int> group;
  for (int d = 0; d < cc->ranks && d < topo.num_devices(); ++d) group.push_back(d);
  const cost::NcclGroupShape g = cost::nccl_group_shape(topo, cal.profile, dp.nccl, group);
  std::vector<NcclSizePoint> points;
  for (const CollectivePoint& p : cc->points) points.push_back({p.bytes, p.seconds});
  const std::string what = fmt::format("NCCL's ring protocols from {} on {} ranks",
                                       collective_kind_name(kind), cc->ranks);
  auto fit = fit_nccl_protocols(dp.nccl, g, kind, points, g.launch_overhead_seconds);
  if (!fit.is_ok()) {
    cal.rejected.push_back(what + ": not fitted (" + fit.message() + "); the table stands");
    return;
  }
  if (const std::string why = nccl_fit_refusal(*fit, points); !why.empty()) {
    cal.rejected.push_back(what + ": " + why + ": not written; the table stands");
    return;
  }
  dp.nccl = fit->table;
  std::string lines;
  for (const NcclProtocolLine& l : fit->lines)
    lines += fmt::format("{}{} {} + M / {} ({} .. {})", lines.empty() ? "" : "; ",
                         nccl_protocol_name(l.protocol), format_seconds(l.latency_seconds),
                         format_bandwidth(l.alg_bandwidth_bytes_per_second),
                         format_bytes(l.min_bytes), format_bytes(l.max_bytes));
  cal.notes.push_back(fmt::format("{}: {} (R² {:.3f}, worst miss {:+.1f}%)", what, lines,
                                  fit->r_squared, 100 * fit->worst_miss));
}

}  // namespace brigade::realexec
