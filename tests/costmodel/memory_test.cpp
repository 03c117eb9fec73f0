// Model states (ZeRO), transformer activations (Korthikanti et al. 2022) and
// pipeline in-flight counts (Narayanan et al. 2021), worked by hand.
#include "costmodel/memory.hpp"

#include <vector>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

namespace brigade::cost {
namespace {

// ZeRO §3.1: mixed-precision Adam keeps 2 (fp16 weights) + 2 (fp16 grads) + K = 12
// (fp32 master weights, momentum, variance) bytes per parameter.
TEST(BytesPerParameter, MixedPrecisionAdamIs2Plus2Plus12) {
  const BytesPerParameter b = bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, true);
  EXPECT_EQ(b.params, 2.0);
  EXPECT_EQ(b.grads, 2.0);
  EXPECT_EQ(b.optimizer, 12.0);
  EXPECT_EQ(b.total(), 16.0);
}

// fp32 Adam: 4 + 4 + 8 (momentum and variance, no master copy). SGD (plain): 2 + 2 + 4 in mixed
// precision (the master copy only), 4 + 4 + 0 in fp32; SGD with momentum in fp32: 4 + 4 + 4.
// Inference keeps the weights only: bf16 -> 2 + 0 + 0.
TEST(BytesPerParameter, OtherOptimizers) {
  const BytesPerParameter adam32 = bytes_per_parameter(OptimizerKind::kAdam, DType::kF32, true, true);
  EXPECT_EQ(adam32.params + adam32.grads + adam32.optimizer, 4.0 + 4.0 + 8.0);
  EXPECT_EQ(adam32.optimizer, 8.0);
  EXPECT_EQ(bytes_per_parameter(OptimizerKind::kSgd, DType::kBF16, true, true).optimizer, 4.0);
  EXPECT_EQ(bytes_per_parameter(OptimizerKind::kSgd, DType::kF32, true, true).total(), 8.0);
  EXPECT_EQ(bytes_per_parameter(OptimizerKind::kSgdMomentum, DType::kF32, false, true).total(), 12.0);
  // Pure bf16 training without a master copy: 2 + 2 + 8.
  EXPECT_EQ(bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, false, true).total(), 12.0);
  const BytesPerParameter inf = bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, false);
  EXPECT_EQ(inf.params, 2.0);
  EXPECT_EQ(inf.grads + inf.optimizer, 0.0);
  EXPECT_EQ(optimizer_kind(Optimizer::kSgd), OptimizerKind::kSgd);
}

// One optimizer step reads weights, gradient and state and writes weights and state back:
// mixed-precision Adam 2*(2 + 12) + 2 = 30 B per parameter; fp32 plain SGD 2*(4 + 0) + 4 = 12;
// inference has no step (0).
TEST(OptimizerStepBytes, ReadsAllStatesWritesWeightsAndState) {
  EXPECT_EQ(optimizer_step_bytes_per_parameter(
                bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, true)),
            30.0);
  EXPECT_EQ(optimizer_step_bytes_per_parameter(
                bytes_per_parameter(OptimizerKind::kSgd, DType::kF32, false, true)),
            12.0);
  EXPECT_EQ(optimizer_step_bytes_per_parameter(
                bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, false)),
            0.0);
}

