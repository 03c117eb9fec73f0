// The plan judge for explicit op graphs: a per-op placement (the seed's
// Cost(P) and the critical path) or a mesh with JAX-style shardings.
#include "costmodel/plan_internal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/scaling.hpp"

namespace brigade::cost::detail {

using std::int64_t;

// ---- explicit graph + per-op placement (the seed's Cost(P)) ----------------------------

namespace {

// Memory of a forward-only graph on each device: parameter tensors its ops
// read and other tensors its ops read or write, each once, all live at once.
void graph_memory(const Scenario& sc, const std::vector<int>& op_device,
                  const std::vector<double>& shard_of_tensor, const std::vector<int>& devices,
                  PlanEstimate& e) {
  const Model& g = sc.graph;
  for (int dev : devices) {
    std::set<int> seen;
    double params = 0, acts = 0;
    for (size_t o = 0; o < g.ops.size(); ++o) {
      if (op_device[o] != dev && op_device[o] != -1) continue;
      for (const auto* list : {&g.ops[o].inputs, &g.ops[o].outputs})
        for (int ti : *list) {
          if (!seen.insert(ti).second) continue;
          const TensorSpec& ts = g.tensors[static_cast<size_t>(ti)];
          const double bytes = ts.bytes() / shard_of_tensor[static_cast<size_t>(ti)];
          (ts.is_parameter ? params : acts) += bytes;
        }
    }
    e.memory.push_back(memory_entry(dev, 0, ModelStateBytes{params, 0, 0}, acts, 0.0,
                                    sc.topology.device(dev).memory_bytes));
  }
}

// The dtype a graph computes in, for its MFU: that of the output of the op with
// the most FLOPs (f32 for a graph without FLOPs).
DType graph_dtype(const Model& g) {
  const Op* top = nullptr;
  for (const Op& o : g.ops)
    if (!o.outputs.empty() && (top == nullptr || o.flops > top->flops)) top = &o;
  if (top == nullptr || top->flops <= 0) return DType::kF32;
  return g.tensors[static_cast<size_t>(top->outputs.front())].dtype;
}

}  // namespace

Result<PlanEstimate> estimate_placement(const Scenario& sc) {
  const Model& g = sc.graph;
  std::vector<int> op_device(g.ops.size(), 0);
  int unplaced = 0;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    auto it = sc.placement.find(g.ops[o].name);
    if (it == sc.placement.end()) {
      ++unplaced;
      continue;
    }
    if (it->second < 0 || it->second >= sc.topology.num_devices())
      return bad_at(sc, "placement." + g.ops[o].name,
                    fmt::format("found device {} for op '{}'; expected a device id in 0..{}",
                                it->second, g.ops[o].name, sc.topology.num_devices() - 1));
    op_device[o] = it->second;
  }
  auto pc = placement_cost(g, op_device, sc.topology, sc.profile);
  if (!pc.is_ok()) return bad_at(sc, "placement", pc.message());
  PlanEstimate e;
  e.name = sc.name;
  e.model_kind = "graph";
  // The devices that run an op (unplaced ops run on device 0), not the highest index:
  // a placement on devices 0 and 3 uses two.
  const std::set<int> used_set(op_device.begin(), op_device.end());
  std::vector<int> used(used_set.begin(), used_set.end());
  if (used.empty()) used.push_back(0);  // a graph without ops still sits on device 0
  e.devices = static_cast<int>(used.size());
  e.step_seconds = pc->critical_path_seconds;
  e.compute_seconds = *std::max_element(pc->device_compute_seconds.begin(), pc->device_compute_seconds.end());
  e.exposed_communication_seconds = std::max(0.0, e.step_seconds - e.compute_seconds);
  CommLedger ledger;
  ledger.add("transfer", "p2p", 2, pc->crossing_edges, pc->crossing_bytes, pc->transfer_with_alpha_seconds,
             e.exposed_communication_seconds);
  e.communication = ledger.take();
  e.parameters = g.parameter_count();
  e.model_flops_per_iteration = g.total_flops();
  e.hardware_flops_per_iteration = e.model_flops_per_iteration;
  graph_memory(sc, op_device, std::vector<double>(g.tensors.size(), 1.0), used, e);
  e.placement = *pc;
  e.notes.push_back("graph: forward only, as written; every tensor of a device counted live at once");
  e.notes.push_back("step = the critical path (ops in topological order, one at a time per device, "
                    "a crossing edge adds alpha + size/B); Cost(P) is the seed's sum");
  if (unplaced > 0)
    e.notes.push_back(fmt::format("{} op{} without a placement run on device 0 (JAX's default device)",
                                  unplaced, unplaced == 1 ? "" : "s"));
  if (!sc.device_put.empty())
    e.notes.push_back("device_put entries are not judged in closed form (the simulator does)");
  finish_flops(e, sc.topology.device(used.front()), sc.profile, graph_dtype(g));
  fill_amdahl(e);
  return e;
}

