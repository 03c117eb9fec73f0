// Internal to core/trace*.cpp: trace times as exact microsecond decimals.
//
// Chrome traces give times in microseconds ("ts", "dur"), Brigade's in
// seconds. Multiplying by 1e6 and back loses the last bits; these helpers
// shift the decimal point instead. A time is written as the shortest decimal
// that reads back as its double (to_chars), with the point moved 6 places:
// 0.1 s becomes 100000 us, 1/3 s 333333.3333333333 us; reading moves it back
// and rounds once (from_chars), giving the same double. A span's "dur" is the
// exact decimal difference of its end's and start's decimals, so that ts +
// dur, added in decimal, is its end's decimal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace brigade::trace_decimal {

// Appends `seconds` in microseconds, exactly (see above). Finite input.
void append_us(std::string& out, double seconds);
// Appends (end - start) in microseconds as the exact difference of their
// shortest decimals; false (nothing appended) when the difference needs more
// than 38 digits (times of very different magnitudes, e.g. 1e-300 and 1).
bool append_us_difference(std::string& out, double start_seconds, double end_seconds);
// A JSON number token in microseconds -> seconds, rounded once (nullopt: not
// a number).
std::optional<double> seconds_from_us(std::string_view token);
// Two tokens (ts, dur) in microseconds -> (ts + dur) in seconds, added in
// decimal and rounded once where both fit in 38 digits, else in doubles.
std::optional<double> seconds_from_us_sum(std::string_view ts, std::string_view dur);

}  // namespace brigade::trace_decimal
