// Profile files: load_profile / save_profile (YAML). The format is
// documented in docs/scenario-format.md, "Profile files"; keep both in step.
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <type_traits>
#include <utility>

#include "core/file_io.hpp"
#include "core/profile.hpp"
#include "core/profile_io_nccl.hpp"
#include "core/scenario.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {
namespace {

using yamlio::Bound;
using yamlio::Cursor;

// Factors that scale a rate (efficiencies, bandwidth scales) stay within
// six orders of magnitude of 1, so that no time the judges derive from
// them overflows (docs/scenario-format.md, "Limits").
constexpr double kMinFactor = 1e-6;
constexpr double kMaxFactor = 1e6;

std::vector<std::string> names_of_dtypes() {
  std::vector<std::string> n;
  for (int i = 0; i < kNumDTypes; ++i) n.emplace_back(dtype_name(static_cast<DType>(i)));
  return n;
}

std::vector<std::string> names_of_link_classes() {
  std::vector<std::string> n;
  for (int i = 0; i < kNumLinkClasses; ++i)
    n.emplace_back(link_class_name(static_cast<LinkClass>(i)));
  return n;
}

Status unknown_name(const Cursor& c, const std::string& what,
                    const std::vector<std::string>& names) {
  std::string msg =
      "found " + what + " " + c.found() + "; expected one of " + yamlio::join_list(names);
  if (c.is_scalar())
    if (auto m = closest_match_in(c.text(), names)) msg += " (did you mean '" + *m + "'?)";
  return c.error(msg);
}

// An efficiency: a fraction in [1e-6, 1]. The floor keeps the times the
// judges divide by it finite (docs/scenario-format.md, "Limits").
Result<double> read_efficiency(const Cursor& c) {
  return c.as_number_in(kMinFactor, 1, "an efficiency");
}

// A curve of (size, value) points: [[size, value], ...] sorted by size, a
// single value (a flat curve), or {points: [...], fallback: value}. `what`
// names the form in errors; `x` and `y` the point's parts.
template <class ReadValue>
Result<EfficiencyCurve> read_points_curve(const Cursor& c, const char* what, Dimension x_dim,
                                          const std::string& x, const std::string& y,
                                          ReadValue read_value) {
  EfficiencyCurve curve;
  Cursor points = c;
  if (c.is_scalar()) {
    BRIGADE_ASSIGN_OR_RETURN(curve.fallback, read_value(c));
    return curve;
  }
  if (c.is_map()) {
    BRIGADE_RETURN_IF_ERROR(c.check_keys({"points", "fallback"}));
    if (c.has("fallback")) {
      BRIGADE_ASSIGN_OR_RETURN(curve.fallback, read_value(c.get("fallback")));
    }
    if (!c.has("points")) return curve;
    points = c.get("points");
  }
  BRIGADE_RETURN_IF_ERROR(points.expect_list(what));
  for (const Cursor& p : points.items()) {
    const std::vector<Cursor> xy = p.items();
    if (!p.is_list() || xy.size() != 2)
      return p.error("found " + p.found() + "; expected a point [" + x + ", " + y + "]");
    BRIGADE_ASSIGN_OR_RETURN(const double at, xy[0].as_quantity(x_dim, Bound::kPositive));
    BRIGADE_ASSIGN_OR_RETURN(const double value, read_value(xy[1]));
    if (!curve.points.empty() && !(at > curve.points.back().first))
      return xy[0].error("found " + xy[0].found() + "; expected points sorted by increasing " + x);
    curve.points.emplace_back(at, value);
  }
  return curve;
}

// A GEMM efficiency curve: efficiencies by FLOP.
Result<EfficiencyCurve> read_curve(const Cursor& c) {
  return read_points_curve(
      c, "a GEMM efficiency curve: [[flops, efficiency], ...], an efficiency, or {points, fallback}",
      Dimension::kFlops, "flops", "efficiency", read_efficiency);
}

// A collective kind's bandwidth scale by size M; scales are > 0 (a kind's
// step may run faster than the fit over all kinds as well as slower).
Result<EfficiencyCurve> read_scale_curve(const Cursor& c) {
  return read_points_curve(
      c, "a bandwidth scale by size: [[bytes, scale], ...], a scale, or {points, fallback}",
      Dimension::kBytes, "bytes", "scale",
      [](const Cursor& v) { return v.as_number_in(kMinFactor, kMaxFactor, "a bandwidth scale"); });
}

std::vector<std::string> names_of_collective_kinds() {
  std::vector<std::string> n;
  for (int i = 0; i < kNumCollectiveKinds; ++i)
    n.emplace_back(collective_kind_name(static_cast<CollectiveKind>(i)));
  return n;
}

// links.C.collective_kinds: {allreduce: {alpha, bandwidth_scale}, ...}.
Status read_collective_kinds(const Cursor& c, LinkProfile* lp) {
  BRIGADE_RETURN_IF_ERROR(c.expect_map(
      "collective kinds' own steps, such as {allreduce: {alpha: 3us, bandwidth_scale: "
      "[[1MiB, 0.8], [16MiB, 0.5]]}}"));
  for (const auto& [k, v] : c.entries()) {
    std::optional<CollectiveKind> kind;
    if (k.is_scalar()) kind = parse_collective_kind(k.text());
    if (!kind) return unknown_name(k, "collective kind", names_of_collective_kinds());
    LinkProfile::KindSteps& ks = lp->collective_kinds[static_cast<size_t>(*kind)];
    BRIGADE_RETURN_IF_ERROR(
        v.expect_map("a kind's steps {alpha, bandwidth_scale, warm_alpha, warm_bandwidth_scale}"));
    BRIGADE_RETURN_IF_ERROR(
        v.check_keys({"alpha", "bandwidth_scale", "warm_alpha", "warm_bandwidth_scale"}));
    BRIGADE_ASSIGN_OR_RETURN(ks.alpha_seconds, v.get_quantity("alpha", -1, Dimension::kSeconds,
                                                              Bound::kNonNegative));
    if (v.has("bandwidth_scale")) {
      BRIGADE_ASSIGN_OR_RETURN(ks.bandwidth_scale, read_scale_curve(v.get("bandwidth_scale")));
    }
    BRIGADE_ASSIGN_OR_RETURN(ks.warm_alpha_seconds,
                             v.get_quantity("warm_alpha", -1, Dimension::kSeconds,
                                            Bound::kNonNegative));
    if (v.has("warm_bandwidth_scale")) {
      BRIGADE_ASSIGN_OR_RETURN(ks.warm_bandwidth_scale,
                               read_scale_curve(v.get("warm_bandwidth_scale")));
    }
  }
  return Status::ok();
}

// A fused attention kernel's measured rates (FlashAttention-2's under
// `flash_attention`, cuDNN's under `fused_attention`): [{head_dim: 128,
// forward: [[seq, FLOP/s], ...], backward: [...]}, ...] (core/profile.hpp,
// FlashAttentionRates), one entry per head dimension.
Result<std::vector<FlashAttentionRates>> read_flash_attention(const Cursor& c) {
  BRIGADE_RETURN_IF_ERROR(c.expect_list(
      "fused attention rates by head dimension: [{head_dim: 128, forward: [[2048, 298TFLOPS], "
      "...], backward: [...]}]"));
  auto read_rates = [](const Cursor& v) {
    return read_points_curve(v, "rates by sequence length: [[seq, FLOP/s], ...]",
                             Dimension::kNumber, "sequence length", "FLOP/s", [](const Cursor& r) {
                               return r.as_quantity(Dimension::kFlopsPerSecond, Bound::kPositive);
                             });
  };
  std::vector<FlashAttentionRates> out;
  for (const Cursor& e : c.items()) {
    BRIGADE_RETURN_IF_ERROR(e.expect_map("{head_dim, forward, backward}"));
    BRIGADE_RETURN_IF_ERROR(e.check_keys({"head_dim", "forward", "backward"}));
    BRIGADE_RETURN_IF_ERROR(e.require("head_dim", "the head dimension the rates were measured at"));
    BRIGADE_RETURN_IF_ERROR(e.require("forward", "the forward's rates by sequence length"));
    BRIGADE_RETURN_IF_ERROR(e.require("backward", "the backward's rates by sequence length"));
    FlashAttentionRates r;
    BRIGADE_ASSIGN_OR_RETURN(r.head_dim, e.get("head_dim").as_int(1, 1 << 16));
    for (const FlashAttentionRates& before : out)
      if (before.head_dim == r.head_dim)
        return e.get("head_dim")
            .error("found head_dim " + std::to_string(r.head_dim) +
                   " twice; expected one entry per head dimension");
    BRIGADE_ASSIGN_OR_RETURN(r.forward, read_rates(e.get("forward")));
    BRIGADE_ASSIGN_OR_RETURN(r.backward, read_rates(e.get("backward")));
    out.push_back(std::move(r));
  }
  return out;
}

Status read_device_profile(const Cursor& c, DeviceProfile* p) {
  BRIGADE_RETURN_IF_ERROR(c.expect_map("a device profile {model, memory_efficiency, ...}"));
  BRIGADE_RETURN_IF_ERROR(c.check_keys({"model",
                                        "peak_flops",
                                        "memory_bandwidth",
                                        "memory_efficiency",
                                        "launch_overhead",
                                        "host_op_time",
                                        "gemm_half_time",
                                        "gemm_cold_operand_bandwidth",
                                        "gemm_cold_output_bandwidth",
                                        "collective_overhead",
                                        "comm_compute_slowdown",
                                        "comm_compute_share",
                                        "sm_count",
                                        "gemm_wave_tile",
                                        "gemm",
                                        "nccl",
                                        "attention_forward_efficiency",
                                        "attention_backward_efficiency",
                                        "norm_forward_efficiency",
                                        "norm_backward_efficiency",
                                        "activation_forward_efficiency",
                                        "activation_backward_efficiency",
                                        "gated_activation_forward_efficiency",
                                        "gated_activation_backward_efficiency",
                                        "fp8_split_accumulator_efficiency",
                                        "gemm_accumulate_exposed",
                                        "flash_attention",
                                        "fused_attention"}));
  BRIGADE_RETURN_IF_ERROR(c.require("model", "the device model it describes (or \"*\" for any)"));
  BRIGADE_ASSIGN_OR_RETURN(p->model, c.get("model").as_name());
  if (c.has("peak_flops")) {
    const Cursor g = c.get("peak_flops");
    BRIGADE_RETURN_IF_ERROR(g.expect_map("measured peaks by dtype, such as {f32: 96GFLOPS}"));
    for (const auto& [k, v] : g.entries()) {
      std::optional<DType> t;
      if (k.is_scalar()) t = parse_dtype(k.text());
      if (!t) return unknown_name(k, "dtype", names_of_dtypes());
      BRIGADE_ASSIGN_OR_RETURN(p->peak_flops_per_second[static_cast<size_t>(dtype_index(*t))],
                               v.as_quantity(Dimension::kFlopsPerSecond, Bound::kPositive));
    }
  }
  BRIGADE_ASSIGN_OR_RETURN(p->memory_bandwidth_bytes_per_second,
                           c.get_quantity("memory_bandwidth", 0, Dimension::kBytesPerSecond,
                                          Bound::kPositive));
  if (c.has("memory_efficiency")) {
    BRIGADE_ASSIGN_OR_RETURN(p->memory_efficiency, read_efficiency(c.get("memory_efficiency")));
  }
  // An unfused attention core's passes (docs/costmodel.md, "The unfused
  // attention core on the A100"); absent: memory_efficiency.
  if (c.has("attention_forward_efficiency")) {
    BRIGADE_ASSIGN_OR_RETURN(p->attention_forward_efficiency,
                             read_efficiency(c.get("attention_forward_efficiency")));
  }
  if (c.has("attention_backward_efficiency")) {
    BRIGADE_ASSIGN_OR_RETURN(p->attention_backward_efficiency,
                             read_efficiency(c.get("attention_backward_efficiency")));
  }
  // Norms' and activations' passes (docs/costmodel.md, "Streaming kernels
  // by class"); absent: memory_efficiency (a gated activation's: the
  // activation's, then memory_efficiency).
  for (auto [key, field] :
       {std::pair{"norm_forward_efficiency", &p->norm_forward_efficiency},
        std::pair{"norm_backward_efficiency", &p->norm_backward_efficiency},
        std::pair{"activation_forward_efficiency", &p->activation_forward_efficiency},
        std::pair{"activation_backward_efficiency", &p->activation_backward_efficiency},
        std::pair{"gated_activation_forward_efficiency", &p->gated_activation_forward_efficiency},
        std::pair{"gated_activation_backward_efficiency", &p->gated_activation_backward_efficiency},
        // FP8 GEMMs in split accumulation (Transformer Engine's dgrad and
        // wgrad) against the fast-accumulation curve; absent: the curve's.
        std::pair{"fp8_split_accumulator_efficiency", &p->fp8_split_accumulator_efficiency}}) {
    if (c.has(key)) {
      BRIGADE_ASSIGN_OR_RETURN(*field, read_efficiency(c.get(key)));
    }
  }
  BRIGADE_ASSIGN_OR_RETURN(p->gemm_half_seconds,
                           c.get_quantity("gemm_half_time", p->gemm_half_seconds,
                                          Dimension::kSeconds, Bound::kNonNegative));
  BRIGADE_ASSIGN_OR_RETURN(p->gemm_cold_operand_bandwidth_bytes_per_second,
                           c.get_quantity("gemm_cold_operand_bandwidth", 0,
                                          Dimension::kBytesPerSecond, Bound::kPositive));
  BRIGADE_ASSIGN_OR_RETURN(p->gemm_cold_output_bandwidth_bytes_per_second,
                           c.get_quantity("gemm_cold_output_bandwidth", 0,
                                          Dimension::kBytesPerSecond, Bound::kPositive));
  if (p->gemm_cold_output_bandwidth_bytes_per_second > 0 &&
      !(p->gemm_cold_operand_bandwidth_bytes_per_second > 0))
    return c.get("gemm_cold_output_bandwidth")
        .error(
            "found gemm_cold_output_bandwidth without gemm_cold_operand_bandwidth; expected "
            "both (the output rate splits a GEMM's cold-operand term) or neither");
  BRIGADE_ASSIGN_OR_RETURN(p->launch_overhead_seconds,
                           c.get_quantity("launch_overhead", p->launch_overhead_seconds,
                                          Dimension::kSeconds, Bound::kNonNegative));
  BRIGADE_ASSIGN_OR_RETURN(p->host_op_seconds,
                           c.get_quantity("host_op_time", p->host_op_seconds, Dimension::kSeconds,
                                          Bound::kNonNegative));
  BRIGADE_ASSIGN_OR_RETURN(p->collective_overhead_seconds,
                           c.get_quantity("collective_overhead", p->collective_overhead_seconds,
                                          Dimension::kSeconds, Bound::kNonNegative));
  // A GEMM that adds into its output: the share of its extra bytes' time at
  // the streaming rate that shows (brigade-fp8-probe's `exposed`); absent: 0.
  if (c.has("gemm_accumulate_exposed")) {
    BRIGADE_ASSIGN_OR_RETURN(p->gemm_accumulate_exposed,
                             c.get("gemm_accumulate_exposed")
                                 .as_number_in(0, 100, "a share of the bytes' streaming time"));
  }
  if (c.has("comm_compute_slowdown")) {
    BRIGADE_ASSIGN_OR_RETURN(p->comm_compute_slowdown,
                             c.get("comm_compute_slowdown").as_number_in(0, 1000, "a slowdown"));
  }
  if (c.has("sm_count")) {
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t sms, c.get_int("sm_count", 0, 1, 255));
    p->sm_count = static_cast<int>(sms);
  }
  if (c.has("gemm_wave_tile")) {
    // [rows, cols] of the output tile one SM computes (the wave model,
    // DeviceProfile::gemm_tile_rows); it counts waves of sm_count.
    const Cursor v = c.get("gemm_wave_tile");
    const std::vector<Cursor> items = v.items();
    if (items.size() != 2)
      return v.error("found " + v.found() +
                     (items.empty() ? "" : " of " + std::to_string(items.size()) + " item(s)") +
                     "; expected a tile as [rows, cols], two positive integers (e.g. [256, 128])");
    BRIGADE_ASSIGN_OR_RETURN(p->gemm_tile_rows, items[0].as_int(1, 65536));
    BRIGADE_ASSIGN_OR_RETURN(p->gemm_tile_cols, items[1].as_int(1, 65536));
    if (p->sm_count <= 0)
      return c.key_of("gemm_wave_tile")
          .error("found gemm_wave_tile without sm_count; expected sm_count too (the tiles run in "
                 "waves of the device's SMs)");
  }
  if (c.has("comm_compute_share")) {
    const Cursor v = c.get("comm_compute_share");
    auto share = v.as_number(Bound::kNonNegative);
    if (!share.is_ok() || *share > 1)
      return v.error("found " + v.found() + "; expected a fraction in [0, 1]");
    p->comm_compute_share = *share;
  }
  if (c.has("gemm")) {
    const Cursor g = c.get("gemm");
    BRIGADE_RETURN_IF_ERROR(g.expect_map(
        "GEMM efficiency curves by dtype, such as {bf16: [[1e9, 0.5], [1e12, 0.85]]}"));
    for (const auto& [k, v] : g.entries()) {
      std::optional<DType> t;
      if (k.is_scalar()) t = parse_dtype(k.text());
      if (!t) return unknown_name(k, "dtype", names_of_dtypes());
      BRIGADE_ASSIGN_OR_RETURN(p->gemm[static_cast<size_t>(dtype_index(*t))], read_curve(v));
    }
  }
  if (c.has("nccl")) BRIGADE_RETURN_IF_ERROR(read_nccl_table(c.get("nccl"), &p->nccl));
  if (c.has("flash_attention")) {
    BRIGADE_ASSIGN_OR_RETURN(p->flash_attention, read_flash_attention(c.get("flash_attention")));
  }
  if (c.has("fused_attention")) {
    BRIGADE_ASSIGN_OR_RETURN(p->fused_attention, read_flash_attention(c.get("fused_attention")));
  }
  return Status::ok();
}

