// The closed form's pipeline schedule on the toy transformer
// (tests/costmodel/plan_toy.hpp), every figure worked out by hand: the
// bubble, where the sends wait on the schedule's path (the interleaved fill
// and drain, 1F1B's steady state), DeepSpeed's engine, Megatron-LM's
// scatter-gather, and the activations each stage holds.
#include "costmodel/plan.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "tests/costmodel/plan_toy.hpp"

namespace brigade::cost {
namespace {

using testing::expect_rel;
using testing::find_comm;
using testing::tiny_gpt;
using testing::tiny_pipeline;

// Pipeline of 4 stages, 8 micro-batches, one layer per stage, no vocabulary (uniform stages),
// pipeline sends over a 1e30 B/s, 0 s link (negligible):
//   T = 3 * 3,407,872 / 1e12 = 1.0223616e-5 s per micro-batch per stage;
//   1F1B / GPipe: (m + p - 1) T = 11 T = 1.12459776e-4 s, bubble (p - 1) T = 3.0670848e-5 s;
//   interleaved, 8 layers, v = 2: T = 2 layers = 2.0447232e-5 s; 8 T + 3 T / 2 = 9.5 T
//   = 1.94248704e-4 s (bubble (p-1)/(v m) of the ideal 8 T).
TEST(EstimatePlan, PipelineBubbleByHand) {
  Scenario sc = tiny_gpt(4, 4, 0, 0);
  sc.topology = testing::round_star(4, 0, 1e30, 0);
  ASSERT_TRUE(sc.topology.validate().is_ok());
  sc.strategy.pipeline = 4;
  sc.training.global_batch = 8;
  for (PipelineSchedule sched : {PipelineSchedule::k1F1B, PipelineSchedule::kGpipe}) {
    sc.strategy.schedule = sched;
    auto e = estimate_plan(sc);
    ASSERT_TRUE(e.is_ok()) << e.message();
    expect_rel(e->step_seconds, 1.12459776e-4, 1e-9);
    expect_rel(e->bubble_seconds, 3.0670848e-5, 1e-9);
    expect_rel(e->compute_seconds, 8 * 1.0223616e-5, 1e-9);
  }
  sc.transformer.layers = 8;
  sc.strategy.schedule = PipelineSchedule::kInterleaved;
  sc.strategy.virtual_stages = 2;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->step_seconds, 1.94248704e-4, 1e-9);
}

// strategy.pipeline_engine deepspeed (DeepSpeed v0.5.8's PipelineEngine,
// docs/costmodel.md "DeepSpeed's pipeline engine"): the stages of
// PipelineBubbleByHand (T = 1.0223616e-5 s of compute a micro-batch, m = 8,
// p = 4) on links of alpha 1e-6 s and 1e10 B/s. The boundary tensor is
// b s h x 2 B = 1 x 32 x 64 x 2 = 4096 B.
//   megatron: sends beside the next step; one micro-batch's sends through
//   the pipeline and back, 3 + 3 = 6 of x = 1e-6 + 4096 / 1e10 = 1.4096e-6 s,
//   and 10 x more in 1F1B's steady state (OneFOneBSteadyStateWaitsForItsSends):
//   11 T + 16 x = 1.12459776e-4 + 2.25536e-5 = 1.35013376e-4 s.
//   deepspeed: blocking, one after the other, in the stage's time: the end
//   stages 2 x (T0 = T3 = T + 2x), the middle ones 4 x (T + 4x); no chain:
//   m (T + 4x) + (sum - max) = 8 (T + 4x) + 3 T + (2 + 4 + 2) x = 11 T + 40 x
//   = 1.12459776e-4 + 5.6384e-5 = 1.68843776e-4 s.
// With tensor 2 (8 devices; same kernels in both engines, so the difference
// is the sends'): a part is 4096 / 2 = 2048 B, x' = 1e-6 + 2048 / 1e10 =
// 1.2048e-6 s, and each rebuild is a ring AllGather of 4096 B over 2 ranks,
// g = (2 - 1) 1e-6 + (1/2) 4096 / 1e10 = 1.2048e-6 s, once before a forward
// (stages 1-3), twice before a backward (stages 0-2). Stage 0 also runs the
// embedding's AllReduce over 'tensor' (ring, 2 ranks, 4096 B: 2 x 1e-6 +
// 2 x (1/2) 4096 / 1e10 = 2.4096e-6 = 2g), so with T' a layer's time:
//   megatron: T0 = T' + 2g the slowest, T1..T3 = T'; 8 (T' + 2g) + 3 T' + 6 x
//   = 11 T' + 16 g + 6 x, and the steady state's wait: the cycle's mean
//   (4 T' + 2g + 6 x) / 4 is above T0 by 1.5 (x - g) = 3.072e-7 s, paid
//   4 (6 - 1) / 3 = 20/3 times: 2.048e-6 s.
//   deepspeed: T0 = T' + 2g + 2x' + 2g = T' + 6g, T1 = T2 = T' + 4x' + 3g =
//   T' + 7g the slowest, T3 = T' + 2x' + g = T' + 3g; 8 (T' + 7g) + 3 T' +
//   (6 + 7 + 3) g = 11 T' + 72 g.
//   deepspeed - megatron = 56 g - 6 x - 2.048e-6 = 6.74688e-5 - 8.4576e-6 -
//   2.048e-6 = 5.69632e-5 s.
TEST(EstimatePlan, DeepSpeedPipelineEngineByHand) {
  Scenario sc = tiny_gpt(4, 4, 0, 0);
  sc.topology = testing::round_star(4, 1e-6, 1e10, 0);
  ASSERT_TRUE(sc.topology.validate().is_ok());
  sc.strategy.pipeline = 4;
  sc.training.global_batch = 8;
  auto meg = estimate_plan(sc);
  ASSERT_TRUE(meg.is_ok()) << meg.message();
  expect_rel(meg->step_seconds, 1.35013376e-4, 1e-9);
  sc.strategy.pipeline_engine = PipelineEngine::kDeepSpeed;
  auto ds = estimate_plan(sc);
  ASSERT_TRUE(ds.is_ok()) << ds.message();
  expect_rel(ds->step_seconds, 1.68843776e-4, 1e-9);
  // The busiest (a middle) stage's sends: 2 a micro-batch of 4096 B.
  const CommunicationEstimate* p2p = find_comm(*ds, "pipeline", "p2p");
  ASSERT_NE(p2p, nullptr);
  EXPECT_DOUBLE_EQ(p2p->count, 16.0);
  EXPECT_DOUBLE_EQ(p2p->bytes, 16 * 4096.0);
  EXPECT_EQ(find_comm(*ds, "pipeline", "allgather"), nullptr);  // tensor 1: whole tensors

  sc = tiny_gpt(8, 4, 0, 0);
  sc.topology = testing::round_star(8, 1e-6, 1e10, 0);
  sc.strategy.pipeline = 4;
  sc.strategy.tensor = 2;
  sc.training.global_batch = 8;
  auto meg2 = estimate_plan(sc);
  ASSERT_TRUE(meg2.is_ok()) << meg2.message();
  sc.strategy.pipeline_engine = PipelineEngine::kDeepSpeed;
  auto ds2 = estimate_plan(sc);
  ASSERT_TRUE(ds2.is_ok()) << ds2.message();
  expect_rel(ds2->step_seconds - meg2->step_seconds, 5.69632e-5, 1e-6);
  const CommunicationEstimate* gathers = find_comm(*ds2, "pipeline", "allgather");
  ASSERT_NE(gathers, nullptr);
  EXPECT_DOUBLE_EQ(gathers->count, 3 * 8.0);  // a middle stage: 3 a micro-batch
  const CommunicationEstimate* parts = find_comm(*ds2, "pipeline", "p2p");
  ASSERT_NE(parts, nullptr);
  EXPECT_DOUBLE_EQ(parts->bytes, 16 * 2048.0);
}

// 1F1B's steady state (docs/costmodel.md, "Pipeline schedule"): stage i's
// backward of micro-batch k comes right after its forward of k + p - i - 1
// and waits for the gradient from stage i + 1, whose forward of k waited for
// stage i's send, so each micro-batch's round trip (every stage's work and
// the 2(p - 1) sends) spans p micro-batches of a stage, and a stage runs no
// faster than the cycle's mean, (sum T_i + chain) / p.
// PipelineBubbleByHand's 1F1B plan (p = 4, m = 8, one layer a stage, T =
// 1.0223616e-5 s) on links of x = 1.4096e-6 s, embeddings untied:
//   no vocabulary (equal stages): the cycle's mean is T + 6x / 4, 1.5 x
//   above T, paid 4 ((8 - 2) - floor(6 / 4)) / 3 = 20/3 times: 10 x, on top
//   of the fill's and drain's 6 x: 11 T + 16 x (worked through the order by
//   hand, and the simulator's: tests/planner/cross_judge_test.cpp).
//   a vocabulary of 512: the last stage's head (logits 2 s h V = 2,097,152
//   FLOP forward, twice that backward: 6.291456e-6 s) makes it the slowest
//   by more than the round trip's sends (6.29e-6 x 3 = 1.89e-5 > 6 x =
//   8.46e-6 s): the cycle's mean is below it and the steady state waits for
//   nothing. The sends cost the fill's and drain's 6 x, the step with the
//   links minus the step with free ones.
TEST(EstimatePlan, OneFOneBSteadyStateWaitsForItsSends) {
  const double T = 1.0223616e-5, x = 1.4096e-6;
  auto step = [](std::int64_t vocab, bool free_links) {
    Scenario sc = tiny_pipeline(4, 4, PipelineSchedule::k1F1B);
    sc.transformer.vocab = vocab;
    sc.transformer.tie_embeddings = false;
    if (free_links) sc.topology = testing::round_star(4, 0, 1e30, 0);
    auto e = estimate_plan(sc);
    EXPECT_TRUE(e.is_ok()) << e.message();
    return e.is_ok() ? e->step_seconds : 0.0;
  };
  expect_rel(step(0, false), 11 * T + 16 * x, 1e-9);
  expect_rel(step(0, true), 11 * T, 1e-9);
  expect_rel(step(512, false) - step(512, true), 6 * x, 1e-6);
}

// The interleaved schedule's sends (docs/costmodel.md, "Pipeline schedule"):
// PipelineBubbleByHand's interleaved plan (p = 4, m = 8, v = 2, one layer a
// chunk, T = 2 layers = 2.0447232e-5 s a micro-batch) on links of alpha
// 1e-6 s and 1e10 B/s, a send x = 1e-6 + 4096 / 1e10 = 1.4096e-6 s (below a
// chunk's forward, 3,407,872 / 1e12 = 3.41e-6 s).
//   Megatron-LM's warm-up is tight around the ring: stage 0 starts chunk 1
//   of micro-batch 0 p = 4 forward slots after chunk 0, just when stage 3
//   ends chunk 0 if sends took no time. So the fill waits for every forward
//   send of a micro-batch, v p - 1 = 7 hops, and the drain for every
//   backward send, 7 more: 14 x, where one chunk's trip (2(p - 1) = 6) or
//   14 x / v = 7 x is short.
//   step = 8 T + 3 T / 2 + 14 x = 1.94248704e-4 + 1.97344e-5 = 2.13983104e-4 s.
// Worked through the schedule's order by hand for 1F1B (v = 1), the sends
// are one micro-batch's trip there and back, 6 x: 11 T' + 6 x (T' = one
// layer), as DeepSpeedPipelineEngineByHand's megatron figure.
TEST(EstimatePlan, InterleavedFillAndDrainWaitForEverySend) {
  auto e = estimate_plan(tiny_pipeline(4, 8, PipelineSchedule::kInterleaved, 2));
  ASSERT_TRUE(e.is_ok()) << e.message();
  expect_rel(e->step_seconds, 2.13983104e-4, 1e-9);
  // The report follows stage 0 (equal stages: the first): its own sends, 3
  // a micro-batch (chunk 0's and chunk 1's forward out, chunk 1's gradient
  // back; chunk 0 has no stage before it), are its exposed communication;
  // the other 11 it waits for, in its bubble.
  expect_rel(e->bubble_seconds, 3 * 2.0447232e-5 / 2 + 11 * 1.4096e-6, 1e-9);
  expect_rel(e->exposed_communication_seconds, 3 * 1.4096e-6, 1e-9);
}

// strategy.pipeline_scatter_gather (Megatron-LM's, Narayanan et al. 2021
// §4.1; docs/costmodel.md "Pipeline sends"): two stages of the toy layer,
// tensor 2 (4 devices), 8 micro-batches, GPipe, links of alpha 1e-6 s and
// 1e10 B/s, embeddings untied. A send carries 1/2 of the 4096 B boundary:
// x' = 1e-6 + 2048 / 1e10 = 1.2048e-6 s where x = 1.4096e-6; each stage
// receives once a micro-batch (stage 1 the activation, stage 0 the
// gradient) and all-gathers it on its compute stream, a ring of 2 ranks:
// g = 1e-6 + (1/2) 4096 / 1e10 = 1.2048e-6 s. So each stage's micro-batch
// grows by g: GPipe's m max T + (sum T - max T) grows by (m + 1) g = 9 g,
// and its fill's and drain's sends change by 2 (x' - x):
//   9 x 1.2048e-6 - 2 x 2.048e-7 = 1.04336e-5 s more.
// With sequence parallelism the boundary is already split (Megatron-LM
// skips its scatter-gather there): the key changes nothing.
TEST(EstimatePlan, PipelineScatterGatherByHand) {
  auto plan = [](bool sg, bool sp) {
    Scenario sc = tiny_pipeline(2, 4, PipelineSchedule::kGpipe, 1, 2);
    sc.transformer.tie_embeddings = false;
    sc.strategy.sequence_parallel = sp;
    sc.strategy.pipeline_scatter_gather = sg;
    auto e = estimate_plan(sc);
    EXPECT_TRUE(e.is_ok()) << e.message();
    return e.is_ok() ? *e : PlanEstimate{};
  };
  const PlanEstimate off = plan(false, false), on = plan(true, false);
  expect_rel(on.step_seconds - off.step_seconds, 9 * 1.2048e-6 - 2 * 2.048e-7, 1e-6);
  const CommunicationEstimate* p2p = find_comm(on, "pipeline", "p2p");
  ASSERT_NE(p2p, nullptr);
  EXPECT_DOUBLE_EQ(p2p->count, 8.0);
  EXPECT_DOUBLE_EQ(p2p->bytes, 8 * 2048.0);
  const CommunicationEstimate* gathers = find_comm(on, "pipeline", "allgather");
  ASSERT_NE(gathers, nullptr);
  EXPECT_DOUBLE_EQ(gathers->count, 8.0);
  EXPECT_DOUBLE_EQ(gathers->bytes, 8 * 4096.0);
  EXPECT_EQ(find_comm(off, "pipeline", "allgather"), nullptr);
  EXPECT_EQ(plan(true, true).step_seconds, plan(false, true).step_seconds);
  const auto said = std::find_if(on.notes.begin(), on.notes.end(), [](const std::string& n) {
    return n.find("Megatron-LM's scatter-gather (strategy.pipeline_scatter_gather): each tensor "
                  "rank sends 1/2 of the boundary tensor") != std::string::npos;
  });
  EXPECT_NE(said, on.notes.end());
}

// strategy.pipeline_blocking_sends (Megatron-LM's blocking exchanges:
// megatron/p2p_communication.py at 77efcccb, batch_isend_irecv, then
// req.wait(), then torch.cuda.synchronize(); docs/costmodel.md "Pipeline
// schedule"): OneFOneBSteadyStateWaitsForItsSends' plans (p = 4, m = 8, one
// layer a stage, T = 1.0223616e-5 s a micro-batch, links of alpha 1e-6 s and
// 1e10 B/s: a send x = 1.4096e-6 s). Each stage waits for its own sends, so
// they are in its time and nothing else is on the path: the end stages send
// once a micro-batch (stage 0 forward, stage 3 backward), T + x; the middle
// ones twice, T + 2x:
// GPipe: the forward phase is each stage's forward and send once, 4 f + 3 x,
// then 7 more at a middle stage's pace, f + x; the backward likewise:
//   step = 11 T + 20 x.
// 1F1B: the order worked through send by send (scripts/pipeline-order;
// PipelineOrder.GivesTheCrossJudgeToysFigures holds it to this toy) gives
// 11 T + 19 x: the formula m max T' + (sum T' - max T') = 8 (T + 2x) +
// 2 (T + x) + (T + 2x) = 11 T + 20 x, which the closed form took before it
// walked the order, charges one send the warm-up hides. Beside the next
// work the sends gave 11 T + 16 x (1F1B) and 11 T + 6 x (GPipe). The busiest stage (stage 1)
// shows its own sends as exposed, m x 2x = 16 x, and the ledger's sends are
// exposed once a micro-batch each.
TEST(EstimatePlan, BlockingSendsAreInTheStagesTime) {
  const double T = 1.0223616e-5, x = 1.4096e-6;
  for (PipelineSchedule schedule : {PipelineSchedule::k1F1B, PipelineSchedule::kGpipe}) {
    SCOPED_TRACE(schedule_name(schedule));
    Scenario sc = tiny_pipeline(4, 4, schedule);
    sc.transformer.vocab = 0;
    sc.transformer.tie_embeddings = false;
    sc.strategy.pipeline_blocking_sends = true;
    auto e = estimate_plan(sc);
    ASSERT_TRUE(e.is_ok()) << e.message();
    expect_rel(e->step_seconds, 11 * T + (schedule == PipelineSchedule::kGpipe ? 20 : 19) * x,
               1e-9);
    expect_rel(e->exposed_communication_seconds, 16 * x, 1e-9);
    const CommunicationEstimate* p2p = find_comm(*e, "pipeline", "p2p");
    ASSERT_NE(p2p, nullptr);
    expect_rel(p2p->exposed_seconds, p2p->seconds, 1e-12);
    const auto said = std::find_if(e->notes.begin(), e->notes.end(), [](const std::string& n) {
      return n.find("Megatron-LM's blocking exchanges (strategy.pipeline_blocking_sends)") !=
             std::string::npos;
    });
    EXPECT_NE(said, e->notes.end());
  }
}

// Pipeline memory: 1F1B's first stage holds p = 4 micro-batches of its layer, the last one 1;
// GPipe holds all m = 8 everywhere. One layer: sbh(34 + 5as/h) = 90,112 B (plan_test.cpp, TransformerMemoryByHand).
TEST(EstimatePlan, PipelineActivationsPerStage) {
  Scenario sc = tiny_gpt(4, 4, 0, 0);
  sc.strategy.pipeline = 4;
  sc.training.global_batch = 8;
  auto e = estimate_plan(sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  ASSERT_EQ(e->memory.size(), 4u);
  // Stage 0: 4 x 90,112 + embedding masks 4 x 2048; stage 3: 1 x 90,112 (vocabulary 0: the
  // head has no logits and saves nothing).
  EXPECT_DOUBLE_EQ(e->memory[0].activations_bytes, 4 * 90112.0 + 4 * 2048.0);
  EXPECT_DOUBLE_EQ(e->memory[3].activations_bytes, 90112.0);
  sc.strategy.schedule = PipelineSchedule::kGpipe;
  auto g = estimate_plan(sc);
  ASSERT_TRUE(g.is_ok()) << g.message();
  EXPECT_DOUBLE_EQ(g->memory[1].activations_bytes, 8 * 90112.0);
  // GPipe runs all 8 forwards before any backward, so the first stage keeps the embedding's
  // dropout mask (sbh = 32*64*1 = 2048 B) of all 8 micro-batches too: 8 x 90,112 + 8 x 2048 =
  // 737,280 B; the last stage 8 x 90,112 = 720,896 B.
  EXPECT_DOUBLE_EQ(g->memory[0].activations_bytes, 737280.0);
  EXPECT_DOUBLE_EQ(g->memory[3].activations_bytes, 720896.0);
}

}  // namespace
}  // namespace brigade::cost
