// Every input a fuzz target ever crashed on (tests/data/fuzz/TARGET/) and
// the seed corpora (the bundled scenarios and profiles), run through the
// fuzz bodies in the normal suite: a crash found once stays fixed. A body
// aborts on a broken promise (tests/fuzz/fuzz_bodies.hpp), failing the test.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fuzz/fuzz_bodies.hpp"

namespace brigade::fuzz {
namespace {

namespace fs = std::filesystem;

struct Input {
  std::string target;  // scenario, profile, trace, units, hf_config, nccl_tests, kernel_summary
  fs::path path;
};

std::vector<Input> inputs() {
  const fs::path root(BRIGADE_SOURCE_DIR);
  std::vector<Input> out;
  auto add_dir = [&](const std::string& target, const fs::path& dir, bool recursive,
                     const std::vector<std::string>& exts) {
    if (!fs::is_directory(dir)) return;
    auto add = [&](const fs::directory_entry& e) {
      if (!e.is_regular_file()) return;
      const std::string ext = e.path().extension().string();
      if (!exts.empty() && std::find(exts.begin(), exts.end(), ext) == exts.end()) return;
      out.push_back({target, e.path()});
    };
    if (recursive)
      for (const auto& e : fs::recursive_directory_iterator(dir)) add(e);
    else
      for (const auto& e : fs::directory_iterator(dir)) add(e);
  };
  for (const char* t :
       {"scenario", "profile", "trace", "units", "hf_config", "nccl_tests", "kernel_summary"})
    add_dir(t, root / "tests/data/fuzz" / t, false, {});
  add_dir("scenario", root / "scenarios", true, {".yaml", ".yml", ".json"});
  add_dir("profile", root / "scenarios/profiles", false, {".yaml"});
  add_dir("units", root / "tests/fuzz/seeds/units", false, {});
  add_dir("trace", root / "tests/fuzz/seeds/trace", false, {});
  add_dir("hf_config", root / "scenarios/models", false, {".json"});
  add_dir("nccl_tests", root / "tests/data/nccl_tests", false, {".txt"});
  add_dir("kernel_summary", root / "tests/data/kernels", false, {".csv", ".json"});
  std::sort(out.begin(), out.end(),
            [](const Input& a, const Input& b) { return a.path < b.path; });
  return out;
}

class FuzzRegression : public testing::TestWithParam<Input> {};

TEST_P(FuzzRegression, TheBodyKeepsItsPromises) {
  const Input& in = GetParam();
  std::ifstream f(in.path, std::ios::binary);
  ASSERT_TRUE(f) << in.path;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string data = ss.str();
  if (in.target == "scenario") scenario_one(data);
  if (in.target == "profile") profile_one(data);
  if (in.target == "trace") trace_one(data);
  if (in.target == "units") units_one(data);
  if (in.target == "hf_config") hf_config_one(data);
  if (in.target == "nccl_tests") nccl_tests_one(data);
  if (in.target == "kernel_summary") kernel_summary_one(data);
}

std::string test_name(const testing::TestParamInfo<Input>& info) {
  // The file's path below the repository, as letters, digits and '_'.
  std::string rel = fs::path(info.param.path).lexically_relative(BRIGADE_SOURCE_DIR).string();
  std::string name = info.param.target + "_";
  for (char c : rel) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Inputs, FuzzRegression, testing::ValuesIn(inputs()), test_name);

// The corpus must not be empty: a moved folder would make the test above vacuous.
TEST(FuzzRegressionCorpus, EveryTargetHasInputs) {
  for (const char* t :
       {"scenario", "profile", "trace", "units", "hf_config", "nccl_tests", "kernel_summary"}) {
    const auto all = inputs();
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const Input& i) { return i.target == t; }))
        << t;
  }
}

}  // namespace
}  // namespace brigade::fuzz