// A row of a sample table: a flow list of exactly `n` scalars.
Result<std::vector<Cursor>> read_row(const Cursor& row, size_t n, const std::string& form) {
  std::vector<Cursor> cells = row.items();
  if (!row.is_list() || cells.size() != n)
    return row.error("found " + row.found() + "; expected a sample " + form);
  return cells;
}

std::vector<std::string> names_of_collective_kinds_for_samples() {
  std::vector<std::string> n;
  for (int i = 0; i < kNumCollectiveKinds; ++i)
    n.emplace_back(collective_kind_name(static_cast<CollectiveKind>(i)));
  return n;
}

// The optional `calibration` map (CalibrationSamples; docs/scenario-format.md).
Status read_calibration(const Cursor& c, CalibrationSamples* out) {
  BRIGADE_RETURN_IF_ERROR(
      c.expect_map("calibration samples {r_squared, gemm, memory, norm, activation, gated, links, "
                   "collectives}"));
  BRIGADE_RETURN_IF_ERROR(c.check_keys(
      {"r_squared", "gemm", "memory", "norm", "activation", "gated", "links", "collectives"}));
  if (c.has("r_squared")) {
    const Cursor r = c.get("r_squared");
    BRIGADE_RETURN_IF_ERROR(r.expect_map("fits' R² by name, such as {memory: 0.998}"));
    for (const auto& [k, v] : r.entries()) {
      BRIGADE_ASSIGN_OR_RETURN(const double r2, v.as_number());
      if (r2 > 1) return v.error("found " + v.found() + "; expected an R² <= 1");
      out->r_squared.emplace_back(k.text(), r2);
    }
  }
  auto table = [&](const char* key, const char* form, size_t n,
                   const auto& read) -> Status {
    if (!c.has(key)) return Status::ok();
    const Cursor t = c.get(key);
    BRIGADE_RETURN_IF_ERROR(t.expect_list(std::string("a list of samples ") + form));
    for (const Cursor& row : t.items()) {
      BRIGADE_ASSIGN_OR_RETURN(const std::vector<Cursor> cells, read_row(row, n, form));
      BRIGADE_RETURN_IF_ERROR(read(cells));
    }
    return Status::ok();
  };
  auto positive = [](const Cursor& x) { return x.as_number(Bound::kPositive); };
  BRIGADE_RETURN_IF_ERROR(table("gemm", "[dtype, flops, seconds, efficiency]", 4,
                                [&](const std::vector<Cursor>& x) -> Status {
    CalibrationSamples::Gemm g;
    auto d = parse_dtype(x[0].text());
    if (!d) return unknown_name(x[0], "dtype", names_of_dtypes());
    g.dtype = *d;
    BRIGADE_ASSIGN_OR_RETURN(g.flops, positive(x[1]));
    BRIGADE_ASSIGN_OR_RETURN(g.seconds, positive(x[2]));
    BRIGADE_ASSIGN_OR_RETURN(g.efficiency, x[3].as_number(Bound::kNonNegative));
    out->gemm.push_back(g);
    return Status::ok();
  }));
  for (auto [key, list] :
       {std::pair{"memory", &out->memory}, std::pair{"norm", &out->norm},
        std::pair{"activation", &out->activation}, std::pair{"gated", &out->gated}}) {
    BRIGADE_RETURN_IF_ERROR(
        table(key, "[bytes, seconds]", 2, [&, list = list](const std::vector<Cursor>& x) -> Status {
          CalibrationSamples::Memory m;
          BRIGADE_ASSIGN_OR_RETURN(m.bytes, positive(x[0]));
          BRIGADE_ASSIGN_OR_RETURN(m.seconds, positive(x[1]));
          list->push_back(m);
          return Status::ok();
        }));
  }
  BRIGADE_RETURN_IF_ERROR(table("links", "[link class, bytes, seconds]", 3,
                                [&](const std::vector<Cursor>& x) -> Status {
    CalibrationSamples::Link l;
    auto lc = parse_link_class(x[0].text());
    if (!lc) return unknown_name(x[0], "link class", names_of_link_classes());
    l.link_class = *lc;
    BRIGADE_ASSIGN_OR_RETURN(l.bytes, positive(x[1]));
    BRIGADE_ASSIGN_OR_RETURN(l.seconds, positive(x[2]));
    out->links.push_back(l);
    return Status::ok();
  }));
  return table("collectives", "[kind, ranks, bytes, seconds, model_seconds]", 5,
               [&](const std::vector<Cursor>& x) -> Status {
    CalibrationSamples::Collective k;
    auto kind = parse_collective_kind(x[0].text());
    if (!kind) return unknown_name(x[0], "collective kind", names_of_collective_kinds_for_samples());
    k.kind = *kind;
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t ranks, x[1].as_int(1));
    k.ranks = static_cast<int>(ranks);
    BRIGADE_ASSIGN_OR_RETURN(k.bytes, positive(x[2]));
    BRIGADE_ASSIGN_OR_RETURN(k.seconds, positive(x[3]));
    BRIGADE_ASSIGN_OR_RETURN(k.model_seconds, x[4].as_number(Bound::kNonNegative));
    out->collectives.push_back(k);
    return Status::ok();
  });
}

