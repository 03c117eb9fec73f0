// The fits calibrate refuses to write (issue 18 item 15): a profile is only
// as good as the measurements behind it, and on a busy machine a benchmark
// can be time-sliced into nonsense (a 4 KiB collective slower than a 256 KiB
// one, a fit off by orders of magnitude). Each refusal names the
// measurement and says what the profile keeps instead.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "realexec/calibrate.hpp"

namespace brigade::realexec {
namespace {

// R^2 below which a fit explains too little of what it was fitted to. Good
// calibrations on a shared 2-core VM fit the collective steps at 0.61-0.78
// and the transfers' line above 0.99 (docs/VALIDATION.md); 0.27 came from a
// --quick run whose every collective was time-sliced.
constexpr double kMinRSquared = kFitMinRSquared;
// A smaller message taking this much longer than a larger one contradicts the
// larger (a message moves no faster for being larger): the machine was busy.
// 10% leaves latency-bound sizes their noise.
constexpr double kContradiction = 1.1;
// A kind's fitted steps that miss a measured size by more than this factor
// (either way) are not a model of it. Alpha-bound sizes miss by up to +93% in
// good runs (docs/VALIDATION.md); the nonsense fits missed by +117% to
// +300894%.
constexpr double kMaxMiss = kFitMaxMiss;

// The first pair (smaller, larger) whose times contradict each other, as
// "4.00 KiB took 483 us, longer than 256 KiB (344 us)"; "" if none.
template <typename Point>
std::string contradiction(std::vector<Point> points) {
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.bytes < b.bytes; });
  for (size_t i = 0; i < points.size(); ++i)
    for (size_t j = i + 1; j < points.size(); ++j)
      if (points[j].bytes > points[i].bytes && points[j].seconds > 0 &&
          points[i].seconds > kContradiction * points[j].seconds)
        return fmt::format("{} took {}, longer than {} ({})", format_bytes(points[i].bytes),
                           format_seconds(points[i].seconds), format_bytes(points[j].bytes),
                           format_seconds(points[j].seconds));
  return "";
}

// The modelled time of one measured collective with `profile`.
double modelled(const Topology& topo, const HardwareProfile& profile, CollectiveKind kind, int ranks,
                double bytes, bool warm) {
  std::vector<int> group;
  for (int d = 0; d < ranks && d < topo.num_devices(); ++d) group.push_back(d);
  auto q = cost::collective_query_on(topo, profile, kind, CollectiveAlgorithm::kRing, group, bytes, warm);
  if (!q.is_ok()) return 0;
  auto c = cost::collective_cost(*q);
  return c.is_ok() ? c->seconds : 0;
}

}  // namespace

std::string contradicting_sizes(const std::vector<CollectivePoint>& points) {
  return contradiction(points);
}

