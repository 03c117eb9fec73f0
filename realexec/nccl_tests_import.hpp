// `brigade calibrate --nccl-tests FILE`: NCCL's per-protocol figures fitted
// to a collective measured elsewhere (core/nccl_tests.hpp reads the file)
// on one node of a preset, without running Brigade's own executor (issue 19
// item 2).
#pragma once

#include <string>
#include <vector>

#include "core/nccl_tests.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "realexec/fit_nccl.hpp"

namespace brigade::realexec {

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