// Megatron-LM's optimizer step, per parameter (megatron/core/optimizer/
// optimizer.py, MixedPrecisionOptimizer.step; clip_grads.py; DDP's
// zero_grad_buffer), worked by hand:
//   bf16 weights, bf16 gradients, Adam: cast 2 + 4 = 6, norm 4, clip 4 + 4 = 8,
//     fused Adam 2 (4 + 8) + 4 = 28, copy back 4 + 2 = 6: 52 over the shard;
//     the buffer's zeroing 2.
//   fp16: the same plus the grad scaler's unscale 4 + 4 = 8: 60; buffer 2.
//   bf16 with an fp32 main_grad: no cast (a view), 4 + 8 + 28 + 6 = 46; buffer 4.
//   fp32 Adam (no master copy): norm 4, clip 8, step 2 (4 + 8) + 4 = 28: 40; buffer 4.
//   bf16 SGD without momentum: 6 + 4 + 8 + (2 x 4 + 4 = 12) + 6 = 36; buffer 2.
TEST(MegatronOptimizerStep, PassesOfMixedPrecisionAdamWorkedByHand) {
  const OptimizerStepBytes bf16 =
      megatron_optimizer_step_bytes(OptimizerKind::kAdam, DType::kBF16, true, false);
  EXPECT_EQ(bf16.shard, 52.0);
  EXPECT_EQ(bf16.buffer, 2.0);
  const OptimizerStepBytes fp16 =
      megatron_optimizer_step_bytes(OptimizerKind::kAdam, DType::kF16, true, false);
  EXPECT_EQ(fp16.shard, 60.0);
  EXPECT_EQ(fp16.buffer, 2.0);
  const OptimizerStepBytes main_grad =
      megatron_optimizer_step_bytes(OptimizerKind::kAdam, DType::kBF16, true, true);
  EXPECT_EQ(main_grad.shard, 46.0);
  EXPECT_EQ(main_grad.buffer, 4.0);
  const OptimizerStepBytes fp32 =
      megatron_optimizer_step_bytes(OptimizerKind::kAdam, DType::kF32, true, false);
  EXPECT_EQ(fp32.shard, 40.0);
  EXPECT_EQ(fp32.buffer, 4.0);
  const OptimizerStepBytes sgd =
      megatron_optimizer_step_bytes(OptimizerKind::kSgd, DType::kBF16, true, false);
  EXPECT_EQ(sgd.shard, 36.0);
  EXPECT_EQ(sgd.buffer, 2.0);
  const OptimizerStepBytes none =
      megatron_optimizer_step_bytes(OptimizerKind::kNone, DType::kBF16, true, false);
  EXPECT_EQ(none.shard + none.buffer, 0.0);
}

// Apex's DistributedFusedAdam as NeMo 1.x runs it (nemo/core/optim/
// distributed_adam.py and megatron_base_model.py at v2.0.0; Apex's
// store_param_remainders and `dtype`). Adam on bf16 weights and gradients:
//   fp32 moments, the master as its remainder: 2 + 2 + (2 + 8) = 14 bytes;
//   bf16 moments, no master (optim dtype bf16, store_params false):
//   2 + 2 + (2 + 2) = 8.
// The step over the shard, remainders: the cast 2 + 4 = 6, norm 4, clip 8,
//   Apex's step reading and writing weight, remainder and moments and
//   reading the fp32 gradient 2 (2 + 10) + 4 = 28, no copy pass: 46
//   (52 with an fp32 master); buffer 2.
// bf16 moments: no master, so no cast; norm 2, clip 4, the step
//   2 (2 + 4) + 2 = 14: 20; buffer 2.
TEST(ApexOptimizer, BytesAndStepWorkedByHand) {
  const OptimizerLayout rem{false, true}, bf16{true, false};
  const BytesPerParameter r = bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, true,
                                                  false, rem);
  EXPECT_EQ(r.params, 2.0);
  EXPECT_EQ(r.grads, 2.0);
  EXPECT_EQ(r.optimizer, 10.0);
  EXPECT_EQ(r.total(), 14.0);
  const BytesPerParameter b = bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, true,
                                                  false, bf16);
  EXPECT_EQ(b.optimizer, 4.0);
  EXPECT_EQ(b.total(), 8.0);
  // With an fp32 gradient buffer (grad_sync_dtype fp32): the gradients' 4 bytes.
  EXPECT_EQ(bytes_per_parameter(OptimizerKind::kAdam, DType::kBF16, true, true, true, rem).total(),
            16.0);
  const OptimizerStepBytes rs =
      megatron_optimizer_step_bytes(OptimizerKind::kAdam, DType::kBF16, true, false, rem);
  EXPECT_EQ(rs.shard, 46.0);
  EXPECT_EQ(rs.buffer, 2.0);
  const OptimizerStepBytes bs =
      megatron_optimizer_step_bytes(OptimizerKind::kAdam, DType::kBF16, true, false, bf16);
  EXPECT_EQ(bs.shard, 20.0);
  EXPECT_EQ(bs.buffer, 2.0);
  // The reader's keys to the layout.
  TrainingSpec t;
  t.param_remainders = true;
  EXPECT_TRUE(optimizer_layout(t).remainders);
  EXPECT_FALSE(optimizer_layout(t).bf16_state);
}

