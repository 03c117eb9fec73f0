#include "gui/model/calibration_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "gui/model/model_tr.hpp"

namespace brigade::gui {

namespace {

constexpr int kPerDecade = 8;  // model points per decade of x

std::string fmt_efficiency(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", e);
  return buf;
}

// Points from lo to hi, evenly in log x, both ends included, and the
// samples' own x (so that the model's line passes exactly where they lie).
std::vector<double> log_space(double lo, double hi, const std::vector<double>& also = {}) {
  std::vector<double> x;
  if (!(lo > 0) || !(hi > lo)) return {lo};
  const int n = std::max(2, static_cast<int>(std::ceil(std::log10(hi / lo) * kPerDecade)) + 1);
  for (int i = 0; i < n; ++i) x.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
  x.insert(x.end(), also.begin(), also.end());
  std::sort(x.begin(), x.end());
  x.erase(std::unique(x.begin(), x.end()), x.end());
  return x;
}

// The x range of samples widened 4x each way, or a default.
std::pair<double, double> range_of(const std::vector<double>& xs, double lo, double hi) {
  if (xs.empty()) return {lo, hi};
  const auto [a, b] = std::minmax_element(xs.begin(), xs.end());
  return {*a / 4, *b * 4};
}

const DeviceProfile* entry(const HardwareProfile& p, const std::string& model) {
  for (const DeviceProfile& d : p.devices)
    if (d.model == model) return &d;
  return nullptr;
}

// A device of `model`: the topology's own when it has one (its data-sheet
// peaks), else one that only the profile describes.
Device device_of(const Topology* topology, const std::string& model) {
  if (topology)
    for (const Device& d : topology->devices())
      if (d.model == model) return d;
  Device d;
  d.model = model;
  d.name = "device";
  return d;
}

// A series of samples' legend: "f32 measured".
std::string measured_name(std::string_view what) {
  return fill_args(model_tr("CalibrationPlots", "%1 measured"), {what});
}

std::string fit_description(const std::string& name) {
  if (name == "memory") return model_tr("CalibrationPlots", "streaming kernels: T = α + bytes / B");
  if (name == "collective_step")
    return model_tr("CalibrationPlots",
                    "collective steps, all kinds together: T = overhead + s α + "
                    "copied / B + reduced / B_r");
  if (name.rfind("link.", 0) == 0)
    return fill_args(model_tr("CalibrationPlots", "transfers over %1: T = α + bytes / B"),
                     {name.substr(5)});
  if (name.rfind("collective.", 0) == 0) return name.substr(11) + ": T = a + b M";
  if (name.rfind("steps.", 0) == 0)
    return fill_args(model_tr("CalibrationPlots", "%1's own steps (α and scale by size)"),
                     {name.substr(6)});
  if (name.rfind("gemm.", 0) == 0)
    return fill_args(model_tr("CalibrationPlots", "%1 GEMM curve against its samples"),
                     {name.substr(5)});
  return "";
}

// The star that brigade calibrate measures on: `ranks` devices of `model`
// around one switch, links of class `c` at the profile's bandwidth for it
// (the cpu-host preset for host threads over shared memory).
Result<Topology> calibration_star(const HardwareProfile& profile, const std::string& model,
                                  LinkClass c, int ranks) {
  if (profile.machine_kind == "cpu" && c == LinkClass::kSharedMemory) {
    BRIGADE_ASSIGN_OR_RETURN(Topology t, make_preset("cpu-host", 1, ranks));
    return t;
  }
  const double bw = profile.for_link(c).bandwidth_bytes_per_second;
  if (!(bw > 0)) return Status::error("no bandwidth for " + std::string(link_class_name(c)));
  Topology t;
  Device d = device_of(nullptr, model);
  for (int i = 0; i < ranks; ++i) {
    d.name = "rank" + std::to_string(i);
    d.local_index = i;
    t.add_device(d);
  }
  const int sw = t.add_switch(Switch{"switch", 0});
  for (int i = 0; i < ranks; ++i)
    t.add_link(Link{i, sw, 0, bw, c, "rank" + std::to_string(i) + "<->switch"});
  BRIGADE_RETURN_IF_ERROR(t.validate());
  return t;
}

// A collective group to draw the model on: a topology, its ranks, a label.
struct Group {
  const Topology* topology = nullptr;
  std::vector<int> ranks;
  std::string label;
  LinkClass link_class = LinkClass::kNvlink;
};

int group_of(CollectiveKind k) {
  return static_cast<int>(k);
}

void gemm_plot(const HardwareProfile& profile, const DeviceProfile& p, const Device& device,
               CalibrationPlots& out) {
  CalibrationPlot& plot = out.gemm;
  plot.title =
      model_tr("CalibrationPlots", "GEMM efficiency (of each dtype's peak) against FLOP per GEMM");
  plot.x_title = model_tr("CalibrationPlots", "FLOP per GEMM (log scale)");
  plot.y_title = model_tr("CalibrationPlots", "efficiency");
  const CalibrationSamples& s = profile.calibration;
  std::vector<double> xs;
  std::set<int> sampled;
  for (const auto& g : s.gemm) {
    xs.push_back(g.flops);
    sampled.insert(dtype_index(g.dtype));
  }
  for (int i = 0; i < kNumDTypes; ++i)
    for (const auto& [f, e] : p.gemm[static_cast<size_t>(i)].points) xs.push_back(f);
  const auto [lo, hi] = range_of(xs, 1e6, 1e15);
  const std::vector<double> x = log_space(lo, hi, xs);
  // Each dtype's line; dtypes with the same line share it.
  std::vector<std::pair<std::string, XY>> lines;
  std::vector<int> line_dtype;
  std::vector<std::string> unpeaked;
  const bool any_points = std::any_of(p.gemm.begin(), p.gemm.end(),
                                      [](const EfficiencyCurve& e) { return !e.points.empty(); });
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto dt = static_cast<DType>(i);
    const EfficiencyCurve& c = p.gemm[static_cast<size_t>(i)];
    const bool has_points = !c.points.empty();
    // The dtypes measured (samples or a curve with points; identical lines
    // merge below); a profile of data sheets alone (flat curves): every
    // dtype the device computes.
    if (any_points || !sampled.empty()
            ? !(sampled.count(i) || has_points)
            : !(device.peak_flops_per_second[static_cast<size_t>(i)] > 0 ||
                p.peak_flops_per_second[static_cast<size_t>(i)] > 0))
      continue;
    const double peak = peak_flops_per_second(device, p, dt);
    XY xy;
    if (peak > 0) {
      // What a GEMM of F FLOP achieves under the judges' roofline, its
      // operands' bytes aside (calibrate's squares are warm).
      for (double f : x) {
        const double t =
            kernel_seconds(device, p, dt, f, 0, ComputeKind::kGemm, 0) - p.launch_overhead_seconds;
        if (t > 0) xy.emplace_back(f, f / peak / t);
      }
    } else {
      unpeaked.push_back(std::string(dtype_name(dt)));
      for (double f : x) xy.emplace_back(f, c.at(f));
    }
    bool merged = false;
    for (size_t l = 0; l < lines.size() && !merged; ++l)
      if (lines[l].second == xy) {
        lines[l].first += " = " + std::string(dtype_name(dt));
        merged = true;
      }
    if (!merged) {
      std::string name(dtype_name(dt));
      lines.emplace_back(name, std::move(xy));
      line_dtype.push_back(i);
    }
  }
  std::string peaks;
  for (size_t l = 0; l < lines.size(); ++l) {
    const auto dt = static_cast<DType>(line_dtype[l]);
    const double peak = peak_flops_per_second(device, p, dt);
    if (peak > 0)
      peaks +=
          (peaks.empty() ? "" : ", ") + std::string(dtype_name(dt)) + " " + format_flops_rate(peak);
    PlotSeries model;
    model.name = lines[l].first;
    model.group = line_dtype[l];
    model.xy = lines[l].second;
    XY measured;
    for (const auto& g : s.gemm)
      if (dtype_index(g.dtype) == line_dtype[l]) measured.emplace_back(g.flops, g.efficiency);
    if (measured.size() >= 2) {
      const EfficiencyCurve& c = p.gemm[static_cast<size_t>(line_dtype[l])];
      const std::string name = "gemm." + std::string(dtype_name(dt));
      out.fits.push_back(
          {name, fit_description(name), r_squared_of(measured, [&](double f) { return c.at(f); })});
    }
    plot.series.push_back(std::move(model));
    if (!measured.empty()) {
      PlotSeries m;
      m.name = measured_name(lines[l].first.substr(0, lines[l].first.find(' ')));
      m.group = line_dtype[l];
      m.measured = true;
      m.xy = std::move(measured);
      plot.series.push_back(std::move(m));
    }
  }
  if (!peaks.empty())
    plot.notes.push_back(fill_args(model_tr("CalibrationPlots", "peaks: %1"), {peaks}));
  if (!unpeaked.empty()) {
    std::string list;
    for (const auto& u : unpeaked) list += (list.empty() ? "" : ", ") + u;
    plot.notes.push_back(
        fill_args(model_tr("CalibrationPlots",
                           "no peak known for %1: the curve alone (no half-performance time)"),
                  {list}));
  }
}

// The streaming plot's colours: the plain stream 0, the norm's forward and
// backward lines these and the next, the activation's and the gated
// activation's likewise.
constexpr int kNormGroup = 1, kActivationGroup = 3, kGatedGroup = 5;

void memory_plot(const HardwareProfile& profile, const DeviceProfile& p, const Device& device,
                 CalibrationPlots& out) {
  CalibrationPlot& plot = out.memory;
  plot.title =
      model_tr("CalibrationPlots", "Streaming kernels: bandwidth against bytes per kernel");
  plot.x_title = model_tr("CalibrationPlots", "bytes per kernel (log scale)");
  plot.y_title = model_tr("CalibrationPlots", "bandwidth (bytes / kernel time)");
  plot.y_is_bandwidth = true;
  const CalibrationSamples& s = profile.calibration;
  std::vector<double> xs;
  for (const auto& m : s.memory) xs.push_back(m.bytes);
  const auto [lo, hi] = range_of(xs, 4096, 4.0 * (1 << 30));
  const double peak = peak_memory_bandwidth_bytes_per_second(device, p);
  if (peak > 0) {
    PlotSeries model;
    model.name = fill_args(model_tr("CalibrationPlots", "model: %1 x %2, launch %3"),
                           {format_bandwidth(peak), fmt_efficiency(p.memory_efficiency),
                            format_seconds(p.launch_overhead_seconds)});
    for (double b : log_space(lo, hi, xs)) {
      const double t = kernel_seconds(device, p, DType::kF32, 0, b, ComputeKind::kMemoryBound);
      if (t > 0) model.xy.emplace_back(b, b / t);
    }
    plot.series.push_back(std::move(model));
    // The norms' and activations' kernels where the profile gives them a
    // rate of their own (calibrate's LayerNorm and GeLU, a preset's measured
    // ones, SwiGLU's): a line each, at the class's efficiency; a backward class only
    // where it differs from its forward.
    const struct {
      KernelClass kernel;
      std::string label;
      double efficiency, forward;
      int group;  // a colour each: the plain stream's line and samples are group 0
    } classes[] = {
        {KernelClass::kNormForward, model_tr("CalibrationPlots", "norm"), p.norm_forward_efficiency,
         0, kNormGroup},
        {KernelClass::kNormBackward, model_tr("CalibrationPlots", "norm backward"),
         p.norm_backward_efficiency, p.norm_forward_efficiency, kNormGroup + 1},
        {KernelClass::kActivationForward, model_tr("CalibrationPlots", "activation"),
         p.activation_forward_efficiency, 0, kActivationGroup},
        {KernelClass::kActivationBackward, model_tr("CalibrationPlots", "activation backward"),
         p.activation_backward_efficiency, p.activation_forward_efficiency, kActivationGroup + 1},
        // A gated activation (SwiGLU) where its rate differs from the
        // activation's, which it otherwise takes.
        {KernelClass::kGatedForward, model_tr("CalibrationPlots", "gated activation"),
         p.gated_activation_forward_efficiency, p.activation_forward_efficiency, kGatedGroup},
        {KernelClass::kGatedBackward, model_tr("CalibrationPlots", "gated activation backward"),
         p.gated_activation_backward_efficiency, p.gated_activation_forward_efficiency,
         kGatedGroup + 1}};
    for (const auto& c : classes) {
      if (!(c.efficiency > 0) || c.efficiency == c.forward) continue;
      PlotSeries line;
      line.group = c.group;
      // The peak is the plain stream's line's: the efficiency alone, so
      // that the legend keeps it in view beside three or more lines.
      line.name = fill_args(model_tr("CalibrationPlots", "%1 model x %2"),
                            {c.label, fmt_efficiency(c.efficiency)});
      for (double b : log_space(lo, hi, xs)) {
        const double t =
            kernel_seconds(device, p, DType::kF32, 0, b, ComputeKind::kMemoryBound, 0, c.kernel);
        if (t > 0) line.xy.emplace_back(b, b / t);
      }
      plot.series.push_back(std::move(line));
    }
  } else {
    plot.notes.push_back(fill_args(model_tr("CalibrationPlots",
                                            "no memory bandwidth known for %1 (neither measured "
                                            "nor a data sheet's): no model line"),
                                   {p.model}));
  }
  if (!s.memory.empty()) {
    PlotSeries m;
    m.name = model_tr("CalibrationPlots", "measured");
    m.measured = true;
    for (const auto& x : s.memory)
      if (x.seconds > 0) m.xy.emplace_back(x.bytes, x.bytes / x.seconds);
    plot.series.push_back(std::move(m));
  }
  // Calibrate's LayerNorm, GeLU and SwiGLU at the same sizes, in their
  // lines' colours (the forward classes' groups above).
  for (const auto& [samples, name, group] :
       {std::tuple{&s.norm, model_tr("CalibrationPlots", "norm measured"), kNormGroup},
        std::tuple{&s.activation, model_tr("CalibrationPlots", "activation measured"),
                   kActivationGroup},
        std::tuple{&s.gated, model_tr("CalibrationPlots", "gated activation measured"),
                   kGatedGroup}}) {
    if (samples->empty()) continue;
    PlotSeries m;
    m.name = name;
    m.measured = true;
    m.group = group;
    for (const auto& x : *samples)
      if (x.seconds > 0) m.xy.emplace_back(x.bytes, x.bytes / x.seconds);
    plot.series.push_back(std::move(m));
  }
}

// The link classes to draw and, for each, a pair of devices and a group of
// ranks on some topology. `owned` keeps the stars built for a profile.
struct LinkSetup {
  std::vector<Group> transfers;    // two ranks each
  std::vector<Group> collectives;  // the model's groups
};

LinkSetup link_setup(const HardwareProfile& profile, const Topology* topology,
                     const std::string& model, std::vector<Topology>& owned,
                     std::vector<std::string>& notes) {
  LinkSetup setup;
  const CalibrationSamples& s = profile.calibration;
  if (topology) {
    // A scenario: its own topology. Transfers: from device 0 to the first
    // device reached over each class; collectives: node 0's devices and one
    // device of each node (up to 8 each).
    std::map<LinkClass, int> first;
    for (int d = 1; d < topology->num_devices(); ++d) {
      const Route& r = topology->route(0, d);
      if (!r.channels.empty()) first.emplace(r.slowest_class, d);
    }
    for (const auto& [c, d] : first)
      setup.transfers.push_back(
          {topology, {0, d}, topology->device(0).name + " -> " + topology->device(d).name, c});
    std::vector<int> node0, heads;
    std::set<int> nodes;
    for (const Device& d : topology->devices()) {
      if (d.node == topology->device(0).node && node0.size() < 8) node0.push_back(d.id);
      if (nodes.insert(d.node).second && heads.size() < 8) heads.push_back(d.id);
    }
    if (node0.size() >= 2)
      setup.collectives.push_back({topology, node0,
                                   fill_args(model_tr("CalibrationPlots", "%n rank(s) in node %1",
                                                      nullptr, plural_count(node0.size())),
                                             {std::to_string(topology->device(0).node)}),
                                   topology->route(node0[0], node0[1]).slowest_class});
    if (heads.size() >= 2)
      setup.collectives.push_back({topology, heads,
                                   model_tr("CalibrationPlots", "%n node(s), one rank each",
                                            nullptr, plural_count(heads.size())),
                                   topology->route(heads[0], heads[1]).slowest_class});
    return setup;
  }
  // A profile alone: the classes it measured (samples or a bandwidth), on
  // the star calibrate used, with the samples' rank counts (else 8 ranks).
  std::set<LinkClass> classes;
  for (const auto& l : s.links) classes.insert(l.link_class);
  for (int c = 0; c < kNumLinkClasses; ++c)
    if (profile.links[static_cast<size_t>(c)].bandwidth_bytes_per_second > 0)
      classes.insert(static_cast<LinkClass>(c));
  std::set<int> rank_counts;
  for (const auto& c : s.collectives) rank_counts.insert(c.ranks);
  if (rank_counts.empty()) rank_counts.insert(8);
  owned.reserve(classes.size() * (rank_counts.size() + 1));
  for (LinkClass c : classes) {
    auto pair = calibration_star(profile, model, c, 2);
    if (!pair.is_ok()) {
      notes.push_back(std::string(link_class_name(c)) + ": " + pair.message());
      continue;
    }
    owned.push_back(std::move(pair).value());
    setup.transfers.push_back({&owned.back(), {0, 1}, std::string(link_class_name(c)), c});
    for (int n : rank_counts) {
      if (n < 2) continue;
      auto star = calibration_star(profile, model, c, n);
      if (!star.is_ok()) continue;
      owned.push_back(std::move(star).value());
      std::vector<int> ranks;
      for (int i = 0; i < n; ++i) ranks.push_back(i);
      setup.collectives.push_back(
          {&owned.back(), ranks,
           fill_args(model_tr("CalibrationPlots", "%n rank(s) over %1", nullptr, n),
                     {link_class_name(c)}),
           c});
    }
  }
  if (classes.empty())
    notes.push_back(model_tr("CalibrationPlots",
                             "no link measured in this profile: transfers and collectives take "
                             "the topology's bandwidths (open a scenario that names the profile "
                             "to see them)"));
  return setup;
}

void transfer_plot(const HardwareProfile& profile, const LinkSetup& setup, CalibrationPlots& out) {
  CalibrationPlot& plot = out.transfers;
  plot.title = model_tr("CalibrationPlots", "Transfers: bandwidth against bytes, per link class");
  plot.x_title = model_tr("CalibrationPlots", "bytes (log scale)");
  plot.y_title = model_tr("CalibrationPlots", "bandwidth (bytes / time)");
  plot.y_is_bandwidth = true;
  const CalibrationSamples& s = profile.calibration;
  std::vector<double> xs;
  for (const auto& l : s.links) xs.push_back(l.bytes);
  const auto [lo, hi] = range_of(xs, 1024, 1.0 * (1 << 30));
  for (const Group& g : setup.transfers) {
    const Route& r = g.topology->route(g.ranks[0], g.ranks[1]);
    const double alpha = route_alpha_seconds(r, profile);
    const double bw = route_bandwidth_bytes_per_second(r, *g.topology, profile);
    PlotSeries model;
    model.name = g.label + ": α " + format_seconds(alpha) + ", " + format_bandwidth(bw);
    model.group = static_cast<int>(g.link_class);
    for (double b : log_space(lo, hi, xs)) model.xy.emplace_back(b, b / (alpha + b / bw));
    plot.series.push_back(std::move(model));
    PlotSeries m;
    m.name = measured_name(link_class_name(g.link_class));
    m.group = static_cast<int>(g.link_class);
    m.measured = true;
    for (const auto& l : s.links)
      if (l.link_class == g.link_class && l.seconds > 0)
        m.xy.emplace_back(l.bytes, l.bytes / l.seconds);
    if (!m.xy.empty()) plot.series.push_back(std::move(m));
  }
}

void collective_plot(const HardwareProfile& profile, const LinkSetup& setup,
                     CalibrationPlots& out) {
  CalibrationPlot& plot = out.collectives;
  plot.title =
      model_tr("CalibrationPlots", "Collectives: bus bandwidth against size (nccl-tests' busBw)");
  plot.x_title = model_tr("CalibrationPlots", "size M (bytes, log scale)");
  plot.y_title = model_tr("CalibrationPlots", "bus bandwidth");
  plot.y_is_bandwidth = true;
  const CalibrationSamples& s = profile.calibration;
  std::vector<double> xs;
  for (const auto& c : s.collectives) xs.push_back(c.bytes);
  const auto [lo, hi] = range_of(xs, 1024, 1.0 * (1 << 30));
  const std::vector<double> x = log_space(lo, hi, xs);
  if (setup.collectives.size() == 1)
    plot.notes.push_back(fill_args(model_tr("CalibrationPlots", "ring algorithm, %1"),
                                   {setup.collectives[0].label}));
  if (setup.collectives.size() > 1)
    plot.notes.push_back(
        fill_args(model_tr("CalibrationPlots", "ring algorithm; solid: %1; dashed: %2"),
                  {setup.collectives[0].label, setup.collectives[1].label}));
  for (size_t gi = 0; gi < setup.collectives.size(); ++gi) {
    const Group& g = setup.collectives[gi];
    const int n = static_cast<int>(g.ranks.size());
    for (int k = 0; k < kNumCollectiveKinds; ++k) {
      const auto kind = static_cast<CollectiveKind>(k);
      PlotSeries model;
      model.name = std::string(collective_kind_name(kind));
      model.group = group_of(kind);
      model.dashed = gi > 0;
      for (double m : x) {
        auto q = cost::collective_query_on(*g.topology, profile, kind, CollectiveAlgorithm::kRing,
                                           g.ranks, m);
        if (!q.is_ok()) break;
        auto c = cost::collective_cost(*q);
        if (c.is_ok() && c->bus_bandwidth_bytes_per_second > 0)
          model.xy.emplace_back(m, c->bus_bandwidth_bytes_per_second);
      }
      if (!model.xy.empty()) plot.series.push_back(std::move(model));
      PlotSeries meas;
      meas.name = measured_name(collective_kind_name(kind));
      meas.group = group_of(kind);
      meas.measured = true;
      for (const auto& c : s.collectives)
        if (c.kind == kind && c.ranks == n && c.seconds > 0)
          meas.xy.emplace_back(c.bytes, c.bytes / c.seconds * cost::bus_bandwidth_factor(kind, n));
      if (!meas.xy.empty()) plot.series.push_back(std::move(meas));
    }
  }
}

}  // namespace