void apply_fit_sanity(Calibration& cal, const Topology& topo) {
  const HardwareProfile defaults = HardwareProfile::defaults();
  HardwareProfile& prof = cal.profile;

  // Transfers.
  for (const LinkCalibration& l : cal.links) {
    LinkProfile& lp = prof.links[static_cast<size_t>(l.link_class)];
    const LinkProfile& sheet = defaults.links[static_cast<size_t>(l.link_class)];
    std::string why = contradiction(l.transfer.points);
    if (why.empty() && l.transfer.fit.points >= 3 && l.transfer.fit.r_squared < kMinRSquared)
      why = fmt::format("the line T = alpha + M / B explains little of the times (R² {:.2f})",
                        l.transfer.fit.r_squared);
    if (why.empty()) continue;
    cal.rejected.push_back(fmt::format(
        "transfers over {}: {}: their alpha and bandwidth are not written; the data sheet's stand",
        link_class_name(l.link_class), why));
    lp.alpha_seconds = sheet.alpha_seconds;
    lp.bandwidth_bytes_per_second = sheet.bandwidth_bytes_per_second;
    lp.bandwidth_efficiency = sheet.bandwidth_efficiency;
  }

  // Collective steps over all kinds, then each kind's own.
  const LinkClass cls = cal.links.empty() ? LinkClass::kSharedMemory : cal.links.front().link_class;
  LinkProfile& lp = prof.links[static_cast<size_t>(cls)];
  const LinkProfile& sheet = defaults.links[static_cast<size_t>(cls)];
  if (!cal.collectives.empty() && cal.collective_step.fit.points > 0 &&
      cal.collective_step.fit.r_squared < kMinRSquared) {
    cal.rejected.push_back(fmt::format(
        "collective steps over all kinds: R² {:.2f}: one alpha and two bandwidths explain little of "
        "the collectives measured; not written, nor each kind's steps (which scale them): "
        "collectives keep the data sheet's alpha-beta model",
        cal.collective_step.fit.r_squared));
    lp.collective_alpha_seconds = sheet.collective_alpha_seconds;
    lp.collective_bandwidth_bytes_per_second = sheet.collective_bandwidth_bytes_per_second;
    lp.collective_reduce_bandwidth_bytes_per_second = sheet.collective_reduce_bandwidth_bytes_per_second;
    lp.collective_kinds = sheet.collective_kinds;
    for (DeviceProfile& d : prof.devices)
      for (const DeviceProfile& s : defaults.devices)
        if (s.model == d.model || s.model == "*") d.collective_overhead_seconds = s.collective_overhead_seconds;
  }
  for (const CollectiveCalibration& cc : cal.collectives) {
    LinkProfile::KindSteps& ks = lp.collective_kinds[static_cast<size_t>(cc.kind)];
    if (ks.empty()) continue;
    const std::string kind(collective_kind_name(cc.kind));
    std::string why = contradiction(cc.points);
    if (why.empty())
      for (const CollectivePoint& p : cc.points) {
        const double m = modelled(topo, prof, cc.kind, cc.ranks, p.bytes, false);
        if (p.seconds > 0 && m > 0 && (m > kMaxMiss * p.seconds || p.seconds > kMaxMiss * m)) {
          why = fmt::format("its fitted steps give {} for the {} measured in {} ({:+.0f}%)",
                            format_seconds(m), format_bytes(p.bytes), format_seconds(p.seconds),
                            100.0 * (m - p.seconds) / p.seconds);
          break;
        }
      }
    if (!why.empty()) {
      cal.rejected.push_back(fmt::format(
          "{}: {}: its own steps are not written; the fit over all kinds stands for it", kind, why));
      ks = LinkProfile::KindSteps{};
      continue;
    }
    if (ks.alpha_seconds < 0 && ks.alpha_seconds != -1) {
      cal.rejected.push_back(fmt::format("{}: alpha {} < 0: not written", kind, format_seconds(ks.alpha_seconds)));
      ks.alpha_seconds = -1;
    }
    if (ks.warm_alpha_seconds < 0 && ks.warm_alpha_seconds != -1) {
      cal.rejected.push_back(
          fmt::format("{}: warm alpha {} < 0: not written", kind, format_seconds(ks.warm_alpha_seconds)));
      ks.warm_alpha_seconds = -1;
    }
  }
  // No negative alpha anywhere (-1 is "unset": the route's latencies).
  for (size_t c = 0; c < prof.links.size(); ++c) {
    LinkProfile& l = prof.links[c];
    for (double* a : {&l.alpha_seconds, &l.collective_alpha_seconds})
      if (*a < 0 && *a != -1) {
        cal.rejected.push_back(fmt::format("{} alpha {} < 0: not written",
                                           link_class_name(static_cast<LinkClass>(c)), format_seconds(*a)));
        *a = -1;
      }
  }

  // What the judges predict for every measured collective with the profile as written.
  for (CollectiveCalibration& cc : cal.collectives)
    for (CollectivePoint& p : cc.points) {
      p.model_seconds = modelled(topo, prof, cc.kind, cc.ranks, p.bytes, false);
      if (p.warm_seconds > 0) p.warm_model_seconds = modelled(topo, prof, cc.kind, cc.ranks, p.bytes, true);
    }
}

}  // namespace brigade::realexec
