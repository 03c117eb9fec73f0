// The discrete-event simulator: runs a Program on a Topology under a
// HardwareProfile and reports step time, per-device busy / communication /
// idle time, link use, memory peaks, out-of-memory events and the critical
// path, optionally with a full Trace. Semantics: docs/simulator.md.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/executor.hpp"
#include "core/profile.hpp"
#include "core/runtime.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "core/trace.hpp"
#include "core/trace_filter.hpp"

namespace brigade::sim {

// How flows share links.
enum class NetworkModel {
  kIdeal,  // every flow gets its route's bottleneck bandwidth, whatever else runs
  kFlow,   // max-min fair sharing of every channel (progressive filling)
};
std::string_view network_model_name(NetworkModel m);  // "ideal", "flow"

struct SimOptions {
  NetworkModel network = NetworkModel::kFlow;
  // Turns every shortcut off: each collective is expanded into its flows even
  // where its channels are provably its own (docs/simulator.md, "Shortcuts").
  bool exact = false;
  // Spans, transfers (one per message) and memory samples into
  // SimResult::trace. Recording changes nothing else: shortcuts stay on (a
  // shortcut collective's messages come from its memoised isolated run,
  // shifted to its start), and the step time and every statistic are the
  // same, bit for bit, as without it.
  bool record_trace = false;
  // What the trace keeps (devices, a window of time), applied while
  // recording; by default everything.
  TraceFilter trace_filter;
  // Transfers in the trace: one per message (true), or one per run of
  // back-to-back messages of one task between the same two devices (false:
  // the 2(N-1) steps that rank r of a ring AllReduce sends to r+1 become one
  // transfer of their summed bytes; an order of magnitude fewer records at
  // scale). `brigade simulate --trace` merges unless given --trace-steps.
  bool trace_steps = true;
  // Coarse rings, for judging many plans quickly (`brigade search --judge
  // sim`; docs/simulator.md, "Coarse rings"). 0 (the default): every ring
  // step is a message. N > 0: a phase of a ring collective (the reducing
  // steps, the others) with more than N steps runs as at most N super-steps,
  // each g = ceil(steps / N) consecutive steps merged into one message of g
  // times the bytes and g times the step's alpha; on an idle network the
  // ring takes the same time, under contention it reacts in coarser slices.
  std::int32_t ring_max_steps = 0;
  // Start and end of every task into SimResult::task_*_seconds (16 bytes a task).
  bool record_task_times = true;
  // Per-device speed factor (absent = 1): compute durations are divided by it,
  // so a straggler at 0.5 takes twice as long. Must be > 0.
  std::map<int, double> speed;
  // Every device's host time per operation in place of its profile's
  // (DeviceProfile::host_op_seconds; the scenario's simulation.host_op_time).
  std::optional<double> host_op_seconds;
  // How many devices one host drives (the scenario's
  // simulation.devices_per_host): devices k*n .. k*n + n - 1 share host k,
  // which issues their tasks one after another in the Program's order.
  // 1: a host per device. Must be >= 1.
  int devices_per_host = 1;
  // The same for streaming kernels (ComputeKind::kMemoryBound) alone, where
  // given (absent: `speed`'s): a device whose memory drifts apart from its
  // arithmetic (brigade validate's speed probes). Must be > 0.
  std::map<int, double> memory_speed;
  // What happens at run time that the plan did not see (the scenario's
  // `runtime:`, core/runtime.hpp): device slowdowns multiply `speed` and
  // `memory_speed`, link loads take bandwidth from the links, the input
  // pipeline delays the start of every task. Empty: none.
  RuntimeConditions runtime;
  // Progress for long runs: (tasks finished, tasks in the Program), called
  // from the calling thread now and then and once at the end. May be empty.
  std::function<void(double done, double total)> on_progress;
  // Cancellation (as RunOptions::cancel): polled by setup, by the event loop
  // every 4096 iterations and after every on_progress call; once it reads
  // true, simulate() returns Status::error("cancelled", ErrorKind::kCancelled).
  const std::atomic<bool>* cancel = nullptr;
};

struct DeviceStats {
  int id = 0;
  double busy_seconds = 0;  // some compute kernel of the device running
  double comm_seconds = 0;  // some transfer or collective task of the device in flight
  // Neither: no kernel runs and no transfer or collective of the device is in
  // flight (waiting for data, a barrier or the pipeline). busy + comm - their
  // overlap + idle = step.
  double idle_seconds = 0;
  // Communication while no compute kernel of the device runs, plus the
  // share (DeviceProfile::comm_compute_share) of it while one does: the
  // communication not hidden by overlap.
  double exposed_comm_seconds = 0;
  double peak_memory_bytes = 0;  // of the total over categories
  std::array<double, kNumMemoryCategories> peak_by_category{};  // each category's own peak
  double capacity_bytes = 0;     // Device::memory_bytes
};

// One direction of a link (a channel).
struct LinkStats {
  std::string name;  // "gpu0->nvswitch"
  ChannelId channel = 0;
  double bytes = 0;           // bytes that crossed it
  double busy_seconds = 0;    // time at least one flow was sending bytes through it
  // What it carried against what it could have carried in the step:
  // bytes / (capacity_bytes_per_second x step_seconds). Reports rank links by it.
  double utilization = 0;
  double occupancy = 0;       // busy_seconds / step_seconds (a trickle can occupy a link all step)
  double capacity_bytes_per_second = 0;  // link bandwidth x the class's efficiency
};

// The first time a device's live memory exceeded its capacity.
struct OomEvent {
  int device = 0;
  double time_seconds = 0;
  TaskId task = -1;  // the task whose allocation crossed the line (-1: resident buffers)
  double live_bytes = 0;
  double capacity_bytes = 0;
  // What was live at that moment, by category: bytes and buffers (resident ones included).
  std::array<double, kNumMemoryCategories> live_by_category{};
  std::array<int, kNumMemoryCategories> buffers_by_category{};
  std::vector<std::pair<std::string, double>> largest_buffers;  // (name, bytes), largest first, up to 5
};

struct SimResult {
  // The largest host time per operation the run used (the host lane;
  // DeviceProfile::host_op_seconds), 0 without one.
  double host_op_seconds = 0;
  int devices_per_host = 1;  // SimOptions::devices_per_host
  double step_seconds = 0;  // the last task's end (the step starts at 0)
  std::int64_t events = 0;  // events processed (docs/simulator.md, "Events")
  NetworkModel network = NetworkModel::kFlow;
  std::vector<DeviceStats> devices;  // by device id, for the Program's devices
  std::vector<LinkStats> links;      // by channel id, every channel of the topology
  std::vector<OomEvent> oom;         // at most one per device, by time
  // Tasks whose chain determines the step time, in time order: each starts
  // when the previous one ends (a collective through its last-arriving rank).
  std::vector<TaskId> critical_path;
  std::int64_t collectives_shortcut = 0;  // collectives run by the closed-form shortcut
  // Bytes that NCCL's collectives moved on channels of their own because
  // NCCL's model runs their steps faster than their route's links (NVLS;
  // rings over several rails or NVLinks, whose bus bandwidth NCCL's table
  // puts above one link's): on no link in `links`
  // (docs/simulator.md, "Collectives under NCCL's model").
  double off_link_bytes = 0;
  // Collectives the checked shortcut held until a flow joined their channels,
  // then expanded from that instant on (not counted in collectives_shortcut).
  std::int64_t collectives_split = 0;
  // Times such a split ring was held again once no other flow was on its
  // channels (to its replayed end, or to the next flow that joins).
  std::int64_t holds_again = 0;
  std::int64_t flows = 0;                  // flows simulated
  // Runs of the event loop: more than 1 when the checked shortcut (sim/shortcut.hpp)
  // refused collectives, which the last run expands; the figures are the last run's.
  std::int32_t runs = 1;
  // Host CPU time of the calling thread (not simulated time): preparing the
  // run (per-task arrays, routes, shortcuts) and the event loop.
  double setup_cpu_seconds = 0;
  double run_cpu_seconds = 0;
  // When record_task_times; huge-page storage (core/program.hpp), handed over
  // from the engine without a copy.
  BigVector<double> task_start_seconds, task_end_seconds;
  Trace trace;                                               // when record_trace
};

// Runs `program` once. Errors (kBadInput): a device outside the topology, a
// speed factor <= 0, a route that crosses a link of zero bandwidth or joins
// unconnected devices, an algorithm that cannot serve its group
// (halving-doubling on a group that is not a power of two, ...). Memory over
// capacity is not an error: it is reported in SimResult::oom.
Result<SimResult> simulate(const Program& program, const Topology& topology,
                           const HardwareProfile& profile, const SimOptions& options);

// The simulator behind the core Executor interface ("sim:flow" / "sim:ideal").
// RunOptions::record_trace, on_progress and cancel override `options`' own.
std::unique_ptr<Executor> make_sim_executor(SimOptions options);

}  // namespace brigade::sim
