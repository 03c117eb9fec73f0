// scripts/fidelity (issue 19, item 4): Brigade's predictions against the
// published end-to-end results of scenarios/published/, as one Markdown
// table. Runs the script on two rows (one per metric it converts a step time
// into) with the built brigade, and checks the table's shape and its
// arithmetic against a hand-worked error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"
#include "markdown_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;
using testing::run_program;
using testing::cells_of;
using testing::format;
using testing::lines_of;

const std::string kSource = BRIGADE_SOURCE_DIR;
const std::string kScript = kSource + "/scripts/fidelity";
// Narayanan et al. 2021, Table 1, GPT 1.7B on 32 A100: 137 TFLOP/s per GPU.
const std::string kRowA = kSource + "/scenarios/published/narayanan21_01_gpt_1.7b_32gpu.yaml";
// NeMo 24.12 performance summary, Llama 2 7B on 8 H100: 16934 tokens/s per GPU.
const std::string kRowB = kSource + "/scenarios/published/nemo2412_05_llama2_7b_8gpu.yaml";

double step_seconds(const std::string& scenario) {
  const auto r = run_brigade({"cost", scenario, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out).at("step_seconds").get<double>();
}

TEST(Fidelity, ReportsTwoRowsWithHandWorkedErrors) {
  const auto r =
      run_program({"python3", kScript, "--report", "--brigade", BRIGADE_EXE, kRowA, kRowB});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = lines_of(r.out);
  // A dated line, the table (header, rule, two rows), the summary.
  ASSERT_EQ(lines.size(), 9u) << r.out;
  EXPECT_EQ(lines[0].rfind("Generated ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(" UTC by `scripts/fidelity --judge cost`."), std::string::npos);
  EXPECT_EQ(lines[1], "");
  EXPECT_EQ(lines[2], "| # | row | source | configuration | published | Brigade | error |");
  EXPECT_EQ(lines[3], "|---|---|---|---|---|---|---|");
  EXPECT_EQ(lines[6], "");

  // Row A, TFLOP/s per GPU as the paper counts FLOPs (Narayanan et al. 2021,
  // Appendix, with full recomputation): B 512, s 2048, l 24, h 2304, V 51200,
  //   96 B s l h^2 = 96 * 512 * 2048 * 24 * 2304^2 = 12,824,703,626,379,264
  //   1 + s/(6h) + V/(16 l h) = 1 + 4/27 + 25/432 = 521/432
  //   F = 12,824,703,626,379,264 * 521 / 432 = 15,466,830,067,924,992 FLOP,
  // Brigade's TFLOP/s per GPU = F / (step * 32 GPUs) / 1e12, error against 137.
  const std::vector<std::string> a = cells_of(lines[4]);
  ASSERT_EQ(a.size(), 7u) << lines[4];
  EXPECT_EQ(a[0], "1");
  EXPECT_EQ(a[1], "narayanan21_01_gpt_1.7b_32gpu");
  EXPECT_EQ(a[2], "Narayanan et al. 2021 (SC'21), Table 1, 1.7B");
  EXPECT_EQ(a[3], "32x dgx-a100, l24 h2304 s2048, TP1 PP1 DP32, mb16 gb512, recompute full, f16");
  EXPECT_EQ(a[4], "137.00 TFLOP/s/GPU");
  const double tflops_a = 15466830067924992.0 / (step_seconds(kRowA) * 32) / 1e12;
  const double error_a = tflops_a / 137 - 1;
  EXPECT_EQ(a[5], format("%.2f TFLOP/s/GPU", tflops_a));
  EXPECT_EQ(a[6], format("%+.2f%%", 100 * error_a));

  // Row B, tokens per second per GPU: 128 sequences x 4096 tokens over
  // (step * 8 GPUs), error against 16934.
  const std::vector<std::string> b = cells_of(lines[5]);
  ASSERT_EQ(b.size(), 7u) << lines[5];
  EXPECT_EQ(b[0], "2");
  EXPECT_EQ(b[1], "nemo2412_05_llama2_7b_8gpu");
  EXPECT_EQ(b[4], "16934.0 tokens/s/GPU");
  const double tokens_b = 128.0 * 4096 / (step_seconds(kRowB) * 8);
  const double error_b = tokens_b / 16934 - 1;
  EXPECT_EQ(b[5], format("%.1f tokens/s/GPU", tokens_b));
  EXPECT_EQ(b[6], format("%+.2f%%", 100 * error_b));

  // The summary: the mean and the largest |error|, and the goal (mean <= 3%,
  // max <= 8%) met or not.
  const double mean = (std::fabs(error_a) + std::fabs(error_b)) / 2;
  const bool a_worse = std::fabs(error_a) >= std::fabs(error_b);
  const double worst = a_worse ? std::fabs(error_a) : std::fabs(error_b);
  EXPECT_EQ(lines[7], "rows: 2; judge: cost; mean |error|: " + format("%.2f", 100 * mean) +
                          "%; max |error|: " + format("%.2f", 100 * worst) + "% (" +
                          (a_worse ? a[1] : b[1]) + ")");
  const bool met = mean <= 0.03 && worst <= 0.08;
  EXPECT_EQ(lines[8],
            std::string("goal: mean |error| <= 3%, max |error| <= 8%, memory within 3%: ") +
                (met ? "met" : "NOT met"));
}

// Without --report the exit status is the goal: 0 met, 1 not met.
TEST(Fidelity, ExitStatusIsTheGoal) {
  const auto r = run_program({"python3", kScript, "--brigade", BRIGADE_EXE, kRowA});
  const bool met = r.out.find("memory within 3%: met") != std::string::npos;
  ASSERT_TRUE(met || r.out.find("memory within 3%: NOT met") != std::string::npos) << r.out;
  EXPECT_EQ(r.exit_code, met ? 0 : 1) << r.err;
}

// A scenario without a published figure is bad input: one line, exit 2,
// no table.
TEST(Fidelity, RowWithoutPublishedFigureIsRefused) {
  const std::string plain = kSource + "/scenarios/gpt3_175b_1024.yaml";
  const auto r = run_program({"python3", kScript, "--report", "--brigade", BRIGADE_EXE, plain});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, plain +
                       ": error: found no 'published' section; expected the source's figure "
                       "(docs/scenario-format.md, \"published\")\n");
}

// A brigade that refuses the scenario: its one-line message, exit 2.
TEST(Fidelity, BrigadeRefusalIsPassedOn) {
  const std::string bad = "/tmp/brigade-fidelity-test-" + std::to_string(::getpid()) + ".yaml";
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "topology: {preset: dgx-a100}\n"
        "model:\n"
        "  transformer: {layers: 2, hidden: 64, heads: 4, seq: 16, vocab: 128}\n"
        "training: {global_batch: 8}\n"
        "strategy: {data: 8}\n"
        "published:\n"
        "  source: s\n"
        "  metric: step_seconds\n"
        "  value: 1\n"
        "  flops: megatron\n",
        f);
    std::fclose(f);
  }
  const auto r = run_program({"python3", kScript, "--report", "--brigade", BRIGADE_EXE, bad});
  std::remove(bad.c_str());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, bad +
                       ":10:3: error: found 'flops' with metric step_seconds; expected it only "
                       "with tflops_per_gpu or mfu\n");
}

