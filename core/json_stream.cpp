#include "core/json_stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace brigade {

std::pair<int, int> BlockSource::line_column(std::size_t offset) const {
  if (offset < base_ || offset >= base_ + static_cast<std::size_t>(end_ - buf_.data()))
    offset = base_ + static_cast<std::size_t>(cur_ - buf_.data()) - (cur_ > buf_.data() ? 1 : 0);
  const char* at = buf_.data() + (offset - base_);
  std::size_t lines = lines_before_;
  std::int64_t last_newline = last_newline_before_;
  for (const char* p = buf_.data(); p < at; ++p)
    if (*p == '\n') {
      ++lines;
      last_newline = static_cast<std::int64_t>(base_ + static_cast<std::size_t>(p - buf_.data()));
    }
  return {static_cast<int>(lines + 1),
          static_cast<int>(static_cast<std::int64_t>(offset) - last_newline)};
}

void BlockSource::refill() {
  for (const char* p = buf_.data(); p < end_; ++p)
    if (*p == '\n') {
      ++lines_before_;
      last_newline_before_ =
          static_cast<std::int64_t>(base_ + static_cast<std::size_t>(p - buf_.data()));
    }
  base_ += static_cast<std::size_t>(end_ - buf_.data());
  const auto n = sb_->sgetn(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  cur_ = buf_.data();
  end_ = cur_ + std::max<std::streamsize>(n, 0);
  eof_ = n <= 0;
}

FdReadBuf::int_type FdReadBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  ssize_t n = 0;
  do {
    n = ::read(fd_, buf_.data(), buf_.size());
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return traits_type::eof();
  setg(buf_.data(), buf_.data(), buf_.data() + n);
  return traits_type::to_int_type(*gptr());
}

}  // namespace brigade
