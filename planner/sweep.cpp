#include "planner/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "costmodel/scaling.hpp"

namespace brigade::planner {

namespace {

const std::vector<std::string>& keys() {
  static const std::vector<std::string> k = {
      "data",         "tensor",    "pipeline",          "zero",        "virtual_stages",
      "schedule",     "recompute", "sequence_parallel", "micro_batch", "global_batch",
      "bucket_bytes", "overlap",   "data_mode",         "algorithm"};
  return k;
}

std::string canonical(const std::string& key) {
  for (const char* prefix : {"strategy.", "training."})
    if (key.rfind(prefix, 0) == 0) return key.substr(std::string(prefix).size());
  return key;
}

Result<std::int64_t> positive(const std::string& flag, const std::string& v, std::int64_t min = 1) {
  std::int64_t x = 0;
  size_t used = 0;
  try {
    x = std::stoll(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty() || x < min)
    return Status::error(flag + ": found '" + v + "'; expected " +
                         (min == 0 ? "a whole number >= 0" : "a positive integer"));
  return x;
}

Result<bool> boolean(const std::string& flag, const std::string& v) {
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  return Status::error(flag + ": found '" + v + "'; expected true or false");
}

// Grows a topology to at least `n` devices by whole nodes of its preset.
Result<Topology> grow(const Topology& t, int n) {
  if (n <= t.num_devices()) return t;
  std::string name = t.preset;
  if (name.rfind("cluster(", 0) == 0) {
    const auto comma = name.find(", ");
    const auto close = name.find_first_of(",)", comma + 2);
    name = comma == std::string::npos ? "" : name.substr(comma + 2, close - comma - 2);
  }
  int per_node = 0;
  for (const Device& d : t.devices()) per_node += d.node == 0;
  if (per_node <= 0) per_node = t.num_devices();
  // The fabric between nodes, as the links into a switch that spans nodes.
  FabricSpec fabric;
  bool has_fabric = false;
  for (const Link& l : t.links()) {
    for (int v : {l.a, l.b}) {
      if (v < t.num_devices()) continue;
      const Switch& s = t.switches()[static_cast<size_t>(v - t.num_devices())];
      if (s.node >= 0 || has_fabric) continue;
      fabric.bandwidth_bytes_per_second = l.bandwidth_bytes_per_second;
      fabric.latency_seconds = l.latency_seconds;
      fabric.link_class = l.link_class;
      has_fabric = true;
    }
  }
  const int nodes = (n + per_node - 1) / per_node;
  auto grown =
      make_preset(name, nodes, name == "cpu-host" ? per_node : 0, has_fabric ? &fabric : nullptr);
  if (!grown.is_ok())
    return Status::error("--devices: " + std::to_string(n) +
                         " devices need a bigger topology than '" + t.preset + "' (" +
                         std::to_string(t.num_devices()) +
                         " devices), and its preset cannot be grown: " + grown.message());
  return grown;
}

// The first n devices of t, with the switches and links they use.
Result<Topology> first_devices(const Topology& t, int n) {
  const int nd = t.num_devices();
  std::vector<int> used_switch(t.switches().size(), 0);
  auto kept = [&](int v) { return v < nd ? v < n : true; };
  for (const Link& l : t.links())
    if (kept(l.a) && kept(l.b)) {
      if (l.a >= nd) used_switch[static_cast<size_t>(l.a - nd)] = 1;
      if (l.b >= nd) used_switch[static_cast<size_t>(l.b - nd)] = 1;
    }
  Topology out;
  out.preset = t.preset;
  for (int d = 0; d < n; ++d) out.add_device(t.device(d));
  std::vector<int> vertex(t.switches().size(), -1);
  for (size_t i = 0; i < t.switches().size(); ++i)
    if (used_switch[i]) vertex[i] = out.add_switch(t.switches()[i]);
  for (const Link& l : t.links()) {
    if (!kept(l.a) || !kept(l.b)) continue;
    Link x = l;
    if (x.a >= nd) x.a = vertex[static_cast<size_t>(x.a - nd)];
    if (x.b >= nd) x.b = vertex[static_cast<size_t>(x.b - nd)];
    out.add_link(x);
  }
  BRIGADE_RETURN_IF_ERROR(out.validate());
  return out;
}

}  // namespace

Result<Topology> resize_topology(const Topology& t, int devices) {
  if (devices == t.num_devices()) return t;
  BRIGADE_ASSIGN_OR_RETURN(Topology big, grow(t, devices));
  return first_devices(big, devices);
}

std::vector<std::string> sweep_keys() {
  return keys();
}

Result<Scenario> sweep_variant(const Scenario& base, const std::string& raw_key,
                               const std::string& value) {
  Scenario s = base;
  StrategySpec& st = s.strategy;
  const std::string key = canonical(raw_key);
  const std::string flag = raw_key == "devices" ? "--devices" : "--set " + raw_key;
  if (key == "devices") {
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t n, positive(flag, value));
    if (n > ScenarioLimits::kMaxDevices)  // before a topology of n devices is made
      return Status::error(flag + ": found '" + value + "'; expected at most " +
                           std::to_string(ScenarioLimits::kMaxDevices) +
                           " devices (docs/scenario-format.md, \"Limits\")");
    const int devices = static_cast<int>(n);
    switch (s.model_kind) {
      case ModelKind::kTransformer: {
        const int tp = st.tensor * st.pipeline;
        if (devices % tp != 0)
          return Status::error(
              "--devices: " + value +
              " devices are not a multiple of tensor x pipeline = " + std::to_string(tp));
        st.data = devices / tp;
        break;
      }
      case ModelKind::kCollective:
        s.collective.group.clear();
        for (int d = 0; d < devices; ++d) s.collective.group.push_back(d);
        break;
      default:
        if (s.mesh || !s.placement.empty())
          return Status::error(
              "--devices: the scenario fixes its devices (mesh or placement); "
              "sweep a strategy key with --set instead");
        st.data = devices;
        break;
    }
    s.has_strategy = true;
    BRIGADE_ASSIGN_OR_RETURN(s.topology, resize_topology(s.topology, devices));
    return s;
  }
  if (key == "data" || key == "tensor" || key == "pipeline" || key == "virtual_stages") {
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t x, positive(flag, value));
    (key == "data"       ? st.data
     : key == "tensor"   ? st.tensor
     : key == "pipeline" ? st.pipeline
                         : st.virtual_stages) = static_cast<int>(x);
  } else if (key == "zero") {
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t x, positive(flag, value, 0));
    if (x > 3) return Status::error(flag + ": found '" + value + "'; expected 0, 1, 2 or 3");
    st.zero = static_cast<int>(x);
  } else if (key == "micro_batch" || key == "global_batch") {
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t x, positive(flag, value));
    (key == "micro_batch" ? s.training.micro_batch : s.training.global_batch) = x;
  } else if (key == "bucket_bytes") {
    auto q = parse_quantity(value, Dimension::kBytes);
    if (!q.is_ok() || *q <= 0)
      return Status::error(flag + ": found '" + value + "'; expected a size such as 25MB");
    st.bucket_bytes = *q;
  } else if (key == "schedule") {
    if (value == "gpipe")
      st.schedule = PipelineSchedule::kGpipe;
    else if (value == "1f1b")
      st.schedule = PipelineSchedule::k1F1B;
    else if (value == "interleaved")
      st.schedule = PipelineSchedule::kInterleaved;
    else
      return Status::error(flag + ": found '" + value +
                           "'; expected one of gpipe, 1f1b, interleaved");
  } else if (key == "recompute") {
    if (value == "none")
      s.training.recompute = Recompute::kNone;
    else if (value == "selective")
      s.training.recompute = Recompute::kSelective;
    else if (value == "full")
      s.training.recompute = Recompute::kFull;
    else
      return Status::error(flag + ": found '" + value + "'; expected one of none, selective, full");
  } else if (key == "data_mode") {
    if (value == "batch")
      st.data_mode = DataMode::kBatch;
    else if (value == "pmap")
      st.data_mode = DataMode::kPmap;
    else
      return Status::error(flag + ": found '" + value + "'; expected batch or pmap");
  } else if (key == "sequence_parallel" || key == "overlap") {
    BRIGADE_ASSIGN_OR_RETURN(const bool x, boolean(flag, value));
    (key == "overlap" ? st.overlap : st.sequence_parallel) = x;
  } else if (key == "algorithm") {
    auto a = parse_collective_algorithm(value);
    if (!a)
      return Status::error(flag + ": found '" + value +
                           "'; expected one of ring, tree, halving-doubling, hierarchical");
    st.algorithm = *a;
    if (s.model_kind == ModelKind::kCollective) s.collective.algorithm = *a;
  } else {
    std::string list;
    for (const auto& k : keys()) list += (list.empty() ? "" : ", ") + k;
    auto near = closest_match_in(key, keys());
    return Status::error("--set: found key '" + raw_key + "'; expected one of " + list +
                         (near ? " (did you mean '" + *near + "'?)" : ""));
  }
  s.has_strategy = true;
  const int n = st.tensor * st.pipeline * st.data;
  if (s.model_kind == ModelKind::kTransformer || s.model_kind == ModelKind::kMlp) {
    BRIGADE_ASSIGN_OR_RETURN(s.topology, resize_topology(s.topology, n));
  }
  return s;
}

