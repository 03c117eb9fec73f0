// The scenario's `runtime:` section (core/runtime.hpp), read apart from the
// rest of the scenario (core/scenario.cpp calls it). Private to core/: it
// takes a yamlio::Cursor.
#pragma once

#include <functional>

#include "core/runtime.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {

// Reads
//   runtime: {speed: {DEVICE: F}, link_load: {LINK_OR_DEVICE: L}, input_pipeline: DURATION}
// into `out`. `read_device` is the scenario reader's (an index or a device
// name, with its message). A link_load key is a link's name
// ("gpu0<->nvswitch") or a device's, which loads every link of that device.
Status read_runtime(const yamlio::Cursor& c, const Topology& topology,
                    const std::function<Result<int>(const yamlio::Cursor&)>& read_device,
                    RuntimeConditions* out);

}  // namespace brigade