std::string no_samples_note() {
  return model_tr("CalibrationPlots", "no samples in this profile: the fits alone");
}

bool CalibrationPlot::has_samples() const {
  return std::any_of(series.begin(), series.end(), [](const PlotSeries& s) { return s.measured; });
}

std::vector<std::string> calibration_models(const HardwareProfile& profile,
                                            const Topology* topology) {
  std::vector<std::string> models;
  if (topology) {
    for (const Device& d : topology->devices()) {
      const std::string m = profile.for_device(d).model;
      if (std::find(models.begin(), models.end(), m) == models.end()) models.push_back(m);
    }
    return models;
  }
  for (const DeviceProfile& d : profile.devices) models.push_back(d.model);
  return models;
}

CalibrationPlots calibration_plots(const HardwareProfile& profile, const Topology* topology,
                                   const std::string& model) {
  CalibrationPlots out;
  out.model = model;
  out.has_samples = !profile.calibration.empty();
  const DeviceProfile* p = entry(profile, model);
  Device device = device_of(topology, model);
  if (p) {
    gemm_plot(profile, *p, device, out);
    memory_plot(profile, *p, device, out);
  }
  std::vector<Topology> owned;
  std::vector<std::string> notes;
  const LinkSetup setup = link_setup(profile, topology, model, owned, notes);
  transfer_plot(profile, setup, out);
  collective_plot(profile, setup, out);
  out.transfers.notes = notes;
  if (out.collectives.series.empty()) out.collectives.notes = notes;
  if (!out.has_samples) {
    const std::string why = no_samples_note();
    for (CalibrationPlot* plot : {&out.gemm, &out.memory, &out.transfers, &out.collectives})
      plot->notes.insert(plot->notes.begin(), why);
  }
  for (const auto& [name, r2] : profile.calibration.r_squared)
    out.fits.push_back({name, fit_description(name), r2});
  return out;
}

}  // namespace brigade::gui
