// Writing output files so that nobody ever sees half of one, and so that an
// output flag never replaces what it should not (docs/RELIABILITY.md,
// "Output files").
//
// What is at the target decides how it is written:
//   - nothing, or a regular file: the text goes to a temporary file beside
//     the target, created with O_CREAT|O_EXCL|O_NOFOLLOW under a random name
//     (so nobody can predict it, and a link planted there is never
//     followed), then one rename(2) puts it in place; a replaced file keeps
//     its permission bits. On any failure, an exception included, the
//     temporary is removed and the target is left as it was; SIGINT and
//     SIGTERM remove it too (the signal's default action then follows).
//   - a character device or a FIFO (/dev/null, /dev/stdout, a named pipe):
//     written in place, as cp(1) does, never replaced;
//   - a symbolic link, a directory, a block device or a socket: refused.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "core/status.hpp"

namespace brigade {

// How an output path will be written (see above).
enum class OutputTarget {
  kNewFile,      // nothing there yet: temporary + rename
  kRegularFile,  // replaced: temporary + rename
  kStream,       // a character device or FIFO: written in place
};

// Whether `path` can take an output, without writing anything: for a
// program to check its outputs before long work, not after. The error's
// message is the "found X; expected Y" part alone (the caller says whose
// path it is: a flag or a file), e.g.
//   "found a symbolic link; expected a regular file or a new file
//    (an output replaces its file and never writes through a link)".
// Kind: kBadInput.
Result<OutputTarget> check_output_path(const std::string& path);

// Writes `text` to `path` as described above. Errors (kBadInput for a
// target that check_output_path refuses, kRuntime for a failing write)
// read "PATH: error: found X; expected Y".
Status write_file_atomically(const std::string& path, std::string_view text);

// The same for output produced by a writer; a failing writer's Status is
// returned as it is (and the temporary removed). An exception thrown by the
// writer (std::bad_alloc) removes the temporary and propagates.
Status write_file_atomically(const std::string& path,
                             const std::function<Status(std::ostream&)>& write);

// ---- Reading ----------------------------------------------------------------

// An input file opened for reading: a regular file, never a FIFO (opened
// without waiting for a writer, then refused), a device (/dev/zero,
// /dev/urandom), a folder or a socket. Closes its descriptor.
class InputFile {
 public:
  InputFile() = default;
  InputFile(InputFile&& o) noexcept : fd_(o.fd_), size_bytes_(o.size_bytes_) { o.fd_ = -1; }
  InputFile& operator=(InputFile&&) = delete;
  InputFile(const InputFile&) = delete;
  ~InputFile();
  int fd() const { return fd_; }
  std::uint64_t size_bytes() const { return size_bytes_; }

 private:
  friend Result<InputFile> open_input_file(const std::string&, std::string_view);
  int fd_ = -1;
  std::uint64_t size_bytes_ = 0;
};

// Opens `path` as above. Errors (kBadInput) read
//   "PATH: error: found a FIFO; expected EXPECTED_WHAT"
//   "PATH: error: found no readable file (No such file or directory); expected ..."
Result<InputFile> open_input_file(const std::string& path, std::string_view expected_what);

}  // namespace brigade