// ZeRO Figure 1: Psi = 7.5B parameters, K = 12, Nd = 64:
//   baseline (2+2+12) * 7.5e9 = 120e9 B ("120 GB");
//   Pos:     (2+2) * 7.5e9 + 12 * 7.5e9/64 = 30e9 + 1.40625e9 = 31.40625e9 ("31.4 GB");
//   Pos+g:   2 * 7.5e9 + 14 * 7.5e9/64 = 15e9 + 1.640625e9 = 16.640625e9 ("16.6 GB");
//   Pos+g+p: 16 * 7.5e9/64 = 1.875e9 ("1.9 GB").
TEST(ModelStateBytes, ZeroFigure1) {
  const BytesPerParameter b = bytes_per_parameter(OptimizerKind::kAdam, DType::kF16, true, true);
  const double expected[] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
  const double printed_gb[] = {120, 31.4, 16.6, 1.9};
  for (int stage = 0; stage <= 3; ++stage) {
    auto m = model_state_bytes(7.5e9, b, stage, 64);
    ASSERT_TRUE(m.is_ok()) << m.message();
    EXPECT_DOUBLE_EQ(m->total(), expected[stage]) << "stage " << stage;
    EXPECT_NEAR(m->total() / 1e9, printed_gb[stage], 0.05) << "stage " << stage;
  }
  auto s2 = model_state_bytes(7.5e9, b, 2, 64);
  EXPECT_DOUBLE_EQ(s2->params_bytes, 15e9);
  EXPECT_DOUBLE_EQ(s2->grads_bytes, 2 * 7.5e9 / 64);
  EXPECT_DOUBLE_EQ(s2->optimizer_bytes, 12 * 7.5e9 / 64);
}

TEST(ModelStateBytes, Errors) {
  const BytesPerParameter b{2, 2, 12};
  EXPECT_EQ(model_state_bytes(1, b, 4, 8).message(), "found ZeRO stage 4; expected 0, 1, 2 or 3");
  EXPECT_EQ(model_state_bytes(1, b, 1, 0).message(),
            "found data-parallel degree 0; expected at least 1");
  EXPECT_EQ(model_state_bytes(-1, b, 1, 1).message(), "found -1 parameters; expected a count >= 0");
}

// GPT-3 175B layer, Korthikanti et al. 2022 Table 2: s = 2048, b = 1, h = 12288, a = 96, t = 8.
// sbh = 2048 * 12288 = 25,165,824; 5as/h = 5 * 96 * 2048 / 12288 = 80.
LayerActivationQuery gpt3_layer(int t, bool sp, Recompute r) {
  LayerActivationQuery q;
  q.seq = 2048;
  q.micro_batch = 1;
  q.hidden = 12288;
  q.heads = 96;
  q.vocab = 51200;
  q.tensor = t;
  q.sequence_parallel = sp;
  q.recompute = r;
  return q;
}

TEST(LayerActivationBytes, KorthikantiTable2ByHand) {
  const double sbh = 25165824;
  // no parallelism: sbh (34 + 80) = 114 sbh = 2,868,903,936 B
  EXPECT_DOUBLE_EQ(layer_activation_bytes(gpt3_layer(1, false, Recompute::kNone)), 2868903936.0);
  EXPECT_DOUBLE_EQ(2868903936.0, 114 * sbh);
  // tensor parallel: sbh (10 + 24/8 + 80/8) = 23 sbh = 578,813,952 B
  EXPECT_DOUBLE_EQ(layer_activation_bytes(gpt3_layer(8, false, Recompute::kNone)), 578813952.0);
  // tensor + sequence parallel: sbh/8 (34 + 80) = 14.25 sbh = 358,612,992 B
  EXPECT_DOUBLE_EQ(layer_activation_bytes(gpt3_layer(8, true, Recompute::kNone)), 358612992.0);
  // selective, TP only: sbh (10 + 24/8) = 13 sbh = 327,155,712 B
  EXPECT_DOUBLE_EQ(layer_activation_bytes(gpt3_layer(8, false, Recompute::kSelective)), 327155712.0);
  // selective, TP + SP: 34 sbh / 8 = 4.25 sbh = 106,954,752 B
  EXPECT_DOUBLE_EQ(layer_activation_bytes(gpt3_layer(8, true, Recompute::kSelective)), 106954752.0);
  // full: the layer input 2 sbh = 50,331,648 B; with SP 2 sbh / 8 = 6,291,456 B
  EXPECT_DOUBLE_EQ(layer_activation_bytes(gpt3_layer(8, false, Recompute::kFull)), 50331648.0);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(gpt3_layer(8, true, Recompute::kFull)), 6291456.0);
}

