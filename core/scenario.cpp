// The scenario reader: YAML or JSON (through yaml-cpp; JSON is YAML 1.2's
// subset) into a Scenario. The schema is documented key by key in
// docs/scenario-format.md; keep the two in step.
//
// Parsing checks syntax, keys, types, units, ranges and names that need only
// the file (devices exist, tensors exist, the graph's shapes agree).
// Semantic checks of the plan as a whole (divisibility, device counts,
// shardings against the mesh) are check_plan's (core/plan_check.hpp).
#include "core/scenario.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "core/json_tree.hpp"
#include "core/profile_io_nccl.hpp"
#include "core/published_reader.hpp"
#include "core/scenario_graph.hpp"
#include "core/scenario_model.hpp"
#include "core/scenario_runtime.hpp"
#include "core/scenario_training.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {

std::vector<std::string> full_rank_order(const StrategySpec& st) {
  std::vector<std::string> order = st.rank_order;
  if (std::find(order.begin(), order.end(), "context") != order.end()) return order;
  auto tensor = std::find(order.begin(), order.end(), "tensor");
  order.insert(tensor == order.end() ? order.begin() : tensor + 1, "context");
  return order;
}

std::string_view schedule_name(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::kGpipe:
      return "gpipe";
    case PipelineSchedule::k1F1B:
      return "1f1b";
    case PipelineSchedule::kInterleaved:
      return "interleaved";
  }
  return "?";
}

std::string_view pipeline_engine_name(PipelineEngine e) {
  switch (e) {
    case PipelineEngine::kMegatron:
      return "megatron";
    case PipelineEngine::kDeepSpeed:
      return "deepspeed";
  }
  return "?";
}

std::string_view zero3_prefetch_name(Zero3Prefetch p) {
  switch (p) {
    case Zero3Prefetch::kPerPass:
      return "per_pass";
    case Zero3Prefetch::kPerMicroBatch:
      return "per_micro_batch";
    case Zero3Prefetch::kAcrossPasses:
      return "across_passes";
  }
  return "?";
}

SourcePos Scenario::where(const std::string& key) const {
  // A graph's ops and tensors carry their own positions (a million-op graph
  // records none in `positions`): "model.graph.ops[2]...", "model.graph.tensors.x".
  static const std::string kOps = "model.graph.ops[", kTensors = "model.graph.tensors.";
  if (key.rfind(kOps, 0) == 0) {
    const size_t i = static_cast<size_t>(std::atoll(key.c_str() + kOps.size()));
    if (i < graph.ops.size() && graph.ops[i].pos.line > 0) return graph.ops[i].pos;
  } else if (key.rfind(kTensors, 0) == 0) {
    const int t = graph.find_tensor(std::string_view(key).substr(kTensors.size()));
    if (t >= 0 && graph.tensors[static_cast<size_t>(t)].pos.line > 0)
      return graph.tensors[static_cast<size_t>(t)].pos;
  }
  for (const auto& [prefix, entries] :
       {std::pair{std::string_view("placement."), &placement_positions},
        std::pair{std::string_view("device_put."), &device_put_positions}}) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string_view entry = std::string_view(key).substr(prefix.size());
    for (const EntryPosition& e : *entries)
      if (e.name == entry) return SourcePos{path, e.line, e.column};
  }
  // The key itself, else the nearest enclosing key that was written
  // ("strategy.zero" -> "strategy"), else the file alone.
  std::string k = key;
  while (!k.empty()) {
    auto it = positions.find(k);
    if (it != positions.end()) return it->second;
    const size_t cut = k.find_last_of(".[");
    if (cut == std::string::npos) break;
    k.resize(cut);
  }
  return SourcePos{path, 0, 0};
}

// A count above a limit: "found 80000 devices; expected at most 65536 devices (...)".
std::string over_limit(std::int64_t found, std::int64_t limit, const std::string& noun) {
  return "found " + std::to_string(found) + " " + noun + "; expected at most " +
         std::to_string(limit) + " " + noun + " " + "(docs/scenario-format.md, \"Limits\")";
}

namespace {

using yamlio::Bound;
using yamlio::Cursor;

constexpr std::int64_t kIntMax = INT_MAX;
using Limits = ScenarioLimits;
constexpr std::int64_t kMaxDim = ScenarioLimits::kMaxDimension;
const char* const kLimitsDoc = "(docs/scenario-format.md, \"Limits\")";

// The indices of the present keys sorted by text (std::string's order:
// bytes compared unsigned), equal texts by index. Sorted as (first 8 bytes
// as an integer, text, index): most comparisons are one integer compare
// in an array read in order, not two indirections and a memcmp call (a
// million placed ops, issue 20 item 3). The integer orders as the text
// does: its bytes are the text's, zero-padded, most significant first.
std::vector<std::uint32_t> name_order(const std::vector<std::optional<std::string_view>>& keys) {
  struct Key {
    std::uint64_t head;
    std::string_view text;
    std::uint32_t index;
  };
  std::vector<Key> sorted;
  sorted.reserve(keys.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    if (!keys[i]) continue;
    std::uint64_t head = 0;
    for (std::size_t b = 0; b < 8; ++b)
      head = (head << 8) | (b < keys[i]->size() ? static_cast<unsigned char>((*keys[i])[b]) : 0u);
    sorted.push_back(Key{head, *keys[i], i});
  }
  std::sort(sorted.begin(), sorted.end(), [](const Key& a, const Key& b) {
    if (a.head != b.head) return a.head < b.head;
    const int c = a.text.compare(b.text);
    return c < 0 || (c == 0 && a.index < b.index);
  });
  std::vector<std::uint32_t> order;
  order.reserve(sorted.size());
  for (const Key& k : sorted) order.push_back(k.index);
  return order;
}

std::vector<std::string> link_class_names() {
  std::vector<std::string> names;
  for (int i = 0; i < kNumLinkClasses; ++i)
    names.emplace_back(link_class_name(static_cast<LinkClass>(i)));
  return names;
}

Result<LinkClass> read_link_class(const Cursor& c) {
  if (c.is_scalar())
    if (auto l = parse_link_class(c.text())) return *l;
  const std::vector<std::string> names = link_class_names();
  std::string msg =
      "found " + c.found() + "; expected a link class: one of " + yamlio::join_list(names);
  if (c.is_scalar())
    if (auto m = closest_match_in(c.text(), names)) msg += " (did you mean '" + *m + "'?)";
  return c.error(msg);
}

class ScenarioReader {
 public:
  ScenarioReader(const std::string& file, Scenario* s) : s_(s) {
    doc_.file = file;
    doc_.positions = &s->positions;
  }

