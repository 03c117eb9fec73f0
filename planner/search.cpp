// run_search: picks the search for the model kind; the clock, the budget and
// the progress throttle every search shares.
#include "planner/search.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "planner/search_internal.hpp"

namespace brigade::planner {

std::string_view objective_name(SearchObjective o) {
  return o == SearchObjective::kStepTime ? "step_time" : "memory";
}

nlohmann::json RankedPlan::keys_json() const {
  nlohmann::json j = nlohmann::json::object();
  if (point) {
    const StrategyPoint& p = *point;
    j["tensor"] = p.tensor;
    j["pipeline"] = p.pipeline;
    j["data"] = p.data;
    j["expert"] = p.expert;
    j["context"] = p.context;
    j["sequence_parallel"] = p.sequence_parallel;
    j["zero"] = p.zero;
    j["micro_batch"] = p.micro_batch;
    j["schedule"] = std::string(schedule_name(p.schedule));
    j["virtual_stages"] = p.virtual_stages;
    j["recompute"] = std::string(recompute_name(p.recompute));
    j["rank_order"] = rank_order_names(p.rank_order, p.context);
    j["bucket_bytes"] = p.bucket_bytes;
    return j;
  }
  if (scenario) {
    const Scenario& s = *scenario;
    if (s.mesh) {
      j["mesh"] = {{"shape", s.mesh->shape}, {"axes", s.mesh->axes}};
      nlohmann::json sh = nlohmann::json::object();
      for (const auto& [t, spec] : s.shardings) {
        nlohmann::json dims = nlohmann::json::array();
        for (const std::string& ax : spec)
          dims.push_back(ax.empty() ? nlohmann::json() : nlohmann::json(ax));
        sh[t] = dims;
      }
      j["shardings"] = sh;
    } else {
      nlohmann::json pl = nlohmann::json::object();
      for (const auto& [op, dev] : s.placement) pl[op] = dev;
      j["placement"] = pl;
    }
  }
  return j;
}

namespace detail {

Deadline::Deadline(const SearchOptions& o) : clock_(o.clock), budget_(o.budget_seconds) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
  start_ = clock_();
}

double Deadline::now() const {
  return clock_();
}

void ProgressThrottle::report(const SearchProgress& p, bool force) {
  if (!o_.progress) return;
  const double t = d_.now();
  if (!force && t - last_ < o_.progress_interval_seconds) return;
  last_ = t;
  o_.progress(p);
}

}  // namespace detail

Result<SearchResult> run_search(const Scenario& scenario, const SearchOptions& options) {
  if (options.top < 1)
    return Status::error("--top: found " + std::to_string(options.top) + "; expected 1 or more");
  if (options.budget_seconds < 0)
    return Status::error(
        "--budget: found a negative budget; expected a positive duration such as 5s");
  for (const RankOrder& order : options.grid.rank_order) {
    // Each order lists the four axes once (tensor 0, data 1, pipeline 2,
    // context 3): an order written with three, as before context joined the
    // space, leaves the fourth 0 and is no permutation.
    unsigned seen = 0;
    for (std::uint8_t axis : order)
      if (axis < 4) seen |= 1u << axis;
    if (seen != 0xFu)
      return Status::error("search: found the rank order " + std::to_string(order[0]) + "-" +
                           std::to_string(order[1]) + "-" + std::to_string(order[2]) + "-" +
                           std::to_string(order[3]) +
                           "; expected each of the four axes (tensor 0, data 1, pipeline 2, "
                           "context 3) once");
  }
  switch (scenario.model_kind) {
    case ModelKind::kTransformer:
      return detail::search_transformer(scenario, options);
    case ModelKind::kGraph:
      return detail::search_graph(scenario, options);
    case ModelKind::kMlp:
      return Status::error(
          "search: found an mlp model; expected a transformer or a graph (an MLP is lowered "
          "data-parallel only: its one strategy is data = devices; `brigade cost` judges it)",
          ErrorKind::kUnsupported);
    case ModelKind::kCollective:
      return Status::error(
          "search: found a collective model; expected a transformer or a graph (a lone "
          "collective has no placement to choose; `brigade collective` compares algorithms)",
          ErrorKind::kUnsupported);
    case ModelKind::kNone:
      break;
  }
  return Status::error("search: found no model; expected a transformer or a graph");
}

}  // namespace brigade::planner
