#include "planner/explain.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "planner/explain_internal.hpp"
#include "planner/lower_internal.hpp"

namespace brigade::planner {
namespace {

using nlohmann::json;

struct Signature {
  CollectiveKind kind;
  std::string stream;
  std::vector<std::int32_t> group;
  double bytes;
  std::string reason;
};

struct DeviceFacts {
  int tasks = 0;
  std::map<int, int> collectives;  // signature -> count
  std::map<std::pair<int, std::string>, std::pair<int, double>>
      transfers;  // (peer, stream) -> count, bytes
  std::array<double, kNumMemoryCategories> resident{};
  std::array<double, kNumMemoryCategories>
      transient_peak{};  // peak of each category's transient part
  double peak = 0;       // resident + transient, at the worst task
};

struct Facts {
  std::vector<Signature> signatures;
  std::vector<DeviceFacts> devices;
  int transfers = 0;
};

Facts gather(const Program& p, int num_devices) {
  Facts f;
  f.devices.resize(static_cast<size_t>(std::max(num_devices, p.num_devices)));
  std::unordered_map<std::string, int> ids;
  std::vector<int> sig_of(p.collectives().size(), -1);
  for (size_t c = 0; c < p.collectives().size(); ++c) {
    const Collective& col = p.collectives()[c];
    const std::string& stream =
        col.tasks.empty() ? std::string()
                          : p.streams()[static_cast<size_t>(p.task(col.tasks[0]).stream)].name;
    std::string key = std::to_string(static_cast<int>(col.kind)) + "|" + stream + "|" +
                      std::to_string(col.bytes) + "|" + col.reason + "|";
    for (int d : col.group) key += std::to_string(d) + ",";
    auto [it, fresh] = ids.try_emplace(key, static_cast<int>(f.signatures.size()));
    if (fresh) f.signatures.push_back({col.kind, stream, col.group, col.bytes, col.reason});
    sig_of[c] = it->second;
  }
  for (const Buffer& b : p.buffers())
    if (b.resident)
      f.devices[static_cast<size_t>(b.device)].resident[static_cast<size_t>(b.category)] += b.bytes;
  std::vector<std::array<double, kNumMemoryCategories>> live(f.devices.size());
  std::vector<double> live_total(f.devices.size(), 0);
  for (auto& d : f.devices) {
    double r = 0;
    for (double x : d.resident) r += x;
    d.peak = r;
  }
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const Task& x = p.task(t);
    auto& d = f.devices[static_cast<size_t>(x.device)];
    ++d.tasks;
    if (x.kind == TaskKind::kCollective) {
      ++d.collectives[sig_of[static_cast<size_t>(x.collective)]];
    } else if (x.kind == TaskKind::kTransfer) {
      auto& e = d.transfers[{x.peer, p.streams()[static_cast<size_t>(x.stream)].name}];
      ++e.first;
      e.second += x.bytes;
      ++f.transfers;
    }
    auto& lv = live[static_cast<size_t>(x.device)];
    double& total = live_total[static_cast<size_t>(x.device)];
    for (BufferId b : p.allocs(t)) {
      const Buffer& buf = p.buffers()[static_cast<size_t>(b)];
      lv[static_cast<size_t>(buf.category)] += buf.bytes;
      total += buf.bytes;
    }
    double resident = 0;
    for (double r : d.resident) resident += r;
    d.peak = std::max(d.peak, resident + total);
    for (int c = 0; c < kNumMemoryCategories; ++c)
      d.transient_peak[static_cast<size_t>(c)] =
          std::max(d.transient_peak[static_cast<size_t>(c)], lv[static_cast<size_t>(c)]);
    for (BufferId b : p.frees(t)) {
      const Buffer& buf = p.buffers()[static_cast<size_t>(b)];
      lv[static_cast<size_t>(buf.category)] -= buf.bytes;
      total -= buf.bytes;
    }
  }
  return f;
}

std::string group_string(const std::vector<std::int32_t>& g) {
  std::vector<int> v(g.begin(), g.end());
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  if (sorted == v) return "[" + detail::device_ranges(v) + "]";
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

std::string kind_label(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce:
      return "AllReduce (the sauce bowl)";
    case CollectiveKind::kAllGather:
      return "AllGather (the shared platter)";
    case CollectiveKind::kReduceScatter:
      return "ReduceScatter";
    case CollectiveKind::kBroadcast:
      return "Broadcast";
    case CollectiveKind::kReduce:
      return "Reduce";
    case CollectiveKind::kAllToAll:
      return "AllToAll";
  }
  return "?";
}

double resident_total(const DeviceFacts& d) {
  double r = 0;
  for (double x : d.resident) r += x;
  return r;
}

}  // namespace

