// The scenario's explicit graph (`model.graph`), read apart from the rest of
// the scenario (core/scenario.cpp calls it). Private to core/: it takes a
// yamlio::Cursor.
#pragma once

#include <cstdint>
#include <string>

#include "core/model.hpp"
#include "core/scenario.hpp"
#include "core/status.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {

// model.graph: {tensors: {name: shape}, ops: [{name, op, in, out, fn, flops,
// bytes}]} into `graph` (inputs may name outputs of later ops).
Status read_graph_spec(const yamlio::Cursor& c, Model* graph);

// A count above a limit: "found 80000 devices; expected at most 65536
// devices (docs/scenario-format.md, "Limits")".
std::string over_limit(std::int64_t found, std::int64_t limit, const std::string& noun);

}  // namespace brigade
