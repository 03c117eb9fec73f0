#include "core/profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/gemm_waves.hpp"
#include "core/presets_profiles.hpp"

namespace brigade {

double EfficiencyCurve::at(double work) const {
  if (points.empty()) return fallback;
  if (work <= points.front().first) return points.front().second;
  if (work >= points.back().first) return points.back().second;
  auto hi = std::lower_bound(points.begin(), points.end(), work,
                             [](const std::pair<double, double>& p, double w) { return p.first < w; });
  auto lo = hi - 1;
  const double x0 = std::log(lo->first), x1 = std::log(hi->first), x = std::log(work);
  const double t = (x1 > x0) ? (x - x0) / (x1 - x0) : 0.0;
  return lo->second + t * (hi->second - lo->second);
}

namespace {

EfficiencyCurve flat(double e_max) {
  EfficiencyCurve c;
  c.fallback = e_max;
  return c;
}

}  // namespace

HardwareProfile HardwareProfile::defaults(NcclVersion version) {
  HardwareProfile h;
  h.name = "datasheet";
  h.machine_kind = "datasheet";
  h.source = "the presets' profiles (core/presets_profiles.cpp: kernel- and collective-level "
             "measurements, each with its source)";
  // GPUs: GEMM curves, streaming and launch from micro-benchmarks, NCCL's
  // tuning tables (core/presets_profiles.cpp).
  for (DeviceProfile& p : preset_gpu_profiles(version)) h.devices.push_back(std::move(p));
  {
    // A host thread running Eigen: ~70% of AVX2 FMA peak on large GEMMs (Eigen
    // benchmark pages, single-threaded sgemm). t_half 0.3 us: the 32^3 GEMM
    // (65.5 kFLOP) ran at 0.70 of the 128^3 rate in this project's first CPU
    // calibration (docs/VALIDATION.md), ideal 0.68 us -> t = 0.68 * (1/0.7 - 1).
    DeviceProfile p;
    p.model = "host-thread";
    for (int i = 0; i < kNumDTypes; ++i) p.gemm[static_cast<size_t>(i)] = flat(0.7);
    p.gemm_half_seconds = 0.3e-6;
    p.memory_efficiency = 0.8;
    p.launch_overhead_seconds = 2e-7;      // a function call and a clock read
    p.collective_overhead_seconds = 2e-6;  // a barrier among threads (futex wake-ups)
    h.devices.push_back(p);
  }
  // Any other GPU: the A100's kernels, no NCCL table.
  h.devices.push_back(preset_fallback_gpu_profile());
  // Achieved fraction of link bandwidth by bulk transfers: nccl-tests on DGX
  // A100 report ~230-240 GB/s AllReduce bus bandwidth over 300 GB/s NVLink
  // (~0.8); HDR InfiniBand reaches ~23-24 of 25 GB/s (~0.92); PCIe Gen4 P2P
  // ~25 of 31.5 GB/s (~0.8, p2pBandwidthLatencyTest).
  h.links[static_cast<size_t>(LinkClass::kNvlink)] = {-1, 0.8};
  h.links[static_cast<size_t>(LinkClass::kPcie)] = {-1, 0.8};
  h.links[static_cast<size_t>(LinkClass::kInfiniband)] = {-1, 0.92};
  h.links[static_cast<size_t>(LinkClass::kEthernet)] = {-1, 0.9};
  h.links[static_cast<size_t>(LinkClass::kSharedMemory)] = {-1, 1.0};
  return h;
}

std::optional<NcclVersion> HardwareProfile::nccl_version(bool* mixed) const {
  std::optional<NcclVersion> v;
  if (mixed) *mixed = false;
  for (const DeviceProfile& p : devices) {
    if (!p.nccl.present()) continue;
    if (v && *v != p.nccl.version) {
      if (mixed) *mixed = true;
      return std::nullopt;
    }
    v = p.nccl.version;
  }
  return v;
}

std::string_view collective_model_name(CollectiveModel m) {
  switch (m) {
    case CollectiveModel::kAuto: return "auto";
    case CollectiveModel::kNccl: return "nccl";
    case CollectiveModel::kAlphaBeta: return "alpha-beta";
  }
  return "?";
}

std::optional<CollectiveModel> parse_collective_model(std::string_view s) {
  for (auto m : {CollectiveModel::kAuto, CollectiveModel::kNccl, CollectiveModel::kAlphaBeta})
    if (s == collective_model_name(m)) return m;
  return std::nullopt;
}

const DeviceProfile& HardwareProfile::for_device(const Device& d) const {
  for (const DeviceProfile& p : devices)
    if (p.model == d.model) return p;
  for (const DeviceProfile& p : devices)
    if (p.model == "*") return p;
  static const DeviceProfile kFallback = [] {
    HardwareProfile h = HardwareProfile::defaults();
    return h.devices.back();
  }();
  return kFallback;
}

std::vector<std::string> HardwareProfile::uncovered_models(const Topology& topology) const {
  std::vector<std::string> lines;
  if (devices.empty()) return lines;  // a profile of links alone
  for (const DeviceProfile& p : devices)
    if (p.model == "*") return lines;
  std::vector<std::pair<std::string, std::vector<std::string>>> missing;  // model, device names
  for (int i = 0; i < topology.num_devices(); ++i) {
    const Device& d = topology.device(i);
    if (std::any_of(devices.begin(), devices.end(),
                    [&](const DeviceProfile& p) { return p.model == d.model; }))
      continue;
    auto it = std::find_if(missing.begin(), missing.end(),
                           [&](const auto& m) { return m.first == d.model; });
    if (it == missing.end()) it = missing.insert(missing.end(), {d.model, {}});
    it->second.push_back(d.name);
  }
  for (const auto& [model, names] : missing) {
    std::string list;
    const size_t shown = std::min<size_t>(names.size(), 3);
    for (size_t i = 0; i < shown; ++i) list += (i ? ", " : "") + names[i];
    if (names.size() > shown) list += " and " + std::to_string(names.size() - shown) + " more";
    lines.push_back("profile '" + name + "' has no entry for device model '" + model +
                    "' (devices " + list + "): they keep the data sheet's defaults");
  }
  return lines;
}

// 2mnk FLOP per product: one multiply and one add per inner-product term
// (e.g. Narayanan et al. 2021, §5.1).
double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
         static_cast<double>(batch);
}

