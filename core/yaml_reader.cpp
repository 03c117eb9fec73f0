#include "core/yaml_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <tuple>

#include "core/file_io.hpp"
#include "core/json_tree.hpp"
#include "core/text.hpp"

namespace brigade::yamlio {

std::string join_list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string join_choices(const std::vector<std::string>& names, std::string_view last_sep) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += (i + 1 == names.size()) ? std::string(last_sep) : std::string(", ");
    s += names[i];
  }
  return s;
}

namespace {

// 1-based line and column (in characters, as yaml-cpp counts) of a byte offset.
SourcePos position_of(const std::string& text, size_t offset, const std::string& file) {
  int line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column;
    }
  }
  return SourcePos{file, line, column};
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

// What a decoded scalar may not hold: bytes that are not UTF-8 (a YAML
// escape such as "\ud800" decodes to them), control characters other than
// tab and line feed. The message's "found" part, or "" when the text is fine.
std::string bad_text(std::string_view t, bool allow_line_breaks) {
  if (utf8_error_offset(t) != std::string::npos)
    return quote(std::string(t)) + ", which is not UTF-8";
  for (const char ch : t) {
    const auto c = static_cast<unsigned char>(ch);
    const bool control = (c < 0x20 && c != '\t' && !(allow_line_breaks && (c == '\n' || c == '\r'))) ||
                         c == 0x7F;
    if (control) return quote(std::string(t)) + " with control character " + hex_byte(c);
  }
  return "";
}

}  // namespace

