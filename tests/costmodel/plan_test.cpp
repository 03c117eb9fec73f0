// The closed-form plan judge on Scenario structs built in code, on toy
// hardware (tests/costmodel/test_hardware.hpp) so that every number can be
// worked out by hand. With memory bandwidth 0 a kernel takes FLOPs / 1e12
// exactly, which ties the transformer's GEMM list to Megatron's Eq. 3.
#include "costmodel/plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "costmodel/memory.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/plan_internal.hpp"
#include "costmodel/plan_report.hpp"
#include "tests/costmodel/plan_toy.hpp"

namespace brigade::cost {
namespace {

using testing::expect_rel;
using testing::find_comm;
using testing::tiny_gpt;

// One device, no parallelism, no recomputation. Forward FLOPs per layer
// 24Bsh^2 + 4Bs^2h = 24*32*4096 + 4*1024*64 = 3,145,728 + 262,144 = 3,407,872; logits
// 2BshV = 2*32*64*128 = 524,288; training 3x: 3*(2*3,407,872 + 524,288) = 22,020,096 FLOP
// -> 2.2020096e-5 s at 1e12 FLOP/s (memory free). No communication; the optimizer is memory-bound (free).
TEST(EstimatePlan, TransformerOneDeviceEqualsEq3) {
  Scenario sc = tiny_gpt(1);
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->compute_seconds, 2.2020096e-5);
  expect_rel(e->step_seconds, 2.2020096e-5);
  expect_rel(e->model_flops_per_iteration, 22020096.0);
  EXPECT_TRUE(e->communication.empty());
  EXPECT_EQ(e->bubble_seconds, 0.0);
  // MFU = model FLOPs / step / peak = 1 on this ideal device.
  expect_rel(e->mfu, 1.0);
  // The kernels track the FLOP formula for every recomputation mode (Eq. 3 for full).
  for (Recompute r : {Recompute::kSelective, Recompute::kFull}) {
    sc.training.recompute = r;
    auto er = estimate_plan(sc);
    ASSERT_TRUE(er.is_ok()) << er.message();
    expect_rel(er->compute_seconds, transformer_flops_per_iteration(1, 32, 2, 64, 128, r) / 1e12);
    expect_rel(er->hardware_flops_per_iteration, transformer_flops_per_iteration(1, 32, 2, 64, 128, r));
  }
}

// Memory of that device (Korthikanti et al. 2022, ZeRO §3.1):
//   parameters: 2 layers x (12*4096 + 13*64 = 49,984) + (128 + 32)*64 embeddings
//   = 99,968 + 10,240 = 110,208 (Eq. 2: no final layernorm, as the planner); x 16 B =
//   1,763,328 B of model states.
//   activations: what the blocks' kernels save (costmodel/transformer_blocks.hpp, the planner's
//   buffers): per layer sbh(34 + 5as/h) = 2048 * (34 + 10) = 90,112 (Korthikanti Eq. 2); 2 layers
//   = 180,224; embedding mask sbh = 2048; head: the logits' input sbh x 2 B = 4096 and the cross
//   entropy's fp32 logits 4sv = 16,384 (no final layernorm) = 20,480; total 202,752 B.
//   peak = 1,763,328 + 202,752 = 1,966,080 B.
TEST(EstimatePlan, TransformerMemoryByHand) {
  auto e = estimate_plan(tiny_gpt(1));
  ASSERT_TRUE(e.is_ok()) << e.message();
  ASSERT_EQ(e->memory.size(), 1u);
  const DeviceMemoryEstimate& m = e->memory[0];
  EXPECT_DOUBLE_EQ(m.params_bytes, 110208.0 * 2);
  EXPECT_DOUBLE_EQ(m.grads_bytes, 110208.0 * 2);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 110208.0 * 12);
  EXPECT_DOUBLE_EQ(m.activations_bytes, 202752.0);
  EXPECT_DOUBLE_EQ(m.peak_bytes, 1966080.0);
  EXPECT_TRUE(m.fits);
  // Parameters reported are Eq. 2's, the same count as the memory's.
  EXPECT_DOUBLE_EQ(e->parameters, 110208.0);
}

// ZeRO-3's backward: the planner issues each block's parameter gather and
// its gradient reduce-scatter on one `dp` stream (planner/lower_transformer_stage.cpp,
// data_collective), so beside a backward of W = 10 ms the stream must carry
// both. Eight 1 ms gathers and eight 1 ms reduce-scatters: each alone would
// hide all but its last call (max(1, 8 - 10) = 1 ms each, 2 ms in all), but
// together they need 16 - 10 = 6 ms past the backward. Three of each: 6 ms
// fit in the 10 ms window, and the first gather and the last reduce-scatter
// remain exposed, 1 + 1 = 2 ms. Without overlap all 16 ms are exposed.
TEST(EstimatePlan, ZeroThreeGathersAndScattersShareOneStream) {
  EXPECT_DOUBLE_EQ(detail::exposed_on_one_stream(8e-3, 1e-3, 8e-3, 1e-3, 10e-3, true), 6e-3);
  EXPECT_DOUBLE_EQ(detail::exposed_on_one_stream(3e-3, 1e-3, 3e-3, 1e-3, 10e-3, true), 2e-3);
  EXPECT_DOUBLE_EQ(detail::exposed_on_one_stream(8e-3, 1e-3, 8e-3, 1e-3, 10e-3, false), 16e-3);
  // The model before (each collective beside the whole window) said 2 ms for the first case.
  EXPECT_DOUBLE_EQ(detail::exposed_after_overlap(8e-3, 10e-3, 1e-3, true) +
                       detail::exposed_after_overlap(8e-3, 10e-3, 1e-3, true),
                   2e-3);
}