double gemm_bytes(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype, std::int64_t batch) {
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  return (md * kd + kd * nd + md * nd) * dtype_bytes(dtype) * static_cast<double>(batch);
}

double gemm_written_bytes(std::int64_t m, std::int64_t n, DType dtype, std::int64_t batch) {
  return static_cast<double>(m) * static_cast<double>(n) * dtype_bytes(dtype) *
         static_cast<double>(batch);
}

double task_written_bytes(const Task& task) {
  if (task.kind != TaskKind::kCompute || task.compute != ComputeKind::kGemm) return 0;
  return gemm_written_bytes(task.m, task.n, task.dtype, task.batch);
}

double peak_flops_per_second(const Device& d, const DeviceProfile& p, DType dtype) {
  const auto i = static_cast<size_t>(dtype_index(dtype));
  const auto f32 = static_cast<size_t>(dtype_index(DType::kF32));
  if (p.peak_flops_per_second[i] > 0) return p.peak_flops_per_second[i];
  if (d.peak_flops_per_second[i] > 0) return d.peak_flops_per_second[i];
  if (p.peak_flops_per_second[f32] > 0) return p.peak_flops_per_second[f32];
  return d.peak_flops_per_second[f32];
}

double peak_memory_bandwidth_bytes_per_second(const Device& d, const DeviceProfile& p) {
  return p.memory_bandwidth_bytes_per_second > 0 ? p.memory_bandwidth_bytes_per_second
                                                 : d.memory_bandwidth_bytes_per_second;
}

