// brigade amdahl: Amdahl's S(N) (and Gustafson's) for a parallel fraction p,
// or p fitted to measured (N, speedup) points (costmodel/scaling.hpp).
#include <climits>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "costmodel/scaling.hpp"

namespace brigade::cli {
namespace {

struct AmdahlOptions {
  std::string p, devices, fit;
  bool json = false;
};

std::vector<cost::SpeedupPoint> parse_fit(const std::string& text) {
  const char* expected = "N:S pairs such as 1:1,2:1.9,4:3.5";
  std::vector<cost::SpeedupPoint> pts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t colon = item.find(':');
    if (colon == std::string::npos) throw_flag_error("--fit", text, expected);
    auto n = parse_quantity(item.substr(0, colon), Dimension::kNumber);
    auto s = parse_quantity(item.substr(colon + 1), Dimension::kNumber);
    // N a device count (a whole number an int holds), S a positive speedup.
    if (!n.is_ok() || !s.is_ok() || *n < 1 || *n > INT_MAX || *n != std::floor(*n) || !(*s > 0))
      throw_flag_error("--fit", text, expected);
    pts.push_back({*n, *s});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return pts;
}

void run_amdahl(const AmdahlOptions& o) {
  if (!o.p.empty() && !o.fit.empty())
    throw BadInput{"brigade: error: amdahl: found both --p and --fit; expected one of them"};
  if (o.p.empty() && o.fit.empty())
    throw BadInput{"brigade: error: amdahl: found neither --p nor --fit; expected one of them"};
  double p = 0;
  std::vector<cost::SpeedupPoint> points;
  cost::AmdahlFit fit;
  if (!o.fit.empty()) {
    points = parse_fit(o.fit);
    auto f = cost::fit_amdahl(points);
    if (!f.is_ok()) throw BadInput{"brigade: error: --fit: " + f.message()};
    fit = *f;
    p = fit.p;
    // --p refuses a p outside [0, 1]; so does a fit (p = 1.6 printed
    // "ceiling -1.667x"): such speedups are not Amdahl's.
    if (!(p >= 0 && p <= 1))
      throw BadInput{fmt::format(
          "brigade: error: --fit: found points that fit p = {:.4g}; expected speedups that "
          "Amdahl's law can give (1 <= S(N) <= N, so p from 0 to 1)",
          p)};
  } else {
    p = parse_number_in_flag("--p", o.p, 0, 1);
  }
  std::vector<int> devices;
  if (!o.devices.empty()) {
    devices = parse_int_list_flag("--devices", o.devices, 1);
  } else if (!points.empty()) {
    for (const auto& pt : points) devices.push_back(static_cast<int>(pt.devices));
  } else {
    for (int n = 1; n <= 128; n *= 2) devices.push_back(n);
  }
  const double limit = 1.0 / (1.0 - p);
  const double doubling = cost::amdahl_doubling_limit(p);

  if (o.json) {
    nlohmann::json j;
    j["p"] = p;
    if (!points.empty()) {
      nlohmann::json pts = nlohmann::json::array();
      for (const auto& pt : points) pts.push_back({{"devices", pt.devices}, {"speedup", pt.speedup}});
      j["fit"] = {{"p", fit.p}, {"r_squared", fit.r_squared}, {"points", pts}};
    }
    nlohmann::json rows = nlohmann::json::array();
    for (int n : devices) {
      const double s = cost::amdahl_speedup(p, n);
      rows.push_back({{"devices", n},
                      {"speedup", s},
                      {"efficiency", cost::parallel_efficiency(s, n)},
                      {"gustafson_speedup", cost::gustafson_speedup(p, n)}});
    }
    j["rows"] = rows;
    j["max_speedup"] = std::isfinite(limit) ? nlohmann::json(limit) : nlohmann::json(nullptr);
    j["doubling_limit_devices"] =
        std::isfinite(doubling) ? nlohmann::json(doubling) : nlohmann::json(nullptr);
    j["doubling_min_gain"] = cost::kDefaultMinDoublingGain;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("Amdahl's law S(N) = 1 / ((1 - p) + p/N) with p = {:.4g}", p);
  if (!points.empty())
    std::cout << fmt::format(" (fitted to {} points, R^2 = {:.4f})", points.size(), fit.r_squared);
  std::cout << "\n";
  std::cout << fmt::format("  {:>8}  {:>9}  {:>10}  {:>9}\n", "devices", "speedup", "efficiency",
                           "gustafson");
  for (int n : devices) {
    const double s = cost::amdahl_speedup(p, n);
    std::cout << fmt::format("  {:>8}  {:>9.3f}  {:>9.1f}%  {:>9.3f}\n", n, s,
                             100 * cost::parallel_efficiency(s, n), cost::gustafson_speedup(p, n));
  }
  if (std::isfinite(limit))
    std::cout << fmt::format("  ceiling 1/(1-p) = {:.4g}x; doubling beyond {:.4g} devices gains under {:.0f}%\n",
                             limit, doubling, 100 * cost::kDefaultMinDoublingGain);
  else
    std::cout << "  p = 1: no serial part, the speedup grows without bound\n";
}

const RegisterVerb kRegister("amdahl", 50, [](CLI::App& app) {
  auto o = std::make_shared<AmdahlOptions>();
  CLI::App* sub = app.add_subcommand("amdahl", "Amdahl's law: speedup and efficiency for N devices");
  sub->add_option("--p", o->p, "parallel fraction p, 0..1");
  sub->add_option("--devices", o->devices, "device counts, e.g. 1,2,4,8 (default 1..128 by doubling)");
  sub->add_option("--fit", o->fit, "fit p to measured N:S pairs, e.g. 1:1,2:1.9,4:3.4");
  sub->add_flag("--json", o->json, "print one JSON object");
  sub->callback([o] { run_amdahl(*o); });
});

}  // namespace
}  // namespace brigade::cli
