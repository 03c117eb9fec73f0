// brigade lesson (issue 17, teaching at the command line): the list, each
// bundled lesson in both languages with its steps run, and the quiz's
// answers computed by the judges, checked here against hand-worked values.
#include <cstdio>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

const std::string kLessons = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/lessons";

nlohmann::json lesson_json(const std::string& name, const std::string& lang = "en") {
  auto r = run_brigade({"lesson", name, "--lessons", kLessons, "--lang", lang, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

double answer(const nlohmann::json& j, const std::string& name) {
  return j["answers"][name]["value"].get<double>();
}

void expect_rel(double got, double want) { EXPECT_NEAR(got, want, 1e-9 * std::abs(want)); }

TEST(LessonVerb, ListsEveryLesson) {
  auto r = run_brigade({"lesson", "--lessons", kLessons});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("01  placement-cost         tour          Placement and Cost(P): who "
                       "cooks what\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("12  runtime-surprise       misconception"), std::string::npos) << r.out;
  auto zh = run_brigade({"lesson", "--lessons", kLessons, "--lang", "zh"});
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_NE(zh.out.find("设备放置与 Cost(P)"), std::string::npos) << zh.out;
}

// Every lesson, in both languages, runs its steps and fills every answer.
TEST(LessonVerb, EveryLessonRunsInBothLanguages) {
  for (const char* n :
       {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"}) {
    for (const char* lang : {"en", "zh"}) {
      auto r = run_brigade({"lesson", n, "--lessons", kLessons, "--lang", lang});
      EXPECT_EQ(r.exit_code, 0) << n << " " << lang << ": " << r.err;
      EXPECT_EQ(r.out.find("{{"), std::string::npos) << n << " " << lang << ": an answer left unfilled";
      EXPECT_NE(r.out.find("$ brigade "), std::string::npos) << n << " " << lang;
    }
  }
}

// Lesson 1, Cost(P): one edge crosses chefs, carrying a = 8 x 2048 f32 =
// 8 x 2048 x 4 B = 65536 B; Cost(P) is compute + transfer.
TEST(LessonVerb, PlacementCostAnswers) {
  const auto j = lesson_json("placement-cost");
  EXPECT_EQ(answer(j, "edges"), 1);
  EXPECT_EQ(answer(j, "edge_bytes"), 65536);
  expect_rel(answer(j, "seed_cost"), answer(j, "compute") + answer(j, "transfer"));
  EXPECT_EQ(j["answers"]["edge_bytes"]["text"], "64.0 KiB");
}

// Lesson 4, quiz Q4: (32, 256) over 8 devices by rows: 32 / 8 = 4 rows each, (4, 256).
TEST(LessonVerb, PmapShardShapeIsComputed) {
  const auto j = lesson_json("04");
  EXPECT_EQ(j["answers"]["local_shape"]["text"], "(4, 256)");
  EXPECT_EQ(j["answers"]["global_shape"]["text"], "(32, 256)");
  EXPECT_EQ(answer(j, "devices"), 8);
  // The Chinese text shows the same computed answer.
  const auto zh = lesson_json("04", "zh");
  EXPECT_NE(zh["sections"][0]["body"].get<std::string>().find("(4, 256)"), std::string::npos);
}

// Lesson 5, quiz Q3: the ring's alpha term 2(N-1)alpha, whatever M:
//   N = 8:  14 x 5 us = 70 us;  N = 64: 126 x 5 us = 630 us;
//   beta term 2(N-1)/N M / B: N = 8: 1.75 x 2^30 / 1e11 = 0.01879048192 s,
//   N = 64: 1.96875 x 2^30 / 1e11 = 0.02113929216 s.
TEST(LessonVerb, SauceBowlAlphaBetaAnswers) {
  const auto j = lesson_json("sauce-bowl");
  EXPECT_EQ(answer(j, "rounds8"), 14);
  expect_rel(answer(j, "alpha8"), 7e-5);
  expect_rel(answer(j, "alpha8_tiny"), 7e-5);
  expect_rel(answer(j, "beta8"), 0.01879048192);
  EXPECT_EQ(answer(j, "rounds64"), 126);
  expect_rel(answer(j, "alpha64"), 6.3e-4);
  expect_rel(answer(j, "beta64"), 0.02113929216);
  EXPECT_EQ(j["answers"]["alpha8"]["text"], "70.0 us");
}

// Lesson 5, step 4, overlap: the same gradients poured in 25 MB buckets
// during the backward pass expose less than poured in one bucket after it,
// although the buckets pay more latencies. 470 499 328 parameters x 2 B =
// 940 998 656 B; every bucket but the last holds at least 25e6 B, so there
// are at most floor(940998656 / 25e6) + 1 = 38 of them, and more than one.
TEST(LessonVerb, SauceBowlOverlapHidesMostOfThePouring) {
  const auto j = lesson_json("sauce-bowl");
  EXPECT_GT(answer(j, "ov_buckets"), 1);
  EXPECT_LE(answer(j, "ov_buckets"), 38);
  EXPECT_LT(answer(j, "ov_exposed"), answer(j, "ov_comm") / 2);
  EXPECT_GT(answer(j, "ov_comm"), answer(j, "one_comm"));  // more pours, more alphas
  EXPECT_LT(answer(j, "ov_step"), answer(j, "one_step"));
}

// Lesson 6: the four parts add up to the peak, and ZeRO-1 keeps 1/8 of the
// optimizer state on each of the 8 stations.
TEST(LessonVerb, PeakMemoryAnswers) {
  const auto j = lesson_json("6");
  const double parts = answer(j, "m_model") + answer(j, "m_grad") + answer(j, "m_opt") + answer(j, "m_act");
  EXPECT_GE(answer(j, "m_peak"), parts * (1 - 1e-12));
  expect_rel(answer(j, "m_opt_zero"), answer(j, "m_opt") / 8);
  EXPECT_LT(answer(j, "m_peak_zero"), answer(j, "m_peak"));
}

// Lesson 7, quiz Q10: W (1024, 1024) by rows over 4: (1024 / 4, 1024) =
// (256, 1024) per chef; the partial sums are added by an AllReduce of y,
// 8 x 1024 f32 = 32768 B.
TEST(LessonVerb, RowShardingNeedsAnAllReduce) {
  const auto j = lesson_json("model-sharding");
  EXPECT_EQ(j["answers"]["combine"]["text"], "allreduce");
  EXPECT_EQ(j["answers"]["w_local"]["text"], "(256, 1024)");
  EXPECT_EQ(j["answers"]["x_local"]["text"], "(8, 256)");
  EXPECT_EQ(answer(j, "combine_bytes"), 32768);
}

// Lesson 12, the misconception shown: on paper (`brigade search` and the
// closed form, which do not see runtime:) the search's choice over all 4
// chefs wins; simulated with gpu0 at a quarter of its speed, the hand plan
// leaving it out wins. Worked out: the search's 2x2 mesh gives each chef a
// quarter of the work (3072 rows x 4096 x 4096 / 4), so gpu0 takes
// 1 / 4 / 0.25 = 1 unit against 1/3 for each chef of the hand plan: 3 x
// as long, less the fixed costs both share.
TEST(LessonVerb, RuntimeSurpriseSearchLosesToTheHandPlan) {
  const auto j = lesson_json("runtime-surprise");
  EXPECT_LT(answer(j, "paper_search"), answer(j, "paper_hand"));
  EXPECT_GT(answer(j, "real_search"), answer(j, "real_hand"));
  EXPECT_GT(answer(j, "real_search"), 2 * answer(j, "real_hand"));
  EXPECT_DOUBLE_EQ(answer(j, "planned_search"), answer(j, "paper_search"));
}

// The lesson simulates more/12-searched.yaml as the search's choice: it must
// be today's. Re-emitting the winner gives the same plan keys.
TEST(LessonVerb, RuntimeSurpriseSearchedFileIsTodaysChoice) {
  const std::string emitted = "/tmp/brigade-lesson-12-searched.yaml";
  auto r = run_brigade({"search", kLessons + "/12-runtime-surprise.yaml", "--quiet", "--emit", emitted});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto plan_keys = [](const std::string& path) {
    auto c = run_brigade({"explain", path, "--json", "--per-device"});
    EXPECT_EQ(c.exit_code, 0) << c.err;
    const auto j = nlohmann::json::parse(c.out);
    nlohmann::json shapes = nlohmann::json::array();
    for (const auto& d : j["devices"]) shapes.push_back(d["shapes"]);
    return shapes;
  };
  EXPECT_EQ(plan_keys(emitted), plan_keys(kLessons + "/more/12-searched.yaml"))
      << "re-run `brigade search scenarios/lessons/12-runtime-surprise.yaml --emit "
         "scenarios/lessons/more/12-searched.yaml`";
  std::remove(emitted.c_str());
}

// Lesson 2: the search's choice beats the hand-written split, which ranks
// below it.
TEST(LessonVerb, XlaAutoChoiceBeatsTheHandSplit) {
  const auto j = lesson_json("xla-auto-choice");
  EXPECT_LT(answer(j, "choice_step"), answer(j, "hand"));
  EXPECT_GT(answer(j, "hand_rank"), 1);
  EXPECT_GT(answer(j, "hand_transfer"), 0);
}

// Lesson 3, jit with a device: every op on chef 1, no edge crosses chefs;
// lesson 1's split pays its transfer of a (8 x 2048 x 4 B = 64 KiB).
TEST(LessonVerb, JitDeviceHasNoTransfer) {
  const auto j = lesson_json("jit-device");
  EXPECT_EQ(answer(j, "edges"), 0);
  EXPECT_EQ(answer(j, "devices"), 1);
  EXPECT_GT(answer(j, "split_transfer"), 0);
  EXPECT_LT(answer(j, "step"), answer(j, "split_step"));
}

// Lesson 9: a 13B GPT's parameters, Megatron's count for L = 40, h = 5120,
// V = 51200, s = 2048: 12 L h^2 + 13 L h + V h + s h
//   = 12 x 40 x 5120^2 + 13 x 40 x 5120 + 51200 x 5120 + 2048 x 5120
//   = 12582912000 + 2662400 + 262144000 + 10485760 = 12858204160;
// the tensor groups' sauce bowl is an AllReduce over the 8 GPUs of a node.
TEST(LessonVerb, Llm13bAnswers) {
  const auto j = lesson_json("llm-13b");
  EXPECT_EQ(answer(j, "params"), 12858204160.0);
  EXPECT_EQ(j["answers"]["tp_kind"]["text"], "allreduce");
  EXPECT_EQ(answer(j, "tp_group"), 8);
  EXPECT_LT(answer(j, "peak"), 80.0 * (1 << 30));
}

// Lesson 10: 10000 users over 4 GPUs: 2500 rows of 256 features each; the
// speedup is step(1) / step(4), below 4.
TEST(LessonVerb, ScoringServiceAnswers) {
  const auto j = lesson_json("scoring-service");
  EXPECT_EQ(j["answers"]["rows"]["text"], "(2500, 256)");
  expect_rel(answer(j, "speedup4"), answer(j, "step1") / answer(j, "step4"));
  EXPECT_LT(answer(j, "speedup4"), 4);
  EXPECT_GT(answer(j, "speedup4"), 1);
}

// Lesson 11, pmap is not a for loop: 8 blocks one after another on one
// chef take about 8 x one block; pmap's 8 chefs take about one block. So
// the loop is more than 4 x pmap's step (8 x, less the fixed costs).
TEST(LessonVerb, PmapIsNotAForLoop) {
  const auto j = lesson_json("pmap-not-a-loop");
  EXPECT_EQ(answer(j, "devices"), 8);
  EXPECT_GT(answer(j, "loop"), 4 * answer(j, "together"));
}

// Lesson 13, the pipeline bubble: one micro-batch over 4 stages (GPipe) idles
// each chef (p - 1) / (m + p - 1) = 3/4 of the step for equal stages: the
// bubble exceeds the busiest chef's compute. 16 micro-batches on 1F1B:
// (p - 1) / (m + p - 1) = 3/19, so the bubble shrinks by more than 4 x.
TEST(LessonVerb, PipelineBubbleAnswers) {
  const auto j = lesson_json("pipeline-bubble");
  EXPECT_GT(answer(j, "bubble"), answer(j, "compute"));
  EXPECT_LT(answer(j, "bubble_mb"), answer(j, "bubble") / 4);
  EXPECT_LT(answer(j, "step_mb"), answer(j, "step"));
}

// Lesson 14, the expeditor (the host lane, docs/simulator.md): the host
// issues each of the step's kernels 40 us after the one before and never
// waits, so the step lasts at least kernels x 40 us (3857 x 40 us = 154 ms);
// the kernels average less than 40 us, so the step is the host's, and its
// wait is that less the GPU's own step (the same plan without a host). The simulator's path stands still as long; the
// kernels average less than the host's 40 us. One micro-batch of 8: the
// device sets the pace again, faster than the GPU alone at micro-batch 1.
TEST(LessonVerb, TheExpeditorAnswers) {
  const auto j = lesson_json("the-expeditor");
  EXPECT_NEAR(answer(j, "host_op"), 40e-6, 1e-12);
  EXPECT_LT(answer(j, "kernel_mean"), answer(j, "host_op"));
  EXPECT_GT(answer(j, "step"), answer(j, "kernels") * answer(j, "host_op"));
  EXPECT_NEAR(answer(j, "host_wait"), answer(j, "step") - answer(j, "gpu_alone"),
              0.01 * answer(j, "step"));
  EXPECT_NEAR(answer(j, "path_wait"), answer(j, "host_wait"), 0.01 * answer(j, "step"));
  EXPECT_GT(answer(j, "host_wait"), answer(j, "step") / 2);
  EXPECT_LT(answer(j, "step_mb"), answer(j, "gpu_alone"));
  // Eight GPUs, data parallel, the lesson's work each: a host each keeps
  // the one GPU's step (plus the gradients' AllReduce); one host for all
  // eight calls eight GPUs' tickets, so the host's part of the step is
  // eight times as long (the GPUs' own work and the AllReduce are not).
  EXPECT_NEAR(answer(j, "step_each"), answer(j, "step"), 0.02 * answer(j, "step"));
  EXPECT_GT(answer(j, "step_shared"), 7 * answer(j, "step_each"));
  EXPECT_LT(answer(j, "step_shared"), 8 * answer(j, "step_each"));
  EXPECT_NEAR(answer(j, "step_shared_sim"), answer(j, "step_shared"),
              0.01 * answer(j, "step_shared"));
}

// Lesson 8, the misconception "more devices, linearly faster" shown: the
// sweep's speedup at 8 is step(1) / step(8) and less than 8; 16 devices
// across a 100 Gb/s network are slower than 8 (the knee at 8). Amdahl with
// p = 0.95: the ceiling 1 / (1 - p) = 20, and on 64 devices
// 1 / (0.05 + 0.95 / 64) = 1 / 0.06484375 = 15.42168674...
TEST(LessonVerb, ScalingKneeAnswers) {
  const auto j = lesson_json("scaling-knee");
  expect_rel(answer(j, "speedup8"), answer(j, "step1") / answer(j, "step8"));
  EXPECT_LT(answer(j, "speedup8"), 8);
  EXPECT_GT(answer(j, "step16"), answer(j, "step8"));
  EXPECT_EQ(answer(j, "knee"), 8);
  EXPECT_NEAR(answer(j, "amdahl_max"), 20, 1e-9);
  EXPECT_NEAR(answer(j, "amdahl64"), 1 / 0.06484375, 1e-9);
  EXPECT_EQ(j["answers"]["amdahl64"]["text"], "15.42");
}

// brigade lesson --quiz: the seed's ten questions, each answer computed
// (planner/quiz.hpp; the values are checked in tests/planner/quiz_test.cpp).
TEST(LessonVerb, Quiz) {
  auto r = run_brigade({"lesson", "--quiz", "--lessons", kLessons, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["questions"].size(), 10u);
  EXPECT_EQ(j["questions"][3]["answer"], "B");
  EXPECT_EQ(j["questions"][3]["facts"]["pmap_input"], "(8, 4, 256)");
  EXPECT_EQ(j["questions"][6]["answer"], "AB");
  auto zh = run_brigade({"lesson", "--quiz", "--lessons", kLessons, "--lang", "zh"});
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_NE(zh.out.find("Q4. 用 pmap 处理形状为 (32, 256) 的输入"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("答案：B。规划器沿第一维切分：32 / 8 = 4"), std::string::npos) << zh.out;
}

TEST(LessonVerb, StepAndNoRun) {
  auto r = run_brigade({"lesson", "5", "--lessons", kLessons, "--step", "2", "--no-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("## 1."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("## 2. The two terms of the price"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("$ brigade collective allreduce --devices 8"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("latency: paid even for 0 bytes"), std::string::npos) << "--no-run runs no step";
}

struct BadCase {
  std::vector<std::string> args;
  std::string err;
};

TEST(LessonVerb, BadInputIsOneLineExitTwo) {
  const std::vector<BadCase> cases = {
      {{"lesson", "15"},
       "brigade: error: NAME: found '15'; expected a lesson's number from 1 to 14 or its name "
       "(placement-cost, xla-auto-choice, jit-device, pmap-sharding, sauce-bowl, peak-memory, "
       "model-sharding, scaling-knee, llm-13b, scoring-service, pmap-not-a-loop, "
       "runtime-surprise, pipeline-bubble, the-expeditor)\n"},
      {{"lesson", "sauce-bowel"},
       "brigade: error: NAME: found 'sauce-bowel'; expected a lesson's number from 1 to 14 or its "
       "name (placement-cost, xla-auto-choice, jit-device, pmap-sharding, sauce-bowl, "
       "peak-memory, model-sharding, scaling-knee, llm-13b, scoring-service, pmap-not-a-loop, "
       "runtime-surprise, pipeline-bubble, the-expeditor) (did you mean 'sauce-bowl'?)\n"},
      {{"lesson", "3", "--lang", "fr"},
       "brigade: error: --lang: found 'fr'; expected one of en, zh\n"},
      {{"lesson", "5", "--step", "5"},
       "brigade: error: --step: found '5'; expected a step from 1 to 4 of lesson 05\n"},
      {{"lesson", "5", "--quiz"},
       "brigade: error: --quiz: found it with lesson '5'; expected --quiz alone (the quiz draws on "
       "every lesson)\n"},
  };
  for (const BadCase& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back("--lessons");
    args.push_back(kLessons);
    auto r = run_brigade(args);
    EXPECT_EQ(r.exit_code, 2) << args[1];
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace brigade
