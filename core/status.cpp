#include "core/status.hpp"

#include <algorithm>
#include <vector>

namespace brigade {

std::string SourcePos::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
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
