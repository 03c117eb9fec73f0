#include "core/json_tree.hpp"

#include <algorithm>
#include <cstring>

#include "core/huge_pages.hpp"

namespace brigade::json_tree {
namespace {

class Parser {
 public:
  // `stack_values`: room for this many values on the stack of children (the
  // longest list's or map's), reserved once rather than grown by doubling.
  Parser(std::string_view in, std::vector<Value>* values, std::string* text, int max_depth,
         size_t stack_values)
      : in_(in), values_(values), text_(text), max_depth_(max_depth) {
    stack_.reserve(stack_values);
    advise_huge_pages(stack_.data(), stack_.capacity() * sizeof(Value));
  }

  bool run(std::uint32_t* root, Tree::Error* error) {
    skip_space();
    Value v;
    if (!value(&v, 0)) return fail_out(error);
    skip_space();
    if (i_ != in_.size()) {
      fail("found text after the JSON value");
      return fail_out(error);
    }
    values_->push_back(v);
    *root = static_cast<std::uint32_t>(values_->size() - 1);
    return true;
  }

 private:
  bool fail_out(Tree::Error* error) {
    *error = error_;
    return false;
  }

  bool fail(const char* what) {
    if (error_.what.empty()) {
      error_.line = line_;
      error_.column = column();
      error_.what = what;
    }
    return false;
  }

  // 1-based column in characters: UTF-8 continuation bytes do not count.
  std::uint32_t column() const {
    std::uint32_t c = 1;
    for (size_t k = line_start_; k < i_ && k < in_.size(); ++k)
      if ((static_cast<unsigned char>(in_[k]) & 0xC0) != 0x80) ++c;
    return c;
  }

