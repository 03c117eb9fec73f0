// `brigade search`: automatic placement, the head chef who reads the whole
// menu, prices every plan and shows why the winner wins (docs/search.md).
//
//  - Transformers: the strategy space of planner/search_space.hpp on the
//    scenario's fixed cluster, judged in closed form (costmodel's
//    estimate_plan, no Program), pruned memory first, then by a time bound;
//    the best K re-ranked by the simulator when asked.
//  - Graphs: per-op placement (exact branch and bound, or simulated
//    annealing when the graph is too large), pipeline stage splits by
//    dynamic programming, and shardings over a device mesh by an integer
//    program (CBC); every plan they propose is judged by estimate_plan.
// In both, the scenario's own hand-written plan is ranked with the rest.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "planner/search_space.hpp"

namespace brigade::planner {

enum class SearchObjective { kStepTime, kMemory };
std::string_view objective_name(SearchObjective o);

struct SearchProgress {
  std::uint64_t evaluated = 0;
  std::uint64_t pruned = 0;
  std::uint64_t total = 0;    // the space's size (0 when unknown)
  double best = 0;            // best objective so far (seconds or bytes; 0: none yet)
  std::string best_label;     // the plan that holds it
  std::string stage;          // "space" (first, with `total`), "closed form", "simulator 3/10", ...
};
using SearchProgressFn = std::function<void(const SearchProgress&)>;

struct SearchOptions {
  SearchObjective objective = SearchObjective::kStepTime;
  double budget_seconds = 0;  // wall-clock limit of the whole search; 0: none
  int top = 10;               // plans to report (and to re-rank with the simulator)
  std::uint64_t seed = 1;     // annealing's random stream (graphs)
  bool judge_sim = false;     // re-rank the best `top` with the simulator
  SpaceGrid grid;             // the transformer space (search --set restricts it)
  // How the simulator judges a plan; empty: planner::lower + sim::simulate
  // with the scenario's network model and device speeds.
  struct SimJudgement {
    double step_seconds = 0;
    double peak_memory_bytes = 0;  // the largest device peak
    bool out_of_memory = false;
  };
  std::function<Result<SimJudgement>(const Scenario&)> simulate;
  // The default judge's coarse rings (sim::SimOptions::ring_max_steps): a
  // ring phase of more than this many steps runs as this many super-steps.
  // 16 keeps GPT-3 175B's top 10 on 1024 GPUs to 12 digits of the
  // step-by-step simulation at 1/5 of its time (docs/search.md, "--judge
  // sim"); 0 simulates every step.
  std::int32_t sim_ring_max_steps = 16;
  SearchProgressFn progress;
  double progress_interval_seconds = 0.25;
  // Clock for the budget and progress (tests replace it); seconds.
  std::function<double()> clock;
};

// One plan as judged.
struct RankedPlan {
  std::string label;        // "tensor 8, pipeline 16, ..." or "branch and bound: mm1@0, ..."
  std::string method;       // "grid" (transformer space), "hand-written", "branch and bound", ...
  bool hand_written = false;
  std::optional<StrategyPoint> point;  // transformer plans
  nlohmann::json keys_json() const;    // the plan's strategy keys
  std::shared_ptr<const Scenario> scenario;  // the plan as a scenario (emit, simulate)

  double step_seconds = 0;
  double compute_seconds = 0;
  double bubble_seconds = 0;
  double exposed_communication_seconds = 0;
  double optimizer_seconds = 0;
  double host_wait_seconds = 0;   // waiting for its host (PlanEstimate::host_wait_seconds)
  double peak_memory_bytes = 0;   // the largest device peak
  double capacity_bytes = 0;      // that device's capacity
  double overflow_bytes = 0;      // the largest peak - capacity (0 when it fits)
  int overflow_stage = 0;         // the pipeline stage of the device most over
  int overflow_device = 0;
  double overflow_capacity_bytes = 0;  // that device's capacity
  double mfu = 0;
  bool fits = true;
  std::string reason;             // why it loses to the winner (or "best")
  std::string overflow;           // when it does not fit: "2.10 GiB over capacity on stage 0 (...)"
  int cost_rank = 0;              // 1-based, among the plans that fit
  // Plans folded into this row: the same figures within rounding, differing
  // only in rank order or bucket (docs/search.md, "Ties"), in key order.
  std::vector<StrategyPoint> ties;

