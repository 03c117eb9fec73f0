// The closed form's tensor-parallel collectives by hand, on the toy
// transformer of tests/costmodel/plan_toy.hpp: Megatron's AllReduces,
// sequence parallelism's AllGathers and ReduceScatters, and the two overlaps
// that run some of them beside GEMMs (training.tp_comm_overlap and
// training.tp_backward_overlap; docs/costmodel.md).
#include "costmodel/plan.hpp"

#include <gtest/gtest.h>

#include "tests/costmodel/plan_toy.hpp"

namespace brigade::cost {
namespace {

using testing::expect_rel;
using testing::find_comm;
using testing::tiny_gpt;

// Tensor parallel t = 2 (Megatron): per layer 2 AllReduces forward + 2 backward of
// M = b s h w = 32*64*2 = 4096 B (Shoeybi et al. 2019 §3), plus the vocabulary-parallel
// embedding's forward one and the logits' backward one: 2*4 + 1 + 1 = 10 calls of 4096 B,
// and the vocabulary-parallel cross entropy's AllReduce of 3 b s fp32 values = 384 B.
// Ring on 2 ranks, alpha 1 us, 10 GB/s: 2*1*1e-6 + 2*1/2*4096/1e10 = 2.4096e-6 s each;
// the loss's 2e-6 + 384/1e10 = 2.0384e-6 s. Kernels split exactly by t: 2.2020096e-5 / 2
// = 1.1010048e-5 s. Step = 1.1010048e-5 + 10 * 2.4096e-6 + 2.0384e-6 = 3.7144448e-5 s.
TEST(EstimatePlan, TensorParallelAllReducesByHand) {
  Scenario sc = tiny_gpt(2);
  sc.strategy.tensor = 2;
  sc.training.tp_backward_overlap = false;  // every collective between kernels
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->compute_seconds, 1.1010048e-5);
  expect_rel(e->step_seconds, 3.7144448e-5);
  const CommunicationEstimate* ar = find_comm(*e, "tensor", "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->count, 11.0);
  EXPECT_EQ(ar->bytes, 10 * 4096.0 + 384.0);
  expect_rel(ar->seconds, 10 * 2.4096e-6 + 2.0384e-6);
  expect_rel(ar->exposed_seconds, 10 * 2.4096e-6 + 2.0384e-6);
  // Sequence parallel (Korthikanti et al. 2022 §4.2.2, and Megatron-LM's re-gather of the
  // QKV and fc1 inputs for their weight gradients): per layer 2 AllGathers + 2 ReduceScatters
  // forward, 4 AllGathers + 2 ReduceScatters backward; the embedding adds an RS forward and
  // an AG backward, the head an AG forward and an RS backward. AllGathers 2*6 + 1 + 1 = 14,
  // ReduceScatters 2*4 + 1 + 1 = 10, of 4096 B, each 1e-6 + 4096/2/1e10 = 1.2048e-6 s; the
  // loss AllReduce stays. Once per step, the LayerNorm, bias and position-embedding gradients
  // (partial over the sequence shards) are all-reduced over the tensor group: per layer 2 x 2h
  // (LN) + 2h (the row-parallel biases) = 384, x 2 layers + the s x h = 2048 positions = 2816
  // parameters x 2 B = 5632 B: 2e-6 + 5632/1e10 = 2.5632e-6 s, after the backward.
  // Step = 1.1010048e-5 + 24 * 1.2048e-6 + 2.0384e-6 + 2.5632e-6 = 4.4526848e-5 s.
  sc.strategy.sequence_parallel = true;
  auto sp = estimate_plan(sc);
  ASSERT_TRUE(sp.is_ok()) << sp.message();
  const CommunicationEstimate* ag = find_comm(*sp, "tensor", "allgather");
  const CommunicationEstimate* rs = find_comm(*sp, "tensor", "reducescatter");
  ASSERT_NE(ag, nullptr);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(ag->count, 14.0);
  EXPECT_EQ(rs->count, 10.0);
  const CommunicationEstimate* seq = find_comm(*sp, "sequence", "allreduce");
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->bytes, 5632.0);
  expect_rel(sp->step_seconds, 4.4526848e-5);
}

// Transformer Engine's tensor-parallel overlap (training.tp_comm_overlap;
// docs/costmodel.md), the plan above with t = 2 and sequence parallelism.
// A collective beside a GEMM shows max(0, collective - GEMM). Per layer:
//  - ring exchanges (the AllGather beside the first t - 1 = 1 of t row
//    chunks of the GEMM after it): QKV 16 x 96 x 64 x 2 = 196,608 FLOP, fc1
//    16 x 128 x 64 x 2 = 262,144, fc2's input gradient 262,144, the
//    projection's 16 x 32 x 64 x 2 = 65,536;
//  - bulk: the re-gathers beside fc1's input-gradient GEMM (32 x 64 x 128 x 2
//    = 524,288) and QKV's (32 x 64 x 96 x 2 = 393,216).
// Each hides that GEMM's time (1e12 FLOP/s) of its 1.2048e-6 s: 1,703,936
// FLOP = 1.703936e-6 s a layer, 3.407872e-6 s in all.
// The pipelined ReduceScatters (the projection's and fc2's GEMMs in 4 row
// chunks): 3/4 of the 4096 B beside the last 3 chunks, 1e-6 + 1536/1e10 =
// 1.1536e-6 s against 24 x 64 x 32 x 2 = 98,304 FLOP (1.055296e-6 s shown)
// and 24 x 64 x 128 x 2 = 393,216 (7.60384e-7 shown); the last 1/4 after,
// 1e-6 + 512/1e10 = 1.0512e-6 s each. The backward's two beside the
// weight-gradient GEMMs (fc1's 524,288, QKV's 393,216 FLOP): 6.80512e-7 and
// 8.11584e-7 s shown. In all 5.410176e-6 s a layer where the four whole
// ones showed 4 x 1.2048e-6 = 4.8192e-6: the split pays one more latency
// each (this toy's collectives are latency-bound), +1.181952e-6 s in all.
// Step = 4.4526848e-5 - 3.407872e-6 + 1.181952e-6 = 4.2300928e-5 s.
TEST(EstimatePlan, TensorParallelOverlapByHand) {
  Scenario sc = tiny_gpt(2);
  sc.strategy.tensor = 2;
  sc.strategy.sequence_parallel = true;
  sc.training.tp_comm_overlap = true;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->compute_seconds, 1.1010048e-5);  // the split GEMMs' FLOPs are the whole ones'
  expect_rel(e->step_seconds, 4.2300928e-5);
  const CommunicationEstimate* ag = find_comm(*e, "tensor", "allgather");
  const CommunicationEstimate* rs = find_comm(*e, "tensor", "reducescatter");
  ASSERT_NE(ag, nullptr);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(ag->count, 14.0);
  EXPECT_EQ(rs->count, 14.0);  // each pipelined one in two calls
  expect_rel(ag->seconds, 14 * 1.2048e-6);
  expect_rel(ag->exposed_seconds, 14 * 1.2048e-6 - 3.407872e-6);
  // The embedding's and the head's two, whole, and the layers' ten.
  expect_rel(rs->exposed_seconds, 2 * 1.2048e-6 + 2 * 5.410176e-6);
  // With 100 SMs of which the pipelined and bulk overlaps hold 16 back, their
  // GEMMs run at 0.84 of the rate. Beside a longer collective that is hidden;
  // the first chunks of the projection's and fc2's GEMMs (32,768 + 131,072
  // FLOP a layer) run alone: + 2 x 1.6384e-7 x (1/0.84 - 1) = 6.2415238e-8 s.
  for (DeviceProfile& d : sc.profile.devices) d.sm_count = 100;
  auto held = estimate_plan(sc);
  ASSERT_TRUE(held.is_ok()) << held.message();
  expect_rel(held->step_seconds, 4.2300928e-5 + 2 * 1.6384e-7 * (1 / 0.84 - 1), 1e-9);
}