  Status read(const yamlio::Tree& tree) {
    const Cursor root(&doc_, tree, "", SourcePos{doc_.file, 1, 1});
    const char* kWhat = "a scenario: a map with at least topology and model";
    if (root.is_null())
      return root.error("found an empty document; expected " + std::string(kWhat));
    BRIGADE_RETURN_IF_ERROR(root.expect_map(kWhat));
    BRIGADE_RETURN_IF_ERROR(root.check_keys(
        {"name", "description", "topology", "profile", "model", "training", "strategy", "placement",
         "device_put", "mesh", "shardings", "simulation", "runtime", "lesson", "published"}));
    BRIGADE_ASSIGN_OR_RETURN(
        s_->name, root.get_name("name", std::filesystem::path(doc_.file).stem().string()));
    BRIGADE_ASSIGN_OR_RETURN(s_->description, root.get_string("description", ""));

    BRIGADE_RETURN_IF_ERROR(root.require(
        "topology", "a topology: {preset: dgx-a100} or {devices: [...], links: [...]}"));
    BRIGADE_RETURN_IF_ERROR(read_topology(root.get("topology"), root.key_of("topology")));

    // The cluster's NCCL (topology.nccl_version): the presets' NCCL tables
    // follow its tuning model; a profile file's tables state their own
    // (nccl.version), which must then agree.
    s_->profile = HardwareProfile::defaults(s_->nccl_version.value_or(kDefaultNcclVersion));
    if (root.has("profile")) BRIGADE_RETURN_IF_ERROR(read_profile(root.get("profile")));
    if (root.has("profile") && s_->nccl_version) {
      bool mixed = false;
      const std::optional<NcclVersion> v = s_->profile.nccl_version(&mixed);
      if (mixed || (v && *v != *s_->nccl_version))
        return root.get("topology").get("nccl_version").error(
            "found nccl_version '" + std::string(nccl_version_name(*s_->nccl_version)) +
            "' with profile '" + s_->profile_path + "', whose NCCL tables follow " +
            (mixed ? std::string("several versions")
                   : "NCCL " + std::string(nccl_version_name(*v))) +
            "; expected the profile's own version (its tables' nccl.version) or no nccl_version");
    }

    BRIGADE_RETURN_IF_ERROR(root.require(
        "model", "a model: one of mlp, transformer, huggingface, graph or collective"));
    BRIGADE_RETURN_IF_ERROR(read_model(root.get("model")));

    if (root.has("training"))
      BRIGADE_RETURN_IF_ERROR(read_training_spec(root.get("training"), &s_->training));
    if (root.has("strategy")) BRIGADE_RETURN_IF_ERROR(read_strategy(root.get("strategy")));
    // Megatron's distributed optimizer is ZeRO-1's sharding: stage 1 unless
    // the file names a stage (check_plan refuses any but 1 with it).
    if (s_->training.distributed_optimizer &&
        !(root.has("strategy") && root.get("strategy").has("zero")))
      s_->strategy.zero = 1;
    if (root.has("placement"))
      BRIGADE_RETURN_IF_ERROR(read_device_map(root.get("placement"), "an op name", &s_->placement,
                                              &s_->placement_positions));
    if (root.has("device_put"))
      BRIGADE_RETURN_IF_ERROR(read_device_map(root.get("device_put"), "a tensor name",
                                              &s_->device_put, &s_->device_put_positions));
    if (root.has("mesh")) BRIGADE_RETURN_IF_ERROR(read_mesh(root.get("mesh")));
    if (root.has("shardings")) BRIGADE_RETURN_IF_ERROR(read_shardings(root.get("shardings")));
    if (root.has("simulation")) BRIGADE_RETURN_IF_ERROR(read_simulation(root.get("simulation")));
    if (root.has("runtime"))
      BRIGADE_RETURN_IF_ERROR(read_runtime(
          root.get("runtime"), s_->topology, [this](const Cursor& d) { return read_device(d); },
          &s_->runtime));
    // `lesson:` is teaching metadata, read by core/lesson.cpp; the judges ignore it.
    // `published:` is a published measurement of this plan (core/published.hpp):
    // checked here so that a malformed one is refused, then left to scripts/fidelity.
    if (root.has("published"))
      if (Result<PublishedResult> p = read_published(root.get("published")); !p.is_ok())
        return p.status();
    return Status::ok();
  }

 private:
  // ---- topology -------------------------------------------------------------

  Status read_topology(const Cursor& c, const Cursor& key) {
    BRIGADE_RETURN_IF_ERROR(c.expect_map(
        "a topology: {preset: dgx-a100} or {devices: [...], switches: [...], links: [...]}"));
    if (c.has("nccl_version")) {
      BRIGADE_ASSIGN_OR_RETURN(s_->nccl_version, read_nccl_version(c.get("nccl_version")));
    }
    if (c.has("preset")) {
      BRIGADE_RETURN_IF_ERROR(read_preset(c));
    } else {
      BRIGADE_RETURN_IF_ERROR(read_custom_topology(c));
    }
    if (Status st = s_->topology.validate(); !st.is_ok()) return key.error(st.message());
    return Status::ok();
  }