  // Filled by the simulator re-ranking.
  std::optional<double> sim_step_seconds;
  std::optional<double> sim_peak_memory_bytes;
  bool sim_out_of_memory = false;
  std::string sim_error;
  int sim_rank = 0;

  // Private to the search: the closed form's plan figures by purpose.
  struct Comm {
    std::string purpose, kind;
    int group_size = 0;
    double seconds = 0, exposed_seconds = 0;
    bool crosses_nodes = false;
  };
  std::vector<Comm> communication;
};

// What one graph method did.
struct MethodReport {
  std::string name;        // "branch and bound", "dynamic programming (stages)", ...
  std::string objective;   // what it minimises, in words
  double value = 0;        // its own objective's best value (seconds)
  std::optional<double> lower_bound;  // where known; gap = (value - bound) / value
  bool optimal = false;
  std::string status;      // "optimal", "stopped at the budget", ...
  std::string fallback;    // why it fell back to another method ("" when it did not)
  std::uint64_t explored = 0;
  double seconds = 0;
};

struct SearchResult {
  std::string scenario_name;
  std::string model_kind;   // "transformer", "graph"
  int devices = 0;
  std::string topology;     // "dgx-a100 x 128 nodes (1024 devices)"
  SearchObjective objective = SearchObjective::kStepTime;
  std::string judge;        // "cost" or "sim"

  std::vector<std::string> space;   // one line per key
  std::uint64_t space_size = 0;
  bool experts = false;             // a mixture of experts: the space has an expert key
  bool contexts = false;            // context degrees above 1 in the space or the hand-written plan
  // Points of the grid left out of the space because check_plan refuses
  // them (expert and context parallelism's conditions), per reason.
  std::vector<std::pair<std::string, std::uint64_t>> refused;
  std::uint64_t evaluated = 0;
  std::uint64_t pruned_memory = 0;  // never judged: their class's representative did not fit
  std::uint64_t pruned_bound = 0;   // never judged: a bound showed they cannot reach the top
  std::uint64_t infeasible = 0;     // judged, over capacity
  std::uint64_t invalid = 0;        // rejected by the judge (first reason below)
  std::string invalid_example;
  std::uint64_t unvisited = 0;      // left when the budget ran out
  bool budget_exhausted = false;
  double elapsed_seconds = 0;
  std::vector<std::string> notes;   // how the pruning went, fallbacks, ...

  std::vector<RankedPlan> plans;       // fit, best first, at most `top`
  std::vector<RankedPlan> not_fitting; // the closest over capacity, smallest overflow first
  std::optional<RankedPlan> hand_written;
  int hand_written_rank = 0;           // among all plans judged that fit; 0: does not fit
  bool hand_written_rank_exact = true; // false: pruned plans might rank above it
  bool hand_written_in_space = false;  // the same plan is a point of the space
  std::uint64_t fitting = 0;           // plans judged that fit
  std::vector<MethodReport> methods;   // graphs
  std::vector<std::string> disagreements;  // closed form vs simulator
};

// Runs the search. Errors (bad input, one line): a model it cannot search
// (collective, MLP), a grid restricted to nothing, a judge failure on the
// hand-written plan. "No plan fits" is not an error here: plans is empty and
// not_fitting says by how much the closest overflow (the CLI exits 2).
Result<SearchResult> run_search(const Scenario& scenario, const SearchOptions& options);

// The winner (or any plan) as a scenario file: the original file with its
// strategy (and training) or placement/mesh keys replaced, YAML. Relative
// profile paths are made absolute so the file opens from anywhere.
Result<std::string> plan_scenario_yaml(const Scenario& base, const RankedPlan& plan);

std::string search_text(const SearchResult& r, int top);
nlohmann::json search_json(const SearchResult& r);

}  // namespace brigade::planner
