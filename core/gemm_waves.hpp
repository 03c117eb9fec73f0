// A GEMM's waves of output tiles under a device's wave model, counted for
// the reports that show them (brigade simulate --kernels, the app's span
// details); the model's factor itself is core/profile.hpp's
// gemm_wave_factor, which this shares its counting with (docs/costmodel.md,
// "GEMMs by shape: waves of tiles").
#pragma once

#include <cstdint>

#include "core/profile.hpp"

namespace brigade {

struct GemmWaves {
  std::int64_t waves = 0;  // of sm_count tiles each; 0: the model does not apply
  std::int64_t tiles = 0;  // the grid's output tiles, in the orientation taken
  std::int64_t rows = 0, cols = 0;  // the tile, in that orientation
  double filled = 0;       // the share of the waves' tile slots the output fills (1 / factor)
};

// The wave model's count for a GEMM (gemm_wave_factor's conditions: a
// kGeneric F16/BF16 GEMM on a profile with a tile and an SM count, whose
// grid fills at least one wave; the tile's orientation with fewer waves,
// the profile's own on a tie). All zero where it does not apply.
GemmWaves gemm_waves(const DeviceProfile& p, DType dtype, KernelClass kernel, GemmShape shape);

}  // namespace brigade
