#include "core/nccl_tests.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/text.hpp"

namespace brigade {
namespace {

struct Field {
  std::string text;
  int column = 1;  // 1-based
};

std::vector<Field> fields_of(const std::string& line) {
  std::vector<Field> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

// A finite number > 0, the whole field.
bool positive(const std::string& s, double* v) {
  try {
    size_t used = 0;
    *v = std::stod(s, &used);
    return used == s.size() && std::isfinite(*v) && *v > 0;
  } catch (...) {
    return false;
  }
}

bool integer(const std::string& s) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

const std::set<std::string>& reductions() {
  static const std::set<std::string> r = {"sum", "prod", "min", "max", "avg", "none",
                                          "premulsum"};
  return r;
}

}  // namespace

Result<std::vector<NcclSizePoint>> parse_nccl_tests(const std::string& text,
                                                   const std::string& path) {
  std::vector<NcclSizePoint> out;
  std::set<double> seen;
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    const std::vector<Field> f = fields_of(line);
    if (f.empty() || f[0].text[0] == '#') continue;
    if (!integer(f[0].text)) continue;  // banners, "Avg bus bandwidth", ...
    const auto bad = [&](const Field& x, const std::string& expected) {
      return Status::error(fmt::format("{}:{}:{}: error: found {}; expected {}", path, n,
                                       x.column, quoted(x.text), expected));
    };
    // nccl-tests run from -b 0 print a size-0 row: no bytes, no bandwidth.
    if (f[0].text.find_first_not_of('0') == std::string::npos) continue;
    double bytes = 0;
    if (!positive(f[0].text, &bytes))
      return bad(f[0], "a size in bytes > 0 (the row's first column)");
    // Which column holds the out-of-place time: Brigade's four-column tables
    // have it second; nccl-tests after size, count, type and (2.x) the
    // reduction and the root.
    size_t t = 0;
    double unused = 0;
    if (f.size() == 4 && positive(f[1].text, &unused)) {
      t = 1;
    } else if (f.size() >= 6 && integer(f[1].text) && !integer(f[2].text)) {
      t = 3;
      if (t < f.size() && reductions().count(f[t].text)) ++t;
      if (t < f.size() && integer(f[t].text)) ++t;  // the root
    } else {
      return bad(f.size() > 1 ? f[1] : f[0],
                 "an nccl-tests row (size, count, type, [redop, root,] time, algbw, busbw, ...) "
                 "or a four-column row (size_bytes time_us algbw_GBps busbw_GBps)");
    }
    if (t >= f.size())
      return bad(f.back(), "the out-of-place time in microseconds after it");
    double us = 0;
    if (!positive(f[t].text, &us)) return bad(f[t], "the out-of-place time in microseconds, > 0");
    if (!seen.insert(bytes).second)
      return bad(f[0], fmt::format("each size once (the size {} appeared above)", f[0].text));
    out.push_back({bytes, us * 1e-6});
  }
  if (out.empty())
    return Status::error(fmt::format(
        "{}: error: found no row of sizes and times; expected nccl-tests' output "
        "(all_reduce_perf and kin) or size_bytes time_us algbw_GBps busbw_GBps rows",
        path));
  return out;
}

Result<std::vector<NcclSizePoint>> read_nccl_tests(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error(fmt::format(
        "{}: error: found no readable file; expected nccl-tests' output to fit", path));
  std::ostringstream s;
  s << in.rdbuf();
  return parse_nccl_tests(s.str(), path);
}

}  // namespace brigade
