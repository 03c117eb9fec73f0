#include "sim/scenario_options.hpp"

namespace brigade::sim {

SimOptions options_for(const Scenario& scenario) {
  SimOptions o;
  o.network = scenario.simulation.network == "ideal" ? NetworkModel::kIdeal : NetworkModel::kFlow;
  o.speed = scenario.simulation.speed;
  o.host_op_seconds = scenario.simulation.host_op_seconds;
  o.devices_per_host = scenario.simulation.devices_per_host;
  o.runtime = scenario.runtime;  // the simulator honours what the plan did not see
  return o;
}

}  // namespace brigade::sim
