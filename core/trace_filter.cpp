#include "core/trace_filter.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/tr.hpp"
#include "core/units.hpp"

namespace brigade {

bool TraceFilter::keeps_device(std::int32_t device) const {
  return devices.empty() || std::binary_search(devices.begin(), devices.end(), device);
}

std::string device_list_string(const std::vector<std::int32_t>& devices) {
  std::string s;
  for (size_t i = 0; i < devices.size();) {
    size_t j = i;
    while (j + 1 < devices.size() && devices[j + 1] == devices[j] + 1) ++j;
    if (!s.empty()) s += ",";
    s += std::to_string(devices[i]);
    if (j > i) s += "-" + std::to_string(devices[j]);
    i = j + 1;
  }
  return s;
}

std::string TraceFilter::str() const {
  std::string s;
  if (!devices.empty()) s = "devices " + device_list_string(devices);
  if (start_seconds > 0 || end_seconds != std::numeric_limits<double>::infinity()) {
    if (!s.empty()) s += "; ";
    s += "window " + format_seconds(start_seconds) + " to " +
         (std::isinf(end_seconds) ? std::string("the end") : format_seconds(end_seconds));
  }
  return s;
}

std::string trace_filter_text(std::string_view stored) {
  std::string out;
  std::string_view rest = stored;
  while (!rest.empty()) {
    const size_t cut = rest.find("; ");
    const std::string_view part = rest.substr(0, cut);
    rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 2);
    std::string text;
    if (part.rfind("devices ", 0) == 0) {
      text = fill_args(tr_text("TraceFilter", "devices %1"), {part.substr(8)});
    } else if (const size_t to = part.find(" to ");
               part.rfind("window ", 0) == 0 && to != std::string_view::npos) {
      const std::string_view end = part.substr(to + 4);
      text = fill_args(tr_text("TraceFilter", "window %1 to %2"),
                       {part.substr(7, to - 7),
                        end == "the end" ? tr_text("TraceFilter", "the end") : std::string(end)});
    } else {
      return std::string(stored);  // not str()'s form: as it is
    }
    if (!out.empty()) out += tr_text("TraceFilter", "; ");
    out += text;
  }
  return out;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_id(std::string_view s, std::int64_t& v) {
  s = trim(s);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && v >= 0 && v <= (1 << 29);
}

}  // namespace

Result<std::vector<std::int32_t>> parse_device_list(std::string_view text) {
  const Status bad = Status::error("a device list such as 0-7,64 (ids and ranges A-B, A <= B)");
  std::vector<std::int32_t> out;
  if (trim(text).empty()) return bad;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const size_t dash = item.find('-');
    std::int64_t a = 0, b = 0;
    if (dash == std::string_view::npos) {
      if (!parse_id(item, a)) return bad;
      b = a;
    } else if (!parse_id(item.substr(0, dash), a) || !parse_id(item.substr(dash + 1), b) || a > b) {
      return bad;
    }
    for (std::int64_t d = a; d <= b; ++d) out.push_back(static_cast<std::int32_t>(d));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::pair<double, double>> parse_time_window(std::string_view text) {
  const Status bad = Status::error(
      "a window START:END such as 0:50ms or 1s: (durations with units, START < END; either may be "
      "left out)");
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
    return bad;
  const std::string_view a = trim(text.substr(0, colon)), b = trim(text.substr(colon + 1));
  if (a.empty() && b.empty()) return bad;
  double start = 0, end = std::numeric_limits<double>::infinity();
  if (!a.empty()) {
    auto v = parse_quantity(a, Dimension::kSeconds);
    if (!v.is_ok() || !(*v >= 0) || !std::isfinite(*v)) return bad;
    start = *v;
  }
  if (!b.empty()) {
    auto v = parse_quantity(b, Dimension::kSeconds);
    if (!v.is_ok() || !(*v >= 0) || !std::isfinite(*v)) return bad;
    end = *v;
  }
  if (!(start < end)) return bad;
  return std::make_pair(start, end);
}

}  // namespace brigade