json explain_json(const Plan& plan, const Scenario& sc) {
  const Program& p = plan.program;
  const Facts f = gather(p, sc.topology.num_devices());
  json out;
  out["scenario"] = sc.name;
  out["summary"] = plan.summary;
  out["notes"] = plan.notes;
  out["parameters"] = plan.parameters;
  out["flops_per_iteration"] = plan.flops_per_iteration;
  out["granularity"] = std::string(granularity_name(plan.granularity));
  int used = 0, max_tasks = 0;
  for (const DeviceFacts& d : f.devices) {
    used += d.tasks > 0;
    max_tasks = std::max(max_tasks, d.tasks);
  }
  out["program"] = {{"tasks", p.num_tasks()},
                    {"collectives", p.collectives().size()},
                    {"transfers", f.transfers},
                    {"devices_used", used},
                    {"max_tasks_per_device", max_tasks}};
  json warnings = json::array();
  json devices = json::array();
  for (size_t d = 0; d < f.devices.size(); ++d) {
    const DeviceFacts& df = f.devices[d];
    const bool in_topology = d < static_cast<size_t>(sc.topology.num_devices());
    json dj;
    dj["id"] = d;
    dj["name"] = in_topology ? sc.topology.device(static_cast<int>(d)).name : "";
    dj["role"] = d < plan.device_role.size() ? plan.device_role[d] : "";
    const int v = d < plan.view_of_device.size() ? plan.view_of_device[d] : -1;
    dj["view"] = v >= 0 ? plan.views[static_cast<size_t>(v)].title : "unused";
    dj["shapes"] = v >= 0 ? detail::view_shapes_json(plan.views[static_cast<size_t>(v)]) : json::array();
    json cols = json::array();
    for (const auto& [sig, count] : df.collectives) {
      const Signature& s = f.signatures[static_cast<size_t>(sig)];
      cols.push_back({{"kind", std::string(collective_kind_name(s.kind))},
                      {"stream", s.stream},
                      {"group", s.group},
                      {"count", count},
                      {"bytes", s.bytes},
                      {"reason", s.reason}});
    }
    dj["collectives"] = cols;
    json xs = json::array();
    for (const auto& [key, val] : df.transfers)
      xs.push_back(
          {{"to", key.first}, {"stream", key.second}, {"count", val.first}, {"bytes", val.second}});
    dj["transfers"] = xs;
    json mem;
    for (int c = 0; c < kNumMemoryCategories; ++c)
      mem[std::string(memory_category_name(static_cast<MemoryCategory>(c)))] =
          df.resident[static_cast<size_t>(c)] + df.transient_peak[static_cast<size_t>(c)];
    mem["resident"] = resident_total(df);
    mem["peak"] = df.peak;
    if (in_topology) {
      const double cap = sc.topology.device(static_cast<int>(d)).memory_bytes;
      mem["capacity"] = cap;
      if (cap > 0 && df.peak > cap)
        warnings.push_back("device " + std::to_string(d) + " (" +
                           sc.topology.device(static_cast<int>(d)).name + ") needs " +
                           format_bytes(df.peak) + " at its peak but has " + format_bytes(cap));
    }
    dj["memory"] = mem;
    dj["tasks"] = df.tasks;
    devices.push_back(dj);
  }
  out["warnings"] = warnings;
  out["devices"] = devices;
  return out;
}

