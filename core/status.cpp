#include "core/status.hpp"

#include <algorithm>
#include <mutex>
#include <ostream>
#include <unordered_set>
#include <vector>

namespace brigade {

const std::string& FileName::empty_name() {
  static const std::string empty;
  return empty;
}

FileName::FileName(std::string_view name) : s_(&empty_name()) {
  if (name.empty()) return;
  // Most names come one after another from one file: the last one this
  // thread interned is checked first, without the lock.
  thread_local const std::string* last = nullptr;
  if (last != nullptr && *last == name) {
    s_ = last;
    return;
  }
  static std::mutex mutex;
  static std::unordered_set<std::string>* names = new std::unordered_set<std::string>();  // never freed
  std::lock_guard<std::mutex> lock(mutex);
  s_ = &*names->emplace(name).first;  // node-based: the address stays put
  last = s_;
}

std::ostream& operator<<(std::ostream& os, const FileName& f) { return os << f.str(); }

std::string SourcePos::str() const {
  if (line <= 0) return file.str();
  return file.str() + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Status Status::at(const SourcePos& pos, const std::string& message, ErrorKind kind) {
  std::string where = pos.str();
  return Status::error(where.empty() ? "error: " + message : where + ": error: " + message, kind);
}

int edit_distance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest_match(const std::string& word,
                                         const std::initializer_list<std::string>& candidates) {
  return closest_match_in(word, candidates);
}

}  // namespace brigade