Result<Tree> read_tree(const std::string& text, const std::string& file,
                       std::string_view expected_what) {
  // UTF-8 first (names reach JSON outputs and traces, which must be UTF-8),
  // and no control characters: both with their position, in one pass.
  bool not_utf8 = false;
  const size_t bad = text_fault_offset(text, &not_utf8);
  if (bad != std::string::npos && not_utf8)
    return Status::at(position_of(text, bad, file),
                      "found byte " + hex_byte(static_cast<unsigned char>(text[bad])) +
                          ", which is not UTF-8; expected UTF-8 text");
  if (bad != std::string::npos)
    return Status::at(position_of(text, bad, file),
                      "found control character " +
                          hex_byte(static_cast<unsigned char>(text[bad])) +
                          "; expected text without control characters (tab and line breaks aside)");
  // JSON through the compact tree; anything else, and JSON that is not
  // well formed (for yaml-cpp's message), through yaml-cpp, up to its limit.
  auto json = std::make_shared<json_tree::Tree>();
  json_tree::Tree::Error json_error;
  if (json->parse(text, &json_error)) return Tree(std::shared_ptr<const json_tree::Tree>(json));
  json.reset();
  if (text.size() > kMaxYamlBytes)
    return Status::at(SourcePos{file, static_cast<int>(json_error.line),
                                static_cast<int>(json_error.column)},
                      "found malformed JSON (" + json_error.what + ") in a file of " +
                          std::to_string(text.size()) + " bytes; expected JSON (text above " +
                          std::to_string(kMaxYamlBytes >> 20) + " MiB must be JSON)");
  try {
    return Tree(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    SourcePos pos{file, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                  e.mark.column >= 0 ? e.mark.column + 1 : 0};
    // At the end of the text yaml-cpp reads its own end-of-stream byte,
    // 0x04, and can place the error past the last character (`"\` gave
    // "fuzz.yaml:1:4: ... unknown escape character: \x04", a fuzz find):
    // the position stops just after the text, and the byte is named for
    // what it is (a 0x04 in the text itself is refused above).
    const SourcePos end = position_of(text, text.size(), file);
    if (pos.line > end.line || (pos.line == end.line && pos.column > end.column)) pos = end;
    std::string msg = e.msg;
    if (msg == "unknown escape character: \x04") msg = "the text ends inside an escape sequence";
    for (auto at = msg.find('\x04'); at != std::string::npos; at = msg.find('\x04'))
      msg.replace(at, 1, "the end of the text");
    // yaml-cpp's message can quote one byte of a multi-byte character
    // ("unknown escape character: \xde", a fuzz find): a message stays
    // valid UTF-8 on one line.
    if (utf8_error_offset(msg) != std::string::npos ||
        control_char_offset(msg) != std::string::npos)
      msg = quoted(msg, 200);
    return Status::at(pos,
                      "found malformed YAML (" + msg + "); expected " + std::string(expected_what));
  } catch (const std::exception& e) {
    return Status::at(SourcePos{file, 0, 0}, std::string("found unreadable text (") + e.what() +
                                                 "); expected " + std::string(expected_what));
  }
}

namespace {

// The earliest repeated key, as (line, column, key), over every map.
struct Repeat {
  int line = 0, column = 0;
  std::string key;
  bool found() const { return line > 0; }
  void consider(int l, int c, std::string k) {
    if (!found() || l < line || (l == line && c < column)) {
      line = l, column = c;
      key = std::move(k);
    }
  }
};

// Marks (1-based line, column) of a map's scalar keys, in order: the repeat of
// a key is the later one. Small maps compare pairwise, large ones hash.
template <class Keys>
void find_repeat(const Keys& keys, Repeat* r) {
  if (keys.size() <= 16) {
    for (size_t i = 1; i < keys.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (std::get<2>(keys[i]) == std::get<2>(keys[j])) {
          r->consider(std::get<0>(keys[i]), std::get<1>(keys[i]), std::string(std::get<2>(keys[i])));
          break;
        }
    return;
  }
  // An open-addressing set of key indices in one array (a node-based set
  // spent a tenth of a million-entry map's reading in malloc).
  size_t cap = 16;
  while (cap < 2 * keys.size()) cap *= 2;
  std::vector<std::uint32_t> slots(cap, 0);  // key index + 1; 0 = empty
  const size_t mask = cap - 1;
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::string_view name = std::get<2>(keys[k]);
    const size_t h = std::hash<std::string_view>{}(name);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      if (slots[i] == 0) {
        slots[i] = static_cast<std::uint32_t>(k + 1);
        break;
      }
      if (std::get<2>(keys[slots[i] - 1]) == name) {
        r->consider(std::get<0>(keys[k]), std::get<1>(keys[k]), std::string(name));
        break;
      }
    }
  }
}

void repeats_in_json(const json_tree::Tree& t, Repeat* r) {
  // The tree is flat: every map's keys are children of a map value, wherever it is.
  const std::uint32_t root = t.root();
  std::vector<std::uint32_t> todo = {root};
  std::vector<std::tuple<int, int, std::string_view>> keys;
  while (!todo.empty()) {
    const json_tree::Value& v = t.at(todo.back());
    todo.pop_back();
    if (v.kind == json_tree::Kind::kMap) {
      keys.clear();
      for (std::uint32_t k = 0; k + 1 < v.size; k += 2) {
        const json_tree::Value& key = t.at(t.child(v, k));
        keys.emplace_back(static_cast<int>(key.line), static_cast<int>(key.column), t.text(key));
        todo.push_back(t.child(v, k + 1));
      }
      find_repeat(keys, r);
    } else if (v.kind == json_tree::Kind::kList) {
      for (std::uint32_t k = 0; k < v.size; ++k) todo.push_back(t.child(v, k));
    }
  }
}

void repeats_in_yaml(const YAML::Node& root, Repeat* r) {
  // Aliases make the tree a graph: each map or list is visited once (by its mark).
  std::set<std::pair<int, int>> visited;
  std::vector<YAML::Node> todo = {root};
  std::vector<std::tuple<int, int, std::string>> keys;
  while (!todo.empty()) {
    const YAML::Node n = todo.back();
    todo.pop_back();
    if (!n.IsDefined() || !(n.IsMap() || n.IsSequence())) continue;
    if (!visited.insert({n.Mark().line, n.Mark().column}).second) continue;
    if (n.IsMap()) {
      keys.clear();
      for (const auto& kv : n) {
        if (kv.first.IsScalar())
          keys.emplace_back(kv.first.Mark().line + 1, kv.first.Mark().column + 1, kv.first.Scalar());
        todo.push_back(kv.second);
      }
      find_repeat(keys, r);
    } else {
      for (const auto& item : n) todo.push_back(item);
    }
  }
}

}  // namespace

