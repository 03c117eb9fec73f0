// A compact, position-aware JSON tree: the fast path of the scenario and
// profile readers for JSON text (core/yaml_reader.hpp). yaml-cpp reads
// JSON too (JSON is YAML 1.2's subset) but holds about 75 bytes of nodes per
// byte of text and reads 2-3 MB/s, which puts a million-op graph at 25 s and
// 4 GB; this tree takes about 30 bytes per node, one allocation per
// thousands of nodes, and reads at tens of MB/s (docs/PERFORMANCE.md).
//
// Values keep what the readers need and nothing more: the kind (null,
// scalar, map, list), the scalar's text (a string decoded, or a number,
// true or false as written), and the 1-based line and column where the
// value starts, counted as yaml-cpp counts them (columns in characters), so
// that messages are the same whichever parser read the file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brigade::json_tree {

enum class Kind : std::uint8_t { kNull, kScalar, kMap, kList };

// 16 bytes: a million-op graph has ten million values, whose memory is
// written once and read by the scenario reader (issue 20, item 3). Offsets
// fit 32 bits and columns 30 because parse() takes no text of 1 GiB or more.
struct Value {
  std::uint32_t line = 0;
  std::uint32_t column : 30 = 0;
  Kind kind : 2 = Kind::kNull;
  // kScalar: the text, text_[begin, begin + size). kMap, kList: the
  // children, values_[begin, begin + size); a map's are key, value, key,
  // value, ... (keys are scalars), in document order, repeats kept.
  std::uint32_t begin = 0;
  std::uint32_t size = 0;
};
static_assert(sizeof(Value) == 16);

class Tree {
 public:
  // The root value; valid when parse() succeeded.
  std::uint32_t root() const { return root_; }
  const Value& at(std::uint32_t i) const { return values_[i]; }
  std::string_view text(const Value& v) const {
    return std::string_view(text_).substr(v.begin, v.size);
  }
  // Children of a map or list: indices begin..begin+size-1.
  std::uint32_t child(const Value& v, std::uint32_t k) const { return v.begin + k; }

  // Why the text is not JSON, when it is not: where, and what.
  struct Error {
    std::uint32_t line = 0, column = 0;
    std::string what;
  };

  // Parses `text` as one JSON value (RFC 8259) with `max_depth` levels of
  // nesting at most; strings must decode to UTF-8 (a lone surrogate escape
  // is an error); the text is under 1 GiB (every reader of Brigade refuses
  // files above 256 MiB first). Returns false and fills *error otherwise.
  bool parse(std::string_view text, Error* error, int max_depth = 512);

 private:
  std::vector<Value> values_;
  std::string text_;
  std::uint32_t root_ = 0;
};

}  // namespace brigade::json_tree
