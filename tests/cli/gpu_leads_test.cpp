// scripts/gpu-leads (issue 19): brigade-fp8-probe's measured keys turned
// into the fidelity table's what-ifs. Runs the script on probe outputs
// written here (no GPU: the lines the probe prints, realexec/probes/
// fp8_accum_probe.cu) against one published row, and checks the profile it
// writes and its table against scripts/fidelity run on that profile.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"
#include "markdown_test_util.hpp"

namespace brigade {
namespace {

using testing::cells_of;
using testing::lines_of;
using testing::run_program;

const std::string kSource = BRIGADE_SOURCE_DIR;
const std::string kScript = kSource + "/scripts/gpu-leads";
const std::string kFidelity = kSource + "/scripts/fidelity";
// NeMo 24.12 performance summary, Llama 2 7B on 8 H100 (FP8: both keys act).
const std::string kRow = kSource + "/scenarios/published/nemo2412_05_llama2_7b_8gpu.yaml";

std::string write(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string probe(const std::string& gpu, const std::string& split, const std::string& fp8,
                  const std::string& bf16) {
  std::string t =
      "# brigade-fp8-probe: cuBLASLt FP8 GEMMs, CUBLASLT_MATMUL_DESC_FAST_ACCUM 1 and 0\n";
  t += "# GPU " + gpu + ", CUDA runtime 13000, cuBLASLt 130000\n";
  t += "   m       n       k  ...\n";
  if (!split.empty())
    t +=
        "fp8_split_accumulator_efficiency: " + split + " (the median of split/fast over 9 GEMMs)\n";
  if (!fp8.empty()) t += "gemm_accumulate_exposed fp8: " + fp8 + " (medians of 6)\n";
  if (!bf16.empty()) t += "gemm_accumulate_exposed bf16: " + bf16 + " (medians of 6)\n";
  return t;
}

// The lines of a profile file from `- model: NAME` to the next entry.
std::vector<std::string> entry(const std::string& path, const std::string& model) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  bool in_entry = false;
  while (std::getline(in, line)) {
    if (line.find("- model: ") != std::string::npos)
      in_entry = line.find(model) != std::string::npos;
    if (in_entry) out.push_back(line);
  }
  return out;
}

bool has(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& l : lines)
    if (l == text) return true;
  return false;
}

// An H200's probe: both keys under both Hopper entries (none under the
// A100's), FP8 operands into a BF16 buffer taken; the table's rows are the
// presets, each key alone and both, and "both" is scripts/fidelity's own
// figure on the profile the script keeps.
TEST(GpuLeads, AHopperProbeBecomesFourWhatIfs) {
  const std::string in = write("brigade-leads-h200.txt", probe("NVIDIA H200 (sm_90)", "0.9100",
                                                               "0.450 into BF16, 0.600 into FP32",
                                                               "0.300 into BF16, 0.500 into FP32"));
  const std::string out = ::testing::TempDir() + "brigade-leads-h200.yaml";
  const auto r = run_program(
      {"python3", kScript, in, "--brigade", BRIGADE_EXE, "--rows", kRow, "--profile-out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 12u) << r.out;
  EXPECT_EQ(lines[0], "probe: " + in +
                          ": NVIDIA H200 (sm_90), under the presets' Hopper entries (NVIDIA "
                          "H100-SXM5-80GB, NVIDIA H200)");
  EXPECT_EQ(lines[1], "  fp8_split_accumulator_efficiency: 0.91");
  EXPECT_EQ(lines[2], "  gemm_accumulate_exposed: 0.45");
  EXPECT_NE(lines[3].find("fp8 operands into a BF16 buffer 0.450 (taken), into FP32 0.600"),
            std::string::npos)
      << lines[3];
  for (const char* model : {"NVIDIA H100-SXM5-80GB", "NVIDIA H200"}) {
    const std::vector<std::string> e = entry(out, model);
    EXPECT_TRUE(has(e, "    fp8_split_accumulator_efficiency: 0.91")) << model;
    EXPECT_TRUE(has(e, "    gemm_accumulate_exposed: 0.45")) << model;
  }
  const std::vector<std::string> a100 = entry(out, "NVIDIA A100-SXM4-80GB");
  ASSERT_FALSE(a100.empty());
  for (const std::string& l : a100) EXPECT_EQ(l.find("gemm_accumulate_exposed"), std::string::npos);

  // The table: header, rule, four what-ifs.
  size_t at = 0;
  while (at < lines.size() && lines[at].rfind("| what-if", 0) != 0) ++at;
  ASSERT_LT(at + 5, lines.size()) << r.out;
  const std::vector<std::string> presets = cells_of(lines[at + 2]), split = cells_of(lines[at + 3]),
                                 exposed = cells_of(lines[at + 4]), both = cells_of(lines[at + 5]);
  EXPECT_EQ(presets[0], "the presets");
  EXPECT_EQ(split[0], "fp8_split_accumulator_efficiency alone");
  EXPECT_EQ(exposed[0], "gemm_accumulate_exposed alone");
  EXPECT_EQ(both[0], "both");
  // scripts/fidelity on the kept profile: its summary line's mean is the
  // "both" row's.
  const auto f = run_program(
      {"python3", kFidelity, "--report", "--profile", out, "--brigade", BRIGADE_EXE, kRow});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const size_t m = f.out.find("mean |error|: ");
  ASSERT_NE(m, std::string::npos) << f.out;
  const std::string mean = f.out.substr(m + 14, f.out.find(';', m) - m - 14);
  EXPECT_EQ(both[1], mean);
  // Each key makes the FP8 row slower, so its (optimistic) error smaller.
  EXPECT_LT(std::stod(split[1]), std::stod(presets[1]));
  EXPECT_LT(std::stod(exposed[1]), std::stod(presets[1]));
  EXPECT_LT(std::stod(both[1]), std::stod(split[1]));
  std::remove(out.c_str());
  std::remove(in.c_str());
}

// Out of the keys' ranges: a split mode measured faster than the fast one
// is taken at 1, an addition measured cheaper than none at 0, and the output
// says so; an A100's probe (no FP8) sets the BF16 figure under both A100
// entries.
TEST(GpuLeads, OutOfRangeValuesAreTakenAtTheRangesEndAndSaid) {
  const std::string in = write(
      "brigade-leads-range.txt",
      probe("NVIDIA H100 80GB HBM3 (sm_90)", "1.0300", "-0.020 into BF16, 0.100 into FP32", ""));
  const auto r = run_program({"python3", kScript, in, "--brigade", BRIGADE_EXE, "--rows", kRow});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  fp8_split_accumulator_efficiency: 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fp8_split_accumulator_efficiency measured 1.0300, taken as 1.0000 (the "
                       "key's range is (0, 1])"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("gemm_accumulate_exposed measured -0.020, taken as 0.000 (the key's "
                       "range is 0 to 100)"),
            std::string::npos)
      << r.out;
  std::remove(in.c_str());

  const std::string ampere =
      write("brigade-leads-a100.txt",
            "# brigade-fp8-probe: cuBLASLt FP8 GEMMs, CUBLASLT_MATMUL_DESC_FAST_ACCUM 1 and 0\n"
            "# GPU NVIDIA A100-SXM4-80GB (sm_80), CUDA runtime 13000, cuBLASLt 130000\n"
            "# no FP8 tensor cores (sm_80; FP8 needs 8.9): the split table is skipped\n"
            "gemm_accumulate_exposed bf16: 0.700 into BF16, 0.900 into FP32 (medians of 6)\n");
  const std::string out = ::testing::TempDir() + "brigade-leads-a100.yaml";
  const auto a = run_program(
      {"python3", kScript, ampere, "--brigade", BRIGADE_EXE, "--rows", kRow, "--profile-out", out});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("under the presets' Ampere entries (NVIDIA A100-SXM4-80GB, NVIDIA "
                       "A100-PCIE-80GB)"),
            std::string::npos)
      << a.out;
  for (const char* model : {"NVIDIA A100-SXM4-80GB", "NVIDIA A100-PCIE-80GB"})
    EXPECT_TRUE(has(entry(out, model), "    gemm_accumulate_exposed: 0.7")) << model;
  for (const std::string& l : entry(out, "NVIDIA H100-SXM5-80GB"))
    EXPECT_EQ(l.find("gemm_accumulate_exposed"), std::string::npos);
  std::remove(out.c_str());
  std::remove(ampere.c_str());
}

// Bad input names the file and what it expected, exit 2, nothing on stdout.
TEST(GpuLeads, BadInputIsRefusedNamingTheFile) {
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"fp8_split_accumulator_efficiency: 0.9\n",
       "error: found no '# GPU NAME (sm_XY)' line; expected brigade-fp8-probe's output"},
      {"# GPU NVIDIA H100 80GB HBM3 (sm_90), CUDA runtime 13000\n",
       "error: found neither 'fp8_split_accumulator_efficiency: X' nor"},
      {"# GPU Tesla V100-SXM2-32GB (sm_70)\ngemm_accumulate_exposed bf16: 0.5 into BF16, 0.6 "
       "into FP32 (medians of 6)\n",
       "error: found a GPU no preset models; expected an A100, H100 or H200"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string in = write("brigade-leads-bad.txt", c.text);
    const auto r = run_program({"python3", kScript, in, "--brigade", BRIGADE_EXE, "--rows", kRow});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    std::remove(in.c_str());
  }
  const auto none =
      run_program({"python3", kScript, "/nonexistent/fp8-accum.txt", "--brigade", BRIGADE_EXE});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("/nonexistent/fp8-accum.txt: error: found no readable file"),
            std::string::npos)
      << none.err;
}

