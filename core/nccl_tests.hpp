// Measured collective times from a file (issue 19 item 2): the output of
// NVIDIA's nccl-tests (all_reduce_perf and its kin, as they print it), or
// the four-column tables of tests/data/nccl_tests/ (size_bytes time_us
// algbw_GBps busbw_GBps). What `brigade calibrate --nccl-tests` fits
// (realexec/nccl_tests_import.hpp) and what calibrate's own measurements
// are (realexec/fit_nccl.hpp).
//
// nccl-tests' rows: size, count, type, then (from nccl-tests 2.x) the
// reduction and the root, then the out-of-place time (us), algBw, busBw,
// #wrong, and the same for in-place. The out-of-place time is read. Lines
// starting with '#' and lines that do not start with a number (nccl-tests'
// banner, "Avg bus bandwidth", "Out of bounds values") are skipped, and so
// are rows of size 0 (nccl-tests run from -b 0 print one).
#pragma once

#include <string>
#include <vector>

#include "core/status.hpp"

namespace brigade {

// One measured size of one collective.
struct NcclSizePoint {
  double bytes = 0;    // M (nccl-tests "size")
  double seconds = 0;  // measured, per call
};

// The sizes of `text` (named `path` in errors) with their per-call time in
// seconds, in the file's order. Errors name the path, line and column:
// "PATH:LINE:COL: error: found 'x'; expected ...": a row whose size or time
// is not a number > 0, a row of neither format, the same size twice, no row.
Result<std::vector<NcclSizePoint>> parse_nccl_tests(const std::string& text,
                                                   const std::string& path);
Result<std::vector<NcclSizePoint>> read_nccl_tests(const std::string& path);

}  // namespace brigade
