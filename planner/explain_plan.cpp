// `brigade explain` without --program: what the planner decided, from the
// plan alone. Shapes and roles come from planner::describe (no Program), the
// communication and memory of each device from the closed form
// (costmodel/plan.hpp), so that a 1-trillion-parameter plan on 1024 GPUs is
// explained in well under a second (docs/PERFORMANCE.md).
#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "planner/explain.hpp"
#include "planner/explain_internal.hpp"
#include "planner/lower_internal.hpp"

namespace brigade::planner {
namespace {

using nlohmann::json;

// Why a family of calls is there, by the closed form's purpose.
std::string why(const std::string& purpose, const std::string& kind) {
  if (purpose == "tensor")
    return "tensor parallelism (Megatron-LM): each layer's f and g operators sum or gather the "
           "partial results of the split GEMMs over 'tensor', on the compute stream";
  if (purpose == "data")
    return kind == "allgather"
               ? "ZeRO: each data replica updated only its shard of the weights; gather the new "
                 "weights over 'data' (the shared platter), bucket by bucket"
           : kind == "reducescatter"
               ? "ZeRO: sum the gradients over 'data', each replica keeping the shard it "
                 "updates, bucket by bucket"
               : "data parallelism: average the gradients over 'data' (the sauce bowl), "
                 "bucket by bucket as the backward makes them";
  if (purpose == "zero-3 params")
    return "ZeRO-3: each replica keeps 1/data of a block's parameters; gather them before its "
           "forward and again before its backward";
  if (purpose == "pipeline")
    return "pipeline: each micro-batch's activations to the next stage, its gradients back";
  if (purpose == "tied embedding")
    return "tied word embeddings: the first and last stages each hold a copy; sum their gradients";
  if (purpose == "sequence")
    return "sequence parallelism: LayerNorm, bias and position-embedding gradients are partial "
           "over the sequence shards; sum them over 'tensor'";
  if (purpose == "sharding") return "the shardings imply it (JAX: a split contraction or a gather)";
  if (purpose == "transfer")
    return "a tensor read on another device than the one that made it (the runner carrying a dish)";
  if (purpose == "collective") return "the scenario asks for it";
  if (purpose == "expert")
    return "expert parallelism: the dispatch AllToAll sends each token's top-k copies over "
           "'expert' to the ranks holding their experts, the combine AllToAll brings the outputs "
           "back (twice more in the backward)";
  if (purpose == "expert data")
    return "expert parallelism: each expert's gradients summed over the data ranks holding the "
           "same experts (the expert-data group), not over 'data'";
  if (purpose == "fp8 amax")
    return "FP8 delayed scaling: the amaxes of the device's FP8 tensors reduced (MAX) over the "
           "amax group at the end of each model chunk's forward and backward, on the compute "
           "stream ('tensor', 'tensor' x 'context', or the whole stage: "
           "training.fp8_amax_group)";
  return purpose;
}

std::string kind_label(const std::string& kind) {
  if (kind == "allreduce") return "AllReduce (the sauce bowl)";
  if (kind == "allgather") return "AllGather (the shared platter)";
  if (kind == "reducescatter") return "ReduceScatter";
  if (kind == "broadcast") return "Broadcast";
  if (kind == "reduce") return "Reduce";
  if (kind == "alltoall") return "AllToAll";
  if (kind == "p2p") return "point-to-point send";
  return kind;
}

// What one device's explanation reads from the closed form.
struct DeviceFigures {
  const cost::DeviceMemoryEstimate* memory = nullptr;
  const std::vector<cost::CommunicationEstimate>* communication = nullptr;
};

std::vector<DeviceFigures> device_figures(const Scenario& sc, const cost::PlanEstimate& e) {
  std::vector<DeviceFigures> v(static_cast<size_t>(sc.topology.num_devices()));
  for (const cost::DeviceMemoryEstimate& m : e.memory) {
    if (m.device < 0 || m.device >= sc.topology.num_devices()) continue;
    DeviceFigures& d = v[static_cast<size_t>(m.device)];
    d.memory = &m;
    if (!e.stage_communication.empty())
      d.communication = &e.stage_communication[static_cast<size_t>(m.stage)];
    else if (e.communication_device >= 0)
      d.communication = &e.communication;  // every device of the plan does alike
  }
  return v;
}

json memory_json(const cost::DeviceMemoryEstimate& m) {
  return {{"params", m.params_bytes},       {"grads", m.grads_bytes},
          {"optimizer", m.optimizer_bytes}, {"activations", m.activations_bytes},
          {"comm", m.other_bytes},          {"peak", m.peak_bytes},
          {"capacity", m.capacity_bytes}};
}

std::vector<std::string> notes_of(const Plan& plan) {
  return plan.notes;
}

int view_of(const Plan& plan, size_t d) {
  return d < plan.view_of_device.size() ? plan.view_of_device[d] : -1;
}

// Devices that hold and do the same (view, collectives, memory) as one
// group, groups in the order of their first device; devices that hold
// nothing and have no memory figure are left out. Linear in the devices.
std::vector<std::vector<int>> alike_devices(const Plan& plan,
                                            const std::vector<DeviceFigures>& views) {
  std::map<std::string, size_t> index;
  std::vector<std::vector<int>> groups;
  for (size_t d = 0; d < views.size(); ++d) {
    const int v = view_of(plan, d);
    const cost::DeviceMemoryEstimate* m = views[d].memory;
    if (v < 0 && !m) continue;
    std::string key = std::to_string(v) + "|" +
                      fmt::format("{}", static_cast<const void*>(views[d].communication));
    if (m)
      key += fmt::format("|{}|{}|{}|{}|{}|{}|{}|{}", m->stage, m->params_bytes, m->grads_bytes,
                         m->optimizer_bytes, m->activations_bytes, m->other_bytes, m->peak_bytes,
                         m->capacity_bytes);
    auto [it, added] = index.try_emplace(key, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(static_cast<int>(d));
  }
  return groups;
}

// [[first, last], ...]: runs of consecutive ids, inclusive.
json id_ranges(const std::vector<int>& ids) {
  json out = json::array();
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    out.push_back({ids[i], ids[j]});
    i = j + 1;
  }
  return out;
}

json collectives_json(const std::vector<cost::CommunicationEstimate>* comm) {
  json cols = json::array();
  if (comm)
    for (const cost::CommunicationEstimate& c : *comm)
      cols.push_back({{"kind", c.kind},
                      {"purpose", c.purpose},
                      {"group_size", c.group_size},
                      {"count", c.count},
                      {"bytes", c.bytes},
                      {"seconds", c.seconds},
                      {"reason", why(c.purpose, c.kind)}});
  return cols;
}

// The top of explain_plan_json, before its device listing.
json plan_head_json(const Plan& plan, const Scenario& sc) {
  json out;
  out["scenario"] = sc.name;
  out["summary"] = plan.summary;
  out["notes"] = notes_of(plan);
  out["parameters"] = plan.parameters;
  out["flops_per_iteration"] = plan.flops_per_iteration;
  out["granularity"] = std::string(granularity_name(plan.granularity));
  out["program"] = nullptr;  // brigade explain --program lowers it
  return out;
}

// A placement's transfers, plan-wide (when the estimate follows no one device).
void add_transfers(const cost::PlanEstimate& e, json& out) {
  if (e.communication_device >= 0) return;
  json xs = json::array();
  for (const cost::CommunicationEstimate& c : e.communication)
    xs.push_back(
        {{"kind", c.kind}, {"count", c.count}, {"bytes", c.bytes}, {"seconds", c.seconds}});
  out["transfers"] = xs;
}

// kPerDevice's entries, one device at a time in id order (devices that hold
// nothing and have no memory figure left out), each handed to `emit`; the
// devices over their memory added to `warnings`.
template <class Emit>
void for_each_listed_device(const Plan& plan, const Scenario& sc,
                            const std::vector<DeviceFigures>& views, json* warnings, Emit&& emit) {
  for (size_t d = 0; d < views.size(); ++d) {
    const int v = view_of(plan, d);
    if (v < 0 && !views[d].memory) continue;
    json dj;
    dj["id"] = d;
    dj["name"] = sc.topology.device(static_cast<int>(d)).name;
    dj["role"] = d < plan.device_role.size() ? plan.device_role[d] : "";
    dj["view"] = v >= 0 ? plan.views[static_cast<size_t>(v)].title : "unused";
    dj["shapes"] =
        v >= 0 ? detail::view_shapes_json(plan.views[static_cast<size_t>(v)]) : json::array();
    dj["collectives"] = collectives_json(views[d].communication);
    if (views[d].memory) {
      const cost::DeviceMemoryEstimate& m = *views[d].memory;
      dj["memory"] = memory_json(m);
      if (!m.fits)
        warnings->push_back(fmt::format("device {} ({}) needs {} at its peak but has {}", d,
                                        sc.topology.device(static_cast<int>(d)).name,
                                        format_bytes(m.peak_bytes),
                                        format_bytes(m.capacity_bytes)));
    }
    emit(std::move(dj));
  }
}

}  // namespace

void write_explain_plan_json_per_device(std::ostream& os, const Plan& plan, const Scenario& sc,
                                        const cost::PlanEstimate& e) {
  // nlohmann::json keeps an object's keys sorted, and "devices" sorts
  // first of the document's keys: the listing is written first, one
  // device's entry at a time (indented two levels deeper than dump(2)
  // writes it alone), then the rest of the document without its "{".
  json rest = plan_head_json(plan, sc);
  const std::vector<DeviceFigures> views = device_figures(sc, e);
  json warnings = json::array();
  bool first = true;
  for_each_listed_device(plan, sc, views, &warnings, [&](json&& dj) {
    std::string text = dj.dump(2);
    std::string indented = "    ";
    indented.reserve(text.size() + text.size() / 8);
    for (char c : text) {
      indented += c;
      if (c == '\n') indented += "    ";  // a JSON string holds no raw newline
    }
    os << (first ? "{\n  \"devices\": [\n" : ",\n") << indented;
    first = false;
  });
  os << (first ? "{\n  \"devices\": []" : "\n  ]");
  rest["warnings"] = warnings;
  add_transfers(e, rest);
  const std::string tail = rest.dump(2);  // "{\n  \"flops_per_iteration\": ..."
  os << "," << tail.substr(1) << "\n";
}

json explain_plan_json(const Plan& plan, const Scenario& sc, const cost::PlanEstimate& e,
                       DeviceListing listing) {
  json out = plan_head_json(plan, sc);
  const std::vector<DeviceFigures> views = device_figures(sc, e);
  json warnings = json::array();
  if (listing == DeviceListing::kGroups) {
    // One entry per group of alike devices (docs/planner.md, "explain
    // --json"): a 16,384-GPU plan is a few dozen entries, not 16,384.
    json groups = json::array();
    for (const std::vector<int>& devs : alike_devices(plan, views)) {
      const auto d0 = static_cast<size_t>(devs.front());
      const int v = view_of(plan, d0);
      json gj;
      gj["devices"] = id_ranges(devs);
      gj["device_list"] = detail::device_ranges(devs);
      gj["count"] = devs.size();
      gj["example"] = {{"id", d0},
                       {"name", sc.topology.device(static_cast<int>(d0)).name},
                       {"role", d0 < plan.device_role.size() ? plan.device_role[d0] : ""}};
      gj["view"] = v >= 0 ? plan.views[static_cast<size_t>(v)].title : "unused";
      gj["shapes"] =
          v >= 0 ? detail::view_shapes_json(plan.views[static_cast<size_t>(v)]) : json::array();
      gj["collectives"] = collectives_json(views[d0].communication);
      if (const cost::DeviceMemoryEstimate* m = views[d0].memory) {
        gj["memory"] = memory_json(*m);
        if (!m->fits)
          warnings.push_back(
              fmt::format("{} {} ({} device{}) need{} {} at {} peak but {} {}",
                          devs.size() > 1 ? "devices" : "device", detail::device_ranges(devs),
                          devs.size(), devs.size() > 1 ? "s" : "", devs.size() > 1 ? "" : "s",
                          format_bytes(m->peak_bytes), devs.size() > 1 ? "their" : "its",
                          devs.size() > 1 ? "have" : "has", format_bytes(m->capacity_bytes)));
      }
      groups.push_back(gj);
    }
    out["warnings"] = warnings;
    out["device_groups"] = groups;
  } else {
    json devices = json::array();
    for_each_listed_device(plan, sc, views, &warnings,
                           [&](json&& dj) { devices.push_back(std::move(dj)); });
    out["warnings"] = warnings;
    out["devices"] = devices;
  }
  add_transfers(e, out);
  return out;
}

std::string explain_plan_text(const Plan& plan, const Scenario& sc, const cost::PlanEstimate& e) {
  std::string s;
  auto line = [&](const std::string& x) { s += x + "\n"; };
  line("Scenario: " + (sc.name.empty() ? sc.path : sc.name));
  line("Plan: " + plan.summary);
  for (const std::string& n : notes_of(plan)) line("  - " + n);
  line("Model: " + format_count(plan.parameters) + " parameters (" +
       std::to_string(static_cast<long long>(plan.parameters)) + "); " +
       format_flops(plan.flops_per_iteration) + " per iteration (GEMM FLOPs)");
  line("");
  const std::vector<DeviceFigures> views = device_figures(sc, e);
  // Devices that hold and do the same read as one group.
  line("Who holds and does what (chefs = devices, counters = memory):");
  for (const std::vector<int>& devs : alike_devices(plan, views)) {
    const int d0 = devs.front();
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
    const auto* comm = views[static_cast<size_t>(d0)].communication;
    if (comm && !comm->empty()) {
      line("  communication per iteration (the closed form's count):");
      for (const cost::CommunicationEstimate& c : *comm) {
        line(fmt::format("    {:g} x {} over {} devices, {} in all", c.count, kind_label(c.kind),
                         c.group_size, format_bytes(c.bytes)));
        line("      why: " + why(c.purpose, c.kind));
      }
    }
    if (const cost::DeviceMemoryEstimate* m = views[static_cast<size_t>(d0)].memory) {
      std::string mem = "  memory at its peak:";
      const std::pair<const char*, double> cats[] = {{"params", m->params_bytes},
                                                     {"grads", m->grads_bytes},
                                                     {"optimizer", m->optimizer_bytes},
                                                     {"activations", m->activations_bytes},
                                                     {"comm", m->other_bytes}};
      for (const auto& [name, bytes] : cats)
        if (bytes > 0) mem += fmt::format(" {} {},", name, format_bytes(bytes));
      mem += " peak " + format_bytes(m->peak_bytes);
      if (m->capacity_bytes > 0)
        mem += " of " + format_bytes(m->capacity_bytes) + (m->fits ? "" : "  DOES NOT FIT");
      line(mem);
    }
  }
  if (e.communication_device < 0)
    for (const cost::CommunicationEstimate& c : e.communication)
      line(
          fmt::format("\nTransfers: {:g} in all, {} (a tensor read on another device than the one "
                      "that made it, on the sender's `xfer` stream)",
                      c.count, format_bytes(c.bytes)));
  line("");
  line("Explained from the plan (granularity " + std::string(granularity_name(plan.granularity)) +
       " if lowered): shapes from the planner, communication and memory from the closed form "
       "(`brigade cost`); `brigade explain --program` lowers the Program and counts its tasks, "
       "`brigade simulate` gives the timeline");
  return s;
}

}  // namespace brigade::planner