// Data parallel d = 2 (global batch 2, one sequence each): gradients G = 110,208 params x 2 B
// = 220,416 B. One bucket, not overlapped: ring AllReduce 2e-6 + 220416/1e10 = 2.40416e-5 s.
// Buckets of at least 55,104 B filled with whole parameter groups in the order the backward
// completes them (as the planner fills them): layer 1's fc2 and fc1 weights (2 x 16,448 x 2 B),
// ..., 4 buckets; 4 x 2e-6 + 220,416/1e10 = 3.00416e-5 s in all. Each starts when it is full
// and the one before is done; only what runs past the backward shows, at least the last
// bucket (its gradients come last). tests/planner/cross_judge_test.cpp holds this dp-stream
// timeline to the simulator's.
TEST(EstimatePlan, DataParallelGradientsByHand) {
  Scenario sc = tiny_gpt(2);
  sc.strategy.data = 2;
  sc.training.global_batch = 2;
  sc.strategy.overlap = false;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  const CommunicationEstimate* ar = find_comm(*e, "data", "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->count, 1.0);
  EXPECT_EQ(ar->bytes, 220416.0);
  expect_rel(ar->seconds, 2.40416e-5);
  expect_rel(e->step_seconds, 2.2020096e-5 + 2.40416e-5);
  sc.strategy.overlap = true;
  sc.strategy.bucket_bytes = 55104;
  auto o = estimate_plan(sc);
  ASSERT_TRUE(o.is_ok()) << o.message();
  ar = find_comm(*o, "data", "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->count, 4.0);
  expect_rel(ar->seconds, 3.00416e-5);
  EXPECT_LT(ar->exposed_seconds, ar->seconds);
  EXPECT_GT(ar->exposed_seconds, 2e-6 + 20736 / 1e10);  // more than the last bucket alone
  expect_rel(o->step_seconds, 2.2020096e-5 + ar->exposed_seconds);
}

// ZeRO over d = 2: stage 1 shards the optimizer (12 B/param / 2), stage 2 also gradients,
// stage 3 also parameters (ZeRO Figure 1); stages 1-2 reduce-scatter gradients and gather
// parameters (2 Psi per step, ZeRO §7.2.1), stage 3 gathers each block's parameters twice.
// At the peak, stage 2 (one micro-batch) holds beside its shard (psi) those of its whole
// gradients the backward has made and no bucket's reduce-scatter has freed yet
// (zero2_last_backward; worked below); stage 3 holds two blocks' gathered parameters (one
// of prefetch) and one block's unsharded gradient: 3 x 49,984 x 2 B.
TEST(EstimatePlan, ZeroStagesMemoryAndTraffic) {
  Scenario sc = tiny_gpt(2);
  sc.strategy.data = 2;
  sc.training.global_batch = 2;
  const double psi = 110208;  // Eq. 2, as TransformerMemoryByHand
  const double expected_states[] = {16 * psi, 4 * psi + 6 * psi, 2 * psi + 7 * psi,
                                    8 * psi + 3 * 49984.0 * 2};
  for (int stage = 0; stage <= 3; ++stage) {
    sc.strategy.zero = stage;
    auto e = estimate_plan(sc);
    ASSERT_TRUE(e.is_ok()) << e.message();
    const DeviceMemoryEstimate& m = e->memory[0];
    if (stage == 2) {
      // The peak by hand (zero2_peak_one_chunk, one micro-batch, the
      // gradients in one bucket reduce-scattered after the backward): the
      // backward from the top, each block's saved activations freed after
      // it, its whole gradient written from its start; (activations held,
      // whole gradients) at the head (202,752, 0: the tied head adds into
      // the embedding's gradient, written with the embedding's block), at
      // layer 1 (182,272, 99,968), layer 0 (92,160, 199,936), the
      // embedding (2,048, 220,416). Largest at layer 0: 292,096, its
      // activations its own 90,112 and the embedding's mask 2,048, the two
      // layers' gradients 2 x 49,984 x 2 B, beside the shard psi.
      EXPECT_DOUBLE_EQ(m.params_bytes + m.optimizer_bytes, 2 * psi + 6 * psi);
      EXPECT_DOUBLE_EQ(m.grads_bytes, psi + 2 * 49984.0 * 2);
      EXPECT_DOUBLE_EQ(m.activations_bytes, 90112.0 + 2048);
      EXPECT_DOUBLE_EQ(m.peak_bytes, 8 * psi + psi + 2 * 49984.0 * 2 + 92160);
    } else {
      EXPECT_DOUBLE_EQ(m.params_bytes + m.grads_bytes + m.optimizer_bytes, expected_states[stage])
          << "stage " << stage;
    }
    EXPECT_EQ(find_comm(*e, "data", "allreduce") != nullptr, stage == 0) << stage;
    EXPECT_EQ(find_comm(*e, "data", "reducescatter") != nullptr, stage >= 1) << stage;
    EXPECT_EQ(find_comm(*e, "data", "allgather") != nullptr, stage == 1 || stage == 2) << stage;
    const CommunicationEstimate* z3 = find_comm(*e, "zero-3 params", "allgather");
    EXPECT_EQ(z3 != nullptr, stage == 3) << stage;
    // 2 layers, the embedding (10,240) and the head (the word embedding it uses, 8192),
    // gathered before forward and before backward: 8 calls, 2 x 118,400 x 2 B.
    if (z3) {
      EXPECT_EQ(z3->count, 8.0);
      EXPECT_EQ(z3->bytes, 2 * 118400.0 * 2);
    }
  }
}

// strategy.zero3_prefetch by hand (docs/costmodel.md, "ZeRO-3 prefetch";
// DeepSpeed's deepspeed/runtime/zero/partitioned_param_coordinator.py
// reset_step, PyTorch FSDP's execution-order prefetch). The tiny GPT with
// rotary positions and V = 1024: the embedding holds only the word
// embedding, V h = 65,536 elements, which the tied head gathers too; a
// layer 12 h^2 + 13 h = 49,984. d = 2, ring, alpha 1 us, 10 GB/s, bf16: the
// embedding's and the head's gather and the embedding's reduce-scatter
// g = 1e-6 + 131,072 B / 2 / 1e10 = 7.5536 us, a layer's l = 1e-6 +
// 99,968 / 2 / 1e10 = 5.9984 us (the head's tied copy reduces nothing).
// Memory is free, so the embedding takes no time; a layer's forward 13.6 us,
// the logits 16.8 us, the backwards twice that. Without a pipeline the
// passes are walked block by block as the planner issues them (zero3_walk):
// a block's gather, then the next's, on the one stream, each when the
// compute before it ends; after a backward block, its reduce-scatter. Two
// micro-batches, F0 B0 F1 B1:
//   per_pass: F0 waits for the embedding's gather and then layer 0's (the
//     embedding hides nothing): g + l; B0 for the head's: g; F1 behind
//     B0's last two reduce-scatters (layer 0's, the embedding's) and then
//     both gathers: 2 g + 2 l; B1: g; the step's tail, B1's last two
//     reduce-scatters: g + l. Exposed 6 g + 4 l, the gathers' 5 g + 3 l.
//   per_micro_batch: B0's and B1's head gathers issued at the forward's
//     last block hide behind the logits: 4 g + 4 l, the gathers' 3 g + 3 l.
//   across_passes: F1's embedding gather issued at B0's last block, which
//     takes no time, still waits behind layer 0's reduce-scatter, and layer
//     0's behind the embedding's: the same as per_micro_batch here.
// So per_pass - per_micro_batch = 2 g = 1.51072e-5 s. (The closed form's
// window before the walk took every gather but a pass's first as hidden:
// 2 (2 g + g), 2 (g + g), g + g.) CrossJudgeByHand.ZeroThreePrefetchWalk
// holds the simulator to the same figures.
TEST(EstimatePlan, ZeroThreePrefetchModesByHand) {
  Scenario sc = tiny_gpt(2, 2, 0, 1024);
  sc.transformer.positions = PositionKind::kRotary;
  sc.strategy.data = 2;
  sc.strategy.zero = 3;
  sc.training.global_batch = 16;
  sc.training.micro_batch = 4;
  const double g = 1e-6 + 131072.0 / 2 / 1e10, l = 1e-6 + 99968.0 / 2 / 1e10;
  const double expected[] = {6 * g + 4 * l, 4 * g + 4 * l, 4 * g + 4 * l};
  const double gathers_exposed[] = {5 * g + 3 * l, 3 * g + 3 * l, 3 * g + 3 * l};
  double step[3] = {};
  const Zero3Prefetch modes[] = {Zero3Prefetch::kPerPass, Zero3Prefetch::kPerMicroBatch,
                                 Zero3Prefetch::kAcrossPasses};
  for (int i = 0; i < 3; ++i) {
    sc.strategy.zero3_prefetch = modes[i];
    auto e = estimate_plan(sc);
    ASSERT_TRUE(e.is_ok()) << e.message();
    expect_rel(e->exposed_communication_seconds, expected[i], 1e-9);
    const CommunicationEstimate* z3 = find_comm(*e, "zero-3 params", "allgather");
    ASSERT_NE(z3, nullptr);
    EXPECT_EQ(z3->count, 16.0);  // the same gathers in every mode: 2 x 4 blocks x 2 micro-batches
    expect_rel(z3->exposed_seconds, gathers_exposed[i], 1e-9);
    step[i] = e->step_seconds;
  }
  expect_rel(step[0] - step[1], 2 * g, 1e-6);
  EXPECT_NEAR(step[1], step[2], step[2] * 1e-12);
  // Without overlap nothing hides, whatever the mode.
  sc.strategy.overlap = false;
  sc.strategy.zero3_prefetch = Zero3Prefetch::kPerPass;
  auto cold = estimate_plan(sc);
  sc.strategy.zero3_prefetch = Zero3Prefetch::kAcrossPasses;
  auto warm = estimate_plan(sc);
  ASSERT_TRUE(cold.is_ok() && warm.is_ok());
  EXPECT_EQ(cold->step_seconds, warm->step_seconds);
}

// strategy.overlap_param_gather by hand (Megatron-LM's --overlap-param-gather;
// docs/costmodel.md, "Overlapped parameter gathers"). The tiny GPT over
// d = 2 with ZeRO-1, one micro-batch of 1, memory free, buckets of one
// layer's gradients (2 x 49,984 B = 99,968 B, bf16): the backward fills
// bucket A = layer 1, B = layer 0, C = the embedding's 10,240 (20,480 B,
// closed at the end); the head owns nothing (tied, one stage). In forward
// order C, B, A, first used by blocks 0 (embedding), 1, 2. All-gathers over
// 2 ranks (ring, alpha 1 us, 10 GB/s): 1e-6 + bytes / 2 / 1e10, so
//   C = 2.024 us, B = A = 5.9984 us; together 14.0208 us, all exposed after
//   the optimizer without the key.
// With it: C issued at 0 ends 2.024; B issued when the embedding starts (0,
// FIFO after C) ends 8.0224; the embedding (no FLOPs) runs at 2.024; layer 0
// waits for B: 8.0224 .. 11.430272 (3.407872 us, the FLOPs of
// DataParallelGradientsByHand's layer at 1e12); A issued when layer 0
// starts (8.0224) ends 14.0208; layer 1 waits for it: 14.0208 .. 17.428672;
// the head's logits 0.524288 us: the forward ends at 17.95296 us against
// 7.340032 without gathers. Exposed 10.612928 us = 14.0208 - 3.407872: layer
// 0's forward hides gather A, and the step is that much shorter.
TEST(EstimatePlan, OverlapParamGatherByHand) {
  Scenario sc = tiny_gpt(2);
  sc.strategy.data = 2;
  sc.strategy.zero = 1;
  sc.training.global_batch = 2;
  sc.strategy.bucket_bytes = 99968;
  auto off = estimate_plan(sc);
  ASSERT_TRUE(off.is_ok()) << off.message();
  const CommunicationEstimate* g0 = find_comm(*off, "data", "allgather");
  ASSERT_NE(g0, nullptr);
  EXPECT_EQ(g0->count, 3.0);
  EXPECT_EQ(g0->bytes, 220416.0);
  expect_rel(g0->seconds, 14.0208e-6);
  expect_rel(g0->exposed_seconds, 14.0208e-6);
  sc.strategy.overlap_param_gather = true;
  auto on = estimate_plan(sc);
  ASSERT_TRUE(on.is_ok()) << on.message();
  const CommunicationEstimate* g1 = find_comm(*on, "data", "allgather");
  ASSERT_NE(g1, nullptr);
  EXPECT_EQ(g1->count, 3.0);
  EXPECT_EQ(g1->bytes, 220416.0);
  expect_rel(g1->seconds, 14.0208e-6);
  expect_rel(g1->exposed_seconds, 10.612928e-6, 1e-9);
  expect_rel(off->step_seconds - on->step_seconds, 3.407872e-6, 1e-6);
  // ZeRO-0 and ZeRO-3 read the key and ignore it.
  for (int stage : {0, 3}) {
    sc.strategy.zero = stage;
    sc.strategy.overlap_param_gather = false;
    auto a = estimate_plan(sc);
    sc.strategy.overlap_param_gather = true;
    auto b = estimate_plan(sc);
    ASSERT_TRUE(a.is_ok() && b.is_ok());
    EXPECT_EQ(a->step_seconds, b->step_seconds) << stage;
  }
}

// Inference keeps weights only and one block's working set at a time (what its kernels write).
TEST(EstimatePlan, TransformerInference) {
  Scenario sc = tiny_gpt(1);
  sc.training.inference = true;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  // Forward only: (2 * 3,407,872 + 524,288) / 1e12 = 7.340032e-6 s.
  expect_rel(e->step_seconds, 7.340032e-6);
  EXPECT_DOUBLE_EQ(e->memory[0].params_bytes, 110208.0 * 2);
  EXPECT_EQ(e->memory[0].grads_bytes + e->memory[0].optimizer_bytes, 0.0);
  // The largest block: a layer, 90,112 B in training less what dropout does
  // not write in eval mode (the identity there): the two residual masks
  // (2 sbh = 4,096) and the attention's mask and output (as^2b (1 + e) =
  // 4,096 x 3 = 12,288): 73,728 B = sbh (32 + 2as/h).
  EXPECT_DOUBLE_EQ(e->memory[0].activations_bytes, 73728.0);
}

TEST(EstimatePlan, DoesNotFitIsReported) {
  Scenario sc = tiny_gpt(1);
  sc.topology = testing::round_star(1, 1e-6, 1e10, 0, 1e6);  // 1 MB of memory
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  EXPECT_FALSE(e->memory[0].fits);
  EXPECT_EQ(e->memory[0].capacity_bytes, 1e6);
}

// The seed's pmap_linear: y = xW + b, W 16x16, batch 8 over 4 devices (2 rows each), f32,
// inference, as the planner lowers it (costmodel/op_graph.hpp): mm1, then the bias add "bias1".
// GEMM (2 x 16)(16 x 16): 1024 FLOP -> 1.024e-9 s; bytes (32 + 256 + 32) * 4 = 1280 -> 1.28e-8 s
// (memory-bound); the bias add reads h1 (128 B) and b1 (64 B) and writes y (128 B): 320 B ->
// 3.2e-9 s. Step 1.6e-8 s. Memory: 272 params x 4 B = 1088 B; the input rows x (2 x 16 x 4 =
// 128 B, resident), and at the bias add h1 and y (128 B each) live: 1088 + 384 = 1472 B.
// The seed's linear layer y = xW + b, W 16x16, batch 8, f32, data parallel over 4 round devices.
Scenario seed_linear(const char* name) {
  Scenario sc;
  sc.name = name;
  sc.topology = testing::round_star(4, 1e-6, 1e10);
  EXPECT_TRUE(sc.topology.validate().is_ok());
  sc.profile = testing::round_hardware();
  sc.model_kind = ModelKind::kMlp;
  sc.mlp.batch = 8;
  sc.mlp.widths = {16, 16};
  sc.mlp.dtype = DType::kF32;
  sc.strategy.data = 4;
  return sc;
}

TEST(EstimatePlan, SeedPmapLinear) {
  Scenario sc = seed_linear("pmap-linear");
  sc.training.inference = true;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->step_seconds, 1.6e-8);
  ASSERT_EQ(e->memory.size(), 4u);
  EXPECT_DOUBLE_EQ(e->memory[3].params_bytes, 1088.0);
  EXPECT_DOUBLE_EQ(e->memory[3].activations_bytes, 384.0);
  EXPECT_DOUBLE_EQ(e->memory[3].peak_bytes, 1472.0);
  EXPECT_TRUE(e->communication.empty());
  // Batch 30 does not split over 4.
  sc.mlp.batch = 30;
  auto bad = estimate_plan(sc);
  ASSERT_FALSE(bad.is_ok());
}

// The seed's pmap_train_step (linear layer, SGD, gradient pmean), same shapes, training, as the
// planner's training graph (costmodel/op_graph.hpp; memory-bound kernels at 1e11 B/s):
//   forward: mm1 1.28e-8; bias1 (h1 128 + b1 64 + y 128 B) 3.2e-9; loss mse (y 128 + target
//   128 + l 4 B) 2.6e-9;
//   backward: loss.bwd (y, target, dy: 384 B) 3.84e-9; the bias gradient, a sum over rows (dy
//   128 + db1 64 B) 1.92e-9; mm1.wgrad (16 x 2)(2 x 16): 1280 B -> 1.28e-8 (no input gradient
//   for x); compute 3.716e-8 s.
//   pmean: db1 then dw1 join one bucket, AllReduced when the optimizer reads dw1: 272 x 4 =
//   1088 B on 4: 2*3*1e-6 + 1.5*1088/1e10 = 6.1632e-6 s, all of it exposed. SGD steps:
//   272 x (2*4 + 4) = 3264 B -> 3.264e-8 s. step = 3.716e-8 + 6.1632e-6 + 3.264e-8 = 6.233e-6 s.
//   memory: 1088 params + 1088 grads + 0 optimizer + x and target (2 x 16 x 4 B each, resident)
//   + at loss.bwd y, l and dy live (128 + 4 + 128 B) = 2692 B.
TEST(EstimatePlan, SeedPmapTrainStep) {
  Scenario sc = seed_linear("pmap-train-step");
  sc.training.optimizer = Optimizer::kSgd;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->compute_seconds, 3.716e-8);
  expect_rel(e->exposed_communication_seconds, 6.1632e-6);
  expect_rel(e->optimizer_seconds, 3.264e-8);
  expect_rel(e->step_seconds, 6.233e-6);
  const CommunicationEstimate* ar = find_comm(*e, "data", "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->bytes, 1088.0);
  EXPECT_DOUBLE_EQ(e->memory[0].peak_bytes, 2692.0);
  // Counted FLOPs (GEMMs, as the planner's): mm1 and its weight gradient on the global batch,
  // 2 x 2*8*16*16 = 8192.
  EXPECT_EQ(e->model_flops_per_iteration, 8192.0);
}

// The seed's two chefs as a scenario: Cost(P) and the critical path of
// tests/costmodel/placement_cost_test.cpp (9.33888e-5 s, 1.033888e-4 s).
TEST(EstimatePlan, GraphWithPlacement) {
  Scenario sc;
  sc.name = "manual-two-chefs";
  sc.topology = testing::round_chain(2, 10e-6, 10e9);
  ASSERT_TRUE(sc.topology.validate().is_ok());
  sc.profile = testing::round_hardware();
  sc.model_kind = ModelKind::kGraph;
  auto tensor = [&](const char* n, std::vector<std::int64_t> shape, bool param) {
    TensorSpec t;
    t.name = n;
    t.shape = std::move(shape);
    t.is_parameter = param;
    sc.graph.tensors.push_back(t);
    return static_cast<int>(sc.graph.tensors.size()) - 1;
  };
  const int x = tensor("x", {8, 512}, false), w1 = tensor("w1", {512, 2048}, true);
  const int h = tensor("h", {8, 2048}, false), a = tensor("a", {8, 2048}, false);
  const int w2 = tensor("w2", {2048, 512}, true), y = tensor("y", {8, 512}, false);
  auto op = [&](const char* n, OpKind k, std::vector<int> in, int out, double f, double b) {
    Op o;
    o.name = n;
    o.kind = k;
    o.inputs = std::move(in);
    o.outputs = {out};
    o.flops = f;
    o.bytes = b;
    sc.graph.ops.push_back(o);
  };
  op("mm1", OpKind::kMatmul, {x, w1}, h, 16777216, 4276224);
  op("act", OpKind::kElementwise, {h}, a, 16384, 131072);
  op("mm2", OpKind::kMatmul, {a, w2}, y, 16777216, 4276224);
  sc.placement = {{"mm1", 0}, {"act", 0}, {"mm2", 1}};
  sc.training.inference = true;  // the seed's forward pass
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  ASSERT_TRUE(e->placement.has_value());
  EXPECT_NEAR(e->placement->seed_cost_seconds, 9.33888e-5, 1e-18);
  EXPECT_NEAR(e->step_seconds, 1.033888e-4, 1e-18);
  // Device 1 holds w2 (4 MiB) and reads a, writes y: 65,536 + 16,384 B of activations.
  EXPECT_DOUBLE_EQ(e->memory[1].params_bytes, 2048 * 512 * 4.0);
  EXPECT_DOUBLE_EQ(e->memory[1].activations_bytes, 65536.0 + 16384.0);
  // The report carries Cost(P).
  const nlohmann::json j = plan_estimate_json(*e);
  EXPECT_NEAR(j["placement"]["seed_cost_seconds"].get<double>(), 9.33888e-5, 1e-18);
  EXPECT_NE(plan_estimate_text(*e).find("Cost(P)"), std::string::npos);
}

// One bf16 matmul placed on device 3 of 4: the plan uses ONE device (not the
// highest index + 1 = 4), and its MFU is against the bf16 peak. The profile's peaks: 1e12 in
// every dtype but bf16, set to 4e12. GEMM (8 x 512)(512 x 512): 2*8*512*512 = 4,194,304 FLOP
// -> 4,194,304 / 4e12 = 1.048576e-6 s (memory free); MFU = 1 against bf16 (it would read 4
// against the f32 peak).
TEST(EstimatePlan, GraphCountsTheDevicesItUsesAndItsDtypesPeak) {
  Scenario sc;
  sc.name = "one-op";
  sc.topology = testing::round_star(4, 1e-6, 1e10, 0);  // memory free
  ASSERT_TRUE(sc.topology.validate().is_ok());
  sc.profile = testing::round_hardware();
  sc.profile.devices[0].peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kBF16))] = 4e12;
  sc.model_kind = ModelKind::kGraph;
  sc.graph.tensors = {{"x", {8, 512}, DType::kBF16, false, {}},
                      {"w", {512, 512}, DType::kBF16, true, {}},
                      {"y", {8, 512}, DType::kBF16, false, {}}};
  Op mm;
  mm.name = "mm";
  mm.kind = OpKind::kMatmul;
  mm.inputs = {0, 1};
  mm.outputs = {2};
  mm.flops = 2.0 * 8 * 512 * 512;
  mm.bytes = (8 * 512 + 512 * 512 + 8 * 512) * 2.0;
  sc.graph.ops = {mm};
  sc.placement = {{"mm", 3}};
  sc.training.inference = true;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  EXPECT_EQ(e->devices, 1);
  ASSERT_EQ(e->memory.size(), 1u);
  EXPECT_EQ(e->memory[0].device, 3);
  expect_rel(e->step_seconds, 1.048576e-6);
  expect_rel(e->mfu, 1.0);
}

