// Scenarios built in code for the planner's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/scenario.hpp"
#include "core/topology.hpp"
#include "planner/sweep.hpp"

namespace brigade::planner::testing {

inline Topology dgx_nodes(int nodes) {
  auto t = make_preset("dgx-a100", nodes);
  EXPECT_TRUE(t.is_ok()) << t.message();
  return t.is_ok() ? *t : Topology{};
}

// The first `devices` GPUs of enough DGX-A100 nodes (check_plan wants the
// degrees to use every device of the topology).
inline Topology dgx_devices(int devices) {
  auto t = resize_topology(dgx_nodes((devices + 7) / 8), devices);
  EXPECT_TRUE(t.is_ok()) << t.message();
  return t.is_ok() ? *t : Topology{};
}

// A small GPT (4 layers, h 256, 8 heads, s 128, V 1024, bf16) on enough
// DGX-A100 nodes for tensor x pipeline x data devices.
inline Scenario small_gpt(int tensor, int pipeline, int data, std::int64_t global_batch,
                          std::int64_t micro_batch) {
  Scenario s;
  s.name = "small-gpt";
  s.topology = dgx_devices(tensor * pipeline * data);
  s.model_kind = ModelKind::kTransformer;
  s.transformer.layers = 4;
  s.transformer.hidden = 256;
  s.transformer.heads = 8;
  s.transformer.seq = 128;
  s.transformer.vocab = 1024;
  s.transformer.dtype = DType::kBF16;
  s.training.global_batch = global_batch;
  s.training.micro_batch = micro_batch;
  s.strategy.tensor = tensor;
  s.strategy.pipeline = pipeline;
  s.strategy.data = data;
  s.has_strategy = true;
  return s;
}

// An explicit graph: x -> mm1 (w1) -> h -> act (relu) -> a -> mm2 (w2) -> y.
inline Model two_chef_graph(std::int64_t batch = 8) {
  Model m;
  auto tensor = [&](std::string name, std::vector<std::int64_t> shape, bool param) {
    TensorSpec t;
    t.name = std::move(name);
    t.shape = std::move(shape);
    t.dtype = DType::kF32;
    t.is_parameter = param;
    m.tensors.push_back(t);
    return static_cast<int>(m.tensors.size() - 1);
  };
  const int x = tensor("x", {batch, 512}, false);
  const int w1 = tensor("w1", {512, 2048}, true);
  const int w2 = tensor("w2", {2048, 512}, true);
  const int h = tensor("h", {batch, 2048}, false);
  const int a = tensor("a", {batch, 2048}, false);
  const int y = tensor("y", {batch, 512}, false);
  auto op = [&](std::string name, OpKind k, std::string fn, std::vector<int> in, int out) {
    Op o;
    o.name = std::move(name);
    o.kind = k;
    o.fn = std::move(fn);
    o.inputs = std::move(in);
    o.outputs = {out};
    m.ops.push_back(o);
  };
  op("mm1", OpKind::kMatmul, "", {x, w1}, h);
  op("act", OpKind::kElementwise, "relu", {h}, a);
  op("mm2", OpKind::kMatmul, "", {a, w2}, y);
  return m;
}

inline Scenario graph_scenario(Model m, const std::string& preset, int devices = 0) {
  Scenario s;
  s.name = "graph";
  auto t = make_preset(preset, 1, devices);
  EXPECT_TRUE(t.is_ok()) << t.message();
  if (t.is_ok()) s.topology = *t;
  s.model_kind = ModelKind::kGraph;
  s.graph = std::move(m);
  // As load_scenario does: infer the undeclared shapes, FLOPs and bytes.
  const Status st = s.graph.infer();
  EXPECT_TRUE(st.is_ok()) << st.message();
  return s;
}

}  // namespace brigade::planner::testing
