// calibrate's wave-model fit (realexec/calibrate.hpp, fit_gemm_waves;
// docs/costmodel.md, "GEMMs by shape: waves of tiles"): which output tile
// explains a GEMM shape sweep's times at one rate. On published A100
// measurements (LLMCompass's, tests/data/a100_kernels/llmcompass_a100.txt)
// and on sweeps made by the model itself, with and without waves.
#include <cmath>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "realexec/calibrate.hpp"
#include "tests/costmodel/published_kernels.hpp"

namespace brigade::realexec {
namespace {

const std::vector<std::pair<std::int64_t, std::int64_t>> kTiles = {
    {256, 128}, {128, 128}, {256, 64}, {128, 64}};

// LLMCompass's A100 GEMMs (M x N x K, milliseconds; the "gemm" rows).
std::vector<GemmShapePoint> llmcompass() {
  std::vector<GemmShapePoint> out;
  for (auto& row : cost::testing::data_rows("a100_kernels/llmcompass_a100.txt")) {
    std::string kind;
    row >> kind;
    if (kind != "gemm") continue;
    GemmShapePoint g;
    double ms = 0;
    row >> g.m >> g.n >> g.k >> ms;
    g.dtype = DType::kF16;
    g.seconds = ms * 1e-3;
    out.push_back(g);
  }
  return out;
}

// The A100's: 256 x 128 explains the 14 GEMMs that fill a wave of every
// candidate at 0.931 of the 312 TFLOP/s peak, with 21 us of host time per
// torch call, within 3.9% (the FLOPs alone: 5.2%; the preset's check,
// A100KernelsPublished.GemmWavesFitTheShapesAtOneRate, by hand).
TEST(FitGemmWaves, LlmcompassA100GemmsAreWavesOf256By128) {
  const std::vector<GemmShapePoint> pts = llmcompass();
  ASSERT_EQ(pts.size(), 20u);
  const GemmWaveFit f = fit_gemm_waves(pts, 108, kTiles);
  EXPECT_EQ(f.points, 14);
  EXPECT_EQ(f.tile_rows, 256);
  EXPECT_EQ(f.tile_cols, 128);
  EXPECT_NEAR(f.tile_flops_per_second / 312e12, 0.931, 0.002);
  EXPECT_NEAR(f.host_seconds, 21.5e-6, 1e-6);
  EXPECT_LT(f.worst, 0.04);
  EXPECT_GT(f.flat_worst, 0.05);
  EXPECT_LT(f.rms, 0.8 * f.flat_rms);
}

// A sweep the model makes with 256 x 128 tiles on 132 SMs (an H100's
// count) at 700 TFLOP/s a tile slot and 8 us a call, each time 1% off either
// way, its rows chosen so that the last wave is part-full (N = 4096: 32 or
// 16 tiles a row of tiles): the fit finds that tile and rate back.
TEST(FitGemmWaves, ASweepOfKnownWavesComesBack) {
  DeviceProfile truth;
  truth.sm_count = 132;
  truth.gemm_tile_rows = 256;
  truth.gemm_tile_cols = 128;
  std::vector<GemmShapePoint> pts;
  int i = 0;
  for (std::int64_t m : {1280, 1792, 2304, 2816, 3328, 4352, 5376, 6400, 8448, 10496}) {
    GemmShapePoint g;
    g.m = m, g.n = 4096, g.k = 8192;
    const double x = gemm_wave_factor(truth, DType::kBF16, KernelClass::kGeneric,
                                      GemmShape{g.m, g.n, g.k, 1}) *
                     gemm_flops(g.m, g.n, g.k);
    g.seconds = (8e-6 + x / 700e12) * (i++ % 2 ? 1.01 : 0.99);
    pts.push_back(g);
  }
  const GemmWaveFit f = fit_gemm_waves(pts, 132, kTiles);
  EXPECT_EQ(f.tile_rows, 256);
  EXPECT_EQ(f.tile_cols, 128);
  EXPECT_NEAR(f.tile_flops_per_second / 700e12, 1.0, 0.02);
  EXPECT_LT(f.worst, 0.03);
}

// Times that follow the FLOPs alone (no waves): no tile is chosen; nor
// where the sweep's waves are all alike full (M = 256 j at N = 8192 on 132
// SMs: every point padded by 1.03, which a rate absorbs), nor with too few
// points or no SM count.
TEST(FitGemmWaves, NoTileWhereTheFlopsAloneExplainTheTimes) {
  auto sweep = [](std::vector<std::int64_t> ms, std::int64_t n) {
    std::vector<GemmShapePoint> pts;
    for (std::int64_t m : ms) {
      GemmShapePoint g;
      g.m = m, g.n = n, g.k = 8192;
      g.seconds = 8e-6 + gemm_flops(g.m, g.n, g.k) / 700e12;
      pts.push_back(g);
    }
    return pts;
  };
  std::vector<GemmShapePoint> pts =
      sweep({1280, 1792, 2304, 2816, 3328, 4352, 5376, 6400, 8448, 10496}, 4096);
  const GemmWaveFit f = fit_gemm_waves(pts, 132, kTiles);
  EXPECT_EQ(f.tile_rows, 0);
  EXPECT_EQ(f.tile_flops_per_second, 0);
  EXPECT_LT(f.flat_worst, 1e-9);
  EXPECT_GT(f.rms, 0.005);  // the best tile's residuals, what the FLOPs do not have
  const GemmWaveFit alike =
      fit_gemm_waves(sweep({1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384}, 8192), 132,
                     kTiles);
  EXPECT_EQ(alike.tile_rows, 0);
  pts.resize(4);
  EXPECT_EQ(fit_gemm_waves(pts, 132, kTiles).tile_rows, 0);
  EXPECT_EQ(fit_gemm_waves(llmcompass(), 0, kTiles).tile_rows, 0);  // no SM count
}

// A chosen tile into a measured profile (apply_gemm_waves): on 132 SMs with
// 256 x 128 tiles, the 2048^3 square is 128 tiles, under one wave, and keeps
// its point; 4096^3 is 512 tiles in 4 waves (528 slots) and 8192^3 2048 in
// 16 (2112): both lifted by 33/32; a lifted point stops at 1. The f32 curve
// is not the tile's.
TEST(ApplyGemmWaves, SquaresAreLiftedByTheirOwnWaves) {
  DeviceProfile dp;
  dp.sm_count = 132;
  for (DType t : {DType::kBF16, DType::kF16, DType::kF32}) {
    EfficiencyCurve& c = dp.gemm[static_cast<size_t>(dtype_index(t))];
    c.points = {{2.0 * 2048 * 2048 * 2048, 0.70},
                {2.0 * 4096 * 4096 * 4096, 0.80},
                {2.0 * 8192 * 8192 * 8192, 0.99}};
  }
  GemmWaveFit w;
  w.tile_rows = 256, w.tile_cols = 128;
  apply_gemm_waves(dp, w);
  EXPECT_EQ(dp.gemm_tile_rows, 256);
  EXPECT_EQ(dp.gemm_tile_cols, 128);
  for (DType t : {DType::kBF16, DType::kF16}) {
    const EfficiencyCurve& c = dp.gemm[static_cast<size_t>(dtype_index(t))];
    EXPECT_DOUBLE_EQ(c.points[0].second, 0.70);
    EXPECT_DOUBLE_EQ(c.points[1].second, 0.80 * 33 / 32);
    EXPECT_DOUBLE_EQ(c.points[2].second, 1.0);  // 0.99 x 33/32, stopped at 1
    EXPECT_DOUBLE_EQ(c.fallback, 1.0);
  }
  EXPECT_DOUBLE_EQ(dp.gemm[static_cast<size_t>(dtype_index(DType::kF32))].points[1].second, 0.80);
  // No tile chosen: nothing changes.
  DeviceProfile same = dp;
  apply_gemm_waves(same, GemmWaveFit{});
  EXPECT_EQ(same.gemm[static_cast<size_t>(dtype_index(DType::kBF16))].points,
            dp.gemm[static_cast<size_t>(dtype_index(DType::kBF16))].points);
}

}  // namespace
}  // namespace brigade::realexec
