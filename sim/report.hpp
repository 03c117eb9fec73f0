// Reports of a simulation, for `brigade simulate` and the GUI.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/program.hpp"
#include "core/topology.hpp"
#include "sim/simulator.hpp"

namespace brigade::sim {

// Machine-readable report (SI units):
//   {"program", "network", "step_seconds", "events", "flows", "collectives_shortcut",
//    "devices": [{"id", "name", "busy_seconds", "comm_seconds", "idle_seconds",
//                 "exposed_comm_seconds", "peak_memory_bytes", "capacity_bytes",
//                 "peak_by_category": {"params": .., ...}}],
//    "links": [{"name", "channel", "bytes", "busy_seconds", "utilization" (bytes / (capacity x
//               step)), "occupancy" (busy / step), "capacity_bytes_per_second"}]
//              (channels that carried bytes),
//    "oom": [{"device", "time_seconds", "task", "task_name", "live_bytes", "capacity_bytes",
//             "live_by_category": {"activations": {"bytes", "buffers"}, ...},
//             "largest_buffers": [{"name", "bytes"}]}],
//    "critical_path": {"tasks", "seconds_by_kind": {...}, "wait_seconds" (no task of
//                      the path running: before its first, and between one's end and
//                      the next one's start), "segments": [{"device", "stream",
//                      "tasks", "start_seconds", "end_seconds", "first", "last"}]}}
//    "kernels_per_step": {"device", "kernels", "mean_kernel_seconds",
//                        "host_op_seconds" (0 without a host lane),
//                        "devices_per_host" (simulation.devices_per_host)} (the busiest
//                        device: its compute kernels, a fused task counted as the
//                        kernels it stands for, and its busy time over them; absent
//                        when it runs none),
//    and "runs" where more than 1 (SimResult::runs: the checked shortcut).
nlohmann::json simulation_json(const SimResult& result, const Program& program,
                               const Topology& topology);

// Human-readable report: step time; per device busy / comm / exposed comm /
// idle and memory peak; the critical path summarised by runs of tasks on one
// stream; the busiest device's kernels a step and their mean time (what its
// host must issue); the links ranked by utilisation (occupancy beside it); OOM events
// with what was live by category, then the largest buffers.
std::string simulation_text(const SimResult& result, const Program& program,
                            const Topology& topology);

}  // namespace brigade::sim
