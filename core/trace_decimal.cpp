#include "core/trace_decimal.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace brigade::trace_decimal {
namespace {

__extension__ typedef unsigned __int128 U128;  // GCC and Clang: 38 decimal digits

// ±m x 10^e with m < 10^38.
struct Dec {
  bool neg = false;
  U128 m = 0;
  int e = 0;
};

constexpr int kMaxDigits = 38;

// 10^0 .. 10^38.
const U128* powers_of_ten() {
  static const auto table = [] {
    struct T {
      U128 p[kMaxDigits + 1];
    } t{};
    t.p[0] = 1;
    for (int i = 1; i <= kMaxDigits; ++i) t.p[i] = t.p[i - 1] * 10;
    return t;
  }();
  return table.p;
}

U128 pow10(int k) {
  return powers_of_ten()[k];
}

int digits_of(U128 m) {
  int n = 1;
  while (n < kMaxDigits && m >= pow10(n)) ++n;
  return n;
}

// The shortest decimal that reads back as x: its significant digits (no
// point, into `digits`, their count returned), sign and exponent of the last.
int shortest_digits(double x, char* digits, bool& neg, int& e) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  const char* p = buf;
  neg = *p == '-';
  if (neg) ++p;
  int n = 0, frac = 0;
  bool after_point = false;
  for (; p < r.ptr && *p != 'e'; ++p) {
    if (*p == '.') {
      after_point = true;
      continue;
    }
    digits[n++] = *p;
    if (after_point) ++frac;
  }
  int exp = 0;
  if (p < r.ptr && *p == 'e') {
    ++p;
    std::from_chars(*p == '+' ? p + 1 : p, r.ptr, exp);
  }
  e = exp - frac;
  if (n == 1 && digits[0] == '0') neg = false;
  return n;
}

Dec from_double(double x) {
  char digits[24];
  Dec d;
  const int n = shortest_digits(x, digits, d.neg, d.e);
  std::uint64_t m = 0;  // at most 17 digits
  for (int i = 0; i < n; ++i) m = m * 10 + static_cast<unsigned>(digits[i] - '0');
  d.m = m;
  return d;
}

// A JSON number token, exactly (nullopt beyond kMaxDigits significant digits).
std::optional<Dec> parse(std::string_view s) {
  Dec d;
  size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    d.neg = true;
    ++i;
  }
  int digits = 0, frac = 0;
  bool any = false, point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      if (point) return std::nullopt;
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = true;
    if (d.m == 0 && c == '0') {
      if (point) ++frac;  // leading zeros carry no digits
      continue;
    }
    if (++digits > kMaxDigits) return std::nullopt;
    d.m = d.m * 10 + static_cast<unsigned>(c - '0');
    if (point) ++frac;
  }
  if (!any) return std::nullopt;
  int exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && s[i] == '+') ++i;
    auto r = std::from_chars(s.data() + i, s.data() + s.size(), exp);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  } else if (i != s.size()) {
    return std::nullopt;
  }
  d.e = exp - frac;
  if (d.m == 0) d.neg = false;
  return d;
}

// The decimal digits of m into buf (no terminator); their count. One
// 128-bit division at most (into two halves below 10^19).
int to_digits(U128 m, char* buf) {
  if (m <= UINT64_MAX)
    return static_cast<int>(std::to_chars(buf, buf + 40, static_cast<std::uint64_t>(m)).ptr - buf);
  constexpr std::uint64_t kHalf = 10000000000000000000ull;  // 10^19
  const auto hi = static_cast<std::uint64_t>(m / kHalf), lo = static_cast<std::uint64_t>(m % kHalf);
  int n = static_cast<int>(std::to_chars(buf, buf + 40, hi).ptr - buf);
  char low[24];
  const int k = static_cast<int>(std::to_chars(low, low + sizeof low, lo).ptr - low);
  for (int i = k; i < 19; ++i) buf[n++] = '0';
  for (int i = 0; i < k; ++i) buf[n++] = low[i];
  return n;
}

