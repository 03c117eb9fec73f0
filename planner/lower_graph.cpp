// Op-graph lowering (MLPs and explicit scenario graphs), two ways:
//  - SPMD over a mesh (JAX-style shardings, or a mesh the strategy implies:
//    batch sharding, pmap, Megatron column/row pairs for MLPs): every mesh
//    device runs every op on its local shapes; the collectives the
//    shardings imply are inserted with their reasons; gradient psums go to
//    the `dp` stream, combined into buckets;
//  - manual placement (jit(f, device=...) per op, device_put per tensor):
//    each op on one device, a Transfer on the `xfer` stream for every edge
//    that crosses devices.
#include <algorithm>
#include <map>
#include <set>

#include "core/tr.hpp"
#include "costmodel/memory.hpp"
#include "planner/builders.hpp"
#include "planner/graph_ir.hpp"
#include "planner/lower_internal.hpp"
#include "planner/sharding.hpp"

namespace brigade::planner::detail {
namespace {

constexpr TaskId kNone = -1;

double elements(const std::vector<std::int64_t>& s) {
  double n = 1;
  for (std::int64_t d : s) n *= static_cast<double>(d);
  return n;
}

// One compute task for `op` on stream `s`: a GEMM, a fixed or a memory-bound
// kernel as its cost says, in the dtype of its output (of its first input
// for ops without one, such as the optimizer), tagged with its model op.
TaskId emit_op_task(ProgramBuilder& b, StreamId s, const TrainingGraph& g, const IrOp& op,
                    const OpCost& cost) {
  const DType dt = op.output >= 0 ? g.tensors[static_cast<size_t>(op.output)].dtype
                                  : g.tensors[static_cast<size_t>(op.inputs[0])].dtype;
  TaskId id;
  if (cost.compute == ComputeKind::kGemm)
    id = b.add_gemm(s, cost.m, cost.n, cost.k, dt, op.name, op.phase, cost.batch);
  else if (cost.compute == ComputeKind::kFixed)
    id = b.add_fixed(s, cost.flops, cost.bytes, dt, op.name, op.phase);
  else
    id = b.add_memory_bound(s, cost.bytes, dt, op.name, op.phase);
  b.task(id).op = op.model_op >= 0 ? op.model_op : op.forward_op;
  if (cost.compute == ComputeKind::kMemoryBound) b.task(id).kernel = cost::streaming_class(op);
  return id;
}

struct Common {
  const Scenario* sc = nullptr;
  const std::atomic<bool>* cancel = nullptr;  // LowerOptions::cancel, polled per operation
  TrainingGraph g;
  bool training = false;
  double state_per_param = 0;    // optimizer state bytes per parameter
  double traffic_per_param = 0;  // optimizer step traffic per parameter
  std::string model_label;
  int zero = 0;  // ZeRO stage (1 or 2) of a data-parallel MLP, else 0
};

bool is_param_grad(const TrainingGraph& g, int t) {
  const int of = g.tensors[static_cast<size_t>(t)].grad_of;
  return of >= 0 && g.tensors[static_cast<size_t>(of)].parameter;
}

// ---- SPMD --------------------------------------------------------------------

struct SpmdEmitter {
  Common& c;
  Mesh mesh;
  std::vector<PartitionSpec> requested;  // per tensor; empty = no request
  bool pmap = false;
  std::string mode_note;

  ProgramBuilder* b = nullptr;
  int R = 1;
  std::vector<StreamId> compute, dp;
  std::vector<Sharded> cur;
  std::vector<PartitionSpec> home;         // a tensor's spec where it was defined
  std::vector<BufferId> slot;              // per tensor: base of R buffers, or -1
  std::vector<TaskId> last_use;            // per tensor: base of the last task reading it
  std::vector<std::vector<TaskId>> ready;  // per tensor: dp-stream tasks to wait for
  std::vector<std::string> collective_reasons;

  struct Bucket {
    std::vector<int> axes;
    double bytes = 0;
    std::vector<int> tensors;
    std::vector<std::string> names;
    std::string reason;
  } bucket;
  std::vector<Bucket> closed;  // ZeRO: each bucket's new weights are gathered after the step

  std::vector<std::int64_t> local(int t, const PartitionSpec& spec) {
    auto r = local_shape(c.g.tensors[static_cast<size_t>(t)].name,
                         c.g.tensors[static_cast<size_t>(t)].shape, spec, mesh);
    return r.is_ok() ? *r : c.g.tensors[static_cast<size_t>(t)].shape;
  }

