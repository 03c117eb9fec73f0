// The what-if panel's logic (no Qt): the knobs of a scenario's plan that a
// user may turn (its strategy, micro-batch and recomputation; a link
// class's alpha and bandwidth; a device's speed, simulation.speed), applied
// to a copy of the scenario; the edited plan judged by the closed form
// (check_plan + costmodel::estimate_plan, at once) or by the simulator
// (planner::lower + sim::simulate, on a worker thread); and how step time,
// peak memory per device and exposed communication moved against the
// starting plan. `LatestRequestRunner` runs the simulator's requests: the
// latest wins, earlier ones are cancelled through the judges' cancel flag.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "costmodel/plan_warnings.hpp"
#include "planner/plan.hpp"
#include "sim/simulator.hpp"

namespace brigade::gui {

// A link class as the judges see it on this topology: the alpha and the
// raw bandwidth (per direction, before the profile's efficiency) of the
// first route from device 0 whose bottleneck is of this class
// (route_alpha_seconds: the profile's alpha for the class when it gives
// one, else the route's summed link latencies; the profile's bandwidth for
// the class when it gives one, else the link's).
struct LinkClassKnob {
  LinkClass link_class = LinkClass::kNvlink;
  double alpha_seconds = 0;
  double bandwidth_bytes_per_second = 0;
  friend bool operator==(const LinkClassKnob&, const LinkClassKnob&) = default;
};

// The classes some route from device 0 bottlenecks on, in LinkClass order.
std::vector<LinkClassKnob> link_class_knobs(const Scenario& scenario);

// What the panel edits. starting_edits(s) applied to s gives s back.
struct WhatIfEdits {
  bool has_strategy = false;
  StrategySpec strategy;
  std::int64_t micro_batch = 0;  // 0: global batch / data (the scenario's default)
  Recompute recompute = Recompute::kNone;
  // A class's alpha and bandwidth as set (absent: as the scenario has them).
  std::map<LinkClass, LinkClassKnob> links;
  std::map<int, double> speed;  // simulation.speed: device -> factor (absent = 1)
  // simulation.host_op_time: every device's host time per operation
  // (absent: the profile's; docs/simulator.md, "The host lane").
  std::optional<double> host_op_seconds;
  // simulation.devices_per_host: devices one host drives (1: a host each).
  int devices_per_host = 1;
};
bool operator==(const WhatIfEdits& a, const WhatIfEdits& b);

WhatIfEdits starting_edits(const Scenario& scenario);

// A copy of `base` with `edits` applied. A link class edit becomes the
// profile's alpha and bandwidth for that class (which replace the links'
// own for every route that bottlenecks on it); a calibrated profile's
// collective step figures for the class scale by the same factors against
// the class's starting knob. Errors (kBadInput), a value out of range:
//   "speed of device 3: found 0; expected a factor from 1e-06 to 1e+06"
//   "nvlink alpha: found -1 s; expected a duration >= 0"
//   "strategy.data: found 0; expected a whole number >= 1"
//   "host time per operation: found -1 s; expected a duration from 0 to 1 s"
//   "devices per host: found 9; expected a whole number from 1 to 8"
Result<Scenario> apply_edits(const Scenario& base, const WhatIfEdits& edits);

// The one-line reason of a judge's error without its position ("FILE:LINE:COL:
// error: " or "FILE: error: "): the position is the starting file's, the
// edit lives in the panel.
std::string reason_of(const Status& status);

// What one judge says of a plan.
struct DeviceFigures {
  int device = 0;
  double peak_memory_bytes = 0;
  double capacity_bytes = 0;
  double exposed_comm_seconds = 0;
};

struct Judgement {
  double step_seconds = 0;
  std::vector<DeviceFigures> devices;  // by device id, the devices the plan uses
  cost::PlanWarningFacts warnings;     // cost::plan_warnings, worded by notes()
  int devices_over_memory = 0;         // the closed form: devices whose estimate does not fit
  int oom_devices = 0;                 // the simulator: devices that ran out of memory
  // The warnings (cost::plan_warning_texts), then what did not fit,
  // composed in the current language (model_tr) on each call.
  std::vector<std::string> notes() const;
  double max_peak_memory_bytes() const;
  double max_exposed_comm_seconds() const;
};

// check_plan, then the closed form. Per device: estimate_plan's memory, and
// its exposed communication of the device's pipeline stage (a transformer)
// or of the plan's busiest device (other models, whose devices do alike).
Result<Judgement> judge_closed_form(const Scenario& scenario);

// check_plan, planner::lower (`granularity`, kAuto choosing within
// `max_kernel_tasks` as the app's loader does) and sim::simulate (untraced,
// the scenario's network and speeds). `cancel` as in LowerOptions /
// SimOptions: a cancelled run returns cancelled_status().
Result<Judgement> judge_simulated(const Scenario& scenario, const std::atomic<bool>* cancel,
                                  planner::Granularity granularity = planner::Granularity::kAuto,
                                  std::int64_t max_kernel_tasks = 400'000);

// The granularity to judge edits of a document's plan with, so that they
// and the starting plan's simulation are alike: the starting plan's when it
// was lowered coarser than kernels, else kAuto (an edit may need more tasks).
planner::Granularity whatif_granularity(planner::Granularity starting);

// The simulator's figures of an existing run (the document's starting plan).
Judgement judgement_of(const sim::SimResult& result);

// Devices whose figures (before and after) are equal share one row, listed
// by device ranges; rows with the largest change first (peak memory, then
// exposed communication, relative to the larger of the two), then by device.
struct DeviceDeltaRow {
  std::vector<int> devices;
  double peak_before_bytes = 0, peak_after_bytes = 0, capacity_bytes = 0;
  double exposed_before_seconds = 0, exposed_after_seconds = 0;
};

struct WhatIfDelta {
  double step_before_seconds = 0, step_after_seconds = 0;
  double peak_before_bytes = 0, peak_after_bytes = 0;            // the highest device's
  double exposed_before_seconds = 0, exposed_after_seconds = 0;  // the most exposed device's
  std::vector<DeviceDeltaRow> rows;
};

// A device in only one judgement has zeros on the other side.
WhatIfDelta compare_judgements(const Judgement& before, const Judgement& after);

// The relative change after / before - 1 (0 when both are 0; +inf from 0).
double relative_change(double before, double after);

// "0-3, 8, 10-11" (devices sorted first).
std::string device_ranges_text(std::vector<int> devices);

// Writes `edited` as a scenario file at `path` (core/scenario_writer.hpp:
// the file it was read from, `edited.path`, with the edited keys; its name
// the file's stem). With `links_edited` the edited profile is written beside
// it as STEM.profile.yaml (save_profile) and named by `profile:`; otherwise
// a profile file of the starting scenario is named relative to the new
// place. Both through write_file_atomically; both paths are checked before
// either is written. Errors: "PATH: error: found X; expected Y".
Status save_whatif_scenario(const Scenario& edited, bool links_edited, const std::string& path);

// Runs one request at a time on its own thread; a new request cancels the
// one running (its cancel flag is set) and replaces any waiting one, so
// only the latest is ever delivered. `done` is called on the worker thread
// with the request's id, for the latest request only and only if no newer
// one came meanwhile; the caller re-checks the id on its side (the
// app posts it to the GUI thread). The destructor cancels and joins.
class LatestRequestRunner {
 public:
  using Work = std::function<Result<Judgement>(const Scenario&, const std::atomic<bool>* cancel)>;
  using Done = std::function<void(std::uint64_t id, Result<Judgement> result)>;
  LatestRequestRunner(Work work, Done done);
  ~LatestRequestRunner();
  LatestRequestRunner(const LatestRequestRunner&) = delete;
  LatestRequestRunner& operator=(const LatestRequestRunner&) = delete;

  // Queues `scenario`, cancelling what runs; returns its id (1, 2, ...).
  std::uint64_t submit(Scenario scenario);
  // Cancels what runs and drops what waits; nothing more is delivered until
  // the next submit.
  void cancel();
  // The latest id submitted (0: none), and whether a request runs or waits.
  std::uint64_t latest() const;
  bool idle() const;
  // Requests whose work started, and of them those stopped by a newer one.
  int started() const;
  int cancelled() const;

 private:
  void loop();
  Work work_;
  Done done_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Scenario> pending_;
  std::uint64_t latest_ = 0, running_ = 0;
  std::atomic<bool>* running_cancel_ = nullptr;
  bool stop_ = false;
  int started_ = 0, cancelled_ = 0;
  std::thread thread_;
};

}  // namespace brigade::gui