// digits x 10^e (n significant digits, no leading zero unless the value is
// 0) as a JSON number: plain where that takes at most 21 digits, else with
// an exponent.
void append_text(std::string& out, bool neg, const char* digits, int n, int e) {
  if (n == 1 && digits[0] == '0') {
    out.push_back('0');
    return;
  }
  if (neg) out.push_back('-');
  if (e >= 0 && n + e <= 21) {
    out.append(digits, static_cast<size_t>(n));
    out.append(static_cast<size_t>(e), '0');
  } else if (e < 0 && -e < n) {
    out.append(digits, static_cast<size_t>(n + e));
    out.push_back('.');
    out.append(digits + n + e, static_cast<size_t>(-e));
  } else if (e < 0 && -e - n <= 6) {
    out += "0.";
    out.append(static_cast<size_t>(-e - n), '0');
    out.append(digits, static_cast<size_t>(n));
  } else {
    out.push_back(digits[0]);
    if (n > 1) {
      out.push_back('.');
      out.append(digits + 1, static_cast<size_t>(n - 1));
    }
    out.push_back('e');
    char eb[8];
    auto r = std::to_chars(eb, eb + sizeof eb, e + n - 1);
    out.append(eb, r.ptr);
  }
}

void append(std::string& out, const Dec& d) {
  char digits[40];
  if (d.m == 0) {
    out.push_back('0');
    return;
  }
  append_text(out, d.neg, digits, to_digits(d.m, digits), d.e);
}

// Brings a and b to one exponent; false if a significand would pass kMaxDigits.
bool align(Dec& a, Dec& b) {
  if (a.m == 0) a.e = b.e;
  if (b.m == 0) b.e = a.e;
  Dec& hi = a.e > b.e ? a : b;
  const int shift = std::abs(a.e - b.e);
  if (shift == 0) return true;
  if (digits_of(hi.m) + shift > kMaxDigits) return false;
  hi.m *= pow10(shift);
  hi.e -= shift;
  return true;
}

// a + b exactly; false if it does not fit.
bool add(Dec a, Dec b, Dec& sum) {
  if (!align(a, b)) return false;
  sum.e = a.e;
  if (a.neg == b.neg) {
    if (digits_of(a.m) >= kMaxDigits || digits_of(b.m) >= kMaxDigits) return false;
    sum.m = a.m + b.m;
    sum.neg = a.neg;
  } else if (a.m >= b.m) {
    sum.m = a.m - b.m;
    sum.neg = a.neg;
  } else {
    sum.m = b.m - a.m;
    sum.neg = b.neg;
  }
  if (sum.m == 0) sum.neg = false;
  return true;
}

// The double nearest to d x 10^-6 (one rounding).
std::optional<double> to_seconds(const Dec& d) {
  char s[64];
  int n = 0;
  if (d.neg) s[n++] = '-';
  n += to_digits(d.m, s + n);
  s[n++] = 'e';
  auto e = std::to_chars(s + n, s + sizeof s, d.e - 6);
  double v = 0;
  auto r = std::from_chars(s, e.ptr, v);
  if (r.ec == std::errc::result_out_of_range) return d.e < 0 ? 0.0 : HUGE_VAL;
  if (r.ec != std::errc()) return std::nullopt;
  return v;
}

std::optional<double> plain_double(std::string_view s) {
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

void append_us(std::string& out, double seconds) {
  // The digits of the seconds as they are; only the exponent moves.
  char digits[24];
  bool neg = false;
  int e = 0;
  const int n = shortest_digits(seconds, digits, neg, e);
  append_text(out, neg, digits, n, e + 6);
}

bool append_us_difference(std::string& out, double start_seconds, double end_seconds) {
  Dec a = from_double(end_seconds), b = from_double(start_seconds), diff;
  b.neg = !b.neg && b.m != 0;
  if (!add(a, b, diff)) return false;
  diff.e += 6;
  append(out, diff);
  return true;
}

std::optional<double> seconds_from_us(std::string_view token) {
  if (auto d = parse(token)) return to_seconds(*d);
  if (auto v = plain_double(token)) return *v / 1e6;
  return std::nullopt;
}

std::optional<double> seconds_from_us_sum(std::string_view ts, std::string_view dur) {
  auto a = parse(ts), b = parse(dur);
  Dec sum;
  if (a && b && add(*a, *b, sum)) return to_seconds(sum);
  auto x = plain_double(ts), y = plain_double(dur);
  if (!x || !y) return std::nullopt;
  return (*x + *y) / 1e6;
}

}  // namespace brigade::trace_decimal