// ---- explicit graph + mesh + shardings (JAX NamedSharding) -----------------------------

namespace {
using Spec = std::vector<std::string>;  // per dimension: mesh axis or "" (replicated)
}  // namespace

Result<PlanEstimate> estimate_sharded(const Scenario& sc) {
  const Model& g = sc.graph;
  const MeshSpec& mesh = *sc.mesh;
  if (mesh.shape.size() != mesh.axes.size() || mesh.shape.empty())
    return bad_at(sc, "mesh", fmt::format("found a mesh of {} sizes and {} axis names; expected one "
                                          "name per size", mesh.shape.size(), mesh.axes.size()));
  std::map<std::string, int> axis_size;
  int n_devices = 1;
  for (size_t i = 0; i < mesh.axes.size(); ++i) {
    axis_size[mesh.axes[i]] = static_cast<int>(mesh.shape[i]);
    n_devices *= static_cast<int>(mesh.shape[i]);
  }
  if (n_devices > sc.topology.num_devices())
    return bad_at(sc, "mesh.shape", fmt::format("found a mesh of {} devices; expected at most the "
                                                "topology's {}", n_devices, sc.topology.num_devices()));
  // Device groups along one axis: mesh positions in row-major order are device ids.
  auto groups_along = [&](const std::string& axis) {
    std::vector<std::vector<int>> groups;
    size_t ai = 0;
    while (mesh.axes[ai] != axis) ++ai;
    int stride = 1;
    for (size_t j = ai + 1; j < mesh.shape.size(); ++j) stride *= static_cast<int>(mesh.shape[j]);
    const int size = static_cast<int>(mesh.shape[ai]);
    for (int dev = 0; dev < n_devices; ++dev) {
      if ((dev / stride) % size != 0) continue;  // first member of its group
      std::vector<int> grp;
      for (int k = 0; k < size; ++k) grp.push_back(dev + k * stride);
      groups.push_back(grp);
    }
    return groups;
  };
  auto shards = [&](const Spec& spec) {
    double n = 1;
    std::set<std::string> used;
    for (const std::string& ax : spec)
      if (!ax.empty() && used.insert(ax).second) n *= axis_size[ax];
    return n;
  };

  std::vector<Spec> spec(g.tensors.size());
  for (size_t ti = 0; ti < g.tensors.size(); ++ti) {
    spec[ti].assign(g.tensors[ti].shape.size(), "");
    auto it = sc.shardings.find(g.tensors[ti].name);
    if (it == sc.shardings.end()) continue;
    if (it->second.size() != g.tensors[ti].shape.size())
      return bad_at(sc, "shardings." + g.tensors[ti].name,
                    fmt::format("found {} entries for tensor '{}' of rank {}; expected one per dimension",
                                it->second.size(), g.tensors[ti].name, g.tensors[ti].shape.size()));
    for (size_t dim = 0; dim < it->second.size(); ++dim) {
      const std::string& ax = it->second[dim];
      if (!ax.empty() && !axis_size.count(ax))
        return bad_at(sc, "shardings." + g.tensors[ti].name,
                      fmt::format("found axis '{}' for tensor '{}'; expected a mesh axis", ax,
                                  g.tensors[ti].name));
      spec[ti][dim] = ax;
    }
  }

  PlanEstimate e;
  e.name = sc.name;
  e.model_kind = "graph";
  e.devices = n_devices;
  const Device& dev0 = sc.topology.device(0);
  const DeviceProfile& dp0 = sc.profile.for_device(dev0);
  CommLedger ledger;
  double comm = 0;
  // A collective along `axis` of M bytes per rank: the slowest of the axis's groups.
  auto along = [&](CollectiveKind kind, const std::string& axis, double bytes,
                   const std::string& why) -> Status {
    double worst = 0;
    for (const auto& grp : groups_along(axis)) {
      auto s = plan_collective(sc, kind, grp, bytes);
      if (!s.is_ok()) return s.status();
      worst = std::max(worst, *s);
    }
    comm += worst;
    ledger.add("sharding", kind_name(kind), axis_size[axis], 1, bytes, worst, worst);
    e.notes.push_back(fmt::format("{} over '{}': {}", kind_name(kind), axis, why));
    return Status::ok();
  };
  auto local_bytes = [&](int ti) {
    return g.tensors[static_cast<size_t>(ti)].bytes() / shards(spec[static_cast<size_t>(ti)]);
  };
  // Gathers dimension `dim` of tensor ti along its axis (that dimension becomes whole).
  auto gather_dim = [&](int ti, size_t dim, const std::string& consumer) -> Status {
    std::string& ax = spec[static_cast<size_t>(ti)][dim];
    if (ax.empty()) return Status::ok();
    const double gathered = local_bytes(ti) * axis_size[ax];
    const std::string axis = ax;
    ax.clear();
    return along(CollectiveKind::kAllGather, axis, gathered,
                 "'" + consumer + "' needs all of '" + g.tensors[static_cast<size_t>(ti)].name + "'");
  };
  // Gathers every sharded dimension of tensor ti (it becomes replicated).
  auto gather_all = [&](int ti, const std::string& consumer) -> Status {
    for (size_t dim = 0; dim < spec[static_cast<size_t>(ti)].size(); ++dim)
      BRIGADE_RETURN_IF_ERROR(gather_dim(ti, dim, consumer));
    return Status::ok();
  };

  BRIGADE_ASSIGN_OR_RETURN(std::vector<int> order, topological_order(g));
  double compute = 0;
  for (int o : order) {
    const Op& op = g.ops[static_cast<size_t>(o)];
    if (op.flops < 0 || op.bytes < 0)
      return bad_at(sc, "model.graph", fmt::format("found op '{}' without FLOPs or bytes; expected "
                                                   "a model after Model::infer()", op.name));
    double work_shards = 1;
    const int out = op.outputs.empty() ? -1 : op.outputs.front();
    if (op.kind == OpKind::kMatmul && op.inputs.size() == 2 && out >= 0) {
      const int x = op.inputs[0], wt = op.inputs[1];
      Spec& sx = spec[static_cast<size_t>(x)];
      Spec& sw = spec[static_cast<size_t>(wt)];
      if (sx.empty() || sw.size() != 2)
        return bad_at(sc, "model.graph", fmt::format("found matmul '{}' with operands of rank {} and "
                                                     "{}; expected [..., k] x [k, n]", op.name,
                                                     sx.size(), sw.size()));
      std::string kx = sx.back(), kw = sw[0];
      // Contracted dimension sharded on one side only: XLA gathers that operand.
      if (kx != kw) {
        if (!kx.empty()) {
          BRIGADE_RETURN_IF_ERROR(gather_dim(x, sx.size() - 1, op.name));
          kx.clear();
        }
        if (!kw.empty()) {
          BRIGADE_RETURN_IF_ERROR(gather_dim(wt, 0, op.name));
          kw.clear();
        }
      }
      Spec so(sx.begin(), sx.end() - 1);
      so.push_back(sw[1]);
      // The same axis on two output dimensions cannot be: gather the weight's columns.
      if (!sw[1].empty() && std::count(so.begin(), so.end(), sw[1]) > 1) {
        BRIGADE_RETURN_IF_ERROR(gather_dim(wt, 1, op.name));
        so.back().clear();
      }
      Spec work = so;
      if (!kx.empty()) work.push_back(kx);
      work_shards = shards(work);
      spec[static_cast<size_t>(out)] = so;
      // The local GEMM's shape (rows, columns, contracted), so that its time is
      // gemm_seconds' (tile waves included), as the lowered task's.
      const TensorSpec& ot = g.tensors[static_cast<size_t>(out)];
      auto local_dim = [&](std::int64_t size, const std::string& ax) {
        return ax.empty() ? size : size / static_cast<std::int64_t>(axis_size[ax]);
      };
      std::int64_t rows = 1;
      for (size_t dim = 0; dim + 1 < ot.shape.size(); ++dim) rows *= local_dim(ot.shape[dim], so[dim]);
      const std::int64_t cols = ot.shape.empty() ? 1 : local_dim(ot.shape.back(), so.back());
      const std::int64_t inner =
          local_dim(g.tensors[static_cast<size_t>(x)].shape.back(), kx);
      compute += gemm_seconds(dev0, dp0, rows, cols, inner, ot.dtype);
      // A contracted dimension sharded on both sides leaves partial sums: psum.
      if (!kx.empty())
        BRIGADE_RETURN_IF_ERROR(along(CollectiveKind::kAllReduce, kx, local_bytes(out),
                                      "psum of '" + op.name + "' (row-sharded matmul: y = sum_k x_k W_k)"));
      continue;
    }
    if (op.kind == OpKind::kElementwise && !op.inputs.empty() && out >= 0) {
      const Spec& first = spec[static_cast<size_t>(op.inputs[0])];
      for (size_t k = 1; k < op.inputs.size(); ++k)
        if (spec[static_cast<size_t>(op.inputs[k])] != first &&
            g.tensors[static_cast<size_t>(op.inputs[k])].shape.size() == first.size())
          BRIGADE_RETURN_IF_ERROR(gather_all(op.inputs[k], op.name));
      spec[static_cast<size_t>(out)] = spec[static_cast<size_t>(op.inputs[0])];
      work_shards = shards(spec[static_cast<size_t>(out)]);
    } else if ((op.kind == OpKind::kSoftmax || op.kind == OpKind::kLayerNorm) && !op.inputs.empty() &&
               out >= 0) {
      // Normalising over the last axis needs it whole.
      Spec& si = spec[static_cast<size_t>(op.inputs[0])];
      if (!si.empty()) BRIGADE_RETURN_IF_ERROR(gather_dim(op.inputs[0], si.size() - 1, op.name));
      spec[static_cast<size_t>(out)] = si;
      work_shards = shards(si);
    } else if (op.kind == OpKind::kLoss && !op.inputs.empty()) {
      // A scalar from sharded rows: each device reduces its block. The value is read by no
      // op (its backward needs the prediction, not the mean), so no psum of it is counted,
      // as the planner emits none (planner/lower_graph.cpp).
      work_shards = shards(spec[static_cast<size_t>(op.inputs[0])]);
    } else {
      for (int in : op.inputs) BRIGADE_RETURN_IF_ERROR(gather_all(in, op.name));
    }
    const DType odt = out >= 0 ? g.tensors[static_cast<size_t>(out)].dtype : DType::kF32;
    compute += kernel_seconds(dev0, dp0, odt, op.flops / work_shards, op.bytes / work_shards,
                              compute_kind_of(op.kind), op_written_bytes(g, op) / work_shards);
  }
  e.compute_seconds = compute;
  e.exposed_communication_seconds = comm;
  e.step_seconds = compute + comm;
  e.communication = ledger.take();
  e.parameters = g.parameter_count();
  e.model_flops_per_iteration = g.total_flops();
  e.hardware_flops_per_iteration = e.model_flops_per_iteration;
  std::vector<double> shard_of(g.tensors.size());
  for (size_t ti = 0; ti < g.tensors.size(); ++ti) shard_of[ti] = shards(spec[ti]);
  std::vector<int> all(static_cast<size_t>(n_devices));
  for (int i = 0; i < n_devices; ++i) all[static_cast<size_t>(i)] = i;
  graph_memory(sc, std::vector<int>(g.ops.size(), -1), shard_of, all, e);
  e.notes.push_back("shardings: every device runs every op on its block (FLOPs / devices sharing "
                    "the op); collectives are on the critical path; forward only, as written");
  finish_flops(e, dev0, sc.profile, graph_dtype(g));
  fill_amdahl(e);
  return e;
}

}  // namespace brigade::cost::detail
