// The sharding ILP (planner/search_ilp.hpp): the problem of a graph on a
// mesh, CBC, and brute force for the tests.
#include "planner/search_ilp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include <CbcModel.hpp>
#include <CoinPackedMatrix.hpp>
#include <CoinPackedVector.hpp>
#include <OsiClpSolverInterface.hpp>
#include <fmt/format.h>

#include "core/program.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/placement_cost.hpp"

namespace brigade::planner {

double ShardingProblem::objective(const std::vector<int>& c) const {
  double v = 0;
  for (size_t i = 0; i < nodes.size(); ++i) v += nodes[i].cost[static_cast<size_t>(c[i])];
  for (const Edge& e : edges)
    v += e.cost[static_cast<size_t>(c[static_cast<size_t>(e.u)]) * nodes[static_cast<size_t>(e.v)].cost.size() +
                static_cast<size_t>(c[static_cast<size_t>(e.v)])];
  return v;
}

double ShardingProblem::combinations() const {
  double n = 1;
  for (const Node& x : nodes) n *= static_cast<double>(x.cost.size());
  return n;
}

ShardingSolution brute_force_sharding(const ShardingProblem& p) {
  ShardingSolution s;
  std::vector<int> c(p.nodes.size(), 0);
  while (true) {
    ++s.explored;
    const double v = p.objective(c);
    if (s.choice.empty() || v < s.objective) s.choice = c, s.objective = v;
    size_t i = c.size();
    while (i > 0 && c[i - 1] + 1 == static_cast<int>(p.nodes[i - 1].cost.size())) c[--i] = 0;
    if (i == 0) break;
    ++c[i - 1];
  }
  s.optimal = true;
  s.bound = s.objective;
  s.status = fmt::format("optimal (every one of {} combinations)", s.explored);
  return s;
}

ShardingSolution solve_sharding_ilp(const ShardingProblem& p, double seconds) {
  ShardingSolution s;
  // Columns: the strategy choices s_v,i (binary), then the edge terms e_uv,ij in [0, 1].
  std::vector<int> first(p.nodes.size());
  int cols = 0;
  for (size_t v = 0; v < p.nodes.size(); ++v) {
    first[v] = cols;
    cols += static_cast<int>(p.nodes[v].cost.size());
  }
  std::vector<int> edge_first(p.edges.size());
  for (size_t k = 0; k < p.edges.size(); ++k) {
    edge_first[k] = cols;
    cols += static_cast<int>(p.edges[k].cost.size());
  }
  std::vector<double> obj(static_cast<size_t>(cols), 0.0), lo(static_cast<size_t>(cols), 0.0),
      hi(static_cast<size_t>(cols), 1.0);
  for (size_t v = 0; v < p.nodes.size(); ++v)
    for (size_t i = 0; i < p.nodes[v].cost.size(); ++i) obj[static_cast<size_t>(first[v]) + i] = p.nodes[v].cost[i];
  for (size_t k = 0; k < p.edges.size(); ++k)
    for (size_t x = 0; x < p.edges[k].cost.size(); ++x) obj[static_cast<size_t>(edge_first[k]) + x] = p.edges[k].cost[x];
  CoinPackedMatrix m(false, 0, 0);
  m.setDimensions(0, cols);
  std::vector<double> rlo, rhi;
  for (size_t v = 0; v < p.nodes.size(); ++v) {  // one strategy per node
    CoinPackedVector row;
    for (size_t i = 0; i < p.nodes[v].cost.size(); ++i) row.insert(first[v] + static_cast<int>(i), 1.0);
    m.appendRow(row);
    rlo.push_back(1.0);
    rhi.push_back(1.0);
  }
  for (size_t k = 0; k < p.edges.size(); ++k) {
    const auto& e = p.edges[k];
    const int nu = static_cast<int>(p.nodes[static_cast<size_t>(e.u)].cost.size());
    const int nv = static_cast<int>(p.nodes[static_cast<size_t>(e.v)].cost.size());
    for (int i = 0; i < nu; ++i) {  // sum_j e_ij = s_u,i
      CoinPackedVector row;
      for (int j = 0; j < nv; ++j) row.insert(edge_first[k] + i * nv + j, 1.0);
      row.insert(first[static_cast<size_t>(e.u)] + i, -1.0);
      m.appendRow(row);
      rlo.push_back(0.0);
      rhi.push_back(0.0);
    }
    for (int j = 0; j < nv; ++j) {  // sum_i e_ij = s_v,j
      CoinPackedVector row;
      for (int i = 0; i < nu; ++i) row.insert(edge_first[k] + i * nv + j, 1.0);
      row.insert(first[static_cast<size_t>(e.v)] + j, -1.0);
      m.appendRow(row);
      rlo.push_back(0.0);
      rhi.push_back(0.0);
    }
  }
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(m, lo.data(), hi.data(), obj.data(), rlo.data(), rhi.data());
  for (size_t v = 0; v < p.nodes.size(); ++v)
    for (size_t i = 0; i < p.nodes[v].cost.size(); ++i) solver.setInteger(first[v] + static_cast<int>(i));
  CbcModel model(solver);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  if (seconds > 0) model.setMaximumSeconds(seconds);
  model.branchAndBound();
  s.explored = static_cast<std::uint64_t>(std::max(0, model.getNodeCount()));
  const double* x = model.bestSolution();
  if (x != nullptr) {
    s.choice.assign(p.nodes.size(), 0);
    for (size_t v = 0; v < p.nodes.size(); ++v) {
      int best = 0;
      for (size_t i = 0; i < p.nodes[v].cost.size(); ++i)
        if (x[static_cast<size_t>(first[v]) + i] > x[static_cast<size_t>(first[v] + best)]) best = static_cast<int>(i);
      s.choice[v] = best;
    }
    s.objective = p.objective(s.choice);
  }
  s.optimal = x != nullptr && model.isProvenOptimal();
  s.bound = s.optimal ? s.objective : model.getBestPossibleObjValue();
  s.status = s.optimal                ? fmt::format("optimal ({} CBC node{})", s.explored, s.explored == 1 ? "" : "s")
             : model.isSecondsLimitReached() ? fmt::format("stopped at the time limit after {} CBC nodes", s.explored)
             : x == nullptr                  ? std::string("CBC found no solution")
                                             : std::string("CBC stopped without proving optimality");
  return s;
}

namespace {

// Every spec of a tensor of `shape` on `mesh`: each dimension whole or split
// over one axis (each axis once) that divides it.
std::vector<PartitionSpec> all_specs(const std::vector<std::int64_t>& shape, const Mesh& mesh) {
  std::vector<PartitionSpec> out;
  PartitionSpec cur(shape.size(), -1);
  std::vector<bool> used(mesh.axes.size(), false);
  auto rec = [&](auto&& self, size_t d) -> void {
    if (d == shape.size()) {
      out.push_back(cur);
      return;
    }
    cur[d] = -1;
    self(self, d + 1);
    for (size_t a = 0; a < mesh.axes.size(); ++a) {
      if (used[a] || shape[d] % mesh.shape[a] != 0) continue;
      used[a] = true;
      cur[d] = static_cast<int>(a);
      self(self, d + 1);
      cur[d] = -1;
      used[a] = false;
    }
  };
  rec(rec, 0);
  return out;
}

double shards(const PartitionSpec& s, const Mesh& mesh) {
  double n = 1;
  for (int a : s)
    if (a >= 0) n *= static_cast<double>(mesh.shape[static_cast<size_t>(a)]);
  return n;
}

// A lower-rank operand broadcast against a spec: the spec's trailing dimensions.
PartitionSpec trailing(const PartitionSpec& s, size_t rank) {
  if (rank >= s.size()) return s;
  return PartitionSpec(s.end() - static_cast<std::ptrdiff_t>(rank), s.end());
}

DType op_dtype(const Model& g, const Op& op) {
  if (!op.outputs.empty()) return g.tensors[static_cast<size_t>(op.outputs.front())].dtype;
  if (!op.inputs.empty()) return g.tensors[static_cast<size_t>(op.inputs.front())].dtype;
  return DType::kF32;
}

struct Strategy {
  std::vector<PartitionSpec> inputs;  // required spec per input
  PartitionSpec output;
  double seconds = 0;  // compute + the collectives the strategy implies
};

}  // namespace

Result<MeshSharding> sharding_problem(const Model& g, const Mesh& mesh, const Topology& topo,
                                      const HardwareProfile& prof, CollectiveAlgorithm algorithm) {
  MeshSharding ms;
  ms.mesh = mesh;
  if (mesh.size() > topo.num_devices())
    return Status::error(fmt::format("found a mesh of {} devices on {}; expected at most the topology's",
                                     mesh.size(), topo.num_devices()));
  const Device& dev0 = topo.device(0);
  const DeviceProfile& dp0 = prof.for_device(dev0);
  // A collective over mesh axes: the slowest of its groups (memoised).
  std::map<std::tuple<int, std::vector<int>, double>, double> memo;
  auto collective = [&](CollectiveKind kind, const std::vector<int>& axes, double bytes) -> Result<double> {
    auto key = std::make_tuple(static_cast<int>(kind), axes, bytes);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    double worst = 0;
    for (const auto& grp : mesh.groups(axes)) {
      if (grp.size() <= 1 || bytes <= 0) continue;
      BRIGADE_ASSIGN_OR_RETURN(cost::CollectiveQuery q,
                               cost::collective_query_on(topo, prof, kind, algorithm, grp, bytes));
      BRIGADE_ASSIGN_OR_RETURN(cost::CollectiveCost c, cost::collective_cost(q));
      worst = std::max(worst, c.seconds);
    }
    memo[key] = worst;
    return worst;
  };
  auto reshard_seconds = [&](int t, const PartitionSpec& from, const PartitionSpec& to) -> Result<double> {
    if (from == to) return 0.0;
    const TensorSpec& ts = g.tensors[static_cast<size_t>(t)];
    double sum = 0;
    for (const ReshardStep& st : reshard(Sharded{from, {}}, to, ts.shape, dtype_bytes(ts.dtype), mesh)) {
      BRIGADE_ASSIGN_OR_RETURN(double x, collective(st.kind, st.axes, st.bytes));
      sum += x;
    }
    return sum;
  };

  // Nodes: graph inputs and weights (any spec, free), then ops.
  std::vector<int> node_of_tensor(g.tensors.size(), -1);
  std::vector<bool> produced(g.tensors.size(), false);
  for (const Op& op : g.ops)
    for (int t : op.outputs) produced[static_cast<size_t>(t)] = true;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (produced[t]) continue;
    bool read = false;
    for (const Op& op : g.ops) read |= std::find(op.inputs.begin(), op.inputs.end(), static_cast<int>(t)) != op.inputs.end();
    if (!read) continue;
    node_of_tensor[t] = static_cast<int>(ms.problem.nodes.size());
    ms.specs.push_back(all_specs(g.tensors[t].shape, mesh));
    ms.problem.nodes.push_back({g.tensors[t].name, std::vector<double>(ms.specs.back().size(), 0.0)});
    ms.node_tensor.push_back(static_cast<int>(t));
    ms.leaf.push_back(true);
    ms.inputs.emplace_back();
    ms.input_specs.emplace_back();
  }
  BRIGADE_ASSIGN_OR_RETURN(std::vector<int> order, cost::topological_order(g));
  std::vector<std::vector<Strategy>> strategies;  // per op node, aligned with nodes after the leaves
  std::vector<int> op_node(g.ops.size(), -1);
  for (int o : order) {
    const Op& op = g.ops[static_cast<size_t>(o)];
    if (op.flops < 0 || op.bytes < 0)
      return Status::error(fmt::format("found op '{}' without FLOPs or bytes; expected a model after Model::infer()", op.name));
    const int out = op.outputs.empty() ? -1 : op.outputs.front();
    const DType odt = op_dtype(g, op);
    std::vector<Strategy> ss;
    auto elementwise_time = [&](double ws) {
      return kernel_seconds(dev0, dp0, odt, op.flops / ws, op.bytes / ws, compute_kind_of(op.kind),
                            op_written_bytes(g, op) / ws,
                            streaming_class_of(op.kind, op.fn, Phase::kForward));
    };
    auto same_or_trailing = [&](const PartitionSpec& s, size_t rank_ref) {
      std::vector<PartitionSpec> ins;
      for (int t : op.inputs) {
        const size_t r = g.tensors[static_cast<size_t>(t)].shape.size();
        ins.push_back(r == rank_ref ? s : trailing(s, r));
      }
      return ins;
    };
    const bool matmul = op.kind == OpKind::kMatmul && op.inputs.size() == 2 && out >= 0 &&
                        g.tensors[static_cast<size_t>(op.inputs[1])].shape.size() == 2 &&
                        g.tensors[static_cast<size_t>(op.inputs[0])].shape.size() >= 2;
    if (matmul) {
      const auto& xs = g.tensors[static_cast<size_t>(op.inputs[0])].shape;
      const auto& ws = g.tensors[static_cast<size_t>(op.inputs[1])].shape;
      const auto& os = g.tensors[static_cast<size_t>(out)].shape;
      const std::int64_t rows0 = xs[0], kdim = ws[0], ndim = ws[1];
      const int A = static_cast<int>(mesh.axes.size());
      // Each mesh axis on the rows, the contraction, the columns or nowhere.
      for (int code = 0; code < static_cast<int>(std::pow(4, A)); ++code) {
        int row = -1, k = -1, n = -1;
        bool ok = true;
        for (int a = 0, c = code; a < A; ++a, c /= 4) {
          int& slot = (c % 4 == 1) ? row : (c % 4 == 2) ? k : n;
          if (c % 4 == 0) continue;
          if (slot >= 0) ok = false;
          slot = a;
        }
        if (!ok) continue;
        auto size = [&](int a) { return a < 0 ? std::int64_t{1} : mesh.shape[static_cast<size_t>(a)]; };
        if (rows0 % size(row) != 0 || kdim % size(k) != 0 || ndim % size(n) != 0) continue;
        Strategy s;
        PartitionSpec xspec(xs.size(), -1), wspec = {k, n}, ospec(os.size(), -1);
        xspec[0] = row;
        xspec.back() = k;
        if (xs.size() == 1) xspec = {k};
        ospec[0] = row;
        ospec.back() = n;
        s.inputs = {xspec, wspec};
        s.output = ospec;
        std::int64_t rows = 1;
        for (size_t d = 0; d + 1 < os.size(); ++d) rows *= d == 0 ? os[d] / size(row) : os[d];
        s.seconds = cost::gemm_seconds(dev0, dp0, rows, ndim / size(n), kdim / size(k), g.tensors[static_cast<size_t>(out)].dtype);
        if (k >= 0) {
          const double out_local = g.tensors[static_cast<size_t>(out)].bytes() / shards(ospec, mesh);
          BRIGADE_ASSIGN_OR_RETURN(double psum, collective(CollectiveKind::kAllReduce, {k}, out_local));
          s.seconds += psum;
        }
        ss.push_back(s);
      }
    } else if (out >= 0 && (op.kind == OpKind::kElementwise || op.kind == OpKind::kSoftmax ||
                            op.kind == OpKind::kLayerNorm)) {
      const auto& os = g.tensors[static_cast<size_t>(out)].shape;
      for (const PartitionSpec& spec : all_specs(os, mesh)) {
        if (op.kind != OpKind::kElementwise && !spec.empty() && spec.back() >= 0) continue;  // whole rows
        Strategy s;
        s.inputs = same_or_trailing(spec, os.size());
        s.output = spec;
        s.seconds = elementwise_time(shards(spec, mesh));
        ss.push_back(s);
      }
    } else if (op.kind == OpKind::kLoss && !op.inputs.empty()) {
      const auto& is = g.tensors[static_cast<size_t>(op.inputs[0])].shape;
      for (const PartitionSpec& spec : all_specs(is, mesh)) {
        Strategy s;
        s.inputs = same_or_trailing(spec, is.size());
        s.output = out >= 0 ? PartitionSpec(g.tensors[static_cast<size_t>(out)].shape.size(), -1) : PartitionSpec{};
        s.seconds = elementwise_time(shards(spec, mesh));
        ss.push_back(s);
      }
    }
    if (ss.empty()) {  // replicated: every device runs the whole op
      Strategy s;
      for (int t : op.inputs) s.inputs.push_back(PartitionSpec(g.tensors[static_cast<size_t>(t)].shape.size(), -1));
      if (out >= 0) s.output = PartitionSpec(g.tensors[static_cast<size_t>(out)].shape.size(), -1);
      s.seconds = elementwise_time(1);
      ss.push_back(s);
    }
    op_node[static_cast<size_t>(o)] = static_cast<int>(ms.problem.nodes.size());
    ShardingProblem::Node node{op.name, {}};
    std::vector<PartitionSpec> out_specs;
    for (const Strategy& s : ss) {
      node.cost.push_back(s.seconds);
      out_specs.push_back(s.output);
    }
    ms.problem.nodes.push_back(node);
    ms.specs.push_back(out_specs);
    ms.node_tensor.push_back(out);
    ms.leaf.push_back(false);
    ms.inputs.push_back(op.inputs);
    ms.input_specs.emplace_back();
    for (const Strategy& st : ss) ms.input_specs.back().push_back(st.inputs);
    if (out >= 0) node_of_tensor[static_cast<size_t>(out)] = op_node[static_cast<size_t>(o)];
    // Edges from each input's node.
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const int t = op.inputs[k];
      const int u = node_of_tensor[static_cast<size_t>(t)];
      if (u < 0) continue;
      ShardingProblem::Edge e;
      e.u = u;
      e.v = op_node[static_cast<size_t>(o)];
      const auto& from_specs = ms.specs[static_cast<size_t>(u)];
      for (const PartitionSpec& fs : from_specs)
        for (const Strategy& s : ss) {
          BRIGADE_ASSIGN_OR_RETURN(double x, reshard_seconds(t, fs, s.inputs[k]));
          e.cost.push_back(x);
        }
      ms.problem.edges.push_back(std::move(e));
    }
  }
  return ms;
}