// 32-bit activations keep the 1-byte masks: (4*4 + 2) sbh + 12*4 sbh + (2*4 + 1) as^2 b with
// as^2b = sbh * as/h = 16 sbh: 18 + 48 + 144 = 210 sbh = 5,284,823,040 B.
TEST(LayerActivationBytes, Fp32Activations) {
  LayerActivationQuery q = gpt3_layer(1, false, Recompute::kNone);
  q.dtype = DType::kF32;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(q), 5284823040.0);
}

// §4.3: embedding dropout mask sbh/t = 3,145,728 B (SP, t = 8), sbh without SP;
// output layer 4sbh/t (1 + v/h) = 4 * 25165824/8 * (1 + 51200/12288) = 12,582,912 * 31/6
//   = 65,011,712 B (= 2*2sbh/8 + 4*2048*51200/8 = 12,582,912 + 52,428,800).
TEST(EmbeddingAndOutputActivations, KorthikantiSection43) {
  EXPECT_DOUBLE_EQ(embedding_activation_bytes(gpt3_layer(8, true, Recompute::kNone)), 3145728.0);
  EXPECT_DOUBLE_EQ(embedding_activation_bytes(gpt3_layer(8, false, Recompute::kNone)), 25165824.0);
  EXPECT_DOUBLE_EQ(output_layer_activation_bytes(gpt3_layer(8, true, Recompute::kNone)), 65011712.0);
  // Without SP the layernorm and projection inputs are whole: 4 sbh + 4sbv/t = 100,663,296 + 52,428,800.
  EXPECT_DOUBLE_EQ(output_layer_activation_bytes(gpt3_layer(8, false, Recompute::kNone)),
                   153092096.0);
}

// Narayanan et al. 2021 §2.2, p = 4 stages, m = 8 micro-batches: GPipe holds all 8;
// 1F1B holds p - stage: 4 on stage 0, 1 on stage 3; with m = 2 at most 2.
// Interleaved, v = 2: stage 0 holds min(16, 2*3 + 1*4 + 1) = 11 chunks of L/8 layers = 5.5
// stage-loads = p (1 + (p-1)/(pv)) = 4 * 11/8 (Korthikanti §4.2.3).
TEST(InFlightMicroBatches, Schedules) {
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::kGpipe, 4, 8, 1, 0), 8.0);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::k1F1B, 4, 8, 1, 0), 4.0);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::k1F1B, 4, 8, 1, 3), 1.0);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::k1F1B, 4, 2, 1, 0), 2.0);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::kInterleaved, 4, 8, 2, 0), 5.5);
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::kInterleaved, 4, 8, 2, 0), 4.0 * (1 + 3.0 / 8));
  // m = p: Megatron-LM runs every forward first (all_warmup_microbatches), so even the
  // last stage holds all m v = 4 chunks, 2 stage-loads (p = 2, v = 2).
  EXPECT_EQ(in_flight_micro_batches(PipelineSchedule::kInterleaved, 2, 2, 2, 1), 2.0);
}