  BufferId new_slot(const std::string& name, double bytes, MemoryCategory cat, bool resident) {
    BufferId base = -1;
    for (int d = 0; d < R; ++d) {
      const BufferId id = b->add_buffer(name, d, bytes, cat, resident);
      if (d == 0) base = id;
    }
    return base;
  }

  // One collective per device group of `axes`, on `streams`; rank tasks
  // by device (ids[device]).
  std::vector<TaskId> collective(CollectiveKind kind, const std::vector<int>& axes, double bytes,
                                 const std::vector<StreamId>& streams, const std::string& name,
                                 Phase phase, const std::string& reason) {
    std::vector<TaskId> ids(static_cast<size_t>(R), kNone);
    for (const auto& group : mesh.groups(axes)) {
      std::vector<StreamId> ss;
      for (int d : group) ss.push_back(streams[static_cast<size_t>(d)]);
      const CollectiveId cid =
          b->add_collective(kind, c.sc->strategy.algorithm, group, bytes, ss, name, phase, reason);
      for (size_t r = 0; r < group.size(); ++r)
        ids[static_cast<size_t>(group[r])] = b->collective_task(cid, static_cast<int>(r));
    }
    collective_reasons.push_back(reason);
    return ids;
  }

  int axes_size(const std::vector<int>& axes) const {
    int n = 1;
    for (int a : axes) n *= static_cast<int>(mesh.shape[static_cast<size_t>(a)]);
    return n;
  }

  void flush_bucket() {
    if (bucket.tensors.empty()) return;
    std::string reason = bucket.reason;
    if (bucket.tensors.size() > 1) {
      std::string names;
      for (const auto& n : bucket.names) names += (names.empty() ? "" : ", ") + n;
      reason = fill_args(tr_text("Reasons",
                                 "psum over %1: the gradients of %2 sum over the batch, "
                                 "which is split over %1 (averaging gradients; one "
                                 "bucket, as DDP buckets or XLA's all-reduce combiner)"),
                         {mesh.axes_string(bucket.axes), names});
    }
    // ZeRO-1/2: a replica updates only its 1/D of the weights, so it needs
    // only that shard's sum: psum_scatter (Rajbhandari et al. 2020, Sec. 7.2.1).
    if (c.zero > 0) {
      std::string names;
      for (const auto& n : bucket.names) names += (names.empty() ? "" : ", ") + n;
      reason = fill_args(tr_text("Reasons",
                                 "psum_scatter over %1: ZeRO-%2: the gradients of %3 "
                                 "sum over the batch split over %1; each replica keeps "
                                 "the 1/%4 shard it updates"),
                         {mesh.axes_string(bucket.axes), std::to_string(c.zero), names,
                          std::to_string(axes_size(bucket.axes))});
    }
    auto ids = collective(c.zero > 0 ? CollectiveKind::kReduceScatter : CollectiveKind::kAllReduce,
                          bucket.axes, bucket.bytes, dp, "grad psum", Phase::kBackward, reason);
    for (int d = 0; d < R; ++d)
      if (ids[static_cast<size_t>(d)] != kNone) {
        TaskId producer = kNone;
        for (int t : bucket.tensors)
          producer = std::max(producer, last_producer[static_cast<size_t>(t)]);
        if (producer != kNone) b->depend(ids[static_cast<size_t>(d)], producer + d);
      }
    for (int t : bucket.tensors) ready[static_cast<size_t>(t)] = ids;
    closed.push_back(bucket);
    bucket = Bucket{};
  }
  std::vector<TaskId> last_producer;

