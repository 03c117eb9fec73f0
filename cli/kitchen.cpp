#include "cli/kitchen.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.hpp"

namespace brigade::cli {
namespace {

using nlohmann::json;

struct Words {
  const char* head;          // {scenario} {summary}
  const char* chefs;         // heading
  const char* one_chef;      // {names}
  const char* many_chefs;    // {names} {n}
  const char* holds;         // heading of the station's list
  const char* station;       // {peak} {capacity} {parts}
  const char* idle;          // {names}
  const char* bowl;          // {count} {times} {group} {bytes} {seconds} {why}
  const char* platter;       // same fields
  const char* scatter;       // same fields
  const char* runner;        // {count} {bytes} {seconds} {why}
  const char* other;         // {kind} + same fields
  const char* nobody_waits;  // no communication
  const char* parts[4];      // weights, gradients, optimizer state, activations
  const char* sep;
  const char* open;   // around the station's parts
  const char* close;
};

const Words kEn = {
    "The head chef (the planner) has read the recipe of '{}': {}.\n",
    "Chefs and their stations",
    "Chef {}",
    "Chefs {} ({} chefs, each alike)",
    "holds on its station:",
    "station at its peak: {} of {}{}",
    "Chef(s) {}: idle, nothing is placed on them.",
    "waits at the sauce bowl (AllReduce) {}{} with {} chefs: pours in and takes the sum back, "
    "{} and {} in all; {}",
    "meets at the shared platter (AllGather) {}{} with {} chefs: puts its piece down and takes "
    "the whole back, {} and {} in all; {}",
    "pours into the sauce bowl and takes back only its share (ReduceScatter) {}{} with {} chefs, "
    "{} and {} in all; {}",
    "a runner carries a dish to another chef's station {}{}: {} and {} in all; {}",
    "{}: {}{} with {} chefs, {} and {} in all; {}",
    "Nobody waits: the chefs never need each other's results.",
    {"weights", "gradients", "optimizer state", "activations"},
    ", ",
    " (",
    ")",
};

const Words kZh = {
    "总厨（规划器）读完了“{}”的菜谱：{}。\n",
    "厨师与他们的灶台",
    "厨师 {}",
    "厨师 {}（{} 位，分工相同）",
    "灶台上放着：",
    "灶台峰值：{}，容量 {}{}",
    "厨师 {}：闲着，没有安排任何工序。",
    "在酱汁碗边等候（AllReduce）{}{}，与 {} 位厨师一起：倒进去、取回总和，共 {}、{}；{}",
    "在共享拼盘边会合（AllGather）{}{}，与 {} 位厨师一起：放下自己那块、取回整盘，共 {}、{}；{}",
    "倒进酱汁碗、只取回属于自己的那份（ReduceScatter）{}{}，与 {} 位厨师一起，共 {}、{}；{}",
    "传菜员把一道菜送到另一位厨师的灶台 {}{}：共 {}、{}；{}",
    "{}：{}{}，与 {} 位厨师一起，共 {}、{}；{}",
    "没有人需要等候：厨师们从不需要彼此的结果。",
    {"权重", "梯度", "优化器状态", "激活值"},
    "，",
    "（",
    "）",
};

std::string why(const std::string& purpose, const std::string& kind, Lang lang) {
  const bool zh = lang == Lang::kZh;
  if (purpose == "data" && kind == "allgather")
    return zh ? "ZeRO：每位厨师只更新了自己那份权重，收集更新后的权重"
              : "ZeRO: each chef updated only its shard of the weights; gather the new weights";
  if (purpose == "data" && kind == "reducescatter")
    return zh ? "ZeRO：梯度求和，每位厨师只留自己要更新的那份"
              : "ZeRO: sum the gradients, each chef keeping the shard it updates";
  if (purpose == "data") return zh ? "为了平均梯度（数据并行）" : "to average the gradients (data parallelism)";
  if (purpose == "tensor")
    return zh ? "为了合并被切开的层的部分结果（张量并行）"
              : "to combine the partial results of a split layer (tensor parallelism)";
  if (purpose == "pipeline")
    return zh ? "把激活值交给下一道工序（流水线）" : "the activations to the next stage (pipeline)";
  if (purpose == "sharding")
    return zh ? "分片布局要求如此（部分和或收集）" : "the shardings ask for it (partial sums or a gather)";
  if (purpose == "transfer")
    return zh ? "另一位厨师要用这道半成品" : "another chef needs this dish";
  if (purpose == "collective") return zh ? "场景要求如此" : "the scenario asks for it";
  if (purpose == "zero-3 params")
    return zh ? "ZeRO-3：用前先收集参数" : "ZeRO-3: gather the parameters before use";
  if (purpose == "sequence")
    return zh ? "序列并行：合并部分梯度" : "sequence parallelism: sum the partial gradients";
  if (purpose == "tied embedding")
    return zh ? "共享词嵌入：合并两份梯度" : "tied embeddings: sum the two copies' gradients";
  if (purpose == "expert")
    return zh ? "专家并行：把每个 token 送到持有其专家的厨师那里，再把结果送回"
              : "expert parallelism: each token to the chefs holding its experts, and the results "
                "back";
  if (purpose == "expert data")
    return zh ? "专家并行：持有同一批专家的厨师合并它们的梯度"
              : "expert parallelism: the chefs holding the same experts sum their gradients";
  if (purpose == "context")
    return zh ? "上下文并行：把键和值传给环上的下一位厨师"
              : "context parallelism: the keys and values to the next chef of the ring";
  if (purpose == "fp8 amax")
    return zh ? "FP8 延迟缩放：厨师们取各自最大绝对值中的最大者，统一缩放因子"
              : "FP8 delayed scaling: the chefs take the largest of their amaxes, one scale for "
                "all";
  return purpose;
}

std::string times(double count, Lang lang) {
  if (lang == Lang::kZh) return fmt::format("每步 {:.0f} 次", count);
  return count == 1 ? "once a step" : fmt::format("{:.0f} times a step", count);
}

std::string shape_text(const json& a) {
  std::string s = "(";
  for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i].dump();
  return s + ")";
}

std::string names_text(const std::vector<std::string>& names) {
  if (names.size() <= 3) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }
  return names.front() + ", " + names[1] + ", …, " + names.back();
}

