// Two runs side by side (`brigade compare A B`, the app's compare view):
// simulated against measured, two scenarios, two strategies. The
// differences per device (busy, communication, exposed communication, idle,
// peak memory) and per task kind, largest first, and, when the two runs are
// of different programs, what differs and what could still be compared.
// Works on RunFigures (core/run_figures.hpp), so on any pair of Traces or
// closed-form estimates.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/run_figures.hpp"

namespace brigade {

// One figure of one device or kind in both runs. Rows present in one run
// only have the other side's value unknown (NaN).
struct FigureRow {
  std::string scope;   // a device's name, or a task kind
  std::string figure;  // "busy", "communication", "exposed", "idle", "peak memory", "time"
  bool bytes = false;  // the unit: bytes (peak memory) or seconds
  double a = kUnknown;
  double b = kUnknown;
  // b - a; NaN where either side is unknown.
  double delta() const { return b - a; }
};

struct RunComparison {
  RunFigures a, b;
  // What differs between the runs beyond their figures, one phrase each:
  // "different programs: 'x' and 'y'", "different devices: 8 and 4 (4 in
  // common, matched by name)", "a simulation against a measurement (sim:flow,
  // cpu)", "per-kind times counted differently: ...". Empty: the same program.
  std::vector<std::string> differences;
  bool same_program = true;
  std::vector<FigureRow> device_rows;  // times of the devices both runs have, largest |delta| first
  std::vector<FigureRow> memory_rows;  // peak memory of those devices, largest |delta| first
  std::vector<FigureRow> kind_rows;    // time per task kind, largest |delta| first (union of kinds)
};

// Compares b against a (deltas are b - a). Devices are matched by name when
// the two runs name them alike, else by id; kinds by key. Rows whose both
// values are unknown are left out; among rows of equal |delta|, the order is
// the devices' (then the figures') order. Device rows that are 0 in both
// runs (no communication in either) are left out too.
RunComparison compare_runs(const RunFigures& a, const RunFigures& b);

// For people: a header (labels, sources, steps), the differences, then the
// three tables with at most `max_rows` rows each (0: all), each followed by
// how many rows were left out.
std::string comparison_text(const RunComparison& c, int max_rows = 12);

// A figure as the tables print it: "1.20 ms", "3.00 GB"; "-" when unknown.
std::string figure_text(double v, bool bytes);
// A difference as the tables print it: "+1.20 ms", "-3.00 GB", "0"; "-" when unknown.
std::string figure_delta_text(double v, bool bytes);
// B's change against A: "+25.0%"; "" when A is 0 or either is unknown.
std::string percent_change_text(double a, double b);

// For machines: {"a": {label, source, program, step_seconds, basis}, "b": ...,
// "step_delta_seconds", "same_program", "differences"[], "devices"[],
// "memory"[], "kinds"[]}, rows as {scope, figure, unit ("s" or "B"), a, b,
// delta} with null for unknown values; every row.
nlohmann::json comparison_json(const RunComparison& c);

}  // namespace brigade