Status read_profile(const Cursor& root, HardwareProfile* h) {
  const char* kWhat = "a hardware profile: a map with name, devices and links";
  if (root.is_null()) return root.error(std::string("found an empty document; expected ") + kWhat);
  BRIGADE_RETURN_IF_ERROR(root.expect_map(kWhat));
  BRIGADE_RETURN_IF_ERROR(
      root.check_keys({"name", "machine_kind", "source", "collective_model", "devices", "links",
                       "calibration"}));
  if (root.has("calibration"))
    BRIGADE_RETURN_IF_ERROR(read_calibration(root.get("calibration"), &h->calibration));
  BRIGADE_ASSIGN_OR_RETURN(h->name, root.get_name("name", "profile"));
  BRIGADE_ASSIGN_OR_RETURN(
      h->machine_kind,
      root.get_enum<std::string>("machine_kind", "datasheet",
                                 {{"datasheet", "datasheet"}, {"cpu", "cpu"}, {"cuda", "cuda"}}));
  BRIGADE_ASSIGN_OR_RETURN(h->source, root.get_string("source", ""));
  BRIGADE_ASSIGN_OR_RETURN(
      h->collective_model,
      root.get_enum<CollectiveModel>("collective_model", CollectiveModel::kAuto,
                                     {{"auto", CollectiveModel::kAuto},
                                      {"nccl", CollectiveModel::kNccl},
                                      {"alpha-beta", CollectiveModel::kAlphaBeta}}));
  if (root.has("devices")) {
    const Cursor devs = root.get("devices");
    BRIGADE_RETURN_IF_ERROR(devs.expect_list("a list of device profiles"));
    std::set<std::string> models;
    for (const Cursor& d : devs.items()) {
      DeviceProfile p;
      BRIGADE_RETURN_IF_ERROR(read_device_profile(d, &p));
      if (!models.insert(p.model).second)
        return d.get("model").error("found model '" + p.model +
                                    "' a second time; expected one entry per device model");
      h->devices.push_back(std::move(p));
    }
  }
  if (root.has("links")) {
    const Cursor links = root.get("links");
    BRIGADE_RETURN_IF_ERROR(links.expect_map(
        "link profiles by class, such as {nvlink: {alpha: 2us, bandwidth_efficiency: 0.8}}"));
    for (const auto& [k, v] : links.entries()) {
      std::optional<LinkClass> lc;
      if (k.is_scalar()) lc = parse_link_class(k.text());
      if (!lc) return unknown_name(k, "link class", names_of_link_classes());
      LinkProfile& lp = h->links[static_cast<size_t>(*lc)];
      BRIGADE_RETURN_IF_ERROR(
          v.expect_map("a link profile {alpha, bandwidth, bandwidth_efficiency}"));
      BRIGADE_RETURN_IF_ERROR(v.check_keys({"alpha", "bandwidth", "bandwidth_efficiency",
                                            "collective_alpha", "collective_bandwidth",
                                            "collective_reduce_bandwidth",
                                            "collective_kinds"}));
      // Absent bandwidth: the topology's links' own (LinkProfile::bandwidth_bytes_per_second 0).
      BRIGADE_ASSIGN_OR_RETURN(lp.bandwidth_bytes_per_second,
                               v.get_quantity("bandwidth", 0, Dimension::kBytesPerSecond,
                                              Bound::kPositive));
      // Absent alpha: the topology's link latencies (LinkProfile::alpha_seconds < 0).
      BRIGADE_ASSIGN_OR_RETURN(
          lp.alpha_seconds, v.get_quantity("alpha", -1, Dimension::kSeconds, Bound::kNonNegative));
      if (v.has("bandwidth_efficiency")) {
        BRIGADE_ASSIGN_OR_RETURN(lp.bandwidth_efficiency,
                                 read_efficiency(v.get("bandwidth_efficiency")));
      }
      // Absent collective figures: derived from the above (LinkProfile's comment).
      BRIGADE_ASSIGN_OR_RETURN(lp.collective_alpha_seconds,
                               v.get_quantity("collective_alpha", -1, Dimension::kSeconds,
                                              Bound::kNonNegative));
      BRIGADE_ASSIGN_OR_RETURN(lp.collective_bandwidth_bytes_per_second,
                               v.get_quantity("collective_bandwidth", 0,
                                              Dimension::kBytesPerSecond, Bound::kPositive));
      BRIGADE_ASSIGN_OR_RETURN(lp.collective_reduce_bandwidth_bytes_per_second,
                               v.get_quantity("collective_reduce_bandwidth", 0,
                                              Dimension::kBytesPerSecond, Bound::kPositive));
      if (v.has("collective_kinds"))
        BRIGADE_RETURN_IF_ERROR(read_collective_kinds(v.get("collective_kinds"), &lp));
    }
  }
  return Status::ok();
}

