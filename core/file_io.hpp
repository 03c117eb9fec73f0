// Writing output files so that nobody ever sees half of one: the text goes
// to a temporary file beside the target (its name carries the process id, so
// two processes writing the same path never share it), then one rename(2)
// puts it in place. On any failure the temporary is removed and the target is
// left as it was.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "core/status.hpp"

namespace brigade {

// Writes `text` to `path` atomically. The error (ErrorKind::kRuntime) reads
// "PATH: error: found an unwritable file (REASON); expected a writable path".
Status write_file_atomically(const std::string& path, std::string_view text);

// The same for output produced by a writer; a failing writer's Status is
// returned as it is (and the temporary removed).
Status write_file_atomically(const std::string& path,
                             const std::function<Status(std::ostream&)>& write);

}  // namespace brigade
