// Errors as values. Every library returns Status or Result<T> across its
// public boundary; exceptions, where a library uses them inside, never leave
// it. A message is the whole user-facing line, e.g.
//   "scenarios/x.yaml:3:9: error: found 'fastest'; expected one of ring, tree"
// and tests assert it exactly.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace brigade {

// A file's name as messages print it, held once per distinct name: every op
// and tensor of a graph read from one file carries its position, and a
// million copies of a path longer than a short string's inline room (15
// characters in libstdc++) were a million heap blocks (issue 20, item 3).
// Two FileNames of one text hold the same pointer. Names are never freed
// (a process reads few files). Thread-safe.
class FileName {
 public:
  FileName() : s_(&empty_name()) {}
  FileName(std::string_view name);  // NOLINT: converts implicitly, as the string it replaced
  FileName(const std::string& name) : FileName(std::string_view(name)) {}  // NOLINT
  FileName(const char* name) : FileName(std::string_view(name)) {}        // NOLINT

  const std::string& str() const { return *s_; }
  operator const std::string&() const { return *s_; }  // NOLINT
  bool empty() const { return s_->empty(); }
  size_t size() const { return s_->size(); }
  const char* c_str() const { return s_->c_str(); }

  friend bool operator==(const FileName& a, const FileName& b) { return a.s_ == b.s_; }
  friend bool operator!=(const FileName& a, const FileName& b) { return a.s_ != b.s_; }
  friend std::ostream& operator<<(std::ostream& os, const FileName& f);

 private:
  static const std::string& empty_name();
  const std::string* s_;
};

// Where in an input a value came from (1-based line and column; 0 = unknown).
struct SourcePos {
  FileName file;
  int line = 0;
  int column = 0;

  // "file:line:col" (or "file" when the line is unknown).
  std::string str() const;
};

// Why an operation failed. `kBadInput` maps to exit code 2 at the command line.
// `kCancelled`: the caller's cancellation flag (RunOptions::cancel,
// sim::SimOptions::cancel, planner::LowerOptions::cancel) was set; the work
// stopped early and returned nothing (the CLI exits 1).
enum class ErrorKind { kBadInput, kUnsupported, kRuntime, kInternal, kCancelled };

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  static Status ok() { return Status(); }
  static Status error(std::string message, ErrorKind kind = ErrorKind::kBadInput) {
    Status s;
    s.failed_ = true;
    s.kind_ = kind;
    s.message_ = std::move(message);
    return s;
  }
  // "FILE:LINE:COL: error: MESSAGE"
  static Status at(const SourcePos& pos, const std::string& message,
                   ErrorKind kind = ErrorKind::kBadInput);

  bool is_ok() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string& message() const { return message_; }
  ErrorKind kind() const { return kind_; }

 private:
  bool failed_ = false;
  ErrorKind kind_ = ErrorKind::kBadInput;
  std::string message_;
};

// The cancellation flags of RunOptions, SimOptions and LowerOptions: true
// once the caller has asked the work to stop (a null flag never does).
inline bool cancel_requested(const std::atomic<bool>* flag) {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}
// What cancelled work returns: "cancelled", ErrorKind::kCancelled.
inline Status cancelled_status() { return Status::error("cancelled", ErrorKind::kCancelled); }

// A value or the Status saying why there is none.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).is_ok()); }

  bool is_ok() const { return v_.index() == 0; }
  explicit operator bool() const { return is_ok(); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Status& status() const { return std::get<Status>(v_); }
  const std::string& message() const { return status().message(); }

 private:
  std::variant<T, Status> v_;
};

// Return early from a function returning Status or Result<T>.
#define BRIGADE_RETURN_IF_ERROR(expr)         \
  do {                                        \
    ::brigade::Status _st = (expr);           \
    if (!_st.is_ok()) return _st;             \
  } while (0)

#define BRIGADE_CONCAT_INNER(a, b) a##b
#define BRIGADE_CONCAT(a, b) BRIGADE_CONCAT_INNER(a, b)
// BRIGADE_ASSIGN_OR_RETURN(auto x, make_x()); returns the Status on error.
#define BRIGADE_ASSIGN_OR_RETURN(lhs, expr) \
  BRIGADE_ASSIGN_OR_RETURN_IMPL(BRIGADE_CONCAT(_res_, __LINE__), lhs, expr)
#define BRIGADE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.is_ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

// "did you mean 'X'?" helper: the candidate closest to `word` by edit
// distance, if it is close enough to be a plausible typo.
std::optional<std::string> closest_match(const std::string& word,
                                         const std::initializer_list<std::string>& candidates);
template <class Range>
std::optional<std::string> closest_match_in(const std::string& word, const Range& candidates);

// Levenshtein distance (for suggestions).
int edit_distance(const std::string& a, const std::string& b);

template <class Range>
std::optional<std::string> closest_match_in(const std::string& word, const Range& candidates) {
  std::optional<std::string> best;
  int best_d = 0;
  for (const auto& c : candidates) {
    const std::string cs(c);
    const int d = edit_distance(word, cs);
    if (!best || d < best_d) {
      best = cs;
      best_d = d;
    }
  }
  // Accept at most a third of the word's length in edits (at least 1, at most 3).
  const int limit = std::max(1, std::min(3, static_cast<int>(word.size()) / 3 + 1));
  if (best && best_d <= limit) return best;
  return std::nullopt;
}

}  // namespace brigade