// Shortest text that reads back as the same double.
void emit_double(YAML::Emitter& out, double v) {
  char buf[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  out << buf;
}

// `key: v` when v > 0 (a field whose 0 means "not set").
void emit_if_positive(YAML::Emitter& out, const char* key, double v) {
  if (!(v > 0)) return;
  out << YAML::Key << key << YAML::Value;
  emit_double(out, v);
}

// A curve's points as a block list of [x, y] flow pairs.
void emit_points(YAML::Emitter& out, const EfficiencyCurve& c) {
  out << YAML::BeginSeq;
  for (const auto& [x, y] : c.points) {
    out << YAML::Flow << YAML::BeginSeq;
    emit_double(out, x);
    emit_double(out, y);
    out << YAML::EndSeq;
  }
  out << YAML::EndSeq;
}

// The `calibration` map: one flow list per sample, so a table reads as one.
void emit_calibration(YAML::Emitter& out, const CalibrationSamples& c) {
  out << YAML::Key << "calibration" << YAML::Value << YAML::BeginMap;
  if (!c.r_squared.empty()) {
    out << YAML::Key << "r_squared" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, r2] : c.r_squared) {
      out << YAML::Key << name << YAML::Value;
      emit_double(out, r2);
    }
    out << YAML::EndMap;
  }
  auto row = [&](auto... cells) {
    out << YAML::Flow << YAML::BeginSeq;
    auto cell = [&](const auto& v) {
      if constexpr (std::is_arithmetic_v<std::decay_t<decltype(v)>>)
        emit_double(out, static_cast<double>(v));
      else
        out << std::string(v);
    };
    (cell(cells), ...);
    out << YAML::EndSeq;
  };
  if (!c.gemm.empty()) {
    out << YAML::Key << "gemm" << YAML::Value << YAML::BeginSeq;
    for (const auto& g : c.gemm) row(dtype_name(g.dtype), g.flops, g.seconds, g.efficiency);
    out << YAML::EndSeq;
  }
  for (auto [key, list] : {std::pair{"memory", &c.memory}, std::pair{"norm", &c.norm},
                           std::pair{"activation", &c.activation}, std::pair{"gated", &c.gated}}) {
    if (list->empty()) continue;
    out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
    for (const auto& m : *list) row(m.bytes, m.seconds);
    out << YAML::EndSeq;
  }
  if (!c.links.empty()) {
    out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
    for (const auto& l : c.links) row(link_class_name(l.link_class), l.bytes, l.seconds);
    out << YAML::EndSeq;
  }
  if (!c.collectives.empty()) {
    out << YAML::Key << "collectives" << YAML::Value << YAML::BeginSeq;
    for (const auto& k : c.collectives)
      row(collective_kind_name(k.kind), k.ranks, k.bytes, k.seconds, k.model_seconds);
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

bool is_default_curve(const EfficiencyCurve& c) {
  return c.points.empty() && c.fallback == 1.0;
}

}  // namespace

