// `search --emit BEST.yaml`: a plan as a scenario file. The original file is
// re-read and only the keys the plan decides are replaced (strategy and
// training.micro_batch / recompute for a transformer; placement, or mesh and
// shardings, for a graph), so its topology, model and profile stay exactly
// as written; `simulate`, `execute` and the app open the result.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/scenario_writer.hpp"

#include "core/text.hpp"
#include "planner/search_internal.hpp"

namespace brigade::planner {

Result<std::string> plan_scenario_yaml(const Scenario& base, const RankedPlan& plan) {
  if (!plan.scenario) return Status::error("search: the plan has no scenario to write", ErrorKind::kInternal);
  const Scenario& s = *plan.scenario;
  YAML::Node root;
  try {
    root = YAML::LoadFile(base.path);
  } catch (const std::exception& e) {
    return Status::error("search: cannot re-read '" + base.path + "' to write the plan: " + e.what(),
                         ErrorKind::kRuntime);
  }
  root["name"] = s.name + "-searched";
  root["description"] = "brigade search's plan for " + base.name + ": " + plan.label;
  // A profile path relative to the original file would not resolve from the
  // new one: write it absolute.
  if (!s.profile_path.empty())
    root["profile"] = std::filesystem::absolute(s.profile_path).lexically_normal().string();
  rebase_huggingface(root, base.path);  // and model.huggingface's config

  if (s.model_kind == ModelKind::kTransformer) {
    const StrategySpec& st = s.strategy;
    YAML::Node strat(YAML::NodeType::Map);
    strat["tensor"] = st.tensor;
    strat["pipeline"] = st.pipeline;
    strat["data"] = st.data;
    if (st.expert > 1 || s.transformer.moe.enabled()) strat["expert"] = st.expert;
    // context: written when above 1, or when the original plan had it (so
    // that a searched context 1 is said, not left to the default).
    if (st.context > 1 || base.strategy.context > 1) strat["context"] = st.context;
    strat["sequence_parallel"] = st.sequence_parallel;
    strat["schedule"] = std::string(schedule_name(st.schedule));
    // The base scenario's pipeline engine, kept (search does not vary it).
    if (st.pipeline_engine != PipelineEngine::kMegatron)
      strat["pipeline_engine"] = std::string(pipeline_engine_name(st.pipeline_engine));
    if (st.pipeline_scatter_gather) strat["pipeline_scatter_gather"] = true;  // the base's, kept
    if (st.pipeline_blocking_sends) strat["pipeline_blocking_sends"] = true;  // the base's, kept
    if (st.embedding_in_pipeline_split) strat["embedding_in_pipeline_split"] = true;  // the base's
    if (st.loss_in_pipeline_split) strat["loss_in_pipeline_split"] = true;            // the base's
    strat["virtual_stages"] = st.virtual_stages;
    strat["zero"] = st.zero;
    // The base scenario's prefetch mode, kept (search does not vary it).
    if (st.zero3_prefetch != Zero3Prefetch::kPerPass)
      strat["zero3_prefetch"] = std::string(zero3_prefetch_name(st.zero3_prefetch));
    strat["data_mode"] = st.data_mode == DataMode::kPmap ? "pmap" : "batch";
    YAML::Node order(YAML::NodeType::Sequence);
    for (const std::string& a : st.rank_order) order.push_back(a);
    order.SetStyle(YAML::EmitterStyle::Flow);
    strat["rank_order"] = order;
    strat["bucket"] = st.bucket_bytes;
    strat["overlap"] = st.overlap;
    // The base scenario's choice, kept (search does not vary it).
    if (st.overlap_param_gather) strat["overlap_param_gather"] = true;
    strat["algorithm"] = std::string(collective_algorithm_name(st.algorithm));
    root["strategy"] = strat;
    YAML::Node training = root["training"];
    if (!training || !training.IsMap()) training = YAML::Node(YAML::NodeType::Map);
    training["micro_batch"] = s.training.micro_batch;
    training["recompute"] = std::string(recompute_name(s.training.recompute));
    // The base scenario's tensor-parallel overlap where the plan takes it
    // (apply_point: sequence parallelism over tensor > 1); off, the key goes.
    if (!s.training.tp_comm_overlap) training.remove("tp_comm_overlap");
    root["training"] = training;
  } else {
    root.remove("placement");
    root.remove("mesh");
    root.remove("shardings");
    if (s.mesh) {
      YAML::Node mesh(YAML::NodeType::Map);
      YAML::Node shape(YAML::NodeType::Sequence), axes(YAML::NodeType::Sequence);
      for (auto d : s.mesh->shape) shape.push_back(d);
      for (const auto& a : s.mesh->axes) axes.push_back(a);
      shape.SetStyle(YAML::EmitterStyle::Flow);
      axes.SetStyle(YAML::EmitterStyle::Flow);
      mesh["shape"] = shape;
      mesh["axes"] = axes;
      root["mesh"] = mesh;
      YAML::Node sh(YAML::NodeType::Map);
      for (const auto& [tensor, spec] : s.shardings) {
        YAML::Node dims(YAML::NodeType::Sequence);
        for (const std::string& ax : spec) dims.push_back(ax.empty() ? YAML::Node() : YAML::Node(ax));
        dims.SetStyle(YAML::EmitterStyle::Flow);
        sh[tensor] = dims;
      }
      root["shardings"] = sh;
    } else {
      YAML::Node pl(YAML::NodeType::Map);
      for (const auto& [op, dev] : s.placement) pl[op] = dev;
      root["placement"] = pl;
    }
  }
  YAML::Emitter out;
  out << root;
  if (!out.good()) return Status::error(std::string("search: YAML: ") + out.GetLastError(), ErrorKind::kInternal);
  std::ostringstream text;
  // The path on one line (one_line escapes line breaks): a file named
  // "x\nname: evil\ny.yaml" put its second line into the emitted YAML.
  text << "# Written by `brigade search " << one_line(base.path) << "`: " << plan.label << "\n"
       << "# Everything but the plan's keys is the original file's (its comments are not kept).\n"
       << out.c_str() << "\n";
  return text.str();
}

}  // namespace brigade::planner
