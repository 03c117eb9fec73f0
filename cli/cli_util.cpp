#include "cli/cli_util.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "core/file_io.hpp"
#include "core/status.hpp"
#include "core/text.hpp"
#include "sim/scenario_options.hpp"

namespace brigade::cli {
namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

// strtol over the whole string, or nothing.
bool parse_long(const std::string& s, long& out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtol(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size();
}

}  // namespace

std::string flag_error_line(std::string_view flag, std::string_view found,
                            std::string_view expected) {
  std::string line = "brigade: error: ";
  // quoted(): a value with a line break or a byte that is not UTF-8 (a
  // lesson named "a\xff") is shown escaped, so the line stays one line of
  // UTF-8.
  line.append(flag)
      .append(": found ")
      .append(quoted(found, 200))
      .append("; expected ")
      .append(expected);
  return line;
}

void throw_flag_error(std::string_view flag, std::string_view found, std::string_view expected) {
  throw BadInput{flag_error_line(flag, found, expected)};
}

CLI::Validator input_path_check() {
  return CLI::Validator(
      [](std::string& value) {
        return value.empty() ? std::string("found ''; expected a file path") : std::string();
      },
      "");
}

CLI::Validator output_path_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.empty()) return "found ''; expected a file path";
        const Result<OutputTarget> target = check_output_path(value);
        if (target.is_ok()) return "";
        // "found X; expected Y" -> "found X at 'PATH'; expected Y", unless X
        // names its own path already ("found no folder 'DIR'").
        std::string line = target.message();
        const auto cut = line.find("; expected");
        if (cut != std::string::npos && line.substr(0, cut).find('\'') == std::string::npos)
          line.insert(cut, " at '" + value + "'");
        return line;
      },
      "");
}

std::string expected_quantity(Dimension dim, Sign sign) {
  std::string noun, example;
  switch (dim) {
    case Dimension::kBytes: noun = "size", example = "1GiB"; break;
    case Dimension::kSeconds: noun = "duration", example = "5us"; break;
    case Dimension::kBytesPerSecond: noun = "bandwidth", example = "25GB/s"; break;
    case Dimension::kFlopsPerSecond: noun = "compute rate", example = "312TFLOPS"; break;
    case Dimension::kFlops: noun = "FLOP count", example = "3.2TFLOP"; break;
    case Dimension::kNumber: noun = "number", example = "1.5"; break;
  }
  switch (sign) {
    case Sign::kPositive: return "a positive " + noun + " such as " + example;
    case Sign::kNonNegative: return "a " + noun + " >= 0 such as " + example;
    case Sign::kAny: break;
  }
  return "a " + noun + " such as " + example;
}

double parse_quantity_flag(std::string_view flag, std::string_view text, Dimension dim, Sign sign) {
  double v = 0;
  const QuantityFault fault = check_quantity(text, dim, &v);
  // Out of the dimension's range ("1e308TiB"): say the range.
  if (fault == QuantityFault::kRange) throw_flag_error(flag, text, quantity_range_hint(dim));
  const bool ok = fault == QuantityFault::kNone &&
                  (sign == Sign::kAny || (sign == Sign::kPositive && v > 0) ||
                   (sign == Sign::kNonNegative && v >= 0));
  if (!ok) throw_flag_error(flag, text, expected_quantity(dim, sign));
  return v;
}

int parse_int_flag(std::string_view flag, std::string_view text, int min) {
  long v = 0;
  if (!parse_long(trim(text), v) || v < min || v > INT_MAX)
    throw_flag_error(flag, text, "a whole number >= " + std::to_string(min));
  return static_cast<int>(v);
}

