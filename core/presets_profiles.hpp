// The presets' GPU device profiles, from kernel- and collective-level
// measurements (core/presets_profiles.cpp states each source).
#pragma once

#include <vector>

#include "core/profile.hpp"

namespace brigade {

// A100-SXM4-80GB, A100-PCIE-80GB, H100-SXM5-80GB and H200: the models the
// GPU presets' devices carry (core/presets.cpp), their NCCL tables those of
// NCCL `version` (its tuning model: docs/costmodel.md, "NCCL's version").
std::vector<DeviceProfile> preset_gpu_profiles(NcclVersion version = kDefaultNcclVersion);

// The "*" entry: any other GPU (a custom topology's): the A100's kernels,
// no NCCL table.
DeviceProfile preset_fallback_gpu_profile();

}  // namespace brigade
