// Quantities with units, at the edges only. Inside Brigade everything is SI:
// seconds, bytes, bytes per second, FLOP, FLOP per second.
//   decimal prefixes:  KB = 1e3 B, MB = 1e6, GB = 1e9, TB = 1e12
//   binary prefixes:   KiB = 2^10 B, MiB = 2^20, GiB = 2^30, TiB = 2^40
//   bits:              Gbps = Gb/s = 1e9 bit/s = 1.25e8 B/s
#pragma once

#include <string>
#include <string_view>

#include "core/status.hpp"

namespace brigade {

enum class Dimension {
  kBytes,           // 80GiB, 1.5GB, 4096
  kSeconds,         // 5us, 2ms, 1.5s, 100ns
  kBytesPerSecond,  // 25GB/s, 200Gbps, 1.6TB/s
  kFlopsPerSecond,  // 312TFLOPS, 989e12, 19.5TFLOP/s
  kFlops,           // 1.2PFLOP, 3e15
  kNumber,          // a plain number
};

// Parses "25GB/s", "5 us", "80GiB", "1e9" (a bare number is taken as SI).
// The error message says what was found and what was expected, without a
// position (the caller knows the file, line and column), e.g.
//   "found '5 parsecs'; expected a duration such as 5us, 2ms or 0.001 (seconds)"
//   "found '1e308GB/s'; expected a bandwidth from 1 bit/s to 1e18 B/s"
// Every dimension has a range (quantity_range_hint; docs/scenario-format.md,
// "Limits"), checked on the magnitude after the unit is applied: the sign is
// the caller's rule ("a positive bandwidth").
Result<double> parse_quantity(std::string_view text, Dimension dim);

// Why a text is not a quantity, for callers that word their own messages.
enum class QuantityFault {
  kNone,
  kSyntax,  // not a finite number followed by one of the dimension's units
  kRange,   // a number, but its magnitude is outside quantity_range_hint(dim)
};
// parse_quantity's verdict; the SI value goes to *value_in_si (when not null) on kNone.
QuantityFault check_quantity(std::string_view text, Dimension dim, double* value_in_si);

// What a value of this dimension looks like, for error messages.
std::string_view dimension_hint(Dimension dim);
// The range of the dimension, for messages: "a bandwidth from 1 bit/s to 1e18 B/s".
std::string_view quantity_range_hint(Dimension dim);
// Whether |value_in_si| lies in the dimension's range (0 always does).
bool quantity_in_range(double value_in_si, Dimension dim);

// Human-readable forms for reports (3 significant digits; beyond 99999 of
// the largest prefix, scientific: "1.00e+30 s").
std::string format_seconds(double seconds);          // "1.23 ms", "45.6 us", "2.00 s"
std::string format_bytes(double bytes);              // binary: "1.00 GiB", "512 KiB", "12 B"
std::string format_bandwidth(double bytes_per_s);    // decimal: "235 GB/s"
std::string format_flops(double flops);              // "1.23 PFLOP"
std::string format_flops_rate(double flops_per_s);   // "312 TFLOP/s"
std::string format_count(double n);                  // parameter counts: 1.75e11 -> "175 B" (billions)

}  // namespace brigade
