#include "planner/lower.hpp"

#include "core/plan_check.hpp"
#include "core/tr.hpp"
#include "costmodel/plan.hpp"
#include "planner/lower_internal.hpp"

namespace brigade::planner {

std::string_view granularity_name(Granularity g) {
  switch (g) {
    case Granularity::kAuto:
      return "auto";
    case Granularity::kKernel:
      return "kernel";
    case Granularity::kRegion:
      return "region";
    case Granularity::kStep:
      return "step";
  }
  return "?";
}

namespace detail {

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// model: collective: one collective over its group, one task per rank on
// the `comm` stream, like an nccl-tests run.
Result<Plan> lower_collective(const Scenario& sc) {
  const CollectiveBenchSpec& c = sc.collective;
  std::vector<std::int32_t> group;
  if (c.group.empty())
    for (int d = 0; d < sc.topology.num_devices(); ++d) group.push_back(d);
  else
    group.assign(c.group.begin(), c.group.end());
  ProgramBuilder b(sc.name.empty() ? "collective" : sc.name, sc.topology.num_devices());
  std::vector<StreamId> streams;
  for (int d : group) streams.push_back(b.stream(d, "comm"));
  const std::string kind(collective_kind_name(c.kind));
  const std::string reason =
      fill_args(tr_text("Reasons", "the scenario asks for one %1 of %2 bytes over %3 devices (%4)"),
                {kind, std::to_string(static_cast<long long>(c.bytes)),
                 std::to_string(group.size()), collective_algorithm_name(c.algorithm)});
  const CollectiveId id =
      b.add_collective(c.kind, c.algorithm, group, c.bytes, streams, kind, Phase::kOther, reason);
  b.collective(id).dtype = c.dtype;
  for (int d : group) b.add_buffer("message", d, c.bytes, MemoryCategory::kCommBuffers, true);
  BRIGADE_ASSIGN_OR_RETURN(Program p, std::move(b).build());
  Plan plan;
  plan.program = std::move(p);
  plan.granularity = Granularity::kKernel;
  plan.summary =
      fill_args(tr_text("Summary", "one %1 over %2 devices"), {kind, std::to_string(group.size())});
  plan.view_of_device.assign(static_cast<size_t>(sc.topology.num_devices()), -1);
  plan.device_role.assign(static_cast<size_t>(sc.topology.num_devices()), "unused");
  DeviceView view;
  view.title = "every device of the group";
  TensorView tv;
  tv.name = "message";
  tv.role = "collective buffer";
  const auto elements = static_cast<std::int64_t>(c.bytes / dtype_bytes(c.dtype));
  tv.global_shape = {elements};
  tv.local_shape = {elements};
  tv.dtype = c.dtype;
  tv.sharding = "each device holds its own";
  view.tensors.push_back(tv);
  plan.views.push_back(view);
  for (size_t r = 0; r < group.size(); ++r) {
    plan.view_of_device[static_cast<size_t>(group[r])] = 0;
    plan.device_role[static_cast<size_t>(group[r])] = fill_args(
        tr_text("Roles", "rank %1 of %2"), {std::to_string(r), std::to_string(group.size())});
  }
  return plan;
}

}  // namespace detail

namespace {
Result<Plan> lower_by_kind(const Scenario& scenario, const LowerOptions& options) {
  switch (scenario.model_kind) {
    case ModelKind::kTransformer:
      return detail::lower_transformer(scenario, options);
    case ModelKind::kMlp:
    case ModelKind::kGraph:
      return detail::lower_graph(scenario, options);
    case ModelKind::kCollective:
      return detail::lower_collective(scenario);
    case ModelKind::kNone:
      break;
  }
  return Status::error("planner: no model to lower", ErrorKind::kInternal);
}

// Valid choices that are probably not what the author meant (costmodel's
// plan_warnings, which every judge says).
void add_warnings(const Scenario& scenario, Plan& plan) {
  for (std::string& n : cost::plan_warnings(scenario)) plan.notes.push_back(std::move(n));
}
}  // namespace

Result<Plan> lower(const Scenario& scenario, const LowerOptions& options) {
  // Plans that cannot be (degrees against devices, batch against degrees,
  // shardings against the mesh, ...) are check_plan's to name.
  if (cancel_requested(options.cancel)) return cancelled_status();
  BRIGADE_RETURN_IF_ERROR(check_plan(scenario));
  BRIGADE_ASSIGN_OR_RETURN(Plan plan, lower_by_kind(scenario, options));
  add_warnings(scenario, plan);
  return plan;
}

Result<Plan> describe(const Scenario& scenario, const LowerOptions& options) {
  BRIGADE_RETURN_IF_ERROR(check_plan(scenario));
  if (scenario.model_kind == ModelKind::kTransformer) {
    BRIGADE_ASSIGN_OR_RETURN(Plan plan, detail::describe_transformer(scenario, options));
    add_warnings(scenario, plan);
    return plan;
  }
  BRIGADE_ASSIGN_OR_RETURN(Plan plan, lower(scenario, options));
  plan.flops_per_iteration = plan.program.total_flops();
  plan.program = Program{};
  return plan;
}

}  // namespace brigade::planner
