// The closed form's figures on a sample of the search spaces, bit for bit:
// a guard for the speed work on estimate_plan (issue 16: "every figure
// estimate_plan returns must stay bit-identical" while it is made faster).
// Not a formula check (the formulas' own tests cite their sources and work
// numbers out by hand): these are the figures the judge gave at main 22bf6eb
// (checked identical after this branch's speed changes over ~56,000 estimates
// of four spaces, training and inference, per stage and per device, memo on
// and off), written as hex floats. A change that is meant to move a figure
// (a modelling change) regenerates them and says why; a speed change never
// does. Regenerated on branch presets6 for seven mixtral_8x7b_16gpu points
// (dgx-h100): NCCL's small ring/tree collectives on one node now run on the
// channels NCCL's enqueue gives them (costmodel/nccl_model.hpp,
// nccl_channels_used), which moves their exposed communication and bubble.
// Regenerated on branch presets7 for every point (training and inference):
// Megatron-LM's unfused attention core and residual stream now run as the
// kernels it launches (softmax, then dropout, then the context copy;
// bias-dropout-add, then LN2; autograd's two gradient sums a layer:
// costmodel/transformer_blocks.cpp, docs/planner.md), which moves step,
// exposed communication and bubble; the peaks do not move.
// Regenerated on branch nccl7 for the mixtral_8x7b_16gpu points whose
// AllReduces run NVLS on one DGX H100: NVLS's chunk by size and its
// pipeline's fill (costmodel/nccl_model.cpp, docs/costmodel.md "NVLS's chunk
// and pipeline") make them slower at a few MiB.
// Regenerated on branch zero3ds for three interleaved ZeRO-3 points
// (gpt3_175b_1024 535162, mixtral_8x7b_16gpu 25359 and 36630): with v model
// chunks a micro-batch's forward (backward) on a stage is v passes, each
// starting cold under strategy.zero3_prefetch's default per_pass, so its
// exposure's floor is v first gathers (and v last reduce-scatters), where it
// was one (costmodel/plan.cpp zero3_exposure; docs/costmodel.md "ZeRO-3
// prefetch"); every other point is bit-identical (checked with v forced to 1).
// Regenerated on branch nccl8 for four mixtral_8x7b_16gpu points (two DGX
// H100 nodes): across nodes NCCL's ring/tree per-channel caps now multiply
// the graph's 8 channels and NVLS-tree takes its chunk and pipeline fill
// (costmodel/nccl_model.cpp; docs/costmodel.md "NCCL's channels across
// nodes"), which moves step and exposed communication (one point's bubble).
// Regenerated on branch main (2026-12-02, issue 19) for the 32 points on
// dgx-a100 (gpt3_175b_1024, mt_nlg_530b_2240; every point whose attention
// is Megatron's unfused core): the core's passes over its s x s matrices
// now stream at the A100's measured efficiencies (0.717 forward, 0.634
// backward: the FlashAttention paper's Appendix E, core/presets_profiles.cpp;
// tests/costmodel/attention_published_test.cpp), not the one streaming
// efficiency 0.85, which moves step, exposed communication and bubble; the
// peaks do not move, and the 16 mixtral_8x7b_16gpu points (dgx-h100) are
// bit-identical.
// Regenerated on main (2026-12-03, issue 19 item 3) for every training
// point: the optimizer step streams Megatron-LM's passes (costmodel/
// memory.hpp, megatron_optimizer_step_bytes: the cast to fp32 gradients,
// fp16's unscale, the norm, the clip, Adam, the copy back, the gradient
// buffer's zeroing) instead of one read-and-write of weights, state and
// gradient; step, exposed communication and bubble move, the peaks do not,
// and the inference points are bit-identical.
// Regenerated on main (2026-12-03, issue 19 item 3) for every point: the
// cross-entropy runs as Megatron-LM's eight passes over the fp32 logits
// (costmodel/transformer_blocks.cpp head_block; docs/costmodel.md "The
// cross-entropy as Megatron-LM runs it") where one pass each way was
// charged, and only in training (an inference step now ends at the
// logits: no loss, no loss all-reduce); the biases' gradients of the
// projection, fc1 and fc2 are reduced by a pass each ("Bias gradients and
// the LayerNorm backward"). Step, exposed communication and bubble move;
// no peak moves.
// Regenerated on main (2026-12-03, issue 19, freeze 3) for 15 dgx-a100
// points (7 of gpt3_175b_1024, 8 of mt_nlg_530b_2240): the DGX A100's NCCL
// table now has NCCL's channels (24 coll on one node, 16 across; graphs of
// 12 and 8) and Ampere's per-channel caps (core/presets_profiles.cpp;
// docs/costmodel.md "NCCL's channels across nodes"), so small collectives
// run on fewer channels and ring LL128 across nodes is capped at 160 GB/s;
// step, exposed communication and bubble move, no peak, and the mixtral
// (dgx-h100) points are bit-identical.
// Regenerated on main (2026-12-04, issue 19, freeze 4) for the 32 dgx-a100
// points: the A100's LayerNorm and GeLU forward passes stream at their own
// measured efficiencies (0.858 and 0.787: LLMCompass's A100 80GB timings,
// core/presets_profiles.cpp; docs/costmodel.md "Streaming kernels by
// class"), not the one 0.85; step and bubble move (64 figures), no peak and
// no exposed communication, and the mixtral (dgx-h100) points are
// bit-identical.
// Regenerated on main (2026-12-04, issue 19, freeze 5) for the 16
// mixtral_8x7b_16gpu (dgx-h100) points, training and inference: SwiGLU is
// a gated activation of its own class, and the H100 streams Megatron-LM's
// at its measured 0.565 forward and 0.190 backward (Liger-Kernel's H100
// timings, core/presets_profiles.cpp; docs/costmodel.md "Gated
// activations"), not the one 0.867; step and bubble move (32 figures) and
// one point's exposed communication, no peak; the dgx-a100 points are
// bit-identical (their SwiGLU-free GeLU keeps its class).
// Regenerated on main (2026-12-04, issue 19 item 3) for the 23 training
// points with tensor parallelism: the column-parallel layers' backward
// collectives run beside their GEMMs by default, as Megatron-LM
// (--async-tensor-model-parallel-allreduce, since 3f652469, 2021-09-02)
// and Transformer Engine run them (training.tp_backward_overlap;
// docs/costmodel.md "The column-parallel backward's asynchronous
// collectives"); step, exposed communication and bubble move, no peak, and
// the other points are bit-identical.
// Regenerated on main (2026-12-04, issue 19, freeze 7) for the 32
// dgx-a100 points, training and inference: the A100's 16-bit GEMMs take
// their waves of 256 x 128 tiles, 108 at a time, at the tile rate MAMF's
// ceiling gives (core/profile.hpp gemm_wave_factor; docs/costmodel.md
// "GEMMs by shape: waves of tiles"); step and bubble move (32 figures
// each) and 12 points' exposed communication, no peak, and the mixtral
// (dgx-h100) points are bit-identical.
// Regenerated on main (2026-12-04, issue 19) for the 24 training points:
// NCCL's kernels hold one SM a channel while they run, so the kernels
// beside a collective (the column-parallel backward's GEMMs beside their
// input gradients' collectives, the backward beside the gradient buckets,
// ZeRO-3's passes beside their gathers) run on the rest (core/profile.hpp
// nccl_sm_share; docs/costmodel.md "NCCL's kernels take SMs"); step and
// bubble move (24 figures each) and 21 points' exposed communication, no
// peak, and the inference points are bit-identical.
// Regenerated on main (2026-12-05) for the 20 pipelined points whose sends
// the schedule's order puts on its path (costmodel/plan_transformer_step.cpp;
// docs/costmodel.md "Pipeline schedule"): the interleaved fill and drain
// wait for every send of a micro-batch (they were divided by v), 1F1B's
// steady state waits for each round trip's sends where the stages leave no
// slack, and the forward-only interleaved order's every group waits at each
// return to stage 0; step and bubble move (20 figures each), no exposed
// communication and no peak. The rows are printed by this test under
// BRIGADE_GOLDEN_PRINT=1.
// Each plan is judged three ways: plain, through a search's memo and
// lean options, and through the memo again (its caches answering).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "costmodel/plan.hpp"
#include "costmodel/plan_memo.hpp"
#include "planner/search_space.hpp"