Status check_unique_keys(const Tree& tree, const std::string& file) {
  Repeat r;
  if (tree.json_)
    repeats_in_json(*tree.json_, &r);
  else
    repeats_in_yaml(tree.yaml_, &r);
  if (!r.found()) return Status::ok();
  return Status::at(SourcePos{file, r.line, r.column},
                    "found key " + quote(r.key) + " a second time; expected each key once");
}

Status read_file_text(const std::string& path, std::string_view expected_what, std::string* out,
                      std::size_t max_bytes) {
  BRIGADE_ASSIGN_OR_RETURN(const InputFile file, open_input_file(path, expected_what));
  const int fd = file.fd();
  auto fail_errno = [&](int err) {
    return Status::error(path + ": error: found no readable file (" + std::strerror(err) +
                         "); expected " + std::string(expected_what));
  };
  const auto too_large = [&](const std::string& size) {
    return Status::error(path + ": error: found a file of " + size + " bytes; expected " +
                         std::string(expected_what) + " of at most " + std::to_string(max_bytes) +
                         " bytes (docs/scenario-format.md, \"Limits\")");
  };
  if (file.size_bytes() > max_bytes) return too_large(std::to_string(file.size_bytes()));
  out->clear();
  out->reserve(static_cast<size_t>(file.size_bytes()));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail_errno(errno);
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
    // A file that grows while it is read is held to the same limit.
    if (out->size() > max_bytes) return too_large("more than " + std::to_string(max_bytes));
  }
  return Status::ok();
}

// ---- Cursor -----------------------------------------------------------------

Cursor::Cursor(const Document* doc, const Tree& tree, std::string path, SourcePos fallback_pos)
    : doc_(doc),
      node_(tree.yaml_),
      path_{nullptr, std::move(path)},
      fallback_line_(fallback_pos.line),
      fallback_column_(fallback_pos.column) {
  if (tree.json_) json_ = Json{tree.json_.get(), tree.json_->root()};
}

Cursor::Cursor(const Document* doc, YAML::Node node, Json json, Path path, int fallback_line,
               int fallback_column, bool record)
    : doc_(doc),
      node_(std::move(node)),
      json_(json),
      record_(record),
      path_(std::move(path)),
      fallback_line_(fallback_line),
      fallback_column_(fallback_column) {}

Cursor Cursor::quiet() const {
  Cursor c = *this;
  c.record_ = false;
  return c;
}

Cursor::Shape Cursor::shape() const {
  if (json_.tree) {
    if (json_missing_) return Shape::kUndefined;
    switch (json_.tree->at(json_.index).kind) {
      case json_tree::Kind::kNull: return Shape::kNull;
      case json_tree::Kind::kScalar: return Shape::kScalar;
      case json_tree::Kind::kMap: return Shape::kMap;
      case json_tree::Kind::kList: return Shape::kList;
    }
    return Shape::kUndefined;
  }
  if (!node_.IsDefined()) return Shape::kUndefined;
  if (node_.IsNull()) return Shape::kNull;
  if (node_.IsScalar()) return Shape::kScalar;
  if (node_.IsMap()) return Shape::kMap;
  if (node_.IsSequence()) return Shape::kList;
  return Shape::kUndefined;
}

bool Cursor::defined() const { return shape() != Shape::kUndefined; }
bool Cursor::is_null() const {
  const Shape s = shape();
  return s == Shape::kUndefined || s == Shape::kNull;
}
bool Cursor::is_map() const { return shape() == Shape::kMap; }
bool Cursor::is_list() const { return shape() == Shape::kList; }
bool Cursor::is_scalar() const { return shape() == Shape::kScalar; }

std::string_view Cursor::scalar_view() const {
  return json_.tree->text(json_.tree->at(json_.index));
}

SourcePos Cursor::pos() const {
  const auto [line, column] = line_column();
  return SourcePos{doc_->file, line, column};
}