// Which chunks those are (issue 18: the embedding counted p micro-batches, the
// simulator ran more). p = 4, v = 2, m = 8, stage 0: warm-up 2*3 + 1*4 = 10
// forwards; forward k runs chunk (k mod 8) / 4 (k 0-3, 8-11: chunk 0),
// backward i chunk 1 - (i mod 8) / 4 (i 0-3: chunk 1). Before the steady
// state's backward j, forwards 0..10+j and backwards 0..j-1 have run: at
// j = 1 forwards 0-3 and 8-11 (chunk 0: all 8 micro-batches) and backward 0
// (chunk 1), so stage 0 holds the embedding of 8 micro-batches.
// Stage 3, chunk 1 (the output layer): warm-up 4; at j = 0 forwards 0-4 (k 4:
// chunk 1), and every later forward of chunk 1 follows a backward of chunk 1:
// at most 1. m = p = 2, v = 2, stage 1: every forward first, both
// micro-batches of chunk 1.
TEST(InterleavedChunkInFlight, ByHand) {
  EXPECT_EQ(interleaved_chunk_in_flight(4, 8, 2, 0, 0), 8.0);
  EXPECT_EQ(interleaved_chunk_in_flight(4, 8, 2, 3, 1), 1.0);
  EXPECT_EQ(interleaved_chunk_in_flight(2, 2, 2, 1, 1), 2.0);
}

// Chunks of unequal bytes (the pipeline split's short ends): the most of
// sum_c weight_c x held_c over the steady state's steps. p = 2, v = 2, m =
// 8, stage 0: warm-up 2*1 + 1*2 = 4; forward k runs chunk (k mod 4) / 2,
// backward i chunk 1 - (i mod 4) / 2. Before backward j it holds (chunk 0,
// chunk 1) = (3, 2), (4, 1), (4, 1), (3, 2) for j = 0..3: with weights
// (1, 10) the most is 3 + 20 = 23 (j = 0), with (10, 1) 40 + 1 = 41 (j = 1),
// with (1, 1) 5 = the stage's 2.5 loads x 2 chunks. Stage 1 (warm-up 2):
// (2, 1), (2, 1), (3, 0), (3, 0): with (10, 1) 30.
TEST(InterleavedWeightedInFlight, ByHand) {
  EXPECT_EQ(interleaved_weighted_in_flight(2, 8, 2, 0, {1, 10}), 23.0);
  EXPECT_EQ(interleaved_weighted_in_flight(2, 8, 2, 0, {10, 1}), 41.0);
  EXPECT_EQ(interleaved_weighted_in_flight(2, 8, 2, 0, {1, 1}),
            2 * in_flight_micro_batches(PipelineSchedule::kInterleaved, 2, 8, 2, 0));
  EXPECT_EQ(interleaved_weighted_in_flight(2, 8, 2, 1, {10, 1}), 30.0);
  // Each chunk alone: its own most (interleaved_chunk_in_flight).
  for (int stage = 0; stage < 4; ++stage)
    for (int c = 0; c < 2; ++c) {
      std::vector<double> w(2, 0.0);
      w[static_cast<size_t>(c)] = 1;
      EXPECT_EQ(interleaved_weighted_in_flight(4, 8, 2, stage, w),
                interleaved_chunk_in_flight(4, 8, 2, stage, c))
          << stage << " " << c;
    }
}

// Each backward's start with what its chunk adds before it frees enough
// (a chunk whose backward frees a kept layer or the output layer before it
// recomputes adds less than one that recomputes at once). p = 2, v = 2, m =
// 4, the judge sweep's plan (sweep_6927_035: 10 layers with the embedding
// and the loss in the split, block recomputation of 2 layers a chunk), in
// MiB: a recomputing layer keeps 32, a kept one 528, the embedding 16, the
// output layer 160, a recomputation adds 496.
//   Stage 0, chunk 0 = the embedding and 2 recomputing layers (80, adds
//   496), chunk 1 = 2 recomputing and 1 kept (592, adds 496 - 528 = -32).
//   Its order: F00 F01 F10 F11 | F02 B10 | F03 B11 | F12 B00 | F13 B01 |
//   B12 B13 B02 B03 (Fck: chunk c, micro-batch k). Held (chunk 0, chunk 1)
//   before each backward: (3, 2), (4, 1), (4, 1), (3, 2), then (2, 2),
//   (2, 1), (2, 0), (1, 0): B10 1424 - 32, B11 912 - 32, B00 912 + 496,
//   B01 1424 + 496 = 1920 (the simulator's peak; the old rule took the top
//   chunk's -32 at the most held, 1424, and missed it).
//   Stage 1, chunk 0 = 2 recomputing and 1 kept (592, adds -32), chunk 1 =
//   2 recomputing and the output layer (224, adds 496 - 160 = 336). Its
//   order: F00 F01 | F10 B10 | F11 B11 | F02 B00 | F03 B01 | F12 B12 | F13
//   B13 | B02 B03. Held: (2, 1), (2, 1), (3, 0), (3, 0), (2, 1), (2, 1),
//   (2, 0), (1, 0): at most 1408 + 336 = 1776 - 32 = 1744 (the old rule:
//   1776 + 336 = 2112, 22% above the simulator's peak of 1776).
TEST(InterleavedBackwardPeak, ByHand) {
  EXPECT_EQ(interleaved_backward_peak(2, 4, 2, 0, {80, 592}, {496, -32}), 1920.0);
  EXPECT_EQ(interleaved_backward_peak(2, 4, 2, 1, {592, 224}, {-32, 336}), 1744.0);
  // With nothing added the most held as a backward starts, which is no
  // more than the most held at any step.
  EXPECT_EQ(interleaved_backward_peak(2, 8, 2, 0, {1, 10}, {0, 0}), 23.0);
  EXPECT_EQ(interleaved_backward_peak(2, 8, 2, 1, {10, 1}, {0, 0}), 30.0);
  // m = p: every forward first, then every backward.
  EXPECT_EQ(interleaved_backward_peak(2, 2, 2, 1, {1, 1}, {0, 5}), 4.0 + 5.0);
}

