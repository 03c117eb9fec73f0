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
#pragma once

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
};

struct MeasuredKernels {
  std::string format;                   // "nsys" or "kineto"
  std::vector<MeasuredKernel> kernels;  // one per name, in the file's order of first sight
  int steps = 0;                        // Kineto: ProfilerStep annotations seen; nsys: 0 (unknown)
  std::vector<int> devices;             // Kineto: the devices of its kernels, ascending; nsys: none
};

// Nsight Systems' CSV summary; errors "PATH:LINE:COL: error: found X;
// expected Y" (a row whose total or instances is not a number >= 0, a row
// short of the header's columns, no table at all).
Result<MeasuredKernels> parse_nsys_kernel_summary(std::string_view text, const std::string& path);
// Kineto's trace (gzip recognised by its first bytes); `device`: keep that
// device's kernels only. Errors name the line and column of invalid JSON,
// or say that no kernel event was found.
Result<MeasuredKernels> read_kineto_kernels(std::istream& in, const std::string& path,
                                            std::optional<int> device = std::nullopt);
// Either, from the file's first bytes ('{', '[' or gzip: Kineto; else nsys).
// The file is opened as core/file_io.hpp's open_input_file opens it (no
// FIFO, no device).
Result<MeasuredKernels> read_measured_kernels(const std::string& path,
                                              std::optional<int> device = std::nullopt);

}  // namespace brigade
