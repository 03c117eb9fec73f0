// brigade explain --kitchen (issue 17, teaching at the command line): the
// plan told in the kitchen analogy, in English and Chinese, from the plan's
// own figures.
#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

const std::string kSource = BRIGADE_SOURCE_DIR;

// W (1024, 1024) row-sharded over 4: each chef holds (256, 1024) of it and
// the partial sums y (8 x 1024 f32 = 32 KiB) meet at the sauce bowl.
TEST(KitchenExplain, RowShardedMatmul) {
  auto r = run_brigade({"explain", kSource + "/scenarios/row_sharded_matmul.yaml", "--kitchen"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Chefs cpu0, cpu1, …, cpu3 (4 chefs, each alike)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    w (256, 1024) f32  parameter"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  waits at the sauce bowl (AllReduce) once a step with 4 chefs: pours in "
                       "and takes the sum back, 32.0 KiB and "),
            std::string::npos)
      << r.out;
  auto zh = run_brigade({"explain", kSource + "/scenarios/row_sharded_matmul.yaml", "--kitchen",
                         "--lang", "zh"});
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_NE(zh.out.find("厨师 cpu0, cpu1, …, cpu3（4 位，分工相同）\n"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("在酱汁碗边等候（AllReduce）每步 1 次，与 4 位厨师一起"), std::string::npos)
      << zh.out;
}

// Under --lang zh the head chef's plan (the planner's summary) is the app's
// Chinese too (cli/zh_texts.hpp, from gui/i18n/brigade_zh_CN.ts), the
// MoE's variant included; English without it. (The stations' tensor roles
// and shardings stay the planner's English words: the data's.)
TEST(KitchenExplain, ThePlansSummaryInChineseUnderLangZh) {
  const std::string mixtral = kSource + "/scenarios/mixtral_8x7b_16gpu.yaml";
  auto en = run_brigade({"explain", mixtral, "--kitchen"});
  ASSERT_EQ(en.exit_code, 0) << en.err;
  EXPECT_NE(en.out.find("transformer (32 layers, hidden 4096, 32 heads, seq 4096; GQA with 8 "
                        "key/value heads"),
            std::string::npos)
      << en.out;
  auto zh = run_brigade({"explain", mixtral, "--kitchen", "--lang", "zh"});
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_NE(zh.out.find("Transformer（32 层，隐藏维 4096，32 个头，序列长 4096；GQA，8 个键/值头，"
                        "SwiGLU FFN 宽 14336，MoE：8 个专家，top-2，专家 FFN 宽 14336"),
            std::string::npos)
      << zh.out;
  // Mixtral's config sets no dropout (attention_dropout 0; the HF path's
  // residual dropout 0), which the summary says.
  EXPECT_NE(
      zh.out.find("，16 台设备：张量 1 × 流水线 2 × 数据 8，1F1B，无随机失活，完全重计算（整层）"),
      std::string::npos)
      << zh.out;
  EXPECT_EQ(zh.out.find("32 layers"), std::string::npos) << zh.out;
}

// A hand placement: idle chefs are named, the runner carries a = 64 KiB.
TEST(KitchenExplain, RunnersAndIdleChefs) {
  auto r = run_brigade({"explain", kSource + "/scenarios/manual_two_chefs.yaml", "--kitchen"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Chef(s) gpu2, gpu3: idle, nothing is placed on them.\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("a runner carries a dish to another chef's station once a step: 64.0 KiB"),
            std::string::npos)
      << r.out;
}

TEST(KitchenExplain, BadInputIsOneLineExitTwo) {
  const std::string s = kSource + "/scenarios/pmap_linear.yaml";
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"explain", s, "--kitchen", "--json"},
       "brigade: error: --kitchen: found it with --json; expected --kitchen alone (a narration of "
       "the plan, for people)\n"},
      {{"explain", s, "--lang", "zh"},
       "brigade: error: --lang: found it without --kitchen; expected --kitchen with it (the other "
       "reports are in English)\n"},
      {{"explain", s, "--kitchen", "--lang", "fr"},
       "brigade: error: --lang: found 'fr'; expected one of en, zh\n"},
  };
  for (const Case& c : cases) {
    auto r = run_brigade(c.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace brigade
