// Internal to core/: the first fault of an NCCL table, with what it is at,
// so that the profile reader can place the message on the entry or field
// at fault (core/profile_io_nccl.cpp) and check_nccl_table can say it
// without a position.
#pragma once

#include <optional>
#include <string>

#include "core/nccl_table.hpp"

namespace brigade {

struct NcclTableFault {
  enum class Where {
    kTable,      // the nccl map itself (no ring)
    kAlgorithm,  // nccl.ALG (a protocol missing)
    kEntry,      // nccl.ALG.PROTO (a field missing, or an entry not defined)
    kField,      // nccl.ALG.PROTO.FIELD (out of order)
  };
  Where where = Where::kTable;
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kLL;
  std::string field;    // kField: the key ("nvlink", "bandwidth", ...)
  std::string message;  // "found ...; expected ..."
};

std::optional<NcclTableFault> find_nccl_table_fault(const NcclTable& table);

}  // namespace brigade
