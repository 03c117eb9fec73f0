// Output and path flags (hardening issue, item 1): an output flag never
// replaces a device, a FIFO or a link, an empty path is refused, and the
// output is checked before the work, not after.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cli_test_util.hpp"

namespace brigade {
namespace {

namespace fs = std::filesystem;
using testing::run_brigade;

std::string scenario(const char* name) {
  return std::string(BRIGADE_SOURCE_DIR) + "/scenarios/" + name;
}

class OutputFlags : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("brigade-output-flags-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  int entries() const {
    return static_cast<int>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

TEST_F(OutputFlags, AnEmptyTraceOrProfileIsRefused) {
  auto t = run_brigade({"simulate", scenario("pmap_linear.yaml"), "--trace", ""});
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_EQ(t.err, "brigade: error: --trace: found ''; expected a file path\n");
  for (const char* verb : {"cost", "simulate", "sweep", "execute"}) {
    auto p = run_brigade({verb, scenario("pmap_linear.yaml"), "--profile", ""});
    EXPECT_EQ(p.exit_code, 2) << verb;
    EXPECT_EQ(p.err, "brigade: error: --profile: found ''; expected a file path\n") << verb;
  }
  auto c = run_brigade({"calibrate", "--quick", "--out", ""});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_EQ(c.err, "brigade: error: --out: found ''; expected a file path\n");
}

TEST_F(OutputFlags, ASymbolicLinkIsRefusedBeforeTheRunAndItsTargetKept) {
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "keep me";
  const fs::path link = dir_ / "t.json";
  fs::create_symlink(victim, link);
  auto r = run_brigade({"simulate", scenario("pmap_linear.yaml"), "--trace", link.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brigade: error: --trace: found a symbolic link at '" + link.string() +
                       "'; expected a regular file or a new file (an output replaces its file "
                       "and never writes through a link, except to a device or a FIFO)\n");
  EXPECT_EQ(r.out, "");  // refused at parse time: nothing was simulated
  EXPECT_TRUE(fs::is_symlink(link));
  std::ifstream f(victim);
  std::stringstream s;
  s << f.rdbuf();
  EXPECT_EQ(s.str(), "keep me");
}

TEST_F(OutputFlags, AMissingFolderIsReportedBeforeTheWork) {
  const std::string folder = (dir_ / "no").string();
  // calibrate would take about a minute; the refusal comes at once.
  auto r = run_brigade({"calibrate", "--out", folder + "/p.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brigade: error: --out: found no folder '" + folder +
                       "'; expected an existing folder for the file\n");
  EXPECT_EQ(entries(), 0);
}

TEST_F(OutputFlags, ATraceToAFifoOrTheNullDeviceIsWrittenInPlace) {
  auto n = run_brigade({"simulate", scenario("pmap_linear.yaml"), "--trace", "/dev/null"});
  EXPECT_EQ(n.exit_code, 0) << n.err;
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  const fs::path fifo = dir_ / "trace.pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reading end first, non-blocking: a regression (the FIFO replaced)
  // then fails instead of hanging. It reads while brigade writes, and once
  // more after brigade is done.
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  std::string got;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    char buf[1 << 16];
    for (bool last = false; !last;) {
      last = done.load();
      pollfd pfd{rd, POLLIN, 0};
      ::poll(&pfd, 1, 50);
      for (ssize_t k; (k = ::read(rd, buf, sizeof buf)) > 0;)
        got.append(buf, static_cast<size_t>(k));
    }
  });
  auto r = run_brigade({"simulate", scenario("pmap_linear.yaml"), "--trace", fifo.string()});
  done = true;
  reader.join();
  ::close(rd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(got.find("\"traceEvents\""), std::string::npos);
  EXPECT_EQ(entries(), 1);  // the FIFO alone: no temporary beside it
}

}  // namespace
}  // namespace brigade