std::string communication_line(const json& c, const Words& w, Lang lang) {
  const std::string kind = c.value("kind", "");
  const double count = c.value("count", 1.0);
  const int group = c.value("group_size", 0);
  const std::string bytes = format_bytes(c.value("bytes", 0.0));
  const std::string seconds = format_seconds(c.value("seconds", 0.0));
  const std::string reason = why(c.value("purpose", std::string("transfer")), kind, lang);
  const std::string t = times(count, lang);
  const std::string blank;
  if (kind == "allreduce") return fmt::format(fmt::runtime(w.bowl), t, blank, group, bytes, seconds, reason);
  if (kind == "allgather") return fmt::format(fmt::runtime(w.platter), t, blank, group, bytes, seconds, reason);
  if (kind == "reducescatter")
    return fmt::format(fmt::runtime(w.scatter), t, blank, group, bytes, seconds, reason);
  if (kind == "p2p" || kind == "transfer")
    return fmt::format(fmt::runtime(w.runner), t, blank, bytes, seconds, reason);
  return fmt::format(fmt::runtime(w.other), kind, t, blank, group, bytes, seconds, reason);
}

}  // namespace

std::string kitchen_text(const json& e, const std::vector<std::string>& device_names, Lang lang) {
  const int devices = static_cast<int>(device_names.size());
  const Words& w = lang == Lang::kZh ? kZh : kEn;
  std::string out = fmt::format(fmt::runtime(w.head), e.value("scenario", std::string()),
                                e.value("summary", std::string()));
  // Chefs that hold and do the same are told once.
  std::map<std::string, std::vector<std::string>> groups;
  std::vector<std::string> order;
  std::map<std::string, const json*> sample;
  std::vector<bool> busy(static_cast<size_t>(std::max(devices, 0)), false);
  // Either one entry per device ("devices") or groups of alike devices with
  // id ranges ("device_groups", what explain reads on a 16,384-GPU plan:
  // issue 18, item 16); groups alike in what is told merge, their chefs in
  // id order.
  const json device_list = e.value("devices", json::array());  // sample points into it
  const json group_list = e.value("device_groups", json::array());
  std::map<std::string, std::vector<int>> ids;
  auto add = [&](const json& d) {
    json key = {d.value("view", ""), d.value("shapes", json::array()),
                d.value("collectives", json::array()), d.value("memory", json())};
    std::string k = key.dump();
    if (!groups.count(k)) {
      order.push_back(k);
      sample[k] = &d;
      groups[k];
    }
    return k;
  };
  auto mark_busy = [&](const json& d, int id) {
    if (id >= 0 && id < devices && d.value("view", std::string()) != "unused")
      busy[static_cast<size_t>(id)] = true;
  };
  for (const json& d : device_list) {
    groups[add(d)].push_back(d.value("name", std::string()));
    mark_busy(d, d.value("id", -1));
  }
  for (const json& g : group_list) {
    std::vector<int>& members = ids[add(g)];
    for (const json& r : g.value("devices", json::array()))
      for (int id = r[0].get<int>(); id <= r[1].get<int>(); ++id) {
        members.push_back(id);
        mark_busy(g, id);
      }
  }
  for (auto& [k, v] : ids) {
    std::sort(v.begin(), v.end());
    for (int id : v)
      groups[k].push_back(id >= 0 && id < devices ? device_names[static_cast<size_t>(id)]
                                                  : std::to_string(id));
  }
  out += fmt::format("\n{}\n", w.chefs);
  bool anyone_waits = false;
  for (const std::string& k : order) {
    const json& d = *sample[k];
    if (d.value("view", std::string()) == "unused") continue;
    const std::vector<std::string>& names = groups[k];
    out += "\n" + (names.size() == 1 ? fmt::format(fmt::runtime(w.one_chef), names[0])
                                      : fmt::format(fmt::runtime(w.many_chefs), names_text(names),
                                                    names.size())) +
           "\n";
    const json shapes = d.value("shapes", json::array());
    if (!shapes.empty()) {
      out += fmt::format("  {}\n", w.holds);
      for (const json& s : shapes) {
        const std::string role = s.value("role", std::string());
        const std::string sharding = s.value("sharding", std::string());
        out += fmt::format("    {} {} {}{}{}\n", s.value("name", ""), shape_text(s.value("local", json::array())),
                           s.value("dtype", ""), role.empty() ? "" : "  " + role,
                           sharding.empty() ? "" : " [" + sharding + "]");
      }
    }
    if (d.contains("memory")) {
      const json& m = d["memory"];
      std::string parts;
      const char* keys[4] = {"params", "grads", "optimizer", "activations"};
      for (int i = 0; i < 4; ++i) {
        const double b = m.value(keys[i], 0.0);
        if (b > 0) parts += (parts.empty() ? "" : w.sep) + std::string(w.parts[i]) + " " + format_bytes(b);
      }
      out += "  " + fmt::format(fmt::runtime(w.station), format_bytes(m.value("peak", 0.0)),
                                format_bytes(m.value("capacity", 0.0)),
                                parts.empty() ? "" : w.open + parts + w.close) +
             "\n";
    }
    for (const json& c : d.value("collectives", json::array())) {
      out += "  " + communication_line(c, w, lang) + "\n";
      anyone_waits = true;
    }
  }
  std::vector<std::string> idle;
  for (int i = 0; i < devices; ++i)
    if (!busy[static_cast<size_t>(i)]) idle.push_back(device_names[static_cast<size_t>(i)]);
  if (!idle.empty()) out += "\n" + fmt::format(fmt::runtime(w.idle), names_text(idle)) + "\n";
  // Plans whose communication is not per device (op graphs): the runners.
  if (e.contains("transfers") && e["transfers"].is_array() && !e["transfers"].empty()) {
    out += "\n";
    for (const json& x : e["transfers"]) {
      json c = x;
      if (!c.contains("purpose")) c["purpose"] = "transfer";
      out += communication_line(c, w, lang) + "\n";
      anyone_waits = true;
    }
  }
  if (!anyone_waits) out += fmt::format("\n{}\n", w.nobody_waits);
  return out;
}

}  // namespace brigade::cli