  Status read_preset(const Cursor& c) {
    BRIGADE_RETURN_IF_ERROR(c.check_keys({"preset", "nodes", "devices", "fabric", "nccl_version"}));
    const Cursor preset = c.get("preset");
    BRIGADE_ASSIGN_OR_RETURN(const std::string name, preset.as_name());
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t nodes, c.get_int("nodes", 1, 1, kIntMax));
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t devices, c.get_int("devices", 0, 1, kIntMax));
    // The preset's name first, so that a misspelt name is the error reported;
    // then the device count, before a single device is made.
    int per_node = 0;
    {
      Result<Topology> probe = make_preset(name, 1, 0);
      if (!probe.is_ok()) return preset.error(probe.message());
      per_node = probe->num_devices();
      if (devices > Limits::kMaxDevices)
        return c.get("devices").error(over_limit(devices, Limits::kMaxDevices, "devices"));
      if (devices > 0) {
        probe = make_preset(name, 1, static_cast<int>(devices));
        if (!probe.is_ok()) return c.get("devices").error(probe.message());
        per_node = probe->num_devices();
      }
      if (nodes * per_node > Limits::kMaxDevices)
        return c.get("nodes").error(
            "found " + std::to_string(nodes) + " nodes of " + std::to_string(per_node) +
            " devices (" + std::to_string(nodes * per_node) + " devices); expected at most " +
            std::to_string(Limits::kMaxDevices) + " devices " + kLimitsDoc);
    }
    FabricSpec fabric;
    const bool has_fabric = c.has("fabric");
    if (has_fabric) {
      const Cursor f = c.get("fabric");
      if (nodes < 2)
        return c.key_of("fabric").error(
            "found 'fabric' for a single node; expected nodes >= 2 (the fabric joins nodes)");
      BRIGADE_RETURN_IF_ERROR(
          f.expect_map("a fabric: {bandwidth: 25GB/s, latency: 5us, class: infiniband}"));
      BRIGADE_RETURN_IF_ERROR(f.check_keys({"bandwidth", "latency", "class"}));
      // Keys left out keep the preset's own fabric: read it off a two-node
      // cluster's route between the nodes.
      Result<Topology> two = make_preset(name, 2, static_cast<int>(devices));
      if (!two.is_ok()) return c.get("devices").error(two.message());
      if (Status st = two->validate(); !st.is_ok()) return f.error(st.message());
      const Route& r = two->route(0, per_node);
      FabricSpec dflt{r.bandwidth_bytes_per_second, r.latency_seconds, r.slowest_class};
      BRIGADE_ASSIGN_OR_RETURN(fabric.bandwidth_bytes_per_second,
                               f.get_quantity("bandwidth", dflt.bandwidth_bytes_per_second,
                                              Dimension::kBytesPerSecond, Bound::kPositive));
      BRIGADE_ASSIGN_OR_RETURN(fabric.latency_seconds,
                               f.get_quantity("latency", dflt.latency_seconds, Dimension::kSeconds,
                                              Bound::kNonNegative));
      fabric.link_class = dflt.link_class;
      if (f.has("class")) {
        BRIGADE_ASSIGN_OR_RETURN(fabric.link_class, read_link_class(f.get("class")));
      }
    }
    Result<Topology> t = make_preset(name, static_cast<int>(nodes), static_cast<int>(devices),
                                     has_fabric ? &fabric : nullptr);
    if (!t.is_ok()) return c.error(t.message());
    s_->topology = std::move(t).value();
    return Status::ok();
  }

  Status read_custom_topology(const Cursor& c) {
    BRIGADE_RETURN_IF_ERROR(
        c.check_keys({"preset", "devices", "switches", "links", "nccl_version"}));
    BRIGADE_RETURN_IF_ERROR(
        c.require("devices", "a preset ({preset: dgx-a100}) or a list of devices with links"));
    const Cursor devs = c.get("devices");
    BRIGADE_RETURN_IF_ERROR(devs.expect_list(
        "a list of devices [{name, model, kind, memory, memory_bandwidth, flops, node}]"));
    Topology t;
    t.preset = "custom";
    std::map<int, int> per_node;
    const std::vector<Cursor> dev_items = devs.quiet().items();
    if (dev_items.size() > static_cast<size_t>(Limits::kMaxDevices))
      return dev_items[static_cast<size_t>(Limits::kMaxDevices)].error(
          "found more than " + std::to_string(Limits::kMaxDevices) + " devices; expected at most " +
          std::to_string(Limits::kMaxDevices) + " devices " + kLimitsDoc);
    for (const Cursor& d : dev_items) {
      BRIGADE_RETURN_IF_ERROR(
          d.expect_map("a device {name, model, kind, memory, memory_bandwidth, flops, node}"));
      BRIGADE_RETURN_IF_ERROR(
          d.check_keys({"name", "model", "kind", "memory", "memory_bandwidth", "flops", "node"}));
      Device dev;
      BRIGADE_ASSIGN_OR_RETURN(
          dev.kind, d.get_enum("kind", DeviceKind::kGpu,
                               choices_of({DeviceKind::kGpu, DeviceKind::kCpu, DeviceKind::kTpu},
                                          device_kind_name)));
      if (d.has("name")) {
        BRIGADE_ASSIGN_OR_RETURN(dev.name, d.get("name").as_name());
      }
      BRIGADE_ASSIGN_OR_RETURN(dev.model, d.get_name("model", "custom"));
      BRIGADE_RETURN_IF_ERROR(d.require("memory", "the device's memory, such as 80GiB"));
      BRIGADE_ASSIGN_OR_RETURN(dev.memory_bytes,
                               d.get("memory").as_quantity(Dimension::kBytes, Bound::kPositive));
      BRIGADE_RETURN_IF_ERROR(
          d.require("memory_bandwidth", "the device's memory bandwidth, such as 2TB/s"));
      BRIGADE_ASSIGN_OR_RETURN(
          dev.memory_bandwidth_bytes_per_second,
          d.get("memory_bandwidth").as_quantity(Dimension::kBytesPerSecond, Bound::kPositive));
      BRIGADE_RETURN_IF_ERROR(
          d.require("flops", "peak FLOP/s by dtype, such as {bf16: 312TFLOPS}"));
      const Cursor fl = d.get("flops");
      BRIGADE_RETURN_IF_ERROR(fl.expect_map("peak FLOP/s by dtype, such as {bf16: 312TFLOPS}"));
      for (const auto& [k, v] : fl.entries()) {
        BRIGADE_ASSIGN_OR_RETURN(const DType t_, read_dtype(k));
        BRIGADE_ASSIGN_OR_RETURN(dev.peak_flops_per_second[static_cast<size_t>(dtype_index(t_))],
                                 v.as_quantity(Dimension::kFlopsPerSecond, Bound::kPositive));
      }
      BRIGADE_ASSIGN_OR_RETURN(const std::int64_t node, d.get_int("node", 0, 0, kIntMax));
      dev.node = static_cast<int>(node);
      dev.local_index = per_node[dev.node]++;
      if (dev.name.empty())
        dev.name = std::string(device_kind_name(dev.kind)) + std::to_string(t.num_devices());
      t.add_device(std::move(dev));
    }
    if (c.has("switches")) {
      const Cursor sws = c.get("switches");
      BRIGADE_RETURN_IF_ERROR(sws.expect_list("a list of switches [{name, node}]"));
      const std::vector<Cursor> sw_items = sws.quiet().items();
      if (sw_items.size() > static_cast<size_t>(Limits::kMaxSwitches))
        return sw_items[static_cast<size_t>(Limits::kMaxSwitches)].error(
            "found more than " + std::to_string(Limits::kMaxSwitches) +
            " switches; expected at most " + std::to_string(Limits::kMaxSwitches) + " switches " +
            kLimitsDoc);
      for (const Cursor& w : sw_items) {
        BRIGADE_RETURN_IF_ERROR(w.expect_map("a switch {name, node}"));
        BRIGADE_RETURN_IF_ERROR(w.check_keys({"name", "node"}));
        BRIGADE_RETURN_IF_ERROR(w.require("name", "the switch's name"));
        Switch sw;
        BRIGADE_ASSIGN_OR_RETURN(sw.name, w.get("name").as_name());
        BRIGADE_ASSIGN_OR_RETURN(const std::int64_t node, w.get_int("node", -1, -1, kIntMax));
        sw.node = static_cast<int>(node);
        t.add_switch(std::move(sw));
      }
    }
    if (c.has("links")) {
      const Cursor links = c.get("links");
      BRIGADE_RETURN_IF_ERROR(
          links.expect_list("a list of links [{between: [a, b], bandwidth, latency, class}]"));
      const std::vector<Cursor> link_items = links.quiet().items();
      if (link_items.size() > static_cast<size_t>(Limits::kMaxLinks))
        return link_items[static_cast<size_t>(Limits::kMaxLinks)].error(
            "found more than " + std::to_string(Limits::kMaxLinks) + " links; expected at most " +
            std::to_string(Limits::kMaxLinks) + " links " + kLimitsDoc);
      // Link ends by name, looked up once per end rather than by a scan.
      std::unordered_map<std::string, int> vertex_names;
      for (int v = 0; v < t.num_vertices(); ++v) vertex_names.emplace(t.vertex_name(v), v);
      for (const Cursor& l : link_items) {
        BRIGADE_RETURN_IF_ERROR(
            l.expect_map("a link {between: [a, b], bandwidth, latency, class}"));
        BRIGADE_RETURN_IF_ERROR(l.check_keys({"between", "bandwidth", "latency", "class", "name"}));
        BRIGADE_RETURN_IF_ERROR(
            l.require("between", "the two ends [a, b] (device or switch names)"));
        const Cursor between = l.get("between");
        const std::vector<Cursor> ends = between.items();
        if (!between.is_list() || ends.size() != 2)
          return between.error("found " + between.found() +
                               "; expected two ends [a, b] (device or switch names)");
        Link link;
        BRIGADE_ASSIGN_OR_RETURN(link.a, read_vertex(t, vertex_names, ends[0]));
        BRIGADE_ASSIGN_OR_RETURN(link.b, read_vertex(t, vertex_names, ends[1]));
        BRIGADE_RETURN_IF_ERROR(
            l.require("bandwidth", "the link's bandwidth per direction, such as 25GB/s"));
        BRIGADE_ASSIGN_OR_RETURN(
            link.bandwidth_bytes_per_second,
            l.get("bandwidth").as_quantity(Dimension::kBytesPerSecond, Bound::kPositive));
        BRIGADE_RETURN_IF_ERROR(l.require("latency", "the link's latency, such as 2us"));
        BRIGADE_ASSIGN_OR_RETURN(
            link.latency_seconds,
            l.get("latency").as_quantity(Dimension::kSeconds, Bound::kNonNegative));
        if (l.has("class")) {
          BRIGADE_ASSIGN_OR_RETURN(link.link_class, read_link_class(l.get("class")));
        }
        BRIGADE_ASSIGN_OR_RETURN(
            link.name, l.get_name("name", t.vertex_name(link.a) + "<->" + t.vertex_name(link.b)));
        t.add_link(std::move(link));
      }
    }
    s_->topology = std::move(t);
    return Status::ok();
  }

  // A link end: a device or switch name, or a device index.
  Result<int> read_vertex(const Topology& t, const std::unordered_map<std::string, int>& by_name,
                          const Cursor& c) const {
    if (c.is_scalar()) {
      // The first vertex of a name, as a scan in vertex order would find.
      if (auto it = by_name.find(c.text()); it != by_name.end()) return it->second;
      auto idx = c.as_int(0, t.num_devices() - 1);
      if (idx.is_ok()) return static_cast<int>(*idx);
    }
    std::vector<std::string> names;
    for (int v = 0; v < t.num_vertices(); ++v) names.push_back(t.vertex_name(v));
    std::string msg = "found " + c.found() + "; expected a device or switch name";
    if (!names.empty()) msg += " such as " + names.front();
    if (c.is_scalar())
      if (auto m = closest_match_in(c.text(), names)) msg += " (did you mean '" + *m + "'?)";
    return c.error(msg);
  }

  // A device: its index or its name.
  void index_device_names() {
    if (!device_names_.empty()) return;
    const Topology& t = s_->topology;
    for (int i = t.num_devices() - 1; i >= 0; --i) {
      device_names_[t.device(i).name] = i;  // the first wins
      std::int64_t v = 0;
      const std::string& name = t.device(i).name;
      const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
      numeric_device_name_ = numeric_device_name_ || (ec == std::errc() && ptr == name.data() + name.size());
    }
  }

  // read_device's answer for a JSON scalar's text, or -1 where read_device
  // would refuse it (the cursors then word the message).
  int device_of_text(std::string_view text) {
    index_device_names();
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    const bool integer = ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
    // A device's name wins over an index; names that read as integers are
    // rare, so the name is looked up only when one could match.
    if (!integer || numeric_device_name_)
      if (auto it = device_names_.find(std::string(text)); it != device_names_.end())
        return it->second;
    if (integer && v >= 0 && v < s_->topology.num_devices()) return static_cast<int>(v);
    return -1;
  }

  Result<int> read_device(const Cursor& c) {
    const Topology& t = s_->topology;
    const int n = t.num_devices();
    index_device_names();
    if (c.is_scalar()) {
      if (auto it = device_names_.find(c.text()); it != device_names_.end()) return it->second;
      auto idx = c.as_int(0, n - 1);
      if (idx.is_ok()) return static_cast<int>(*idx);
    }
    std::vector<std::string> names;
    for (const Device& d : t.devices()) names.push_back(d.name);
    std::string msg = "found device " + c.found() + "; expected a device index from 0 to " +
                      std::to_string(n - 1) + " or a device name such as " + names.front();
    if (c.is_scalar() && !c.as_int().is_ok())
      if (auto m = closest_match_in(c.text(), names)) msg += " (did you mean '" + *m + "'?)";
    return c.error(msg);
  }

  // ---- profile --------------------------------------------------------------

  Status read_profile(const Cursor& c) {
    BRIGADE_ASSIGN_OR_RETURN(const std::string file, c.as_name());
    std::filesystem::path p(file);
    if (p.is_relative()) p = std::filesystem::path(doc_.file).parent_path() / p;
    s_->profile_path = p.lexically_normal().string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(s_->profile_path, ec))
      return c.error(
          "found profile '" + file + "' (" + s_->profile_path +
          "), which is not a readable file; expected a profile file (see brigade calibrate)");
    Result<HardwareProfile> prof = load_profile(s_->profile_path);
    if (!prof.is_ok()) return prof.status();
    s_->profile = std::move(prof).value();
    return Status::ok();
  }

  // ---- model ----------------------------------------------------------------

  Status read_model(const Cursor& c) {
    const char* kWhat = "a model: one of mlp, transformer, huggingface, graph or collective";
    BRIGADE_RETURN_IF_ERROR(c.expect_map(kWhat));
    BRIGADE_RETURN_IF_ERROR(
        c.check_keys({"mlp", "transformer", "huggingface", "graph", "collective"}));
    const auto entries = c.entries();
    if (entries.empty()) return c.error("found an empty model; expected " + std::string(kWhat));
    if (entries.size() > 1)
      return entries[1].first.error("found both '" + entries[0].first.text() + "' and '" +
                                    entries[1].first.text() +
                                    "' in 'model'; expected exactly one of mlp, transformer, "
                                    "huggingface, graph or collective");
    const std::string kind = entries[0].first.text();
    const Cursor& v = entries[0].second;
    if (kind == "mlp") return read_mlp(v);
    if (kind == "transformer") return read_transformer(v);
    if (kind == "huggingface") return read_huggingface(v);
    if (kind == "graph") return read_graph(v);
    return read_collective(v);
  }

  Status read_mlp(const Cursor& c) {
    s_->model_kind = ModelKind::kMlp;
    MlpSpec& m = s_->mlp;
    BRIGADE_RETURN_IF_ERROR(c.expect_map("an MLP {batch, widths, dtype, activation, bias}"));
    BRIGADE_RETURN_IF_ERROR(c.check_keys({"batch", "widths", "dtype", "activation", "bias"}));
    BRIGADE_RETURN_IF_ERROR(c.require("batch", "the batch size (rows of the input)"));
    BRIGADE_ASSIGN_OR_RETURN(m.batch, c.get("batch").as_int(1, kMaxDim));
    BRIGADE_RETURN_IF_ERROR(c.require("widths", "the layer widths [in, hidden..., out]"));
    const Cursor w = c.get("widths");
    BRIGADE_RETURN_IF_ERROR(w.expect_list("the layer widths [in, hidden..., out]"));
    for (const Cursor& item : w.quiet().items()) {
      BRIGADE_ASSIGN_OR_RETURN(const std::int64_t width, item.as_int(1, kMaxDim));
      m.widths.push_back(width);
    }
    if (m.widths.size() < 2)
      return w.error("found " + std::to_string(m.widths.size()) +
                     " width; expected at least 2 widths [in, out]");
    if (c.has("dtype")) {
      BRIGADE_ASSIGN_OR_RETURN(m.dtype, read_dtype(c.get("dtype")));
    }
    BRIGADE_ASSIGN_OR_RETURN(
        m.activation,
        c.get_enum<std::string>("activation", "relu",
                                {{"relu", "relu"}, {"gelu", "gelu"}, {"none", "none"}}));
    BRIGADE_ASSIGN_OR_RETURN(m.bias, c.get_bool("bias", true));
    return Status::ok();
  }

  Status read_transformer(const Cursor& c) {
    s_->model_kind = ModelKind::kTransformer;
    return read_transformer_spec(c, &s_->transformer);
  }

  Status read_huggingface(const Cursor& c) {
    s_->model_kind = ModelKind::kTransformer;
    return read_huggingface_spec(c, doc_.file, &s_->transformer);
  }

  Status read_graph(const Cursor& c) {
    s_->model_kind = ModelKind::kGraph;
    return read_graph_spec(c, &s_->graph);
  }

  Status read_collective(const Cursor& c) {
    s_->model_kind = ModelKind::kCollective;
    CollectiveBenchSpec& b = s_->collective;
    BRIGADE_RETURN_IF_ERROR(c.expect_map("a collective {kind, bytes, algorithm, dtype, group}"));
    BRIGADE_RETURN_IF_ERROR(c.check_keys({"kind", "bytes", "algorithm", "dtype", "group"}));
    BRIGADE_RETURN_IF_ERROR(c.require("kind", "the collective's kind, such as allreduce"));
    {
      const Cursor k = c.get("kind");
      std::optional<CollectiveKind> kind;
      if (k.is_scalar()) kind = parse_collective_kind(k.text());
      if (!kind) {
        std::vector<std::pair<std::string, CollectiveKind>> choices;
        for (int i = 0; i < kNumCollectiveKinds; ++i) {
          const auto ck = static_cast<CollectiveKind>(i);
          choices.emplace_back(std::string(collective_kind_name(ck)), ck);
        }
        BRIGADE_ASSIGN_OR_RETURN(kind, k.as_enum(choices));
      }
      b.kind = *kind;
    }
    BRIGADE_RETURN_IF_ERROR(c.require("bytes", "the message size M, such as 1GiB"));
    BRIGADE_ASSIGN_OR_RETURN(b.bytes,
                             c.get("bytes").as_quantity(Dimension::kBytes, Bound::kPositive));
    BRIGADE_ASSIGN_OR_RETURN(
        b.algorithm, c.get_enum("algorithm", CollectiveAlgorithm::kAuto, algorithm_choices()));
    if (c.has("dtype")) {
      BRIGADE_ASSIGN_OR_RETURN(b.dtype, read_dtype(c.get("dtype")));
    }
    if (c.has("group")) {
      const Cursor g = c.get("group");
      BRIGADE_RETURN_IF_ERROR(g.expect_list("a list of devices (indices or names)"));
      std::vector<bool> in_group(static_cast<size_t>(s_->topology.num_devices()), false);
      for (const Cursor& d : g.quiet().items()) {
        BRIGADE_ASSIGN_OR_RETURN(const int dev, read_device(d));
        if (in_group[static_cast<size_t>(dev)])
          return d.error("found device " + d.found() +
                         " twice in the group; expected each device once");
        in_group[static_cast<size_t>(dev)] = true;
        b.group.push_back(dev);
      }
      if (b.group.empty())
        return g.error(
            "found an empty group; expected at least one device (or omit group for all)");
    }
    return Status::ok();
  }

  static std::vector<std::pair<std::string, CollectiveAlgorithm>> algorithm_choices() {
    return choices_of({CollectiveAlgorithm::kAuto, CollectiveAlgorithm::kRing,
                       CollectiveAlgorithm::kTree, CollectiveAlgorithm::kNvls,
                       CollectiveAlgorithm::kHalvingDoubling, CollectiveAlgorithm::kHierarchical},
                      collective_algorithm_name);
  }

  // ---- training and strategy ------------------------------------------------

  Status read_strategy(const Cursor& c) {
    StrategySpec& st = s_->strategy;
    s_->has_strategy = true;
    BRIGADE_RETURN_IF_ERROR(c.expect_map("a strategy such as {data: 8, tensor: 8, pipeline: 1}"));
    BRIGADE_RETURN_IF_ERROR(c.check_keys(
        {"data", "tensor", "pipeline", "expert", "context", "sequence_parallel", "schedule",
         "virtual_stages", "zero", "zero3_prefetch", "data_mode", "rank_order", "bucket", "overlap",
         "overlap_param_gather", "algorithm", "pipeline_engine", "pipeline_scatter_gather",
         "pipeline_blocking_sends", "embedding_in_pipeline_split", "loss_in_pipeline_split"}));
    // A degree above the device limit can never match a topology; bounding
    // each keeps their product far inside 64 bits.
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t data, c.get_int("data", 1, 1, Limits::kMaxDevices));
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t tensor,
                             c.get_int("tensor", 1, 1, Limits::kMaxDevices));
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t pipeline,
                             c.get_int("pipeline", 1, 1, Limits::kMaxDevices));
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t expert,
                             c.get_int("expert", 1, 1, Limits::kMaxDevices));
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t context,
                             c.get_int("context", 1, 1, Limits::kMaxDevices));
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t virtual_stages,
                             c.get_int("virtual_stages", 1, 1, kIntMax));
    // The ZeRO stage's range (0..3) is check_plan's, so that its message names the stages.
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t zero, c.get_int("zero", 0, INT_MIN, kIntMax));
    st.data = static_cast<int>(data);
    st.tensor = static_cast<int>(tensor);
    st.pipeline = static_cast<int>(pipeline);
    st.expert = static_cast<int>(expert);
    st.context = static_cast<int>(context);
    st.virtual_stages = static_cast<int>(virtual_stages);
    st.zero = static_cast<int>(zero);
    BRIGADE_ASSIGN_OR_RETURN(st.sequence_parallel, c.get_bool("sequence_parallel", false));
    BRIGADE_ASSIGN_OR_RETURN(
        st.schedule, c.get_enum("schedule", PipelineSchedule::k1F1B,
                                choices_of({PipelineSchedule::kGpipe, PipelineSchedule::k1F1B,
                                            PipelineSchedule::kInterleaved},
                                           schedule_name)));
    BRIGADE_ASSIGN_OR_RETURN(
        st.pipeline_engine,
        c.get_enum("pipeline_engine", PipelineEngine::kMegatron,
                   choices_of({PipelineEngine::kMegatron, PipelineEngine::kDeepSpeed},
                              pipeline_engine_name)));
    BRIGADE_ASSIGN_OR_RETURN(st.pipeline_scatter_gather,
                             c.get_bool("pipeline_scatter_gather", false));
    BRIGADE_ASSIGN_OR_RETURN(st.pipeline_blocking_sends,
                             c.get_bool("pipeline_blocking_sends", false));
    BRIGADE_ASSIGN_OR_RETURN(st.embedding_in_pipeline_split,
                             c.get_bool("embedding_in_pipeline_split", false));
    BRIGADE_ASSIGN_OR_RETURN(st.loss_in_pipeline_split,
                             c.get_bool("loss_in_pipeline_split", false));
    // Read whatever the stage; only ZeRO-3 uses it (docs/scenario-format.md).
    BRIGADE_ASSIGN_OR_RETURN(
        st.zero3_prefetch,
        c.get_enum("zero3_prefetch", Zero3Prefetch::kPerPass,
                   choices_of({Zero3Prefetch::kPerPass, Zero3Prefetch::kPerMicroBatch,
                               Zero3Prefetch::kAcrossPasses},
                              zero3_prefetch_name)));
    BRIGADE_ASSIGN_OR_RETURN(st.data_mode,
                             c.get_enum("data_mode", DataMode::kBatch,
                                        {{"batch", DataMode::kBatch}, {"pmap", DataMode::kPmap}}));
    if (c.has("rank_order")) {
      const Cursor r = c.get("rank_order");
      const char* kWhat =
          "a permutation of tensor, data, pipeline (innermost first), context optional";
      BRIGADE_RETURN_IF_ERROR(r.expect_list(kWhat));
      std::vector<std::string> order;
      for (const Cursor& i : r.items()) {
        BRIGADE_ASSIGN_OR_RETURN(
            const std::string name,
            i.as_enum<std::string>(
                {{"tensor", "tensor"},
                 {"data", "data"},
                 {"pipeline", "pipeline"},
                 {"context", "context"}}));
        if (std::find(order.begin(), order.end(), name) != order.end())
          return i.error("found '" + name + "' twice in rank_order; expected " + kWhat);
        order.push_back(name);
      }
      const bool has_context = std::find(order.begin(), order.end(), "context") != order.end();
      if (order.size() != (has_context ? 4u : 3u))
        return r.error("found " + std::to_string(order.size()) +
                       " entries in rank_order; expected " + kWhat);
      st.rank_order = order;
    }
    BRIGADE_ASSIGN_OR_RETURN(st.bucket_bytes, c.get_quantity("bucket", st.bucket_bytes,
                                                             Dimension::kBytes, Bound::kPositive));
    BRIGADE_ASSIGN_OR_RETURN(st.overlap, c.get_bool("overlap", true));
    // Read whatever the stage; only ZeRO-1/2 use it (docs/scenario-format.md).
    // Megatron-LM refuses --overlap-param-gather without --overlap-grad-reduce
    // (megatron/training/arguments.py).
    BRIGADE_ASSIGN_OR_RETURN(st.overlap_param_gather, c.get_bool("overlap_param_gather", false));
    if (st.overlap_param_gather && !st.overlap)
      return c.get("overlap_param_gather")
          .error("found overlap_param_gather: true with overlap: false; expected overlap: true "
                 "with overlap_param_gather (Megatron-LM's --overlap-param-gather needs "
                 "--overlap-grad-reduce)");
    BRIGADE_ASSIGN_OR_RETURN(
        st.algorithm, c.get_enum("algorithm", CollectiveAlgorithm::kAuto, algorithm_choices()));
    return Status::ok();
  }

  // ---- placement, device_put, mesh, shardings, simulation --------------------

  // Entry positions go to `where`, not the scenario's position map (a
  // million placed ops would be a million map nodes).
  Status read_device_map(const Cursor& c, std::string_view key_what,
                         std::map<std::string, int>* out,
                         std::vector<Scenario::EntryPosition>* where) {
    BRIGADE_RETURN_IF_ERROR(
        c.expect_map("a map from " + std::string(key_what) + " to a device, such as {mm1: 0}"));
    // The keys in name order first, as views into the tree: the map is then
    // built in that order, each node appended at its end (constant time, and
    // the nodes lie in memory in the order they are visited), where a
    // million inserts in file order each walked ~20 levels of string
    // compares, a cache miss each (issue 20, item 3).
    const std::vector<std::optional<std::string_view>> keys = c.key_texts();
    const std::vector<std::uint32_t> order = name_order(keys);
    if (read_device_map_json(c, keys, order, out, where)) return Status::ok();
    // check_unique_keys has refused a key written twice before any reading;
    // should one come through, it is reported where inserting it failed: at
    // the first entry in the file whose name an earlier entry has.
    std::size_t first_repeat = keys.size();
    for (std::size_t k = 1; k < order.size(); ++k)
      if (*keys[order[k]] == *keys[order[k - 1]])
        first_repeat = std::min<std::size_t>(first_repeat, order[k]);
    std::vector<int> devices(keys.size(), -1);
    where->reserve(where->size() + keys.size());
    std::size_t next = 0;
    const Status read = c.quiet().for_each_entry([&](const Cursor& k, const Cursor& v) -> Status {
      const std::size_t entry = next++;
      if (!k.is_scalar())
        return k.error("found " + k.found() + "; expected " + std::string(key_what));
      BRIGADE_ASSIGN_OR_RETURN(std::string name, k.as_name());
      BRIGADE_ASSIGN_OR_RETURN(devices[entry], read_device(v));
      if (entry == first_repeat)
        return k.error("found key " + yamlio::quote(name) +
                       " a second time; expected each key once");
      const SourcePos p = k.pos();
      where->push_back(Scenario::EntryPosition{std::move(name), p.line, p.column});
      return Status::ok();
    });
    if (!read.is_ok()) return read;
    for (const std::uint32_t i : order) out->emplace_hint(out->end(), *keys[i], devices[i]);
    return Status::ok();
  }

  // A JSON map read straight from its tree, as read_device_map reads it
  // but without two cursors per entry (a generator's million-op placement,
  // issue 20 item 3): keys that are names written once, values device
  // indices or names. At anything else it undoes what it appended and
  // returns false, and the cursors read the map and word the message.
  bool read_device_map_json(const Cursor& c, const std::vector<std::optional<std::string_view>>& keys,
                            const std::vector<std::uint32_t>& order,
                            std::map<std::string, int>* out,
                            std::vector<Scenario::EntryPosition>* where) {
    const auto [tree, index] = c.json_value();
    if (tree == nullptr || order.size() != keys.size()) return false;  // a key not a scalar
    for (std::size_t k = 1; k < order.size(); ++k)
      if (*keys[order[k]] == *keys[order[k - 1]]) return false;
    const json_tree::Value& map = tree->at(index);
    std::vector<int> devices(keys.size(), -1);
    const std::size_t where_before = where->size();
    where->reserve(where_before + keys.size());
    for (std::uint32_t e = 0; e < keys.size(); ++e) {
      const json_tree::Value& key = tree->at(tree->child(map, 2 * e));
      const json_tree::Value& value = tree->at(tree->child(map, 2 * e + 1));
      const int device =
          value.kind == json_tree::Kind::kScalar ? device_of_text(tree->text(value)) : -1;
      if (device < 0 || !yamlio::is_clean_name(*keys[e])) {
        where->resize(where_before);
        return false;
      }
      devices[e] = device;
      where->push_back(Scenario::EntryPosition{std::string(*keys[e]), static_cast<int>(key.line),
                                               static_cast<int>(key.column)});
    }
    for (const std::uint32_t i : order) out->emplace_hint(out->end(), *keys[i], devices[i]);
    return true;
  }

  Status read_mesh(const Cursor& c) {
    BRIGADE_RETURN_IF_ERROR(c.expect_map("a mesh {shape: [2, 4], axes: [data, model]}"));
    BRIGADE_RETURN_IF_ERROR(c.check_keys({"shape", "axes"}));
    MeshSpec mesh;
    BRIGADE_RETURN_IF_ERROR(c.require("shape", "the mesh's shape, such as [2, 4]"));
    const Cursor shape = c.get("shape");
    BRIGADE_RETURN_IF_ERROR(shape.expect_list("the mesh's shape, such as [2, 4]"));
    const std::vector<Cursor> shape_items = shape.items();
    if (shape_items.size() > static_cast<size_t>(Limits::kMaxRank))
      return shape.error(over_limit(static_cast<std::int64_t>(shape_items.size()), Limits::kMaxRank,
                                    "dimensions"));
    for (const Cursor& i : shape_items) {
      BRIGADE_ASSIGN_OR_RETURN(const std::int64_t d, i.as_int(1, Limits::kMaxDevices));
      mesh.shape.push_back(d);
    }
    if (mesh.shape.empty())
      return shape.error("found an empty list; expected the mesh's shape, such as [2, 4]");
    BRIGADE_RETURN_IF_ERROR(
        c.require("axes", "one axis name per mesh dimension, such as [data, model]"));
    const Cursor axes = c.get("axes");
    BRIGADE_RETURN_IF_ERROR(
        axes.expect_list("one axis name per mesh dimension, such as [data, model]"));
    for (const Cursor& i : axes.items()) {
      BRIGADE_ASSIGN_OR_RETURN(const std::string a, i.as_name());
      if (std::find(mesh.axes.begin(), mesh.axes.end(), a) != mesh.axes.end())
        return i.error("found axis '" + a + "' twice in the mesh; expected unique axis names");
      mesh.axes.push_back(a);
    }
    if (mesh.axes.size() != mesh.shape.size())
      return axes.error("found " + std::to_string(mesh.axes.size()) + " axes for a mesh of " +
                        std::to_string(mesh.shape.size()) +
                        " dimensions; expected one axis name per dimension");
    s_->mesh = std::move(mesh);
    return Status::ok();
  }

  Status read_shardings(const Cursor& c) {
    BRIGADE_RETURN_IF_ERROR(c.expect_map("shardings by tensor, such as {x: [data, null]}"));
    for (const auto& [k, v] : c.entries()) {
      const char* kWhat = "a PartitionSpec: a list with a mesh axis name or null per dimension";
      BRIGADE_RETURN_IF_ERROR(v.expect_list(kWhat));
      std::vector<std::string> spec;
      const std::vector<Cursor> spec_items = v.items();
      if (spec_items.size() > static_cast<size_t>(Limits::kMaxRank))
        return v.error(over_limit(static_cast<std::int64_t>(spec_items.size()), Limits::kMaxRank,
                                  "dimensions"));
      for (const Cursor& i : spec_items) {
        if (i.is_null()) {
          spec.emplace_back();
        } else if (i.is_scalar()) {
          BRIGADE_ASSIGN_OR_RETURN(std::string axis, i.as_name());
          spec.push_back(std::move(axis));
        } else {
          return i.error("found " + i.found() + "; expected a mesh axis name or null");
        }
      }
      BRIGADE_ASSIGN_OR_RETURN(const std::string name, k.as_name());
      s_->shardings[name] = std::move(spec);
    }
    return Status::ok();
  }

  Status read_simulation(const Cursor& c) {
    BRIGADE_RETURN_IF_ERROR(
        c.expect_map("simulation options {network, speed, host_op_time, devices_per_host}"));
    BRIGADE_RETURN_IF_ERROR(c.check_keys({"network", "speed", "host_op_time", "devices_per_host"}));
    if (c.has("host_op_time")) {
      BRIGADE_ASSIGN_OR_RETURN(
          s_->simulation.host_op_seconds,
          c.get("host_op_time").as_quantity(Dimension::kSeconds, Bound::kNonNegative));
    }
    if (c.has("devices_per_host")) {
      // At most every device of the topology: a host drives no device twice.
      const int n = std::max(1, s_->topology.num_devices());
      BRIGADE_ASSIGN_OR_RETURN(const std::int64_t k, c.get("devices_per_host").as_int(1, n));
      s_->simulation.devices_per_host = static_cast<int>(k);
    }
    BRIGADE_ASSIGN_OR_RETURN(
        s_->simulation.network,
        c.get_enum<std::string>("network", "flow", {{"flow", "flow"}, {"ideal", "ideal"}}));
    if (c.has("speed")) {
      const Cursor sp = c.get("speed");
      BRIGADE_RETURN_IF_ERROR(sp.expect_map("speed factors by device, such as {0: 0.5}"));
      for (const auto& [k, v] : sp.entries()) {
        BRIGADE_ASSIGN_OR_RETURN(const int dev, read_device(k));
        // Six orders of magnitude either way keep every time finite (a
        // device a million times slower than its profile is no device).
        BRIGADE_ASSIGN_OR_RETURN(s_->simulation.speed[dev],
                                 v.as_number_in(1e-6, 1e6, "a speed factor"));
      }
    }
    return Status::ok();
  }

  Scenario* s_;
  yamlio::Document doc_;
  std::unordered_map<std::string, int> device_names_;  // read_device's, built on first use
  bool numeric_device_name_ = false;  // a device named as an integer reads ("3")
};

}  // namespace

