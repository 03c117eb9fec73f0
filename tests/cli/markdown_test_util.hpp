// Reading the Markdown tables the scripts print (scripts/fidelity,
// scripts/ranking) in their tests.
#pragma once

#include <cstddef>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace brigade::testing {

// The text's lines, without their line ends.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A table row's cells, trimmed: "| a | b |" -> {"a", "b"}.
inline std::vector<std::string> cells_of(const std::string& row) {
  std::vector<std::string> out;
  std::size_t at = row.find('|');
  while (at != std::string::npos) {
    const std::size_t next = row.find('|', at + 1);
    if (next == std::string::npos) break;
    std::string cell = row.substr(at + 1, next - at - 1);
    cell.erase(0, cell.find_first_not_of(' '));
    cell.erase(cell.find_last_not_of(' ') + 1);
    out.push_back(cell);
    at = next;
  }
  return out;
}

// One number as printf formats it: what a script's "%.2f" prints.
inline std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace brigade::testing
