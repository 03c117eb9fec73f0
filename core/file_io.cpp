#include "core/file_io.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <random>
#include <streambuf>

namespace brigade {

namespace {

// ---- the temporaries a signal must remove ---------------------------------
// A fixed table the signal handler can read without locks or allocation:
// a slot is free (0), being filled (1) or holds a live temporary's path (2).
// More writes at once than slots: the extra ones are simply not cleaned up
// on a signal (they are still removed on every other way out).
struct TempSlot {
  std::atomic<int> state{0};
  char path[4096];
};
std::array<TempSlot, 16> g_temp_slots;

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (TempSlot& s : g_temp_slots)
    if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);
  // SA_RESETHAND restored the default action: the signal now does what it
  // would have done (ends the process with the signal's status).
  ::raise(sig);
}

// Installs the handler for SIGINT and SIGTERM once, where nobody else has
// (a program with handlers of its own keeps them).
void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND;
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

// A temporary file beside the target: created exclusively under a random
// name, removed unless committed (whatever way the scope is left), and known
// to the signal handler while it exists.
class Temporary {
 public:
  Temporary() = default;
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  ~Temporary() { discard(); }

  // Creates it in `dir` ("" = the working folder) with a name that starts
  // with `stem`; false (errno set) if it cannot.
  // SIGINT and SIGTERM are held back from the file's creation until the
  // handler knows its path: one arriving in between ended the process with
  // the temporary left behind (AtomicWrite.ASignalDuringTheWrite... saw it
  // under load); held back, it is delivered once the path is known.
  bool create(const std::string& dir, const std::string& stem, mode_t mode) {
    install_signal_cleanup();
    sigset_t cleanup_signals, before;
    sigemptyset(&cleanup_signals);
    sigaddset(&cleanup_signals, SIGINT);
    sigaddset(&cleanup_signals, SIGTERM);
    for (int attempt = 0; attempt < 64; ++attempt) {
      path_ = (dir.empty() ? std::string() : dir + "/") + stem + random_suffix();
      ::pthread_sigmask(SIG_BLOCK, &cleanup_signals, &before);
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
      const int open_errno = errno;
      if (fd_ >= 0) remember();
      ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
      if (fd_ >= 0) return true;
      if (open_errno != EEXIST) {
        errno = open_errno;
        return false;
      }
    }
    errno = EEXIST;
    return false;
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // The file is in place under another name: nothing to remove any more.
  void committed() {
    forget();
    path_.clear();
  }
  // Closes the descriptor; false (errno set) if the kernel reports a failed write.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return fd < 0 || ::close(fd) == 0;
  }
  void discard() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!path_.empty()) ::unlink(path_.c_str());
    forget();
    path_.clear();
  }

 private:
  static std::string random_suffix() {
    static constexpr char kDigits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::array<unsigned char, 12> bytes{};
    if (::getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
      std::random_device rd;
      for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
    }
    std::string s;
    for (unsigned char b : bytes) s += kDigits[b % 36];
    return s;
  }
  void remember() {
    if (path_.size() >= sizeof(TempSlot::path)) return;
    for (size_t i = 0; i < g_temp_slots.size(); ++i) {
      int expected = 0;
      if (g_temp_slots[i].state.compare_exchange_strong(expected, 1)) {
        std::memcpy(g_temp_slots[i].path, path_.c_str(), path_.size() + 1);
        g_temp_slots[i].state.store(2, std::memory_order_release);
        slot_ = static_cast<int>(i);
        return;
      }
    }
  }
  void forget() {
    if (slot_ >= 0)
      g_temp_slots[static_cast<size_t>(slot_)].state.store(0, std::memory_order_release);
    slot_ = -1;
  }

  std::string path_;
  int fd_ = -1;
  int slot_ = -1;
};

// An output stream over a file descriptor. Keeps the first failing write's
// errno; retries interrupted and partial writes.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return error_ == 0;
  }

  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buf_{};
};

Status unwritable(const std::string& path, int err) {
  return Status::error(path + ": error: found an unwritable file (" + std::strerror(err) +
                           "); expected a writable path",
                       ErrorKind::kRuntime);
}

// The folder an output path's temporary goes in ("" = the working folder),
// and its last component.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return {"", path};
  return {slash == 0 ? std::string("/") : path.substr(0, slash), path.substr(slash + 1)};
}

Status refused(std::string body) {
  return Status::error(std::move(body), ErrorKind::kBadInput);
}

// Runs `write` into `out` and reports the first failure: the writer's own
// Status, or the stream's.
Status run_writer(const std::string& path, const std::function<Status(std::ostream&)>& write,
                  std::ostream& out, const FdBuf& buf) {
  Status st = write(out);
  if (!st.is_ok()) return st;
  out.flush();
  if (!out || buf.error() != 0) return unwritable(path, buf.error() != 0 ? buf.error() : EIO);
  return Status::ok();
}

