// `brigade sweep`: one scenario judged at several device counts (the data
// degree scales; strong scaling, the global batch stays), at several values
// of one strategy key, or over a grid of several keys (--set repeated): step
// time, peak memory, speedup, efficiency, Amdahl's p fitted to the speedups,
// and where adding devices stops paying. With --fixed-devices the grid stays
// on the topology's device count (data = devices / (tensor x pipeline)) and
// each point's step is given relative to the first point's instead.
//
// Points are made, judged and dropped one at a time: a sweep holds one
// variant's Scenario at a time, whose Topology shares its routes with the
// base's (core/topology.hpp).
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "costmodel/plan.hpp"
#include "sim/simulator.hpp"

namespace brigade::planner {

struct SweepSpec {
  std::string key = "devices";      // "devices", or a strategy / training key (see sweep_keys())
  std::vector<std::string> values;  // as written on the command line
  // Further keys (--set repeated): the sweep is then the grid of every
  // combination, the first key outermost.
  std::vector<std::pair<std::string, std::vector<std::string>>> more;
  // Keep the topology's device count: data = devices / (tensor x pipeline)
  // (a point where that does not divide keeps an error).
  bool fixed_devices = false;
};

// What a judge says of one point.
struct SweepJudgement {
  double step_seconds = 0;
  double peak_memory_bytes = 0;  // the largest device peak (0: the judge gives none)
  double capacity_bytes = 0;     // that device's capacity
  bool fits = true;
};

struct SweepPoint {
  std::string value;                // the swept value as written ("2,4" for a grid point)
  std::vector<std::string> values;  // one per key, as written
  int devices = 0;                  // devices the plan uses
  int data = 0;                     // the data degree (filled in under fixed_devices)
  double step_seconds = 0;          // the judge's step time (0 when `error` is set)
  double peak_memory_bytes = 0;
  double capacity_bytes = 0;
  bool fits = true;
  double speedup = 0;       // T(first point) / T(this point)
  // speedup / (devices / devices of the first point); meaningful only where
  // the device count varies (SweepResult::devices_vary), else 0.
  double efficiency = 0;
  double relative_step = 0;  // T(this point) / T(first point)
  std::string error;        // why this point could not be judged; "" when it was
};

struct SweepResult {
  std::string key;                // the first key (all of them joined by ',' for a grid)
  std::vector<std::string> keys;  // every key, in order
  bool fixed_devices = false;
  std::string judge;  // "cost" or "sim"
  std::vector<SweepPoint> points;
  // Whether the judged points use different device counts. At one count
  // (a sweep of micro_batch, say) there is no efficiency, only each step
  // relative to the first.
  bool devices_vary = false;
  // Amdahl's law fitted to the (relative devices, speedup) points, when the
  // device count varies over at least two judged points and the plan has
  // work that divides over devices (not a lone collective).
  std::optional<double> amdahl_p;
  std::optional<double> r_squared;
  // Why no fit was made, or why the fitted p is no parallel fraction (p < 0:
  // the step only grows with devices; p > 1: faster than linear); "" otherwise.
  std::string amdahl_note;
  // The last device count whose step time beat every smaller one: the next
  // point was no faster.
  std::optional<int> stops_paying_after;
  // Under the fitted law, doubling the devices beyond this count gains less
  // than 10% (costmodel/scaling.hpp, amdahl_doubling_limit).
  std::optional<double> doubling_limit;
};

// A point's judgement from the closed form (the largest device peak, its
// capacity, whether every device fits) or from a simulation of `scenario`
// (the largest simulated peak; fits unless the simulator saw an OOM).
SweepJudgement sweep_judgement(const cost::PlanEstimate& estimate);
SweepJudgement sweep_judgement(const sim::SimResult& result, const Scenario& scenario);

// One scenario judged (the caller binds costmodel's estimate_plan or lower()
// + the simulator). Errors become the point's `error`.
using SweepJudge = std::function<Result<SweepJudgement>(const Scenario&)>;
// Called after each point with (points done, total, the point).
using SweepProgress = std::function<void(int, int, const SweepPoint&)>;

// A topology of exactly `devices` devices: the first ones of `t` (with the
// switches and links among them), or `t` grown by whole nodes of its preset
// first when it has too few. check_plan wants the degrees to use every device.
Result<Topology> resize_topology(const Topology& t, int devices);

// The keys --set accepts ("tensor", "strategy.tensor", ...).
std::vector<std::string> sweep_keys();

// The scenario for one value. "devices" sets the data degree to
// devices / (tensor x pipeline) (an MLP's or graph's data degree to
// devices, a lone collective's group to devices 0..N-1) and grows the
// topology by whole nodes of its preset when it has too few devices.
// Errors (one line, no position): "--set tensor: found 'x'; expected a
// positive integer"; "--devices: 12 devices are not a multiple of tensor x
// pipeline = 8".
Result<Scenario> sweep_variant(const Scenario& base, const std::string& key,
                               const std::string& value);

// Checks the keys and every value up front (bad input: an unknown key, a
// value that does not parse, --fixed-devices with devices or data), then
// makes, judges and drops each point in turn; a point that cannot be planned
// or judged keeps its error and the sweep goes on.
Result<SweepResult> run_sweep(const Scenario& base, const SweepSpec& spec,
                              const std::string& judge_name, const SweepJudge& judge,
                              const SweepProgress& progress = {});

// Amdahl's law through one plan, the sweep `brigade cost` shows: the scenario
// judged as `sweep --devices` does at the data degrees 1, 2, 4, ... up to
// twice its own (and its own), times tensor x pipeline, and p fitted to the
// speedups. Errors (one line, the reason there is no table): the scenario
// fixes its devices (a mesh or a placement), or it is a lone collective.
Result<SweepResult> amdahl_through_plan(const Scenario& scenario, const SweepJudge& judge);

// Fills `estimate`'s Amdahl table (amdahl_p, amdahl_r_squared, amdahl rows)
// from amdahl_through_plan with the closed form as the judge, or its
// amdahl_note with the reason there is none: what `brigade cost` prints.
void add_amdahl_through_plan(const Scenario& scenario, cost::PlanEstimate& estimate);

// A header, then one row per point: value,devices,step_seconds,speedup,
// efficiency,peak_memory_bytes,fits,error (the value of the swept key; see
// SweepResult::key); the efficiency is empty where the device count does not
// vary. A grid has one column per key instead of value; under fixed_devices,
// data and relative_step replace speedup and efficiency.
std::string sweep_csv(const SweepResult& r);
nlohmann::json sweep_json(const SweepResult& r);
std::string sweep_text(const SweepResult& r);

}  // namespace brigade::planner