std::string explain_text(const Plan& plan, const Scenario& sc) {
  const Program& p = plan.program;
  const Facts f = gather(p, sc.topology.num_devices());
  std::string s;
  auto line = [&](const std::string& x) { s += x + "\n"; };
  line("Scenario: " + (sc.name.empty() ? sc.path : sc.name));
  line("Plan: " + plan.summary);
  for (const std::string& n : plan.notes) line("  - " + n);
  line("Model: " + format_count(plan.parameters) + " parameters (" +
       std::to_string(static_cast<long long>(plan.parameters)) + "); " +
       format_flops(plan.flops_per_iteration) + " per iteration (GEMM FLOPs)");
  line("");

  // Group devices that hold and do the same (up to who their partners are).
  std::map<std::string, std::vector<int>> groups;
  std::vector<std::string> order;
  for (size_t d = 0; d < f.devices.size(); ++d) {
    const DeviceFacts& df = f.devices[d];
    const int v = d < plan.view_of_device.size() ? plan.view_of_device[d] : -1;
    if (v < 0 && df.tasks == 0) continue;
    std::string key = std::to_string(v) + "|" + std::to_string(df.tasks) + "|";
    for (const auto& [sig, count] : df.collectives) {
      const Signature& x = f.signatures[static_cast<size_t>(sig)];
      key += std::to_string(static_cast<int>(x.kind)) + x.stream + std::to_string(x.bytes) +
             x.reason + std::to_string(x.group.size()) + "x" + std::to_string(count) + ";";
    }
    for (const auto& [k, val] : df.transfers)
      key += k.second + std::to_string(val.first) + "/" + std::to_string(val.second) + ";";
    key += format_bytes(df.peak);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(static_cast<int>(d));
  }
  line("Who holds and does what (chefs = devices, counters = memory):");
  for (const std::string& key : order) {
    const std::vector<int>& devs = groups[key];
    const int d0 = devs.front();
    const DeviceFacts& df = f.devices[static_cast<size_t>(d0)];
    const int v = d0 < static_cast<int>(plan.view_of_device.size())
                      ? plan.view_of_device[static_cast<size_t>(d0)]
                      : -1;
    line("");
    line((devs.size() > 1 ? "Devices " : "Device ") + detail::device_ranges(devs) + " (" +
         std::to_string(devs.size()) + (devs.size() > 1 ? " chefs" : " chef") + ")" +
         (v >= 0 ? ": " + plan.views[static_cast<size_t>(v)].title : ""));
    if (d0 < static_cast<int>(plan.device_role.size()))
      line(std::string(devs.size() > 1 ? "  e.g. device " + std::to_string(d0) + ": " : "  ") +
           plan.device_role[static_cast<size_t>(d0)]);
    if (v >= 0) s += detail::view_holds_text(plan.views[static_cast<size_t>(v)]);
    if (!df.collectives.empty()) {
      // Collectives that differ only in which bucket they carry read as one line.
      struct Row {
        int count = 0;
        const Signature* sig = nullptr;
        std::string why;
      };
      std::vector<Row> rows;
      std::map<std::string, size_t> index;
      for (const auto& [sig, count] : df.collectives) {
        const Signature& x = f.signatures[static_cast<size_t>(sig)];
        std::string why = x.reason.substr(0, x.reason.find("; this bucket:"));
        const std::string row_key = std::to_string(static_cast<int>(x.kind)) + "|" + x.stream +
                                    "|" + format_bytes(x.bytes) + "|" + group_string(x.group) +
                                    "|" + why;
        auto [it, fresh] = index.try_emplace(row_key, rows.size());
        if (fresh) rows.push_back({0, &x, why});
        rows[it->second].count += count;
      }
      line("  collectives per iteration:");
      for (const Row& row : rows) {
        const Signature& x = *row.sig;
        line("    " + std::to_string(row.count) + " x " + kind_label(x.kind) + " of " +
             format_bytes(x.bytes) + " over " + std::to_string(x.group.size()) + " devices " +
             group_string(x.group) + " on `" + x.stream + "`");
        line("      why: " + row.why);
      }
    }
    for (const auto& [k, val] : df.transfers)
      line("  sends " + std::to_string(val.first) + " transfer(s), " + format_bytes(val.second) +
           " in all, to device " + std::to_string(k.first) + " on `" + k.second + "`");
    std::string mem = "  memory:";
    for (int c = 0; c < kNumMemoryCategories; ++c) {
      const double r = df.resident[static_cast<size_t>(c)];
      const double t = df.transient_peak[static_cast<size_t>(c)];
      if (r + t <= 0) continue;
      mem += ' ';
      mem += memory_category_name(static_cast<MemoryCategory>(c));
      mem += ' ';
      mem += format_bytes(r + t);
      if (t > 0 && r == 0) mem += " (peak)";
      mem += ',';
    }
    mem += " peak " + format_bytes(df.peak);
    if (d0 < sc.topology.num_devices()) {
      const double cap = sc.topology.device(d0).memory_bytes;
      if (cap > 0) mem += " of " + format_bytes(cap) + (df.peak > cap ? "  DOES NOT FIT" : "");
    }
    line(mem);
    line("  tasks: " + std::to_string(df.tasks));
  }
  line("");
  int used = 0;
  for (const DeviceFacts& d : f.devices) used += d.tasks > 0;
  line("Program: " + std::to_string(p.num_tasks()) + " tasks on " + std::to_string(used) +
       " device(s), " + std::to_string(p.collectives().size()) + " collectives, " +
       std::to_string(f.transfers) + " transfers; granularity " +
       std::string(granularity_name(plan.granularity)) +
       "; memory peaks follow issue order (`brigade simulate` gives the timeline)");
  return s;
}

namespace detail {

std::string device_ranges(const std::vector<int>& devs) {
  std::string s;
  for (size_t i = 0; i < devs.size();) {
    size_t j = i;
    while (j + 1 < devs.size() && devs[j + 1] == devs[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(devs[i]);
    if (j > i) s += "-" + std::to_string(devs[j]);
    i = j + 1;
  }
  return s;
}

json view_shapes_json(const DeviceView& view) {
  auto shape = [](const std::vector<std::int64_t>& sh) {
    json a = json::array();
    for (std::int64_t d : sh) a.push_back(d);
    return a;
  };
  json shapes = json::array();
  for (const TensorView& t : view.tensors)
    shapes.push_back({{"name", t.name},
                      {"role", t.role},
                      {"global", shape(t.global_shape)},
                      {"local", shape(t.local_shape)},
                      {"dtype", std::string(dtype_name(t.dtype))},
                      {"sharding", t.sharding},
                      {"count", t.count}});
  return shapes;
}

std::string view_holds_text(const DeviceView& view) {
  std::string out = "  holds (global shape -> on this device):\n";
  for (const TensorView& t : view.tensors) {
    std::string row = "    " + t.name;
    if (t.count > 1) row += " (x" + std::to_string(t.count) + ")";
    row.resize(std::max<size_t>(row.size(), 32), ' ');
    row += " " + t.role;
    row.resize(std::max<size_t>(row.size(), 44), ' ');
    row += " " + shape_string(t.global_shape) + " -> " + shape_string(t.local_shape) + "  " + t.sharding;
    out += row + "\n";
  }
  return out;
}

}  // namespace detail
}  // namespace brigade::planner
