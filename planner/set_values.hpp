// Values written after `--set KEY=` (sweep and search): one parser per kind
// of key, each failing with one line that names the flag, what it found and
// what it expected, e.g. "--set tensor: found 'x'; expected a positive integer".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade::planner {

// "a,b,c" -> {"a", "b", "c"} (empty items kept, so that they can be reported).
std::vector<std::string> split_values(const std::string& text);

// "strategy.tensor" and "training.micro_batch" -> "tensor", "micro_batch";
// "bucket_bytes" -> "bucket".
std::string canonical_key(const std::string& key);

// A whole number >= min: "expected a positive integer" (min 1) or "expected a
// whole number >= 0" (min 0).
Result<std::int64_t> parse_whole(const std::string& flag, const std::string& value,
                                 std::int64_t min = 1);
Result<bool> parse_bool_value(const std::string& flag, const std::string& value);
Result<PipelineSchedule> parse_schedule_value(const std::string& flag, const std::string& value);
Result<Recompute> parse_recompute_value(const std::string& flag, const std::string& value);
// A size > 0 such as 25MB.
Result<double> parse_bucket_value(const std::string& flag, const std::string& value);
// ZeRO stage 0..3.
Result<int> parse_zero_value(const std::string& flag, const std::string& value);

// "--set: found key 'tensr'; expected one of a, b, c (did you mean 'tensor'?)".
Status unknown_key(const std::string& raw_key, const std::vector<std::string>& keys);

}  // namespace brigade::planner