// --set SECTION.KEY=VALUE: a what-if judged on a copy of each row with the
// key set, said so under the dated line, exit 0 once the table is made. Row
// A at micro-batch 8 (its file says 16): the Brigade column is what `brigade
// cost` gives a hand-made copy with that one change, converted as above;
// the configuration column reads the copy. A malformed --set and a
// refused copy are bad input naming the flag and the row's own file.
TEST(Fidelity, SetJudgesACopyOfEachRowWithTheKey) {
  const std::string copy = "/tmp/brigade-fidelity-set-" + std::to_string(::getpid()) + ".yaml";
  {
    std::string text = testing::detail::slurp(kRowA);
    const std::string from = "micro_batch: 16";
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, from.size(), "micro_batch: 8");
    std::FILE* f = std::fopen(copy.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  const double step = step_seconds(copy);
  std::remove(copy.c_str());
  const auto r = run_program(
      {"python3", kScript, "--brigade", BRIGADE_EXE, "--set", "training.micro_batch=8", kRowA});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 6u) << r.out;
  EXPECT_NE(lines[0].find("`scripts/fidelity --judge cost --set training.micro_batch=8`."),
            std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1],
            "What-if: every row with training.micro_batch: 8 in its scenario; not Brigade's "
            "prediction (docs/FIDELITY.md).");
  const std::vector<std::string> a = cells_of(lines[5]);
  ASSERT_EQ(a.size(), 7u) << lines[5];
  EXPECT_EQ(a[1], "narayanan21_01_gpt_1.7b_32gpu");
  EXPECT_EQ(a[3], "32x dgx-a100, l24 h2304 s2048, TP1 PP1 DP32, mb8 gb512, recompute full, f16");
  EXPECT_EQ(a[5], format("%.2f TFLOP/s/GPU", 15466830067924992.0 / (step * 32) / 1e12));

  const auto bad = run_program(
      {"python3", kScript, "--brigade", BRIGADE_EXE, "--set", "training.micro_batch", kRowA});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err,
            "scripts/fidelity: error: --set: found 'training.micro_batch'; expected "
            "SECTION.KEY=VALUE with SECTION one of training, strategy, simulation and VALUE "
            "one YAML scalar, flow map or list (training.micro_batch=2)\n");
  const auto refused = run_program(
      {"python3", kScript, "--brigade", BRIGADE_EXE, "--set", "strategy.data=7", kRowA});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err.rfind(kRowA + " (with --set strategy.data=7)", 0), 0u) << refused.err;
}

