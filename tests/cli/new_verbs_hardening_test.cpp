// Hardening (issue 20) re-audited over the verbs added since the first
// audit, the cases that need more than one command line (those that do are
// in hardening_test.cpp's FlagError table): search --emit of a scenario
// whose path has a line break, compare of a FIFO. Each test failed before
// its fix (the defect is named beside it).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.hpp"
#include "tests/core/fifo_watch.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

const std::string kScenarios = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/";

// search --emit wrote "# Written by `brigade search PATH`" with the path as
// it is: a scenario named "x<LF>name: evil<LF>y.yaml" put "name: evil" into
// the emitted file as a key, which then did not read back ("found key
// 'name' a second time"). The path is escaped; the file reads back.
TEST(SearchVerb, AScenarioPathWithALineBreakStaysInTheComment) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("brigade-emit-newline-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path scenario = dir / "x\nname: evil\ny.yaml";
  std::filesystem::copy_file(kScenarios + "llm_13b_128gpu.yaml", scenario);
  const std::string emitted = (dir / "w.yaml").string();
  auto r = run_brigade({"search", scenario.string(), "--quiet", "--top", "1", "--emit", emitted});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(emitted);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(
      first.rfind(
          "# Written by `brigade search " + (dir / "x\\nname: evil\\ny.yaml").string() + "`: ", 0),
      0u)
      << first;
  auto back = run_brigade({"cost", emitted});
  EXPECT_EQ(back.exit_code, 0) << back.err;
  std::filesystem::remove_all(dir);
}

// `compare` sniffed its inputs with std::ifstream, which waits for ever on
// a FIFO that nobody writes. Now the FIFO is refused at once
// (tests/core/fifo_watch.hpp: a regression fails rather than hangs).
TEST(CompareVerb, AFifoWithNoWriterIsRefusedAtOnce) {
  const std::string fifo = (std::filesystem::temp_directory_path() /
                            ("brigade-compare-fifo-" + std::to_string(getpid())))
                               .string();
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  testing::FifoWatch watch(fifo);
  auto r = run_brigade({"compare", kScenarios + "pmap_linear.yaml", fifo});
  const bool someone_waited = watch.someone_waited();
  std::remove(fifo.c_str());
  EXPECT_FALSE(someone_waited) << "brigade waited for a writer on the FIFO";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, fifo +
                       ": error: found a FIFO; expected a readable scenario file (.yaml, "
                       ".yml or .json)\n");
}

}  // namespace
}  // namespace brigade
