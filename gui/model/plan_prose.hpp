// A plan's prose in the app's current language: its one-line summary (the
// head chef's plan in the teach view), each device's role (the chefs) and
// why it needs each collective (the timeline's span details). The planner
// composes them when it lowers (core/tr.hpp's tr_text), so the Document's
// Plan holds them in the language the scenario was opened in; after a
// language switch (core/tr.hpp's translation_generation() moves) they are
// composed again from the scenario, once per switch, and kept until the
// next: the summary and roles by planner::describe (no Program: cheap even
// for 1000s of devices), the reasons by planner::lower at the plan's own
// granularity, only when a reason is asked for.
//
// Widget-free (no Qt); thread-safe (a mutex in the Document guards the
// kept texts).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gui/model/document.hpp"

namespace brigade::gui {

struct PlanProse {
  int generation = -1;  // core/tr.hpp's translation_generation() they were composed under
  std::string summary;
  std::vector<std::string> device_role;  // by device id
};

// The summary and roles of `doc`'s plan in the current language (empty for
// a document without a plan). If composing them again fails, the plan's
// own (in the language it was opened in).
std::shared_ptr<const PlanProse> plan_prose(const Document& doc);

// Why `doc`'s plan needs collective `id`, in the current language ("" for
// none).
std::string collective_reason(const Document& doc, CollectiveId id);

}  // namespace brigade::gui
