// What more than one bench needs.
#pragma once

#include <fstream>
#include <string>

namespace brigade::bench {

// Peak resident memory of this process so far, bytes (Linux; 0 elsewhere).
inline double peak_rss_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) * 1024.0;
  return 0;
}

}  // namespace brigade::bench
