// The compare view's logic (issue 17): two open runs side by side, read by
// the same core functions as `brigade compare` (core/run_figures.hpp,
// core/run_compare.hpp), so that the app and the command line print the
// same numbers for the same files; their table's rows and cells as the CLI
// prints them; one time axis for both timelines; which spans and lanes a
// row of the table points at.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/run_compare.hpp"
#include "core/run_figures.hpp"
#include "core/status.hpp"
#include "gui/model/document.hpp"
#include "gui/model/time_axis.hpp"

namespace brigade::gui {

// The figures of an open run as `brigade compare FILE` reads the same file:
// a scenario's simulated trace with its Program's collective kinds and the
// simulator's step (figures_of_simulation), a trace's (figures_of_trace);
// labelled with the document's path. A profile has no run: one line says
// so ("FILE: error: found a hardware profile; expected a scenario or a
// trace to compare").
Result<RunFigures> figures_of_document(const Document& doc);

// b against a (deltas b - a), or the first run's error.
Result<RunComparison> compare_documents(const Document& a, const Document& b);

// One time axis for two timelines: the union of both traces' spans, each
// on its own clock (Brigade's traces count from the step's start, another
// tool's from its first event), with the timeline's margin of 1% a side.
TimeWindow shared_extent(const Document& a, const Document& b);

enum class CompareSection : std::uint8_t { kDevices, kMemory, kKinds };

// A line of the compare view's table: a section's title, or a row of the
// RunComparison with its cells as `brigade compare` prints them.
struct CompareTableRow {
  bool title = false;  // a section's title (its text in `scope`)
  CompareSection section = CompareSection::kDevices;
  std::string scope;   // a device's name or a task kind
  std::string figure;  // "busy", "communication", "exposed", "idle", "peak memory", "time"
  std::string a, b, delta, percent;  // "1.20 ms", "-", "+0.30 ms", "+25.0%"
  double delta_value = kUnknown;     // b - a, SI; NaN when unknown
  // |delta| against the largest |delta| of the section in the same unit:
  // 0..1, the length of its bar (0 when unknown).
  double bar = 0;
};

// The three tables of `c` in the CLI's order (per device, peak memory, per
// task kind), each after its title ("per device", "peak memory per
// device", "per task kind (span time summed over devices)"; sections
// without rows are left out), rows largest difference first as
// compare_runs sorted them.
std::vector<CompareTableRow> compare_table(const RunComparison& c);

// "step: A 10.0 ms, B 12.0 ms, B - A +2.00 ms (+20.0%)".
std::string step_summary(const RunComparison& c);

// A run in a line, for the header above its timeline: "'mlp' · simulated
// (sim:flow) · 2 devices · step 10.0 ms".
std::string run_summary(const RunFigures& f);

// The spans of a task kind (RunFigures::kinds' key) in an open run, by
// index, for highlighting a kind's row: a scenario's collectives by its
// Program's kind, as the figures counted them.
std::vector<std::int32_t> spans_of_kind(const Document& doc, const std::string& kind);

// The devices a row's scope names in each run: by name, as compare_runs
// matches them; a name only A has (runs whose device names differ are
// matched by id) stands for A's device's id in B too. -1: none.
std::pair<int, int> devices_of_scope(const Trace& a, const Trace& b, const std::string& scope);

}  // namespace brigade::gui
