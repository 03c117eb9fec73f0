#include "core/yaml_reader.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

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

Result<YAML::Node> read_yaml_text(const std::string& text, const std::string& file,
                                  std::string_view expected_what) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    SourcePos pos{file, e.mark.line >= 0 ? e.mark.line + 1 : 0,
                  e.mark.column >= 0 ? e.mark.column + 1 : 0};
    return Status::at(
        pos, "found malformed YAML (" + e.msg + "); expected " + std::string(expected_what));
  } catch (const std::exception& e) {
    return Status::at(SourcePos{file, 0, 0}, std::string("found unreadable text (") + e.what() +
                                                 "); expected " + std::string(expected_what));
  }
}

Status read_file_text(const std::string& path, std::string_view expected_what, std::string* out) {
  auto fail = [&](int err) {
    return Status::error(path + ": error: found no readable file (" + std::strerror(err) +
                         "); expected " + std::string(expected_what));
  };
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return fail(errno != 0 ? errno : ENOENT);
  out->clear();
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool bad = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (bad) return fail(err != 0 ? err : EIO);
  return Status::ok();
}

Cursor::Cursor(const Document* doc, YAML::Node node, std::string path, SourcePos fallback_pos)
    : doc_(doc),
      node_(std::move(node)),
      path_(std::move(path)),
      fallback_pos_(std::move(fallback_pos)) {}

SourcePos Cursor::pos() const {
  // An empty value (`key:`) is marked where the parser went on reading (the
  // next line); its key is the better place to point at.
  if (is_null() && fallback_pos_.line > 0) return fallback_pos_;
  if (node_.IsDefined()) {
    const YAML::Mark m = node_.Mark();
    if (m.line >= 0 && m.column >= 0) return SourcePos{doc_->file, m.line + 1, m.column + 1};
  }
  if (fallback_pos_.file.empty())
    return SourcePos{doc_->file, fallback_pos_.line, fallback_pos_.column};
  return fallback_pos_;
}

Status Cursor::error(const std::string& message) const {
  return Status::at(pos(), message);
}

std::string Cursor::text() const {
  return is_scalar() ? node_.Scalar() : std::string();
}

std::string Cursor::found() const {
  if (is_null()) return "nothing";
  if (is_map()) return "a map";
  if (is_list()) return "a list";
  return quote(node_.Scalar());
}

std::string quote(const std::string& text) {
  // Messages are one line: escape line breaks, and keep long text short.
  constexpr size_t kMax = 60;
  std::string out;
  for (char ch : text.substr(0, kMax)) {
    if (ch == '\n')
      out += "\\n";
    else if (ch == '\r')
      out += "\\r";
    else if (ch == '\t')
      out += "\\t";
    else
      out += ch;
  }
  if (text.size() > kMax) out += "...";
  return "'" + out + "'";
}

Status Cursor::expect_map(std::string_view what) const {
  if (is_map()) return Status::ok();
  return error("found " + found() + "; expected " + std::string(what));
}

Status Cursor::expect_list(std::string_view what) const {
  if (is_list()) return Status::ok();
  return error("found " + found() + "; expected " + std::string(what));
}

std::string Cursor::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Status Cursor::check_keys(std::initializer_list<std::string_view> allowed) const {
  std::vector<std::string> v;
  for (std::string_view a : allowed) v.emplace_back(a);
  return check_keys(v);
}

Status Cursor::check_keys(const std::vector<std::string>& allowed) const {
  if (!is_map()) return Status::ok();
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    Cursor key(doc_, kv.first, path_, pos());
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
    if (!seen.insert(name).second)
      return key.error("found key " + quote(name) + " a second time; expected each key once");
    if (doc_->positions) (*doc_->positions)[child_path(name)] = key.pos();
  }
  return Status::ok();
}

bool Cursor::has(std::string_view key) const {
  if (!is_map()) return false;
  for (const auto& kv : node_)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) return true;
  return false;
}

Cursor Cursor::get(std::string_view key) const {
  if (is_map()) {
    for (const auto& kv : node_) {
      if (kv.first.IsScalar() && kv.first.Scalar() == key) {
        const Cursor k(doc_, kv.first, path_, pos());
        return Cursor(doc_, kv.second, child_path(key), k.pos());
      }
    }
  }
  return Cursor(doc_, YAML::Node(YAML::NodeType::Undefined), child_path(key), pos());
}

Cursor Cursor::key_of(std::string_view key) const {
  if (is_map()) {
    for (const auto& kv : node_)
      if (kv.first.IsScalar() && kv.first.Scalar() == key)
        return Cursor(doc_, kv.first, child_path(key), pos());
  }
  return Cursor(doc_, YAML::Node(YAML::NodeType::Undefined), child_path(key), pos());
}

std::vector<std::pair<Cursor, Cursor>> Cursor::entries() const {
  std::vector<std::pair<Cursor, Cursor>> out;
  if (!is_map()) return out;
  for (const auto& kv : node_) {
    Cursor k(doc_, kv.first, child_path(kv.first.IsScalar() ? kv.first.Scalar() : "?"), pos());
    Cursor v(doc_, kv.second, k.path(), k.pos());
    if (doc_->positions && kv.first.IsScalar()) (*doc_->positions)[k.path()] = k.pos();
    out.emplace_back(std::move(k), std::move(v));
  }
  return out;
}

std::vector<Cursor> Cursor::items() const {
  std::vector<Cursor> out;
  if (!is_list()) return out;
  size_t i = 0;
  for (const auto& item : node_) {
    Cursor c(doc_, item, path_ + "[" + std::to_string(i) + "]", pos());
    if (doc_->positions) (*doc_->positions)[c.path()] = c.pos();
    out.push_back(std::move(c));
    ++i;
  }
  return out;
}

namespace {

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

Result<std::int64_t> Cursor::as_int(std::int64_t min, std::int64_t max) const {
  const std::string expected = int_range_text(min, max);
  if (!is_scalar()) return error("found " + found() + "; expected " + expected);
  const std::string t = text();
  std::int64_t v = 0;
  const char* b = t.data();
  const char* e = t.data() + t.size();
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e || t.empty())
    return error("found " + found() + "; expected " + expected);
  if (v < min || v > max) return error("found " + found() + "; expected " + expected);
  return v;
}

Result<double> Cursor::as_number(Bound bound) const {
  const std::string expected = bounded("a number", bound);
  if (!is_scalar()) return error("found " + found() + "; expected " + expected);
  const std::string t = text();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || !within(v, bound))
    return error("found " + found() + "; expected " + expected);
  return v;
}

Result<double> Cursor::as_quantity(Dimension dim, Bound bound) const {
  const std::string expected = bounded(dimension_hint(dim), bound);
  if (!is_scalar()) return error("found " + found() + "; expected " + expected);
  auto q = parse_quantity(text(), dim);
  if (!q.is_ok() || !within(*q, bound)) return error("found " + found() + "; expected " + expected);
  return *q;
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
  return text();
}

Result<std::string> Cursor::as_name() const {
  const std::string t = text();
  bool one_line = is_scalar() && !t.empty();
  for (char ch : t) one_line = one_line && static_cast<unsigned char>(ch) >= 0x20;
  if (!one_line) return error("found " + found() + "; expected a name on one line");
  return t;
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

Status Cursor::require(std::string_view key, std::string_view what) const {
  if (has(key)) return Status::ok();
  const std::string where = path_.empty() ? " key" : " in '" + path_ + "'";
  return error("found no '" + std::string(key) + "'" + where + "; expected " + std::string(what));
}

}  // namespace brigade::yamlio