  // Emits the collectives turning tensor t from `from` into `to`.
  void emit_reshard(int t, const Sharded& from, const PartitionSpec& to, const std::string& why,
                    Phase phase, bool gradient_reduction) {
    const IrTensor& x = c.g.tensors[static_cast<size_t>(t)];
    const auto steps = reshard(from, to, x.shape, dtype_bytes(x.dtype), mesh);
    for (const ReshardStep& s : steps) {
      if (axes_size(s.axes) <= 1) continue;
      const std::string reason = fill_args(tr_text("Reasons", "%1: %2"), {s.what, why});
      if (gradient_reduction && s.kind == CollectiveKind::kAllReduce && c.training) {
        if (!bucket.tensors.empty() &&
            (bucket.axes != s.axes || bucket.bytes >= c.sc->strategy.bucket_bytes))
          flush_bucket();
        bucket.axes = s.axes;
        bucket.bytes += s.bytes;
        bucket.tensors.push_back(t);
        bucket.names.push_back(c.g.tensors[static_cast<size_t>(x.grad_of)].name);
        bucket.reason = reason;
        continue;
      }
      // Other gradient reshardings go to the dp stream too; the rest sit on
      // the compute stream, in order with the kernels around them.
      const bool on_dp = gradient_reduction && c.training;
      auto ids =
          collective(s.kind, s.axes, s.bytes, on_dp ? dp : compute,
                     std::string(collective_kind_name(s.kind)) + " " + x.name, phase, reason);
      if (!on_dp) continue;
      for (int d = 0; d < R; ++d)
        if (ids[static_cast<size_t>(d)] != kNone && last_producer[static_cast<size_t>(t)] != kNone)
          b->depend(ids[static_cast<size_t>(d)], last_producer[static_cast<size_t>(t)] + d);
      ready[static_cast<size_t>(t)] = ids;
    }
  }

