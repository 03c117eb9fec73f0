// The search's report: a table for people, JSON for machines.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.hpp"
#include "planner/search_internal.hpp"

namespace brigade::planner {
namespace {

nlohmann::json num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

std::string count(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string ordinal(int n) {
  const int t = n % 100;
  const char* suffix = (t >= 11 && t <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

std::string pct(double x) { return fmt::format("{:.1f}%", 100 * x); }

nlohmann::json plan_json(const RankedPlan& p, bool with_rank) {
  nlohmann::json j;
  if (with_rank) j["rank"] = p.sim_rank > 0 ? p.sim_rank : p.cost_rank;
  j["label"] = p.label;
  j["method"] = p.method;
  j["hand_written"] = p.hand_written;
  j["strategy"] = p.keys_json();
  j["step_seconds"] = num(p.step_seconds);
  j["peak_memory_bytes"] = num(p.peak_memory_bytes);
  j["capacity_bytes"] = num(p.capacity_bytes);
  j["fits"] = p.fits;
  if (!p.fits) {
    j["overflow_bytes"] = num(p.overflow_bytes);
    j["overflow_stage"] = p.overflow_stage;
    j["overflow_device"] = p.overflow_device;
  }
  j["compute_seconds"] = num(p.compute_seconds);
  j["bubble_seconds"] = num(p.bubble_seconds);
  j["exposed_communication_seconds"] = num(p.exposed_communication_seconds);
  j["optimizer_seconds"] = num(p.optimizer_seconds);
  if (p.host_wait_seconds > 0) j["host_wait_seconds"] = num(p.host_wait_seconds);  // a host lane's
  j["mfu"] = num(p.mfu);
  j["reason"] = p.reason;
  if (!p.ties.empty()) {
    // The plans folded into this one: the same figures, other rank orders or buckets.
    nlohmann::json ties = nlohmann::json::array();
    for (const StrategyPoint& t : p.ties) {
      RankedPlan tied;
      tied.point = t;
      ties.push_back(tied.keys_json());
    }
    j["ties"] = ties;
    j["ties_text"] = detail::ties_text(p);
  }
  if (p.cost_rank > 0) j["cost_rank"] = p.cost_rank;
  if (p.sim_step_seconds || !p.sim_error.empty()) {
    nlohmann::json s;
    s["rank"] = p.sim_rank;
    s["step_seconds"] = p.sim_step_seconds ? num(*p.sim_step_seconds) : nlohmann::json();
    s["peak_memory_bytes"] = p.sim_peak_memory_bytes ? num(*p.sim_peak_memory_bytes) : nlohmann::json();
    s["out_of_memory"] = p.sim_out_of_memory;
    if (!p.sim_error.empty()) s["error"] = p.sim_error;
    j["sim"] = s;
  }
  return j;
}

// One row of the transformer table.
// The expert and context columns appear when the space has them.
std::string transformer_row(const RankedPlan& p, bool experts, bool contexts) {
  const StrategyPoint& s = *p.point;
  std::string sched = s.pipeline == 1 ? "-" : std::string(schedule_name(s.schedule));
  if (s.pipeline > 1 && s.schedule == PipelineSchedule::kInterleaved) sched += fmt::format(" x{}", s.virtual_stages);
  return fmt::format("{:>6} {:>4} {:>4} {}{}{:>3} {:>4} {:>5} {:<14} {:<9} {:<{}} {:>6}", s.tensor,
                     s.pipeline, s.data, experts ? fmt::format("{:>6} ", s.expert) : std::string(),
                     contexts ? fmt::format("{:>4} ", s.context) : std::string(),
                     s.sequence_parallel ? "on" : "-", s.zero, s.micro_batch, sched,
                     recompute_name(s.recompute), rank_order_label(s.rank_order, s.context),
                     contexts ? 7 : 5,
                     s.data * s.context > 1 ? bucket_label(s.bucket_bytes) : std::string("-"));
}

std::string figures(const RankedPlan& p) {
  return fmt::format("{:>10} {:>10} {:>10} {:>6}", format_seconds(p.step_seconds),
                     format_bytes(p.peak_memory_bytes), format_seconds(p.exposed_communication_seconds),
                     pct(p.mfu));
}

}  // namespace

std::string search_text(const SearchResult& r, int top) {
  std::string s;
  const bool tf = r.model_kind == "transformer";
  const bool sim = r.judge == "sim";
  s += fmt::format("search: {} on {}, objective {}, judge {}\n", r.scenario_name, r.topology,
                   objective_name(r.objective), sim ? "cost, then the simulator for the best" : "cost");
  s += tf ? "strategy space:\n" : "placement space:\n";
  for (const std::string& line : r.space) s += "  " + line + "\n";
  s += fmt::format("  = {} plans\n", count(r.space_size));
  s += fmt::format("judged {} in closed form in {}: {} fit, {} over capacity", count(r.evaluated),
                   format_seconds(r.elapsed_seconds), count(r.fitting), count(r.infeasible));
  if (r.invalid > 0) s += fmt::format(", {} rejected", count(r.invalid));
  s += "\n";
  if (r.pruned_memory + r.pruned_bound + r.unvisited > 0)
    s += fmt::format("never judged: {} pruned by memory, {} by the bound{}\n", count(r.pruned_memory),
                     count(r.pruned_bound),
                     r.unvisited > 0 ? fmt::format(", {} left at the budget", count(r.unvisited)) : "");
  if (r.invalid > 0 && !r.invalid_example.empty()) s += "  rejected, e.g. " + r.invalid_example + "\n";
  for (const std::string& n : r.notes) s += "  " + n + "\n";
  for (const MethodReport& m : r.methods) {
    s += fmt::format("{}: {} {}, {}", m.name, m.objective, format_seconds(m.value), m.status);
    if (!m.optimal && m.lower_bound && m.value > 0)
      s += fmt::format(" (gap at most {:.1f}%: a lower bound is {})", 100 * (m.value - *m.lower_bound) / m.value,
                       format_seconds(*m.lower_bound));
    else if (!m.optimal)
      s += " (gap unknown)";
    s += fmt::format(", in {}\n", format_seconds(m.seconds));
    if (!m.fallback.empty()) s += "  " + m.fallback + "\n";
  }

  if (r.plans.empty()) {
    s += "\nNo plan fits in memory.\n";
  } else {
    s += fmt::format("\nbest {} plan{} that fit, {}:\n", r.plans.size(), r.plans.size() == 1 ? "" : "s",
                     sim ? "ranked by the simulator" : "ranked by the closed form");
    std::string head = fmt::format("{:>3} ", "#");
    if (sim) head += fmt::format("{:>4} {:>10} ", "cost", "simulated");
    if (tf)
      head +=
          fmt::format("{:>6} {:>4} {:>4} {}{}{:>3} {:>4} {:>5} {:<14} {:<9} {:<{}} {:>6}", "tensor",
                      "pipe", "data", r.experts ? fmt::format("{:>6} ", "expert") : std::string(),
                      r.contexts ? fmt::format("{:>4} ", "ctx") : std::string(), "sp", "zero",
                      "micro", "schedule", "recompute", "order", r.contexts ? 7 : 5, "bucket");
    else
      head += fmt::format("{:<40}", "plan");
    head += fmt::format(" {:>10} {:>10} {:>10} {:>6}  {}\n", "step", "peak mem", "exposed", "MFU", "why it loses");
    s += head;
    for (size_t i = 0; i < r.plans.size() && static_cast<int>(i) < top; ++i) {
      const RankedPlan& p = r.plans[i];
      std::string row = fmt::format("{:>3} ", i + 1);
      if (sim)
        row += fmt::format("{:>4} {:>10} ", p.cost_rank,
                           p.sim_step_seconds ? format_seconds(*p.sim_step_seconds) : std::string("-"));
      if (tf && p.point)
        row += transformer_row(p, r.experts, r.contexts);
      else {
        std::string label = p.method + ": " + p.label;
        if (label.size() > 40) label = label.substr(0, 37) + "...";
        row += fmt::format("{:<40}", label);
      }
      const std::string ties = detail::ties_text(p);
      row += " " + figures(p) + "  " + (p.hand_written ? "[hand-written] " : "") + p.reason +
             (ties.empty() ? "" : " (same with " + ties + ")") + "\n";
      s += row;
    }
    // brigade cost says the same under its rates (plan_report.cpp).
    bool above = false;
    for (size_t i = 0; i < r.plans.size() && static_cast<int>(i) < top; ++i) above = above || r.plans[i].mfu > 1;
    if (above)
      s += "    (MFU above 100%: it is against the peak of the model's dtype, which FP8 GEMMs exceed)\n";
  }

  if (r.hand_written) {
    const RankedPlan& h = *r.hand_written;
    const char* what = tf ? "the scenario's strategy"
                       : (h.scenario && h.scenario->mesh) ? "the scenario's mesh and shardings"
                                                          : "the scenario's placement";
    s += fmt::format("\nhand-written plan ({}): {}\n", what, h.label);
    if (!h.fits) {
      s += "  does not fit: " + detail::overflow_text(h, tf) + "\n";
    } else if (!r.plans.empty()) {
      const RankedPlan* best_auto = nullptr;
      for (const RankedPlan& p : r.plans)
        if (!(p.hand_written && p.method == "hand-written")) {
          best_auto = &p;
          break;
        }
      const bool time = r.objective == SearchObjective::kStepTime;
      auto val = [&](const RankedPlan& p) { return time ? p.step_seconds : p.peak_memory_bytes; };
      auto show = [&](double x) { return time ? format_seconds(x) : format_bytes(x); };
      if (best_auto && val(h) < val(*best_auto) * (1 - 1e-12)) {
        s += fmt::format("  The hand-written plan beats every automatic candidate: {} against the best "
                         "automatic plan's {} ({}).\n",
                         show(val(h)), show(val(*best_auto)), best_auto->label);
      } else {
        s += fmt::format("  ranks {}{} of {} plans that fit: {} ({:.2f}x the winner's){}\n",
                         r.hand_written_rank_exact ? "" : "at best ", ordinal(r.hand_written_rank),
                         count(r.fitting + (r.hand_written_in_space ? 0 : 1)), show(val(h)),
                         val(r.plans.front()) > 0 ? val(h) / val(r.plans.front()) : 0.0,
                         h.reason == "best" ? "" : "; " + h.reason);
      }
      if (h.sim_step_seconds)
        s += fmt::format("  simulated: {}{}\n", format_seconds(*h.sim_step_seconds),
                         h.sim_out_of_memory ? " (out of memory)" : "");
    }
  }

  if (!r.not_fitting.empty()) {
    s += "\nclosest plans that do not fit:\n";
    const size_t n = std::min<size_t>(r.not_fitting.size(), r.plans.empty() ? 5 : 3);
    for (size_t i = 0; i < n; ++i) {
      const RankedPlan& p = r.not_fitting[i];
      s += fmt::format("  {}: {}; step {}\n", p.label, detail::overflow_text(p, tf), format_seconds(p.step_seconds));
    }
  }
  if (!r.disagreements.empty()) {
    s += "\nwhere the closed form and the simulator disagree:\n";
    for (const std::string& d : r.disagreements) s += "  " + d + "\n";
  } else if (sim && !r.plans.empty()) {
    s += "\nthe closed form and the simulator rank these plans in the same order.\n";
  }
  return s;
}

nlohmann::json search_json(const SearchResult& r) {
  nlohmann::json j;
  j["scenario"] = r.scenario_name;
  j["model_kind"] = r.model_kind;
  j["devices"] = r.devices;
  j["topology"] = r.topology;
  j["objective"] = std::string(objective_name(r.objective));
  j["judge"] = r.judge;
  j["space"] = {{"keys", r.space}, {"size", r.space_size}};
  if (!r.refused.empty()) {
    nlohmann::json refused = nlohmann::json::object();
    for (const auto& [why, n] : r.refused) refused[why] = n;
    j["space"]["refused"] = refused;
  }
  j["counts"] = {{"evaluated", r.evaluated},         {"fitting", r.fitting},
                 {"over_capacity", r.infeasible},    {"rejected", r.invalid},
                 {"pruned_memory", r.pruned_memory}, {"pruned_bound", r.pruned_bound},
                 {"unvisited", r.unvisited}};
  j["budget_exhausted"] = r.budget_exhausted;
  j["elapsed_seconds"] = r.elapsed_seconds;
  nlohmann::json plans = nlohmann::json::array();
  for (const RankedPlan& p : r.plans) plans.push_back(plan_json(p, true));
  j["plans"] = plans;
  nlohmann::json nf = nlohmann::json::array();
  for (const RankedPlan& p : r.not_fitting) nf.push_back(plan_json(p, false));
  j["not_fitting"] = nf;
  if (r.hand_written) {
    nlohmann::json h = plan_json(*r.hand_written, false);
    h["rank"] = r.hand_written_rank;
    h["rank_exact"] = r.hand_written_rank_exact;
    bool beats = false;
    if (r.hand_written->fits)
      for (const RankedPlan& p : r.plans)
        if (!(p.hand_written && p.method == "hand-written")) {
          beats = detail::better(r.objective, *r.hand_written, p) &&
                  (r.objective == SearchObjective::kStepTime
                       ? r.hand_written->step_seconds < p.step_seconds * (1 - 1e-12)
                       : r.hand_written->peak_memory_bytes < p.peak_memory_bytes * (1 - 1e-12));
          break;
        }
    h["beats_every_automatic_plan"] = beats;
    j["hand_written"] = h;
  } else {
    j["hand_written"] = nullptr;
  }
  nlohmann::json methods = nlohmann::json::array();
  for (const MethodReport& m : r.methods) {
    nlohmann::json x = {{"name", m.name},       {"objective", m.objective}, {"value_seconds", num(m.value)},
                        {"optimal", m.optimal}, {"status", m.status},       {"explored", m.explored},
                        {"seconds", m.seconds}};
    x["lower_bound_seconds"] = m.lower_bound ? num(*m.lower_bound) : nlohmann::json();
    x["gap"] = m.optimal ? nlohmann::json(0.0)
               : (m.lower_bound && m.value > 0) ? num((m.value - *m.lower_bound) / m.value)
                                                : nlohmann::json();
    if (!m.fallback.empty()) x["fallback"] = m.fallback;
    methods.push_back(x);
  }
  j["methods"] = methods;
  j["disagreements"] = r.disagreements;
  j["notes"] = r.notes;
  return j;
}

}  // namespace brigade::planner