std::pair<int, int> Cursor::line_column() const {
  // An empty value (`key:`) is marked where the parser went on reading (the
  // next line); its key is the better place to point at.
  if (is_null() && fallback_line_ > 0) return {fallback_line_, fallback_column_};
  if (json_.tree && !json_missing_) {
    const json_tree::Value& v = json_.tree->at(json_.index);
    return {static_cast<int>(v.line), static_cast<int>(v.column)};
  }
  if (!json_.tree && node_.IsDefined()) {
    const YAML::Mark m = node_.Mark();
    if (m.line >= 0 && m.column >= 0) return {m.line + 1, m.column + 1};
  }
  return {fallback_line_, fallback_column_};
}

Status Cursor::error(const std::string& message) const {
  return Status::at(pos(), message);
}

std::string Cursor::text() const {
  return std::string(text_view());
}

std::string_view Cursor::text_view() const {
  if (!is_scalar()) return std::string_view();
  if (json_.tree) return scalar_view();
  return node_.Scalar();
}

std::string Cursor::found() const {
  if (is_null()) return "nothing";
  if (is_map()) return "a map";
  if (is_list()) return "a list";
  return quote(text());
}

std::string quote(const std::string& text) {
  // Messages are one line: escape line breaks and bytes that are not UTF-8,
  // and keep long text short.
  return quoted(text);
}

Status Cursor::expect_map(std::string_view what) const {
  if (is_map()) return Status::ok();
  return error("found " + found() + "; expected " + std::string(what));
}

Status Cursor::expect_list(std::string_view what) const {
  if (is_list()) return Status::ok();
  return error("found " + found() + "; expected " + std::string(what));
}

std::string Cursor::path() const {
  return path_.str();
}

Cursor::Path Cursor::child_path(std::string_view key) const {
  if (path_.empty()) return Path{nullptr, std::string(key)};
  // Short tails stay in place; a long one is moved into a shared base.
  if (path_.tail.size() + 1 + key.size() <= 15) {
    Path p = path_;
    p.tail.append(".").append(key);
    return p;
  }
  return Path{std::make_shared<const std::string>(path_.str() + "." + std::string(key)), ""};
}

Cursor::Path Cursor::item_path(const std::shared_ptr<const std::string>& list_path,
                               size_t i) const {
  return Path{list_path, "[" + std::to_string(i) + "]"};
}

void Cursor::record(const std::string& path, const SourcePos& pos) const {
  if (record_ && doc_->positions) (*doc_->positions)[path] = pos;
}

Cursor Cursor::yaml_child(YAML::Node node, Path path, const Cursor& parent_for_pos) const {
  // Line and column only: a SourcePos would copy the file's path per cursor.
  const auto [line, column] = parent_for_pos.line_column();
  return Cursor(doc_, std::move(node), Json{}, std::move(path), line, column, record_);
}

Cursor Cursor::json_child(std::uint32_t index, Path path, std::pair<int, int> fallback) const {
  return Cursor(doc_, YAML::Node(), Json{json_.tree, index}, std::move(path), fallback.first,
                fallback.second, record_);
}

std::pair<int, int> Cursor::json_key_line_column(std::uint32_t index) const {
  const json_tree::Value& k = json_.tree->at(index);
  return {static_cast<int>(k.line), static_cast<int>(k.column)};
}

Cursor Cursor::missing(Path path) const {
  const auto [line, column] = line_column();
  if (json_.tree) {
    Cursor c(doc_, YAML::Node(), json_, std::move(path), line, column, record_);
    c.json_missing_ = true;
    return c;
  }
  return Cursor(doc_, YAML::Node(YAML::NodeType::Undefined), Json{}, std::move(path), line, column,
                record_);
}

namespace {

std::vector<std::string> as_strings(std::initializer_list<std::string_view> names) {
  std::vector<std::string> v;
  for (std::string_view a : names) v.emplace_back(a);
  return v;
}

}  // namespace

