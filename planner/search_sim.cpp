// The second judge: the best plans of the closed-form ranking lowered to
// Programs and simulated, re-ranked by simulated step time, and the places
// where the two judges order plans differently said in words.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/program.hpp"
#include "core/units.hpp"
#include "planner/lower.hpp"
#include "planner/search_internal.hpp"
#include "sim/scenario_options.hpp"
#include "sim/simulator.hpp"

namespace brigade::planner::detail {
namespace {

// The planner's Program through the simulator with the scenario's own
// network model, device speeds and runtime conditions (what `brigade
// simulate` runs), with coarse rings (SearchOptions::sim_ring_max_steps).
// `cancel` stops the lowering and the simulation (the budget ran out).
Result<SearchOptions::SimJudgement> simulate_default(const Scenario& s, std::int32_t ring_max_steps,
                                                     const std::atomic<bool>* cancel) {
  LowerOptions lo;
  lo.cancel = cancel;
  BRIGADE_ASSIGN_OR_RETURN(Plan plan, lower(s, lo));
  sim::SimOptions options = sim::options_for(s);
  options.record_task_times = false;
  options.ring_max_steps = ring_max_steps;
  options.cancel = cancel;
  BRIGADE_ASSIGN_OR_RETURN(sim::SimResult r, sim::simulate(plan.program, s.topology, s.profile, options));
  SearchOptions::SimJudgement j;
  j.step_seconds = r.step_seconds;
  for (const sim::DeviceStats& d : r.devices) j.peak_memory_bytes = std::max(j.peak_memory_bytes, d.peak_memory_bytes);
  j.out_of_memory = !r.oom.empty();
  return j;
}

// False when the budget stopped it (the plan keeps its closed-form rank).
bool judge_one(RankedPlan& p, const SearchOptions& o, const std::atomic<bool>* cancel) {
  if (!p.scenario) {
    p.sim_error = "no scenario to simulate";
    return true;
  }
  auto j = o.simulate ? o.simulate(*p.scenario) : simulate_default(*p.scenario, o.sim_ring_max_steps, cancel);
  if (!j.is_ok()) {
    if (j.status().kind() == ErrorKind::kCancelled) return false;
    p.sim_error = j.message();
    return true;
  }
  p.sim_step_seconds = j->step_seconds;
  p.sim_peak_memory_bytes = j->peak_memory_bytes;
  p.sim_out_of_memory = j->out_of_memory;
  return true;
}

}  // namespace

void rerank_with_simulator(SearchResult& r, const SearchOptions& o, const Deadline& deadline) {
  // The plans are simulated side by side, one per core (each simulation is
  // single-threaded and independent; the results do not depend on the order).
  // A plan is started only while the budget lasts, and the default judge
  // is stopped when it runs out (a watcher polls the deadline).
  // The hand-written plan (when it fits and is not listed) goes last.
  std::vector<RankedPlan*> jobs;
  for (RankedPlan& p : r.plans) jobs.push_back(&p);
  bool listed = false;
  for (const RankedPlan& p : r.plans) listed |= p.hand_written && p.method == "hand-written";
  if (r.hand_written && r.hand_written->fits && !listed) jobs.push_back(&*r.hand_written);
  SearchProgress prog;
  prog.total = jobs.size();
  ProgressThrottle throttle(o, deadline);
  std::mutex mu;
  std::atomic<size_t> next{0};
  std::atomic<bool> cancel{false};
  size_t done = 0, done_listed = 0;
  auto worker = [&] {
    while (true) {
      const size_t i = next.fetch_add(1);
      if (i >= jobs.size() || deadline.expired()) return;
      if (!judge_one(*jobs[i], o, &cancel)) return;
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      done_listed += i < r.plans.size();
      prog.stage = fmt::format("simulator {}/{}", done, jobs.size());
      prog.evaluated = done;
      prog.best_label = jobs[i]->label;
      throttle.report(prog, true);
    }
  };
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>(cores, jobs.size());
  std::vector<std::thread> threads;
  std::atomic<bool> finished{false};
  std::thread watcher;
  if (deadline.has_budget() && !o.simulate)
    watcher = std::thread([&] {
      while (!finished.load()) {
        if (deadline.expired()) {
          cancel.store(true);
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  for (size_t w = 1; w < workers; ++w) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  finished.store(true);
  if (watcher.joinable()) watcher.join();
  // Each plan's Program and simulator state reused the pages the plans
  // before it freed (big_allocate keeps freed blocks and moves their pages
  // into the next request: fresh pages are what a plan costs most on this
  // VM); the search is done with them.
  big_release_cached();
  if (done_listed < r.plans.size())
    r.notes.push_back(fmt::format("budget: the simulator judged {} of the {} best plans; the "
                                  "others keep their closed-form rank",
                                  done_listed, r.plans.size()));
  for (RankedPlan& p : r.plans)
    if (p.hand_written && p.method == "hand-written" && r.hand_written) {
      r.hand_written->sim_step_seconds = p.sim_step_seconds;
      r.hand_written->sim_peak_memory_bytes = p.sim_peak_memory_bytes;
      r.hand_written->sim_out_of_memory = p.sim_out_of_memory;
      r.hand_written->sim_error = p.sim_error;
    }

  // Re-rank: plans the simulator ran without running out of memory, by its
  // step (objective memory: its peak); then the rest in closed-form order.
  auto ok = [](const RankedPlan& p) { return p.sim_step_seconds && !p.sim_out_of_memory; };
  auto key = [&](const RankedPlan& p) {
    return r.objective == SearchObjective::kStepTime ? *p.sim_step_seconds : *p.sim_peak_memory_bytes;
  };
  std::vector<RankedPlan> by_sim = r.plans;
  std::stable_sort(by_sim.begin(), by_sim.end(), [&](const RankedPlan& a, const RankedPlan& b) {
    if (ok(a) != ok(b)) return ok(a);
    if (!ok(a)) return a.cost_rank < b.cost_rank;
    if (key(a) != key(b)) return key(a) < key(b);
    return a.cost_rank < b.cost_rank;
  });
  for (size_t i = 0; i < by_sim.size(); ++i) by_sim[i].sim_rank = static_cast<int>(i) + 1;

  // Where the judges disagree: every pair the closed form orders one way and
  // the simulator the other.
  int discordant = 0, pairs = 0;
  for (size_t i = 0; i < by_sim.size(); ++i)
    for (size_t j = i + 1; j < by_sim.size(); ++j) {
      const RankedPlan& a = by_sim[i];  // the simulator's better
      const RankedPlan& b = by_sim[j];
      if (!ok(a) || !ok(b)) continue;
      ++pairs;
      if (a.cost_rank < b.cost_rank) continue;
      ++discordant;
      if (r.disagreements.size() >= 8) continue;
      const bool time = r.objective == SearchObjective::kStepTime;
      const double ca = time ? a.step_seconds : a.peak_memory_bytes;
      const double cb = time ? b.step_seconds : b.peak_memory_bytes;
      auto show = [&](double x) { return time ? format_seconds(x) : format_bytes(x); };
      r.disagreements.push_back(fmt::format(
          "closed form puts #{} ({}) above #{} ({}), {} against {}; the simulator reverses them, "
          "{} against {}",
          b.cost_rank, b.label, a.cost_rank, a.label, show(cb), show(ca), show(key(b)), show(key(a))));
    }
  for (const RankedPlan& p : by_sim) {
    if (p.sim_out_of_memory)
      r.disagreements.push_back(fmt::format(
          "#{} ({}) fits in closed form but runs out of memory in the simulator (peak {})",
          p.cost_rank, p.label, format_bytes(p.sim_peak_memory_bytes.value_or(0))));
    else if (!p.sim_error.empty())
      r.disagreements.push_back(fmt::format("#{} ({}) could not be simulated: {}", p.cost_rank, p.label,
                                            p.sim_error));
  }
  if (pairs > 0)
    r.notes.push_back(fmt::format("the simulator agrees with the closed form on {} of {} pairs of "
                                  "plans ({} in the other order)",
                                  pairs - discordant, pairs, discordant));
  // The simulator's order is the result's order; reasons against its winner.
  r.plans = std::move(by_sim);
  if (!r.plans.empty() && ok(r.plans.front())) {
    const RankedPlan& w = r.plans.front();
    for (size_t i = 0; i < r.plans.size(); ++i) {
      RankedPlan& p = r.plans[i];
      if (i == 0) {
        p.reason = "best";
      } else if (!ok(p)) {
        p.reason = p.sim_out_of_memory ? "runs out of memory in the simulator"
                                       : "could not be simulated: " + p.sim_error;
      } else {
        const double ratio = r.objective == SearchObjective::kStepTime
                                 ? *p.sim_step_seconds / *w.sim_step_seconds
                                 : *p.sim_peak_memory_bytes / *w.sim_peak_memory_bytes;
        const std::string closed = p.cost_rank < w.cost_rank
                                       ? fmt::format("ranked it #{}, above the winner (#{})",
                                                     p.cost_rank, w.cost_rank)
                                       : loses_because(r.objective, p, w);
        p.reason = fmt::format("simulated {:.2f}x the winner's{}; closed form: {}", ratio,
                               r.objective == SearchObjective::kStepTime ? " step" : " peak",
                               closed);
      }
    }
  }
}

}  // namespace brigade::planner::detail