// The loop carries of_chunk's quotients and remainders from step to step
// (issue 16's speed work): the same counts as dividing afresh at every step,
// the formula as first written, on every small case.
TEST(InterleavedChunkInFlight, SameAsDividingEveryStep) {
  auto divided = [](int pipeline, int micro, int virtual_stages, int stage, int chunk) {
    const std::int64_t p = pipeline, m = micro, v = virtual_stages;
    const std::int64_t total = m * v, group = p * v;
    const std::int64_t warmup =
        m == p ? total : std::min<std::int64_t>(2 * (p - stage - 1) + (v - 1) * p, total);
    auto of_chunk = [&](std::int64_t n, std::int64_t c) {
      return (n / group) * p + std::clamp<std::int64_t>(n % group - c * p, 0, p);
    };
    if (total - warmup == 0) return static_cast<double>(of_chunk(total, chunk));
    std::int64_t most = 0;
    for (std::int64_t j = 0; j < std::min(total - warmup, group); ++j)
      most = std::max(most, of_chunk(warmup + j + 1, chunk) - of_chunk(j, v - 1 - chunk));
    return static_cast<double>(most);
  };
  int cases = 0;
  for (int p = 1; p <= 8; ++p)
    for (int m = 1; m <= 24; ++m)
      for (int v = 1; v <= 4; ++v)
        for (int stage = 0; stage < p; ++stage)
          for (int chunk = 0; chunk < v; ++chunk, ++cases)
            ASSERT_EQ(interleaved_chunk_in_flight(p, m, v, stage, chunk),
                      divided(p, m, v, stage, chunk))
                << p << " " << m << " " << v << " " << stage << " " << chunk;
  EXPECT_EQ(cases, 8640);
}

// MLP, 2 rows, f32: training keeps each layer's input and output: [16, 16] -> 2 * 32 * 4 = 256 B;
// inference keeps the widest pair: [16, 32, 8] -> max(2*48, 2*40) * 4 = 384 B.
TEST(MlpActivationBytes, ByHand) {
  EXPECT_EQ(mlp_activation_bytes(2, {16, 16}, DType::kF32, true), 256.0);
  EXPECT_EQ(mlp_activation_bytes(2, {16, 32, 8}, DType::kF32, false), 384.0);
  EXPECT_EQ(mlp_activation_bytes(2, {16, 32, 8}, DType::kF32, true), (2 * 48 + 2 * 40) * 4.0);
}

// The seed's M_peak = M_model + M_grad + M_opt + M_act: 1 + 2 + 3 + 4 (+ 5 of buffers) = 15.
TEST(MemoryBreakdown, PeakIsTheSum) {
  MemoryBreakdown m{1, 2, 3, 4, 5};
  EXPECT_EQ(m.peak_bytes(), 15.0);
}

}  // namespace
}  // namespace brigade::cost
