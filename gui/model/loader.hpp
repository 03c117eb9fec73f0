// Opening a file as a Document: the file's kind is sniffed (a scenario, a
// Chrome trace from Brigade or any other tool, a hardware profile); a
// scenario is lowered (planner::lower) and simulated with a trace
// (sim::simulate). Runs on the caller's thread; the app calls it from its
// worker thread. Errors are the CLI's one-line messages
// ("FILE:LINE:COL: error: found X; expected Y").
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "core/status.hpp"
#include "gui/model/document.hpp"
#include "planner/plan.hpp"
#include "sim/simulator.hpp"

namespace brigade::gui {

struct LoadOptions {
  // Task granularity for scenarios (planner::LowerOptions).
  planner::Granularity granularity = planner::Granularity::kAuto;
  // kAuto's budget of tasks when a trace is recorded: traced simulation keeps
  // every span and flow in memory, so the app asks for coarser tasks sooner
  // than the CLI's untraced 2,000,000.
  std::int64_t max_traced_tasks = 400'000;
  std::string network;  // "flow", "ideal"; "" = the scenario's simulation.network
  std::string profile;  // a profile file replacing the scenario's ("" = the scenario's)
  // Set from another thread to stop the load: planner::lower and
  // sim::simulate poll it (their options' `cancel`), the loader checks it
  // between stages; the load then returns core's cancelled_status().
  const std::atomic<bool>* cancel = nullptr;
  // (stage, done, total): "reading", "lowering", "simulating", "indexing".
  // total 0: a stage without a measure of its progress. From the calling thread.
  std::function<void(const std::string& stage, double done, double total)> on_progress;
};

// What a file is, from its name and its first bytes.
enum class FileKind { kScenario, kTrace, kProfile, kUnknown };
FileKind sniff_file_kind(const std::string& path);

Result<DocumentPtr> load_document(const std::string& path, const LoadOptions& options = {});

// How every simulation of the app runs a scenario (the loader, the scaling
// view's sweep, the what-if panel), as `brigade simulate` does: its network
// model (`network` overrides it when not empty), its devices' speeds
// (simulation.speed) and what the plan did not see (runtime:); `cancel`
// polled. The rest (a trace, task times) as SimOptions' defaults: the
// caller sets what it wants.
sim::SimOptions scenario_sim_options(const Scenario& scenario,
                                     const std::atomic<bool>* cancel = nullptr,
                                     const std::string& network = "");

// A loaded Scenario, lowered and simulated.
Result<DocumentPtr> document_from_scenario(Scenario scenario, const LoadOptions& options = {});
// A Trace (e.g. the simulator's), indexed. `program` may be null.
DocumentPtr document_from_trace(Trace trace, std::string path);

// What is worth telling the user about a loaded document, in the current
// language (model_tr): a scenario's size ("24 tasks on 4 devices,
// granularity kernel"), the devices a trace was recorded for. Composed on
// each call, so that a view shows it in the language switched to.
std::vector<std::string> document_notes(const Document& doc);

// Whether a load stopped through LoadOptions::cancel (core's
// cancelled_status(): ErrorKind::kCancelled).
bool is_cancelled(const Status& status);

}  // namespace brigade::gui