Status Cursor::check_keys(std::initializer_list<std::string_view> allowed) const {
  if (!is_map()) return Status::ok();
  // Maps are small: a linear look at the allowed keys for each, the keys
  // seen as bits of their place in `allowed` (the vector overload takes
  // lists longer than 64), and no cursor or string is made unless there is
  // an error to report or a position to record.
  if (allowed.size() > 64) return check_keys(as_strings(allowed));
  std::uint64_t seen = 0;
  const bool record_keys = record_ && doc_->positions;
  auto check_one = [&](const auto& make_key, bool scalar, std::string_view name) -> Status {
    if (!scalar) {
      const Cursor key = make_key();
      return key.error("found " + key.found() + " as a key; expected one of " +
                       join_list(as_strings(allowed)));
    }
    std::size_t a = 0;
    for (std::string_view x : allowed) {
      if (x == name) break;
      ++a;
    }
    if (a == allowed.size())
      return check_keys(as_strings(allowed));  // the message, with "did you mean"
    if (seen & (std::uint64_t{1} << a))
      return make_key().error("found key " + quote(std::string(name)) +
                              " a second time; expected each key once");
    seen |= std::uint64_t{1} << a;
    if (record_keys) record(child_path(name).str(), make_key().pos());
    return Status::ok();
  };
  if (json_.tree) {
    const json_tree::Value& v = json_.tree->at(json_.index);
    for (std::uint32_t k = 0; k + 1 < v.size; k += 2) {
      const std::uint32_t ki = json_.tree->child(v, k);
      const json_tree::Value& kv = json_.tree->at(ki);
      const bool scalar = kv.kind == json_tree::Kind::kScalar;
      BRIGADE_RETURN_IF_ERROR(check_one([&] { return json_child(ki, path_, line_column()); },
                                        scalar,
                                        scalar ? json_.tree->text(kv) : std::string_view()));
    }
    return Status::ok();
  }
  for (const auto& kv : node_) {
    const bool scalar = kv.first.IsScalar();
    BRIGADE_RETURN_IF_ERROR(
        check_one([&] { return yaml_child(kv.first, path_, *this); }, scalar,
                  scalar ? std::string_view(kv.first.Scalar()) : std::string_view()));
  }
  return Status::ok();
}

Status Cursor::check_keys(const std::vector<std::string>& allowed) const {
  if (!is_map()) return Status::ok();
  std::vector<std::string> seen;
  auto check_one = [&](const Cursor& key) -> Status {
    if (!key.is_scalar())
      return key.error("found " + key.found() + " as a key; expected one of " + join_list(allowed));
    const std::string name = key.text();
    bool known = false;
    for (const std::string& a : allowed) known = known || a == name;
    if (!known) {
      std::string msg = "found key " + quote(name) + "; expected one of " + join_list(allowed);
      if (auto m = closest_match_in(name, allowed)) msg += " (did you mean '" + *m + "'?)";
      return key.error(msg);
    }
    for (const std::string& x : seen)
      if (x == name)
        return key.error("found key " + quote(name) + " a second time; expected each key once");
    seen.push_back(name);
    if (record_ && doc_->positions) record(child_path(name).str(), key.pos());
    return Status::ok();
  };
  if (json_.tree) {
    const json_tree::Value& v = json_.tree->at(json_.index);
    for (std::uint32_t k = 0; k + 1 < v.size; k += 2)
      BRIGADE_RETURN_IF_ERROR(check_one(json_child(json_.tree->child(v, k), path_, line_column())));
    return Status::ok();
  }
  for (const auto& kv : node_) BRIGADE_RETURN_IF_ERROR(check_one(yaml_child(kv.first, path_, *this)));
  return Status::ok();
}

bool Cursor::has(std::string_view key) const {
  if (!is_map()) return false;
  if (json_.tree) {
    const json_tree::Value& v = json_.tree->at(json_.index);
    for (std::uint32_t k = 0; k + 1 < v.size; k += 2) {
      const json_tree::Value& kv = json_.tree->at(json_.tree->child(v, k));
      if (kv.kind == json_tree::Kind::kScalar && json_.tree->text(kv) == key) return true;
    }
    return false;
  }
  for (const auto& kv : node_)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) return true;
  return false;
}

Cursor Cursor::get(std::string_view key) const {
  if (is_map()) {
    if (json_.tree) {
      const json_tree::Value& v = json_.tree->at(json_.index);
      for (std::uint32_t k = 0; k + 1 < v.size; k += 2) {
        const std::uint32_t ki = json_.tree->child(v, k);
        const json_tree::Value& kv = json_.tree->at(ki);
        if (kv.kind == json_tree::Kind::kScalar && json_.tree->text(kv) == key)
          return json_child(ki + 1, child_path(key), json_key_line_column(ki));
      }
    } else {
      for (const auto& kv : node_) {
        if (kv.first.IsScalar() && kv.first.Scalar() == key)
          return yaml_child(kv.second, child_path(key), yaml_child(kv.first, path_, *this));
      }
    }
  }
  return missing(child_path(key));
}

