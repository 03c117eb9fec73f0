#include "core/units.hpp"

#include "core/text.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace brigade {
namespace {

struct Unit {
  const char* name;
  double scale;
};

// Longest names first within a table is not needed: we match the whole suffix.
const std::vector<Unit> kByteUnits = {
    {"B", 1},        {"KB", 1e3},     {"MB", 1e6},          {"GB", 1e9},
    {"TB", 1e12},    {"PB", 1e15},    {"KiB", 1024.0},      {"MiB", 1048576.0},
    {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"kB", 1e3}, {"bytes", 1}};

const std::vector<Unit> kTimeUnits = {{"s", 1},     {"ms", 1e-3}, {"us", 1e-6},
                                      {"µs", 1e-6}, {"ns", 1e-9}, {"min", 60}};

const std::vector<Unit> kBandwidthUnits = {
    {"B/s", 1},          {"KB/s", 1e3},          {"MB/s", 1e6},         {"GB/s", 1e9},
    {"TB/s", 1e12},      {"KiB/s", 1024.0},      {"MiB/s", 1048576.0},  {"GiB/s", 1073741824.0},
    {"TiB/s", 1099511627776.0},
    {"bps", 0.125},      {"Kbps", 1e3 / 8},      {"Mbps", 1e6 / 8},     {"Gbps", 1e9 / 8},
    {"Tbps", 1e12 / 8},  {"b/s", 0.125},         {"Kb/s", 1e3 / 8},     {"Mb/s", 1e6 / 8},
    {"Gb/s", 1e9 / 8},   {"Tb/s", 1e12 / 8}};

const std::vector<Unit> kFlopRateUnits = {
    {"FLOPS", 1},     {"FLOP/s", 1},     {"GFLOPS", 1e9},  {"GFLOP/s", 1e9}, {"TFLOPS", 1e12},
    {"TFLOP/s", 1e12}, {"PFLOPS", 1e15}, {"PFLOP/s", 1e15}, {"MFLOPS", 1e6}, {"MFLOP/s", 1e6}};

const std::vector<Unit> kFlopUnits = {{"FLOP", 1},    {"KFLOP", 1e3},  {"MFLOP", 1e6},
                                      {"GFLOP", 1e9}, {"TFLOP", 1e12}, {"PFLOP", 1e15},
                                      {"EFLOP", 1e18}};

const std::vector<Unit>& units_for(Dimension dim) {
  static const std::vector<Unit> kNone;
  switch (dim) {
    case Dimension::kBytes: return kByteUnits;
    case Dimension::kSeconds: return kTimeUnits;
    case Dimension::kBytesPerSecond: return kBandwidthUnits;
    case Dimension::kFlopsPerSecond: return kFlopRateUnits;
    case Dimension::kFlops: return kFlopUnits;
    case Dimension::kNumber: return kNone;
  }
  return kNone;
}

std::string with_prefix(double v, const char* const* names, const double* scales, int count,
                        const char* unit) {
  int i = count - 1;
  while (i > 0 && std::fabs(v) < scales[i]) --i;
  // The printed value, not the value, picks the prefix and the decimals:
  // 999.6 us prints as "1.00 ms" (not "1000 us"), 9.996 as "10.0" (not "10.00").
  if (i + 1 < count &&
      std::round(std::fabs(v / scales[i])) >= std::round(scales[i + 1] / scales[i]))
    ++i;
  const double x = v / scales[i];
  char buf[64];
  if (std::fabs(x) >= 99999.5)  // beyond the largest prefix: no 30-digit numbers
    std::snprintf(buf, sizeof buf, "%.2e %s%s", x, names[i], unit);
  else if (std::fabs(x) >= 99.95 || x == 0)
    std::snprintf(buf, sizeof buf, "%.0f %s%s", x, names[i], unit);
  else if (std::fabs(x) >= 9.995)
    std::snprintf(buf, sizeof buf, "%.1f %s%s", x, names[i], unit);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s%s", x, names[i], unit);
  return buf;
}

}  // namespace

std::string_view dimension_hint(Dimension dim) {
  switch (dim) {
    case Dimension::kBytes: return "a size such as 80GiB, 1.5GB or 4096 (bytes)";
    case Dimension::kSeconds: return "a duration such as 5us, 2ms or 0.001 (seconds)";
    case Dimension::kBytesPerSecond:
      return "a bandwidth such as 25GB/s, 200Gbps or 1e9 (bytes per second)";
    case Dimension::kFlopsPerSecond:
      return "a compute rate such as 312TFLOPS or 1e12 (FLOP per second)";
    case Dimension::kFlops: return "a FLOP count such as 3.2TFLOP or 1e12";
    case Dimension::kNumber: return "a number";
  }
  return "a number";
}