Result<Scenario> parse_scenario(const std::string& text, const std::string& filename) {
  try {
    BRIGADE_ASSIGN_OR_RETURN(
        const yamlio::Tree tree,
        yamlio::read_tree(text, filename, "a well-formed YAML or JSON scenario"));
    BRIGADE_RETURN_IF_ERROR(yamlio::check_unique_keys(tree, filename));
    Scenario s;
    s.path = filename;
    ScenarioReader reader(filename, &s);
    BRIGADE_RETURN_IF_ERROR(reader.read(tree));
    return s;
  } catch (const YAML::Exception& e) {
    // Accessors do not throw by design; this is a guard, not a path.
    const SourcePos pos{filename, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                        e.mark.column >= 0 ? e.mark.column + 1 : 0};
    return Status::at(pos, "found unreadable YAML (" + e.msg + "); expected a scenario",
                      ErrorKind::kInternal);
  } catch (const std::exception& e) {
    return Status::at(SourcePos{filename, 0, 0},
                      std::string("internal error while reading the scenario: ") + e.what(),
                      ErrorKind::kInternal);
  }
}

Result<Scenario> load_scenario(const std::string& path) {
  std::string text;
  BRIGADE_RETURN_IF_ERROR(yamlio::read_file_text(path,
                                                 "a readable scenario file (.yaml, .yml or .json)",
                                                 &text, ScenarioLimits::kMaxFileBytes));
  return parse_scenario(text, path);
}

}  // namespace brigade
