// The fits of `calibrate` that need no executor: the cold-operand GEMM
// rates, the FP8 split accumulation's efficiency, the ring collectives' step
// rows and each collective kind's own steps (realexec/calibrate.hpp declares
// them).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/profile.hpp"
#include "costmodel/collectives.hpp"
#include "realexec/calibrate.hpp"
#include "realexec/summary.hpp"

namespace brigade::realexec {

ColdOperandRates fit_cold_operand_rates(std::vector<ColdGemmPoint>& points) {
  // Seconds per byte: beyond = x read + y written (Srr x + Srw y = Srb,
  // Srw x + Sww y = Swb), else beyond = z (read + written).
  double srr = 0, srw = 0, sww = 0, srb = 0, swb = 0, sbb = 0, sb = 0;
  for (const ColdGemmPoint& c : points) {
    const double w = c.written_bytes, r = c.bytes - w, b = c.beyond_curve_seconds();
    srr += r * r;
    srw += r * w;
    sww += w * w;
    srb += r * b;
    swb += w * b;
    sbb += c.bytes * c.bytes;
    sb += c.bytes * b;
  }
  double x = 0, y = 0;
  const double det = srr * sww - srw * srw;
  // The plane needs read / written ratios that differ: a determinant that
  // is not lost in rounding against its terms.
  if (det > 1e-9 * srr * sww) {
    x = (srb * sww - swb * srw) / det;
    y = (swb * srr - srb * srw) / det;
  }
  ColdOperandRates rates;
  if (x > 0 && y > 0) {
    rates.read_bytes_per_second = 1 / x;
    rates.written_bytes_per_second = 1 / y;
  } else if (sbb > 0 && sb > 0) {
    x = y = sb / sbb;
    rates.read_bytes_per_second = 1 / x;
  } else {
    x = y = 0;
  }
  for (ColdGemmPoint& c : points)
    c.fitted_seconds = x * (c.bytes - c.written_bytes) + y * c.written_bytes;
  return rates;
}

namespace {

struct RelativeFit {
  double c0 = 0, rate = 0, rms = 0, worst = 0;
  bool ok = false;
};

// t = c0 + x / rate, least squares in relative error.
RelativeFit fit_relative(const std::vector<double>& x, const std::vector<double>& t) {
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double u = 1 / t[i], v = x[i] / t[i];
    a11 += u * u, a12 += u * v, a22 += v * v, b1 += u, b2 += v;
  }
  RelativeFit f;
  const double det = a11 * a22 - a12 * a12;
  if (!(det > 0)) return f;
  f.c0 = (b1 * a22 - b2 * a12) / det;
  const double slope = (a11 * b2 - a12 * b1) / det;
  if (!(slope > 0)) return f;
  f.rate = 1 / slope;
  double ss = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = (f.c0 + slope * x[i]) / t[i] - 1;
    ss += r * r;
    f.worst = std::max(f.worst, std::abs(r));
  }
  f.rms = std::sqrt(ss / static_cast<double>(x.size()));
  f.ok = true;
  return f;
}

}  // namespace

