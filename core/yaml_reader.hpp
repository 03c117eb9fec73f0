// Position-aware reading of YAML (and JSON) documents, private to core/:
// the scenario reader (core/scenario.cpp) and the profile reader
// (core/profile_io.cpp) share it. Not part of Brigade's public API; it
// includes yaml-cpp, so only core .cpp files include it.
//
// A Cursor is a YAML node plus its dotted path in the document
// ("strategy.data", "model.graph.ops[2]"). Every accessor returns a Status or
// Result whose message is one line, "FILE:LINE:COL: error: found X; expected
// Y", with 1-based positions (yaml-cpp's Marks are 0-based). The accessors
// never throw; yaml-cpp exceptions are caught by read_yaml_text, the one
// entry point that parses text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/status.hpp"
#include "core/units.hpp"

namespace brigade::json_tree {
class Tree;
}

namespace brigade::yamlio {

// What a document is being read as, for messages and key positions.
struct Document {
  std::string file;                                       // as written in messages
  std::map<std::string, SourcePos>* positions = nullptr;  // filled with every key seen, if set
};

// A parsed document: JSON text in Brigade's compact tree (core/json_tree.hpp,
// the fast path for large generated files), anything else in yaml-cpp's.
class Tree {
 public:
  Tree() = default;
  explicit Tree(YAML::Node yaml) : yaml_(std::move(yaml)) {}
  explicit Tree(std::shared_ptr<const json_tree::Tree> json) : json_(std::move(json)) {}
  bool is_json() const { return json_ != nullptr; }

 private:
  friend class Cursor;
  friend Status check_unique_keys(const Tree& tree, const std::string& file);
  YAML::Node yaml_;
  std::shared_ptr<const json_tree::Tree> json_;
};

// The largest text read with yaml-cpp (about 75 bytes of memory per byte of
// YAML); larger text must be JSON (docs/scenario-format.md, "Limits").
inline constexpr std::size_t kMaxYamlBytes = std::size_t{16} << 20;

// Parses text: checks that it is UTF-8 without control characters (other
// than tab and line breaks), then reads it as JSON when it is JSON, else as
// YAML. A malformed document becomes
//   "FILE:L:C: error: found malformed YAML (MESSAGE); expected WHAT"
// where MESSAGE is yaml-cpp's. An empty document is a null node.
Result<Tree> read_tree(const std::string& text, const std::string& file,
                       std::string_view expected_what);

// Every map of the document has each key once; otherwise the key written a
// second time that comes first in the file:
//   "FILE:L:C: error: found key 'x' a second time; expected each key once"
// Readers call it first, so that a repeated key is reported before the
// problems that its map's place in the reading order would put first.
Status check_unique_keys(const Tree& tree, const std::string& file);

// Reads a whole regular file of at most `max_bytes` into `out`, without
// blocking on a FIFO or a device. Failures are "FILE: error: found X;
// expected WHAT": no readable file (REASON), a folder, a character device,
// a FIFO, a socket, a file of N bytes (over max_bytes).
Status read_file_text(const std::string& path, std::string_view expected_what, std::string* out,
                      std::size_t max_bytes);

// The lower bound of a numeric value.
enum class Bound { kAny, kNonNegative, kPositive };

class Cursor {
 public:
  Cursor(const Document* doc, const Tree& tree, std::string path, SourcePos fallback_pos);

  // "strategy.data", "model.graph.ops[2].in"; "" for the root.
  std::string path() const;
  // 1-based position of the node (the enclosing key's, for a missing value).
  SourcePos pos() const;
  // Status::at(pos(), message).
  Status error(const std::string& message) const;

  // This cursor, and every cursor taken from it, records no key positions:
  // for the items of long lists (a graph's ops), whose positions travel in
  // the values read from them instead.
  Cursor quiet() const;

  bool defined() const;
  bool is_null() const;
  bool is_map() const;
  bool is_list() const;
  bool is_scalar() const;
  // The scalar's text ("" for other nodes).
  std::string text() const;
  // The same without a copy: a view into the tree, valid while it lives.
  std::string_view text_view() const;
  // The node as written in "found X": 'abc' for a scalar, "a list", "a map", "nothing".
  std::string found() const;

  Status expect_map(std::string_view what) const;  // "found X; expected WHAT"
  Status expect_list(std::string_view what) const;

// ---- maps ----
  // Rejects keys not in `allowed` ("did you mean"), keys written twice and
  // non-scalar keys; records every key's position as "PATH.KEY".
  Status check_keys(std::initializer_list<std::string_view> allowed) const;
  Status check_keys(const std::vector<std::string>& allowed) const;
  bool has(std::string_view key) const;
  // The value under `key`; a missing key gives an undefined cursor placed at
  // this map.
  Cursor get(std::string_view key) const;
  // The key node itself (its position, its text) for a present key.
  Cursor key_of(std::string_view key) const;
  // The text of each key in document order (nullopt for a key that is not
  // a scalar), as views into the tree, without a cursor per key; records
  // nothing.
  std::vector<std::optional<std::string_view>> key_texts() const;
  // (key, value) pairs in document order; records every key's position.
  std::vector<std::pair<Cursor, Cursor>> entries() const;
  // The same pairs one at a time, stopping at the first error: for maps of
  // a million entries (a graph's placement), whose cursors would otherwise
  // all be held at once.
  Status for_each_entry(
      const std::function<Status(const Cursor& key, const Cursor& value)>& f) const;