  std::string contracted_why(const IrOp& op, const std::vector<int>& partial) {
    const std::string axes = mesh.axes_string(partial);
    if (op.kind == IrKind::kLoss)
      return fill_args(tr_text("Reasons",
                               "the loss '%1' sums over every element of its input, "
                               "which is split over %2"),
                       {op.name, axes});
    if (op.kind == IrKind::kEmbedding)
      return fill_args(tr_text("Reasons",
                               "the table of %1 is split over %2 by vocabulary rows; "
                               "each device looked up only its rows"),
                       {op.name, axes});
    // The contracted dimension's size, from the first operand.
    std::int64_t size = 0;
    const std::string& l0 = op.rule.inputs[0];
    for (size_t d = 0; d < l0.size(); ++d)
      if (op.rule.output.find(l0[d]) == std::string::npos)
        size = c.g.tensors[static_cast<size_t>(op.inputs[0])].shape[d];
    return fill_args(tr_text("Reasons",
                             "the contracted dimension (size %1) of %2 is split over "
                             "%3, so each device holds a partial sum (y = sum_k x_k "
                             "W_k)"),
                     {std::to_string(size), op.name, axes});
  }
};

Result<Plan> lower_spmd(Common& c, SpmdEmitter& e, Granularity) {
  const Scenario& sc = *c.sc;
  const TrainingGraph& g = c.g;
  const size_t nt = g.tensors.size();
  e.R = e.mesh.size();
  ProgramBuilder b(sc.name.empty() ? "graph" : sc.name, e.R);
  e.b = &b;
  for (int d = 0; d < e.R; ++d) e.compute.push_back(b.stream(d, "compute"));
  const bool any_dp = c.training && g.has_backward && e.R > 1;
  if (any_dp)
    for (int d = 0; d < e.R; ++d) e.dp.push_back(b.stream(d, "dp"));
  else
    e.dp = e.compute;
  e.cur.assign(nt, {});
  e.home.assign(nt, {});
  e.slot.assign(nt, -1);
  e.last_use.assign(nt, kNone);
  e.last_producer.assign(nt, kNone);
  e.ready.assign(nt, {});
  // Inputs and parameters: their requested spec or replicated; resident.
  double param_bytes = 0, param_elements = 0, input_bytes = 0;
  for (size_t t = 0; t < nt; ++t) {
    const IrTensor& x = g.tensors[t];
    PartitionSpec spec = e.requested[t];
    if (spec.empty()) spec.assign(x.shape.size(), -1);
    if (x.grad_of >= 0) continue;  // a seed gradient: sharded like its tensor, at first use
    if (x.parameter || x.input) {
      BRIGADE_ASSIGN_OR_RETURN(auto ls, local_shape(x.name, x.shape, spec, e.mesh));
      if (x.parameter) {
        param_bytes += elements(ls) * dtype_bytes(x.dtype);
        param_elements += elements(ls);
      } else {
        input_bytes += elements(ls) * dtype_bytes(x.dtype);
      }
      e.cur[t] = {spec, {}};
      e.home[t] = spec;
    }
  }
  // ZeRO-1/2 shard the optimizer state (and, 2, the gradients) over 'data'.
  const double shards = c.zero > 0 ? static_cast<double>(e.mesh.shape[0]) : 1.0;
  e.new_slot("parameters", param_bytes, MemoryCategory::kParams, true);
  if (input_bytes > 0) e.new_slot("inputs", input_bytes, MemoryCategory::kActivations, true);
  if (c.training && g.has_backward) {
    e.new_slot("gradients", param_bytes / (c.zero >= 2 ? shards : 1.0), MemoryCategory::kGrads,
               true);
    if (c.state_per_param > 0)
      e.new_slot("optimizer state", param_elements * c.state_per_param / shards,
                 MemoryCategory::kOptimizer, true);
  }
  std::vector<TaskId> optimizer_task(nt, kNone);  // by parameter

  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (cancel_requested(c.cancel)) return cancelled_status();
    const IrOp& op = g.ops[i];
    // Seed gradients (d<output>, fed from outside) take their tensor's sharding.
    for (int t : op.inputs) {
      const IrTensor& x = g.tensors[static_cast<size_t>(t)];
      if (!x.input || x.grad_of < 0 || !e.home[static_cast<size_t>(t)].empty()) continue;
      PartitionSpec spec = e.home[static_cast<size_t>(x.grad_of)];
      if (spec.empty()) spec.assign(x.shape.size(), -1);
      e.cur[static_cast<size_t>(t)] = {spec, {}};
      e.home[static_cast<size_t>(t)] = spec;
      BRIGADE_ASSIGN_OR_RETURN(auto ls, local_shape(x.name, x.shape, spec, e.mesh));
      e.new_slot(x.name, elements(ls) * dtype_bytes(x.dtype), MemoryCategory::kActivations, true);
    }
    std::vector<Sharded> operands;
    std::vector<double> sizes;
    for (int t : op.inputs) {
      operands.push_back(e.cur[static_cast<size_t>(t)]);
      sizes.push_back(elements(g.tensors[static_cast<size_t>(t)].shape) *
                      dtype_bytes(g.tensors[static_cast<size_t>(t)].dtype));
    }
    BRIGADE_ASSIGN_OR_RETURN(Propagation prop,
                             cost::propagate_op(g, op, operands, sizes, e.home, e.mesh));
    // Operands into the required shardings.
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const int t = op.inputs[k];
      if (e.cur[static_cast<size_t>(t)].spec == prop.inputs[k] &&
          e.cur[static_cast<size_t>(t)].partial.empty())
        continue;
      const std::string why = fill_args(
          op.kind == IrKind::kRowwise ? tr_text("Reasons", "%1 needs %2 as %3 (whole rows)")
                                      : tr_text("Reasons", "%1 needs %2 as %3"),
          {op.name, g.tensors[static_cast<size_t>(t)].name, spec_string(prop.inputs[k], e.mesh)});
      e.emit_reshard(t, e.cur[static_cast<size_t>(t)], prop.inputs[k], why, op.phase, false);
      e.cur[static_cast<size_t>(t)] = {prop.inputs[k], {}};
    }
    // Waits for gradient psums still in flight on the dp stream.
    std::vector<std::vector<TaskId>> waits;
    for (int t : op.inputs) {
      if (e.bucket.tensors.end() != std::find(e.bucket.tensors.begin(), e.bucket.tensors.end(), t))
        e.flush_bucket();
      if (!e.ready[static_cast<size_t>(t)].empty())
        waits.push_back(e.ready[static_cast<size_t>(t)]);
    }
    // The compute task on every device.
    std::vector<std::vector<std::int64_t>> shapes(nt);
    for (size_t k = 0; k < op.inputs.size(); ++k)
      shapes[static_cast<size_t>(op.inputs[k])] = e.local(op.inputs[k], prop.inputs[k]);
    if (op.output >= 0) {
      BRIGADE_ASSIGN_OR_RETURN(auto ls, local_shape(g.tensors[static_cast<size_t>(op.output)].name,
                                                    g.tensors[static_cast<size_t>(op.output)].shape,
                                                    prop.output.spec, e.mesh));
      shapes[static_cast<size_t>(op.output)] = ls;
    }
    if (op.kind == IrKind::kOptimizer)
      shapes[static_cast<size_t>(op.param)] =
          e.local(op.param, e.cur[static_cast<size_t>(op.param)].spec);
    OpCost cost = op_cost(g, op, shapes, c.traffic_per_param);
    if (op.kind == IrKind::kOptimizer) cost.bytes /= shards;  // ZeRO: its shard only
    const TaskId base = b.num_tasks();
    if (op.kind == IrKind::kOptimizer) optimizer_task[static_cast<size_t>(op.param)] = base;
    for (int d = 0; d < e.R; ++d) {
      const TaskId id = emit_op_task(b, e.compute[static_cast<size_t>(d)], g, op, cost);
      for (const auto& w : waits)
        if (w[static_cast<size_t>(d)] != kNone) b.depend(id, w[static_cast<size_t>(d)]);
    }
    for (int t : op.inputs) e.last_use[static_cast<size_t>(t)] = base;
    if (op.output < 0) continue;
    const int out = op.output;
    e.last_producer[static_cast<size_t>(out)] = base;
    const IrTensor& ot = g.tensors[static_cast<size_t>(out)];
    const bool pgrad = is_param_grad(g, out);
    if (!pgrad) {
      const double bytes = elements(shapes[static_cast<size_t>(out)]) * dtype_bytes(ot.dtype);
      const BufferId sl = e.new_slot(ot.name, bytes, MemoryCategory::kActivations, false);
      for (int d = 0; d < e.R; ++d) b.alloc(base + d, sl + d);
      e.slot[static_cast<size_t>(out)] = sl;
    }
    // The output into its wanted sharding: a gradient like its tensor, a
    // requested tensor as requested, else as it came with partial sums psummed.
    PartitionSpec target = prop.output.spec;
    if (ot.grad_of >= 0 && !e.home[static_cast<size_t>(ot.grad_of)].empty())
      target = e.home[static_cast<size_t>(ot.grad_of)];
    else if (!e.requested[static_cast<size_t>(out)].empty())
      target = e.requested[static_cast<size_t>(out)];
    // The loss value is read by no op (its backward needs the prediction and
    // the target, not the mean), so its partial sums are left unreduced: XLA
    // drops a reduction nothing uses, and the seed's train step pmeans only
    // the gradient. Reporting the loss would add one scalar AllReduce.
    if (op.kind == IrKind::kLoss) {
      e.cur[static_cast<size_t>(out)] = prop.output;
      e.home[static_cast<size_t>(out)] = target;
      continue;
    }
    std::string why;
    if (!prop.output.partial.empty()) {
      if (pgrad)
        why = fill_args(tr_text("Reasons",
                                "the gradient of %1 sums over the batch, which is "
                                "split over %2 (averaging gradients, pmean)"),
                        {g.tensors[static_cast<size_t>(ot.grad_of)].name,
                         e.mesh.axes_string(prop.output.partial)});
      else
        why = e.contracted_why(op, prop.output.partial);
    } else {
      why = fill_args(tr_text("Reasons", "%1 is wanted as %2"),
                      {ot.name, spec_string(target, e.mesh)});
    }
    e.emit_reshard(out, prop.output, target, why, op.phase, pgrad);
    e.cur[static_cast<size_t>(out)] = {target, {}};
    e.home[static_cast<size_t>(out)] = target;
  }
  e.flush_bucket();
  // ZeRO-1/2: each bucket's updated weights are all-gathered over 'data'
  // after their optimizer steps.
  if (c.zero > 0)
    for (const auto& bk : e.closed) {
      TaskId after = kNone;
      for (int t : bk.tensors) {
        const int p = g.tensors[static_cast<size_t>(t)].grad_of;
        if (p >= 0) after = std::max(after, optimizer_task[static_cast<size_t>(p)]);
      }
      std::string names;
      for (const auto& n : bk.names) names += (names.empty() ? "" : ", ") + n;
      auto ids = e.collective(
          CollectiveKind::kAllGather, bk.axes, bk.bytes, e.dp, "zero gather", Phase::kOptimizer,
          fill_args(tr_text("Reasons",
                            "all_gather over %1: ZeRO-%2: each replica updated only "
                            "its 1/%3 of %4; gather the new weights (the shared "
                            "platter)"),
                    {e.mesh.axes_string(bk.axes), std::to_string(c.zero),
                     std::to_string(e.axes_size(bk.axes)), names}));
      for (int d = 0; d < e.R; ++d)
        if (ids[static_cast<size_t>(d)] != kNone && after != kNone)
          b.depend(ids[static_cast<size_t>(d)], after + d);
    }
  // Frees: at the last task that read each activation.
  for (size_t t = 0; t < nt; ++t)
    if (e.slot[t] >= 0 && e.last_use[t] != kNone)
      for (int d = 0; d < e.R; ++d) b.free(e.last_use[t] + d, e.slot[t] + d);

