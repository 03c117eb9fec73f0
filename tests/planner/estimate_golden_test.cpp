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
// Regenerated on branch nccl7 for the mixtral_8x7b_16gpu points whose
// AllReduces run NVLS on one DGX H100: NVLS's chunk by size and its
// pipeline's fill (costmodel/nccl_model.cpp, docs/costmodel.md "NVLS's chunk
// and pipeline") make them slower at a few MiB.
// Each plan is judged three ways: plain, through a search's memo and
// lean options, and through the memo again (its caches answering).
#include <algorithm>
#include <cstdio>
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
    {"gpt3_175b_1024.yaml", 0, 35677, 0x1.8c8c3ae0faafap+5, 0x1.6b4b90d7aa6e3p-1,
     0x1.f2ceecb39c2f1p+4, 0x1.c64105ap+35},
    {"gpt3_175b_1024.yaml", 0, 107032, 0x1.f4d1cc4b65506p+3, 0x1.917ba3219f1e5p+0,
     0x1.6f66d76c17e9ep-2, 0x1.058cf61p+36},
    {"gpt3_175b_1024.yaml", 0, 178387, 0x1.687678d9c45a1p+6, 0x1.ad8f785418cb2p+4,
     0x1.67865f390ca98p+5, 0x1.65f065dp+36},
    {"gpt3_175b_1024.yaml", 0, 249742, 0x1.5365ac43a0716p+5, 0x1.8dcbbb78d8d0bp+4,
     0x1.7b1e0419bd15dp+1, 0x1.2d08a02p+35},
    {"gpt3_175b_1024.yaml", 0, 321097, 0x1.3648a9db17101p+5, 0x1.8f77c0567e4e6p+4,
     0x1.304623940a55p-1, 0x1.4b4ca39p+36},
    {"gpt3_175b_1024.yaml", 0, 392452, 0x1.6ea4627835bf9p+8, 0x1.87823d2df9039p+5,
     0x1.2fb228f86e7cfp+8, 0x1.0cac71f8p+37},
    {"gpt3_175b_1024.yaml", 0, 463807, 0x1.95ed7f93827efp+5, 0x1.8c6f3301c1a18p+3,
     0x1.9564b9c11877p+4, 0x1.84eeabdcp+38},
    {"gpt3_175b_1024.yaml", 0, 535162, 0x1.1f8a2098950a9p+5, 0x1.5a5be88dcd806p+3,
     0x1.170d4c2e48ad7p+3, 0x1.28a72ef7p+40},
    {"gpt3_175b_1024.yaml", 1, 1002, 0x1.32e60f87545c6p+4, 0x1.43a5defdffc26p+0,
     0x1.ab4ad15c4474p+3, 0x1.041558p+35},
    {"gpt3_175b_1024.yaml", 1, 3007, 0x1.5af3c4e877da9p+2, 0x1.a03c67e29aee9p-2,
     0x1.6a0289b158c96p-2, 0x1.9ff17p+33},
    {"gpt3_175b_1024.yaml", 1, 5012, 0x1.d1e7bad33b67fp+3, 0x1.369c043245da2p+3,
     0x1.d0a9dff17a718p-5, 0x1.5b8efp+33},
    {"gpt3_175b_1024.yaml", 1, 7017, 0x1.f8231bbce432dp+3, 0x1.37e96a431bf7ap+3,
     0x1.1917c7fcf4392p+0, 0x1.3b0f78p+31},
    {"gpt3_175b_1024.yaml", 1, 9022, 0x1.8aecb8c9d5723p+4, 0x1.372ed7cdc73e5p+4,
     0x1.7b7187d52fcdap-1, 0x1.8c09fp+32},
    {"gpt3_175b_1024.yaml", 1, 11027, 0x1.f62facc59506ap+4, 0x1.7224040205acep+4,
     0x1.8a4789f8e13f8p+1, 0x1.e9dcf8p+30},
    {"gpt3_175b_1024.yaml", 1, 13032, 0x1.833dc9ba76e3ep+3, 0x1.8a43148236c5fp+2,
     0x1.d263f7c7239f2p-6, 0x1.9e9ffp+31},
    {"gpt3_175b_1024.yaml", 1, 15037, 0x1.2bac2f8eff296p+6, 0x1.3fcf17917ca46p+2,
     0x1.059a9ccd3e04cp+6, 0x1.0b4e7f8p+35},
    {"mt_nlg_530b_2240.yaml", 0, 9120, 0x1.15e9d6824025bp+6, 0x1.102428e9fc461p+2,
     0x1.523cde5a97d28p+5, 0x1.7de29e96p+38},
    {"mt_nlg_530b_2240.yaml", 0, 27360, 0x1.08758abb8ec4ap+6, 0x1.75e0c6f7c685fp+0,
     0x1.131133a11c368p+5, 0x1.522744p+36},
    {"mt_nlg_530b_2240.yaml", 0, 45600, 0x1.6608cbac57d94p+7, 0x1.7749035d70ad9p+4,
     0x1.0b8fe01f180afp+7, 0x1.7f428a4cp+38},
    {"mt_nlg_530b_2240.yaml", 0, 63840, 0x1.8972d7fa59d64p+10, 0x1.8ae3b494baf84p+4,
     0x1.7d76db7fdc17dp+10, 0x1.982543bcp+37},
    {"mt_nlg_530b_2240.yaml", 0, 82080, 0x1.f9a771b9cbacep+5, 0x1.60fc87a0ef5d7p+2,
     0x1.0ace98db348f5p+5, 0x1.d411c12p+39},
    {"mt_nlg_530b_2240.yaml", 0, 100320, 0x1.2bd0a123a49c7p+7, 0x1.506de69c08c6p+6,
     0x1.4674e3d9b7cfcp+5, 0x1.3593ff95p+40},
    {"mt_nlg_530b_2240.yaml", 0, 118560, 0x1.4b49de579a97bp+8, 0x1.035c3c93aa2bp+7,
     0x1.4e6dfd392cb76p+7, 0x1.4631916ep+38},
    {"mt_nlg_530b_2240.yaml", 0, 136800, 0x1.ebd77544d4941p+5, 0x1.777b2f06c500dp+4,
     0x1.408672575a171p+3, 0x1.0a6f5468p+39},
    {"mt_nlg_530b_2240.yaml", 1, 268, 0x1.cb99f2ec7b0e5p+4, 0x1.51660834f5aecp+0,
     0x1.3a1236cfed05p+4, 0x1.78e474p+34},
    {"mt_nlg_530b_2240.yaml", 1, 804, 0x1.54fa6bf409576p+4, 0x1.a7f8cff2025ap-2,
     0x1.a52c13d92c9c1p+3, 0x1.aae744p+33},
    {"mt_nlg_530b_2240.yaml", 1, 1340, 0x1.6a3beed91467ep+4, 0x1.442bbd6b947a4p+3,
     0x1.2fc942b6043e4p+2, 0x1.32ece4p+32},
    {"mt_nlg_530b_2240.yaml", 1, 1876, 0x1.38466761d9a88p+5, 0x1.4a0fc6de128aap+4,
     0x1.4f157b89885e4p+3, 0x1.94062dp+33},
    {"mt_nlg_530b_2240.yaml", 1, 2412, 0x1.05f06dfaa8a86p+5, 0x1.58291367d2f49p+1,
     0x1.651ccac960a6ep+4, 0x1.33ae09p+33},
    {"mt_nlg_530b_2240.yaml", 1, 2948, 0x1.826b5f861738dp+7, 0x1.4b7d9b7415c53p+5,
     0x1.20dbef661b116p+7, 0x1.0058934p+34},
    {"mt_nlg_530b_2240.yaml", 1, 3484, 0x1.0d2873b52ed45p+8, 0x1.7cc79e9ff98c8p+5,
     0x1.a99a529eef305p+7, 0x1.e646752p+35},
    {"mt_nlg_530b_2240.yaml", 1, 4020, 0x1.efaf9718e7d0dp+6, 0x1.5142cae9ad46cp+3,
     0x1.a8287d24735b2p+6, 0x1.947351ap+34},
    {"mixtral_8x7b_16gpu.yaml", 0, 2817, 0x1.4ed3055fe25d9p+1, 0x1.97f46e4c8de26p-5,
     0x1.8f31debb04dd6p-2, 0x1.c25fd8p+36},
    {"mixtral_8x7b_16gpu.yaml", 0, 8453, 0x1.c4bb9c2722e33p+1, 0x1.80e4cce335c14p-2,
     0x1.87bbd9443f1f2p-3, 0x1.6cc03p+37},
    {"mixtral_8x7b_16gpu.yaml", 0, 14088, 0x1.b7aa38479642ep+1, 0x1.d0a96cb43b8bcp-3,
     0x1.7945229ca789ap-2, 0x1.42db6p+36},
    {"mixtral_8x7b_16gpu.yaml", 0, 19724, 0x1.b6b7d5347ef6ap+1, 0x1.cbe6933855a98p-3,
     0x1.229c64631aed9p-2, 0x1.e956ap+35},
    {"mixtral_8x7b_16gpu.yaml", 0, 25359, 0x1.65bd7ee9be266p+2, 0x1.2e04bfdb24eb9p+0,
     0x1.7dfd03de92497p+0, 0x1.0b61bcp+36},
    {"mixtral_8x7b_16gpu.yaml", 0, 30995, 0x1.fae262e8ef806p+1, 0x1.96074db0d82afp+0,
     0x1.e18103bcb771cp-4, 0x1.994f6p+37},
    {"mixtral_8x7b_16gpu.yaml", 0, 36630, 0x1.61bfe2f4bb744p+1, 0x1.9bb2e038cb621p-2,
     0x1.4484360e436f3p-3, 0x1.6d033cp+36},
    {"mixtral_8x7b_16gpu.yaml", 0, 42266, 0x1.d2b9d48721187p+1, 0x1.162072c421a26p-1,
     0x1.67175f7a54ccap-3, 0x1.8612p+36},
    {"mixtral_8x7b_16gpu.yaml", 1, 110, 0x1.08ee148d17954p+0, 0x0p+0, 0x1.5e96f56576b8p-2,
     0x1.7a7b8p+35},
    {"mixtral_8x7b_16gpu.yaml", 1, 332, 0x1.0cecc529a1d99p+0, 0x1.0c58f3c98d601p-5,
     0x1.683fafd4307d9p-3, 0x1.464eap+33},
    {"mixtral_8x7b_16gpu.yaml", 1, 554, 0x1.9d63dbe92660ap-1, 0x1.5217d73de143bp-5,
     0x1.7b0d83b82e51ap-5, 0x1.817fp+34},
    {"mixtral_8x7b_16gpu.yaml", 1, 776, 0x1.b56e41b67c7ffp-1, 0x1.6eb4a9078cb29p-5,
     0x1.244593d222f97p-4, 0x1.8373p+33},
    {"mixtral_8x7b_16gpu.yaml", 1, 998, 0x1.34cdd26bd951cp+0, 0x1.9aad4de0a690ap-2,
     0x1.ff7cbf5b516a2p-6, 0x1.875bp+32},
    {"mixtral_8x7b_16gpu.yaml", 1, 1220, 0x1.da651b4784e3p-1, 0x1.494c65a40e18ep-3,
     0x1.c5d671cff2fc3p-6, 0x1.6e42p+33},
    {"mixtral_8x7b_16gpu.yaml", 1, 1442, 0x1.f309a487e37ddp-1, 0x1.28712e82de992p-3,
     0x1.b379da1502fedp-4, 0x1.ee1ep+33},
    {"mixtral_8x7b_16gpu.yaml", 1, 1664, 0x1.92ca0b71edb33p+0, 0x1.81ebde2ff07dep-1,
     0x1.8984be79e81cap-6, 0x1.724ep+32},
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
