#include "core/scenario_writer.hpp"

#include <filesystem>

#include <charconv>
#include <cstdint>

#include <yaml-cpp/yaml.h>

#include "core/file_io.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {

namespace {

// The shortest decimal that reads back as the same double.
std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string data_mode_name(DataMode m) {
  return m == DataMode::kPmap ? "pmap" : "batch";
}

// Sets map[key] = value, turning a missing or null parent into a map.
template <typename T>
void set(YAML::Node parent, const char* key, const T& value) {
  parent[key] = value;
}

// A boolean key whose default is false: written when it is set and was not
// (or the section is new), taken away when it goes back to its default.
void write_flag(YAML::Node parent, const char* key, bool was, bool is, bool all) {
  if (!(all && is) && was == is) return;
  if (is)
    set(parent, key, true);
  else
    parent.remove(key);
}

void write_strategy(const Scenario& orig, const Scenario& edited, YAML::Node root) {
  if (!edited.has_strategy) return;
  const StrategySpec& a = orig.strategy;
  const StrategySpec& b = edited.strategy;
  const bool all = !orig.has_strategy;
  YAML::Node st = root["strategy"];
  if (all || a.data != b.data) set(st, "data", b.data);
  if (all || a.tensor != b.tensor) set(st, "tensor", b.tensor);
  if (all || a.pipeline != b.pipeline) set(st, "pipeline", b.pipeline);
  if ((all && b.expert != 1) || a.expert != b.expert) set(st, "expert", b.expert);
  if ((all && b.context != 1) || a.context != b.context) set(st, "context", b.context);
  if (all || a.sequence_parallel != b.sequence_parallel)
    set(st, "sequence_parallel", b.sequence_parallel);
  if (all || a.schedule != b.schedule) set(st, "schedule", std::string(schedule_name(b.schedule)));
  if ((all && b.pipeline_engine != PipelineEngine::kMegatron) ||
      a.pipeline_engine != b.pipeline_engine)
    set(st, "pipeline_engine", std::string(pipeline_engine_name(b.pipeline_engine)));
  write_flag(st, "pipeline_scatter_gather", a.pipeline_scatter_gather, b.pipeline_scatter_gather,
             all);
  write_flag(st, "pipeline_blocking_sends", a.pipeline_blocking_sends, b.pipeline_blocking_sends,
             all);
  write_flag(st, "embedding_in_pipeline_split", a.embedding_in_pipeline_split,
             b.embedding_in_pipeline_split, all);
  write_flag(st, "loss_in_pipeline_split", a.loss_in_pipeline_split, b.loss_in_pipeline_split,
             all);
  if (all || a.virtual_stages != b.virtual_stages) set(st, "virtual_stages", b.virtual_stages);
  if (all || a.zero != b.zero) set(st, "zero", b.zero);
  if ((all && b.zero3_prefetch != Zero3Prefetch::kPerPass) || a.zero3_prefetch != b.zero3_prefetch)
    set(st, "zero3_prefetch", std::string(zero3_prefetch_name(b.zero3_prefetch)));
  if (all || a.data_mode != b.data_mode) set(st, "data_mode", data_mode_name(b.data_mode));
  if (all || a.rank_order != b.rank_order) {
    YAML::Node order(YAML::NodeType::Sequence);
    order.SetStyle(YAML::EmitterStyle::Flow);
    for (const std::string& axis : b.rank_order) order.push_back(axis);
    st["rank_order"] = order;
  }
  if (all || a.bucket_bytes != b.bucket_bytes) set(st, "bucket", number_text(b.bucket_bytes));
  if (all || a.overlap != b.overlap) set(st, "overlap", b.overlap);
  // Written when set; the default (false) takes the key away.
  write_flag(st, "overlap_param_gather", a.overlap_param_gather, b.overlap_param_gather, all);
  if (all || a.algorithm != b.algorithm)
    set(st, "algorithm", std::string(collective_algorithm_name(b.algorithm)));
}

void write_training(const Scenario& orig, const Scenario& edited, YAML::Node root) {
  const TrainingSpec& a = orig.training;
  const TrainingSpec& b = edited.training;
  if (a.global_batch == b.global_batch && a.micro_batch == b.micro_batch &&
      a.recompute == b.recompute && a.recompute_method == b.recompute_method &&
      a.recompute_num_layers == b.recompute_num_layers)
    return;
  YAML::Node t = root["training"];
  // 0 is "the default": the key is left out.
  auto count = [&](const char* key, std::int64_t was, std::int64_t now) {
    if (was == now) return;
    if (now == 0)
      t.remove(key);
    else
      t[key] = now;
  };
  count("global_batch", a.global_batch, b.global_batch);
  count("micro_batch", a.micro_batch, b.micro_batch);
  if (a.recompute != b.recompute) t["recompute"] = std::string(recompute_name(b.recompute));
  // (set_recompute drops the block method with any other recomputation.)
  if (a.recompute_method != b.recompute_method) {
    if (b.recompute_method == RecomputeMethod::kUniform)
      t.remove("recompute_method");
    else
      t["recompute_method"] = std::string(recompute_method_name(b.recompute_method));
  }
  if (a.recompute_num_layers != b.recompute_num_layers) {
    if (b.recompute_num_layers == 1)
      t.remove("recompute_num_layers");
    else
      t["recompute_num_layers"] = b.recompute_num_layers;
  }
}

void write_simulation(const Scenario& orig, const Scenario& edited, YAML::Node root) {
  if (orig.simulation.speed == edited.simulation.speed &&
      orig.simulation.network == edited.simulation.network &&
      orig.simulation.host_op_seconds == edited.simulation.host_op_seconds &&
      orig.simulation.devices_per_host == edited.simulation.devices_per_host)
    return;
  YAML::Node sim = root["simulation"];
  if (orig.simulation.network != edited.simulation.network)
    sim["network"] = edited.simulation.network;
  if (orig.simulation.speed != edited.simulation.speed) {
    if (edited.simulation.speed.empty()) {
      sim.remove("speed");
    } else {
      YAML::Node speed(YAML::NodeType::Map);
      speed.SetStyle(YAML::EmitterStyle::Flow);
      for (const auto& [device, factor] : edited.simulation.speed)
        speed[device] = number_text(factor);
      sim["speed"] = speed;
    }
  }
  if (orig.simulation.host_op_seconds != edited.simulation.host_op_seconds) {
    if (edited.simulation.host_op_seconds)
      sim["host_op_time"] = number_text(*edited.simulation.host_op_seconds);  // seconds
    else
      sim.remove("host_op_time");
  }
  if (orig.simulation.devices_per_host != edited.simulation.devices_per_host) {
    if (edited.simulation.devices_per_host > 1)
      sim["devices_per_host"] = edited.simulation.devices_per_host;
    else
      sim.remove("devices_per_host");
  }
}

}  // namespace