GemmWaveFit fit_gemm_waves(const std::vector<GemmShapePoint>& points, int sm_count,
                           const std::vector<std::pair<std::int64_t, std::int64_t>>& tiles) {
  GemmWaveFit out;
  if (sm_count <= 0 || tiles.empty()) return out;
  auto factor = [&](const GemmShapePoint& g, std::int64_t r, std::int64_t c) {
    DeviceProfile p;
    p.sm_count = sm_count;
    p.gemm_tile_rows = r;
    p.gemm_tile_cols = c;
    return gemm_wave_factor(p, g.dtype, KernelClass::kGeneric, GemmShape{g.m, g.n, g.k, 1});
  };
  std::vector<const GemmShapePoint*> use;
  for (const GemmShapePoint& g : points) {
    bool all = g.seconds > 0;
    for (const auto& [r, c] : tiles) all = all && factor(g, r, c) > 0;
    if (all) use.push_back(&g);
  }
  out.points = static_cast<int>(use.size());
  if (use.size() < 5) return out;
  std::vector<double> t, flat;
  for (const GemmShapePoint* g : use) {
    t.push_back(g->seconds);
    flat.push_back(gemm_flops(g->m, g->n, g->k));
  }
  const RelativeFit f = fit_relative(flat, t);
  out.flat_rms = f.rms, out.flat_worst = f.worst;
  std::vector<RelativeFit> fits;
  double least = 0;
  for (const auto& [r, c] : tiles) {
    std::vector<double> x;
    for (const GemmShapePoint* g : use) x.push_back(factor(*g, r, c) * gemm_flops(g->m, g->n, g->k));
    fits.push_back(fit_relative(x, t));
    if (fits.back().ok && (least == 0 || fits.back().rms < least)) least = fits.back().rms;
  }
  // Residuals within a tenth of the least are no evidence between tiles:
  // of those, the largest (cuBLAS's large GEMMs run its largest tiles).
  RelativeFit best;
  std::pair<std::int64_t, std::int64_t> best_tile{0, 0};
  for (size_t i = 0; i < tiles.size(); ++i) {
    const auto [r, c] = tiles[i];
    if (!fits[i].ok || fits[i].rms > 1.1 * least) continue;
    if (!best.ok || r * c > best_tile.first * best_tile.second) best = fits[i], best_tile = {r, c};
  }
  if (!best.ok || !f.ok) return out;
  out.rms = best.rms, out.worst = best.worst;
  if (best.rms <= 0.8 * f.rms && f.rms - best.rms >= 0.005 && best.worst < 0.08) {
    out.tile_rows = best_tile.first, out.tile_cols = best_tile.second;
    out.tile_flops_per_second = best.rate;
    out.host_seconds = best.c0;
  }
  return out;
}

double fit_split_accumulator_efficiency(const std::vector<GemmPoint>& fast,
                                        const std::vector<GemmPoint>& split) {
  std::vector<std::pair<std::int64_t, double>> ratios;  // (size, split / fast)
  for (const GemmPoint& s : split) {
    if (s.dtype != DType::kFP8 || !(s.flops_per_second > 0)) continue;
    for (const GemmPoint& f : fast)
      if (f.dtype == DType::kFP8 && f.size == s.size && f.flops_per_second > 0)
        ratios.emplace_back(s.size, s.flops_per_second / f.flops_per_second);
  }
  const bool large =
      std::any_of(ratios.begin(), ratios.end(), [](const auto& r) { return r.first >= 1024; });
  std::vector<double> v;
  for (const auto& [size, r] : ratios)
    if (!large || size >= 1024) v.push_back(r);
  if (v.empty()) return 0;
  return std::min(median(std::move(v)), 1.0);
}

void apply_gemm_waves(DeviceProfile& dp, const GemmWaveFit& w) {
  if (w.tile_rows <= 0 || w.tile_cols <= 0) return;
  dp.gemm_tile_rows = w.tile_rows;
  dp.gemm_tile_cols = w.tile_cols;
  for (DType t : {DType::kF16, DType::kBF16}) {
    EfficiencyCurve& c = dp.gemm[static_cast<size_t>(dtype_index(t))];
    for (auto& [flops, eff] : c.points) {
      const auto n = static_cast<std::int64_t>(std::llround(std::cbrt(flops / 2)));
      const double pad = gemm_wave_factor(dp, t, KernelClass::kGeneric, GemmShape{n, n, n, 1});
      if (pad > 0) eff = std::min(1.0, eff * pad);
    }
    if (!c.points.empty()) c.fallback = c.points.back().second;
  }
}

// Steps and per-rank bytes of the ring algorithms (Patarasuk & Yuan 2009 for
// AllReduce; Thakur, Rabenseifner & Gropp 2005 for the others), the terms
// of costmodel/collectives.cpp's ring_* closed forms.
bool collective_step_row(CollectiveKind kind, int ranks, double bytes, std::vector<double>* row) {
  const double n = ranks;
  const double part = (n - 1) / n * bytes;
  switch (kind) {
    case CollectiveKind::kAllReduce:
      *row = {1.0, 2 * (n - 1), part, part};
      return true;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kAllToAll:
      *row = {1.0, n - 1, part, 0.0};
      return true;
    case CollectiveKind::kReduceScatter:
      *row = {1.0, n - 1, 0.0, part};
      return true;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
      return false;
  }
  return false;
}

