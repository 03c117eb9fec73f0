// Private to planner/search*.cpp: what the transformer and graph searches
// share (the clock and budget, a plan's figures from the closed form, the
// reasons a plan loses, the simulator's re-ranking). Not an interface.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "costmodel/plan.hpp"
#include "planner/search.hpp"

namespace brigade::planner::detail {

// The wall clock of a search and its budget.
class Deadline {
 public:
  explicit Deadline(const SearchOptions& o);
  double now() const;
  double elapsed() const { return now() - start_; }
  // True once the budget is spent (never without a budget).
  bool expired() const { return budget_ > 0 && elapsed() >= budget_; }
  double left() const { return budget_ > 0 ? budget_ - elapsed() : 0; }
  bool has_budget() const { return budget_ > 0; }

 private:
  std::function<double()> clock_;
  double start_ = 0, budget_ = 0;
};

// Calls the progress callback at most every interval (and always when forced).
class ProgressThrottle {
 public:
  ProgressThrottle(const SearchOptions& o, const Deadline& d) : o_(o), d_(d) {}
  void report(const SearchProgress& p, bool force = false);

 private:
  const SearchOptions& o_;
  const Deadline& d_;
  double last_ = -1e300;
};

// The figures of a plan judged in closed form: step, where it goes, the
// largest peak and the overflow of the device most over its capacity.
void fill_figures(const cost::PlanEstimate& e, RankedPlan& p);

// Peak and overflow alone (the search's inner loop).
struct MemoryFigures {
  double peak_bytes = 0, capacity_bytes = 0, overflow_bytes = 0, overflow_capacity_bytes = 0;
  int overflow_stage = 0, overflow_device = 0;
  bool fits = true;
};
MemoryFigures memory_figures(const cost::PlanEstimate& e);

// Whether plan b folds into plan a's row (`brigade search` lists distinct
// plans): they differ only in the rank order and the gradient bucket (keys
// that change neither the kernels nor, in closed form, the memory) and
// their scores are equal within rounding (relative 1e-9), so those keys had
// no effect on this plan.
bool ties_with(const StrategyPoint& a, double a_primary, double a_secondary, const StrategyPoint& b,
               double b_primary, double b_secondary);

// "bucket 100MB, 500MB; order T-P-D": the values of the rank order and the
// bucket that tie with the row's own (RankedPlan::ties), or "".
std::string ties_text(const RankedPlan& p);

// Orders plans by the objective: step time (then peak memory) or peak
// memory (then step time). True when a ranks above b.
bool better(SearchObjective o, const RankedPlan& a, const RankedPlan& b);

// Why `plan` loses to `winner`, from their figures ("pipeline bubble 18% of
// the step (winner 6%)", "2.3x the winner's exposed communication: ...").
std::string loses_because(SearchObjective o, const RankedPlan& plan, const RankedPlan& winner);

// Fills plans' reasons and ranks (the first is the winner).
void explain_ranking(SearchObjective o, std::vector<RankedPlan>& plans);

// "2.10 GiB over capacity on stage 0 (device 5: 82.1 GiB of 80.0 GiB)".
std::string overflow_text(const RankedPlan& p, bool transformer);

// Re-ranks r.plans (and the hand-written plan) with options.simulate,
// stopping at the deadline; fills sim_* fields, sim ranks and
// r.disagreements, and re-orders r.plans by the simulator.
void rerank_with_simulator(SearchResult& r, const SearchOptions& options, const Deadline& deadline);

Result<SearchResult> search_transformer(const Scenario& sc, const SearchOptions& options);
Result<SearchResult> search_graph(const Scenario& sc, const SearchOptions& options);

// "dgx-a100 x 128 nodes (1024 devices)".
std::string topology_text(const Topology& t);

}  // namespace brigade::planner::detail