// The seed's row-sharded matmul (quiz Q10): W 1024x1024 row-sharded over 4 devices, x sharded
// along its columns to match: y = sum_k x_k W_k needs a psum (AllReduce) of y.
//   FLOPs per device 2*8*1024*1024 / 4 = 4,194,304 -> 4.194304e-6 s (memory free);
//   AllReduce of y (8 x 1024 x 4 = 32,768 B) on 4: 2*3*1e-6 + 1.5*32768/1e10 = 1.09152e-5 s.
//   step 1.5109504e-5 s.
Scenario row_sharded(const std::vector<std::string>& w_spec, const std::vector<std::string>& x_spec) {
  Scenario sc;
  sc.name = "row-sharded-matmul";
  sc.topology = testing::round_star(4, 1e-6, 1e10, 0);
  EXPECT_TRUE(sc.topology.validate().is_ok());
  sc.profile = testing::round_hardware();
  sc.model_kind = ModelKind::kGraph;
  TensorSpec x{"x", {8, 1024}, DType::kF32, false, {}};
  TensorSpec w{"w", {1024, 1024}, DType::kF32, true, {}};
  TensorSpec y{"y", {8, 1024}, DType::kF32, false, {}};
  sc.graph.tensors = {x, w, y};
  Op mm;
  mm.name = "mm";
  mm.kind = OpKind::kMatmul;
  mm.inputs = {0, 1};
  mm.outputs = {2};
  mm.flops = 2.0 * 8 * 1024 * 1024;
  mm.bytes = (8 * 1024 + 1024 * 1024 + 8 * 1024) * 4.0;
  sc.graph.ops = {mm};
  sc.mesh = MeshSpec{{4}, {"model"}};
  sc.shardings = {{"x", x_spec}, {"w", w_spec}};
  sc.training.inference = true;  // the seed's forward product
  return sc;
}