Cursor Cursor::key_of(std::string_view key) const {
  if (is_map()) {
    if (json_.tree) {
      const json_tree::Value& v = json_.tree->at(json_.index);
      for (std::uint32_t k = 0; k + 1 < v.size; k += 2) {
        const std::uint32_t ki = json_.tree->child(v, k);
        const json_tree::Value& kv = json_.tree->at(ki);
        if (kv.kind == json_tree::Kind::kScalar && json_.tree->text(kv) == key)
          return json_child(ki, child_path(key), line_column());
      }
    } else {
      for (const auto& kv : node_)
        if (kv.first.IsScalar() && kv.first.Scalar() == key)
          return yaml_child(kv.first, child_path(key), *this);
    }
  }
  return missing(child_path(key));
}

Status Cursor::for_each_entry(
    const std::function<Status(const Cursor& key, const Cursor& value)>& f) const {
  if (!is_map()) return Status::ok();
  const bool record_keys = record_ && doc_->positions;
  if (json_.tree) {
    const json_tree::Value& v = json_.tree->at(json_.index);
    for (std::uint32_t k = 0; k + 1 < v.size; k += 2) {
      const std::uint32_t ki = json_.tree->child(v, k);
      const json_tree::Value& kv = json_.tree->at(ki);
      const Cursor key = json_child(
          ki, child_path(kv.kind == json_tree::Kind::kScalar ? json_.tree->text(kv) : "?"),
          line_column());
      const Cursor value = json_child(ki + 1, key.path_, key.line_column());
      if (kv.kind == json_tree::Kind::kScalar && record_keys) record(key.path(), key.pos());
      BRIGADE_RETURN_IF_ERROR(f(key, value));
    }
    return Status::ok();
  }
  for (const auto& kv : node_) {
    const Cursor key =
        yaml_child(kv.first, child_path(kv.first.IsScalar() ? kv.first.Scalar() : "?"), *this);
    const Cursor value = yaml_child(kv.second, key.path_, key);
    if (kv.first.IsScalar() && record_keys) record(key.path(), key.pos());
    BRIGADE_RETURN_IF_ERROR(f(key, value));
  }
  return Status::ok();
}

std::vector<std::optional<std::string_view>> Cursor::key_texts() const {
  std::vector<std::optional<std::string_view>> out;
  if (!is_map()) return out;
  out.reserve(size());
  if (json_.tree) {
    const json_tree::Value& v = json_.tree->at(json_.index);
    for (std::uint32_t k = 0; k + 1 < v.size; k += 2) {
      const json_tree::Value& kv = json_.tree->at(json_.tree->child(v, k));
      if (kv.kind == json_tree::Kind::kScalar)
        out.emplace_back(json_.tree->text(kv));
      else
        out.emplace_back();
    }
    return out;
  }
  for (const auto& kv : node_) {
    if (kv.first.IsScalar())
      out.emplace_back(std::string_view(kv.first.Scalar()));
    else
      out.emplace_back();
  }
  return out;
}

std::vector<std::pair<Cursor, Cursor>> Cursor::entries() const {
  std::vector<std::pair<Cursor, Cursor>> out;
  out.reserve(size());
  (void)for_each_entry([&](const Cursor& k, const Cursor& v) {
    out.emplace_back(k, v);
    return Status::ok();
  });
  return out;
}

