#include "gui/model/kernel_groups_chart.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/kernel_groups.hpp"
#include "core/units.hpp"
#include "gui/model/model_tr.hpp"
#include "planner/plan.hpp"

namespace brigade::gui {

void check_kernel_record(KernelRecord& record, const Document& doc) {
  record.plan.reset();
  if (const Program* program = doc.program())
    record.plan = check_record_plan(record.kernels, *program, record.path);
}

KernelGroupsChart kernel_groups_chart(const Document& doc, int device, const KernelRecord* record) {
  KernelGroupsChart chart;
  const Program* program = doc.program();
  if (!program || !doc.trace || !doc.topology() || device < 0 ||
      device >= doc.topology()->num_devices())
    return chart;
  const KernelGroupTimes simulated = kernel_group_times(*doc.trace, program, device);
  // Brigade's own trace: of this plan, its spans of the chosen device; a
  // trace of another plan says so instead of its times.
  const bool brigade = record && record->kernels.format == "brigade";
  Status plan_check;
  if (brigade) {
    plan_check =
        record->plan ? *record->plan : check_record_plan(record->kernels, *program, record->path);
    if (plan_check.is_ok() && !record->kernels.has_device(device))
      plan_check =
          Status::error(fill_args(model_tr("KernelGroups", "%1: no span of %2 in Brigade's trace"),
                                  {record->path, doc.topology()->device(device).name}));
  }
  const bool with_record = record && plan_check.is_ok();
  KernelGroupTimes measured;
  if (with_record)
    measured =
        kernel_group_times(record->kernels, static_cast<double>(record->steps) * record->gpus,
                           program, brigade ? device : -1);
  const std::vector<KernelGroupRow> rows =
      kernel_group_rows(simulated, with_record ? &measured : nullptr);
  chart.measured = with_record;
  const double step = doc.result ? doc.result->step_seconds : doc.trace->step_seconds();
  chart.title =
      fill_args(model_tr("KernelGroups", "kernel groups of %1 on %2, one step (simulated, %3)"),
                {doc.title, doc.topology()->device(device).name, format_seconds(step)});
  if (record && !plan_check.is_ok())
    chart.record = plan_check.message();
  else if (brigade)
    chart.record =
        fill_args(model_tr("KernelGroups",
                           "against %1 (Brigade's trace from %2, its device %3: its times / %4)"),
                  {record->path, record->kernels.source, doc.topology()->device(device).name,
                   std::to_string(static_cast<std::int64_t>(record->steps) * record->gpus)});
  else if (record)
    chart.record =
        fill_args(model_tr("KernelGroups", "against %1 (%2 steps, %3 GPUs: its times / %4)"),
                  {record->path, std::to_string(record->steps), std::to_string(record->gpus),
                   std::to_string(static_cast<std::int64_t>(record->steps) * record->gpus)});
  if (simulated.of(KernelGroup::kFused) > 0 && doc.plan)
    chart.note = fill_args(
        model_tr("KernelGroups",
                 "granularity %1: a fused run of kernels is a group of its own (open the "
                 "scenario with --granularity kernel, or run brigade kernels, to name each "
                 "kernel's group)"),
        {planner::granularity_name(doc.plan->granularity)});
  double longest = 0, longest_subtotal = 0;
  for (const KernelGroupRow& r : rows) {
    double& l = r.subtotal ? longest_subtotal : longest;
    l = std::max({l, r.simulated_seconds, r.measured_seconds});
  }
  for (const KernelGroupRow& r : rows) {
    if (r.subtotal && r.empty()) continue;  // a subtotal of nothing (one GPU: no communication)
    KernelGroupsLine line;
    line.label = model_word(r.label);
    line.key = r.key;
    line.subtotal = r.subtotal;
    line.communication = r.communication;
    line.simulated_seconds = r.simulated_seconds;
    line.measured_seconds = r.measured_seconds;
    line.simulated = r.simulated_seconds > 0 ? format_seconds(r.simulated_seconds) : "-";
    line.measured = r.measured_seconds > 0 ? format_seconds(r.measured_seconds) : "-";
    line.ratio = r.simulated_seconds > 0 && r.measured_seconds > 0
                     ? fmt::format("{:.2f}", r.measured_seconds / r.simulated_seconds)
                     : "-";
    const double l = r.subtotal ? longest_subtotal : longest;
    line.simulated_bar = l > 0 ? r.simulated_seconds / l : 0;
    line.measured_bar = l > 0 ? r.measured_seconds / l : 0;
    chart.lines.push_back(std::move(line));
  }
  return chart;
}

}  // namespace brigade::gui
