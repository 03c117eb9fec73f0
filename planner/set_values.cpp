#include "planner/set_values.hpp"

#include "core/units.hpp"

namespace brigade::planner {

std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string canonical_key(const std::string& key) {
  std::string k = key;
  for (const char* prefix : {"strategy.", "training."})
    if (k.rfind(prefix, 0) == 0) k = k.substr(std::string(prefix).size());
  if (k == "bucket_bytes") k = "bucket";
  return k;
}

Result<std::int64_t> parse_whole(const std::string& flag, const std::string& v, std::int64_t min) {
  std::int64_t x = 0;
  size_t used = 0;
  try {
    x = std::stoll(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty() || x < min)
    return Status::error(flag + ": found '" + v + "'; expected " +
                         (min == 0 ? "a whole number >= 0" : "a positive integer"));
  return x;
}

Result<bool> parse_bool_value(const std::string& flag, const std::string& v) {
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  return Status::error(flag + ": found '" + v + "'; expected true or false");
}

Result<PipelineSchedule> parse_schedule_value(const std::string& flag, const std::string& v) {
  if (v == "gpipe") return PipelineSchedule::kGpipe;
  if (v == "1f1b") return PipelineSchedule::k1F1B;
  if (v == "interleaved") return PipelineSchedule::kInterleaved;
  return Status::error(flag + ": found '" + v + "'; expected one of gpipe, 1f1b, interleaved");
}

Result<Recompute> parse_recompute_value(const std::string& flag, const std::string& v) {
  if (v == "none") return Recompute::kNone;
  if (v == "selective") return Recompute::kSelective;
  if (v == "full") return Recompute::kFull;
  if (v == "op") return Recompute::kOp;
  return Status::error(flag + ": found '" + v + "'; expected one of none, selective, full, op");
}

Result<double> parse_bucket_value(const std::string& flag, const std::string& v) {
  auto q = parse_quantity(v, Dimension::kBytes);
  if (!q.is_ok() || *q <= 0)
    return Status::error(flag + ": found '" + v + "'; expected a size such as 25MB");
  return *q;
}

Result<int> parse_zero_value(const std::string& flag, const std::string& v) {
  BRIGADE_ASSIGN_OR_RETURN(const std::int64_t x, parse_whole(flag, v, 0));
  if (x > 3) return Status::error(flag + ": found '" + v + "'; expected 0, 1, 2 or 3");
  return static_cast<int>(x);
}

Status unknown_key(const std::string& raw_key, const std::vector<std::string>& keys) {
  std::string list;
  for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
  auto near = closest_match_in(canonical_key(raw_key), keys);
  return Status::error("--set: found key '" + raw_key + "'; expected one of " + list +
                       (near ? " (did you mean '" + *near + "'?)" : ""));
}

}  // namespace brigade::planner