  BRIGADE_ASSIGN_OR_RETURN(Program program, std::move(b).build());
  Plan plan;
  plan.program = std::move(program);
  plan.granularity = Granularity::kKernel;
  plan.flops_per_iteration = plan.program.total_flops();
  double params = 0;
  for (const IrTensor& x : g.tensors)
    if (x.parameter) params += elements(x.shape);
  plan.parameters = params;
  std::string mesh_text = "(";
  for (size_t a = 0; a < e.mesh.axes.size(); ++a)
    mesh_text += (a ? ", '" : "'") + e.mesh.axes[a] + "': " + std::to_string(e.mesh.shape[a]);
  mesh_text += ")";
  plan.summary = fill_args(tr_text("Summary", "%1 on a mesh %2 of %n device(s)", nullptr, e.R),
                           {c.model_label, mesh_text});
  if (!e.mode_note.empty()) plan.notes.push_back(e.mode_note);
  plan.notes.push_back(
      "every device runs every op on its local shapes (SPMD); the collectives below are the ones "
      "the shardings imply");
  plan.view_of_device.assign(static_cast<size_t>(sc.topology.num_devices()), -1);
  plan.device_role.assign(static_cast<size_t>(sc.topology.num_devices()), "unused");
  for (int d = 0; d < e.R; ++d) {
    plan.view_of_device[static_cast<size_t>(d)] = 0;
    const auto cc = e.mesh.coords(d);
    std::string role;
    for (size_t a = 0; a < e.mesh.axes.size(); ++a)
      role += (a ? tr_text("Roles", ", ") : "") +
              fill_args(tr_text("Roles", "%1 %2/%3", "a mesh axis's name, the coordinate/its size"),
                        {e.mesh.axes[a], std::to_string(cc[a]), std::to_string(e.mesh.shape[a])});
    plan.device_role[static_cast<size_t>(d)] = role;
  }
  DeviceView view;
  view.title = e.R > 1 ? "every device of the mesh" : "the device";
  for (size_t t = 0; t < nt; ++t) {
    const IrTensor& x = g.tensors[t];
    if (x.grad_of >= 0 && !x.input) continue;  // gradients follow their tensors
    if (e.home[t].empty()) continue;
    TensorView tv;
    tv.name = x.name;
    tv.role = x.parameter ? "parameter" : x.input ? "input" : "activation";
    tv.global_shape = x.shape;
    tv.local_shape = e.local(static_cast<int>(t), e.home[t]);
    if (e.pmap && !e.home[t].empty() && e.home[t][0] == 0 && !tv.local_shape.empty() &&
        tv.local_shape[0] == 1)
      tv.local_shape.erase(tv.local_shape.begin());  // pmap: device i holds x[i]
    tv.dtype = x.dtype;
    tv.sharding = spec_string(e.home[t], e.mesh);
    view.tensors.push_back(tv);
  }
  plan.views.push_back(view);
  return plan;
}

