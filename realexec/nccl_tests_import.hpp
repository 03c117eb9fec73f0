// Measured collective times from a file, for fitting NCCL's per-protocol
// figures without running Brigade's own executor (`brigade calibrate
// --nccl-tests FILE`, issue 19 item 2): the output of NVIDIA's nccl-tests
// (all_reduce_perf and its kin, as they print it), or the four-column tables
// of tests/data/nccl_tests/ (size_bytes time_us algbw_GBps busbw_GBps).
//
// nccl-tests' rows: size, count, type, then (from nccl-tests 2.x) the
// reduction and the root, then the out-of-place time (us), algBw, busBw,
// #wrong, and the same for in-place. The out-of-place time is read. Lines
// starting with '#' and lines that do not start with a number (nccl-tests'
// banner, "Avg bus bandwidth", "Out of bounds values") are skipped.
#pragma once

#include <string>
#include <vector>

#include "core/status.hpp"
#include "core/topology.hpp"
#include "realexec/fit_nccl.hpp"

namespace brigade::realexec {

// The sizes of `text` (named `path` in errors) with their per-call time in
// seconds, in the file's order. Errors name the path, line and column:
// "PATH:LINE:COL: error: found 'x'; expected ...": a row whose size or time
// is not a number > 0, a row of neither format, the same size twice, no row.
Result<std::vector<NcclSizePoint>> parse_nccl_tests(const std::string& text,
                                                   const std::string& path);
Result<std::vector<NcclSizePoint>> read_nccl_tests(const std::string& path);

// What `calibrate --nccl-tests` fits: `kind` measured on the first `ranks`
// GPUs of one node of `preset`, whose device's NCCL table (the presets'
// defaults for NCCL `version`) is the structure the fit keeps.
struct NcclTestsFit {
  HardwareProfile profile;  // the presets' defaults with the fitted table
  std::string device_model;
  NcclProtocolFit fit;
  cost::NcclGroupShape group;
};

// Errors: an unknown preset or one without an NCCL table (cpu-host), ranks
// outside 2 .. the node's GPUs, a fit that fails or that the fit-sanity rules
// refuse (nccl_fit_refusal), each with the reason.
Result<NcclTestsFit> fit_nccl_tests(const std::string& preset, int ranks, CollectiveKind kind,
                                    NcclVersion version,
                                    const std::vector<NcclSizePoint>& points);

}  // namespace brigade::realexec