namespace {
int devices_of(const Scenario& s) {
  if (s.model_kind == ModelKind::kCollective)
    return s.collective.group.empty() ? s.topology.num_devices()
                                      : static_cast<int>(s.collective.group.size());
  if (s.mesh) {
    std::int64_t n = 1;
    for (auto d : s.mesh->shape) n *= d;
    return static_cast<int>(n);
  }
  if (!s.placement.empty()) return s.topology.num_devices();
  return s.strategy.tensor * s.strategy.pipeline * s.strategy.data;
}
}  // namespace

Result<SweepResult> run_sweep(const Scenario& base, const SweepSpec& spec,
                              const std::string& judge_name, const SweepJudge& judge,
                              const SweepProgress& progress) {
  if (spec.values.empty())
    return Status::error(std::string(spec.key == "devices" ? "--devices" : "--set " + spec.key) +
                         ": found no values; expected a list such as 1,2,4,8");
  std::vector<Scenario> variants;
  for (const std::string& v : spec.values) {
    BRIGADE_ASSIGN_OR_RETURN(Scenario s, sweep_variant(base, spec.key, v));
    variants.push_back(std::move(s));
  }
  SweepResult r;
  r.key = spec.key;
  r.judge = judge_name;
  for (size_t i = 0; i < variants.size(); ++i) {
    SweepPoint pt;
    pt.value = spec.values[i];
    pt.devices = devices_of(variants[i]);
    auto t = judge(variants[i]);
    if (t.is_ok())
      pt.step_seconds = *t;
    else
      pt.error = t.message();
    r.points.push_back(pt);
    if (progress) progress(static_cast<int>(i + 1), static_cast<int>(variants.size()), pt);
  }
  // Speedup and efficiency against the first judged point.
  const SweepPoint* first = nullptr;
  for (const SweepPoint& p : r.points)
    if (p.error.empty() && p.step_seconds > 0) {
      first = &p;
      break;
    }
  for (const SweepPoint& p : r.points)
    if (first && p.error.empty() && p.step_seconds > 0 && p.devices != first->devices)
      r.devices_vary = true;
  if (first) {
    for (SweepPoint& p : r.points) {
      if (!p.error.empty() || p.step_seconds <= 0) continue;
      p.speedup = first->step_seconds / p.step_seconds;
      p.relative_step = p.step_seconds / first->step_seconds;
      if (r.devices_vary) p.efficiency = p.speedup / (static_cast<double>(p.devices) / first->devices);
    }
  }
  // Where adding devices stops paying: the last point (in increasing device
  // order) whose step time beat every smaller configuration's, when the next
  // larger one is no faster.
  std::vector<const SweepPoint*> judged;
  for (const SweepPoint& p : r.points)
    if (p.error.empty() && p.step_seconds > 0) judged.push_back(&p);
  std::stable_sort(judged.begin(), judged.end(), [](const SweepPoint* a, const SweepPoint* b) {
    return a->devices < b->devices;
  });
  for (size_t i = 1; i < judged.size(); ++i) {
    if (judged[i]->devices == judged[i - 1]->devices) continue;
    if (judged[i]->step_seconds >= judged[i - 1]->step_seconds) {
      r.stops_paying_after = judged[i - 1]->devices;
      break;
    }
  }
  // Amdahl's p from the speedups, in devices relative to the first point
  // (costmodel/scaling.hpp, fit_amdahl), when the device count varies.
  if (first && r.devices_vary && base.model_kind == ModelKind::kCollective) {
    r.amdahl_note =
        "no Amdahl fit: a lone collective has no work that divides over the devices (each rank "
        "moves its M bytes whatever their number; a ring's time grows as (N-1)/N), so a "
        "parallel fraction means nothing here";
  } else if (first) {
    std::vector<cost::SpeedupPoint> pts;
    for (const SweepPoint* p : judged)
      pts.push_back({static_cast<double>(p->devices) / first->devices, p->speedup});
    bool varies = false;
    for (const auto& p : pts) varies |= p.devices > 1;
    if (pts.size() >= 2 && varies) {
      auto fit = cost::fit_amdahl(pts);
      if (fit.is_ok()) {
        r.amdahl_p = fit->p;
        r.r_squared = fit->r_squared;
        r.doubling_limit = cost::amdahl_doubling_limit(fit->p) * first->devices;
        if (fit->p < 0)
          r.amdahl_note =
              "the fitted p is not a parallel fraction (Amdahl's law needs 0 <= p <= 1): the step "
              "only grows with the devices, whatever of it is parallel is outweighed by what "
              "adding devices costs";
        else if (fit->p > 1)
          r.amdahl_note =
              "the fitted p is not a parallel fraction (Amdahl's law needs 0 <= p <= 1): the "
              "speedup is better than linear (per-device work fits caches or memory better)";
      }
    }
  }
  return r;
}

