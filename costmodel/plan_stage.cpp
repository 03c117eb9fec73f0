// The transformer judge's stages (plan_stage.hpp): where each rank of the
// strategy sits, which blocks a pipeline stage runs and holds, and its pace.
#include "costmodel/plan_stage.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace brigade::cost::detail {

// ---- rank mapping ------------------------------------------------------------------

RankMap rank_map(const Scenario& sc) {
  const StrategySpec& st = sc.strategy;
  RankMap m;
  int stride = 1;
  auto take = [&](std::string_view axis) {
    if (axis == "tensor") m.stride_tensor = stride, stride *= st.tensor;
    if (axis == "context") m.stride_context = stride, stride *= st.context;
    if (axis == "data") m.stride_data = stride, stride *= st.data;
    if (axis == "pipeline") m.stride_pipeline = stride, stride *= st.pipeline;
  };
  const auto& order = st.rank_order;
  const bool listed = std::find(order.begin(), order.end(), "context") != order.end();
  // Unlisted, context goes right after the first tensor, or first.
  bool context_due = !listed;
  if (context_due && std::find(order.begin(), order.end(), "tensor") == order.end()) {
    take("context");
    context_due = false;
  }
  for (const std::string& axis : order) {
    take(axis);
    if (context_due && axis == "tensor") {
      take("context");
      context_due = false;
    }
  }
  return m;
}

StageLayout stage_layout(int P, int v, int stage, const PipelineSplit& split,
                         std::int64_t recompute_cap, const TransformerBlocks& tb) {
  StageLayout s;
  s.first = stage == 0;
  s.last = stage == P - 1;
  s.chunks = v;
  s.layers_per_chunk = split.per_chunk;
  s.recompute_cap = recompute_cap;
  s.kept_per_chunk = kept_layers_of(split.per_chunk, recompute_cap);
  s.fewer_first = split.embedding && s.first ? 1 : 0;
  s.fewer_last = split.loss && s.last ? 1 : 0;
  if (!s.uneven()) {
    s.recomputed_layers = s.recomputed_per_chunk() * v;
    s.kept_layers = s.kept_per_chunk * v;
  } else {
    for (int c = 0; c < v; ++c) {
      s.recomputed_layers += s.chunk_recomputed(c);
      s.kept_layers += s.chunk_kept(c);
    }
  }
  // Tied word embeddings: the head has no parameters of its own
  // (transformer_blocks.hpp); untied, it owns its output matrix.
  const bool tied = tb.head.params.empty();
  auto counted = [&](StageBlock& b, const double* replicated) {
    for (int g = 0; g < b.owned; ++g) {
      b.owned_elements += b.group_elements[g];
      b.replicated_elements += replicated[g];
      if (b.is_expert(g)) b.expert_elements += b.group_elements[g];
      else if (b.group_fp8 != nullptr) b.fp8_elements += b.group_fp8[g];
    }
    b.gather_elements =
        b.is_head && stage == 0 && tied ? tb.embedding_figures.group_elements[0] : b.owned_elements;
  };
  auto whole = [&](StageBlock& b, const BlockTemplate& tpl, const TemplateFigures& f) {
    b.tpl = &tpl;
    b.figures = &f;
    b.group_elements = f.group_elements.data();
    b.group_expert = f.group_expert.data();
    b.group_fp8 = f.group_fp8.data();
    b.owned = static_cast<int>(f.group_elements.size());
    counted(b, f.group_replicated.data());
  };
  s.embedding.tied = P > 1 && tied ? 0 : -1;
  whole(s.embedding, tb.embedding, tb.embedding_figures);
  whole(s.layer, tb.layer, tb.layer_figures);
  if (s.kept_layers > 0) whole(s.layer_kept, tb.layer_kept, tb.layer_kept_figures);
  s.head.is_head = true;
  if (!tied) {
    whole(s.head, tb.head, tb.head_figures);
    return s;
  }
  s.head.tpl = &tb.head;
  s.head.figures = &tb.head_figures;
  if (stage != 0) {
    s.head.group_elements = tb.embedding_figures.group_elements.data();
    s.head.group_fp8 = tb.embedding_figures.group_fp8.data();
    s.head.owned = 1;
    s.head.tied = 0;
  }
  counted(s.head, tb.embedding_figures.group_replicated.data());
  return s;
}

double slowest_speed(const Scenario& sc, const std::vector<int>& devices) {
  double s = 1;
  for (int d : devices) {
    auto it = sc.simulation.speed.find(d);
    if (it != sc.simulation.speed.end() && it->second > 0) s = std::min(s, it->second);
  }
  return s;
}

double slowest_host_op_seconds(const Scenario& sc) {
  return brigade::slowest_host_op_seconds(sc.profile, sc.simulation.host_op_seconds);
}

void share_hosts(const Scenario& sc, const RankMap& rm, int t, int d, int cp,
                 std::vector<StageTimes>& stages) {
  const int per_host = sc.simulation.devices_per_host;
  if (per_host <= 1 ||
      std::none_of(stages.begin(), stages.end(), [](const StageTimes& s) { return s.host > 0; }))
    return;
  const int p = static_cast<int>(stages.size());
  const int nd = sc.topology.num_devices();
  std::vector<int> stage_of(static_cast<size_t>(nd), -1);
  for (int s = 0; s < p; ++s)
    for (int c = 0; c < cp; ++c)
      for (int r = 0; r < d; ++r)
        for (int k = 0; k < t; ++k) stage_of[static_cast<size_t>(rm.device(k, r, s, c))] = s;
  // Each host's operations a micro-batch: its devices' stages' own.
  std::vector<double> load(static_cast<size_t>((nd + per_host - 1) / per_host), 0.0);
  for (int dev = 0; dev < nd; ++dev)
    if (const int s = stage_of[static_cast<size_t>(dev)]; s >= 0)
      load[static_cast<size_t>(dev / per_host)] += stages[static_cast<size_t>(s)].host;
  // A stage keeps the pace of the busiest host among its devices'.
  std::vector<double> shared(static_cast<size_t>(p), 0.0);
  for (int dev = 0; dev < nd; ++dev)
    if (const int s = stage_of[static_cast<size_t>(dev)]; s >= 0)
      shared[static_cast<size_t>(s)] =
          std::max(shared[static_cast<size_t>(s)], load[static_cast<size_t>(dev / per_host)]);
  for (int s = 0; s < p; ++s) stages[static_cast<size_t>(s)].host = shared[static_cast<size_t>(s)];
}

}  // namespace brigade::cost::detail