TEST(EstimatePlan, RowShardedMatmulNeedsASum) {
  auto e = estimate_plan(row_sharded({"model", ""}, {"", "model"}));
  ASSERT_TRUE(e.is_ok()) << e.message();
  const CommunicationEstimate* ar = find_comm(*e, "sharding", "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->bytes, 32768.0);
  expect_rel(ar->seconds, 1.09152e-5);
  expect_rel(e->compute_seconds, 4.194304e-6);
  expect_rel(e->step_seconds, 1.5109504e-5);
  // Each device holds a quarter of W (1 MiB), a quarter of x and all of y.
  EXPECT_DOUBLE_EQ(e->memory[2].params_bytes, 1048576.0);
  EXPECT_DOUBLE_EQ(e->memory[2].activations_bytes, 8192.0 + 32768.0);
}

// Column-sharded W: each device computes y's own columns, no sum; y stays sharded.
// FLOPs / 4 as before, no collective: 4.194304e-6 s.
TEST(EstimatePlan, ColumnShardedMatmulNeedsNoSum) {
  auto e = estimate_plan(row_sharded({"", "model"}, {"", ""}));
  ASSERT_TRUE(e.is_ok()) << e.message();
  EXPECT_TRUE(e->communication.empty());
  expect_rel(e->step_seconds, 4.194304e-6);
}

// Row-sharded W with a replicated x: a sharded operand wins over a whole one (slicing is free,
// as in JAX), so x is sliced to W's rows, leaving partial sums: a psum of y (32,768 B), and W is
// not gathered (costmodel/sharding.hpp, propagate_einsum; the planner's rule too).
TEST(EstimatePlan, MismatchedContractionSlicesTheWholeOperand) {
  auto e = estimate_plan(row_sharded({"model", ""}, {"", ""}));
  ASSERT_TRUE(e.is_ok()) << e.message();
  const CommunicationEstimate* ar = find_comm(*e, "sharding", "allreduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->bytes, 32768.0);
  EXPECT_EQ(find_comm(*e, "sharding", "allgather"), nullptr);
}

// DESIGN.md's sharded-mlp as a graph: mesh (2, 4) over (data, model); x [data, None],
// w1 [None, model], w2 [model, None] (Megatron's column-then-row split); x [8, 512],
// w1 [512, 2048], relu, w2 [2048, 512], f32. mm1 needs nothing; relu keeps [data, model];
// mm2 contracts over 'model' on both sides: a psum of y's local block (8/2 x 512 x 4 = 8192 B)
// over 4 ranks.
//   FLOPs per device: mm1 2*8*2048*512 / 8 = 2,097,152; mm2 2,097,152 -> 4.194304e-6 s (the
//   relu is a memory-bound kernel: free with memory bandwidth 0); AllReduce 2*3*1e-6 +
//   1.5*8192/1e10 = 7.2288e-6 s; step 1.1423104e-5 s.
TEST(EstimatePlan, ShardedMlpMegatronSplit) {
  Scenario sc;
  sc.name = "sharded-mlp";
  sc.topology = testing::round_star(8, 1e-6, 1e10, 0);
  ASSERT_TRUE(sc.topology.validate().is_ok());
  sc.profile = testing::round_hardware();
  sc.model_kind = ModelKind::kGraph;
  auto tensor = [&](const char* n, std::vector<std::int64_t> shape, bool param) {
    sc.graph.tensors.push_back(TensorSpec{n, std::move(shape), DType::kF32, param, {}});
    return static_cast<int>(sc.graph.tensors.size()) - 1;
  };
  const int x = tensor("x", {8, 512}, false), w1 = tensor("w1", {512, 2048}, true);
  const int h = tensor("h", {8, 2048}, false), a = tensor("a", {8, 2048}, false);
  const int w2 = tensor("w2", {2048, 512}, true), y = tensor("y", {8, 512}, false);
  auto op = [&](const char* n, OpKind k, std::vector<int> in, int out, double f) {
    Op o;
    o.name = n;
    o.kind = k;
    o.inputs = std::move(in);
    o.outputs = {out};
    o.flops = f;
    o.bytes = 0;
    sc.graph.ops.push_back(o);
  };
  op("mm1", OpKind::kMatmul, {x, w1}, h, 16777216);
  op("relu", OpKind::kElementwise, {h}, a, 16384);
  op("mm2", OpKind::kMatmul, {a, w2}, y, 16777216);
  sc.mesh = MeshSpec{{2, 4}, {"data", "model"}};
  sc.shardings = {{"x", {"data", ""}}, {"w1", {"", "model"}}, {"w2", {"model", ""}}};
  sc.training.inference = true;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  EXPECT_EQ(e->devices, 8);
  ASSERT_EQ(e->communication.size(), 1u);
  EXPECT_EQ(e->communication[0].kind, "allreduce");
  EXPECT_EQ(e->communication[0].bytes, 8192.0);
  EXPECT_EQ(e->communication[0].group_size, 4);
  expect_rel(e->compute_seconds, 4.194304e-6);
  expect_rel(e->step_seconds, 1.1423104e-5);
  // w1 and w2 are a quarter each on every device: 2 x 512*2048*4/4 = 2 MiB.
  EXPECT_DOUBLE_EQ(e->memory[5].params_bytes, 2097152.0);
  // Replicated w2 instead: a [data, model] wins over the whole w2, which is sliced to its rows
  // (free), so mm2 still leaves partial sums: the same psum of y, and nothing gathered.
  sc.shardings["w2"] = {"", ""};
  auto g = estimate_plan(sc);
  ASSERT_TRUE(g.is_ok()) << g.message();
  ASSERT_EQ(g->communication.size(), 1u);
  EXPECT_EQ(g->communication[0].kind, "allreduce");
  EXPECT_EQ(g->communication[0].bytes, 8192.0);
}

// A lone collective: dgx-a100's AllReduce of 1 GiB, algorithm auto: NCCL's
// choice, ring Simple, 56 us + 2^30 / (240 GB/s x 8/14) = 0.0078853674666 s
// (nccl_model_test.cpp has the table).
TEST(EstimatePlan, CollectiveScenario) {
  Scenario sc;
  sc.name = "ring-allreduce-8";
  auto topo = make_preset("dgx-a100");
  ASSERT_TRUE(topo.is_ok());
  sc.topology = *topo;
  ASSERT_TRUE(sc.topology.validate().is_ok());
  sc.profile = HardwareProfile::defaults();
  sc.model_kind = ModelKind::kCollective;
  sc.collective.bytes = 1073741824.0;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->step_seconds, 0.007885367466666666);
  EXPECT_EQ(e->devices, 8);
  EXPECT_TRUE(e->amdahl.empty());
  const nlohmann::json j = plan_estimate_json(*e);
  expect_rel(j["step_seconds"].get<double>(), 0.007885367466666666);
  ASSERT_EQ(j["memory"]["per_device"].size(), 8u);
  for (const char* key : {"params_bytes", "grads_bytes", "optimizer_bytes", "activations_bytes",
                          "peak_bytes"})
    EXPECT_TRUE(j["memory"]["per_device"][0].contains(key)) << key;
}

// Plans no device count or shape can realise. core's check_plan (called first once it is on
// this branch) asserts its own exact messages; what holds either way: one line at the key's
// position (or the file), kBadInput, saying what was found.
TEST(EstimatePlan, Errors) {
  auto starts_with = [](const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
  };
  Scenario sc = tiny_gpt(2);
  sc.has_strategy = true;
  sc.strategy.tensor = 4;  // 4 devices wanted, 2 present
  auto too_many = estimate_plan(sc);
  ASSERT_FALSE(too_many.is_ok());
  EXPECT_EQ(too_many.status().kind(), ErrorKind::kBadInput);
  EXPECT_TRUE(starts_with(too_many.message(), "tiny.yaml: error: found ")) << too_many.message();
  sc = tiny_gpt(3);
  sc.strategy.tensor = 3;
  sc.positions["strategy.tensor"] = SourcePos{"tiny.yaml", 7, 12};
  auto heads = estimate_plan(sc);
  ASSERT_FALSE(heads.is_ok());
  EXPECT_TRUE(starts_with(heads.message(), "tiny.yaml:7:12: error: found tensor 3 ")) << heads.message();
  sc = tiny_gpt(2);
  sc.strategy.data = 2;
  sc.training.global_batch = 3;
  auto batch = estimate_plan(sc);
  ASSERT_FALSE(batch.is_ok());
  EXPECT_EQ(batch.status().kind(), ErrorKind::kBadInput);
  EXPECT_NE(batch.message().find("3"), std::string::npos) << batch.message();
  Scenario none;
  none.path = "x.yaml";
  EXPECT_EQ(estimate_plan(none).message(),
            "x.yaml: error: found no model; expected one of mlp, transformer, huggingface, graph or collective");
}

// The text report is a readable table with units.
TEST(PlanReport, TextTable) {
  auto e = estimate_plan(tiny_gpt(1));
  ASSERT_TRUE(e.is_ok()) << e.message();
  const std::string text = plan_estimate_text(*e);
  EXPECT_NE(text.find("step time"), std::string::npos) << text;
  EXPECT_NE(text.find("22.0 us"), std::string::npos) << text;
}

// Issue 18 item 11: "achieved TFLOP/s" counted recomputation's FLOPs while
// MFU did not. In Megatron's terms (Narayanan et al. 2021 §5.1; Korthikanti
// et al. 2022 §6): model FLOPs (the work, no recomputation) give MFU, hardware
// FLOPs (with it) give HFU; each rate is labelled with its kind. Full
// recomputation on the tiny GPT, memory free: hardware FLOPs 4/3 of the model's
// for the layers (Eq. 3's 4 passes against 3), so HFU > MFU.
// MFU and HFU are taken against the peak of the model's dtype; an FP8
// plan's GEMMs run above it, so its rates can pass 100%, and the report says
// why (the same figures with HFU set above 1 and at 1).
TEST(PlanReport, RatesAbovePeakSayWhy) {
  PlanEstimate e;
  e.model_kind = "transformer";
  e.devices = 1;
  e.step_seconds = 1;
  e.parameters = 1e9;
  e.model_flops_per_iteration = 1.01e15;
  e.model_flops_per_second_per_device = 1.01e15;
  e.achieved_flops_per_second_per_device = 1.02e15;
  e.mfu = 1.018;
  e.hfu = 1.031;
  const std::string above = plan_estimate_text(e);
  EXPECT_NE(above.find("(MFU 101.8%)"), std::string::npos) << above;
  EXPECT_NE(above.find("(above 100%: MFU and HFU are against the peak of the model's dtype, "
                       "which FP8 GEMMs exceed)"),
            std::string::npos)
      << above;
  e.mfu = e.hfu = 1.0;
  EXPECT_EQ(plan_estimate_text(e).find("above 100%"), std::string::npos);
}

// The streaming rate beside the FLOP rates (what a time per byte of the step
// reads as bytes at: scripts/fidelity --gaps): the device's peak memory
// bandwidth x its profile's memory_efficiency, 4e11 x 0.75 = 3e11 B/s, in
// the JSON too.
TEST(PlanReport, TheStreamingRateIsThePeakBandwidthTimesTheEfficiency) {
  Scenario sc = tiny_gpt(1, 2, 4e11);
  ASSERT_EQ(sc.profile.devices.size(), 1u);
  sc.profile.devices[0].memory_efficiency = 0.75;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->streaming_bytes_per_second, 3e11);
  expect_rel(plan_estimate_json(*e)["streaming_bytes_per_second"].get<double>(), 3e11);
}

