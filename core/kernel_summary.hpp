// A profiler's record of the kernels a run launched, summed by name: what
// `brigade kernels --measured` holds against the simulator's kernels by
// group (core/kernel_groups.hpp; docs/FIDELITY.md, "Against a profiler's
// record"). Two formats, told apart by their first bytes:
//
// - Nsight Systems' kernel summary as CSV: `nsys stats --report
//   cuda_gpu_kern_sum --format csv` (older releases: gpukernsum), whose
//   header names the columns "Total Time (ns)", "Instances" and "Name";
//   the memory-operations summary (cuda_gpu_mem_time_sum, column
//   "Operation") is read too. Several tables may follow one another, each
//   under its header; other lines (nsys's banners, blank lines) are
//   skipped. A summary has no steps and may cover several GPUs: the
//   caller says how many of each.
// - PyTorch's profiler trace (Kineto's Chrome trace JSON,
//   `prof.export_chrome_trace`, .json or .json.gz): complete events of
//   category "kernel", "gpu_memcpy" and "gpu_memset", their "dur" in
//   microseconds, their device from args.device (else pid); the steps are
//   the distinct "ProfilerStep#N" annotations.
//
// And Brigade's own trace (`brigade execute --trace`, `brigade simulate
// --trace`; core/trace.hpp), told from Kineto's by its "brigade" header:
// one step, its spans summed by task, each with its device, so that a
// Program's groups (core/kernel_groups.hpp, group_of_task) place them
// rather than their names.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace brigade {

struct MeasuredKernel {
  std::string name;
  double seconds = 0;  // summed over its instances
  double count = 0;    // instances
  // Brigade's traces: the Program's task and its device; -1 for a
  // profiler's kernels (summed by name over every device kept).
  std::int32_t task = -1;
  std::int32_t device = -1;
};

struct MeasuredKernels {
  std::string format;                   // "nsys", "kineto" or "brigade"
  std::vector<MeasuredKernel> kernels;  // one per name (Brigade's: per task), in the file's order
  int steps = 0;             // Kineto: ProfilerStep annotations seen; nsys: 0 (unknown); Brigade: 1
  std::vector<int> devices;  // Kineto, Brigade: the devices of its kernels, ascending; nsys: none
  std::string source;        // Brigade: the trace's source ("cuda", "cpu", "sim:flow")
  std::string program;       // Brigade: the Program's name
  // Whether any kernel is of `device` (Brigade's records; a profiler's
  // kernels carry no device, so never).
  bool has_device(int device) const;
};

// Nsight Systems' CSV summary; errors "PATH:LINE:COL: error: found X;
// expected Y" (a row whose total or instances is not a number >= 0, a row
// short of the header's columns, no table at all).
Result<MeasuredKernels> parse_nsys_kernel_summary(std::string_view text, const std::string& path);
// Kineto's trace (gzip recognised by its first bytes); `device`: keep that
// device's kernels only. Errors name the line and column of invalid JSON,
// or say that no kernel event was found (or that the file is Brigade's own
// trace, which read_measured_kernels reads).
Result<MeasuredKernels> read_kineto_kernels(std::istream& in, const std::string& path,
                                            std::optional<int> device = std::nullopt);
// Any of the three, from the file's first bytes ('{', '[' or gzip: Kineto's,
// or Brigade's where its top-level object has a "brigade" header; else
// nsys). The file is opened as core/file_io.hpp's open_input_file opens it
// (no FIFO, no device).
Result<MeasuredKernels> read_measured_kernels(const std::string& path,
                                              std::optional<int> device = std::nullopt);

struct Trace;
// A Brigade trace's spans summed by task (the host lane and the transfers'
// link lanes left out): format "brigade", one step; `device`: that
// device's spans only.
MeasuredKernels measured_kernels_of_trace(const Trace& trace,
                                          std::optional<int> device = std::nullopt);

}  // namespace brigade
