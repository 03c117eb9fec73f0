// The line fit behind calibration and the trace comparison behind validate.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "realexec/calibrate.hpp"
#include "realexec/compare.hpp"
#include "realexec/fit.hpp"

namespace brigade::realexec {
namespace {

TEST(FitLine, RecoversAnExactLine) {
  // T = 5 us + M / (10 GB/s) at 4 KiB ... 64 MiB.
  std::vector<double> x, y;
  for (double m = 4096; m <= 64.0 * (1 << 20); m *= 4) {
    x.push_back(m);
    y.push_back(5e-6 + m / 10e9);
  }
  auto f = fit_line(x, y);
  ASSERT_TRUE(f.is_ok()) << f.message();
  EXPECT_NEAR(f->intercept, 5e-6, 1e-15);
  EXPECT_NEAR(f->slope, 1e-10, 1e-20);
  EXPECT_NEAR(f->r_squared, 1.0, 1e-12);
  EXPECT_EQ(f->points, static_cast<int>(x.size()));
}

TEST(FitLine, WeighsResidualsRelativeToTheTime) {
  // Points (0,1), (1,2), (2,4), weights 1/y^2 = 1, 1/4, 1/16. Normal equations
  // by hand: S0 = 21/16, Sx = 3/8, Sxx = 1/2, Sy = 7/4, Sxy = 1;
  // b = (S0 Sxy - Sx Sy) / (S0 Sxx - Sx^2) = (21/32) / (33/64) = 14/11,
  // a = (Sy - b Sx) / S0 = (14/11) / (21/16) = 32/33.
  // Weighted R^2: mean_w = Sy / S0 = 4/3; residuals 1/33, -8/33, 16/33 give
  // SS_res = 1/1089 + 16/1089 + 16/1089 = 1/33; SS_tot = 1/9 + 1/9 + 4/9 = 2/3;
  // R^2 = 1 - (1/33) / (2/3) = 21/22.
  const std::vector<double> x = {0, 1, 2}, y = {1, 2, 4};
  auto f = fit_line(x, y);
  ASSERT_TRUE(f.is_ok()) << f.message();
  EXPECT_NEAR(f->intercept, 32.0 / 33.0, 1e-12);
  EXPECT_NEAR(f->slope, 14.0 / 11.0, 1e-12);
  EXPECT_NEAR(f->r_squared, 21.0 / 22.0, 1e-12);
}

TEST(FitLine, NeedsTwoDistinctSizes) {
  const std::vector<double> x = {3, 3}, y = {1, 2};
  auto f = fit_line(x, y);
  ASSERT_FALSE(f.is_ok());
  EXPECT_EQ(f.message(), "a line fit needs two distinct sizes");
}

TEST(FitNonnegative, RecoversExactCoefficients) {
  // T = 50 us + 3 us s + C / 5 GB/s + R / 4 GB/s on the rows of 2-rank ring
  // collectives (collective_step_row): exact data, every coefficient recovered.
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (CollectiveKind k : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                           CollectiveKind::kReduceScatter, CollectiveKind::kAllToAll})
    for (double m = 4096; m <= 16.0 * (1 << 20); m *= 16) {
      std::vector<double> row;
      ASSERT_TRUE(collective_step_row(k, 2, m, &row));
      rows.push_back(row);
      y.push_back(50e-6 + 3e-6 * row[1] + row[2] / 5e9 + row[3] / 4e9);
    }
  auto f = fit_nonnegative(rows, y);
  ASSERT_TRUE(f.is_ok()) << f.message();
  ASSERT_EQ(f->coefficients.size(), 4u);
  EXPECT_NEAR(f->coefficients[0], 50e-6, 1e-12);
  EXPECT_NEAR(f->coefficients[1], 3e-6, 1e-12);
  EXPECT_NEAR(f->coefficients[2], 1.0 / 5e9, 1e-18);
  EXPECT_NEAR(f->coefficients[3], 1.0 / 4e9, 1e-18);
  EXPECT_NEAR(f->r_squared, 1.0, 1e-9);
}

TEST(FitNonnegative, DropsANegativeCoefficientAndRefits) {
  // y = c0 + c1 x through (1,1), (2,3), (4,7) is exactly y = -1 + 2x: the
  // intercept is negative, so it is dropped and y = c x refitted in weights
  // 1/y^2: c = sum(x/y) / sum((x/y)^2) = (1 + 2/3 + 4/7) / (1 + 4/9 + 16/49)
  // = (47/21) / (781/441) = 987/781.
  const std::vector<std::vector<double>> rows = {{1, 1}, {1, 2}, {1, 4}};
  const std::vector<double> y = {1, 3, 7};
  auto f = fit_nonnegative(rows, y);
  ASSERT_TRUE(f.is_ok()) << f.message();
  EXPECT_EQ(f->coefficients[0], 0.0);
  EXPECT_NEAR(f->coefficients[1], 987.0 / 781.0, 1e-12);
}

TEST(CollectiveStepRow, RingStepsAndBytesByHand) {
  // N = 4, M = 8 B: a rank moves (N-1)/N M = 6 B over the steps.
  std::vector<double> row;
  ASSERT_TRUE(collective_step_row(CollectiveKind::kAllReduce, 4, 8, &row));
  EXPECT_EQ(row, (std::vector<double>{1, 6, 6, 6}));  // 2(N-1) steps, copies and reduces
  ASSERT_TRUE(collective_step_row(CollectiveKind::kAllGather, 4, 8, &row));
  EXPECT_EQ(row, (std::vector<double>{1, 3, 6, 0}));
  ASSERT_TRUE(collective_step_row(CollectiveKind::kReduceScatter, 4, 8, &row));
  EXPECT_EQ(row, (std::vector<double>{1, 3, 0, 6}));
  ASSERT_TRUE(collective_step_row(CollectiveKind::kAllToAll, 4, 8, &row));
  EXPECT_EQ(row, (std::vector<double>{1, 3, 6, 0}));
  EXPECT_FALSE(collective_step_row(CollectiveKind::kBroadcast, 4, 8, &row));
}

Program two_tasks() {
  ProgramBuilder b("pair", 2);
  b.add_gemm(b.stream(0, "compute"), 8, 8, 8, DType::kF32, "mm");
  b.add_transfer(b.stream(0, "xfer"), 1, 1024, "send");
  return std::move(b).build().value();
}

Trace trace_of(const char* source, double gemm_s, double xfer_start, double xfer_s) {
  Trace t;
  t.source = source;
  t.spans.push_back(TraceSpan{0, 0, 0, 0.0, gemm_s});
  t.spans.push_back(TraceSpan{1, 0, 1, xfer_start, xfer_start + xfer_s, -1, TaskKind::kTransfer});
  return t;
}

TEST(CompareTraces, RelativeErrorsPerTaskKindAndStep) {
  const Program p = two_tasks();
  // Simulated: GEMM 1.1 ms, transfer 2 ms starting at 1 ms -> step 3 ms.
  // Measured:  GEMM 1.0 ms, transfer 2.5 ms starting at 1 ms -> step 3.5 ms.
  auto c = compare_traces(p, trace_of("sim:flow", 1.1e-3, 1e-3, 2e-3),
                          trace_of("cpu", 1e-3, 1e-3, 2.5e-3));
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_NEAR(c->simulated_step_seconds, 3e-3, 1e-15);
  EXPECT_NEAR(c->measured_step_seconds, 3.5e-3, 1e-15);
  EXPECT_NEAR(c->step_relative_error, (3.0 - 3.5) / 3.5, 1e-12);
  ASSERT_EQ(c->tasks.size(), 2u);
  EXPECT_NEAR(c->tasks[0].relative_error, 0.1, 1e-12);   // (1.1 - 1) / 1
  EXPECT_NEAR(c->tasks[1].relative_error, -0.2, 1e-12);  // (2 - 2.5) / 2.5
  ASSERT_EQ(c->kinds.size(), 2u);
  EXPECT_EQ(c->kinds[0].kind, "gemm");
  EXPECT_EQ(c->kinds[1].kind, "transfer");
  EXPECT_NEAR(c->median_abs_task_error, 0.15, 1e-12);  // median of 0.1, 0.2
  EXPECT_NEAR(c->p90_abs_task_error, 0.2, 1e-12);      // ceil(1.8) = 2nd of 2
}

// Kernels: compute tasks of one name summed (two "mm" GEMMs on two devices,
// one "ln"), transfers left out, the largest measured first.
TEST(CompareTraces, KernelsSumTheComputeTasksOfOneName) {
  ProgramBuilder b("named", 2);
  b.add_gemm(b.stream(0, "compute"), 8, 8, 8, DType::kF32, "mm");
  b.add_gemm(b.stream(1, "compute"), 8, 8, 8, DType::kF32, "mm");
  b.add_transfer(b.stream(0, "xfer"), 1, 1024, "send");
  b.add_gemm(b.stream(1, "compute"), 4, 4, 4, DType::kF32, "ln");
  const Program p = std::move(b).build().value();
  auto trace = [](const char* source, double mm0, double mm1, double ln) {
    Trace t;
    t.source = source;
    t.spans.push_back(TraceSpan{0, 0, 0, 0.0, mm0});
    t.spans.push_back(TraceSpan{1, 1, 1, 0.0, mm1});
    t.spans.push_back(TraceSpan{2, 0, 2, 0.0, 5e-3, -1, TaskKind::kTransfer});
    t.spans.push_back(TraceSpan{3, 1, 1, mm1, mm1 + ln});
    return t;
  };
  // Simulated: mm 1 + 1 ms, ln 0.5 ms. Measured: mm 1.5 + 1.5 ms, ln 0.4 ms.
  auto c = compare_traces(p, trace("sim:flow", 1e-3, 1e-3, 0.5e-3),
                          trace("cpu", 1.5e-3, 1.5e-3, 0.4e-3));
  ASSERT_TRUE(c.is_ok()) << c.message();
  ASSERT_EQ(c->kernels.size(), 2u);
  EXPECT_EQ(c->kernels[0].name, "mm");
  EXPECT_EQ(c->kernels[0].tasks, 2);
  EXPECT_NEAR(c->kernels[0].simulated_seconds, 2e-3, 1e-15);
  EXPECT_NEAR(c->kernels[0].measured_seconds, 3e-3, 1e-15);
  EXPECT_NEAR(c->kernels[0].relative_error, (2.0 - 3.0) / 3.0, 1e-12);
  EXPECT_EQ(c->kernels[1].name, "ln");
  EXPECT_EQ(c->kernels[1].tasks, 1);
  EXPECT_NEAR(c->kernels[1].relative_error, 0.25, 1e-12);  // (0.5 - 0.4) / 0.4
}

TEST(CompareTraces, AMissingSpanIsNamed) {
  const Program p = two_tasks();
  Trace measured = trace_of("cpu", 1e-3, 1e-3, 2e-3);
  measured.spans.pop_back();
  auto c = compare_traces(p, trace_of("sim:flow", 1e-3, 1e-3, 2e-3), measured);
  ASSERT_FALSE(c.is_ok());
  EXPECT_EQ(c.message(), "program 'pair': task 1 'send' has no span in the trace from 'cpu'");
}

TEST(CompareTraces, ErrorSummaryOfScenarios) {
  // |errors| sorted: 0.01, 0.02, 0.03, 0.05, 0.2 -> median 0.03; p90 = ceil(4.5) = 5th = 0.2.
  const ErrorSummary s = summarise_errors({0.03, -0.01, 0.2, -0.05, 0.02});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.median_abs_error, 0.03);
  EXPECT_DOUBLE_EQ(s.p90_abs_error, 0.2);
  EXPECT_EQ(relative_error(0, 0), 0.0);
  EXPECT_TRUE(std::isinf(relative_error(1, 0)));
}

