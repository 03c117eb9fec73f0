#include "sim/report.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.hpp"

namespace brigade::sim {
namespace {

struct Segment {
  std::int32_t device = 0;
  StreamId stream = 0;
  std::int64_t tasks = 0;
  TaskId first = -1, last = -1;
  double start_seconds = -1, end_seconds = -1;
};

// Runs of consecutive critical-path tasks on one stream.
std::vector<Segment> segments(const SimResult& r, const Program& p) {
  std::vector<Segment> out;
  const bool timed = r.task_start_seconds.size() == static_cast<size_t>(p.num_tasks());
  for (TaskId t : r.critical_path) {
    const Task& x = p.task(t);
    if (out.empty() || out.back().stream != x.stream) {
      Segment s;
      s.device = x.device;
      s.stream = x.stream;
      s.first = t;
      if (timed) s.start_seconds = r.task_start_seconds[static_cast<size_t>(t)];
      out.push_back(s);
    }
    Segment& s = out.back();
    ++s.tasks;
    s.last = t;
    if (timed) s.end_seconds = r.task_end_seconds[static_cast<size_t>(t)];
  }
  return out;
}

// Seconds of the critical path by task kind (needs task times).
std::array<double, 3> path_by_kind(const SimResult& r, const Program& p) {
  std::array<double, 3> by{};
  if (r.task_start_seconds.size() != static_cast<size_t>(p.num_tasks())) return by;
  for (TaskId t : r.critical_path)
    by[static_cast<size_t>(p.task(t).kind)] +=
        r.task_end_seconds[static_cast<size_t>(t)] - r.task_start_seconds[static_cast<size_t>(t)];
  return by;
}

// Seconds of the critical path when none of its tasks runs: before its
// first task starts, and between one task's end and the next one's start
// (a task that waited for its host's issue, or for the input pipeline;
// docs/simulator.md, "The host lane"). The tasks' durations plus this are
// the step. Needs task times.
double path_wait(const SimResult& r, const Program& p) {
  if (r.task_start_seconds.size() != static_cast<size_t>(p.num_tasks()) || r.critical_path.empty())
    return 0;
  auto start = [&](TaskId t) { return r.task_start_seconds[static_cast<size_t>(t)]; };
  auto end = [&](TaskId t) { return r.task_end_seconds[static_cast<size_t>(t)]; };
  double wait = std::max(0.0, start(r.critical_path.front()));
  for (size_t i = 1; i < r.critical_path.size(); ++i)
    wait += std::max(0.0, start(r.critical_path[i]) - end(r.critical_path[i - 1]));
  return wait;
}

std::string label(const Program& p, TaskId t) {
  if (t < 0) return "resident buffers";
  std::string s = "task " + std::to_string(t);
  const auto n = p.task_name(t);
  if (!n.empty()) s += " '" + std::string(n) + "'";
  return s;
}

std::string stream_label(const Program& p, const Topology& topo, StreamId s) {
  const Stream& st = p.streams()[static_cast<size_t>(s)];
  return topo.device(st.device).name + "/" + st.name;
}

}  // namespace

namespace {

// The kernels the busiest device runs in the step: what its host must
// issue. A fused task counts the kernels it stands for (Task::batch of a
// fixed or memory-bound task); a GEMM (batched or not) and a FlashAttention
// task are one launch each; transfers and collectives are not counted.
struct KernelLoad {
  int device = -1;
  std::int64_t kernels = 0;
  double busy_seconds = 0;
};

KernelLoad busiest_kernel_load(const SimResult& r, const Program& p) {
  KernelLoad out;
  for (const DeviceStats& d : r.devices)
    if (out.device < 0 || d.busy_seconds > out.busy_seconds) {
      out.device = d.id;
      out.busy_seconds = d.busy_seconds;
    }
  if (out.device < 0) return out;
  for (const Task& t : p.tasks())
    if (t.kind == TaskKind::kCompute && t.device == out.device)
      out.kernels += t.compute == ComputeKind::kGemm || is_flash_attention(t.kernel)
                         ? 1
                         : std::max<std::int64_t>(1, t.batch);
  return out;
}

}  // namespace

nlohmann::json simulation_json(const SimResult& r, const Program& p, const Topology& topo) {
  using nlohmann::json;
  json j;
  j["program"] = p.name;
  j["network"] = std::string(network_model_name(r.network));
  j["step_seconds"] = r.step_seconds;
  j["events"] = r.events;
  j["flows"] = r.flows;
  j["collectives_shortcut"] = r.collectives_shortcut;
  // Held by the checked shortcut, then expanded from the instant a flow joined (docs/simulator.md).
  if (r.collectives_split > 0) {
    j["collectives_split"] = r.collectives_split;
    j["holds_again"] = r.holds_again;
  }
  if (r.runs > 1) j["runs"] = r.runs;  // the checked shortcut refused collectives (docs/simulator.md)
  json devices = json::array();
  for (const DeviceStats& d : r.devices) {
    json pc = json::object();
    for (int k = 0; k < kNumMemoryCategories; ++k)
      pc[std::string(memory_category_name(static_cast<MemoryCategory>(k)))] = d.peak_by_category[static_cast<size_t>(k)];
    devices.push_back({{"id", d.id},
                       {"name", topo.device(d.id).name},
                       {"busy_seconds", d.busy_seconds},
                       {"comm_seconds", d.comm_seconds},
                       {"idle_seconds", d.idle_seconds},
                       {"exposed_comm_seconds", d.exposed_comm_seconds},
                       {"peak_memory_bytes", d.peak_memory_bytes},
                       {"capacity_bytes", d.capacity_bytes},
                       {"peak_by_category", pc}});
  }
  j["devices"] = devices;
  json links = json::array();
  for (const LinkStats& l : r.links)
    if (l.bytes > 0)
      links.push_back({{"name", l.name},
                       {"channel", l.channel},
                       {"bytes", l.bytes},
                       {"busy_seconds", l.busy_seconds},
                       {"utilization", l.utilization},
                       {"occupancy", l.occupancy},
                       {"capacity_bytes_per_second", l.capacity_bytes_per_second}});
  j["links"] = links;
  if (r.off_link_bytes > 0) j["off_link_bytes"] = r.off_link_bytes;
  json oom = json::array();
  for (const OomEvent& e : r.oom) {
    json big = json::array();
    for (const auto& [name, bytes] : e.largest_buffers) big.push_back({{"name", name}, {"bytes", bytes}});
    json by = json::object();
    for (int k = 0; k < kNumMemoryCategories; ++k)
      if (e.buffers_by_category[static_cast<size_t>(k)] > 0)
        by[std::string(memory_category_name(static_cast<MemoryCategory>(k)))] = {
            {"bytes", e.live_by_category[static_cast<size_t>(k)]},
            {"buffers", e.buffers_by_category[static_cast<size_t>(k)]}};
    oom.push_back({{"device", e.device},
                   {"time_seconds", e.time_seconds},
                   {"task", e.task},
                   {"task_name", e.task >= 0 ? std::string(p.task_name(e.task)) : std::string()},
                   {"live_bytes", e.live_bytes},
                   {"capacity_bytes", e.capacity_bytes},
                   {"live_by_category", by},
                   {"largest_buffers", big}});
  }
  j["oom"] = oom;
  json cp;
  cp["tasks"] = r.critical_path.size();
  const auto by = path_by_kind(r, p);
  cp["seconds_by_kind"] = {{"compute", by[0]}, {"transfer", by[1]}, {"collective", by[2]}};
  cp["wait_seconds"] = path_wait(r, p);
  json segs = json::array();
  for (const Segment& s : segments(r, p)) {
    json o = {{"device", s.device},
              {"stream", p.streams()[static_cast<size_t>(s.stream)].name},
              {"tasks", s.tasks},
              {"first", std::string(p.task_name(s.first))},
              {"last", std::string(p.task_name(s.last))}};
    if (s.start_seconds >= 0) {
      o["start_seconds"] = s.start_seconds;
      o["end_seconds"] = s.end_seconds;
    }
    segs.push_back(o);
  }
  cp["segments"] = segs;
  j["critical_path"] = cp;
  const KernelLoad load = busiest_kernel_load(r, p);
  if (load.kernels > 0)
    j["kernels_per_step"] = {
        {"device", load.device},
        {"kernels", load.kernels},
        {"mean_kernel_seconds", load.busy_seconds / static_cast<double>(load.kernels)},
        {"host_op_seconds", r.host_op_seconds},
        {"devices_per_host", r.devices_per_host}};
  return j;
}

std::string simulation_text(const SimResult& r, const Program& p, const Topology& topo) {
  std::string out;
  auto line = [&](const std::string& s) {
    out += s;
    out += '\n';
  };
  line(fmt::format("program '{}' on {} (network: {})", p.name, topo.preset, network_model_name(r.network)));
  line(fmt::format("step time: {}   ({} events, {} flows, {} collectives by shortcut{}{})",
                   format_seconds(r.step_seconds), r.events, r.flows, r.collectives_shortcut,
                   r.collectives_split > 0 ? fmt::format(", {} split ({} times held again)", r.collectives_split, r.holds_again)
                                           : std::string(),
                   r.runs > 1 ? fmt::format("; the last of {} runs", r.runs) : std::string()));
  line("");
  line(fmt::format("{:<16} {:>10} {:>10} {:>13} {:>10} {:>12} {:>10}", "device", "busy", "comm",
                   "exposed comm", "idle", "peak mem", "capacity"));
  const size_t nd = r.devices.size();
  const size_t shown = nd <= 16 ? nd : 8;
  for (size_t i = 0; i < shown; ++i) {
    const DeviceStats& d = r.devices[i];
    line(fmt::format("{:<16} {:>10} {:>10} {:>13} {:>10} {:>12} {:>10}", topo.device(d.id).name,
                     format_seconds(d.busy_seconds), format_seconds(d.comm_seconds),
                     format_seconds(d.exposed_comm_seconds), format_seconds(d.idle_seconds),
                     format_bytes(d.peak_memory_bytes), format_bytes(d.capacity_bytes)));
  }
  line("(busy: a kernel runs; comm: a transfer or collective in flight; exposed comm: the part "
       "of comm no kernel hides; idle: neither computing nor communicating)");
  if (shown < nd) {
    line(fmt::format("... {} more devices (--json lists them all)", nd - shown));
    auto stat = [&](auto get, const char* what) {
      double lo = get(r.devices[0]), hi = lo, sum = 0;
      for (const DeviceStats& d : r.devices) {
        lo = std::min(lo, get(d));
        hi = std::max(hi, get(d));
        sum += get(d);
      }
      return fmt::format("{:<12} min {}  mean {}  max {}", what, format_seconds(lo),
                         format_seconds(sum / static_cast<double>(nd)), format_seconds(hi));
    };
    line(stat([](const DeviceStats& d) { return d.busy_seconds; }, "busy"));
    line(stat([](const DeviceStats& d) { return d.comm_seconds; }, "comm"));
    line(stat([](const DeviceStats& d) { return d.exposed_comm_seconds; }, "exposed comm"));
    line(stat([](const DeviceStats& d) { return d.idle_seconds; }, "idle"));
  }

  line("");
  const auto by = path_by_kind(r, p);
  std::string kinds;
  if (by[0] + by[1] + by[2] > 0) {
    kinds = fmt::format(": compute {}, transfers {}, collectives {}", format_seconds(by[0]),
                        format_seconds(by[1]), format_seconds(by[2]));
    // Where the path stood still (a thousandth of the step or more).
    if (const double wait = path_wait(r, p); wait >= 1e-3 * r.step_seconds)
      kinds += fmt::format(", waiting {}{}", format_seconds(wait),
                           r.host_op_seconds > 0 ? " (for its host's issue, or the input)" : "");
  }
  line(fmt::format("critical path: {} tasks{}", r.critical_path.size(), kinds));
  const auto segs = segments(r, p);
  const size_t kMaxSegs = 12;
  for (size_t i = 0; i < segs.size() && i < kMaxSegs; ++i) {
    const Segment& s = segs[i];
    std::string when;
    if (s.start_seconds >= 0)
      when = fmt::format("{:>10} .. {:<10}", format_seconds(s.start_seconds), format_seconds(s.end_seconds));
    std::string names = fmt::format("'{}'", p.task_name(s.first));
    if (s.tasks > 1) names += fmt::format(" .. '{}'", p.task_name(s.last));
    line(fmt::format("  {:<24} {:>6} tasks  {} {}", stream_label(p, topo, s.stream), s.tasks, when, names));
  }
  if (segs.size() > kMaxSegs) line(fmt::format("  ... {} more segments", segs.size() - kMaxSegs));
  if (const KernelLoad load = busiest_kernel_load(r, p); load.kernels > 0) {
    std::string host =
        "and a framework that takes longer than that per operation sets the pace "
        "instead (simulation.host_op_time; 0 here)";
    if (r.host_op_seconds > 0) {
      host =
          fmt::format("{} after the one before (host_op_time)", format_seconds(r.host_op_seconds));
      if (r.devices_per_host > 1)
        host += fmt::format(
            ", and those of the other devices it drives ({} a host: "
            "simulation.devices_per_host)",
            r.devices_per_host);
    }
    line(
        fmt::format("kernels a step: {} on {} (the busiest), {} each on average; its host issues "
                    "every one, {}",
                    load.kernels, topo.device(load.device).name,
                    format_seconds(load.busy_seconds / static_cast<double>(load.kernels)), host));
  }

  std::vector<size_t> order;
  for (size_t i = 0; i < r.links.size(); ++i)
    if (r.links[i].bytes > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return r.links[a].utilization > r.links[b].utilization;
  });
  line("");
  if (order.empty()) {
    line(r.off_link_bytes > 0 ? "links: no bytes crossed a link of the topology (below)"
                              : "links: no bytes crossed any link");
  } else {
    line("busiest links (used: bytes / (capacity x step); occupied: time any flow was on it / step):");
    for (size_t i = 0; i < order.size() && i < 8; ++i) {
      const LinkStats& l = r.links[order[i]];
      line(fmt::format("  {:<32} {:>6.1f}% used {:>6.1f}% occupied  {:>10} of {}", l.name,
                       100 * l.utilization, 100 * l.occupancy, format_bytes(l.bytes),
                       format_bandwidth(l.capacity_bytes_per_second)));
    }
  }
  if (r.off_link_bytes > 0)
    line(fmt::format("  and {} on no link: the steps of NCCL's collectives that its model runs "
                     "faster than their route's links (NVLS, rings over several rails or NVLinks "
                     "whose bus bandwidth NCCL's table puts above one link's) run on channels of "
                     "their own (docs/simulator.md, \"Collectives under NCCL's model\")",
                     format_bytes(r.off_link_bytes)));