std::string rebase_path(const std::string& written, const std::string& scenario_file,
                        const std::string& folder) {
  namespace fs = std::filesystem;
  fs::path p(written);
  if (p.is_absolute()) return written;
  std::error_code ec;
  const fs::path absolute =
      fs::absolute(fs::path(scenario_file).parent_path() / p, ec).lexically_normal();
  if (folder.empty()) return absolute.generic_string();
  const fs::path rel = absolute.lexically_relative(fs::absolute(folder, ec).lexically_normal());
  return rel.empty() ? absolute.generic_string() : rel.generic_string();
}

void rebase_huggingface(YAML::Node& root, const std::string& scenario_file,
                        const std::string& folder) {
  // Looked up through const nodes: a non-const operator[] adds the key.
  const YAML::Node& r = root;
  if (!r.IsMap() || !r["model"] || !r["model"].IsMap() || !r["model"]["huggingface"]) return;
  const YAML::Node hf = r["model"]["huggingface"];
  if (hf.IsScalar()) {
    root["model"]["huggingface"] = rebase_path(hf.Scalar(), scenario_file, folder);
  } else if (hf.IsMap() && hf["config"] && hf["config"].IsScalar()) {
    root["model"]["huggingface"]["config"] =
        rebase_path(hf["config"].Scalar(), scenario_file, folder);
  }
}

Result<std::string> scenario_yaml_with_edits(const std::string& original_text,
                                             const std::string& filename, const Scenario& edited,
                                             const ScenarioWriteOptions& options) {
  BRIGADE_ASSIGN_OR_RETURN(const Scenario orig, parse_scenario(original_text, filename));
  try {
    YAML::Node root = YAML::Load(original_text);
    if (options.name) root["name"] = *options.name;
    if (options.profile) root["profile"] = *options.profile;
    rebase_huggingface(root, filename, options.folder);
    write_strategy(orig, edited, root);
    write_training(orig, edited, root);
    write_simulation(orig, edited, root);
    YAML::Emitter out;
    out << root;
    if (!out.good())
      return Status::error(filename + ": error: found " + out.GetLastError() +
                           "; expected a scenario that can be written as YAML");
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    // parse_scenario read the same text, so this is a guard, not a path.
    return Status::error(
        filename + ": error: found unreadable YAML (" + e.msg + "); expected a scenario",
        ErrorKind::kInternal);
  }
}

Status save_edited_scenario(const Scenario& edited, const std::string& path,
                            const ScenarioWriteOptions& options) {
  std::string text;
  BRIGADE_RETURN_IF_ERROR(
      yamlio::read_file_text(edited.path, "a scenario file", &text, ScenarioLimits::kMaxFileBytes));
  ScenarioWriteOptions o = options;
  if (o.folder.empty()) {
    std::error_code ec;
    o.folder = std::filesystem::absolute(path, ec).parent_path().string();
  }
  BRIGADE_ASSIGN_OR_RETURN(const std::string yaml,
                           scenario_yaml_with_edits(text, edited.path, edited, o));
  return write_file_atomically(path, yaml);
}

}  // namespace brigade
