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

#include <cstdint>
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
  // Chips of one kind that are not equally fast (manufacturing variation
  // under power management: Sinha et al., SC'22, arXiv 2208.11035): with
  // spread s > 0 every device keeps 1 / (1 + s |z|) of its speed, z a
  // standard normal drawn for the device from `spread_seed`
  // (spread_factor), on top of its `speed` entry. The preset is the
  // fastest chip; the slowest of N sets the pace of every synchronous step.
  double spread = 0;
  std::uint64_t spread_seed = 1;

  bool empty() const {
    return speed.empty() && link_load.empty() && input_seconds == 0 && spread == 0;
  }
  // The speed each device keeps under these conditions, for devices
  // 0..num_devices-1 that do not keep all of it: `speed`'s entries times
  // the spread's factors. Entries of `speed` for other devices are kept.
  std::map<int, double> device_speeds(int num_devices) const;
};

// The spread's draw for one device: z = sqrt(-2 ln(1 - u1)) cos(2 pi u2)
// (Box-Muller), u1, u2 the device's two uniforms in [0, 1): draws 2d and
// 2d + 1 of the SplitMix64 stream seeded with `seed` (Steele, Lea and Flood,
// OOPSLA 2014), each output's top 53 bits / 2^53. Portable: the same z on
// every platform and standard library.
double spread_normal(std::uint64_t seed, int device);
// The speed a device keeps under spread s: 1 / (1 + s |spread_normal|).
double spread_factor(double spread, std::uint64_t seed, int device);

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