Status Cursor::for_each_item(
    const std::function<Status(std::size_t i, const Cursor& item)>& f) const {
  if (!is_list()) return Status::ok();
  const bool record_items = record_ && doc_->positions;
  const auto list_path = std::make_shared<const std::string>(path_.str());
  if (json_.tree) {
    const json_tree::Value& v = json_.tree->at(json_.index);
    for (std::uint32_t k = 0; k < v.size; ++k) {
      const Cursor c = json_child(json_.tree->child(v, k), item_path(list_path, k), line_column());
      if (record_items) record(c.path(), c.pos());
      BRIGADE_RETURN_IF_ERROR(f(k, c));
    }
    return Status::ok();
  }
  std::size_t i = 0;
  for (const auto& item : node_) {
    const Cursor c = yaml_child(item, item_path(list_path, i), *this);
    if (record_items) record(c.path(), c.pos());
    BRIGADE_RETURN_IF_ERROR(f(i, c));
    ++i;
  }
  return Status::ok();
}

std::vector<Cursor> Cursor::items() const {
  std::vector<Cursor> out;
  out.reserve(size());
  (void)for_each_item([&](std::size_t, const Cursor& c) {
    out.push_back(c);
    return Status::ok();
  });
  return out;
}

std::size_t Cursor::size() const {
  const Shape s = shape();
  if (s != Shape::kMap && s != Shape::kList) return 0;
  if (json_.tree) {
    const std::size_t n = json_.tree->at(json_.index).size;
    return s == Shape::kMap ? n / 2 : n;
  }
  return node_.size();
}

namespace {

// 1e-06 -> "1e-6", 1e+06 -> "1e6", 0.5 -> "0.5", for ranges in messages.
std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  std::string s = buf;
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
  const bool negative = exponent[0] == '-';
  size_t i = (exponent[0] == '-' || exponent[0] == '+') ? 1 : 0;
  while (i + 1 < exponent.size() && exponent[i] == '0') ++i;
  return mantissa + "e" + (negative ? "-" : "") + exponent.substr(i);
}

std::string int_range_text(std::int64_t min, std::int64_t max) {
  // Bounds at the int32 limits are representation limits, not worth saying.
  constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (min < kMin) min = kMin;
  if (max > kMax) max = kMax;
  if (min != kMin && max != kMax)
    return "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (min != kMin) return "an integer >= " + std::to_string(min);
  if (max != kMax) return "an integer <= " + std::to_string(max);
  return "an integer";
}

std::string bounded(std::string_view hint, Bound bound) {
  // hints read "a duration such as ..."; "a positive duration such as ...".
  std::string h(hint);
  if (bound == Bound::kAny || h.rfind("a ", 0) != 0) return h;
  return std::string(bound == Bound::kPositive ? "a positive " : "a non-negative ") + h.substr(2);
}

bool within(double v, Bound bound) {
  switch (bound) {
    case Bound::kAny:
      return true;
    case Bound::kNonNegative:
      return v >= 0;
    case Bound::kPositive:
      return v > 0;
  }
  return true;
}

}  // namespace

// The scalar readers make their messages only when there is an error: they
// run once per value of a million-op graph (issue 20, item 3).
Result<std::int64_t> Cursor::as_int(std::int64_t min, std::int64_t max) const {
  const auto fail = [&] {
    return error("found " + found() + "; expected " + int_range_text(min, max));
  };
  if (!is_scalar()) return fail();
  const std::string_view t = text_view();
  std::int64_t v = 0;
  const char* b = t.data();
  const char* e = t.data() + t.size();
  auto [ptr, ec] = std::from_chars(b, e, v);
  // Above the largest value, say the range whole ("an integer >= 1" would
  // not say what is wrong with 9223372036854775807).
  const bool too_large = (ec == std::errc::result_out_of_range && ptr == e && t[0] != '-') ||
                         (ec == std::errc() && ptr == e && v > max);
  if (too_large)
    return error("found " + found() + "; expected an integer from " + std::to_string(min) +
                 " to " + std::to_string(max));
  if (ec != std::errc() || ptr != e || t.empty()) return fail();
  if (v < min) return fail();
  return v;
}

Result<double> Cursor::as_number(Bound bound) const {
  const auto fail = [&] {
    return error("found " + found() + "; expected " + bounded("a number", bound));
  };
  if (!is_scalar()) return fail();
  const std::string t = text();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || !within(v, bound))
    return fail();
  return v;
}

Result<double> Cursor::as_number_in(double lo, double hi, std::string_view noun) const {
  auto v = as_number();
  if (v.is_ok() && *v >= lo && *v <= hi) return *v;
  return error("found " + found() + "; expected " + std::string(noun) + " from " + short_number(lo) +
               " to " + short_number(hi));
}

