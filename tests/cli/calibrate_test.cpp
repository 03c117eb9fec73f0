// `brigade calibrate`, run as a user would (the built binary, BRIGADE_EXE).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <chrono>
#include <thread>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/profile.hpp"
#include "realexec/executor.hpp"

namespace {

struct Outcome {
  int code = -1;
  std::string out, err;
};

// Runs the brigade binary with `args`, capturing stdout and stderr.
Outcome brigade(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("brigade-calibrate-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "out").string(), err = (dir / "err").string();
  const std::string cmd = std::string(BRIGADE_EXE) + " " + args + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  Outcome r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove_all(dir);  // leave nothing behind in the temporary directory
  return r;
}

TEST(CalibrateCommand, QuickCpuRunWritesAProfileAndASummary) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("brigade-calibrate-" + std::to_string(::getpid()) + ".yaml");
  std::filesystem::remove(path);
  const Outcome r = brigade("calibrate --quick --devices 2 --out " + path.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Calibration: cpu backend, 2 x host-thread"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Collectives over 2 ranks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("allreduce"), std::string::npos);
  EXPECT_NE(r.err.find("calibrate [1/"), std::string::npos) << r.err;  // progress on stderr
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("machine_kind: cpu"), std::string::npos) << text.str();
  std::filesystem::remove(path);
}

TEST(CalibrateCommand, JsonHasFitsAndBandwidths) {
  const Outcome r = brigade("calibrate --quick --json");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* key :
       {"\"backend\": \"cpu\"", "\"collectives\"", "\"r_squared\"", "\"alg_bandwidth\"",
        "\"bus_bandwidth\"", "\"gemm\"", "\"launch_overhead_seconds\"", "\"gemm_yardstick\""})
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
}

TEST(CalibrateCommand, BadFlagsAreBadInput) {
  Outcome r = brigade("calibrate --backend opencl");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "brigade: error: --backend: found 'opencl'; expected one of cpu, cuda\n");
  r = brigade("calibrate --devices 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "brigade: error: --devices: found '0'; expected a whole number >= 1\n");
}

// No GPU is the machine's lack, not bad input: exit 1 (issue 20, item 6).
TEST(CalibrateCommand, CudaWithoutAGpuIsAnEnvironmentFailure) {
  std::string why;
  if (brigade::realexec::cuda_device_available(&why)) GTEST_SKIP() << "a GPU is present";
  const Outcome r = brigade("calibrate --backend cuda");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "brigade: error: --backend cuda: " + why + "\n");
}

}  // namespace

