// What happens at run time that no plan sees: the scenario's `runtime:`
// section (docs/scenario-format.md). The first seed text's third
// misconception: a static cost model "does not know the runtime: a GPU also
// running another job, an NVLink congested by another process, a CPU-bound
// data loader". Brigade's planner, `brigade search` and the closed form
// (`brigade cost`) deliberately ignore these conditions, as XLA's cost model
// does; the simulator and the real executors honour them. Heterogeneity
// that is *known* when planning goes in `simulation.speed` instead, which
// every judge sees.
#pragma once

#include <map>
#include <string>

namespace brigade {

class Topology;

struct RuntimeConditions {
  // Device -> the fraction of its speed left to this program, in (0, 1]
  // (0.5: another job takes half of it). Every kernel of the device takes
  // 1/f times as long; with simulation.speed s the simulator divides by s x f.
  std::map<int, double> speed;
  // Link index (Topology::links) -> the fraction of its bandwidth, in each
  // direction, taken by another process's traffic, in [0, 1): the program's
  // messages get (1 - load) of it.
  std::map<int, double> link_load;
  // The input pipeline's time per step (a data loader that does not keep
  // ahead of the devices): nothing of the step starts before it has passed.
  double input_seconds = 0;

  bool empty() const { return speed.empty() && link_load.empty() && input_seconds == 0; }
};

// The conditions in words for reports, one phrase per condition joined by
// "; ", e.g. "gpu1 at 50% speed; link gpu0<->nvswitch 60% loaded; input
// pipeline 20 ms per step". "" when empty.
std::string describe_runtime(const RuntimeConditions& runtime, const Topology& topology);

// `topology` with each loaded link's bandwidth times (1 - load): what the
// program's messages see. Routes are computed on the copy (on the bundled
// presets every pair of devices has one shortest route, so they are the
// same routes).
Topology loaded_topology(const Topology& topology, const RuntimeConditions& runtime);

// The largest load on the links of the route from `src` to `dst` (0: none,
// or src == dst).
double route_load(const Topology& topology, const RuntimeConditions& runtime, int src, int dst);

}  // namespace brigade
