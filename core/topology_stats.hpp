// How often Topology::route built a source's shortest-path tree, process-wide
// (tests: routes of one or two hops, every pair of a cluster's devices
// through a node's switch or the fabric, are found from the endpoints' links
// alone and build none; issue 18, item 16). Kept out of topology.hpp, which
// nearly every file includes.
#pragma once

#include <cstdint>

namespace brigade {

std::uint64_t route_trees_built();

// Tests only: off, routes of one or two hops are searched as longer ones are
// (to check the shortcut against the search). On by default; process-wide.
void set_route_shortcut_enabled(bool on);

}  // namespace brigade