Result<double> Cursor::as_quantity(Dimension dim, Bound bound) const {
  const auto fail = [&] {
    return error("found " + found() + "; expected " + bounded(dimension_hint(dim), bound));
  };
  if (!is_scalar()) return fail();
  double v = 0;
  const QuantityFault fault = check_quantity(text_view(), dim, &v);
  if (fault == QuantityFault::kRange)
    return error("found " + found() + "; expected " +
                 bounded(quantity_range_hint(dim), bound == Bound::kPositive ? Bound::kPositive
                                                                             : Bound::kAny));
  if (fault != QuantityFault::kNone || !within(v, bound)) return fail();
  return v;
}

Result<bool> Cursor::as_bool() const {
  if (is_scalar()) {
    const std::string t = text();
    if (t == "true" || t == "True" || t == "TRUE") return true;
    if (t == "false" || t == "False" || t == "FALSE") return false;
  }
  return error("found " + found() + "; expected true or false");
}

Result<std::string> Cursor::as_string() const {
  if (!is_scalar()) return error("found " + found() + "; expected a string");
  std::string t = text();
  if (const std::string bad = bad_text(t, true); !bad.empty())
    return error("found " + bad + "; expected UTF-8 text without control characters (tab and "
                 "line breaks aside)");
  return t;
}

Result<std::string> Cursor::as_name() const {
  BRIGADE_RETURN_IF_ERROR(check_name());
  return text();
}

bool is_clean_name(std::string_view text) {
  if (text.empty()) return false;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) return false;
  }
  return utf8_error_offset(text) == std::string_view::npos;
}

std::pair<const json_tree::Tree*, std::uint32_t> Cursor::json_value() const {
  if (!json_.tree || json_missing_) return {nullptr, 0};
  return {json_.tree, json_.index};
}

const std::string& Cursor::file() const { return doc_->file; }

Status Cursor::check_name() const {
  const std::string_view t = text_view();
  if (is_scalar() && is_clean_name(t)) return Status::ok();
  bool one_line = is_scalar() && !t.empty();
  for (char ch : t) one_line = one_line && static_cast<unsigned char>(ch) >= 0x20;
  if (!one_line) return error("found " + found() + "; expected a name on one line");
  if (const std::string bad = bad_text(t, false); !bad.empty())
    return error("found " + bad + "; expected a name in UTF-8 without control characters");
  return Status::ok();
}

Status Cursor::enum_error(const std::vector<std::string>& names) const {
  std::string msg = "found " + found() + "; expected one of " + join_list(names);
  if (is_scalar())
    if (auto m = closest_match_in(text(), names)) msg += " (did you mean '" + *m + "'?)";
  return error(msg);
}

Result<std::int64_t> Cursor::get_int(std::string_view key, std::int64_t dflt, std::int64_t min,
                                     std::int64_t max) const {
  if (!has(key)) return dflt;
  return get(key).as_int(min, max);
}

Result<double> Cursor::get_number(std::string_view key, double dflt, Bound bound) const {
  if (!has(key)) return dflt;
  return get(key).as_number(bound);
}

Result<double> Cursor::get_quantity(std::string_view key, double dflt, Dimension dim,
                                    Bound bound) const {
  if (!has(key)) return dflt;
  return get(key).as_quantity(dim, bound);
}

Result<bool> Cursor::get_bool(std::string_view key, bool dflt) const {
  if (!has(key)) return dflt;
  return get(key).as_bool();
}

Result<std::string> Cursor::get_string(std::string_view key, std::string dflt) const {
  if (!has(key)) return dflt;
  return get(key).as_string();
}

Result<std::string> Cursor::get_name(std::string_view key, std::string dflt) const {
  if (!has(key)) return dflt;
  return get(key).as_name();
}

Status Cursor::require(std::string_view key, std::string_view what) const {
  if (has(key)) return Status::ok();
  const std::string where = path_.empty() ? " key" : " in '" + path_.str() + "'";
  return error("found no '" + std::string(key) + "'" + where + "; expected " + std::string(what));
}

}  // namespace brigade::yamlio
