// Memory over time for the memory view: a device's memory samples (a step
// function per category, core/trace.hpp) as a stack of categories, its
// peak, what was live at a given time, and a reduction to a bounded number
// of points that keeps every bin's highest and lowest total (so the peak
// survives), as a chart of 1 M samples must be drawn from a few thousand.
// No Qt.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/program.hpp"
#include "core/trace.hpp"
#include "gui/model/chart_units.hpp"
#include "sim/simulator.hpp"

namespace brigade::gui {

using CategoryBytes = std::array<double, kNumMemoryCategories>;

// A device's live bytes by category: from times_seconds[i] until
// times_seconds[i + 1] (the last: until the end of the trace) the device
// holds bytes[c][i] of category c. Samples at equal times are merged (the
// last of each category wins, as in the trace).
struct MemoryStack {
  int device = 0;
  std::vector<double> times_seconds;
  std::array<std::vector<double>, kNumMemoryCategories> bytes;
  double peak_bytes = 0;         // the highest total
  double peak_time_seconds = 0;  // its first time
  bool empty() const { return times_seconds.empty(); }
  size_t size() const { return times_seconds.size(); }
  double total_at_index(size_t i) const;
  // Categories with a non-zero value somewhere.
  bool has_category(MemoryCategory c) const;
};

MemoryStack memory_stack(const Trace& trace, int device);

// Live bytes by category at time t (the step function's value: samples at t
// count); all zero before the first sample.
CategoryBytes live_at(const MemoryStack& stack, double t);

// Each device's highest total (indexed by device id, sized to the trace's
// devices and the samples' highest id), in one pass over the samples.
std::vector<double> peak_bytes_by_device(const Trace& trace);
// The device with the highest peak (the lowest id among equals); -1 if the
// trace has no memory samples.
int device_with_highest_peak(const Trace& trace);

// At most about 2 x `bins` points: the samples are cut into `bins` equal
// bins of [first time, last time]; each bin keeps its sample of the highest
// total and its sample of the lowest, in time order (the stack's value at a
// kept time is unchanged). A stack of at most 2 x bins points comes back
// as it is. The peak is always kept.
MemoryStack reduce_points(const MemoryStack& stack, int bins);

// An out-of-memory event as the memory view marks it: when, the task whose
// allocation crossed the capacity, and the live bytes by category then
// (from the trace's samples at that time).
struct OomMark {
  double time_seconds = 0;
  std::string task;  // "act1 (task 2)", or "resident buffers"
  double live_bytes = 0;
  double capacity_bytes = 0;
  CategoryBytes live{};
  std::vector<std::pair<std::string, double>> largest_buffers;
};
// The simulator's OOM of `stack`'s device, if it had one. `program` names
// the task (may be null: "task N").
std::optional<OomMark> oom_mark(const sim::SimResult& result, const Program* program,
                                const MemoryStack& stack);

// The colour (0xRRGGBB) and legend label of a memory category, one table
// for every view.
std::uint32_t memory_category_rgb(MemoryCategory c);
std::string memory_category_label(MemoryCategory c);  // "parameters", "activations", ...

}  // namespace brigade::gui
