// The dgx-a100 preset's GEMM ceiling and streaming efficiency against an
// independent kernel-level measurement (issue 19 item 1): LLMCompass's
// artifact timed torch GEMMs, LayerNorm and GeLU on one A100 80GB
// (tests/data/a100_kernels/llmcompass_a100.txt says which files, which
// commit and how). Neither constant was set from these rows (the GEMM
// ceiling is, since freeze 8, the rate cuBLAS's 8192^3 holds at the 400 W
// power cap, 257 TFLOP/s, and was the MAMF table's 271.2 before; the
// streaming efficiency a cross-paper 0.85: docs/costmodel.md, "Presets");
// this test holds the preset to them and prints the comparison
// docs/FIDELITY.md quotes, so a change of either constant that moves the
// A100 away from its kernels fails here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "costmodel/compute.hpp"
#include "tests/costmodel/published_kernels.hpp"

namespace brigade::cost {
namespace {

struct Gemm {
  std::int64_t m = 0, n = 0, k = 0;
  double seconds = 0;
};

struct Stream {
  std::string kind;  // "layernorm" or "gelu"
  double width = 0;  // a LayerNorm's row length N (0 for GeLU)
  double elements = 0;
  double seconds = 0;  // elements / (G elements/s)
};

struct Table {
  std::vector<Gemm> gemms;
  std::vector<Stream> streams;
};

Table read_table() {
  Table t;
  for (std::istringstream& ss : testing::data_rows("a100_kernels/llmcompass_a100.txt")) {
    std::string kind;
    ss >> kind;
    if (kind == "gemm") {
      Gemm g;
      double ms = 0;
      ss >> g.m >> g.n >> g.k >> ms;
      g.seconds = ms * 1e-3;
      t.gemms.push_back(g);
    } else {
      Stream s;
      s.kind = kind;
      double a = 0, b = 0, rate = 0;
      if (kind == "layernorm") {
        ss >> a >> b >> rate;
        s.width = b;
        s.elements = a * b;
      } else {
        ss >> a >> rate;
        s.elements = a;
      }
      s.seconds = s.elements / (rate * 1e9);
      t.streams.push_back(s);
    }
  }
  return t;
}

using Gpu = testing::PresetGpu;
Gpu a100() { return testing::preset_gpu("dgx-a100"); }

// The table as read: 20 GEMMs, 22 LayerNorms, 20 GeLUs; the 8192^3 GEMM's
// 3.9614 ms is 2 x 8192^3 / 3.9614e-3 = 277.55 TFLOP/s, the file's own
// "277.5532Tflops" (the rate column is not read; the time is).
TEST(A100KernelsPublished, TheTableReadsAsWritten) {
  const Table t = read_table();
  ASSERT_EQ(t.gemms.size(), 20u);
  int ln = 0, gelu = 0;
  for (const Stream& s : t.streams) (s.kind == "layernorm" ? ln : gelu)++;
  EXPECT_EQ(ln, 22);
  EXPECT_EQ(gelu, 20);
  const Gemm& g = t.gemms[17];
  ASSERT_EQ(g.m, 8192);
  EXPECT_NEAR(2.0 * 8192 * 8192 * 8192 / g.seconds / 1e12, 277.5532, 0.01);
}

// Every GEMM against the preset (gemm_seconds: since freeze 7 the 16-bit
// GEMMs' waves of 256 x 128 tiles, since freeze 8 at the power-capped
// rate, bf16; a grid under one wave the 0.825 tile rate with Hockney's
// fill). Held where the call's host time (the table's smallest calls take
// ~0.03 ms) is under 3% of it, from 1 ms on: each 1.12 +- 0.05 of the
// measured time and their mean 1.12 +- 0.02, LLMCompass's calls running
// 8-15% faster than the rate at the cap (50 calls a shape after a second's
// idle: a burst by mamf-finder's later definition, next test); and the
// spread of Brigade / measured (largest over smallest) under 7%, where the
// flat ceiling of freezes 1-6 (the same preset without its tile) spreads
// over 11%: the shapes differ by their waves. Printed: every row, both
// ways.
TEST(A100KernelsPublished, GemmsAtTheCeilingWithinTheirBound) {
  const Table t = read_table();
  const Gpu g = a100();
  ASSERT_GT(g.profile.gemm_tile_rows, 0);
  DeviceProfile flat = g.profile;
  flat.gemm_tile_rows = flat.gemm_tile_cols = 0;
  for (DType d : {DType::kF16, DType::kBF16})
    flat.gemm[static_cast<size_t>(dtype_index(d))].fallback = 271.2 / 312.0;
  std::printf("| M | N | K | measured (ms) | TFLOP/s | Brigade (ms) | Brigade / measured | "
              "flat ceiling / measured |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  double sum = 0, lo = 1e9, hi = 0, flat_lo = 1e9, flat_hi = 0;
  int held = 0;
  for (const Gemm& r : t.gemms) {
    const double b = gemm_seconds(g.device, g.profile, r.m, r.n, r.k, DType::kBF16);
    const double f = gemm_seconds(g.device, flat, r.m, r.n, r.k, DType::kBF16);
    const double ratio = b / r.seconds, flat_ratio = f / r.seconds;
    const double tflops = 2.0 * r.m * r.n * r.k / r.seconds / 1e12;
    std::printf("| %lld | %lld | %lld | %.4f | %.1f | %.4f | %.3f | %.3f |\n",
                static_cast<long long>(r.m), static_cast<long long>(r.n),
                static_cast<long long>(r.k), r.seconds * 1e3, tflops, b * 1e3, ratio, flat_ratio);
    if (r.seconds < 1e-3) continue;
    ++held;
    sum += ratio;
    lo = std::min(lo, ratio), hi = std::max(hi, ratio);
    flat_lo = std::min(flat_lo, flat_ratio), flat_hi = std::max(flat_hi, flat_ratio);
    EXPECT_NEAR(ratio, 1.12, 0.05) << r.m << " x " << r.n << " x " << r.k;
  }
  ASSERT_EQ(held, 10);
  std::printf("from 1 ms, %d GEMMs: Brigade / measured mean %.3f, spread %.3f (flat ceiling %.3f)\n",
              held, sum / held, hi / lo, flat_hi / flat_lo);
  EXPECT_NEAR(sum / held, 1.12, 0.02);
  EXPECT_LT(hi / lo, 1.07);
  EXPECT_GT(flat_hi / flat_lo, 1.11);
}

// The wave model against LLMCompass's 14 GEMMs whose grid fills a wave of
// 256 x 128 tiles (docs/costmodel.md, "GEMMs by shape: waves of tiles"):
// each measured time t = c0 + X / e, X the padded FLOPs of its waves (the
// preset's gemm_wave_factor x 2mnk) at the 312 TFLOP/s peak, c0 the torch
// call's host time; least squares in relative error (rows 1/t and X/t
// against 1). One tile rate e explains all 14 within 4% (0.931, c0 21 us),
// where the FLOPs alone (X = 2mnk / peak, its own c0) leave 5.2%. The rate
// is LLMCompass's level, 13% above the preset's tile rate at the power cap
// (0.825; 6% above freeze 7's MAMF-derived 0.880): a check of the shape
// model, not the preset's source.
TEST(A100KernelsPublished, GemmWavesFitTheShapesAtOneRate) {
  const Table t = read_table();
  const Gpu g = a100();
  struct Fit {
    double e = 0, c0 = 0, worst = 0;
  };
  auto fit = [&](bool waves) {
    std::vector<double> x, y;
    for (const Gemm& r : t.gemms) {
      const double w = gemm_wave_factor(g.profile, DType::kBF16, KernelClass::kGeneric,
                                        GemmShape{r.m, r.n, r.k, 1});
      if (w == 0) continue;  // under one wave: not the model's
      x.push_back((waves ? w : 1.0) * 2.0 * r.m * r.n * r.k / 312e12);
      y.push_back(r.seconds);
    }
    EXPECT_EQ(x.size(), 14u);
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double u = 1 / y[i], v = x[i] / y[i];
      a11 += u * u, a12 += u * v, a22 += v * v, b1 += u, b2 += v;
    }
    const double det = a11 * a22 - a12 * a12;
    Fit f;
    f.c0 = (b1 * a22 - b2 * a12) / det;
    const double slope = (a11 * b2 - a12 * b1) / det;
    f.e = 1 / slope;
    for (size_t i = 0; i < x.size(); ++i)
      f.worst = std::max(f.worst, std::abs((f.c0 + slope * x[i]) / y[i] - 1));
    return f;
  };
  const Fit w = fit(true), flat = fit(false);
  std::printf("waves: tile rate %.4f of peak, host %.1f us, worst %.1f%%; FLOPs alone: %.4f, "
              "%.1f us, worst %.1f%%; the preset's tile rate %.4f\n",
              w.e, w.c0 * 1e6, w.worst * 100, flat.e, flat.c0 * 1e6, flat.worst * 100,
              g.profile.gemm[static_cast<size_t>(dtype_index(DType::kBF16))].fallback);
  EXPECT_LT(w.worst, 0.04);
  EXPECT_GT(flat.worst, 0.05);
  EXPECT_GT(w.c0, 0);
  EXPECT_LT(w.c0, 50e-6);
  EXPECT_NEAR(w.e / g.profile.gemm[static_cast<size_t>(dtype_index(DType::kBF16))].fallback, 1.13,
              0.02);
}

// The preset's ceiling is the rate at the power cap (freeze 8), and two
// kernel-level routes to it agree. Measured on an A100 SXM: cuBLAS's
// 8192^3 on random operands, 257 TFLOP/s (Horace He, "Strangely, Matrix
// Multiplications on GPUs Run Faster When Given 'Predictable' Data!",
// thonking.ai, 2024; 295 on zeros, which draw less power). Worked: the
// older MAMF table's A100 SXM figure, 271.2 (a short run: 100 calls after 50
// warm-ups), times what the same table's method gives up at the cap on the
// GH100, the H200's MSMF 755.5 (mamf-finder.py's later method: a 4 s window
// on a GPU at its settled clock, the mean of 8 GPUs x 5 rounds;
// stas00/ml-engineering compute/accelerator/benchmarks/README.md) over the
// older table's 794.5 for the same die: 271.2 x 755.5 / 794.5 = 257.89.
// The preset gives the measured shape 257 exactly and the two routes
// differ by 0.35%.
TEST(A100KernelsPublished, TheCeilingIsTheRateAtThePowerCap) {
  const Gpu g = a100();
  const double f = 2.0 * 8192 * 8192 * 8192;
  const double t = gemm_seconds(g.device, g.profile, 8192, 8192, 8192, DType::kBF16);
  const double rate = f / (t - g.profile.launch_overhead_seconds) / 1e12;
  EXPECT_NEAR(rate, 257.0, 1e-9);
  const double worked = 271.2 * 755.5 / 794.5;
  EXPECT_NEAR(worked, 257.89, 0.005);
  EXPECT_LT(std::abs(rate / worked - 1), 0.005);
  // The short run's figure is above the cap's by what the GH100 loses there.
  EXPECT_NEAR(271.2 / rate, 794.5 / 755.5, 0.006);
}

// A streaming kernel's time against its bytes is a line t0 + bytes / (peak x
// eff); its slope through the four largest calls of each kernel (2 B read
// and 2 B written an element, fp16: 67 MB to 537 MB for the LayerNorms of
// rows of 4,096, 268 MB to 2.1 GB for GeLU) is the kernel's efficiency on
// the A100 80GB's 2,039 GB/s, the intercept the call's host time. The
// preset's LayerNorm and GeLU efficiencies (norm_forward_efficiency,
// activation_forward_efficiency) are these fits, to three figures; its one
// streaming efficiency for the other kernels (0.85, cross-paper) is held
// within 10% of both. The LayerNorms are the table's rows of N = 4,096 (a hidden
// size; M, the tokens, from 4,096 to 32,768); its sweep of N at M = 4,096
// falls from 265 G elements/s at N = 8,192 to 199 at 32,768 (torch.compile's
// row reduction over very wide rows): printed by the table, not held.
TEST(A100KernelsPublished, NormAndGeluEfficienciesAreTheFitsOfTheirKernels) {
  const Table t = read_table();
  const Gpu g = a100();
  const double peak = g.device.memory_bandwidth_bytes_per_second;
  EXPECT_DOUBLE_EQ(peak, 2039e9);
  for (const char* kind : {"layernorm", "gelu"}) {
    std::vector<const Stream*> rows;
    for (const Stream& s : t.streams)
      if (s.kind == kind && (s.kind != "layernorm" || s.width == 4096)) rows.push_back(&s);
    std::sort(rows.begin(), rows.end(),
              [](const Stream* a, const Stream* b) { return a->elements < b->elements; });
    ASSERT_GE(rows.size(), 4u);
    rows.erase(rows.begin(), rows.end() - 4);
    std::vector<double> bytes, seconds;
    for (const Stream* s : rows) bytes.push_back(4 * s->elements), seconds.push_back(s->seconds);
    const testing::Line line = testing::least_squares(bytes, seconds);
    const double slope = line.slope, t0 = line.intercept;
    const double eff = 1 / (slope * peak);
    const bool ln = std::string(kind) == "layernorm";
    const double own =
        ln ? g.profile.norm_forward_efficiency : g.profile.activation_forward_efficiency;
    std::printf(
        "%s: efficiency %.4f of 2039 GB/s (%.0f GB/s), host time %.1f us; preset %.3f (other "
        "kernels %.3f)\n",
        kind, eff, eff * peak / 1e9, t0 * 1e6, own, g.profile.memory_efficiency);
    EXPECT_GT(t0, 0);
    EXPECT_LT(t0, 100e-6);
    EXPECT_NEAR(own, eff, 5e-4) << kind;  // the fit, rounded to three figures
    EXPECT_NEAR(g.profile.memory_efficiency / eff, 1.0, 0.10) << kind;
    // The preset times the kernel of that class by the fit: the largest call
    // less its host time, within 1%.
    const KernelClass c = ln ? KernelClass::kNormForward : KernelClass::kActivationForward;
    const Stream& big = *rows.back();
    const double brigade =
        memory_bound_seconds(g.device, g.profile, 4 * big.elements, DType::kF16, 0, c) -
        g.profile.launch_overhead_seconds;
    EXPECT_NEAR(brigade / (big.seconds - t0), 1.0, 0.01) << kind;
  }
}

}  // namespace
}  // namespace brigade::cost
