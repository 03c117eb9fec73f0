// Internal to sim/: the simulator's large arrays (per-task state, collective
// expansions) use core's huge-page-friendly storage (core/program.hpp).
#pragma once

#include "core/program.hpp"

namespace brigade::sim {

using brigade::BigAllocator;
using brigade::BigVector;

}  // namespace brigade::sim
