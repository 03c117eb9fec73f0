// What the app has open: a scenario (with its Plan, simulation result and
// Trace), a trace file, or a hardware profile. Immutable once loaded and
// shared read-only by every view (std::shared_ptr<const Document>); the
// loader builds it on a worker thread, the views never modify it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/profile.hpp"
#include "core/scenario.hpp"
#include "core/trace.hpp"
#include "gui/model/host_lane.hpp"
#include "gui/model/topology_usage.hpp"
#include "gui/model/trace_index.hpp"
#include "planner/plan.hpp"
#include "sim/simulator.hpp"

namespace brigade::gui {

enum class DocumentKind { kScenario, kTrace, kProfile };

struct PlanProse;    // gui/model/plan_prose.hpp
struct PlanReasons;  // gui/model/plan_prose.cpp

struct Document {
  Document() = default;
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  std::string path;
  DocumentKind kind = DocumentKind::kTrace;
  std::string title;  // scenario or program name, else the file's name

  // kScenario: the scenario as read, the planner's Plan, and the simulator's
  // result (its `trace` moved out into `trace` below).
  std::unique_ptr<Scenario> scenario;
  std::unique_ptr<planner::Plan> plan;
  std::unique_ptr<sim::SimResult> result;
  // kScenario and kTrace. Never moved once the index is built (the index
  // reads its spans).
  std::unique_ptr<Trace> trace;
  std::unique_ptr<TraceIndex> index;
  // The trace's host lane, indexed for the timeline (null without one).
  std::unique_ptr<HostLane> host;
  // kScenario: link utilisation and device occupancy binned over the step.
  std::unique_ptr<TopologyUsage> usage;
  // kProfile: the profile opened; kScenario: the scenario's.
  std::unique_ptr<HardwareProfile> profile;
  // The lines worth telling the user about the load ("24 tasks on 4
  // devices, granularity kernel") are composed from the above, in the
  // current language, by document_notes() (gui/model/loader.hpp).

  // kScenario: core/tr.hpp's translation_generation() under which the
  // planner composed the Plan's summary, roles and reasons (-1: the
  // language changed while it lowered). Views read those texts through
  // gui/model/plan_prose.hpp, which composes them again in another
  // language and keeps them here (the only state that changes after
  // loading; the mutex guards it).
  int prose_generation = -1;
  mutable std::mutex prose_mutex;
  mutable std::shared_ptr<const PlanProse> prose;
  mutable std::shared_ptr<const PlanReasons> reasons;

  const Topology* topology() const { return scenario ? &scenario->topology : nullptr; }
  const Program* program() const { return plan ? &plan->program : nullptr; }
  const HardwareProfile* hardware_profile() const {
    return profile ? profile.get() : scenario ? &scenario->profile : nullptr;
  }
  bool has_trace() const { return trace && index; }
};

using DocumentPtr = std::shared_ptr<const Document>;

}  // namespace brigade::gui