// The pairs after the table (scenarios/published/pairs.txt): two rows of one
// source that differ in one thing, compared as a change in useful work per
// GPU-second. Korthikanti et al. 2022, Table 5, 22B on 8 GPUs: full
// recomputation 1.42 s a step, selective + sequence parallelism 1.10 s; the
// same model, batch and GPUs, so the work cancels and the published change is
// 1.42 / 1.10 - 1 = +29.09%; Brigade's is its own steps' ratio, and the pair
// error is Brigade's ratio over the published one, less 1.
TEST(Fidelity, PairsAreChangesBetweenTwoRows) {
  const std::string full = kSource + "/scenarios/published/korthikanti22_01_22b_8gpu_full.yaml";
  const std::string sel =
      kSource + "/scenarios/published/korthikanti22_02_22b_8gpu_selective_sp.yaml";
  const auto r =
      run_program({"python3", kScript, "--report", "--brigade", BRIGADE_EXE, full, sel});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  // The dated line, the table and its summary (9 lines), then a blank line,
  // the pairs' header and rule, the one pair both rows make, a blank line and
  // the legend.
  ASSERT_EQ(lines.size(), 15u) << r.out;
  EXPECT_EQ(lines[9], "");
  EXPECT_EQ(lines[10], "| pair | what differs | published | Brigade | pair error |");
  const std::vector<std::string> p = cells_of(lines[12]);
  ASSERT_EQ(p.size(), 5u) << lines[12];
  EXPECT_EQ(p[0], "korthikanti22_01_22b_8gpu_full → korthikanti22_02_22b_8gpu_selective_sp");
  EXPECT_EQ(p[1], "recompute full -> selective, sequence parallelism (22B, 8 GPUs)");
  EXPECT_EQ(p[2], "+29.09%");
  const double brigade = step_seconds(full) / step_seconds(sel);
  EXPECT_EQ(p[3], format("%+.2f%%", 100 * (brigade - 1)));
  EXPECT_EQ(p[4], format("%+.2f%%", 100 * (brigade / (1.42 / 1.10) - 1)));
}

// A pairs file naming a row that is not a scenario beside it (rows are
// NAME.yaml in the pairs file's folder): its line and column, exit 2, no table.
TEST(Fidelity, BadPairIsRefusedAtItsLineAndColumn) {
  const std::string dir = "/tmp/brigade-fidelity-pairs-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const std::string pairs = dir + "/pairs.txt";
  {
    std::FILE* f = std::fopen(pairs.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("# a comment\n  no_such_row other_row what differs\n", f);
    std::fclose(f);
  }
  const auto r = run_program(
      {"python3", kScript, "--report", "--brigade", BRIGADE_EXE, "--pairs", pairs, kRowA});
  std::remove(pairs.c_str());
  ::rmdir(dir.c_str());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, pairs + ":2:3: error: found row 'no_such_row'; expected a scenario of " + dir +
                       " (NAME.yaml)\n");
}