// --profile-out as every output of Brigade's (docs/RELIABILITY.md, "Output
// files"): a symbolic link is refused before the work and its target kept,
// a folder that does not exist refused before the work, the null device
// written in place.
TEST(GpuLeads, TheProfileOutputIsWrittenAsEveryOutputIs) {
  const std::string in =
      write("brigade-leads-out.txt", probe("NVIDIA H200 (sm_90)", "0.9000", "", ""));
  const std::string target = write("brigade-leads-target.txt", "keep me\n");
  const std::string link = ::testing::TempDir() + "brigade-leads-link.yaml";
  std::remove(link.c_str());
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  const auto r = run_program(
      {"python3", kScript, in, "--brigade", BRIGADE_EXE, "--rows", kRow, "--profile-out", link});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--profile-out: error: found '" + link + "', a symbolic link"),
            std::string::npos)
      << r.err;
  std::ifstream kept(target);
  std::string line;
  std::getline(kept, line);
  EXPECT_EQ(line, "keep me");
  std::remove(link.c_str());
  std::remove(target.c_str());

  const auto missing = run_program({"python3", kScript, in, "--brigade", BRIGADE_EXE, "--rows",
                                    kRow, "--profile-out", "/nonexistent/leads.yaml"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("--profile-out: error: found '/nonexistent/leads.yaml' in a folder "
                             "that does not exist or cannot be written"),
            std::string::npos)
      << missing.err;

  const auto null = run_program({"python3", kScript, in, "--brigade", BRIGADE_EXE, "--rows", kRow,
                                 "--profile-out", "/dev/null"});
  EXPECT_EQ(null.exit_code, 0) << null.err;
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  std::remove(in.c_str());
}