Result<SweepResult> amdahl_through_plan(const Scenario& base, const SweepJudge& judge) {
  if (base.model_kind == ModelKind::kCollective)
    return Status::error(
        "a lone collective has no work that divides over the devices (each rank moves its M "
        "bytes whatever their number)");
  if (base.mesh || !base.placement.empty() || !base.device_put.empty())
    return Status::error(
        "the scenario fixes its devices (a mesh or a placement): no other device count to judge");
  const StrategySpec& st = base.strategy;
  const int unit = base.model_kind == ModelKind::kTransformer ? st.tensor * st.pipeline : 1;
  const int d = std::max(1, st.data);
  std::vector<int> degrees;
  for (int x = 1; x <= 2 * d; x *= 2) degrees.push_back(x);
  if (std::find(degrees.begin(), degrees.end(), d) == degrees.end()) degrees.push_back(d);
  std::sort(degrees.begin(), degrees.end());
  SweepSpec spec;
  for (int x : degrees) spec.values.push_back(std::to_string(unit * x));
  return run_sweep(base, spec, "cost", judge);
}

void add_amdahl_through_plan(const Scenario& sc, cost::PlanEstimate& e) {
  const SweepJudge judge = [](const Scenario& s) -> Result<double> {
    auto r = cost::estimate_plan(s);
    if (!r.is_ok()) return r.status();
    return r->step_seconds;
  };
  auto r = amdahl_through_plan(sc, judge);
  e.amdahl.clear();
  if (!r.is_ok()) {
    e.amdahl_note = "none: " + r.message();
    return;
  }
  for (const SweepPoint& p : r->points)
    if (p.error.empty()) e.amdahl.push_back({p.devices, p.speedup, p.efficiency});
  if (r->amdahl_p) {
    e.amdahl_p = *r->amdahl_p;
    e.amdahl_r_squared = r->r_squared.value_or(0);
    e.amdahl_note = r->amdahl_note;
  } else {
    e.amdahl.clear();
    e.amdahl_note = r->amdahl_note.empty() ? "none: fewer than two device counts could be judged"
                                           : r->amdahl_note;
  }
}

