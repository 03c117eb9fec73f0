// The CUDA backend's module and its loader (realexec/cuda_module.hpp): the
// programs do not map cuBLAS or NCCL until the backend is asked for, and a
// module that is missing, not a library, or not Brigade's is refused with a
// message naming the file. "Not yet loaded" is checked in a fresh process
// of its own (a threadsafe death test re-runs this binary for it): run
// whole, an earlier test of the binary may already have loaded the backend.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "realexec/cuda_module.hpp"
#include "realexec/executor.hpp"

namespace brigade::realexec {
namespace {

std::string mapped_files() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream ss;
  ss << maps.rdbuf();
  return ss.str();
}

// The checks, in the fresh process; exits 0 when they all hold, else 1
// with what failed on stderr.
[[noreturn]] void check_mapped_only_when_asked() {
  int failed = 0;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "failed: %s\n", what.c_str());
      ++failed;
    }
  };
  const std::string before = mapped_files();
  expect(!before.empty(), "/proc/self/maps was read");
  expect(before.find("libcublas") == std::string::npos, "no libcublas before");
  expect(before.find("libnccl") == std::string::npos, "no libnccl before");
  expect(before.find("libbrigade_cuda") == std::string::npos, "no libbrigade_cuda before");
  std::string why;
  cuda_device_count(&why);
#if defined(BRIGADE_HAVE_CUDA)
  const std::string after = mapped_files();
  expect(after.find("libbrigade_cuda.so") != std::string::npos, "libbrigade_cuda.so after");
  expect(after.find("libcublas") != std::string::npos, "libcublas after");
  expect(after.find("libnccl") != std::string::npos, "libnccl after");
#else
  expect(why.rfind("the CUDA backend was not built", 0) == 0, "why: " + why);
#endif
  std::fflush(stderr);
  std::_Exit(failed == 0 ? 0 : 1);
}

TEST(CudaModule, NoCudaLibraryIsMappedUntilTheBackendIsAskedFor) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(check_mapped_only_when_asked(), ::testing::ExitedWithCode(0), "");
}

TEST(CudaModule, NoCandidateThatExistsListsThePlacesLookedAt) {
  const CudaModule m = load_cuda_module({"/nonexistent/a/libbrigade_cuda.so", "/nonexistent/b"});
  EXPECT_EQ(m.api, nullptr);
  EXPECT_EQ(m.why,
            "the CUDA backend's module libbrigade_cuda.so was not found (looked at "
            "/nonexistent/a/libbrigade_cuda.so, /nonexistent/b); expected it beside the brigade "
            "executable or named by BRIGADE_CUDA_MODULE");
}

TEST(CudaModule, AFileThatIsNotALibraryIsRefusedNamingIt) {
  const std::string path = std::string(BRIGADE_SOURCE_DIR) + "/README.md";
  const CudaModule m = load_cuda_module({"/nonexistent/libbrigade_cuda.so", path});
  EXPECT_EQ(m.api, nullptr);
  EXPECT_EQ(m.path, path);
  EXPECT_EQ(m.why.rfind("the CUDA backend's module " + path + " could not be loaded: ", 0), 0u)
      << m.why;
}

TEST(CudaModule, ALibraryThatIsNotBrigadesModuleIsRefused) {
  // This test's own executable is an ELF file dlopen cannot load (a PIE
  // executable) or, where it can, one without the module's entry point:
  // either way it is refused with its path.
  std::string self(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  ASSERT_GT(n, 0);
  self.resize(static_cast<size_t>(n));
  const CudaModule m = load_cuda_module({self});
  EXPECT_EQ(m.api, nullptr);
  EXPECT_NE(m.why.find(self), std::string::npos) << m.why;
}

TEST(CudaModule, ATableFromAnotherBuildIsRefusedSayingWhatDiffers) {
  CudaModuleApi other;
  other.device_available = [](std::string*) { return false; };
  other.device_count = [](std::string*) { return 0; };
  other.device_name = [](int) -> Result<std::string> { return std::string("x"); };
  other.make_executor = [](const CudaOptions&) -> Result<std::unique_ptr<RealExecutor>> {
    return Status::error("none", ErrorKind::kBadInput);
  };
  std::string why;
  EXPECT_TRUE(cuda_module_matches(other, &why)) << why;
  other.sizeof_trace += 8;
  EXPECT_FALSE(cuda_module_matches(other, &why));
  EXPECT_EQ(why, "sizeof(Trace) is " + std::to_string(sizeof(Trace) + 8) +
                     " in the module and " + std::to_string(sizeof(Trace)) + " in this program");
  other.abi = kCudaModuleAbi + 1;
  EXPECT_FALSE(cuda_module_matches(other, &why));
  EXPECT_EQ(why.rfind("the module ABI is ", 0), 0u) << why;
  CudaModuleApi empty;
  EXPECT_FALSE(cuda_module_matches(empty, &why));
  EXPECT_EQ(why, "the module's table has an empty entry");
}

#if defined(BRIGADE_HAVE_CUDA)
TEST(CudaModule, TheBuildsModuleLoadsAndMatches) {
  const CudaModule m = load_cuda_module(cuda_module_candidates());
  ASSERT_NE(m.api, nullptr) << m.why;
  EXPECT_NE(m.path.find("libbrigade_cuda.so"), std::string::npos);
  std::string why;
  EXPECT_TRUE(cuda_module_matches(*m.api, &why)) << why;
}
#endif

}  // namespace
}  // namespace brigade::realexec