// The device tool's output folder: scripts/gpu-check.sh packs the probe's
// output into logs.tgz beside summary.txt; either is read.
TEST(GpuLeads, TheDeviceToolsFolderIsRead) {
  const std::string dir = ::testing::TempDir() + "brigade-leads-out";
  ASSERT_EQ(run_program({"mkdir", "-p", dir}).exit_code, 0);
  std::ofstream(dir + "/fp8-accum.txt")
      << probe("NVIDIA H200 (sm_90)", "0.9500", "0.200 into BF16, 0.300 into FP32", "");
  ASSERT_EQ(run_program({"tar", "-C", dir, "-czf", dir + "/logs.tgz", "fp8-accum.txt"}).exit_code,
            0);
  std::remove((dir + "/fp8-accum.txt").c_str());
  const auto r = run_program({"python3", kScript, dir, "--brigade", BRIGADE_EXE, "--rows", kRow});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("probe: " + dir + "/logs.tgz:fp8-accum.txt: NVIDIA H200 (sm_90)", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("  fp8_split_accumulator_efficiency: 0.95\n"), std::string::npos);
  std::remove((dir + "/logs.tgz").c_str());
  const auto empty = run_program({"python3", kScript, dir, "--brigade", BRIGADE_EXE});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find(dir + ": error: found no summary.txt, fp8-accum.txt or logs.tgz"),
            std::string::npos)
      << empty.err;
  run_program({"rmdir", dir});
}

}  // namespace
}  // namespace brigade
