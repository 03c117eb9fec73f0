// The seed's Cost(P) and the critical path on hand-built graphs and a
// two-device chain (tests/costmodel/test_hardware.hpp: 1e12 FLOP/s, 1e11 B/s,
// efficiency 1, no launch overhead).
#include "costmodel/placement_cost.hpp"

#include <gtest/gtest.h>

#include "test_hardware.hpp"

namespace brigade::cost {
namespace {

int add_tensor(Model& m, const std::string& name, std::vector<std::int64_t> shape, bool param = false) {
  TensorSpec t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = DType::kF32;
  t.is_parameter = param;
  m.tensors.push_back(t);
  return static_cast<int>(m.tensors.size()) - 1;
}

void add_op(Model& m, const std::string& name, OpKind kind, std::vector<int> in, std::vector<int> out,
            double flops, double bytes) {
  Op o;
  o.name = name;
  o.kind = kind;
  o.inputs = std::move(in);
  o.outputs = std::move(out);
  o.flops = flops;
  o.bytes = bytes;
  m.ops.push_back(o);
}

// DESIGN.md's "manual-two-chefs" (the seed's jit(f, device=...) per op): x [8,512], w1 [512,2048],
// w2 [2048,512], f32; mm1 and act on device 0, mm2 on device 1; a 10 us, 10 GB/s link.
//   mm1: 2*8*2048*512 = 16,777,216 FLOP -> 1.6777216e-5 s; bytes (8*512 + 512*2048 + 8*2048)*4 =
//        4,276,224 -> 4.276224e-5 s: memory-bound, 4.276224e-5 s.
//   act: 16,384 FLOP; bytes 2*8*2048*4 = 131,072 -> 1.31072e-6 s.
//   mm2: as mm1, 4.276224e-5 s.
//   sum T_compute = 2*4.276224e-5 + 1.31072e-6 = 8.68352e-5 s.
//   a (8x2048 f32 = 65,536 B) crosses 0 -> 1: 65536/1e10 = 6.5536e-6 s (alpha 1e-5 more).
//   Cost(P) = 8.68352e-5 + 6.5536e-6 = 9.33888e-5 s; with alpha 1.033888e-4 s.
//   The chain has no parallelism: critical path = 1.033888e-4 s.
TEST(PlacementCost, SeedTwoChefsByHand) {
  Model m;
  const int x = add_tensor(m, "x", {8, 512}), w1 = add_tensor(m, "w1", {512, 2048}, true);
  const int h = add_tensor(m, "h", {8, 2048}), a = add_tensor(m, "a", {8, 2048});
  const int w2 = add_tensor(m, "w2", {2048, 512}, true), y = add_tensor(m, "y", {8, 512});
  add_op(m, "mm1", OpKind::kMatmul, {x, w1}, {h}, 16777216, 4276224);
  add_op(m, "act", OpKind::kElementwise, {h}, {a}, 16384, 131072);
  add_op(m, "mm2", OpKind::kMatmul, {a, w2}, {y}, 16777216, 4276224);
  Topology topo = testing::round_chain(2, 10e-6, 10e9);
  ASSERT_TRUE(topo.validate().is_ok());
  auto c = placement_cost(m, {0, 0, 1}, topo, testing::round_hardware());
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_NEAR(c->compute_seconds, 8.68352e-5, 1e-18);
  EXPECT_NEAR(c->transfer_seconds, 6.5536e-6, 1e-18);
  EXPECT_NEAR(c->seed_cost_seconds, 9.33888e-5, 1e-18);
  EXPECT_NEAR(c->cost_with_alpha_seconds, 1.033888e-4, 1e-18);
  EXPECT_NEAR(c->critical_path_seconds, 1.033888e-4, 1e-18);
  EXPECT_EQ(c->crossing_edges, 1);
  EXPECT_EQ(c->crossing_bytes, 65536.0);
  // All on one device: no transfer, Cost(P) = critical path = 8.68352e-5 s.
  auto one = placement_cost(m, {0, 0, 0}, topo, testing::round_hardware());
  ASSERT_TRUE(one.is_ok());
  EXPECT_NEAR(one->seed_cost_seconds, 8.68352e-5, 1e-18);
  EXPECT_NEAR(one->critical_path_seconds, 8.68352e-5, 1e-18);
}

// A fork: a -> {b, c} -> d with a, b on device 0 and c, d on device 1; link 1 us, 10 GB/s.
// FLOPs 1e6, 3e6, 2e6, 1e6 -> 1, 3, 2, 1 us; t (a's output) 1e4 B, u (b's output) 2e4 B.
//   sum compute 7 us; seed transfers t 1 us + u 2 us = 3 us -> Cost(P) = 10 us; with alpha 12 us.
//   schedule: a 0-1; b 1-4 (dev 0); c ready 1 + 2 = 3, runs 3-5 (dev 1);
//   d needs u at 4 + 3 = 7 and v at 5: runs 7-8. Critical path 8 us < Cost(P): b and c overlap.
TEST(PlacementCost, ForkCriticalPathByHand) {
  Model m;
  const int in = add_tensor(m, "in", {1});
  const int t = add_tensor(m, "t", {2500}), u = add_tensor(m, "u", {5000});
  const int v = add_tensor(m, "v", {1}), out = add_tensor(m, "out", {1});
  add_op(m, "a", OpKind::kCustom, {in}, {t}, 1e6, 0);
  add_op(m, "b", OpKind::kCustom, {t}, {u}, 3e6, 0);
  add_op(m, "c", OpKind::kCustom, {t}, {v}, 2e6, 0);
  add_op(m, "d", OpKind::kCustom, {u, v}, {out}, 1e6, 0);
  Topology topo = testing::round_chain(2, 1e-6, 10e9);
  ASSERT_TRUE(topo.validate().is_ok());
  auto c = placement_cost(m, {0, 0, 1, 1}, topo, testing::round_hardware());
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_NEAR(c->compute_seconds, 7e-6, 1e-18);
  EXPECT_NEAR(c->seed_cost_seconds, 10e-6, 1e-18);
  EXPECT_NEAR(c->cost_with_alpha_seconds, 12e-6, 1e-18);
  EXPECT_NEAR(c->critical_path_seconds, 8e-6, 1e-18);
  EXPECT_NEAR(c->op_finish_seconds[2], 5e-6, 1e-18);
  EXPECT_NEAR(c->device_compute_seconds[0], 4e-6, 1e-18);
}

TEST(PlacementCost, Errors) {
  Model m;
  const int a = add_tensor(m, "a", {1}), b = add_tensor(m, "b", {1});
  add_op(m, "f", OpKind::kCustom, {a}, {b}, 1, 1);
  Topology topo = testing::round_chain(2, 1e-6, 1e9);
  ASSERT_TRUE(topo.validate().is_ok());
  const HardwareProfile hw = testing::round_hardware();
  EXPECT_EQ(placement_cost(m, {}, topo, hw).message(),
            "found 0 device assignments for 1 ops; expected one per op");
  EXPECT_EQ(placement_cost(m, {2}, topo, hw).message(),
            "found device 2 for op 'f'; expected a device id in 0..1");
  m.ops[0].flops = -1;
  EXPECT_EQ(placement_cost(m, {0}, topo, hw).message(),
            "found op 'f' without FLOPs or bytes; expected a model after Model::infer()");
  // A cycle: g reads b and writes a, f reads a and writes b.
  m.ops[0].flops = 1;
  add_op(m, "g", OpKind::kCustom, {b}, {a}, 1, 1);
  EXPECT_EQ(topological_order(m).message(), "found a cycle through op 'f'; expected an acyclic graph");
}

}  // namespace
}  // namespace brigade::cost