  // ---- lists ----
  // Items as "PATH[i]" (positions recorded).
  std::vector<Cursor> items() const;
  // The same items one at a time, with their index, stopping at the first error.
  Status for_each_item(const std::function<Status(std::size_t i, const Cursor& item)>& f) const;
  // Entries of a map, items of a list, 0 for anything else.
  std::size_t size() const;

  // ---- scalars ----
  Result<std::int64_t> as_int(std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                              std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  Result<double> as_number(Bound bound = Bound::kAny) const;
  // A number in [lo, hi]: "found '1e300'; expected NOUN from LO to HI".
  Result<double> as_number_in(double lo, double hi, std::string_view noun) const;
  // A quantity with units (core/units.hpp); the message quotes the text and
  // the dimension's hint, "a positive ..." for Bound::kPositive.
  Result<double> as_quantity(Dimension dim, Bound bound) const;
  Result<bool> as_bool() const;
  Result<std::string> as_string() const;
  // A name that messages quote: a non-empty scalar on one line.
  Result<std::string> as_name() const;
  // The same check without the copy.
  Status check_name() const;

  // ---- for a reader's fast path over a million items ----
  // The JSON value under this cursor: its tree and index, or a null tree
  // when the text was read as YAML or the value is missing. A fast path
  // reads what it recognises straight from the tree and hands anything else
  // back to the cursors, which alone word messages (core/scenario_graph.cpp).
  std::pair<const json_tree::Tree*, std::uint32_t> json_value() const;
  // The file that messages name.
  const std::string& file() const;
  // One of `choices` ("found 'x'; expected one of a, b, c (did you mean 'b'?)").
  template <class T>
  Result<T> as_enum(const std::vector<std::pair<std::string, T>>& choices) const;

  // ---- optional map values: the default when the key is absent ----
  Result<std::int64_t> get_int(std::string_view key, std::int64_t dflt,
                               std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                               std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  Result<double> get_number(std::string_view key, double dflt, Bound bound = Bound::kAny) const;
  Result<double> get_quantity(std::string_view key, double dflt, Dimension dim, Bound bound) const;
  Result<bool> get_bool(std::string_view key, bool dflt) const;
  Result<std::string> get_string(std::string_view key, std::string dflt) const;
  Result<std::string> get_name(std::string_view key, std::string dflt) const;
  template <class T>
  Result<T> get_enum(std::string_view key, T dflt,
                     const std::vector<std::pair<std::string, T>>& choices) const;
  // A required value: "found no 'KEY' in 'PATH'; expected WHAT".
  Status require(std::string_view key, std::string_view what) const;

 private:
  enum class Shape : std::uint8_t { kUndefined, kNull, kScalar, kMap, kList };
  struct Json {
    const json_tree::Tree* tree = nullptr;
    std::uint32_t index = 0;
  };
  // A dotted path without an allocation per cursor: the tail of a child of
  // a list item ("[123].name") fits in std::string's small buffer, the
  // list's own path is shared.
  struct Path {
    std::shared_ptr<const std::string> base;
    std::string tail;
    std::string str() const { return base ? *base + tail : tail; }
    bool empty() const { return (!base || base->empty()) && tail.empty(); }
  };
  Cursor(const Document* doc, YAML::Node node, Json json, Path path, int fallback_line,
         int fallback_column, bool record);
  Shape shape() const;
  // pos() without the file.
  std::pair<int, int> line_column() const;
  // A child cursor of this map or list (positions recorded when record_).
  Cursor yaml_child(YAML::Node node, Path path, const Cursor& parent_for_pos) const;
  // A JSON child; `fallback` is the line and column of the parent (of the
  // key, for a map's value), where an empty value points.
  Cursor json_child(std::uint32_t index, Path path, std::pair<int, int> fallback) const;
  // A JSON key's line and column (keys are strings, never empty values).
  std::pair<int, int> json_key_line_column(std::uint32_t index) const;
  Cursor missing(Path path) const;
  Path item_path(const std::shared_ptr<const std::string>& list_path, size_t i) const;
  std::string_view scalar_view() const;  // JSON only
  void record(const std::string& path, const SourcePos& pos) const;
  Status enum_error(const std::vector<std::string>& names) const;
  Path child_path(std::string_view key) const;

  const Document* doc_;
  YAML::Node node_;  // yaml-cpp's node, or undefined
  Json json_;        // the JSON tree's value, when json_.tree
  bool json_missing_ = false;
  bool record_ = true;
  Path path_;
  int fallback_line_ = 0, fallback_column_ = 0;
};

// What Cursor::check_name accepts, without a cursor: non-empty UTF-8 text
// on one line with no control character (DEL included).
bool is_clean_name(std::string_view text);

// 'text' for messages, on one line (line breaks escaped, long text cut).
std::string quote(const std::string& text);

// "a, b or c" for messages.
std::string join_choices(const std::vector<std::string>& names, std::string_view last_sep = " or ");
// "a, b, c" for messages.
std::string join_list(const std::vector<std::string>& names);

template <class T>
Result<T> Cursor::as_enum(const std::vector<std::pair<std::string, T>>& choices) const {
  std::vector<std::string> names;
  if (is_scalar()) {
    const std::string t = text();
    for (const auto& [name, value] : choices)
      if (name == t) return value;
  }
  for (const auto& [name, value] : choices) names.push_back(name);
  return enum_error(names);
}

template <class T>
Result<T> Cursor::get_enum(std::string_view key, T dflt,
                           const std::vector<std::pair<std::string, T>>& choices) const {
  if (!has(key)) return dflt;
  return get(key).as_enum(choices);
}

}  // namespace brigade::yamlio
