// `brigade search --judge sim`'s default judge runs rings coarsely
// (SearchOptions::sim_ring_max_steps, sim::SimOptions::ring_max_steps;
// docs/search.md "--judge sim"): on plans whose data-parallel rings are long
// (ZeRO-3 gathers over 64 and 128 ranks) it must rank and time them as the
// step-by-step simulation does.
#include <gtest/gtest.h>

#include <cstring>

#include "core/program.hpp"
#include "core/scenario.hpp"
#include "planner/search.hpp"

namespace brigade::planner {
namespace {

TEST(SearchSim, CoarseRingsJudgeAsTheStepByStepSimulation) {
  // 13B on 128 A100s (scenarios/llm_13b_128gpu.yaml), one micro-batch a
  // replica at data 128 (global batch 128), the grid cut to ZeRO-3 plans of
  // tensor 1 and 2 on one stage: data 128 and 64, whose gathers are rings of
  // 127 and 63 steps (16 super-steps of 8 and 4 at the default 16). The
  // hand-written plan (tensor 8, data 16: rings of 15 steps) is untouched by
  // the coarse rings and is simulated too.
  auto sc = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/llm_13b_128gpu.yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  sc->training.global_batch = 128;
  SearchOptions o;
  o.top = 4;
  o.judge_sim = true;
  o.grid.tensor = {1, 2};
  o.grid.pipeline = {1};
  o.grid.zero = {3};
  o.grid.sequence_parallel = {false};
  o.grid.micro_batch = {1};
  o.grid.recompute = {Recompute::kSelective};
  o.grid.bucket_bytes = {25e6};
  o.grid.rank_order = {
      kDefaultRankOrder};  // T-D-P (T-C-D-P: context, of degree 1 here, right after tensor)
  auto coarse = run_search(*sc, o);
  o.sim_ring_max_steps = 0;
  auto exact = run_search(*sc, o);
  ASSERT_TRUE(coarse.is_ok()) << coarse.message();
  ASSERT_TRUE(exact.is_ok()) << exact.message();
  ASSERT_GE(coarse->plans.size(), 2u);  // data 128 and 64 (and the hand-written plan when it ranks)
  ASSERT_EQ(coarse->plans.size(), exact->plans.size());
  for (size_t i = 0; i < coarse->plans.size(); ++i) {
    const RankedPlan& c = coarse->plans[i];
    const RankedPlan& e = exact->plans[i];
    EXPECT_EQ(c.label, e.label);
    EXPECT_EQ(c.sim_rank, e.sim_rank);
    ASSERT_TRUE(c.sim_step_seconds && e.sim_step_seconds) << c.sim_error << e.sim_error;
    EXPECT_NEAR(*c.sim_step_seconds / *e.sim_step_seconds, 1.0, 1e-9) << c.label;
    EXPECT_EQ(c.sim_peak_memory_bytes, e.sim_peak_memory_bytes) << c.label;
    EXPECT_EQ(c.sim_out_of_memory, e.sim_out_of_memory) << c.label;
  }
  ASSERT_TRUE(coarse->hand_written && exact->hand_written);
  EXPECT_EQ(coarse->hand_written->sim_step_seconds, exact->hand_written->sim_step_seconds);
  EXPECT_EQ(coarse->disagreements, exact->disagreements);
}

// The judge's Programs and simulator state live on pages that earlier plans
// freed (big_allocate keeps freed blocks and hands their pages out again,
// not zeroed). Judging the same plans again, on pages left full of another
// pattern, gives the same figures bit for bit: nothing reads memory it did
// not write.
TEST(SearchSim, JudgingAgainOnReusedPagesGivesBitIdenticalFigures) {
  auto sc = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/llm_13b_128gpu.yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  SearchOptions o;
  o.top = 2;
  o.judge_sim = true;
  o.grid.tensor = {4, 8};
  o.grid.pipeline = {2};
  o.grid.zero = {1};
  o.grid.micro_batch = {1};
  o.grid.bucket_bytes = {25e6};
  o.grid.rank_order = {kDefaultRankOrder};  // T-D-P
  auto first = run_search(*sc, o);
  ASSERT_TRUE(first.is_ok()) << first.message();
  // Leave 64 MiB of kept pages full of 0xA5 bytes (-2.5e-127 in every
  // double, -1515870811 in every int32): the next Programs' large arrays and
  // the simulator's per-task state are handed these pages first.
  const size_t mib = size_t{1} << 20;
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t bytes : {32 * mib, 16 * mib, 8 * mib, 4 * mib, 4 * mib}) {
    void* p = big_allocate(bytes);
    std::memset(p, 0xA5, bytes);
    blocks.emplace_back(p, bytes);
  }
  for (const auto& [p, bytes] : blocks) big_deallocate(p, bytes);
  auto again = run_search(*sc, o);
  ASSERT_TRUE(again.is_ok()) << again.message();
  ASSERT_EQ(first->plans.size(), again->plans.size());
  ASSERT_GE(first->plans.size(), 2u);
  for (size_t i = 0; i < first->plans.size(); ++i) {
    const RankedPlan& a = first->plans[i];
    const RankedPlan& b = again->plans[i];
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.sim_rank, b.sim_rank);
    ASSERT_TRUE(a.sim_step_seconds && b.sim_step_seconds) << a.sim_error << b.sim_error;
    EXPECT_EQ(std::memcmp(&*a.sim_step_seconds, &*b.sim_step_seconds, sizeof(double)), 0)
        << a.label;
    EXPECT_EQ(a.sim_peak_memory_bytes, b.sim_peak_memory_bytes) << a.label;
    EXPECT_EQ(a.sim_out_of_memory, b.sim_out_of_memory) << a.label;
    EXPECT_EQ(a.reason, b.reason);
  }
  ASSERT_TRUE(first->hand_written && again->hand_written);
  EXPECT_EQ(first->hand_written->sim_step_seconds, again->hand_written->sim_step_seconds);
  EXPECT_EQ(first->disagreements, again->disagreements);
  EXPECT_EQ(first->notes, again->notes);
}

// A grid's rank order must name the four axes once: {0, 1, 2} (three axes,
// as orders were written before context joined the space) leaves the
// context axis 0, and the search refuses it instead of judging plans on a
// rank map that is no permutation.
TEST(SearchSim, ARankOrderThatIsNoPermutationIsRefused) {
  auto sc = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/llm_13b_128gpu.yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  SearchOptions o;
  o.grid.rank_order = {RankOrder{0, 1, 2}};
  auto r = run_search(*sc, o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "search: found the rank order 0-1-2-0; expected each of the four axes (tensor 0, data "
            "1, pipeline 2, context 3) once");
}

}  // namespace
}  // namespace brigade::planner
