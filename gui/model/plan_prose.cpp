#include "gui/model/plan_prose.hpp"

#include "core/tr.hpp"
#include "planner/lower.hpp"

namespace brigade::gui {

struct PlanReasons {
  int generation = -1;
  std::vector<std::string> by_collective;  // by CollectiveId; empty: use the plan's own
};

namespace {

PlanProse own_prose(const planner::Plan& plan, int generation) {
  PlanProse p;
  p.generation = generation;
  p.summary = plan.summary;
  p.device_role = plan.device_role;
  return p;
}

// The plan's options again, at the granularity it was lowered at (kAuto
// resolved), so that the Program and its collectives come out the same.
planner::LowerOptions options_of(const planner::Plan& plan) {
  planner::LowerOptions o;
  o.granularity = plan.granularity;
  return o;
}

}  // namespace

std::shared_ptr<const PlanProse> plan_prose(const Document& doc) {
  const int now = translation_generation();
  std::lock_guard<std::mutex> lock(doc.prose_mutex);
  if (doc.prose && doc.prose->generation == now) return doc.prose;
  if (!doc.plan) {
    doc.prose = std::make_shared<PlanProse>();
    return doc.prose;
  }
  PlanProse p = own_prose(*doc.plan, now);
  if (doc.prose_generation != now && doc.scenario) {
    // Composed again: describe() words the summary and the roles as lower()
    // does, without building the Program.
    if (auto again = planner::describe(*doc.scenario, options_of(*doc.plan));
        again.is_ok() && again->device_role.size() == doc.plan->device_role.size()) {
      p.summary = std::move(again->summary);
      p.device_role = std::move(again->device_role);
    }
  }
  doc.prose = std::make_shared<const PlanProse>(std::move(p));
  return doc.prose;
}

std::string collective_reason(const Document& doc, CollectiveId id) {
  if (!doc.plan || id < 0 || static_cast<size_t>(id) >= doc.plan->program.collectives().size())
    return "";
  const std::string& own = doc.plan->program.collectives()[static_cast<size_t>(id)].reason;
  const int now = translation_generation();
  if (doc.prose_generation == now || !doc.scenario) return own;
  std::lock_guard<std::mutex> lock(doc.prose_mutex);
  if (!doc.reasons || doc.reasons->generation != now) {
    auto r = std::make_shared<PlanReasons>();
    r->generation = now;
    // The whole Program again (the reasons are the collectives'); kept only
    // if it is the same Program (as many collectives).
    if (auto again = planner::lower(*doc.scenario, options_of(*doc.plan));
        again.is_ok() &&
        again->program.collectives().size() == doc.plan->program.collectives().size())
      for (const Collective& c : again->program.collectives()) r->by_collective.push_back(c.reason);
    doc.reasons = std::move(r);
  }
  return doc.reasons->by_collective.empty() ? own
                                            : doc.reasons->by_collective[static_cast<size_t>(id)];
}

}  // namespace brigade::gui