TEST(PlanReport, ModelAndHardwareFlopsAreLabelled) {
  Scenario sc = tiny_gpt(1);
  sc.training.recompute = Recompute::kFull;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  const double model = transformer_flops_per_iteration(1, 32, 2, 64, 128, Recompute::kNone);
  const double hardware = transformer_flops_per_iteration(1, 32, 2, 64, 128, Recompute::kFull);
  expect_rel(e->model_flops_per_second_per_device, model / e->step_seconds);
  expect_rel(e->achieved_flops_per_second_per_device, hardware / e->step_seconds);
  expect_rel(e->mfu, model / e->step_seconds / 1e12);
  expect_rel(e->hfu, hardware / e->step_seconds / 1e12);
  EXPECT_GT(e->hfu, e->mfu);
  const std::string text = plan_estimate_text(*e);
  EXPECT_NE(text.find("model FLOPs"), std::string::npos) << text;
  EXPECT_NE(text.find("hardware FLOPs"), std::string::npos) << text;
  EXPECT_NE(text.find("MFU"), std::string::npos) << text;
  EXPECT_NE(text.find("HFU"), std::string::npos) << text;
  EXPECT_EQ(text.find("achieved"), std::string::npos) << text;
  const nlohmann::json j = plan_estimate_json(*e);
  expect_rel(j["hfu"].get<double>(), e->hfu);
  expect_rel(j["hardware_flops_per_second_per_device"].get<double>(), hardware / e->step_seconds);
  expect_rel(j["model_flops_per_second_per_device"].get<double>(), model / e->step_seconds);
}

