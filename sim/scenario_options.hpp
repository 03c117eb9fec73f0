// The simulator's options that a scenario implies: what every caller that
// runs a scenario's Program through the simulator (brigade simulate, the
// app, search's second judge, the benches, the cross-judge tests) must pass
// so that the simulator sees what the closed form sees. One function, so
// that a new scenario key that the simulator honours is added once.
#pragma once

#include "core/scenario.hpp"
#include "sim/simulator.hpp"

namespace brigade::sim {

// The scenario's network model (simulation.network), its devices' speed
// factors (simulation.speed), its host time per operation
// (simulation.host_op_time) and its runtime conditions (`runtime:`). The
// other options (tracing, progress, cancellation, coarse rings) keep their
// defaults: they change what is recorded or how fast, not what is judged.
SimOptions options_for(const Scenario& scenario);

}  // namespace brigade::sim
