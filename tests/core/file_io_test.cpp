// core/file_io: atomic output files (temporary + rename, nothing left on failure).
#include "core/file_io.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace brigade {
namespace {

namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("brigade_file_io_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
  }
  int entries() const {
    return static_cast<int>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

TEST_F(AtomicWrite, WritesAndReplacesLeavingNoTemporary) {
  const std::string p = (dir_ / "out.txt").string();
  ASSERT_TRUE(write_file_atomically(p, "first\n").is_ok());
  EXPECT_EQ(slurp(p), "first\n");
  ASSERT_TRUE(write_file_atomically(p, std::string_view("second")).is_ok());
  EXPECT_EQ(slurp(p), "second");
  EXPECT_EQ(entries(), 1);
}

TEST_F(AtomicWrite, AMissingFolderIsAnErrorAndNothingAppears) {
  const std::string p = (dir_ / "missing" / "out.txt").string();
  const Status st = write_file_atomically(p, "x");
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.kind(), ErrorKind::kRuntime);
  EXPECT_EQ(st.message(), p + ": error: found an unwritable file (No such file or directory); "
                              "expected a writable path");
  EXPECT_FALSE(fs::exists(p));
}

TEST_F(AtomicWrite, AFailingWriterKeepsTheOldFileAndItsOwnMessage) {
  const std::string p = (dir_ / "out.txt").string();
  ASSERT_TRUE(write_file_atomically(p, "old").is_ok());
  const Status st = write_file_atomically(p, [](std::ostream& out) {
    out << "half of it";
    return Status::error("the writer gave up", ErrorKind::kRuntime);
  });
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), "the writer gave up");
  EXPECT_EQ(slurp(p), "old");
  EXPECT_EQ(entries(), 1);
}

}  // namespace
}  // namespace brigade