double achieved_link_bandwidth_bytes_per_second(const Link& link, const HardwareProfile& profile) {
  const LinkProfile& lp = profile.for_link(link.link_class);
  const double raw = lp.bandwidth_bytes_per_second > 0 ? lp.bandwidth_bytes_per_second
                                                       : link.bandwidth_bytes_per_second;
  return raw * lp.bandwidth_efficiency;
}

double sm_share(const DeviceProfile& p, int held) {
  if (held <= 0 || p.sm_count <= 0) return 1;
  return static_cast<double>(std::max(1, p.sm_count - held)) / static_cast<double>(p.sm_count);
}

double nccl_sm_share(const DeviceProfile& p, int channels) {
  if (channels <= 0 || p.sm_count <= 0 || p.comm_compute_slowdown > 0 || p.comm_compute_share > 0)
    return 0;
  return std::min(1.0, static_cast<double>(channels) / static_cast<double>(p.sm_count));
}

double kernel_beside_collective_seconds(double kernel, double collective, double share) {
  if (share <= 0 || kernel <= 0 || collective <= 0) return kernel;
  if (share >= 1) return kernel + collective;
  // Done within the collective: the whole kernel at 1 - share of its rate.
  if (kernel <= (1 - share) * collective) return kernel / (1 - share);
  // What the collective's time leaves undone, at the whole rate after it.
  return collective + (kernel - (1 - share) * collective);
}

const FlashAttentionRates* flash_attention_rates(const DeviceProfile& p, std::int64_t head_dim,
                                                 KernelClass kernel) {
  const bool cudnn = kernel == KernelClass::kFusedAttentionForward ||
                     kernel == KernelClass::kFusedAttentionBackward;
  const std::vector<FlashAttentionRates>& table =
      cudnn && !p.fused_attention.empty() ? p.fused_attention : p.flash_attention;
  const FlashAttentionRates* best = nullptr;
  for (const FlashAttentionRates& r : table) {
    if (best == nullptr) {
      best = &r;
      continue;
    }
    const auto gap = [&](std::int64_t h) { return h > head_dim ? h - head_dim : head_dim - h; };
    if (gap(r.head_dim) < gap(best->head_dim) ||
        (gap(r.head_dim) == gap(best->head_dim) && r.head_dim < best->head_dim))
      best = &r;
  }
  return best;
}

namespace {

// The FLOPs `waves` full waves of the profile's tiles cost over the GEMM's own.
double wave_padding(const DeviceProfile& p, GemmShape shape, std::int64_t waves) {
  return static_cast<double>(waves) * static_cast<double>(p.sm_count) *
         static_cast<double>(p.gemm_tile_rows) * static_cast<double>(p.gemm_tile_cols) /
         (static_cast<double>(shape.m) * static_cast<double>(shape.n) *
          static_cast<double>(shape.batch));
}

}  // namespace

GemmWaves gemm_waves(const DeviceProfile& p, DType dtype, KernelClass kernel, GemmShape shape) {
  if (p.gemm_tile_rows <= 0 || p.gemm_tile_cols <= 0 || p.sm_count <= 0) return {};
  if (kernel != KernelClass::kGeneric || (dtype != DType::kF16 && dtype != DType::kBF16)) return {};
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0 || shape.batch <= 0) return {};
  const std::int64_t sms = p.sm_count;
  GemmWaves best;
  for (const auto& [r, c] : {std::pair{p.gemm_tile_rows, p.gemm_tile_cols},
                             std::pair{p.gemm_tile_cols, p.gemm_tile_rows}}) {
    const std::int64_t tiles = ((shape.m + r - 1) / r) * ((shape.n + c - 1) / c) * shape.batch;
    if (tiles < sms) return {};  // under one wave: smaller tiles (the curve and Hockney's fill)
    const std::int64_t w = (tiles + sms - 1) / sms;
    if (best.waves == 0 || w < best.waves) best = GemmWaves{w, tiles, r, c, 0.0};
  }
  best.filled = 1 / wave_padding(p, shape, best.waves);
  return best;
}

