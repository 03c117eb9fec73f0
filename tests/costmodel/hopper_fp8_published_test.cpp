// The Hopper presets' FP8 GEMM curves against the cuBLASLt measurements they
// come from (issue 19 item 1, freeze 2): Azure's published FP8 (E4M3) GEMM
// rates on one H100 80GB HBM3 and one H200 141GB
// (tests/data/hopper_fp8/azure_cublaslt_fp8.txt says which files and how).
// The square rows are the curves' points (net of the launch gap Brigade
// adds to every kernel, as `calibrate` takes a kernel's own part), so
// Brigade's time for them is the measured one, within 0.1%; the 6144 x
// 12288 x 12288 row, not a point, is
// held within 5%; the skinny rows (k = 1024 with n = 2145; 802,816 x 192 x
// 768) are printed, not held: a curve by FLOP count does not know their
// shapes.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "costmodel/compute.hpp"
#include "tests/costmodel/published_kernels.hpp"

namespace brigade::cost {
namespace {

struct Row {
  std::string gpu;
  std::int64_t m = 0, n = 0, k = 0;
  double tflops = 0;
  double seconds() const { return static_cast<double>(m) * n * (2.0 * k - 1) / (tflops * 1e12); }
};

std::vector<Row> read_rows() {
  std::vector<Row> rows;
  for (std::istringstream& ss : testing::data_rows("hopper_fp8/azure_cublaslt_fp8.txt")) {
    Row r;
    ss >> r.gpu >> r.m >> r.n >> r.k >> r.tflops;
    rows.push_back(r);
  }
  return rows;
}

TEST(HopperFp8Published, CurvesHoldTheMeasuredGemms) {
  const std::vector<Row> rows = read_rows();
  ASSERT_EQ(rows.size(), 18u);
  std::printf("| GPU | m | n | k | measured TFLOP/s | Brigade TFLOP/s | Brigade / measured time |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  int points = 0, held = 0;
  for (const Row& r : rows) {
    const testing::PresetGpu g = testing::preset_gpu(r.gpu == "h100" ? "dgx-h100" : "dgx-h200");
    const double b = gemm_seconds(g.device, g.profile, r.m, r.n, r.k, DType::kFP8);
    const double ratio = b / r.seconds();
    std::printf("| %s | %lld | %lld | %lld | %.1f | %.1f | %.3f |\n", r.gpu.c_str(),
                static_cast<long long>(r.m), static_cast<long long>(r.n),
                static_cast<long long>(r.k), r.tflops, 2.0 * r.m * r.n * r.k / b / 1e12, ratio);
    if (r.m == r.n && r.n == r.k) {
      ++points;
      EXPECT_NEAR(ratio, 1.0, 0.001) << r.gpu << " " << r.m;
    } else if (r.m == 6144) {
      ++held;
      EXPECT_NEAR(ratio, 1.0, 0.05) << r.gpu << " 6144 x 12288 x 12288";
    }
  }
  EXPECT_EQ(points, 12);
  EXPECT_EQ(held, 2);
}

// INT8 runs on the same tensor cores at the same dense rate (1979 TOPS on
// the data sheet) and takes the FP8 curve; no INT8 measurement was found.
TEST(HopperFp8Published, Int8TakesTheFp8Curve) {
  for (const char* preset : {"dgx-h100", "dgx-h200"}) {
    const testing::PresetGpu g = testing::preset_gpu(preset);
    EXPECT_DOUBLE_EQ(gemm_seconds(g.device, g.profile, 4096, 4096, 4096, DType::kI8),
                     gemm_seconds(g.device, g.profile, 4096, 4096, 4096, DType::kFP8))
        << preset;
  }
}

}  // namespace
}  // namespace brigade::cost