std::string sweep_csv(const SweepResult& r) {
  std::string s = "value,devices,step_seconds,speedup,efficiency,error\n";
  char buf[128];
  for (const SweepPoint& p : r.points) {
    std::string err = p.error;
    std::replace(err.begin(), err.end(), '"', '\'');
    if (r.devices_vary || !p.error.empty())
      std::snprintf(buf, sizeof buf, ",%d,%.9g,%.6g,%.6g,", p.devices, p.step_seconds, p.speedup,
                    p.efficiency);
    else
      std::snprintf(buf, sizeof buf, ",%d,%.9g,%.6g,,", p.devices, p.step_seconds, p.speedup);
    s += p.value + buf + (err.empty() ? "" : "\"" + err + "\"") + "\n";
  }
  return s;
}

nlohmann::json sweep_json(const SweepResult& r) {
  nlohmann::json j;
  j["key"] = r.key;
  j["judge"] = r.judge;
  nlohmann::json pts = nlohmann::json::array();
  for (const SweepPoint& p : r.points) {
    nlohmann::json x = {{"value", p.value},
                        {"devices", p.devices},
                        {"step_seconds", p.step_seconds},
                        {"speedup", p.speedup},
                        {"relative_step", p.relative_step},
                        {"efficiency", r.devices_vary ? nlohmann::json(p.efficiency) : nlohmann::json()}};
    if (!p.error.empty()) x["error"] = p.error;
    pts.push_back(x);
  }
  j["points"] = pts;
  j["amdahl_p"] = r.amdahl_p ? nlohmann::json(*r.amdahl_p) : nlohmann::json();
  j["r_squared"] = r.r_squared ? nlohmann::json(*r.r_squared) : nlohmann::json();
  j["devices_vary"] = r.devices_vary;
  if (!r.amdahl_note.empty()) j["amdahl_note"] = r.amdahl_note;
  j["stops_paying_after"] =
      r.stops_paying_after ? nlohmann::json(*r.stops_paying_after) : nlohmann::json();
  j["doubling_limit"] = r.doubling_limit && std::isfinite(*r.doubling_limit)
                            ? nlohmann::json(*r.doubling_limit)
                            : nlohmann::json();
  return j;
}