// The rounds' spread, by hand: simulated 10 ms; rounds of steps {9, 11,
// 10} ms (median 10), {12, 12} (median 12, the lower middle not needed) and
// {8} ms. Errors against each: 0, 10/12 - 1 = -1/6, +25%; medians 10, 12, 8
// lie (12 - 8) / 10 = 40% apart. An empty round is left out; one round has
// its error and no spread; none, nothing.
TEST(RoundSpread, EachRoundsErrorAndHowFarTheRoundsLieApart) {
  const RoundSpread r = round_spread(10e-3, {{9e-3, 11e-3, 10e-3}, {12e-3, 12e-3}, {}, {8e-3}});
  ASSERT_EQ(r.round_median_seconds.size(), 3u);
  EXPECT_DOUBLE_EQ(r.round_median_seconds[1], 12e-3);
  ASSERT_EQ(r.round_errors.size(), 3u);
  EXPECT_NEAR(r.round_errors[0], 0, 1e-15);
  EXPECT_NEAR(r.round_errors[1], -1.0 / 6, 1e-15);
  EXPECT_NEAR(r.round_errors[2], 0.25, 1e-15);
  EXPECT_NEAR(r.min_error, -1.0 / 6, 1e-15);
  EXPECT_NEAR(r.max_error, 0.25, 1e-15);
  EXPECT_NEAR(r.spread, 0.4, 1e-12);

  const RoundSpread one = round_spread(10e-3, {{8e-3}});
  EXPECT_NEAR(one.min_error, 0.25, 1e-15);
  EXPECT_NEAR(one.max_error, 0.25, 1e-15);
  EXPECT_EQ(one.spread, 0.0);
  const RoundSpread none = round_spread(10e-3, {});
  EXPECT_TRUE(none.round_errors.empty());
  EXPECT_EQ(none.spread, 0.0);
}

}  // namespace
}  // namespace brigade::realexec
