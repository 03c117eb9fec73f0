// gzip through std::streambuf (zlib), so that a trace is compressed as it is
// written and decompressed as it is read: nothing is held whole in memory.
#pragma once

#include <istream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace brigade {

// Deflates what is written into it and writes gzip (RFC 1952) to `sink`.
// finish() writes the trailer; call it, and check its Status, before the
// sink is closed (the destructor finishes too, but cannot report).
class GzipWriteBuf final : public std::streambuf {
 public:
  // level: zlib's 1 (fastest) .. 9 (smallest).
  explicit GzipWriteBuf(std::ostream& sink, int level = 1);
  ~GzipWriteBuf() override;
  GzipWriteBuf(const GzipWriteBuf&) = delete;
  GzipWriteBuf& operator=(const GzipWriteBuf&) = delete;
  Status finish();

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool deflate_input(int flush);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Inflates gzip (or zlib) data read from `source`; concatenated gzip
// members are read one after the other, as gunzip does. A corrupt or
// truncated stream ends the input early and sets error().
class GzipReadBuf final : public std::streambuf {
 public:
  explicit GzipReadBuf(std::istream& source);
  ~GzipReadBuf() override;
  GzipReadBuf(const GzipReadBuf&) = delete;
  GzipReadBuf& operator=(const GzipReadBuf&) = delete;
  // "" or what went wrong ("truncated gzip data", zlib's message).
  const std::string& error() const;

 protected:
  int_type underflow() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True when the stream's next two bytes are gzip's magic (1f 8b); reads nothing.
bool starts_with_gzip_magic(std::istream& in);
// True when `path` ends in ".gz".
bool is_gzip_path(const std::string& path);

}  // namespace brigade