double gemm_wave_factor(const DeviceProfile& p, DType dtype, KernelClass kernel, GemmShape shape) {
  const GemmWaves w = gemm_waves(p, dtype, kernel, shape);
  return w.waves == 0 ? 0.0 : wave_padding(p, shape, w.waves);
}

double gemm_mix_seconds(const Device& d, const DeviceProfile& p, const Task& task,
                        std::span<const GemmMixShape> shapes) {
  if (p.gemm_tile_rows <= 0 || shapes.empty() || task.kind != TaskKind::kCompute ||
      task.compute != ComputeKind::kFixed)
    return -1;
  double seconds = 0, flops = task.flops, bytes = task.bytes;
  std::int64_t kernels = fused_kernels(task);
  for (const GemmMixShape& g : shapes) {
    const double f = gemm_flops(g.m, g.n, g.k, g.batch);
    const double b = gemm_bytes(g.m, g.n, g.k, task.dtype, g.batch);
    seconds += static_cast<double>(g.count) *
               kernel_seconds(d, p, task.dtype, f, b, ComputeKind::kGemm,
                              gemm_written_bytes(g.m, g.n, task.dtype, g.batch), task.kernel, 0,
                              0, 1, GemmShape{g.m, g.n, g.k, g.batch});
    flops -= static_cast<double>(g.count) * f;
    bytes -= static_cast<double>(g.count) * b;
    kernels -= g.count;
  }
  // The rest: what the shapes do not cover (summed in another order, so a
  // rounding's worth may remain where nothing does).
  if (kernels > 0 && flops > 1e-9 * task.flops)
    seconds += kernel_seconds(d, p, task.dtype, flops, std::max(bytes, 0.0), ComputeKind::kFixed,
                              0, task.kernel, 0, 0, kernels);
  return seconds;
}

double accumulate_seconds(const Device& d, const DeviceProfile& p, double accumulate_bytes) {
  if (!(p.gemm_accumulate_exposed > 0) || !(accumulate_bytes > 0)) return 0;
  const double rate = peak_memory_bandwidth_bytes_per_second(d, p) * p.memory_efficiency;
  return rate > 0 ? p.gemm_accumulate_exposed * accumulate_bytes / rate : 0;
}

double gemm_mix_accumulate_bytes(std::span<const GemmMixShape> shapes) {
  double bytes = 0;
  for (const GemmMixShape& g : shapes) bytes += static_cast<double>(g.count) * g.accumulate_bytes;
  return bytes;
}

std::int64_t fused_kernels(const Task& task) {
  if (task.kind != TaskKind::kCompute || task.compute == ComputeKind::kGemm) return 1;
  return std::max<std::int64_t>(1, task.batch);
}

