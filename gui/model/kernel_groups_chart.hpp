// The kernels view's logic: an open scenario's step on one device by kernel
// group (core/kernel_groups.hpp, the groups `brigade kernels` prints), and
// beside it a profiler's record of the same plan (core/kernel_summary.hpp):
// each line's cells as the command line prints them and the lengths of its
// two bars. No Qt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/kernel_summary.hpp"
#include "core/status.hpp"
#include "gui/model/document.hpp"

namespace brigade::gui {

struct KernelGroupsLine {
  std::string label;  // the group's, in the app's language ("GEMM, FP8")
  std::string key;    // KernelGroupRow::key ("gemm_fp8", "compute_all")
  bool subtotal = false;
  bool communication = false;
  double simulated_seconds = 0, measured_seconds = 0;
  std::string simulated, measured, ratio;  // "1.50 ms", "-", "1.14" ("-" when a side has none)
  // 0..1: the bar's length against the longest group's time on either side
  // (subtotals against the longest subtotal's).
  double simulated_bar = 0, measured_bar = 0;
};

// A record as the view holds it: what was read, and how many steps and GPUs
// its times cover (its times are divided by their product). Brigade's own
// trace (brigade execute --trace) holds every device: the chart takes the
// chosen device's spans, and says so when the trace is of another plan.
struct KernelRecord {
  std::string path;
  MeasuredKernels kernels;
  int steps = 1, gpus = 1;
  // Whether it is of the open document's plan (check_record_plan: for
  // Brigade's trace a string compare a task), as check_kernel_record found
  // it when the record was read or the document changed, so that a change
  // of device, steps or GPUs does not compare it again; unset: the chart
  // checks it itself.
  std::optional<Status> plan;
};

// `record.plan` against `doc`'s Program; unset when `doc` has none.
void check_kernel_record(KernelRecord& record, const Document& doc);

struct KernelGroupsChart {
  std::string title;   // "kernel groups of NAME on gpu0, one step (simulated, 4.83 ms)"
  std::string record;  // "against FILE (2 steps, 1 GPU: its times / 2)", or why not; "" without one
  // When the plan ran at region or step granularity: its fused runs are one
  // group, and how to see each kernel instead; "" otherwise.
  std::string note;
  bool measured = false;                // the record's column is shown (a record of this plan)
  std::vector<KernelGroupsLine> lines;  // the groups, then the subtotals
};

// The chart of `doc` (a scenario: its simulated trace and Program) on
// `device`, against `record` when given. Empty lines for a document with no
// Program or a device it does not have.
KernelGroupsChart kernel_groups_chart(const Document& doc, int device, const KernelRecord* record);

}  // namespace brigade::gui
