#include "costmodel/placement_cost.hpp"

#include <algorithm>
#include <functional>
#include <queue>

#include <fmt/format.h>

namespace brigade::cost {
namespace {

DType op_dtype(const Model& model, const Op& op) {
  if (!op.outputs.empty()) return model.tensors[static_cast<size_t>(op.outputs.front())].dtype;
  if (!op.inputs.empty()) return model.tensors[static_cast<size_t>(op.inputs.front())].dtype;
  return DType::kF32;
}

}  // namespace

Result<std::vector<int>> topological_order(const Model& model) {
  const size_t n = model.ops.size();
  const std::vector<DataEdge> edges = model.edges();
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<int>> out(n);
  for (const DataEdge& e : edges) {
    ++indegree[static_cast<size_t>(e.to)];
    out[static_cast<size_t>(e.from)].push_back(e.to);
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(static_cast<int>(i));
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int o = ready.top();
    ready.pop();
    order.push_back(o);
    for (int v : out[static_cast<size_t>(o)])
      if (--indegree[static_cast<size_t>(v)] == 0) ready.push(v);
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (indegree[i] > 0)
        return Status::error(fmt::format("found a cycle through op '{}'; expected an acyclic graph",
                                         model.ops[i].name));
  }
  return order;
}

Result<PlacementCost> placement_cost(const Model& model, const std::vector<int>& op_device,
                                     const Topology& topology, const HardwareProfile& profile) {
  const size_t n = model.ops.size();
  if (op_device.size() != n)
    return Status::error(fmt::format("found {} device assignments for {} ops; expected one per op",
                                     op_device.size(), n));
  const int d = topology.num_devices();
  PlacementCost c;
  c.op_seconds.assign(n, 0.0);
  c.op_finish_seconds.assign(n, 0.0);
  c.device_compute_seconds.assign(static_cast<size_t>(d), 0.0);
  for (size_t i = 0; i < n; ++i) {
    const Op& op = model.ops[i];
    const int dev = op_device[i];
    if (dev < 0 || dev >= d)
      return Status::error(fmt::format("found device {} for op '{}'; expected a device id in 0..{}",
                                       dev, op.name, d - 1));
    if (op.flops < 0 || op.bytes < 0)
      return Status::error(fmt::format(
          "found op '{}' without FLOPs or bytes; expected a model after Model::infer()", op.name));
    const Device& device = topology.device(dev);
    // T_compute(i): the roofline (core's kernel_seconds).
    c.op_seconds[i] =
        kernel_seconds(device, profile.for_device(device), op_dtype(model, op), op.flops, op.bytes,
                       compute_kind_of(op.kind), op_written_bytes(model, op),
                       streaming_class_of(op.kind, op.fn, Phase::kForward));
    c.compute_seconds += c.op_seconds[i];
    c.device_compute_seconds[static_cast<size_t>(dev)] += c.op_seconds[i];
  }

  // Crossing edges: size(u->v) / B(P(u), P(v)) (the seed's Cost(P)), and alpha + size / B.
  const std::vector<DataEdge> edges = model.edges();
  std::vector<std::vector<std::pair<int, double>>> in_edges(n);  // (producer, delay)
  for (const DataEdge& e : edges) {
    const int a = op_device[static_cast<size_t>(e.from)], b = op_device[static_cast<size_t>(e.to)];
    double delay = 0;
    if (a != b) {
      const Route& r = topology.route(a, b);
      const double size = model.tensors[static_cast<size_t>(e.tensor)].bytes();
      const double bw = route_bandwidth_bytes_per_second(r, topology, profile);
      const double alpha = route_alpha_seconds(r, profile);
      c.transfer_seconds += size / bw;
      delay = alpha + size / bw;
      c.transfer_with_alpha_seconds += delay;
      ++c.crossing_edges;
      c.crossing_bytes += size;
    }
    in_edges[static_cast<size_t>(e.to)].emplace_back(e.from, delay);
  }
  c.seed_cost_seconds = c.compute_seconds + c.transfer_seconds;
  c.cost_with_alpha_seconds = c.compute_seconds + c.transfer_with_alpha_seconds;

  // List schedule in topological order: an op starts when its inputs have
  // arrived and its device is free.
  BRIGADE_ASSIGN_OR_RETURN(std::vector<int> order, topological_order(model));
  std::vector<double> device_free(static_cast<size_t>(d), 0.0);
  for (int o : order) {
    const auto oi = static_cast<size_t>(o);
    double ready = 0;
    for (const auto& [from, delay] : in_edges[oi])
      ready = std::max(ready, c.op_finish_seconds[static_cast<size_t>(from)] + delay);
    const auto dev = static_cast<size_t>(op_device[oi]);
    const double start = std::max(ready, device_free[dev]);
    c.op_finish_seconds[oi] = start + c.op_seconds[oi];
    device_free[dev] = c.op_finish_seconds[oi];
    c.critical_path_seconds = std::max(c.critical_path_seconds, c.op_finish_seconds[oi]);
  }
  return c;
}

}  // namespace brigade::cost
