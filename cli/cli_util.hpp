// Flag parsing shared by the verbs. Every bad value becomes one line,
//   brigade: error: --bandwidth: found '-5'; expected a positive bandwidth such as 25GB/s
// thrown as BadInput (exit code 2). Values may carry units (core/units.hpp).
#pragma once

#include <climits>
#include <initializer_list>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "cli/verbs.hpp"
#include "core/nccl_table.hpp"
#include "core/scenario.hpp"
#include "core/status.hpp"
#include "core/units.hpp"
#include "planner/plan.hpp"
#include "sim/simulator.hpp"

namespace brigade::cli {

enum class Sign { kAny, kNonNegative, kPositive };

// "brigade: error: FLAG: found 'TEXT'; expected EXPECTED".
std::string flag_error_line(std::string_view flag, std::string_view found,
                            std::string_view expected);
[[noreturn]] void throw_flag_error(std::string_view flag, std::string_view found,
                                   std::string_view expected);

// What a flag of this dimension and sign expects, e.g. "a positive bandwidth
// such as 25GB/s", "a size >= 0 such as 1GiB", "a duration >= 0 such as 5us".
std::string expected_quantity(Dimension dim, Sign sign);

// A quantity in SI units; throws BadInput with expected_quantity() otherwise.
double parse_quantity_flag(std::string_view flag, std::string_view text, Dimension dim, Sign sign);

// A whole number >= `min`: "found 'x'; expected a whole number >= 1".
int parse_int_flag(std::string_view flag, std::string_view text, int min);

// A comma-separated list of whole numbers from `min` to `max` ("1,2,4,8").
std::vector<int> parse_int_list_flag(std::string_view flag, std::string_view text, int min,
                                     int max = INT_MAX);

// A real number in [lo, hi]: "found '1.5'; expected a number from 0 to 1".
double parse_number_in_flag(std::string_view flag, std::string_view text, double lo, double hi);

// One of `choices`, else "found 'X'; expected one of a, b, c" (+ " (did you mean 'a'?)").
std::string parse_choice_flag(std::string_view flag, std::string_view text,
                              const std::vector<std::string>& choices);

// --nccl-version's value: "2.24" or "2.29" (NcclVersion), else
// "found 'X'; expected one of 2.24, 2.29".
NcclVersion parse_nccl_version_flag(std::string_view flag, std::string_view text);

// Throws the CLI exception matching a failed Status: bad input and
// unsupported plans exit 2, anything else (runtime, internal, cancelled) 1. A message that carries no
// "error:" of its own is prefixed with "brigade: error: ".
[[noreturn]] void throw_status(const Status& status);

// load_scenario, or throw_status. `profile_flag` (--profile), when not
// empty: a profile file (load_profile) that replaces the scenario's.
Scenario load_scenario_or_throw(const std::string& path, const std::string& profile_flag = "");


// CLI11 validators for path flags, run while the command line is parsed, so
// before any long work. input_path_check: a value must not be empty
// ("brigade: error: --profile: found ''; expected a file path").
// output_path_check: the same, and the path must be able to take an output
// (core/file_io.hpp, check_output_path):
//   brigade: error: --trace: found a symbolic link at 'x.json'; expected a regular file ...
CLI::Validator input_path_check();
CLI::Validator output_path_check();

// The backstop of "no NaN or infinity is ever printed as a result": throws
// RuntimeFailure ("brigade: internal error: VERB: found WHAT = inf; expected
// a finite number") for the first value that is not finite.
void require_finite(std::string_view verb,
                    std::initializer_list<std::pair<std::string_view, double>> values);

// One line on stderr for a judged plan that does not fit in device memory:
//   brigade: warning: the plan does not fit in device memory: 8 of 8 devices
//   over capacity; gpu0 needs 2.79 TiB of 80.0 GiB
void warn_does_not_fit(size_t devices_over, size_t devices, int worst_device, double needed_bytes,
                       double capacity_bytes, const Topology& topology);

// --granularity: auto, kernel, region or step (planner/plan.hpp).
planner::Granularity parse_granularity_flag(const std::string& text);

// The simulator options a scenario asks for (simulation.network, .speed, and
// its runtime: conditions);
// `network_flag` ("ideal" / "flow"), when not empty, overrides the file.
sim::SimOptions sim_options_for(const Scenario& scenario, const std::string& network_flag = "");

}  // namespace brigade::cli
