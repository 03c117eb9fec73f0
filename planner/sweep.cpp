#include "planner/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/tr.hpp"
#include "core/units.hpp"
#include "costmodel/scaling.hpp"
#include "planner/set_values.hpp"

namespace brigade::planner {

namespace {

const std::vector<std::string>& keys() {
  static const std::vector<std::string> k = {
      "data",         "tensor",       "pipeline",          "zero",        "virtual_stages",
      "schedule",     "recompute",    "sequence_parallel", "micro_batch", "global_batch",
      "bucket_bytes", "overlap",      "data_mode",         "algorithm",   "expert",
      "context",      "host_op_time", "devices_per_host"};
  return k;
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

namespace {

// The strategy key `raw_key` of `s` set to `value` (the topology untouched).
Status set_key(Scenario& s, const std::string& raw_key, const std::string& value) {
  StrategySpec& st = s.strategy;
  std::string key = raw_key;
  for (const char* prefix : {"strategy.", "training.", "simulation."})
    if (key.rfind(prefix, 0) == 0) key = key.substr(std::string(prefix).size());
  const std::string flag = "--set " + raw_key;
  if (key == "host_op_time") {
    // simulation.host_op_time (the host lane), not a strategy key.
    auto h = parse_quantity(value, Dimension::kSeconds);
    if (!h.is_ok() || !(*h >= 0))
      return Status::error(flag + ": found '" + value + "'; expected a duration >= 0 such as 25us");
    s.simulation.host_op_seconds = *h;
    return Status::ok();
  }
  if (key == "devices_per_host") {
    // simulation.devices_per_host: how many devices one host drives (more
    // than the topology has is one host for all of them).
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t n, parse_whole(flag, value));
    s.simulation.devices_per_host = static_cast<int>(std::min<std::int64_t>(n, 1 << 30));
    return Status::ok();
  }
  if (key == "data" || key == "tensor" || key == "pipeline" || key == "virtual_stages" ||
      key == "expert" || key == "context") {
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t x, parse_whole(flag, value));
    (key == "data"       ? st.data
     : key == "tensor"   ? st.tensor
     : key == "pipeline" ? st.pipeline
     : key == "expert"   ? st.expert
     : key == "context"  ? st.context
                         : st.virtual_stages) = static_cast<int>(x);
  } else if (key == "zero") {
    BRIGADE_ASSIGN_OR_RETURN(st.zero, parse_zero_value(flag, value));
  } else if (key == "micro_batch" || key == "global_batch") {
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t x, parse_whole(flag, value));
    (key == "micro_batch" ? s.training.micro_batch : s.training.global_batch) = x;
  } else if (key == "bucket_bytes") {
    BRIGADE_ASSIGN_OR_RETURN(st.bucket_bytes, parse_bucket_value(flag, value));
  } else if (key == "schedule") {
    BRIGADE_ASSIGN_OR_RETURN(st.schedule, parse_schedule_value(flag, value));
  } else if (key == "recompute") {
    BRIGADE_ASSIGN_OR_RETURN(const Recompute r, parse_recompute_value(flag, value));
    set_recompute(s.training, r);
  } else if (key == "data_mode") {
    if (value == "batch")
      st.data_mode = DataMode::kBatch;
    else if (value == "pmap")
      st.data_mode = DataMode::kPmap;
    else
      return Status::error(flag + ": found '" + value + "'; expected batch or pmap");
  } else if (key == "sequence_parallel" || key == "overlap") {
    BRIGADE_ASSIGN_OR_RETURN(const bool x, parse_bool_value(flag, value));
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
  return Status::ok();
}

// "devices": the data degree (or a collective's group) for `value` devices,
// the topology grown or cut to them.
Status set_devices(Scenario& s, const std::string& value) {
  StrategySpec& st = s.strategy;
  BRIGADE_ASSIGN_OR_RETURN(const std::int64_t n, parse_whole("--devices", value));
  if (n > ScenarioLimits::kMaxDevices)  // before a topology of n devices is made
    return Status::error("--devices: found '" + value + "'; expected at most " +
                         std::to_string(ScenarioLimits::kMaxDevices) +
                         " devices (docs/scenario-format.md, \"Limits\")");
  const int devices = static_cast<int>(n);
  switch (s.model_kind) {
    case ModelKind::kTransformer: {
      const int tp = st.tensor * st.pipeline * st.context;
      if (devices % tp != 0)
        return Status::error("--devices: " + value + " devices are not a multiple of tensor x " +
                             (st.context > 1 ? "context x " : "") + "pipeline = " + std::to_string(tp));
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
  return Status::ok();
}

// After strategy keys: the topology of tensor x pipeline x data devices.
Status fit_topology(Scenario& s) {
  const int n = s.strategy.tensor * s.strategy.pipeline * s.strategy.data * s.strategy.context;
  if (s.model_kind == ModelKind::kTransformer || s.model_kind == ModelKind::kMlp) {
    BRIGADE_ASSIGN_OR_RETURN(s.topology, resize_topology(s.topology, n));
  }
  return Status::ok();
}

}  // namespace

Result<Scenario> sweep_variant(const Scenario& base, const std::string& raw_key,
                               const std::string& value) {
  Scenario s = base;
  if (raw_key == "devices") {
    BRIGADE_RETURN_IF_ERROR(set_devices(s, value));
    return s;
  }
  BRIGADE_RETURN_IF_ERROR(set_key(s, raw_key, value));
  BRIGADE_RETURN_IF_ERROR(fit_topology(s));
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
  return s.strategy.tensor * s.strategy.pipeline * s.strategy.data * s.strategy.context;
}
}  // namespace

SweepJudgement sweep_judgement(const cost::PlanEstimate& e) {
  SweepJudgement j;
  j.step_seconds = e.step_seconds;
  for (const cost::DeviceMemoryEstimate& m : e.memory) {
    if (m.peak_bytes > j.peak_memory_bytes) {
      j.peak_memory_bytes = m.peak_bytes;
      j.capacity_bytes = m.capacity_bytes;
    }
    j.fits = j.fits && m.fits;
  }
  return j;
}

SweepJudgement sweep_judgement(const sim::SimResult& r, const Scenario& s) {
  SweepJudgement j;
  j.step_seconds = r.step_seconds;
  for (const sim::DeviceStats& d : r.devices)
    if (d.peak_memory_bytes > j.peak_memory_bytes) {
      j.peak_memory_bytes = d.peak_memory_bytes;
      j.capacity_bytes = s.topology.device(d.id).memory_bytes;
    }
  j.fits = r.oom.empty();
  return j;
}

Result<SweepResult> run_sweep(const Scenario& base, const SweepSpec& spec,
                              const std::string& judge_name, const SweepJudge& judge,
                              const SweepProgress& progress) {
  // The axes: the first key, then the others; "devices" is applied last
  // (its data degree depends on tensor and pipeline).
  std::vector<std::pair<std::string, std::vector<std::string>>> axes = {{spec.key, spec.values}};
  axes.insert(axes.end(), spec.more.begin(), spec.more.end());
  size_t total = 1;
  for (const auto& [key, values] : axes) {
    const std::string flag = key == "devices" ? "--devices" : "--set " + key;
    if (values.empty()) return Status::error(flag + ": found no values; expected a list such as 1,2,4,8");
    if (spec.fixed_devices && (key == "devices" || key == "data" || key == "strategy.data"))
      return Status::error(std::string(key == "devices" ? "--devices" : "--set " + key) +
                           ": found with --fixed-devices; expected keys other than devices and data "
                           "(the device count is the topology's, data fills it in)");
    // Every value parses (bad input before anything is judged).
    Scenario scratch;
    scratch.model_kind = base.model_kind == ModelKind::kCollective ? ModelKind::kCollective : ModelKind::kNone;
    for (const std::string& v : values) {
      if (key == "devices") {
        auto n = parse_whole("--devices", v);
        if (!n.is_ok()) return n.status();
      } else {
        BRIGADE_RETURN_IF_ERROR(set_key(scratch, key, v));
      }
    }
    total *= values.size();
  }
  if (spec.fixed_devices && base.model_kind != ModelKind::kTransformer)
    return Status::error("--fixed-devices: found " +
                         std::string(base.model_kind == ModelKind::kMlp ? "an mlp" : "a non-transformer") +
                         " model; expected a transformer (tensor and pipeline trade against data on a "
                         "fixed cluster)");
  SweepResult r;
  r.key = spec.key;
  for (const auto& a : axes) {
    r.keys.push_back(a.first);
    if (&a != &axes.front()) r.key += "," + a.first;
  }
  r.fixed_devices = spec.fixed_devices;
  r.judge = judge_name;
  const int fixed = base.topology.num_devices();
  std::vector<size_t> at(axes.size(), 0);
  for (size_t done = 0; done < total; ++done) {
    SweepPoint pt;
    for (size_t k = 0; k < axes.size(); ++k) {
      pt.values.push_back(axes[k].second[at[k]]);
      pt.value += (k ? "," : "") + pt.values.back();
    }
    // Made, judged and dropped: one Scenario at a time.
    Status made = Status::ok();
    std::optional<Scenario> s(base);
    const std::string* devices_value = nullptr;
    for (size_t k = 0; k < axes.size() && made.is_ok(); ++k) {
      if (axes[k].first == "devices")
        devices_value = &pt.values[k];
      else
        made = set_key(*s, axes[k].first, pt.values[k]);
    }
    if (made.is_ok()) {
      if (devices_value) {
        made = set_devices(*s, *devices_value);
      } else if (spec.fixed_devices) {
        const int tp = s->strategy.tensor * s->strategy.pipeline * s->strategy.context;
        if (fixed % tp != 0)
          made = Status::error(std::to_string(fixed) + " devices are not a multiple of tensor x " +
                               (s->strategy.context > 1 ? "context x " : "") + "pipeline = " +
                               std::to_string(tp));
        else
          s->strategy.data = fixed / tp;
      } else {
        made = fit_topology(*s);
      }
    }
    pt.devices = made.is_ok() ? devices_of(*s) : 0;
    pt.data = s->strategy.data;
    if (!made.is_ok()) {
      pt.error = made.message();
    } else {
      auto j = judge(*s);
      if (j.is_ok()) {
        pt.step_seconds = j->step_seconds;
        pt.peak_memory_bytes = j->peak_memory_bytes;
        pt.capacity_bytes = j->capacity_bytes;
        pt.fits = j->fits;
      } else {
        pt.error = j.message();
      }
    }
    s.reset();
    r.points.push_back(pt);
    if (progress) progress(static_cast<int>(done + 1), static_cast<int>(total), pt);
    for (size_t k = axes.size(); k-- > 0;) {
      if (++at[k] < axes[k].second.size()) break;
      at[k] = 0;
    }
  }
  // Speedup and efficiency (or, at a fixed device count, the step relative
  // to it) against the first judged point.
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
      if (spec.fixed_devices) {
        p.relative_step = p.step_seconds / first->step_seconds;
        continue;
      }
      p.speedup = first->step_seconds / p.step_seconds;
      p.relative_step = p.step_seconds / first->step_seconds;
      if (r.devices_vary) p.efficiency = p.speedup / (static_cast<double>(p.devices) / first->devices);
    }
  }
  if (spec.fixed_devices) return r;
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
    r.amdahl_note = tr_text(
        "Amdahl",
        "no Amdahl fit: a lone collective has no work that divides over the devices (each rank "
        "moves its M bytes whatever their number; a ring's time grows as (N-1)/N), so a "
        "parallel fraction means nothing here");
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
          r.amdahl_note = tr_text(
              "Amdahl",
              "the fitted p is not a parallel fraction (Amdahl's law needs 0 <= p <= 1): the step "
              "only grows with the devices, whatever of it is parallel is outweighed by what "
              "adding devices costs");
        else if (fit->p > 1)
          r.amdahl_note = tr_text(
              "Amdahl",
              "the fitted p is not a parallel fraction (Amdahl's law needs 0 <= p <= 1): the "
              "speedup is better than linear (per-device work fits caches or memory better)");
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
  const int unit =
      base.model_kind == ModelKind::kTransformer ? st.tensor * st.pipeline * st.context : 1;
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
  const SweepJudge judge = [](const Scenario& s) -> Result<SweepJudgement> {
    auto r = cost::estimate_plan(s);
    if (!r.is_ok()) return r.status();
    return sweep_judgement(*r);
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
  const bool grid = r.keys.size() > 1;
  std::string s;
  if (grid)
    for (const std::string& k : r.keys) s += k + ",";
  else
    s += "value,";
  s += r.fixed_devices ? "data,devices,step_seconds,relative_step,peak_memory_bytes,fits,error\n"
                       : "devices,step_seconds,speedup,efficiency,peak_memory_bytes,fits,error\n";
  char buf[192];
  for (const SweepPoint& p : r.points) {
    std::string err = p.error;
    std::replace(err.begin(), err.end(), '"', '\'');
    std::string lead;
    for (const std::string& v : p.values) lead += v + ",";
    if (lead.empty()) lead = p.value + ",";
    if (r.fixed_devices)
      std::snprintf(buf, sizeof buf, "%d,%d,%.9g,%.6g,%.0f,%s,", p.data, p.devices, p.step_seconds,
                    p.relative_step, p.peak_memory_bytes, p.fits ? "true" : "false");
    else if (r.devices_vary || !p.error.empty())
      std::snprintf(buf, sizeof buf, "%d,%.9g,%.6g,%.6g,%.0f,%s,", p.devices, p.step_seconds,
                    p.speedup, p.efficiency, p.peak_memory_bytes, p.fits ? "true" : "false");
    else  // one device count: no efficiency (SweepResult::devices_vary)
      std::snprintf(buf, sizeof buf, "%d,%.9g,%.6g,,%.0f,%s,", p.devices, p.step_seconds,
                    p.speedup, p.peak_memory_bytes, p.fits ? "true" : "false");
    s += lead + buf + (err.empty() ? "" : "\"" + err + "\"") + "\n";
  }
  return s;
}

nlohmann::json sweep_json(const SweepResult& r) {
  nlohmann::json j;
  j["key"] = r.key;
  j["keys"] = r.keys;
  j["fixed_devices"] = r.fixed_devices;
  j["judge"] = r.judge;
  nlohmann::json pts = nlohmann::json::array();
  for (const SweepPoint& p : r.points) {
    nlohmann::json x = {{"value", p.value},
                        {"values", p.values},
                        {"devices", p.devices},
                        {"data", p.data},
                        {"step_seconds", p.step_seconds},
                        {"peak_memory_bytes", p.peak_memory_bytes},
                        {"capacity_bytes", p.capacity_bytes},
                        {"fits", p.fits},
                        {"relative_step", p.relative_step}};
    if (!r.fixed_devices) {
      x["speedup"] = p.speedup;
      x["efficiency"] = r.devices_vary ? nlohmann::json(p.efficiency) : nlohmann::json();
    }
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

namespace {
// The memory column: the peak, and by how much it overflows when it does.
std::string memory_cell(const SweepPoint& p) {
  if (p.peak_memory_bytes <= 0) return "-";
  if (p.fits) return format_bytes(p.peak_memory_bytes);
  return format_bytes(p.peak_memory_bytes) + " (over " + format_bytes(p.capacity_bytes) + ")";
}
}  // namespace

std::string sweep_text(const SweepResult& r) {
  std::string s;
  char buf[256];
  const bool grid = r.keys.size() > 1;
  // With --devices the value is the device count: one column for both.
  const bool by_devices = r.key == "devices";
  auto lead = [&](const SweepPoint* p, const std::string& devices) {
    std::string col;
    char c[128];
    if (grid) {
      for (size_t k = 0; k < r.keys.size(); ++k) {
        std::snprintf(c, sizeof c, "%*s ", static_cast<int>(std::max<size_t>(r.keys[k].size(), 5)),
                      p ? p->values[k].c_str() : r.keys[k].c_str());
        col += c;
      }
      if (r.fixed_devices) {
        std::snprintf(c, sizeof c, "%5s ", p ? std::to_string(p->data).c_str() : "data");
        col += c;
      }
      std::snprintf(c, sizeof c, "%8s", devices.c_str());
      return col + c;
    }
    if (by_devices)
      std::snprintf(c, sizeof c, "%8s", devices.c_str());
    else if (r.fixed_devices)
      std::snprintf(c, sizeof c, "%-14s %5s %8s", p ? p->value.c_str() : r.key.c_str(),
                    p ? std::to_string(p->data).c_str() : "data", devices.c_str());
    else
      std::snprintf(c, sizeof c, "%-14s %8s", p ? p->value.c_str() : r.key.c_str(), devices.c_str());
    return std::string(c);
  };
  // Efficiency only means something against a device count: at one count
  // (--fixed-devices, or a sweep of micro_batch), each step relative to the
  // first point's instead.
  if (!r.devices_vary)
    std::snprintf(buf, sizeof buf, " %14s %9s  %s\n", "step", "vs first", "peak memory");
  else
    std::snprintf(buf, sizeof buf, " %14s %9s %11s  %s\n", "step", "speedup", "efficiency",
                  "peak memory");
  s += lead(nullptr, "devices") + buf;
  const bool varies = r.devices_vary;
  const SweepPoint* best = nullptr;
  for (const SweepPoint& p : r.points) {
    if (!p.error.empty()) {
      s += lead(&p, p.devices > 0 ? std::to_string(p.devices) : std::string("-")) + "  " + p.error + "\n";
      continue;
    }
    if (p.fits && p.step_seconds > 0 && (best == nullptr || p.step_seconds < best->step_seconds)) best = &p;
    if (!r.devices_vary)
      std::snprintf(buf, sizeof buf, " %14s %8.3fx  %s\n", format_seconds(p.step_seconds).c_str(),
                    p.relative_step, memory_cell(p).c_str());
    else
      std::snprintf(buf, sizeof buf, " %14s %8.2fx %10.1f%%  %s\n",
                    format_seconds(p.step_seconds).c_str(), p.speedup, 100 * p.efficiency,
                    memory_cell(p).c_str());
    s += lead(&p, std::to_string(p.devices)) + buf;
  }
  if (r.fixed_devices) {
    if (best)
      s += "Fastest that fits: " + r.key + " = " + best->value + " (data " + std::to_string(best->data) + "), " +
           format_seconds(best->step_seconds) + ".\n";
    else
      s += "No point fits in memory.\n";
    return s;
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