Result<HardwareProfile> load_profile(const std::string& path) {
  std::string text;
  BRIGADE_RETURN_IF_ERROR(yamlio::read_file_text(path, "a readable profile file (YAML)", &text,
                                                 ScenarioLimits::kMaxFileBytes));
  return parse_profile(text, path);
}

Result<HardwareProfile> parse_profile(const std::string& text, const std::string& path) {
  try {
    BRIGADE_ASSIGN_OR_RETURN(const yamlio::Tree root,
                             yamlio::read_tree(text, path, "a well-formed YAML profile"));
    BRIGADE_RETURN_IF_ERROR(yamlio::check_unique_keys(root, path));
    yamlio::Document doc{path, nullptr};
    HardwareProfile h;
    h.devices.clear();
    h.links = {};
    BRIGADE_RETURN_IF_ERROR(read_profile(Cursor(&doc, root, "", SourcePos{path, 1, 1}), &h));
    return h;
  } catch (const std::exception& e) {
    return Status::at(SourcePos{path, 0, 0},
                      std::string("internal error while reading the profile: ") + e.what(),
                      ErrorKind::kInternal);
  }
}

Result<std::string> profile_yaml(const HardwareProfile& profile, const std::string& path) {
  std::string text;
  try {
    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << profile.name;
    out << YAML::Key << "machine_kind" << YAML::Value << profile.machine_kind;
    out << YAML::Key << "source" << YAML::Value << profile.source;
    if (profile.collective_model != CollectiveModel::kAuto)
      out << YAML::Key << "collective_model" << YAML::Value
          << std::string(collective_model_name(profile.collective_model));
    out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
    for (const DeviceProfile& d : profile.devices) {
      out << YAML::BeginMap;
      out << YAML::Key << "model" << YAML::Value << d.model;
      bool any_peak = false;
      for (double f : d.peak_flops_per_second) any_peak |= f > 0;
      if (any_peak) {
        out << YAML::Key << "peak_flops" << YAML::Value << YAML::BeginMap;
        for (int i = 0; i < kNumDTypes; ++i) {
          if (!(d.peak_flops_per_second[static_cast<size_t>(i)] > 0)) continue;
          out << YAML::Key << std::string(dtype_name(static_cast<DType>(i))) << YAML::Value;
          emit_double(out, d.peak_flops_per_second[static_cast<size_t>(i)]);
        }
        out << YAML::EndMap;
      }
      emit_if_positive(out, "memory_bandwidth", d.memory_bandwidth_bytes_per_second);
      out << YAML::Key << "memory_efficiency" << YAML::Value;
      emit_double(out, d.memory_efficiency);
      emit_if_positive(out, "attention_forward_efficiency", d.attention_forward_efficiency);
      emit_if_positive(out, "attention_backward_efficiency", d.attention_backward_efficiency);
      emit_if_positive(out, "norm_forward_efficiency", d.norm_forward_efficiency);
      emit_if_positive(out, "norm_backward_efficiency", d.norm_backward_efficiency);
      emit_if_positive(out, "activation_forward_efficiency", d.activation_forward_efficiency);
      emit_if_positive(out, "activation_backward_efficiency", d.activation_backward_efficiency);
      emit_if_positive(out, "gated_activation_forward_efficiency",
                       d.gated_activation_forward_efficiency);
      emit_if_positive(out, "gated_activation_backward_efficiency",
                       d.gated_activation_backward_efficiency);
      emit_if_positive(out, "fp8_split_accumulator_efficiency", d.fp8_split_accumulator_efficiency);
      emit_if_positive(out, "gemm_accumulate_exposed", d.gemm_accumulate_exposed);
      emit_if_positive(out, "gemm_half_time", d.gemm_half_seconds);
      emit_if_positive(out, "gemm_cold_operand_bandwidth",
                       d.gemm_cold_operand_bandwidth_bytes_per_second);
      emit_if_positive(out, "gemm_cold_output_bandwidth",
                       d.gemm_cold_output_bandwidth_bytes_per_second);
      out << YAML::Key << "launch_overhead" << YAML::Value;
      emit_double(out, d.launch_overhead_seconds);
      emit_if_positive(out, "host_op_time", d.host_op_seconds);
      out << YAML::Key << "collective_overhead" << YAML::Value;
      emit_double(out, d.collective_overhead_seconds);
      out << YAML::Key << "comm_compute_slowdown" << YAML::Value;
      emit_double(out, d.comm_compute_slowdown);
      emit_if_positive(out, "comm_compute_share", d.comm_compute_share);
      if (d.sm_count > 0) out << YAML::Key << "sm_count" << YAML::Value << d.sm_count;
      if (d.gemm_tile_rows > 0 && d.gemm_tile_cols > 0)
        out << YAML::Key << "gemm_wave_tile" << YAML::Value << YAML::Flow << YAML::BeginSeq
            << d.gemm_tile_rows << d.gemm_tile_cols << YAML::EndSeq;
      out << YAML::Key << "gemm" << YAML::Value << YAML::BeginMap;
      for (int i = 0; i < kNumDTypes; ++i) {
        const EfficiencyCurve& c = d.gemm[static_cast<size_t>(i)];
        if (is_default_curve(c)) continue;
        out << YAML::Key << std::string(dtype_name(static_cast<DType>(i))) << YAML::Value;
        out << YAML::BeginMap << YAML::Key << "fallback" << YAML::Value;
        emit_double(out, c.fallback);
        out << YAML::Key << "points" << YAML::Value;
        emit_points(out, c);
        out << YAML::EndMap;
      }
      out << YAML::EndMap;
      emit_nccl_table(out, d.nccl);
      for (const auto& [key, table] : {std::pair{"flash_attention", &d.flash_attention},
                                       std::pair{"fused_attention", &d.fused_attention}}) {
        if (table->empty()) continue;
        out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
        for (const FlashAttentionRates& r : *table) {
          out << YAML::BeginMap << YAML::Key << "head_dim" << YAML::Value << r.head_dim;
          out << YAML::Key << "forward" << YAML::Value;
          emit_points(out, r.forward);
          out << YAML::Key << "backward" << YAML::Value;
          emit_points(out, r.backward);
          out << YAML::EndMap;
        }
        out << YAML::EndSeq;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    out << YAML::Key << "links" << YAML::Value << YAML::BeginMap;
    for (int i = 0; i < kNumLinkClasses; ++i) {
      const LinkProfile& l = profile.links[static_cast<size_t>(i)];
      out << YAML::Key << std::string(link_class_name(static_cast<LinkClass>(i))) << YAML::Value
          << YAML::BeginMap;
      if (l.alpha_seconds >= 0) {
        out << YAML::Key << "alpha" << YAML::Value;
        emit_double(out, l.alpha_seconds);
      }
      if (l.bandwidth_bytes_per_second > 0) {
        out << YAML::Key << "bandwidth" << YAML::Value;
        emit_double(out, l.bandwidth_bytes_per_second);
      }
      out << YAML::Key << "bandwidth_efficiency" << YAML::Value;
      emit_double(out, l.bandwidth_efficiency);
      if (l.collective_alpha_seconds >= 0) {
        out << YAML::Key << "collective_alpha" << YAML::Value;
        emit_double(out, l.collective_alpha_seconds);
      }
      if (l.collective_bandwidth_bytes_per_second > 0) {
        out << YAML::Key << "collective_bandwidth" << YAML::Value;
        emit_double(out, l.collective_bandwidth_bytes_per_second);
      }
      if (l.collective_reduce_bandwidth_bytes_per_second > 0) {
        out << YAML::Key << "collective_reduce_bandwidth" << YAML::Value;
        emit_double(out, l.collective_reduce_bandwidth_bytes_per_second);
      }
      if (l.has_kind_steps()) {
        out << YAML::Key << "collective_kinds" << YAML::Value << YAML::BeginMap;
        for (int k = 0; k < kNumCollectiveKinds; ++k) {
          const LinkProfile::KindSteps& ks = l.collective_kinds[static_cast<size_t>(k)];
          if (ks.empty()) continue;
          out << YAML::Key << std::string(collective_kind_name(static_cast<CollectiveKind>(k)))
              << YAML::Value << YAML::BeginMap;
          if (ks.alpha_seconds >= 0) {
            out << YAML::Key << "alpha" << YAML::Value;
            emit_double(out, ks.alpha_seconds);
          }
          auto emit_scale = [&](const char* key, const EfficiencyCurve& curve) {
            out << YAML::Key << key << YAML::Value << YAML::BeginMap << YAML::Key << "fallback"
                << YAML::Value;
            emit_double(out, curve.fallback);
            out << YAML::Key << "points" << YAML::Value;
            emit_points(out, curve);
            out << YAML::EndMap;
          };
          emit_scale("bandwidth_scale", ks.bandwidth_scale);
          if (ks.warm_alpha_seconds >= 0) {
            out << YAML::Key << "warm_alpha" << YAML::Value;
            emit_double(out, ks.warm_alpha_seconds);
          }
          if (!ks.warm_bandwidth_scale.points.empty())
            emit_scale("warm_bandwidth_scale", ks.warm_bandwidth_scale);
          out << YAML::EndMap;
        }
        out << YAML::EndMap;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
    if (!profile.calibration.empty()) emit_calibration(out, profile.calibration);
    out << YAML::EndMap;
    if (!out.good())
      return Status::error(path + ": error: cannot write the profile (" + out.GetLastError() + ")",
                           ErrorKind::kInternal);
    text =
        std::string("# Brigade hardware profile (docs/scenario-format.md, \"Profile files\")\n") +
        out.c_str() + "\n";
  } catch (const std::exception& e) {
    return Status::error(path + ": error: cannot write the profile (" + e.what() + ")",
                         ErrorKind::kInternal);
  }
  return text;
}

Status save_profile(const HardwareProfile& profile, const std::string& path) {
  BRIGADE_ASSIGN_OR_RETURN(const std::string text, profile_yaml(profile, path));
  return write_file_atomically(path, text);
}

}  // namespace brigade