// The column-parallel backward's asynchronous collectives
// (training.tp_backward_overlap, on by default; docs/costmodel.md): the plans
// above with each collective beside its GEMM showing max(0, collective -
// GEMM). The GEMMs, at 1e12 FLOP/s: fc1's input and weight gradients
// 32 x 64 x 128 x 2 = 524,288 FLOP each, QKV's 32 x 64 x 96 x 2 = 393,216
// each; every collective here outlasts its GEMM, so each hides its GEMM.
//  - Without sequence parallelism the all-reduce of QKV's and fc1's input
//    gradients (2.4096e-6 s) beside their weight-gradient GEMMs: 917,504
//    FLOP = 9.17504e-7 s a layer, 1.835008e-6 s for the two. Step =
//    3.7144448e-5 - 1.835008e-6 = 3.530944e-5 s.
//  - With it, also the re-gathers (1.2048e-6 s) beside the input-gradient
//    GEMMs and the reduce-scatters beside the weight-gradient GEMMs:
//    2 x 9.17504e-7 a layer, 3.670016e-6 s for the two. Step = 4.4526848e-5
//    - 3.670016e-6 = 4.0856832e-5 s.
// The collectives' counts and times are as before; only what shows moves.
TEST(EstimatePlan, TensorParallelBackwardOverlapByHand) {
  Scenario sc = tiny_gpt(2);
  sc.strategy.tensor = 2;
  ASSERT_TRUE(sc.training.tp_backward_overlap);  // the default
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->compute_seconds, 1.1010048e-5);
  expect_rel(e->step_seconds, 3.530944e-5);
  const CommunicationEstimate* ar = find_comm(*e, "tensor", "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->count, 11.0);
  expect_rel(ar->seconds, 10 * 2.4096e-6 + 2.0384e-6);
  expect_rel(ar->exposed_seconds, 10 * 2.4096e-6 + 2.0384e-6 - 1.835008e-6);
  sc.strategy.sequence_parallel = true;
  auto sp = estimate_plan(sc);
  ASSERT_TRUE(sp.is_ok()) << sp.message();
  expect_rel(sp->step_seconds, 4.0856832e-5);
  const CommunicationEstimate* ag = find_comm(*sp, "tensor", "allgather");
  const CommunicationEstimate* rs = find_comm(*sp, "tensor", "reducescatter");
  ASSERT_NE(ag, nullptr);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(ag->count, 14.0);
  EXPECT_EQ(rs->count, 10.0);
  expect_rel(ag->exposed_seconds, 14 * 1.2048e-6 - 1.835008e-6);
  expect_rel(rs->exposed_seconds, 10 * 1.2048e-6 - 1.835008e-6);
}

}  // namespace
}  // namespace brigade::cost
