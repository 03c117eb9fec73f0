// A uniform GPipe pipeline: p stages, m micro-batches, every forward takes
// t_f and every backward t_b on every stage, communication free. Its step is
// (m + p - 1)(t_f + t_b) and each stage is busy m(t_f + t_b), so the idle
// ("bubble") fraction is (p - 1) / (m + p - 1) (Huang et al., "GPipe",
// NeurIPS 2019, sec. 2.3).
#include <tuple>

#include <gtest/gtest.h>

#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::plain_profile;
using testing::rel_err;
using testing::run;
using testing::star;

Program gpipe(int p, int m) {
  ProgramBuilder b("gpipe", p);
  std::vector<StreamId> s(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) s[static_cast<size_t>(i)] = b.stream(i, "compute");
  // fwd[stage][mb], bwd[stage][mb]
  std::vector<std::vector<TaskId>> fwd(static_cast<size_t>(p)), bwd(static_cast<size_t>(p));
  for (int st = 0; st < p; ++st)
    for (int mb = 0; mb < m; ++mb)
      fwd[static_cast<size_t>(st)].push_back(b.add_gemm(s[static_cast<size_t>(st)], 2048, 2048, 2048,
                                                        DType::kBF16, "F" + std::to_string(mb)));
  // Backward in reverse micro-batch order, as GPipe does; the backward of a
  // layer costs about twice its forward (4096 x 2048 x 2048).
  for (int st = 0; st < p; ++st)
    for (int mb = m - 1; mb >= 0; --mb)
      bwd[static_cast<size_t>(st)].push_back(b.add_gemm(s[static_cast<size_t>(st)], 4096, 2048, 2048, DType::kBF16,
                                                        "B" + std::to_string(mb), Phase::kBackward));
  for (int st = 1; st < p; ++st)
    for (int mb = 0; mb < m; ++mb) b.depend(fwd[static_cast<size_t>(st)][static_cast<size_t>(mb)],
                                            fwd[static_cast<size_t>(st - 1)][static_cast<size_t>(mb)]);
  for (int st = 0; st + 1 < p; ++st)
    for (int i = 0; i < m; ++i) b.depend(bwd[static_cast<size_t>(st)][static_cast<size_t>(i)],
                                         bwd[static_cast<size_t>(st + 1)][static_cast<size_t>(i)]);
  return build(std::move(b));
}

class GPipe : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(GPipe, BubbleFractionIsPMinusOneOverMPlusPMinusOne) {
  const auto [p, m] = GetParam();
  const Topology t = star(p, 100e9, 2e-6);
  const Program prog = gpipe(p, m);
  const SimResult r = run(prog, t, plain_profile());
  const double want = static_cast<double>(p - 1) / (m + p - 1);
  for (const DeviceStats& d : r.devices) EXPECT_LT(rel_err(d.idle_seconds / r.step_seconds, want), 1e-9);
  // The step: (m + p - 1)(t_f + t_b), with t_f + t_b = busy / m.
  EXPECT_LT(rel_err(r.step_seconds, (m + p - 1) * r.devices[0].busy_seconds / m), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GPipe,
                         ::testing::Values(std::make_tuple(2, 1), std::make_tuple(4, 8), std::make_tuple(8, 32),
                                           std::make_tuple(16, 4)));

}  // namespace
}  // namespace brigade::sim