// The host's time per operation (simulation.host_op_time; docs/costmodel.md,
// "The host's time per operation"). The tiny GPT's kernels take well under
// a microsecond each on this ideal device. A 1 ns host stays ahead: the
// step grows by its first issue alone, which is the wait. A 1 ms host sets
// the pace: the step's parts still add up to it, the wait being the host's
// N operations x h beyond the device's time, N a whole number of
// operations; twice the host time, twice the issue.
TEST(EstimatePlan, HostTimePerOperation) {
  Scenario sc = tiny_gpt(1);
  auto base = estimate_plan(sc);
  ASSERT_TRUE(base.is_ok()) << base.message();
  EXPECT_EQ(base->host_wait_seconds, 0);
  sc.simulation.host_op_seconds = 1e-9;
  auto ahead = estimate_plan(sc);
  ASSERT_TRUE(ahead.is_ok()) << ahead.message();
  expect_rel(ahead->step_seconds, base->step_seconds + 1e-9);
  expect_rel(ahead->host_wait_seconds, 1e-9);
  for (double h : {1e-3, 2e-3}) {
    sc.simulation.host_op_seconds = h;
    auto e = estimate_plan(sc);
    ASSERT_TRUE(e.is_ok()) << e.message();
    expect_rel(e->step_seconds, e->compute_seconds + e->exposed_communication_seconds + e->bubble_seconds +
                                    e->optimizer_seconds + e->host_wait_seconds);
    const double ops = (e->host_wait_seconds + base->compute_seconds) / h;  // one micro-batch
    EXPECT_NEAR(ops, std::round(ops), 1e-6) << ops;
    EXPECT_GT(ops, 20);  // every layer's kernels, the embedding's and the logits'
    expect_rel(e->compute_seconds, base->compute_seconds);  // the kernels themselves unchanged
  }
}