double kernel_seconds(const Device& d, const DeviceProfile& p, DType dtype, double flops,
                      double bytes, ComputeKind kind, double written_bytes, KernelClass kernel,
                      std::int64_t seq, std::int64_t head_dim, std::int64_t fused,
                      GemmShape shape) {
  const double n = fused > 1 ? static_cast<double>(fused) : 1.0;
  if (is_flash_attention(kernel) && seq > 0 && flops > 0) {
    if (const FlashAttentionRates* r = flash_attention_rates(p, head_dim, kernel)) {
      const EfficiencyCurve& c = is_fused_attention_backward(kernel) ? r->backward : r->forward;
      const double rate = c.points.empty() ? 0 : c.at(static_cast<double>(seq));
      if (rate > 0) return n * p.launch_overhead_seconds + 0.5 * flops / rate;
    }
  }
  const double peak = peak_flops_per_second(d, p, dtype);
  double compute = 0;
  if (flops > 0 && peak > 0) {
    const EfficiencyCurve& curve = p.gemm[static_cast<size_t>(dtype_index(dtype))];
    const double wave =
        kind == ComputeKind::kGemm ? gemm_wave_factor(p, dtype, kernel, shape) : 0.0;
    if (kind == ComputeKind::kMemoryBound) {
      compute = flops / peak;
    } else if (wave > 0) {
      // The wave model: the GEMM's tiles in full waves, at the curve's rate.
      const double padded = flops * wave;
      const double eff = curve.points.empty() ? curve.fallback : curve.at(padded);
      compute = padded / (peak * std::max(eff, 1e-6));
    } else if (curve.points.empty()) {
      // Hockney's r = r_inf * n / (n + n_half) in time: t = (n / r_inf + t_half) / e_max.
      compute = (flops / peak + n * p.gemm_half_seconds) / std::max(curve.fallback, 1e-6);
    } else {
      compute = flops / (peak * std::max(curve.at(flops / n), 1e-6));
    }
    if (kernel == KernelClass::kGemmSplitAccumulator && p.fp8_split_accumulator_efficiency > 0 &&
        dtype == DType::kFP8)
      compute /= p.fp8_split_accumulator_efficiency;
    if (kind == ComputeKind::kGemm && p.gemm_cold_operand_bandwidth_bytes_per_second > 0) {
      const double written = p.gemm_cold_output_bandwidth_bytes_per_second > 0
                                 ? std::clamp(written_bytes, 0.0, bytes)
                                 : 0;
      compute += (bytes - written) / p.gemm_cold_operand_bandwidth_bytes_per_second;
      if (written > 0) compute += written / p.gemm_cold_output_bandwidth_bytes_per_second;
    }
  }
  const double mem_bw = peak_memory_bandwidth_bytes_per_second(d, p);
  double memory = 0;
  const double efficiency = streaming_efficiency(p, kernel);
  if (bytes > 0 && mem_bw > 0) memory = bytes / (mem_bw * std::max(efficiency, 1e-6));
  return n * p.launch_overhead_seconds + std::max(compute, memory);
}

double streaming_efficiency(const DeviceProfile& p, KernelClass k) {
  double own = 0;
  switch (k) {
    case KernelClass::kAttentionForward:
      own = p.attention_forward_efficiency;
      break;
    case KernelClass::kAttentionBackward:
      own = p.attention_backward_efficiency;
      break;
    case KernelClass::kNormForward:
      own = p.norm_forward_efficiency;
      break;
    case KernelClass::kNormBackward:
      own = p.norm_backward_efficiency;
      break;
    case KernelClass::kActivationForward:
      own = p.activation_forward_efficiency;
      break;
    case KernelClass::kActivationBackward:
      own = p.activation_backward_efficiency;
      break;
    case KernelClass::kGatedForward:
      own = p.gated_activation_forward_efficiency > 0 ? p.gated_activation_forward_efficiency
                                                      : p.activation_forward_efficiency;
      break;
    case KernelClass::kGatedBackward:
      own = p.gated_activation_backward_efficiency > 0 ? p.gated_activation_backward_efficiency
                                                       : p.activation_backward_efficiency;
      break;
    case KernelClass::kGeneric:
    case KernelClass::kFlashForward:
    case KernelClass::kFlashBackward:
    case KernelClass::kFusedAttentionForward:
    case KernelClass::kFusedAttentionBackward:
    case KernelClass::kGemmSplitAccumulator:
      break;
  }
  return own > 0 ? own : p.memory_efficiency;
}

double route_alpha_seconds(const Route& route, const HardwareProfile& profile) {
  if (route.channels.empty()) return 0;
  const double a = profile.for_link(route.slowest_class).alpha_seconds;
  return a >= 0 ? a : route.latency_seconds;
}

double route_bandwidth_bytes_per_second(const Route& route, const Topology& topology,
                                        const HardwareProfile& profile) {
  double bw = std::numeric_limits<double>::infinity();
  for (ChannelId c : route.channels) {
    const Link& l = topology.links()[static_cast<size_t>(link_of(c))];
    bw = std::min(bw, achieved_link_bandwidth_bytes_per_second(l, profile));
  }
  return bw;
}

}  // namespace brigade