// --gaps: each row's gap, the step the source implies less Brigade's, put
// five ways. Row A (GPT 1.7B on 32 A100, one micro-batch a step: global 512
// / (micro 16 x data 32)): the published step is F / (32 GPUs x 137 TFLOP/s)
// with F = 15,466,830,067,924,992 FLOP (ReportsTwoRowsWithHandWorkedErrors)
// = 3.5280 s; the gap against `brigade cost --json`'s step, and what alone
// would close it: compute x (1 + gap / compute), the exposed communication x
// (1 + gap / exposed), gap / 1 on its one micro-batch, that over the
// parameters a device holds (TP 1, PP 1: all of `brigade cost --json`'s
// parameters, 1.65 G: gap / (1 x P) in picoseconds, and that time as bytes
// at the row's streaming rate, the dgx-a100 preset's 2039 GB/s x 0.85 =
// 1,733.15 GB/s: `brigade cost --json`'s streaming_bytes_per_second), gap
// once a step. One row: its figures are the spread row's smallest, median
// and largest alike.
TEST(Fidelity, GapsPutEachRowsGapFiveWays) {
  const auto r = run_program(
      {"python3", kScript, "--report", "--gaps", "--pairs", "", "--brigade", BRIGADE_EXE, kRowA});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  // The dated line, the table and its summary (8 lines), a blank line, the
  // gaps' header and rule, the row, the spread, a blank line, the legend.
  ASSERT_EQ(lines.size(), 15u) << r.out;
  EXPECT_EQ(lines[8], "");
  EXPECT_EQ(lines[9],
            "| row | published step | Brigade step | gap | compute x | exposed communication x "
            "| a micro-batch (m) | a parameter a micro-batch | a step |");
  const auto cost = run_brigade({"cost", kRowA, "--json"});
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  const nlohmann::json j = nlohmann::json::parse(cost.out);
  const double step = j.at("step_seconds").get<double>();
  const double compute = j.at("compute_seconds").get<double>();
  const double exposed = j.at("exposed_communication_seconds").get<double>();
  const double parameters = j.at("parameters").get<double>();
  EXPECT_NEAR(parameters, 1.65e9, 0.01e9);
  const double rate = j.at("streaming_bytes_per_second").get<double>();
  EXPECT_NEAR(rate, 2039e9 * 0.85, 1e3);
  const double published = 15466830067924992.0 / (32 * 137e12);
  EXPECT_NEAR(published, 3.5280, 5e-5);
  const double gap = published - step;
  const std::vector<std::string> g = cells_of(lines[11]);
  ASSERT_EQ(g.size(), 9u) << lines[11];
  EXPECT_EQ(g[0], "narayanan21_01_gpt_1.7b_32gpu");
  EXPECT_EQ(g[1], format("%.4g s", published));
  EXPECT_EQ(g[2], format("%.4g s", step));
  EXPECT_EQ(g[3], format("%+.4g s", gap) + format(" (%+.1f%%)", 100 * gap / step));
  EXPECT_EQ(g[4], format("%.3f", 1 + gap / compute));
  EXPECT_EQ(g[5], format("%.2f", 1 + gap / exposed));
  EXPECT_EQ(g[6], format("%+.3g ms (1)", 1e3 * gap));
  EXPECT_EQ(g[7], format("%+.3g ps", 1e12 * gap / parameters) +
                      format(" = %+.3g B", gap / parameters * rate) +
                      format(" (%.3g G)", parameters / 1e9));
  EXPECT_EQ(g[8], format("%+.3g s", gap));
  const std::vector<std::string> spread = cells_of(lines[12]);
  ASSERT_EQ(spread.size(), 9u) << lines[12];
  EXPECT_EQ(spread[0], "smallest / median / largest");
  EXPECT_EQ(spread[4], g[4] + " / " + g[4] + " / " + g[4]);
  const std::string ps = format("%+.3g ps", 1e12 * gap / parameters);
  const std::string bytes = format("%+.3g B", gap / parameters * rate);
  EXPECT_EQ(spread[7],
            ps + " / " + ps + " / " + ps + " (" + bytes + " / " + bytes + " / " + bytes + ")");
  EXPECT_EQ(spread[8], g[8] + " / " + g[8] + " / " + g[8]);
}