  line("");
  if (!r.devices.empty()) {
    const auto it = std::max_element(r.devices.begin(), r.devices.end(), [](const DeviceStats& a, const DeviceStats& b) {
      return a.peak_memory_bytes < b.peak_memory_bytes;
    });
    std::string cats;
    for (int k = 0; k < kNumMemoryCategories; ++k)
      if (it->peak_by_category[static_cast<size_t>(k)] > 0)
        cats += fmt::format("{}{} {}", cats.empty() ? "" : ", ",
                            memory_category_name(static_cast<MemoryCategory>(k)),
                            format_bytes(it->peak_by_category[static_cast<size_t>(k)]));
    line(fmt::format("memory: peak {} on {} (capacity {}){}{}", format_bytes(it->peak_memory_bytes),
                     topo.device(it->id).name, format_bytes(it->capacity_bytes),
                     cats.empty() ? "" : "; category peaks: ", cats));
  }
  if (r.oom.empty()) {
    line("out of memory: none");
  } else {
    for (const OomEvent& e : r.oom) {
      // What was live, by category (largest first), then the largest single buffers.
      std::vector<int> cats;
      for (int k = 0; k < kNumMemoryCategories; ++k)
        if (e.buffers_by_category[static_cast<size_t>(k)] > 0) cats.push_back(k);
      std::stable_sort(cats.begin(), cats.end(), [&](int a, int b) {
        return e.live_by_category[static_cast<size_t>(a)] > e.live_by_category[static_cast<size_t>(b)];
      });
      std::string live;
      for (int k : cats) {
        const int n = e.buffers_by_category[static_cast<size_t>(k)];
        live += fmt::format("{}{} {} in {} buffer{}", live.empty() ? "" : ", ",
                            memory_category_name(static_cast<MemoryCategory>(k)),
                            format_bytes(e.live_by_category[static_cast<size_t>(k)]), n, n == 1 ? "" : "s");
      }
      std::string big;
      for (const auto& [name, bytes] : e.largest_buffers)
        big += fmt::format("{}{} ({})", big.empty() ? "" : ", ", name, format_bytes(bytes));
      line(fmt::format("OUT OF MEMORY: {} at {}: {} brings it to {} of {}: live {}; largest: {}",
                       topo.device(e.device).name, format_seconds(e.time_seconds), label(p, e.task),
                       format_bytes(e.live_bytes), format_bytes(e.capacity_bytes), live, big));
    }
  }
  return out;
}

}  // namespace brigade::sim