std::vector<int> parse_int_list_flag(std::string_view flag, std::string_view text, int min,
                                     int max) {
  std::vector<int> out;
  const std::string expected =
      max == INT_MAX ? "a comma-separated list of whole numbers >= " + std::to_string(min) +
                           " such as 1,2,4,8"
                     : "a comma-separated list of whole numbers from " + std::to_string(min) +
                           " to " + std::to_string(max) + " such as 1,2,4,8";
  size_t start = 0;
  const std::string s(text);
  while (true) {
    const size_t comma = s.find(',', start);
    const std::string item = trim(s.substr(start, comma == std::string::npos ? std::string::npos
                                                                             : comma - start));
    long v = 0;
    if (!parse_long(item, v) || v < min || v > max) throw_flag_error(flag, text, expected);
    out.push_back(static_cast<int>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

double parse_number_in_flag(std::string_view flag, std::string_view text, double lo, double hi) {
  auto v = parse_quantity(text, Dimension::kNumber);
  if (!v.is_ok() || *v < lo || *v > hi) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "a number from %g to %g", lo, hi);
    throw_flag_error(flag, text, buf);
  }
  return *v;
}

std::string parse_choice_flag(std::string_view flag, std::string_view text,
                              const std::vector<std::string>& choices) {
  for (const std::string& c : choices)
    if (c == text) return c;
  std::string expected = "one of ";
  for (size_t i = 0; i < choices.size(); ++i) expected += (i ? ", " : "") + choices[i];
  if (auto m = closest_match_in(std::string(text), choices)) expected += " (did you mean '" + *m + "'?)";
  throw_flag_error(flag, text, expected);
}

void throw_status(const Status& status) {
  std::string msg = status.message();
  if (msg.find("error: ") == std::string::npos) msg = "brigade: error: " + msg;
  if (status.kind() == ErrorKind::kBadInput || status.kind() == ErrorKind::kUnsupported)
    throw BadInput{msg};
  // kCancelled, like kRuntime and kInternal: exit 1. No verb sets a
  // cancellation flag (Ctrl-C ends the process as the shell's default), so a
  // cancelled run here is a library's report of work that did not finish.

  throw RuntimeFailure{msg};
}

Scenario load_scenario_or_throw(const std::string& path, const std::string& profile_flag) {
  auto s = load_scenario(path);
  if (!s.is_ok()) throw_status(s.status());
  if (!profile_flag.empty()) {
    auto profile = load_profile(profile_flag);
    if (!profile.is_ok()) throw_status(profile.status());
    s->profile = std::move(profile).value();
    s->profile_path = profile_flag;
    // The scenario's topology.nccl_version names the cluster's NCCL: a
    // profile whose NCCL tables follow another cannot stand in for it.
    bool mixed = false;
    const std::optional<NcclVersion> v = s->profile.nccl_version(&mixed);
    if (s->nccl_version && (mixed || (v && *v != *s->nccl_version)))
      throw_flag_error("--profile", profile_flag,
                       "a profile whose NCCL tables follow NCCL " +
                           std::string(nccl_version_name(*s->nccl_version)) +
                           " (the scenario's topology.nccl_version); its tables follow " +
                           (mixed ? std::string("several versions")
                                  : std::string(nccl_version_name(*v))));
  }
  if (!s->profile_path.empty())
    for (const std::string& w : s->profile.uncovered_models(s->topology))
      std::cerr << "brigade: warning: " << s->profile_path << ": " << w << "\n";
  return std::move(s).value();
}

void require_finite(std::string_view verb,
                    std::initializer_list<std::pair<std::string_view, double>> values) {
  for (const auto& [what, x] : values) {
    if (std::isfinite(x)) continue;
    throw RuntimeFailure{"brigade: internal error: " + std::string(verb) + ": found " +
                         std::string(what) + " = " + (std::isnan(x) ? "nan" : "inf") +
                         "; expected a finite number (a bug: please report the scenario)"};
  }
}

void warn_does_not_fit(size_t devices_over, size_t devices, int worst_device, double needed_bytes,
                       double capacity_bytes, const Topology& topology) {
  std::cerr << "brigade: warning: the plan does not fit in device memory: " << devices_over
            << " of " << devices << " devices over capacity; "
            << topology.device(worst_device).name << " needs " << format_bytes(needed_bytes)
            << " of " << format_bytes(capacity_bytes) << "\n";
}

planner::Granularity parse_granularity_flag(const std::string& text) {
  const std::string g =
      parse_choice_flag("--granularity", text, {"auto", "kernel", "region", "step"});
  if (g == "kernel") return planner::Granularity::kKernel;
  if (g == "region") return planner::Granularity::kRegion;
  if (g == "step") return planner::Granularity::kStep;
  return planner::Granularity::kAuto;
}

sim::SimOptions sim_options_for(const Scenario& scenario, const std::string& network_flag) {
  sim::SimOptions options = sim::options_for(scenario);
  if (!network_flag.empty())
    options.network = parse_choice_flag("--network", network_flag, {"flow", "ideal"}) == "ideal"
                          ? sim::NetworkModel::kIdeal
                          : sim::NetworkModel::kFlow;
  return options;
}

NcclVersion parse_nccl_version_flag(std::string_view flag, std::string_view text) {
  std::vector<std::string> versions;
  for (int i = 0; i < kNumNcclVersions; ++i)
    versions.emplace_back(nccl_version_name(static_cast<NcclVersion>(i)));
  return *parse_nccl_version(parse_choice_flag(flag, text, versions));
}

}  // namespace brigade::cli
