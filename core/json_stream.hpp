// Streaming JSON input for nlohmann::json::sax_parse: a streambuf read in
// blocks that can turn the parser's byte offset into a line and column
// (errors name FILE:LINE:COL), and an open descriptor as a streambuf. Shared
// by the Chrome trace reader (core/trace_reader.cpp) and the measured-kernel
// reader (core/kernel_summary.cpp), which keep one event at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <streambuf>
#include <utility>
#include <vector>

namespace brigade {

// The bytes of a streambuf in blocks of 1 MiB, with what is needed to turn
// the parser's byte offset into a line and column: newlines are counted a
// block at a time, when the block is done.
class BlockSource {
 public:
  // cur_ and end_ start at the (empty) block, not null: refill() adds
  // end_ - buf_ to base_, and null - buf_ made every offset on line 1 the
  // buffer's address (a column of -1218695182).
  explicit BlockSource(std::streambuf* sb)
      : sb_(sb), buf_(1 << 20), cur_(buf_.data()), end_(buf_.data()) {}
  // True once every byte has been taken. Refills lazily, so that the last
  // byte taken is always in the current block.
  bool at_end() {
    if (cur_ != end_) return false;
    if (eof_) return true;
    refill();
    return cur_ == end_;
  }
  char peek() const { return *cur_; }
  void take() { ++cur_; }

  // 1-based line and column of the byte at `offset` (one already taken).
  std::pair<int, int> line_column(std::size_t offset) const;

 private:
  void refill();

  std::streambuf* sb_;
  std::vector<char> buf_;
  const char* cur_ = nullptr;
  const char* end_ = nullptr;
  std::size_t base_ = 0;  // offset of buf_[0]
  bool eof_ = false;
  std::size_t lines_before_ = 0;           // newlines before buf_
  std::int64_t last_newline_before_ = -1;  // offset of the last of them
};

// BlockSource as the parser's input iterator (nlohmann::json::sax_parse
// takes any iterator of bytes).
class SourceIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  SourceIterator() = default;
  explicit SourceIterator(BlockSource* s) : s_(s) {}
  char operator*() const { return s_->peek(); }
  SourceIterator& operator++() {
    s_->take();
    return *this;
  }
  bool operator==(const SourceIterator& o) const { return done() == o.done(); }
  bool operator!=(const SourceIterator& o) const { return !(*this == o); }

 private:
  bool done() const { return s_ == nullptr || s_->at_end(); }
  BlockSource* s_ = nullptr;
};

// The bytes of an open descriptor as a streambuf (what std::ifstream would
// be, over a file opened by open_input_file: never a FIFO waiting for a
// writer, nor /dev/zero read for ever). Does not close the descriptor.
class FdReadBuf : public std::streambuf {
 public:
  explicit FdReadBuf(int fd) : fd_(fd), buf_(1 << 16) {}

 protected:
  int_type underflow() override;

 private:
  int fd_;
  std::vector<char> buf_;
};

}  // namespace brigade