// A host that never sets the pace leaves a pipeline's order as the device
// runs it: the step is the host-free one (the order walked, where the
// stages differ: with memory-bound kernels timed, the embedding's and the
// loss's work on the first and last stage) and the host's first issue,
// 1 ns, in 1F1B, GPipe and interleaved (1F1B's toy: 1.7e-7 s apart before).
// Until 2026-12-06 any host time sent the closed form to the pipeline's
// formula, whose fill and drain differ from the walk where stages differ
// (GPT-3 175B on 512 H100s: 9.72 s without a host, 9.67 s with 50 us,
// which never set its pace).
TEST(EstimatePlan, HostAheadOfAPipelineKeepsItsOrder) {
  for (auto [schedule, chunks] : {std::pair{PipelineSchedule::k1F1B, 1},
                                  std::pair{PipelineSchedule::kGpipe, 1},
                                  std::pair{PipelineSchedule::kInterleaved, 2}}) {
    Scenario sc = tiny_gpt(4, 8, 1e11);  // memory-bound kernels take time
    sc.strategy.pipeline = 4;
    sc.strategy.schedule = schedule;
    sc.strategy.virtual_stages = chunks;
    sc.training.global_batch = 8;
    auto base = estimate_plan(sc);
    ASSERT_TRUE(base.is_ok()) << base.message();
    sc.simulation.host_op_seconds = 1e-9;
    auto ahead = estimate_plan(sc);
    ASSERT_TRUE(ahead.is_ok()) << ahead.message();
    expect_rel(ahead->step_seconds, base->step_seconds + 1e-9);
    expect_rel(ahead->host_wait_seconds, 1e-9);
  }
}