Result<MultiFit> fit_kind_steps(CollectiveKind kind, int ranks,
                                const std::vector<CollectivePoint>& points, double overhead_seconds,
                                cost::AlphaBeta step, LinkProfile::KindSteps* out) {
  // s and X(M) from the closed forms: one alpha per step and no bandwidth
  // term, then the bandwidth term alone.
  auto closed = [&](double bytes, cost::AlphaBeta ab) {
    cost::CollectiveQuery q;
    q.kind = kind;
    q.algorithm = CollectiveAlgorithm::kRing;
    q.ranks = ranks;
    q.bytes = bytes;
    q.intra = ab;
    auto c = cost::collective_cost(q);
    return c.is_ok() ? c->seconds : 0.0;
  };
  const double inf = std::numeric_limits<double>::infinity();
  struct Use {
    double bytes, steps, bandwidth_seconds, seconds;  // seconds: T - overhead (warm: T)
  };
  std::vector<Use> use;
  std::vector<std::vector<double>> rows;
  std::vector<double> times;
  for (const CollectivePoint& p : points) {
    const double t = p.seconds - overhead_seconds;
    if (!(t > 0) || !(p.bytes > 0)) continue;
    const Use u{p.bytes, closed(p.bytes, cost::AlphaBeta{1.0, inf, inf}),
                closed(p.bytes, cost::AlphaBeta{0.0, step.bandwidth_bytes_per_second,
                                                step.reduce_bandwidth_bytes_per_second}),
                t};
    use.push_back(u);
    rows.push_back({u.steps, u.bandwidth_seconds});
    times.push_back(t);
  }
  if (use.size() < 2)
    return Status::error("found " + std::to_string(use.size()) + " usable " +
                         std::string(collective_kind_name(kind)) +
                         " points; expected at least 2 measured above the collective overhead");
  BRIGADE_ASSIGN_OR_RETURN(MultiFit f, fit_nonnegative(rows, times));
  LinkProfile::KindSteps ks;
  ks.alpha_seconds = f.coefficients[0];
  ks.bandwidth_scale.fallback =
      f.coefficients[1] > 0 ? std::clamp(1.0 / f.coefficients[1], 0.01, 100.0) : 1.0;
  // At least a quarter of the time is the bandwidth's: the scale is then at
  // most 4 X / (T - overhead), finite and positive; no clamp, so the judges
  // reproduce the point.
  auto add_scale = [](const Use& u, double seconds, double alpha, EfficiencyCurve& curve) {
    const double bandwidth_part = seconds - u.steps * alpha;
    if (!(u.bandwidth_seconds > 0) || bandwidth_part < 0.25 * seconds) return;
    curve.points.emplace_back(u.bytes, u.bandwidth_seconds / bandwidth_part);
  };
  for (const Use& u : use) add_scale(u, u.seconds, ks.alpha_seconds, ks.bandwidth_scale);
  // Warm: the same fit of the back-to-back times, whole (a warm collective
  // pays no call overhead), for the warm alpha and mean scale; then each
  // size's own scale at that alpha.
  std::vector<std::vector<double>> warm_rows;
  std::vector<double> warm_times;
  std::vector<Use> warm_use;
  for (const CollectivePoint& p : points) {
    if (!(p.warm_seconds > 0) || !(p.bytes > 0)) continue;
    const Use u{p.bytes, closed(p.bytes, cost::AlphaBeta{1.0, inf, inf}),
                closed(p.bytes, cost::AlphaBeta{0.0, step.bandwidth_bytes_per_second,
                                                step.reduce_bandwidth_bytes_per_second}),
                p.warm_seconds};
    warm_use.push_back(u);
    warm_rows.push_back({u.steps, u.bandwidth_seconds});
    warm_times.push_back(u.seconds);
  }
  if (warm_use.size() >= 2) {
    auto wf = fit_nonnegative(warm_rows, warm_times);
    if (wf.is_ok()) {
      ks.warm_alpha_seconds = wf->coefficients[0];
      ks.warm_bandwidth_scale.fallback =
          wf->coefficients[1] > 0 ? std::clamp(1.0 / wf->coefficients[1], 0.01, 100.0) : 1.0;
      for (const Use& u : warm_use)
        add_scale(u, u.seconds, ks.warm_alpha_seconds, ks.warm_bandwidth_scale);
    }
  }
  *out = std::move(ks);
  return f;
}

}  // namespace brigade::realexec