Status write_in_place(const std::string& path, const std::function<Status(std::ostream&)>& write) {
  // No O_CREAT and no O_TRUNC: this opens what is there and changes nothing
  // until it writes; fstat then makes sure it is still a device or FIFO.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return unwritable(path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    ::close(fd);
    return refused(path +
                   ": error: found a file that changed while it was opened; expected "
                   "a character device or a FIFO");
  }
  FdBuf buf(fd);
  std::ostream out(&buf);
  Status written = run_writer(path, write, out, buf);
  if (::close(fd) != 0 && written.is_ok()) written = unwritable(path, errno);
  return written;
}

}  // namespace

Result<OutputTarget> check_output_path(const std::string& path) {
  if (path.empty()) return refused("found an empty path; expected a file path");
  if (path.back() == '/')
    return refused("found a folder's path (it ends with '/'); expected a file path");
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0) {
    struct stat target = link;
    const bool is_link = S_ISLNK(link.st_mode);
    if (is_link && ::stat(path.c_str(), &target) != 0) target = link;
    if (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)) return OutputTarget::kStream;
    if (is_link)
      return refused(
          "found a symbolic link; expected a regular file or a new file (an output replaces "
          "its file and never writes through a link, except to a device or a FIFO)");
    if (S_ISDIR(link.st_mode)) return refused("found a folder; expected a file path");
    if (!S_ISREG(link.st_mode)) {
      const char* what = S_ISBLK(link.st_mode)    ? "a block device"
                         : S_ISSOCK(link.st_mode) ? "a socket"
                                                  : "a special file";
      return refused(std::string("found ") + what +
                     "; expected a regular file, a new file, a character device or a FIFO");
    }
    if (::access(path.c_str(), W_OK) != 0)
      return refused(std::string("found a file this user may not write (") + std::strerror(errno) +
                     "); expected a writable file");
  } else if (errno != ENOENT) {
    return refused(std::string("found a path that cannot be examined (") + std::strerror(errno) +
                   "); expected a writable path");
  }
  const bool exists = S_ISREG(link.st_mode) && link.st_nlink > 0;
  const std::string dir = split_path(path).first;
  const std::string shown = dir.empty() ? "." : dir;
  struct stat folder {};
  if (::stat(dir.empty() ? "." : dir.c_str(), &folder) != 0 || !S_ISDIR(folder.st_mode))
    return refused("found no folder '" + shown + "'; expected an existing folder for the file");
  if (::access(dir.empty() ? "." : dir.c_str(), W_OK | X_OK) != 0)
    return refused("found a folder this user may not write ('" + shown +
                   "': " + std::strerror(errno) + "); expected a writable folder for the file");
  return exists ? OutputTarget::kRegularFile : OutputTarget::kNewFile;
}

Status write_file_atomically(const std::string& path,
                             const std::function<Status(std::ostream&)>& write) {
  const Result<OutputTarget> target = check_output_path(path);
  if (!target.is_ok()) return refused(path + ": error: " + target.message());
  if (*target == OutputTarget::kStream) return write_in_place(path, write);

  auto [dir, base] = split_path(path);
  mode_t mode = 0666;  // less the umask, as any new file
  struct stat old {};
  const bool replacing = *target == OutputTarget::kRegularFile && ::stat(path.c_str(), &old) == 0;
  // Room for ".tmp-" and the suffix within NAME_MAX (255).
  const std::string stem = "." + base.substr(0, 200) + ".tmp-";
  Temporary tmp;
  if (!tmp.create(dir, stem, mode)) return unwritable(path, errno);
  if (replacing) ::fchmod(tmp.fd(), old.st_mode & 07777);  // the replaced file's permissions
  FdBuf buf(tmp.fd());
  std::ostream out(&buf);
  BRIGADE_RETURN_IF_ERROR(run_writer(path, write, out, buf));
  if (!tmp.close()) return unwritable(path, errno);
  if (::rename(tmp.path().c_str(), path.c_str()) != 0) return unwritable(path, errno);
  tmp.committed();
  return Status::ok();
}

Status write_file_atomically(const std::string& path, std::string_view text) {
  return write_file_atomically(path, [&](std::ostream& out) {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return Status::ok();  // a failed write leaves the stream bad; checked by the caller
  });
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<InputFile> open_input_file(const std::string& path, std::string_view expected_what) {
  auto fail = [&](const std::string& found) {
    return Status::error(path + ": error: found " + found + "; expected " +
                         std::string(expected_what));
  };
  auto fail_errno = [&](int err) {
    return fail(std::string("no readable file (") + std::strerror(err) + ")");
  };
  // O_NONBLOCK: opening a FIFO with no writer must not wait for one (it is
  // refused below, as every file that is not regular is).
  InputFile f;
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f.fd_ < 0) return fail_errno(errno != 0 ? errno : ENOENT);
  struct stat st {};
  if (::fstat(f.fd_, &st) != 0) return fail_errno(errno);
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a file that is not regular";
    return fail(what);
  }
  // Reads of a regular file never block; blocking mode for whoever reads on.
  const int flags = ::fcntl(f.fd_, F_GETFL);
  if (flags >= 0) ::fcntl(f.fd_, F_SETFL, flags & ~O_NONBLOCK);
  f.size_bytes_ = static_cast<std::uint64_t>(st.st_size);
  return f;
}

}  // namespace brigade