// simulation.devices_per_host: a host issues every operation of the
// devices it drives. Four data-parallel replicas, host-bound (1 ms an
// operation): with a host per device each micro-batch takes N h; with two
// devices a host, 2 N h; with four, 4 N h (N: one replica's operations,
// the gradient AllReduce's included). Each host of two drives two
// replicas; a host of 3 over 4 devices leaves the second host one device,
// and the busier host (3 N h) sets the pace.
TEST(EstimatePlan, DevicesPerHostSumTheirOperations) {
  Scenario sc = tiny_gpt(4);
  sc.training.global_batch = 4;
  sc.strategy.data = 4;
  sc.simulation.host_op_seconds = 1e-3;
  auto wait_for = [&](int per_host) {
    sc.simulation.devices_per_host = per_host;
    auto e = estimate_plan(sc);
    EXPECT_TRUE(e.is_ok()) << e.message();
    return e.is_ok() ? e->step_seconds : 0.0;
  };
  const double one = wait_for(1), two = wait_for(2), three = wait_for(3), four = wait_for(4);
  ASSERT_GT(one, 20e-3);  // host-bound: 20+ operations of 1 ms
  // The step is the host's issue plus what follows the last micro-batch's
  // (identical in all four): the differences are whole multiples of N h.
  const double n_h = two - one;
  EXPECT_NEAR(n_h / 1e-3, std::round(n_h / 1e-3), 1e-6) << n_h;
  EXPECT_GT(n_h, 20e-3);
  EXPECT_NEAR(three - one, 2 * n_h, 1e-9);
  EXPECT_NEAR(four - one, 3 * n_h, 1e-9);
  // The report's note counts the host's operations, the other devices' too.
  sc.simulation.devices_per_host = 4;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  const std::string want = fmt::format(
      "host: {:.0f} operations a micro-batch on stage 0's host (for all 4 devices it drives)",
      4 * n_h / 1e-3);
  EXPECT_TRUE(std::any_of(e->notes.begin(), e->notes.end(), [&](const std::string& n) {
    return n.rfind(want, 0) == 0;
  })) << want;
}

// The notes say where the plan's tensor-parallel collectives and pipeline
// sends run, as the judge times them: between kernels unless the column-
// parallel backward's go beside its GEMMs (training.tp_backward_overlap,
// on by default) or Transformer Engine's userbuffers take them; the
// pipeline's sends beside the next work but in the fill and drain.
TEST(EstimatePlan, NotesSayWhereTheTensorCollectivesAndSendsRun) {
  auto notes_of = [](const Scenario& sc) {
    auto e = estimate_plan(sc);
    EXPECT_TRUE(e.is_ok()) << e.message();
    std::string all;
    if (e.is_ok())
      for (const std::string& n : e->notes) all += n + "\n";
    return all;
  };
  auto says = [](const std::string& notes, const char* text) {
    return notes.find(text) != std::string::npos;
  };
  Scenario sc = tiny_gpt(4, 4);
  sc.strategy.tensor = 2;
  sc.strategy.pipeline = 2;
  sc.training.global_batch = 2;
  std::string n = notes_of(sc);
  EXPECT_TRUE(says(n, "tensor-parallel collectives: between kernels, on the critical path, "
                      "except the column-parallel backward's"))
      << n;
  EXPECT_TRUE(says(n, "pipeline sends: beside the stage's next work; the fill and drain wait "
                      "for a micro-batch's sends there and back, and in 1F1B's steady state"))
      << n;
  {
    Scenario il = tiny_gpt(2, 4);
    il.strategy.pipeline = 2;
    il.strategy.schedule = PipelineSchedule::kInterleaved;
    il.strategy.virtual_stages = 2;
    il.training.global_batch = 4;
    const std::string ni = notes_of(il);
    EXPECT_TRUE(says(ni, "the fill and drain wait for every send of a micro-batch, 3 each way "
                         "through the 4 model chunks"))
        << ni;
    il.training.inference = true;
    const std::string nf = notes_of(il);
    EXPECT_TRUE(says(nf, "forward only, each group of 2 micro-batches goes round the stages 2 "
                         "times and waits for 2 sends at every return to stage 0"))
        << nf;
  }
  EXPECT_FALSE(says(n, "(not overlapped)")) << n;
  Scenario te = sc;
  te.strategy.sequence_parallel = true;
  te.training.tp_comm_overlap = true;
  n = notes_of(te);
  EXPECT_TRUE(says(n, "tensor-parallel collectives: the sequence-parallel all-gathers and "
                      "reduce-scatters beside their GEMMs"))
      << n;
  sc.training.tp_backward_overlap = false;
  n = notes_of(sc);
  EXPECT_TRUE(says(n, "tensor-parallel collectives: between kernels, on the critical path (not "
                      "overlapped)"))
      << n;
  sc.strategy.tensor = 1;
  sc.strategy.data = 2;
  n = notes_of(sc);
  EXPECT_FALSE(says(n, "tensor-parallel collectives")) << n;
}

}  // namespace
}  // namespace brigade::cost