// ---- manual placement ----------------------------------------------------------

Result<Plan> lower_manual(Common& c) {
  const Scenario& sc = *c.sc;
  const TrainingGraph& g = c.g;
  const int ndev = sc.topology.num_devices();
  const size_t nops = g.ops.size(), nt = g.tensors.size();
  // Where each op runs and where each tensor lives (costmodel/op_graph.hpp,
  // the closed form's reading too).
  const cost::ManualPlacement mp = cost::manual_placement(sc, g);
  const std::vector<int>& dev = mp.op_device;
  const std::vector<int>& home = mp.home;
  auto committed = [&](int t) { return mp.committed[static_cast<size_t>(t)]; };
  const int used = mp.used;
  ProgramBuilder b(sc.name.empty() ? "graph" : sc.name, used);
  std::vector<StreamId> compute(static_cast<size_t>(used)), xfer(static_cast<size_t>(used), -1);
  for (int d = 0; d < used; ++d) compute[static_cast<size_t>(d)] = b.stream(d, "compute");
  auto xfer_stream = [&](int d) {
    if (xfer[static_cast<size_t>(d)] < 0) xfer[static_cast<size_t>(d)] = b.stream(d, "xfer");
    return xfer[static_cast<size_t>(d)];
  };
  auto bytes_of = [&](int t) {
    return elements(g.tensors[static_cast<size_t>(t)].shape) *
           dtype_bytes(g.tensors[static_cast<size_t>(t)].dtype);
  };
  // Resident memory per device.
  std::vector<double> params(static_cast<size_t>(used), 0), inputs(static_cast<size_t>(used), 0),
      param_el(static_cast<size_t>(used), 0);
  for (size_t t = 0; t < nt; ++t) {
    const IrTensor& x = g.tensors[t];
    if (x.parameter) {
      params[static_cast<size_t>(home[t])] += bytes_of(static_cast<int>(t));
      param_el[static_cast<size_t>(home[t])] += elements(x.shape);
    } else if (x.input) {
      inputs[static_cast<size_t>(home[t])] += bytes_of(static_cast<int>(t));
    }
  }
  for (int d = 0; d < used; ++d) {
    if (params[static_cast<size_t>(d)] > 0) {
      b.add_buffer("parameters", d, params[static_cast<size_t>(d)], MemoryCategory::kParams, true);
      if (c.training && g.has_backward) {
        b.add_buffer("gradients", d, params[static_cast<size_t>(d)], MemoryCategory::kGrads, true);
        if (c.state_per_param > 0)
          b.add_buffer("optimizer state", d, param_el[static_cast<size_t>(d)] * c.state_per_param,
                       MemoryCategory::kOptimizer, true);
      }
    }
    if (inputs[static_cast<size_t>(d)] > 0)
      b.add_buffer("inputs", d, inputs[static_cast<size_t>(d)], MemoryCategory::kActivations, true);
  }
  // Copies: (tensor, device) -> the transfer task that brought it there.
  std::map<std::pair<int, int>, TaskId> copy;
  std::map<std::pair<int, int>, BufferId> buffer;  // activation buffers by (tensor, device)
  std::map<std::pair<int, int>, TaskId> last_use;  // last task reading (tensor, device)
  std::vector<TaskId> produced_by(nt, kNone);
  int transfers = 0;
  std::vector<std::set<std::string>> held(static_cast<size_t>(used));
  auto bring = [&](int t, int to) -> TaskId {
    const int from = home[static_cast<size_t>(t)];
    if (from == to) return kNone;
    auto key = std::make_pair(t, to);
    auto it = copy.find(key);
    if (it != copy.end()) return it->second;
    const TaskId id =
        b.add_transfer(xfer_stream(from), to, bytes_of(t),
                       "transfer " + g.tensors[static_cast<size_t>(t)].name, Phase::kOther);
    if (produced_by[static_cast<size_t>(t)] != kNone)
      b.depend(id, produced_by[static_cast<size_t>(t)]);
    last_use[{t, from}] = id;
    copy[key] = id;
    ++transfers;
    held[static_cast<size_t>(to)].insert(g.tensors[static_cast<size_t>(t)].name);
    return id;
  };
  for (size_t i = 0; i < nops; ++i) {
    if (cancel_requested(c.cancel)) return cancelled_status();
    const IrOp& op = g.ops[i];
    const int d = dev[i];
    std::vector<TaskId> waits;
    std::vector<BufferId> allocs;
    for (int t : op.inputs) {
      const TaskId x = bring(t, d);
      if (x == kNone) continue;
      waits.push_back(x);
      const bool pgrad = is_param_grad(g, t) || g.tensors[static_cast<size_t>(t)].parameter;
      if (!pgrad && !buffer.count({t, d})) {
        const BufferId bid = b.add_buffer("copy of " + g.tensors[static_cast<size_t>(t)].name, d,
                                          bytes_of(t), MemoryCategory::kActivations);
        buffer[{t, d}] = bid;
        allocs.push_back(bid);
      }
    }
    std::vector<std::vector<std::int64_t>> shapes(nt);
    for (size_t t = 0; t < nt; ++t) shapes[t] = g.tensors[t].shape;
    const OpCost cost = op_cost(g, op, shapes, c.traffic_per_param);
    const TaskId id = emit_op_task(b, compute[static_cast<size_t>(d)], g, op, cost);
    for (TaskId w : waits) b.depend(id, w);
    for (BufferId a : allocs) b.alloc(id, a);
    for (int t : op.inputs) last_use[{t, d}] = id;
    if (op.output >= 0) {
      const int out = op.output;
      produced_by[static_cast<size_t>(out)] = id;
      held[static_cast<size_t>(d)].insert(g.tensors[static_cast<size_t>(out)].name);
      if (!is_param_grad(g, out)) {
        const BufferId bid = b.add_buffer(g.tensors[static_cast<size_t>(out)].name, d,
                                          bytes_of(out), MemoryCategory::kActivations);
        b.alloc(id, bid);
        buffer[{out, d}] = bid;
      }
      // device_put of a result: copy it eagerly.
      const int put = committed(out);
      if (put >= 0 && put != d) bring(out, put);
    }
  }
  for (const auto& [key, bid] : buffer) {
    auto it = last_use.find(key);
    if (it != last_use.end()) b.free(it->second, bid);
  }
  BRIGADE_ASSIGN_OR_RETURN(Program program, std::move(b).build());
  Plan plan;
  plan.program = std::move(program);
  plan.granularity = Granularity::kKernel;
  plan.flops_per_iteration = plan.program.total_flops();
  for (const IrTensor& x : g.tensors)
    if (x.parameter) plan.parameters += elements(x.shape);
  std::map<int, std::vector<std::string>> ops_on;
  for (size_t i = 0; i < nops; ++i)
    if (g.ops[i].model_op >= 0) ops_on[dev[i]].push_back(g.ops[i].name);
  std::string where;
  for (const auto& [d, names] : ops_on) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    where += (where.empty() ? "" : tr_text("Summary", "; ")) +
             fill_args(tr_text("Summary", "%1 -> device %2"), {list, std::to_string(d)});
  }
  plan.summary = fill_args(tr_text("Summary", "%1, manual placement: %2"), {c.model_label, where});
  plan.notes.push_back(std::to_string(transfers) +
                       " transfer(s) on the `xfer` stream: one for "
                       "every tensor an op reads on a device other than the one that made it "
                       "(the runner carrying a dish between chefs)");
  plan.notes.push_back(
      "ops without a placement run where their data is (computation follows "
      "data); uncommitted inputs and parameters live where they are first used");
  plan.view_of_device.assign(static_cast<size_t>(ndev), -1);
  plan.device_role.assign(static_cast<size_t>(ndev), "unused");
  for (int d = 0; d < used; ++d) {
    DeviceView view;
    view.title = "device " + std::to_string(d);
    auto it = ops_on.find(d);
    std::string list;
    if (it != ops_on.end())
      for (const auto& n : it->second) list += (list.empty() ? "" : ", ") + n;
    plan.device_role[static_cast<size_t>(d)] =
        list.empty() ? tr_text("Roles", "idle") : fill_args(tr_text("Roles", "runs %1"), {list});
    for (size_t t = 0; t < nt; ++t) {
      const IrTensor& x = g.tensors[t];
      if (x.grad_of >= 0 && !x.input) continue;
      const bool here = home[t] == d || held[static_cast<size_t>(d)].count(x.name);
      if (!here) continue;
      TensorView tv;
      tv.name = x.name;
      tv.role = x.parameter    ? "parameter"
                : x.input      ? "input"
                : home[t] == d ? "activation"
                               : "copy";
      tv.global_shape = x.shape;
      tv.local_shape = x.shape;
      tv.dtype = x.dtype;
      tv.sharding =
          home[t] == d ? "whole, on this device" : "a copy from device " + std::to_string(home[t]);
      view.tensors.push_back(tv);
    }
    plan.view_of_device[static_cast<size_t>(d)] = static_cast<int>(plan.views.size());
    plan.views.push_back(view);
  }
  return plan;
}

}  // namespace

Result<Plan> lower_graph(const Scenario& sc, const LowerOptions& options) {
  // The training graph and its figures, and (SPMD) the mesh and the requested
  // shardings: costmodel/op_graph.hpp, which the closed form reads too.
  BRIGADE_ASSIGN_OR_RETURN(cost::OpGraphSetup setup, cost::op_graph_setup(sc));
  Common c;
  c.cancel = options.cancel;
  c.sc = &sc;
  c.g = std::move(setup.g);
  c.training = setup.training;
  c.state_per_param = setup.state_per_param;
  c.traffic_per_param = setup.traffic_per_param;
  c.model_label = setup.model_label;
  c.zero = setup.zero;
  if (setup.manual) return lower_manual(c);

  SpmdEmitter e{c};
  BRIGADE_ASSIGN_OR_RETURN(cost::SpmdLayout layout, cost::spmd_layout(sc, c.g));
  e.mesh = std::move(layout.mesh);
  e.requested = std::move(layout.requested);
  e.pmap = layout.pmap;
  e.mode_note = std::move(layout.mode_note);
  return lower_spmd(c, e, options.granularity);
}

}  // namespace brigade::planner::detail
