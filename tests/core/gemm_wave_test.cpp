// The wave model of a GEMM (core/profile.hpp, gemm_wave_factor and
// gemm_mix_seconds; core/gemm_waves.hpp, its count for the reports; docs/costmodel.md, "GEMMs by shape: waves of tiles").
// Source of the mechanism: NVIDIA, "Matrix Multiplication Background User's
// Guide" (DU-09799-001_v001, Feb 2023), Sec. 3.2 "Wave Quantization": an
// A100's 108 SMs run 108 output tiles of 256 x 128 at once, so a GEMM takes
// whole waves of them. Every figure below is worked by hand from the tile
// counts.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/gemm_waves.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/topology.hpp"

namespace brigade {
namespace {

DeviceProfile tiled(int sms = 108) {
  DeviceProfile p;
  p.sm_count = sms;
  p.gemm_tile_rows = 256;
  p.gemm_tile_cols = 128;
  return p;
}

double wave(const DeviceProfile& p, GemmShape s, DType t = DType::kBF16,
            KernelClass k = KernelClass::kGeneric) {
  return gemm_wave_factor(p, t, k, s);
}

TEST(GemmWave, FactorByHand) {
  const DeviceProfile p = tiled();
  // GPT 22B's QKV GEMM at TP 8, micro-batch 4 (8192 x 2304): 32 x 18 = 576
  // tiles of 256 x 128 (64 x 9 the other way): 6 waves, 648 tile slots.
  EXPECT_DOUBLE_EQ(wave(p, {8192, 2304, 6144, 1}), 648.0 / 576.0);
  // Whole waves: 8192 x 6912 = 32 x 54 = 1728 tiles = 16 x 108.
  EXPECT_DOUBLE_EQ(wave(p, {8192, 6912, 1024, 1}), 1.0);
  // Partial tiles pad too: 8000 rows take 32 tiles of 256 (8192 rows' area).
  EXPECT_DOUBLE_EQ(wave(p, {8000, 6912, 1024, 1}), 16.0 * 108 * 256 * 128 / (8000.0 * 6912));
  // A batch of 4 GEMMs of 1024 x 1024: 4 x 8 x 4 = 128 tiles, 2 waves.
  EXPECT_DOUBLE_EQ(wave(p, {1024, 1024, 512, 4}), 216.0 * 256 * 128 / (1024.0 * 1024 * 4));
  // The orientation with fewer waves: 384 x 16384 is 2 x 128 = 256 tiles of
  // 256 x 128 (3 waves) but 3 x 64 = 192 of 128 x 256 (2 waves).
  EXPECT_DOUBLE_EQ(wave(p, {384, 16384, 4096, 1}), 216.0 * 256 * 128 / (384.0 * 16384));
  // LLMCompass's 2048 x 12288: 768 tiles, 7.1 waves -> 8: 864 / 768.
  EXPECT_DOUBLE_EQ(wave(p, {2048, 12288, 12288, 1}), 864.0 / 768.0);
}

TEST(GemmWave, TheCountTheReportsShowByHand) {
  const DeviceProfile p = tiled();
  // The 22B's QKV (above): 576 tiles of 256 x 128 (a tie with 128 x 256:
  // the profile's own), 6 waves, 576 of 648 slots filled.
  GemmWaves w = gemm_waves(p, DType::kBF16, KernelClass::kGeneric, {8192, 2304, 6144, 1});
  EXPECT_EQ(w.waves, 6);
  EXPECT_EQ(w.tiles, 576);
  EXPECT_EQ(w.rows, 256);
  EXPECT_EQ(w.cols, 128);
  EXPECT_DOUBLE_EQ(w.filled, 576.0 / 648.0);
  // 1920 x 3584: 8 x 28 = 224 tiles of 256 x 128 (3 waves) but 15 x 14 =
  // 210 of 128 x 256 (2 waves, 216 slots): that orientation, 210 of its
  // 216 slots filled (35/36).
  w = gemm_waves(p, DType::kF16, KernelClass::kGeneric, {1920, 3584, 1024, 1});
  EXPECT_EQ(w.waves, 2);
  EXPECT_EQ(w.tiles, 210);
  EXPECT_EQ(w.rows, 128);
  EXPECT_EQ(w.cols, 256);
  EXPECT_DOUBLE_EQ(w.filled, 35.0 / 36.0);
  EXPECT_DOUBLE_EQ(1 / w.filled, wave(p, {1920, 3584, 1024, 1}, DType::kF16));
  // Where the model does not apply, nothing.
  w = gemm_waves(p, DType::kFP8, KernelClass::kGeneric, {8192, 2304, 6144, 1});
  EXPECT_EQ(w.waves, 0);
  EXPECT_EQ(w.tiles, 0);
  EXPECT_EQ(w.filled, 0.0);
}

TEST(GemmWave, NoFactorWhereTheModelDoesNotApply) {
  const DeviceProfile p = tiled();
  // Under one wave: 1024 x 2048 is 4 x 16 = 64 tiles (cuBLAS picks smaller
  // tiles; the curve and Hockney's fill time it).
  EXPECT_EQ(wave(p, {1024, 2048, 4096, 1}), 0.0);
  // Under one wave in one orientation: 384 x 6912 is 2 x 54 = 108 tiles of
  // 256 x 128 but 3 x 27 = 81 of 128 x 256.
  EXPECT_EQ(wave(p, {384, 6912, 4096, 1}), 0.0);
  // The tile is the 16-bit kernels': other widths keep their curve.
  for (DType t : {DType::kF32, DType::kTF32, DType::kFP8, DType::kI8})
    EXPECT_EQ(wave(p, {8192, 2304, 6144, 1}, t), 0.0);
  EXPECT_GT(wave(p, {8192, 2304, 6144, 1}, DType::kF16), 1.0);
  // The attention core's batched GEMMs keep their measured whole-core rate.
  EXPECT_EQ(wave(p, {8192, 2304, 6144, 1}, DType::kBF16, KernelClass::kAttentionForward), 0.0);
  // No tile, no SM count, no shape.
  DeviceProfile none = p;
  none.gemm_tile_rows = 0;
  EXPECT_EQ(wave(none, {8192, 2304, 6144, 1}), 0.0);
  EXPECT_EQ(wave(tiled(0), {8192, 2304, 6144, 1}), 0.0);
  EXPECT_EQ(wave(p, {}), 0.0);
}

struct A100 {
  Device device;
  DeviceProfile profile;
};

A100 a100() {
  const Topology t = make_preset("dgx-a100").value();
  const Device d = t.device(0);
  return {d, HardwareProfile::defaults().for_device(d)};
}

TEST(GemmWave, ThePresetTimesAGemmByItsWavesByHand) {
  const A100 g = a100();
  ASSERT_EQ(g.profile.sm_count, 108);
  ASSERT_EQ(g.profile.gemm_tile_rows, 256);
  ASSERT_EQ(g.profile.gemm_tile_cols, 128);
  // 8192 x 2304 x 6144 in bf16: 6 waves x 108 tiles x 256 x 128 x 2 x 6144
  // = 260,919,263,232 FLOP at the tile's rate, 257 x 2052 / 2048 = 257.502
  // TFLOP/s (freeze 8: the 8192^3 measured at the power cap, 19 waves):
  // 1,013.271 us, plus the launch gap 5.2788 us = 1,018.550 us. (Its bytes,
  // 167 MB, take 96 us at 0.85 of 2,039 GB/s: not the bound.)
  const double t = kernel_seconds(g.device, g.profile, DType::kBF16, 2.0 * 8192 * 2304 * 6144,
                                  2.0 * (8192.0 * 6144 + 6144.0 * 2304 + 8192.0 * 2304),
                                  ComputeKind::kGemm, 2.0 * 8192 * 2304, KernelClass::kGeneric, 0,
                                  0, 1, GemmShape{8192, 2304, 6144, 1});
  EXPECT_NEAR(t, 1.0185497903499278e-3, 1e-15);
  // Without its shape the same FLOPs take the tile's rate and Hockney's
  // fill, as a GEMM under one wave does: (231,928,233,984 / 312e12 +
  // 5.807 us) / 0.825327 + 5.279 us = 913.00 us.
  const double flat =
      kernel_seconds(g.device, g.profile, DType::kBF16, 2.0 * 8192 * 2304 * 6144,
                     2.0 * (8192.0 * 6144 + 6144.0 * 2304 + 8192.0 * 2304), ComputeKind::kGemm);
  EXPECT_NEAR(flat, 9.130007271674582e-4, 1e-15);
}

// The ceiling is the rate measured at the power cap (freeze 8: cuBLAS's
// 8192^3 on random operands, 257 TFLOP/s on an A100 SXM; Horace He,
// thonking.ai, 2024): the wave model gives that shape exactly that rate
// (2,048 tiles in 19 waves of 108 is where the tile's rate was worked back
// from). The older MAMF table's best shape, 1024 x 10240 x 5120 (320 tiles
// in three waves), then runs at 257.502 x 320 / 324 = 254.32 TFLOP/s, where
// that short run measured 271.2: a burst above the cap's rate.
TEST(GemmWave, TheMeasuredShapeRunsAtTheMeasuredCeiling) {
  const A100 g = a100();
  auto rate = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const double f = 2.0 * m * n * k;
    const double t = kernel_seconds(g.device, g.profile, DType::kBF16, f,
                                    2.0 * (1.0 * m * k + 1.0 * k * n + 1.0 * m * n),
                                    ComputeKind::kGemm, 2.0 * m * n, KernelClass::kGeneric, 0, 0,
                                    1, GemmShape{m, n, k, 1});
    return f / (t - g.profile.launch_overhead_seconds) / 1e12;
  };
  EXPECT_NEAR(rate(8192, 8192, 8192), 257.0, 1e-9);
  EXPECT_NEAR(rate(1024, 10240, 5120), 257.0 * 2052.0 / 2048.0 * 320.0 / 324.0, 1e-9);
}

// A fused task's GEMMs by shape: each shape as its own kernels, the rest
// (here a FlashAttention-like kernel's FLOPs) as a fused run.
TEST(GemmWave, AFusedTaskTakesEachOfItsShapes) {
  const A100 g = a100();
  ProgramBuilder b("mix", 1);
  const StreamId s = b.stream(0, "compute");
  const GemmShape qkv{8192, 2304, 6144, 1}, fc2{8192, 6144, 3072, 1};
  const double fq = 2.0 * 8192 * 2304 * 6144, f2 = 2.0 * 8192 * 6144 * 3072, rest = 1e9;
  const double bq = gemm_bytes(8192, 2304, 6144, DType::kBF16);
  const double b2 = gemm_bytes(8192, 6144, 3072, DType::kBF16);
  const TaskId t = b.add_fixed(s, 3 * fq + 2 * f2 + rest, 3 * bq + 2 * b2 + 1e6, DType::kBF16,
                               "fused gemms");
  b.task(t).batch = 6;
  b.task(t).gemm_mix = b.intern_gemm_mix({{8192, 6144, 3072, 1, 2}, {8192, 2304, 6144, 1, 3}});
  Program p = std::move(b).build().value();
  const Task& x = p.task(t);
  ASSERT_EQ(p.gemm_mix(x.gemm_mix).size(), 2u);
  auto gemm = [&](GemmShape sh, double f, double by) {
    return kernel_seconds(g.device, g.profile, DType::kBF16, f, by, ComputeKind::kGemm,
                          gemm_written_bytes(sh.m, sh.n, DType::kBF16), KernelClass::kGeneric, 0,
                          0, 1, sh);
  };
  const double want = 3 * gemm(qkv, fq, bq) + 2 * gemm(fc2, f2, b2) +
                      kernel_seconds(g.device, g.profile, DType::kBF16, rest, 1e6,
                                     ComputeKind::kFixed, 0, KernelClass::kGeneric, 0, 0, 1);
  EXPECT_NEAR(gemm_mix_seconds(g.device, g.profile, x, p.gemm_mix(x.gemm_mix)), want, 1e-12);
  // Without a wave model the caller keeps its own timing (-1).
  DeviceProfile plain = g.profile;
  plain.gemm_tile_rows = 0;
  EXPECT_EQ(gemm_mix_seconds(g.device, plain, x, p.gemm_mix(x.gemm_mix)), -1.0);
}

TEST(GemmMix, InternedOncePerSetOfShapes) {
  ProgramBuilder b("mix", 1);
  const std::uint16_t a = b.intern_gemm_mix({{1, 2, 3, 1, 4}, {5, 6, 7, 1, 1}});
  const std::uint16_t c = b.intern_gemm_mix({{5, 6, 7, 1, 1}, {1, 2, 3, 1, 4}});  // reordered
  const std::uint16_t d = b.intern_gemm_mix({{5, 6, 7, 1, 2}, {1, 2, 3, 1, 4}});  // a count differs
  EXPECT_EQ(a, 1);
  EXPECT_EQ(c, a);
  EXPECT_EQ(d, 2);
  EXPECT_EQ(b.intern_gemm_mix({}), 0);
  b.add_fixed(b.stream(0, "compute"), 1, 1, DType::kBF16, "x");
  const Program p = std::move(b).build().value();
  EXPECT_EQ(p.num_gemm_mixes(), 2u);
  EXPECT_TRUE(p.gemm_mix(0).empty());
  EXPECT_EQ(p.gemm_mix(1).front().m, 1);  // sorted
  EXPECT_TRUE(p.gemm_mix(3).empty());
}

TEST(GemmMix, ABuilderRefusesAnUnknownSetOfShapes) {
  ProgramBuilder b("bad", 1);
  const TaskId t = b.add_fixed(b.stream(0, "compute"), 1, 1, DType::kBF16, "fused");
  b.task(t).gemm_mix = 3;
  const Result<Program> r = std::move(b).build();
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("names GEMM shapes 3, which do not exist; expected 0..0"),
            std::string::npos)
      << r.message();
}

}  // namespace
}  // namespace brigade