namespace {

// Issue 18 item 15: calibrate interrupted (Ctrl-C) wrote nothing. SIGINT now
// stops the measurements, writes a profile of what was measured (atomically:
// the file is whole or absent), says so and exits 130.
TEST(CalibrateCommand, SigintWritesWhatWasMeasured) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("brigade-calibrate-sigint-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string profile = (dir / "partial.yaml").string();
  const std::string err = (dir / "err").string();
  std::filesystem::remove(profile);
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    execl(BRIGADE_EXE, BRIGADE_EXE, "calibrate", "--quick", "--devices", "2", "--out",
          profile.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  // Once a few benchmarks have run (the GEMMs), interrupt.
  for (int i = 0; i < 600 && slurp(err).find("calibrate [6/") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << slurp(err);
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(err);
  const std::string e = slurp(err);
  EXPECT_NE(e.find("brigade: calibrate interrupted: wrote what was measured to " + profile), std::string::npos) << e;
  EXPECT_NE(e.find("not measured (the data sheet's values kept): "), std::string::npos) << e;
  auto loaded = brigade::load_profile(profile);
  ASSERT_TRUE(loaded.is_ok()) << loaded.message();
  EXPECT_EQ(loaded->machine_kind, "cpu");
  std::filesystem::remove_all(dir);
}

// --nccl-tests: no measurement, a fit of a published table. The H100 node's
// AllReduce of tests/data/nccl_tests (vpbenchmarking, 64 KiB .. 8 GiB) on
// dgx-h100: three protocol lines, every size within 10% (the fit's own
// table of sizes), and a profile that `brigade collective --profile`
// reads back with the fitted ring.
TEST(CalibrateCommand, NcclTestsFitsAPublishedTable) {
  const std::string table =
      std::string(BRIGADE_SOURCE_DIR) + "/tests/data/nccl_tests/h100_8gpu_allreduce_vpbenchmarking.txt";
  const auto dir = std::filesystem::temp_directory_path() /
                   ("brigade-calibrate-nccl-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string prof = (dir / "h100.yaml").string();
  Outcome r = brigade("calibrate --nccl-tests " + table + " --preset dgx-h100 --json --out " + prof);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["device_model"], "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(j["ranks"], 8);
  EXPECT_EQ(j["kind"], "allreduce");
  ASSERT_EQ(j["lines"].size(), 3u);
  EXPECT_EQ(j["lines"][0]["protocol"], "ll");
  EXPECT_EQ(j["lines"][2]["protocol"], "simple");
  EXPECT_GT(j["r_squared"].get<double>(), 0.99);
  ASSERT_EQ(j["sizes"].size(), 18u);
  for (const auto& s : j["sizes"]) EXPECT_LT(std::fabs(s["error"].get<double>()), 0.10) << s;
  // The measured sizes go into the profile as calibration samples (the app's
  // calibration view plots them), each with the fitted table's time.
  auto written = brigade::load_profile(prof);
  ASSERT_TRUE(written.is_ok()) << written.message();
  ASSERT_EQ(written->calibration.collectives.size(), 18u);
  EXPECT_EQ(written->calibration.collectives[0].ranks, 8);
  EXPECT_EQ(written->calibration.collectives[0].bytes, 65536);
  EXPECT_NEAR(written->calibration.collectives[0].seconds, 33.62e-6, 1e-12);
  EXPECT_NEAR(written->calibration.collectives[17].model_seconds,
              j["sizes"][17]["fitted_seconds"].get<double>(), 1e-12);
  // The written profile times 8 GiB as the fitted Simple line does.
  Outcome c = brigade("collective allreduce --model nccl --preset dgx-h100 --devices 8 "
                      "--algorithm ring --bytes 8GiB --json --profile " + prof);
  ASSERT_EQ(c.code, 0) << c.err;
  const double fitted = j["sizes"][17]["fitted_seconds"].get<double>();
  EXPECT_NEAR(nlohmann::json::parse(c.out)["seconds"].get<double>(), fitted, fitted * 1e-9);
  std::filesystem::remove_all(dir);
}

TEST(CalibrateCommand, NcclTestsBadInput) {
  const std::string table =
      std::string(BRIGADE_SOURCE_DIR) + "/tests/data/nccl_tests/a100_8gpu_allreduce_vtrain.txt";
  Outcome r = brigade("calibrate --nccl-tests " + table);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "brigade: error: --nccl-tests: found '" + table +
                       "'; expected it with --preset, the node the table was measured on "
                       "(dgx-a100, dgx-h100, ...)\n");
  r = brigade("calibrate --nccl-tests " + table + " --preset dgx-a100 --backend cpu");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "brigade: error: --backend: found 'cpu'; expected no measurement flag with "
            "--nccl-tests (it fits a table, it runs nothing)\n");
  r = brigade("calibrate --preset dgx-a100");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "brigade: error: --preset: found 'dgx-a100'; expected it only with --nccl-tests\n");
  r = brigade("calibrate --nccl-tests " + table + " --preset dgx-a100 --devices 9");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "brigade: error: --nccl-tests " + table +
                       ": found 9 ranks; expected 2 to 8, the GPUs of one dgx-a100 node the table "
                       "was measured on\n");
  r = brigade("calibrate --nccl-tests /nonexistent/t.txt --preset dgx-a100");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "/nonexistent/t.txt: error: found no readable file; expected nccl-tests' "
                   "output to fit\n");
}

}  // namespace
