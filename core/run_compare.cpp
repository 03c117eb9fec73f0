#include "core/run_compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/tr.hpp"
#include "core/units.hpp"

namespace brigade {
namespace {

bool known(double x) { return !std::isnan(x); }

std::string basis_name(KindBasis b) {
  return b == KindBasis::kDeviceSeconds ? "device-seconds" : "busiest device";
}

bool measured(const std::string& source) { return source.rfind("sim", 0) != 0 && source != "cost"; }

// Largest |delta| first; rows with an unknown side after the rest (by their
// known value, largest first); ties keep their order.
void sort_rows(std::vector<FigureRow>& rows) {
  auto weight = [](const FigureRow& r) {
    const double d = r.delta();
    if (known(d)) return std::fabs(d);
    return -1.0 / (1.0 + std::fabs(known(r.a) ? r.a : r.b));  // below every known delta
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const FigureRow& x, const FigureRow& y) { return weight(x) > weight(y); });
}

std::string percent(double a, double b) {
  const std::string p = percent_change_text(a, b);
  return p.empty() ? p : " (" + p + ")";
}

std::string table(const std::vector<FigureRow>& rows, int max_rows, const std::string& first_col,
                  bool with_figure) {
  std::string out;
  size_t width = first_col.size();
  const size_t shown = max_rows > 0 ? std::min(rows.size(), static_cast<size_t>(max_rows)) : rows.size();
  for (size_t i = 0; i < shown; ++i) width = std::max(width, rows[i].scope.size());
  out += fmt::format("  {:<{}}  {}{:>11}  {:>11}  {:>11}\n", first_col, width,
                     with_figure ? fmt::format("{:<14}", "figure") : "", "A", "B", "B - A");
  for (size_t i = 0; i < shown; ++i) {
    const FigureRow& r = rows[i];
    out += fmt::format("  {:<{}}  {}{:>11}  {:>11}  {:>11}{}\n", r.scope, width,
                       with_figure ? fmt::format("{:<14}", r.figure) : "",
                       figure_text(r.a, r.bytes), figure_text(r.b, r.bytes),
                       figure_delta_text(r.delta(), r.bytes), percent(r.a, r.b));
  }
  if (shown < rows.size())
    out += fmt::format("  ... {} more row{} (--rows 0 or --json shows all)\n", rows.size() - shown,
                       rows.size() - shown == 1 ? "" : "s");
  return out;
}

nlohmann::json number(double v) { return known(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json rows_json(const std::vector<FigureRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const FigureRow& r : rows)
    out.push_back({{"scope", r.scope},
                   {"figure", r.figure},
                   {"unit", r.bytes ? "B" : "s"},
                   {"a", number(r.a)},
                   {"b", number(r.b)},
                   {"delta", number(r.delta())}});
  return out;
}

nlohmann::json run_json(const RunFigures& f) {
  return {{"label", f.label},         {"source", f.source},
          {"program", f.program},     {"step_seconds", f.step_seconds},
          {"basis", basis_name(f.basis)}, {"devices", f.devices.size()},
          {"spans", f.spans}};
}

}  // namespace

std::string figure_text(double v, bool bytes) {
  if (!known(v)) return "-";
  return bytes ? format_bytes(v) : format_seconds(v);
}

std::string figure_delta_text(double v, bool bytes) {
  if (!known(v)) return "-";
  if (v == 0) return "0";
  return (v > 0 ? "+" : "-") + figure_text(std::fabs(v), bytes);
}

std::string percent_change_text(double a, double b) {
  if (!known(a) || !known(b) || a == 0) return "";
  return fmt::format("{:+.1f}%", 100 * (b - a) / a);
}

RunComparison compare_runs(const RunFigures& a, const RunFigures& b) {
  RunComparison c;
  c.a = a;
  c.b = b;
  if (a.program != b.program) {
    c.same_program = false;
    c.differences.push_back(
        fill_args(tr_text("Compare", "different programs: '%1' and '%2'"), {a.program, b.program}));
  }
  // Devices: by name when the names say the same thing, else by id.
  std::map<std::string, const DeviceFigures*> b_by_name;
  for (const DeviceFigures& d : b.devices) b_by_name[d.name] = &d;
  std::vector<std::pair<const DeviceFigures*, const DeviceFigures*>> pairs;
  for (const DeviceFigures& d : a.devices)
    if (auto it = b_by_name.find(d.name); it != b_by_name.end()) pairs.emplace_back(&d, it->second);
  if (pairs.empty() && !a.devices.empty() && !b.devices.empty()) {
    std::map<int, const DeviceFigures*> b_by_id;
    for (const DeviceFigures& d : b.devices) b_by_id[d.device] = &d;
    for (const DeviceFigures& d : a.devices)
      if (auto it = b_by_id.find(d.device); it != b_by_id.end()) pairs.emplace_back(&d, it->second);
    if (!pairs.empty())
      c.differences.push_back(
          tr_text("Compare", "no device names in common: devices matched by id"));
  }
  if (a.devices.size() != b.devices.size() || pairs.size() != a.devices.size()) {
    c.same_program = false;
    c.differences.push_back(
        fill_args(pairs.empty() ? tr_text("Compare",
                                          "different devices: %1 and %2 (%3 in common: no "
                                          "per-device rows)")
                                : tr_text("Compare", "different devices: %1 and %2 (%3 in common)"),
                  {std::to_string(a.devices.size()), std::to_string(b.devices.size()),
                   std::to_string(pairs.size())}));
  }
  if (measured(a.source) != measured(b.source))
    c.differences.push_back(fill_args(
        measured(a.source) ? tr_text("Compare", "a measurement against a prediction (%1, %2)")
                           : tr_text("Compare", "a prediction against a measurement (%1, %2)"),
        {a.source, b.source}));
  const bool same_basis = a.basis == b.basis;
  if (!same_basis)
    c.differences.push_back(
        fill_args(tr_text("Compare",
                          "per-kind times counted differently (A: %1, B: %2): compared are the "
                          "step, the devices and the memory"),
                  {basis_name(a.basis), basis_name(b.basis)}));

  struct Figure {
    const char* name;
    double DeviceFigures::*member;
  };
  static const Figure kFigures[] = {{"busy", &DeviceFigures::busy_seconds},
                                    {"communication", &DeviceFigures::comm_seconds},
                                    {"exposed", &DeviceFigures::exposed_seconds},
                                    {"idle", &DeviceFigures::idle_seconds}};
  for (const auto& [da, db] : pairs) {
    for (const Figure& fig : kFigures) {
      FigureRow r{da->name, fig.name, false, da->*fig.member, db->*fig.member};
      if ((known(r.a) || known(r.b)) && !(r.a == 0 && r.b == 0)) c.device_rows.push_back(r);
    }
    FigureRow m{da->name, "peak memory", true, da->peak_memory_bytes, db->peak_memory_bytes};
    if (known(m.a) || known(m.b)) c.memory_rows.push_back(m);
  }
  if (same_basis) {
    std::map<std::string, std::pair<const KindFigures*, const KindFigures*>> kinds;
    for (const KindFigures& k : a.kinds) kinds[k.kind].first = &k;
    for (const KindFigures& k : b.kinds) kinds[k.kind].second = &k;
    for (const auto& [key, p] : kinds)
      c.kind_rows.push_back(FigureRow{key, "time", false, p.first ? p.first->seconds : kUnknown,
                                      p.second ? p.second->seconds : kUnknown});
  }
  sort_rows(c.device_rows);
  sort_rows(c.memory_rows);
  sort_rows(c.kind_rows);
  return c;
}

std::string comparison_text(const RunComparison& c, int max_rows) {
  std::string out;
  out += fmt::format("A  {}  ({}, '{}')\n", c.a.label, c.a.source, c.a.program);
  out += fmt::format("B  {}  ({}, '{}')\n", c.b.label, c.b.source, c.b.program);
  out += fmt::format("step   A {}   B {}   B - A {}{}\n", format_seconds(c.a.step_seconds),
                     format_seconds(c.b.step_seconds),
                     figure_delta_text(c.b.step_seconds - c.a.step_seconds, false),
                     percent(c.a.step_seconds, c.b.step_seconds));
  for (const std::string& d : c.differences) out += "note: " + d + "\n";
  if (!c.device_rows.empty()) {
    out += "\nper device (largest difference first)\n";
    out += table(c.device_rows, max_rows, "device", true);
  }
  if (!c.memory_rows.empty()) {
    out += "\npeak memory per device (largest difference first)\n";
    out += table(c.memory_rows, max_rows, "device", false);
  }
  if (!c.kind_rows.empty()) {
    out += fmt::format("\nper task kind ({}; largest difference first)\n",
                       c.a.basis == KindBasis::kDeviceSeconds
                           ? "span time summed over devices"
                           : "the busiest device's time per step");
    out += table(c.kind_rows, max_rows, "kind", false);
  }
  return out;
}

nlohmann::json comparison_json(const RunComparison& c) {
  nlohmann::json j;
  j["a"] = run_json(c.a);
  j["b"] = run_json(c.b);
  j["step_delta_seconds"] = c.b.step_seconds - c.a.step_seconds;
  j["same_program"] = c.same_program;
  j["differences"] = c.differences;
  j["devices"] = rows_json(c.device_rows);
  j["memory"] = rows_json(c.memory_rows);
  j["kinds"] = rows_json(c.kind_rows);
  return j;
}

}  // namespace brigade
