#include "core/text.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace brigade {
namespace {

// The length of the well-formed UTF-8 sequence at text[i], or 0.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, cp = c & 0x1Fu;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, cp = c & 0x0Fu;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(text[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3Fu);
  }
  const bool overlong = (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return n;
}

}  // namespace

std::size_t utf8_error_offset(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // ASCII runs, the common case, one byte at a time without the decoder.
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::size_t control_char_offset(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return i;
  }
  return std::string_view::npos;
}

namespace {

// Whether the 8 bytes at p are all printable ASCII (0x20..0x7E): the word
// holds no byte >= 0x80, none below 0x20 and no 0x7F. SWAR ("has a byte
// less than n", Hacker's Delight 6-1 / Anderson's bit hacks): (x - n*ones)
// & ~x & highs is non-zero exactly when some byte of x is below n, for n
// <= 0x80; 0x7F is the one byte that x + 1 carries into the high bit.
bool eight_printable(const char* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  const std::uint64_t below_space = (x - 0x20 * kOnes) & ~x & kHighs;
  const std::uint64_t del_or_high = (x + kOnes) | x;  // high bit: byte >= 0x7F
  return ((below_space | del_or_high) & kHighs) == 0;
}

}  // namespace

std::size_t text_fault_offset(std::string_view text, bool* not_utf8) {
  *not_utf8 = false;
  std::size_t i = 0;
  while (i < text.size()) {
    // Runs of printable ASCII, the bulk of any scenario, eight bytes at a
    // time (an 88 MB graph spent 4% of its read here byte by byte).
    while (i + 8 <= text.size() && eight_printable(text.data() + i)) i += 8;
    if (i >= text.size()) break;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t n = sequence_length(text, i);
      if (n == 0) {
        *not_utf8 = true;
        return i;
      }
      i += n;
    } else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      // A control character; a byte that is not UTF-8 later still comes first.
      if (const std::size_t bad = utf8_error_offset(text.substr(i));
          bad != std::string_view::npos) {
        *not_utf8 = true;
        return i + bad;
      }
      return i;
    } else {
      ++i;
    }
  }
  return std::string_view::npos;
}

std::string quoted(std::string_view text, std::size_t max_chars) {
  std::string out = "'";
  std::size_t i = 0, chars = 0;
  while (i < text.size() && chars < max_chars) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = sequence_length(text, i);
    ++chars;
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (n == 0 || c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      i += 1;
      continue;
    } else {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    ++i;
  }
  if (i < text.size()) out += "...";
  return out + "'";
}

std::string one_line(std::string_view text) {
  const std::string q = quoted(text, text.size());
  return q.substr(1, q.size() - 2);
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trim_space(std::string_view text) {
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace brigade
