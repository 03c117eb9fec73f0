// Measured collective times from nccl-tests' output (core/nccl_tests.hpp),
// what `brigade calibrate --nccl-tests` reads.
#include "core/nccl_tests.hpp"

#include <string>

#include <gtest/gtest.h>

namespace brigade {
namespace {

// all_reduce_perf's output as nccl-tests 2.x prints it (a banner, the
// column header, rows, the closing lines), trimmed to three sizes.
const char* kAllReducePerf =
    "# nThread 1 nGpus 8 minBytes 65536 maxBytes 262144 step: 2(factor) warmup iters: 5 iters: 20\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   1234 on    node0 device  0 [0x07] NVIDIA H100 80GB HBM3\n"
    "#\n"
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
    "       65536         16384     float     sum      -1    33.62    1.95    3.41      0    33.10    1.98    3.46      0\n"
    "      131072         32768     float     sum      -1    34.26    3.83    6.69      0    34.01    3.85    6.74      0\n"
    "      262144         65536     float     sum      -1    35.05    7.48   13.09      0    34.90    7.51   13.14      0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 7.73\n"
    "#\n";

TEST(NcclTestsImport, ReadsTheOutOfPlaceTimeOfEachSize) {
  auto p = parse_nccl_tests(kAllReducePerf, "ar.txt");
  ASSERT_TRUE(p.is_ok()) << p.message();
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ((*p)[0].bytes, 65536);
  EXPECT_DOUBLE_EQ((*p)[0].seconds, 33.62e-6);
  EXPECT_EQ((*p)[2].bytes, 262144);
  EXPECT_DOUBLE_EQ((*p)[2].seconds, 35.05e-6);
}

// all_gather_perf and broadcast_perf print "none" and a root; older
// nccl-tests print neither; Brigade's own tables have four columns.
TEST(NcclTestsImport, ReadsTheOtherLayouts) {
  auto ag = parse_nccl_tests("  1048576  32768  float  none  -1  40.5  25.9  22.6  0  40.1  26.1  22.9  N/A\n",
                             "ag.txt");
  ASSERT_TRUE(ag.is_ok()) << ag.message();
  EXPECT_DOUBLE_EQ(ag->at(0).seconds, 40.5e-6);
  auto old = parse_nccl_tests("  1048576  262144  float  55.0  19.1  33.4  0  54.0  19.4  33.9  0\n",
                              "old.txt");
  ASSERT_TRUE(old.is_ok()) << old.message();
  EXPECT_DOUBLE_EQ(old->at(0).seconds, 55.0e-6);
  auto zero = parse_nccl_tests("  0  0  float  sum  -1  30.1  0.00  0.00  0  29.9  0.00  0.00  0\n"
                               "  8  2  float  sum  -1  31.5  0.00  0.00  0  31.0  0.00  0.00  0\n",
                               "zero.txt");
  ASSERT_TRUE(zero.is_ok()) << zero.message();
  ASSERT_EQ(zero->size(), 1u);  // the size-0 row carries no bytes: skipped
  EXPECT_EQ(zero->at(0).bytes, 8);
  auto four = parse_nccl_tests("# size_bytes time_us algbw_GBps busbw_GBps\n1048576 92.79 11.30 19.78\n",
                               "four.txt");
  ASSERT_TRUE(four.is_ok()) << four.message();
  EXPECT_DOUBLE_EQ(four->at(0).seconds, 92.79e-6);
}

TEST(NcclTestsImport, BadRowsNameTheirLineAndColumn) {
  auto bad_time = parse_nccl_tests("# header\n  65536  16384  float  sum  -1  fast  1.95  3.41  0\n",
                                   "x.txt");
  ASSERT_FALSE(bad_time.is_ok());
  EXPECT_EQ(bad_time.message(),
            "x.txt:2:33: error: found 'fast'; expected the out-of-place time in microseconds, > 0");
  auto twice = parse_nccl_tests("1024 10 1 1\n2048 11 1 1\n1024 12 1 1\n", "y.txt");
  ASSERT_FALSE(twice.is_ok());
  EXPECT_EQ(twice.message(),
            "y.txt:3:1: error: found '1024'; expected each size once (the size 1024 appeared "
            "above)");
  auto neither = parse_nccl_tests("1024 ten\n", "z.txt");
  ASSERT_FALSE(neither.is_ok());
  EXPECT_NE(neither.message().find("z.txt:1:6: error: found 'ten'; expected an nccl-tests row"),
            std::string::npos)
      << neither.message();
  auto empty = parse_nccl_tests("# nothing measured\n", "e.txt");
  ASSERT_FALSE(empty.is_ok());
  EXPECT_EQ(empty.message().rfind("e.txt: error: found no row of sizes and times", 0), 0u);
  auto missing = read_nccl_tests("/nonexistent/brigade-nccl.txt");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.message(),
            "/nonexistent/brigade-nccl.txt: error: found no readable file; expected nccl-tests' "
            "output to fit");
}

}  // namespace
}  // namespace brigade
