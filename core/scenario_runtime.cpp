#include "core/scenario_runtime.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace brigade {

Status read_runtime(const yamlio::Cursor& c, const Topology& topology,
                    const std::function<Result<int>(const yamlio::Cursor&)>& read_device,
                    RuntimeConditions* out) {
  BRIGADE_RETURN_IF_ERROR(c.expect_map(
      "runtime conditions {speed, link_load, input_pipeline, spread, spread_seed}"));
  BRIGADE_RETURN_IF_ERROR(
      c.check_keys({"speed", "link_load", "input_pipeline", "spread", "spread_seed"}));
  if (c.has("speed")) {
    const yamlio::Cursor sp = c.get("speed");
    BRIGADE_RETURN_IF_ERROR(
        sp.expect_map("the speed left to each slowed device, such as {gpu1: 0.5}"));
    for (const auto& [k, v] : sp.entries()) {
      BRIGADE_ASSIGN_OR_RETURN(const int dev, read_device(k));
      // At most 1: the runtime only takes speed away (known differences,
      // faster or slower, are simulation.speed's, which every judge sees).
      BRIGADE_ASSIGN_OR_RETURN(
          out->speed[dev],
          v.as_number_in(1e-6, 1, "a runtime speed factor (the fraction of its speed a device keeps)"));
    }
  }
  if (c.has("link_load")) {
    const yamlio::Cursor ll = c.get("link_load");
    BRIGADE_RETURN_IF_ERROR(ll.expect_map(
        "background load by link or device, such as {gpu0<->nvswitch: 0.6} or {gpu1: 0.6}"));
    std::vector<std::string> names;
    for (const Link& l : topology.links()) names.push_back(l.name);
    for (const auto& [k, v] : ll.entries()) {
      BRIGADE_ASSIGN_OR_RETURN(const std::string key, k.as_name());
      BRIGADE_ASSIGN_OR_RETURN(
          const double load,
          v.as_number_in(0, 0.999999, "a load (the fraction of the link's bandwidth taken)"));
      std::vector<int> links;
      for (int i = 0; i < static_cast<int>(topology.links().size()); ++i)
        if (topology.links()[static_cast<size_t>(i)].name == key) links.push_back(i);
      if (links.empty()) {
        int dev = -1;
        for (const Device& d : topology.devices())
          if (d.name == key) dev = d.id;
        for (int i = 0; dev >= 0 && i < static_cast<int>(topology.links().size()); ++i) {
          const Link& l = topology.links()[static_cast<size_t>(i)];
          if (l.a == dev || l.b == dev) links.push_back(i);
        }
      }
      if (links.empty()) {
        std::string msg = "found " + k.found() + "; expected a link name such as " +
                          yamlio::quote(names.empty() ? std::string("a<->b") : names.front()) +
                          " or a device name (every link of that device)";
        std::vector<std::string> candidates = names;
        for (const Device& d : topology.devices()) candidates.push_back(d.name);
        if (auto m = closest_match_in(key, candidates)) msg += " (did you mean '" + *m + "'?)";
        return k.error(msg);
      }
      for (int i : links) out->link_load[i] = load;
    }
  }
  if (c.has("spread")) {
    BRIGADE_ASSIGN_OR_RETURN(
        out->spread,
        c.get("spread").as_number_in(
            0, 0.5, "a speed spread (the standard deviation of the chips' slowdown, such as 0.03)"));
  }
  if (c.has("spread_seed")) {
    if (!c.has("spread"))
      return c.get("spread_seed").error(
          "found 'spread_seed' without 'spread'; expected a spread to draw (such as spread: 0.03)");
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t seed, c.get("spread_seed").as_int(0));
    out->spread_seed = static_cast<std::uint64_t>(seed);
  }
  if (c.has("input_pipeline")) {
    BRIGADE_ASSIGN_OR_RETURN(
        out->input_seconds,
        c.get("input_pipeline").as_quantity(Dimension::kSeconds, yamlio::Bound::kNonNegative));
  }
  return Status::ok();
}

}  // namespace brigade