namespace brigade::planner {
namespace {

struct Golden {
  const char* file;
  int inference;
  size_t index;  // in the space's points, classes then ZeRO, rank order, bucket
  double step_seconds, exposed_seconds, bubble_seconds, peak_bytes;
};

// Eight points of each space, at indices (2k + 1) / 16 of it.
const Golden kGolden[] = {
    {"gpt3_175b_1024.yaml", 0, 35677, 0x1.99ac98becd57ep+5, 0x1.2c78da5a0cd67p-1,
     0x1.016e8e2a875e3p+5, 0x1.c64105ap+35},
    {"gpt3_175b_1024.yaml", 0, 107032, 0x1.08b42e580d71bp+4, 0x1.1b6d69a3f783p+0,
     0x1.ee5c0c1a8e684p-2, 0x1.058cf61p+36},
    {"gpt3_175b_1024.yaml", 0, 178387, 0x1.5e492ca8b854ep+6, 0x1.8243e731a12d9p+4,
     0x1.5d3000bab3b77p+5, 0x1.65f065dp+36},
    {"gpt3_175b_1024.yaml", 0, 249742, 0x1.37abaeefe9397p+5, 0x1.32189e574500bp+4,
     0x1.57cd472bdb153p+1, 0x1.2d08a02p+35},
    {"gpt3_175b_1024.yaml", 0, 321097, 0x1.19f53d016fcc5p+5, 0x1.385b937c9569ep+4,
     0x1.162bcbcd1779ep-1, 0x1.4b4ca39p+36},
    {"gpt3_175b_1024.yaml", 0, 392452, 0x1.578de52f7d0f3p+8, 0x1.5c766c40604ccp+5,
     0x1.1c64a195e2e89p+8, 0x1.0cac71f8p+37},
    {"gpt3_175b_1024.yaml", 0, 463807, 0x1.6643fdf22126ep+5, 0x1.e8f2eb9ea1c44p+2,
     0x1.65a434fc49be6p+4, 0x1.84eeabdcp+38},
    {"gpt3_175b_1024.yaml", 0, 535162, 0x1.3b29e61a3e19ep+5, 0x1.04b33ef933eecp+3,
     0x1.7f7a360d147e1p+3, 0x1.28a72ef7p+40},
    {"gpt3_175b_1024.yaml", 1, 1002, 0x1.39f5daf1bb265p+4, 0x1.439f3effdd03ap+0,
     0x1.b54cf1b178473p+3, 0x1.041558p+35},
    {"gpt3_175b_1024.yaml", 1, 3007, 0x1.7bb99dc732fc9p+2, 0x1.a00c55b3b46ffp-2,
     0x1.4c899abeda86bp-1, 0x1.9ff17p+33},
    {"gpt3_175b_1024.yaml", 1, 5012, 0x1.0568c603e478ep+4, 0x1.369c043245da2p+3,
     0x1.374caaf90e011p+0, 0x1.5b8efp+33},
    {"gpt3_175b_1024.yaml", 1, 7017, 0x1.01755d090e274p+4, 0x1.37984467096e4p+3,
     0x1.3aacbf444f372p+0, 0x1.3b0f78p+31},
    {"gpt3_175b_1024.yaml", 1, 9022, 0x1.8eb50f113ed9cp+4, 0x1.3727d860b30f4p+4,
     0x1.9f9122fa4c41ap-1, 0x1.8c09fp+32},
    {"gpt3_175b_1024.yaml", 1, 11027, 0x1.fd097f7ff6221p+4, 0x1.7224040205acep+4,
     0x1.9031833410318p+1, 0x1.e9dcf8p+30},
    {"gpt3_175b_1024.yaml", 1, 13032, 0x1.050bd574587c7p+4, 0x1.9e6142b9b85acp+2,
     0x1.7cad3b16ddcf4p+1, 0x1.9e9ffp+31},
    {"gpt3_175b_1024.yaml", 1, 15037, 0x1.2f7f5ebff2224p+6, 0x1.3fcbda950ccbbp+2,
     0x1.08f4a6d52e36ap+6, 0x1.0b4e7f8p+35},
    {"mt_nlg_530b_2240.yaml", 0, 9120, 0x1.0f3c06ec1728fp+6, 0x1.783bfdfff7d66p+1,
     0x1.49056e0ecb7edp+5, 0x1.7de29e96p+38},
    {"mt_nlg_530b_2240.yaml", 0, 27360, 0x1.0b9da8b05ec1bp+6, 0x1.13c97ff8b370ep+0,
     0x1.15ad3f0d4f4e1p+5, 0x1.522744p+36},
    {"mt_nlg_530b_2240.yaml", 0, 45600, 0x1.2ea20ca9cb41p+7, 0x1.db88033cf047cp+3,
     0x1.c3e36e26395fp+6, 0x1.7f428a4cp+38},
    {"mt_nlg_530b_2240.yaml", 0, 63840, 0x1.4d91450608cf7p+10, 0x1.0185577271e98p+4,
     0x1.43456d79aca75p+10, 0x1.982543bcp+37},
    {"mt_nlg_530b_2240.yaml", 0, 82080, 0x1.e9f65f7332f82p+5, 0x1.807f30736b717p+1,
     0x1.0244b686c986p+5, 0x1.d411c12p+39},
    {"mt_nlg_530b_2240.yaml", 0, 100320, 0x1.264e9ed9cf937p+7, 0x1.3d246cfce517p+6,
     0x1.40589e513b98cp+5, 0x1.3593ff95p+40},
    {"mt_nlg_530b_2240.yaml", 0, 118560, 0x1.474256a7ea801p+8, 0x1.f370c878c476p+6,
     0x1.4a277b267edb5p+7, 0x1.4631916ep+38},
    {"mt_nlg_530b_2240.yaml", 0, 136800, 0x1.fb11c8246ad8cp+5, 0x1.276e2bfa2556dp+4,
     0x1.78b1e483334f8p+3, 0x1.0a6f5468p+39},
    {"mt_nlg_530b_2240.yaml", 1, 268, 0x1.d1c99bfa6ca5p+4, 0x1.514d4f7631297p+0,
     0x1.3e7d9d213df79p+4, 0x1.78e474p+34},
    {"mt_nlg_530b_2240.yaml", 1, 804, 0x1.5ae6055ce26cfp+4, 0x1.a7b61cb212615p-2,
     0x1.acdb53b588931p+3, 0x1.aae744p+33},
    {"mt_nlg_530b_2240.yaml", 1, 1340, 0x1.6d4211d7acb4fp+4, 0x1.43eec5a2777cp+3,
     0x1.3249d8c573e6cp+2, 0x1.32ece4p+32},
    {"mt_nlg_530b_2240.yaml", 1, 1876, 0x1.3b32849e1c234p+5, 0x1.4a0fc6de128aap+4,
     0x1.524688afe1b52p+3, 0x1.94062dp+33},
    {"mt_nlg_530b_2240.yaml", 1, 2412, 0x1.0824522f60035p+5, 0x1.58091e38aad22p+1,
     0x1.684d91811846ap+4, 0x1.33ae09p+33},
    {"mt_nlg_530b_2240.yaml", 1, 2948, 0x1.83058362cd858p+7, 0x1.4b7b93f336dep+5,
     0x1.214f8ccc437f2p+7, 0x1.0058934p+34},
    {"mt_nlg_530b_2240.yaml", 1, 3484, 0x1.0e35361b97c13p+8, 0x1.7cc79e9ff98c8p+5,
     0x1.ab4d71fbb7b4cp+7, 0x1.e646752p+35},
    {"mt_nlg_530b_2240.yaml", 1, 4020, 0x1.f4b684c821441p+6, 0x1.514108c4a724ep+3,
     0x1.ac706a037065ep+6, 0x1.947351ap+34},
    {"mixtral_8x7b_16gpu.yaml", 0, 2817, 0x1.773ab679d0098p+1, 0x1.92a369ede2a9ep-5,
     0x1.b82fd8eed3c58p-2, 0x1.c25fd8p+36},
    {"mixtral_8x7b_16gpu.yaml", 0, 8453, 0x1.eeaf0d5307209p+1, 0x1.44f695109637ep-2,
     0x1.a4276657600c8p-3, 0x1.6cc03p+37},
    {"mixtral_8x7b_16gpu.yaml", 0, 14088, 0x1.dd38843010ed5p+1, 0x1.9e1fe8f3974d3p-3,
     0x1.98bfe54ef3064p-2, 0x1.42db6p+36},
    {"mixtral_8x7b_16gpu.yaml", 0, 19724, 0x1.dbb3686bf3589p+1, 0x1.9015681933306p-3,
     0x1.36ee4864d295dp-2, 0x1.e956ap+35},
    {"mixtral_8x7b_16gpu.yaml", 0, 25359, 0x1.80005e2cf1342p+2, 0x1.29982a3044383p+0,
     0x1.97df1c4a0a7f7p+0, 0x1.0b61bcp+36},
    {"mixtral_8x7b_16gpu.yaml", 0, 30995, 0x1.09eaff944367bp+2, 0x1.808088c1212bp+0,
     0x1.f4732e56e7b57p-4, 0x1.994f6p+37},
    {"mixtral_8x7b_16gpu.yaml", 0, 36630, 0x1.875e3afbc41bbp+1, 0x1.67fefb5b36153p-2,
     0x1.677d98a4317a8p-3, 0x1.6d033cp+36},
    {"mixtral_8x7b_16gpu.yaml", 0, 42266, 0x1.fc305df37b112p+1, 0x1.e3de65324532ap-2,
     0x1.0d24c1847cbfap-2, 0x1.8612p+36},
    {"mixtral_8x7b_16gpu.yaml", 1, 110, 0x1.0f5f9867cd6cbp+0, 0x0p+0,
     0x1.67ec9c0de2962p-2, 0x1.7a7b8p+35},
    {"mixtral_8x7b_16gpu.yaml", 1, 332, 0x1.1712dc4632a6ep+0, 0x1.0c58f3c98d601p-5,
     0x1.9f257043f7781p-3, 0x1.464eap+33},
    {"mixtral_8x7b_16gpu.yaml", 1, 554, 0x1.a9397b6df603dp-1, 0x1.51cab67461dcap-5,
     0x1.a7c6815fe315ap-5, 0x1.817fp+34},
    {"mixtral_8x7b_16gpu.yaml", 1, 776, 0x1.bfe8fe5018d23p-1, 0x1.6d8025e18f166p-5,
     0x1.37ff580442e37p-4, 0x1.8373p+33},
    {"mixtral_8x7b_16gpu.yaml", 1, 998, 0x1.3db33c55a9329p+0, 0x1.ccb0ea82aa128p-2,
     0x1.98a2ef2d45e8cp-5, 0x1.875bp+32},
    {"mixtral_8x7b_16gpu.yaml", 1, 1220, 0x1.e3c2b5c0f3d9p-1, 0x1.48d3be104e2e1p-3,
     0x1.dc1edec259403p-6, 0x1.6e42p+33},
    {"mixtral_8x7b_16gpu.yaml", 1, 1442, 0x1.fd699d9881311p-1, 0x1.285db6a89845ap-3,
     0x1.c4deef44cf40dp-4, 0x1.ee1ep+33},
    {"mixtral_8x7b_16gpu.yaml", 1, 1664, 0x1.978fbd0f1387fp+0, 0x1.8174b40694aep-1,
     0x1.9be47fdb5f9cap-6, 0x1.724ep+32},
};

std::vector<StrategyPoint> every_point(const Scenario& sc) {
  // The goldens index the space as it was before context parallelism joined
  // it: context 1 keeps that enumeration, point for point.
  SpaceGrid grid;
  grid.context = {1};
  auto space = StrategySpace::make(sc, grid);
  EXPECT_TRUE(space.is_ok()) << space.message();
  std::vector<StrategyPoint> all;
  if (!space.is_ok()) return all;
  for (const TimeClass& c : space->classes())
    for (int z : space->zero_values(c))
      for (const RankOrder& o : space->rank_orders(c))
        for (double b : space->bucket_values(c)) all.push_back(point_in(c, z, o, b));
  return all;
}

double peak_of(const cost::PlanEstimate& e) {
  double peak = 0;
  for (const auto& m : e.memory) peak = std::max(peak, m.peak_bytes);
  return peak;
}

void expect_golden(const cost::PlanEstimate& e, const Golden& g, const char* how) {
  SCOPED_TRACE(std::string(g.file) + (g.inference ? " inference" : " training") + " point " +
               std::to_string(g.index) + " (" + how + ")");
  auto hex = [](double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", x);
    return std::string(buf);
  };
  EXPECT_EQ(hex(e.step_seconds), hex(g.step_seconds));
  EXPECT_EQ(hex(e.exposed_communication_seconds), hex(g.exposed_seconds));
  EXPECT_EQ(hex(e.bubble_seconds), hex(g.bubble_seconds));
  EXPECT_EQ(hex(peak_of(e)), hex(g.peak_bytes));
}

TEST(EstimateGolden, SearchSpaceSamplesBitForBit) {
  std::string loaded;
  Scenario base;
  std::vector<StrategyPoint> points;
  std::optional<cost::PlanMemo> memo;
  int inference = -1;
  for (const Golden& g : kGolden) {
    if (loaded != g.file || inference != g.inference) {
      auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + g.file);
      ASSERT_TRUE(s.is_ok()) << s.message();
      base = std::move(s).value();
      base.training.inference = g.inference != 0;
      points = every_point(base);
      memo.emplace(base.topology, base.profile);
      loaded = g.file;
      inference = g.inference;
    }
    ASSERT_LT(g.index, points.size());
    Scenario plan = base;
    apply_point(points[g.index], plan);
    auto plain = cost::estimate_plan(plan);
    ASSERT_TRUE(plain.is_ok()) << plain.message();
    // BRIGADE_GOLDEN_PRINT=1: the table's rows as this build computes them
    // (for a modelling change that regenerates them; never for a speed change).
    if (std::getenv("BRIGADE_GOLDEN_PRINT") != nullptr)
      std::printf("    {\"%s\", %d, %zu, %a, %a,\n     %a, %a},\n", g.file, g.inference, g.index,
                  plain->step_seconds, plain->exposed_communication_seconds, plain->bubble_seconds,
                  peak_of(*plain));
    expect_golden(*plain, g, "plain");
    cost::EstimateOptions lean;  // as the search asks
    lean.every_device = false;
    lean.communication = false;
    for (const char* how : {"memo", "memo again"}) {
      cost::ScopedPlanMemo use(*memo);
      auto fast = cost::estimate_plan(plan, lean);
      ASSERT_TRUE(fast.is_ok()) << fast.message();
      expect_golden(*fast, g, how);
    }
  }
}

}  // namespace
}  // namespace brigade::planner
