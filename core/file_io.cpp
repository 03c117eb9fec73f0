#include "core/file_io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace brigade {

namespace {

Status unwritable(const std::string& path, int err) {
  return Status::error(path + ": error: found an unwritable file (" + std::strerror(err) +
                           "); expected a writable path",
                       ErrorKind::kRuntime);
}

}  // namespace

Status write_file_atomically(const std::string& path,
                             const std::function<Status(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto give_up = [&](Status st) {
    std::remove(tmp.c_str());
    return st;
  };
  errno = 0;
  std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
  if (!f) return unwritable(path, errno != 0 ? errno : EIO);
  Status st = write(f);
  if (!st.is_ok()) return give_up(std::move(st));
  errno = 0;
  f.flush();
  f.close();
  if (!f) return give_up(unwritable(path, errno != 0 ? errno : EIO));
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return give_up(unwritable(path, errno));
  return Status::ok();
}

Status write_file_atomically(const std::string& path, std::string_view text) {
  return write_file_atomically(path, [&](std::ostream& out) {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return Status::ok();  // a failed write leaves the stream bad; checked above
  });
}

}  // namespace brigade