std::string sweep_text(const SweepResult& r) {
  std::string s;
  char buf[256];
  // With --devices the value is the device count: one column for both.
  const bool by_devices = r.key == "devices";
  auto lead = [&](const std::string& value, const std::string& devices) {
    char col[128];
    if (by_devices)
      std::snprintf(col, sizeof col, "%8s", devices.c_str());
    else
      std::snprintf(col, sizeof col, "%-14s %8s", value.c_str(), devices.c_str());
    return std::string(col);
  };
  // Efficiency only means something against a device count: at one count,
  // each step relative to the first point's instead.
  if (r.devices_vary)
    std::snprintf(buf, sizeof buf, " %14s %9s %11s\n", "step", "speedup", "efficiency");
  else
    std::snprintf(buf, sizeof buf, " %14s %9s\n", "step", "vs first");
  s += lead(r.key, "devices") + buf;
  const bool varies = r.devices_vary;
  for (const SweepPoint& p : r.points) {
    if (!p.error.empty()) {
      s += lead(p.value, std::to_string(p.devices)) + "  " + p.error + "\n";
      continue;
    }
    if (r.devices_vary)
      std::snprintf(buf, sizeof buf, " %14s %8.2fx %10.1f%%\n",
                    format_seconds(p.step_seconds).c_str(), p.speedup, 100 * p.efficiency);
    else
      std::snprintf(buf, sizeof buf, " %14s %8.3fx\n", format_seconds(p.step_seconds).c_str(),
                    p.relative_step);
    s += lead(p.value, std::to_string(p.devices)) + buf;
  }
  if (r.amdahl_p) {
    const double p = *r.amdahl_p;
    if (p <= 0)
      std::snprintf(buf, sizeof buf,
                    "Amdahl fit: p = %.4f (R^2 = %.4f): no parallel part; more devices only add "
                    "cost\n",
                    p, r.r_squared.value_or(0));
    else if (p < 1)
      std::snprintf(buf, sizeof buf,
                    "Amdahl fit: p = %.4f (R^2 = %.4f): at most %.1fx however many devices\n", p,
                    r.r_squared.value_or(0), 1 / (1 - p));
    else
      std::snprintf(buf, sizeof buf, "Amdahl fit: p = %.4f (R^2 = %.4f): no serial part seen\n", p,
                    r.r_squared.value_or(0));
    s += buf;
    if (!r.amdahl_note.empty()) s += "  " + r.amdahl_note + "\n";
    if (p > 0 && p < 1 && r.doubling_limit && std::isfinite(*r.doubling_limit)) {
      std::snprintf(buf, sizeof buf,
                    "  doubling the devices beyond about %.0f gains less than 10%%\n",
                    *r.doubling_limit);
      s += buf;
    }
  }
  if (!r.amdahl_p && !r.amdahl_note.empty()) s += r.amdahl_note + "\n";
  if (r.stops_paying_after)
    s += "Adding devices stops paying after " + std::to_string(*r.stops_paying_after) +
         " devices: the next point is no faster.\n";
  else if (varies && std::all_of(r.points.begin(), r.points.end(),
                                  [](const SweepPoint& p) { return p.error.empty(); }))
    s += "Every step up in devices was faster.\n";
  return s;
}

}  // namespace brigade::planner