namespace {

// Each dimension's magnitudes (docs/scenario-format.md, "Limits"). The upper
// ends keep every derived quantity finite and printable: sums over millions
// of tasks stay far from double's 1.8e308, and sizes below 2^63 convert to
// integers; the lower ends of rates keep divisions by them finite.
struct Range {
  double min_positive;  // smallest non-zero magnitude
  double max;
};

Range range_of(Dimension dim) {
  switch (dim) {
    case Dimension::kBytes: return {0, 0x1p60};
    case Dimension::kSeconds: return {0, 1e6};
    case Dimension::kBytesPerSecond: return {0.125, 1e18};
    case Dimension::kFlopsPerSecond: return {1, 1e21};
    case Dimension::kFlops: return {0, 1e30};
    case Dimension::kNumber: break;
  }
  return {0, std::numeric_limits<double>::max()};
}

}  // namespace

std::string_view quantity_range_hint(Dimension dim) {
  switch (dim) {
    case Dimension::kBytes: return "a size of at most 2^60 bytes (1 EiB)";
    case Dimension::kSeconds: return "a duration of at most 1e6 s (11.6 days)";
    case Dimension::kBytesPerSecond: return "a bandwidth from 1 bit/s to 1e18 B/s";
    case Dimension::kFlopsPerSecond: return "a compute rate from 1 FLOP/s to 1e21 FLOP/s";
    case Dimension::kFlops: return "a FLOP count of at most 1e30";
    case Dimension::kNumber: return "a number";
  }
  return "a number";
}

bool quantity_in_range(double value_in_si, Dimension dim) {
  const double m = std::fabs(value_in_si);
  const Range r = range_of(dim);
  return std::isfinite(m) && (m == 0 || (m >= r.min_positive && m <= r.max));
}

QuantityFault check_quantity(std::string_view text, Dimension dim, double* value_in_si) {
  const std::string s(trim_space(text));
  if (s.empty()) return QuantityFault::kSyntax;
  const char* begin = s.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  if (end == begin) return QuantityFault::kSyntax;
  // strtod accepts "inf" and "nan": never quantities. Out of double's range
  // ("1e309") it gives HUGE_VAL: a number, too large.
  const std::string_view digits(begin, static_cast<size_t>(end - begin));
  if (std::isnan(number) || digits.find_first_of("iInN") != std::string_view::npos)
    return QuantityFault::kSyntax;
  const std::string suffix(trim_space(std::string_view(end)));
  double scale = 1;
  if (!suffix.empty()) {
    bool known = false;
    for (const Unit& u : units_for(dim)) {
      if (suffix == u.name) {
        scale = u.scale;
        known = true;
        break;
      }
    }
    if (!known) return QuantityFault::kSyntax;
  }
  // The range on the value in SI units: "1e308GB/s" is a number whose value
  // is not finite.
  const double value = number * scale;
  if (!quantity_in_range(value, dim)) return QuantityFault::kRange;
  if (value_in_si) *value_in_si = value;
  return QuantityFault::kNone;
}

Result<double> parse_quantity(std::string_view text, Dimension dim) {
  double v = 0;
  switch (check_quantity(text, dim, &v)) {
    case QuantityFault::kNone:
      return v;
    case QuantityFault::kSyntax:
      return Status::error("found " + quoted(text) + "; expected " +
                           std::string(dimension_hint(dim)));
    case QuantityFault::kRange:
      break;
  }
  return Status::error("found " + quoted(text) + "; expected " +
                       std::string(quantity_range_hint(dim)));
}

std::string format_seconds(double seconds) {
  static const char* names[] = {"n", "u", "m", ""};
  static const double scales[] = {1e-9, 1e-6, 1e-3, 1};
  if (seconds == 0) return "0 s";
  return with_prefix(seconds, names, scales, 4, "s");
}

std::string format_bytes(double bytes) {
  static const char* names[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  static const double scales[] = {1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0,
                                  1125899906842624.0};
  return with_prefix(bytes, names, scales, 6, "B");
}

std::string format_bandwidth(double bytes_per_s) {
  static const char* names[] = {"", "K", "M", "G", "T"};
  static const double scales[] = {1, 1e3, 1e6, 1e9, 1e12};
  return with_prefix(bytes_per_s, names, scales, 5, "B/s");
}

std::string format_flops(double flops) {
  static const char* names[] = {"", "K", "M", "G", "T", "P", "E"};
  static const double scales[] = {1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18};
  return with_prefix(flops, names, scales, 7, "FLOP");
}

std::string format_flops_rate(double flops_per_s) {
  static const char* names[] = {"", "K", "M", "G", "T", "P", "E"};
  static const double scales[] = {1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18};
  return with_prefix(flops_per_s, names, scales, 7, "FLOP/s");
}

std::string format_count(double n) {
  static const char* names[] = {"", "K", "M", "B", "T"};
  static const double scales[] = {1, 1e3, 1e6, 1e9, 1e12};
  std::string s = with_prefix(n, names, scales, 5, "");
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace brigade