std::map<std::string, std::vector<std::string>> shardings_of(const MeshSharding& ms, const Model& g,
                                                              const std::vector<int>& choice,
                                                              bool leaves_only) {
  std::map<std::string, std::vector<std::string>> out;
  auto write = [&](int t, const PartitionSpec& spec) {
    std::vector<std::string> axes;
    for (int a : spec) axes.push_back(a < 0 ? std::string() : ms.mesh.axes[static_cast<size_t>(a)]);
    out[g.tensors[static_cast<size_t>(t)].name] = axes;
  };
  for (size_t v = 0; v < ms.problem.nodes.size(); ++v) {
    const int t = ms.node_tensor[v];
    if (t < 0 || (leaves_only && !ms.leaf[v])) continue;
    PartitionSpec spec = ms.specs[v][static_cast<size_t>(choice[v])];
    if (ms.leaf[v]) {
      // As its first reader (in node order: topological) needs it.
      bool found = false;
      for (size_t u = 0; u < ms.problem.nodes.size() && !found; ++u)
        for (size_t k = 0; k < ms.inputs[u].size() && !found; ++k)
          if (ms.inputs[u][k] == t) {
            spec = ms.input_specs[u][static_cast<size_t>(choice[u])][k];
            found = true;
          }
    }
    write(t, spec);
  }
  return out;
}

}  // namespace brigade::planner
