// Internal to core/: a device profile's `nccl` table in profile files
// (docs/scenario-format.md, "Profile files"), read with positions and
// written back. Includes yaml-cpp: only core .cpp files include it.
#pragma once

#include <yaml-cpp/yaml.h>

#include "core/nccl_table.hpp"
#include "core/status.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {

// Reads `c` (the value of a device's `nccl` key) into `table`, then checks
// it (find_nccl_table_fault): an incomplete or non-monotonic table is
// reported at the entry or field at fault.
Status read_nccl_table(const yamlio::Cursor& c, NcclTable* table);

// An NCCL version ("2.24" or "2.29", quoted or not): the scenario's
// topology.nccl_version and a table's nccl.version. Unknown: "found NCCL
// version '2.30'; expected one of 2.24, 2.29 (...)" at the value.
Result<NcclVersion> read_nccl_version(const yamlio::Cursor& c);

// Writes the `nccl` key and its table (nothing for an empty table).
void emit_nccl_table(YAML::Emitter& out, const NcclTable& table);

}  // namespace brigade