  void skip_space() {
    while (i_ < in_.size()) {
      const char c = in_[i_];
      if (c == '\n') {
        ++i_;
        ++line_;
        line_start_ = i_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else {
        break;
      }
    }
  }

  void mark(Value* v) {
    v->line = line_;
    v->column = column_fast();
  }

  // column() for the position being parsed, cached along a line so that a
  // long line costs linear time in all.
  std::uint32_t column_fast() {
    if (cached_line_start_ != line_start_ || cached_at_ > i_) {
      cached_line_start_ = line_start_;
      cached_at_ = line_start_;
      cached_column_ = 1;
    }
    for (; cached_at_ < i_; ++cached_at_)
      if ((static_cast<unsigned char>(in_[cached_at_]) & 0xC0) != 0x80) ++cached_column_;
    return cached_column_;
  }

  bool value(Value* v, int depth) {
    if (i_ >= in_.size()) return fail("found the end of the text where a value belongs");
    mark(v);
    const char c = in_[i_];
    if (c == '{' || c == '[') {
      if (depth >= max_depth_) return fail("found values nested too deeply");
      return c == '{' ? object(v, depth) : array(v, depth);
    }
    if (c == '"') {
      v->kind = Kind::kScalar;
      return string(v);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(v);
    for (const char* word : {"true", "false", "null"}) {
      const size_t n = std::strlen(word);
      if (in_.substr(i_, n) == word) {
        i_ += n;
        if (word[0] == 'n') {
          v->kind = Kind::kNull;
          return true;
        }
        v->kind = Kind::kScalar;
        v->begin = static_cast<std::uint32_t>(text_->size());
        v->size = static_cast<std::uint32_t>(n);
        text_->append(word);
        return true;
      }
    }
    return fail("found a character that starts no JSON value");
  }

  // Children are collected on a stack while the container is read, then
  // moved to values_ in one block, so that each container's children are
  // contiguous.
  bool object(Value* v, int depth) {
    v->kind = Kind::kMap;
    ++i_;
    const size_t base = stack_.size();
    skip_space();
    if (i_ < in_.size() && in_[i_] == '}') {
      ++i_;
      return close(v, base);
    }
    while (true) {
      skip_space();
      if (i_ >= in_.size() || in_[i_] != '"') return fail("found a key that is not a string");
      Value key;
      mark(&key);
      key.kind = Kind::kScalar;
      if (!string(&key)) return false;
      stack_.push_back(key);
      skip_space();
      if (i_ >= in_.size() || in_[i_] != ':') return fail("found no ':' after a key");
      ++i_;
      skip_space();
      Value val;
      if (!value(&val, depth + 1)) return false;
      stack_.push_back(val);
      skip_space();
      if (i_ < in_.size() && in_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < in_.size() && in_[i_] == '}') {
        ++i_;
        return close(v, base);
      }
      return fail("found no ',' or '}' after a value in an object");
    }
  }

  bool array(Value* v, int depth) {
    v->kind = Kind::kList;
    ++i_;
    const size_t base = stack_.size();
    skip_space();
    if (i_ < in_.size() && in_[i_] == ']') {
      ++i_;
      return close(v, base);
    }
    while (true) {
      skip_space();
      Value item;
      if (!value(&item, depth + 1)) return false;
      stack_.push_back(item);
      skip_space();
      if (i_ < in_.size() && in_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < in_.size() && in_[i_] == ']') {
        ++i_;
        return close(v, base);
      }
      return fail("found no ',' or ']' after a value in an array");
    }
  }

  bool close(Value* v, size_t base) {
    const size_t n = stack_.size() - base;
    if (values_->size() + n >= 0xFFFFFFF0u) return fail("found more values than a tree holds");
    v->begin = static_cast<std::uint32_t>(values_->size());
    v->size = static_cast<std::uint32_t>(n);
    values_->insert(values_->end(), stack_.begin() + static_cast<std::ptrdiff_t>(base),
                    stack_.end());
    stack_.resize(base);
    return true;
  }

  bool number(Value* v) {
    const size_t start = i_;
    if (in_[i_] == '-') ++i_;
    auto digits = [&] {
      const size_t from = i_;
      while (i_ < in_.size() && in_[i_] >= '0' && in_[i_] <= '9') ++i_;
      return i_ > from;
    };
    if (i_ < in_.size() && in_[i_] == '0') {
      ++i_;
    } else if (!digits()) {
      return fail("found a malformed number");
    }
    if (i_ < in_.size() && in_[i_] == '.') {
      ++i_;
      if (!digits()) return fail("found a malformed number");
    }
    if (i_ < in_.size() && (in_[i_] == 'e' || in_[i_] == 'E')) {
      ++i_;
      if (i_ < in_.size() && (in_[i_] == '+' || in_[i_] == '-')) ++i_;
      if (!digits()) return fail("found a malformed number");
    }
    v->kind = Kind::kScalar;
    v->begin = static_cast<std::uint32_t>(text_->size());
    v->size = static_cast<std::uint32_t>(i_ - start);
    text_->append(in_.substr(start, i_ - start));
    return true;
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool hex4(std::uint32_t* out) {
    if (i_ + 4 > in_.size()) return fail("found a malformed \\u escape");
    std::uint32_t x = 0;
    for (int k = 0; k < 4; ++k) {
      const int h = hex(in_[i_ + static_cast<size_t>(k)]);
      if (h < 0) return fail("found a malformed \\u escape");
      x = x * 16 + static_cast<std::uint32_t>(h);
    }
    i_ += 4;
    *out = x;
    return true;
  }

  void append_utf8(std::uint32_t cp) {
    if (cp < 0x80) {
      text_->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      text_->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      text_->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      text_->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      text_->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      text_->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      text_->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      text_->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      text_->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      text_->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // A string; the caller has marked the opening quote. Raw bytes are copied
  // as they are (the text was checked to be UTF-8 before parsing); control
  // characters must be escaped (RFC 8259, section 7).
  bool string(Value* v) {
    ++i_;  // the quote
    v->begin = static_cast<std::uint32_t>(text_->size());
    while (true) {
      const size_t run = i_;
      while (i_ < in_.size() && in_[i_] != '"' && in_[i_] != '\\' &&
             static_cast<unsigned char>(in_[i_]) >= 0x20)
        ++i_;
      text_->append(in_.substr(run, i_ - run));
      if (i_ >= in_.size()) return fail("found the end of the text inside a string");
      const char c = in_[i_];
      if (c == '"') {
        ++i_;
        break;
      }
      if (c != '\\') return fail("found a control character inside a string");
      ++i_;
      if (i_ >= in_.size()) return fail("found the end of the text inside a string");
      const char e = in_[i_++];
      switch (e) {
        case '"': text_->push_back('"'); break;
        case '\\': text_->push_back('\\'); break;
        case '/': text_->push_back('/'); break;
        case 'b': text_->push_back('\b'); break;
        case 'f': text_->push_back('\f'); break;
        case 'n': text_->push_back('\n'); break;
        case 'r': text_->push_back('\r'); break;
        case 't': text_->push_back('\t'); break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(&cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("found a lone low surrogate escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            std::uint32_t low = 0;
            if (in_.substr(i_, 2) != "\\u") return fail("found a lone high surrogate escape");
            i_ += 2;
            if (!hex4(&low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return fail("found a lone high surrogate escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(cp);
          break;
        }
        default:
          return fail("found an unknown escape in a string");
      }
    }
    const size_t n = text_->size() - v->begin;
    if (n > 0xFFFFFFFFu) return fail("found a string longer than 4 GiB");
    v->size = static_cast<std::uint32_t>(n);
    return true;
  }

  std::string_view in_;
  std::vector<Value>* values_;
  std::string* text_;
  int max_depth_;
  std::vector<Value> stack_;
  size_t i_ = 0;
  std::uint32_t line_ = 1;
  size_t line_start_ = 0;
  size_t cached_line_start_ = static_cast<size_t>(-1);
  size_t cached_at_ = 0;
  std::uint32_t cached_column_ = 1;
  Tree::Error error_;
};

}  // namespace

bool Tree::parse(std::string_view text, Error* error, int max_depth) {
  values_.clear();
  text_.clear();
  // Room for the whole tree at once: growing by doubling copied it and
  // faulted in fresh pages at each step, half the page faults of reading a
  // million-op graph (issue 20, item 3). Reserved pages cost nothing until
  // written. Every value but the root follows one of [ { , : (an overcount
  // when they appear in strings), and a valid text spends at least two
  // bytes per value; scalars' text is never longer than the input.
  // (Only for a text that starts as a container: YAML is tried as JSON first.)
  if (text.size() >= (size_t{1} << 30)) {
    *error = Error{1, 1, "found a text of 1 GiB or more"};
    return false;
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  size_t bound = 0;
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
    bound = 1;
    for (const char c : text) bound += (c == ',') | (c == ':') | (c == '[') | (c == '{');
    bound = std::min(bound, text.size() / 2 + 2);
    values_.reserve(bound);
    text_.reserve(text.size());
    advise_huge_pages(values_.data(), values_.capacity() * sizeof(Value));
    advise_huge_pages(text_.data(), text_.capacity());
  }
  // The stack holds at most every value but the root; reserved pages that
  // are never written cost nothing.
  Parser p(text, &values_, &text_, max_depth, bound);
  return p.run(&root_, error);
}

}  // namespace brigade::json_tree