// --judges: each row under both judges and their gap. Rows A and B: the
// closed form's error is the table's; the simulator's follows from the two
// step times (every metric but step_seconds is inversely proportional to the
// step: (1 + e_cost) x step_cost / step_sim - 1); the gap is their
// difference in points; the summary names the mean and the largest gap. The
// same with --judge sim: the same judges table.
TEST(Fidelity, JudgesPutsEachRowUnderBothJudges) {
  std::string tables[2];
  for (const char* first : {"cost", "sim"}) {
    const auto r = run_program({"python3", kScript, "--report", "--judges", "--judge", first,
                                "--pairs", "", "--brigade", BRIGADE_EXE, kRowA, kRowB});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    // The dated line, the table and its summary (9 lines), a blank line, the
    // judges' header and rule, two rows, a blank line, the summary.
    ASSERT_EQ(lines.size(), 16u) << r.out;
    EXPECT_EQ(lines[10], "| row | closed form | simulator | gap (points) |");
    std::string table;
    double largest = 0;
    const std::string rows[2] = {kRowA, kRowB};
    for (int i = 0; i < 2; ++i) {
      const std::vector<std::string> c = cells_of(lines[static_cast<size_t>(12 + i)]);
      ASSERT_EQ(c.size(), 4u) << lines[static_cast<size_t>(12 + i)];
      const double e_cost = std::stod(c[1]) / 100, e_sim = std::stod(c[2]) / 100;
      if (std::string(first) == "cost") {  // the table's own error
        EXPECT_EQ(cells_of(lines[static_cast<size_t>(4 + i)])[6], c[1]);
      }
      const auto sim = run_brigade({"simulate", rows[i], "--json", "--quiet"});
      ASSERT_EQ(sim.exit_code, 0) << sim.err;
      const double step_sim = nlohmann::json::parse(sim.out).at("step_seconds").get<double>();
      EXPECT_NEAR(e_sim, (1 + e_cost) * step_seconds(rows[i]) / step_sim - 1, 1e-4) << c[0];
      EXPECT_NEAR(std::stod(c[3]), 100 * (e_sim - e_cost), 0.011) << c[0];
      largest = std::max(largest, std::fabs(std::stod(c[3])));
      table += lines[static_cast<size_t>(12 + i)] + "\n";
    }
    EXPECT_EQ(lines[15].rfind("judges: mean |gap| ", 0), 0u) << lines[15];
    EXPECT_NE(lines[15].find(format("max %.2f", largest)), std::string::npos) << lines[15];
    tables[std::string(first) == "cost" ? 0 : 1] = table;
  }
  EXPECT_EQ(tables[0], tables[1]);
}

// The gaps are put against the closed form's parts: --judge sim is refused
// by name, exit 2, nothing printed.
TEST(Fidelity, GapsNeedTheClosedForm) {
  const auto r = run_program(
      {"python3", kScript, "--gaps", "--judge", "sim", "--brigade", BRIGADE_EXE, kRowA});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--gaps: found --judge sim; expected --judge cost"), std::string::npos)
      << r.err;
}

// --profile: a what-if under another hardware profile. The presets' own,
// written by `brigade profile`, gives the same row as without it, said to
// be a what-if; a profile that is not a file is refused, exit 2.
TEST(Fidelity, AProfileIsAWhatIfThatSaysSo) {
  const std::string path = ::testing::TempDir() + "brigade-fidelity-presets.yaml";
  ASSERT_EQ(run_brigade({"profile", "--out", path}).exit_code, 0);
  const auto plain = run_program({"python3", kScript, "--report", "--brigade", BRIGADE_EXE, kRowB});
  const auto r =
      run_program({"python3", kScript, "--profile", path, "--brigade", BRIGADE_EXE, kRowB});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> a = lines_of(plain.out), b = lines_of(r.out);
  ASSERT_EQ(b.size(), a.size() + 1) << r.out;
  EXPECT_NE(b[0].find("`scripts/fidelity --judge cost --profile " + path + "`."), std::string::npos)
      << b[0];
  EXPECT_EQ(b[1], "What-if: every row under the profile " + path +
                      ", not its preset's; not Brigade's prediction (docs/FIDELITY.md).");
  EXPECT_EQ(b[5], a[4]);  // the row, to the digit
  std::remove(path.c_str());
  const auto bad = run_program(
      {"python3", kScript, "--profile", "/nonexistent/p.yaml", "--brigade", BRIGADE_EXE, kRowB});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("--profile: found '/nonexistent/p.yaml', which is not a readable file"),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace brigade
