// The simulator's fused GEMM tasks under a wave model (Task::gemm_mix;
// core/profile.hpp gemm_mix_seconds): each task takes its own shapes' and
// rest's time, also where two tasks name the same shapes but fuse other
// kernels beside them (the set-up's cache of a set of shapes' time must
// not hand one task's rest to the other).
#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/topology.hpp"
#include "sim/simulator.hpp"

namespace brigade::sim {
namespace {

TEST(GemmMixSim, TasksOfTheSameShapesKeepTheirOwnRest) {
  const Topology topo = make_preset("dgx-a100").value();
  const HardwareProfile prof = HardwareProfile::defaults();
  ProgramBuilder b("mix", 1);
  const StreamId s = b.stream(0, "compute");
  const std::uint16_t mix = b.intern_gemm_mix({{8192, 2304, 6144, 1, 2}});
  const double g = 2 * gemm_flops(8192, 2304, 6144);
  const double gb = 2 * gemm_bytes(8192, 2304, 6144, DType::kBF16);
  // The same two GEMMs, alone and beside two 1 TFLOP kernels of their run.
  const TaskId alone = b.add_fixed(s, g, gb, DType::kBF16, "gemms");
  const TaskId beside = b.add_fixed(s, g + 2e12, gb + 1e6, DType::kBF16, "gemms and more");
  b.task(alone).batch = 2;
  b.task(beside).batch = 4;
  b.task(alone).gemm_mix = mix;
  b.task(beside).gemm_mix = mix;
  b.depend(beside, alone);
  const Program p = std::move(b).build().value();
  SimOptions o;
  o.record_task_times = true;
  const auto r = simulate(p, topo, prof, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Device& d = topo.device(0);
  const DeviceProfile& dp = prof.for_device(d);
  for (TaskId t : {alone, beside}) {
    const double want = gemm_mix_seconds(d, dp, p.task(t), p.gemm_mix(mix));
    const double took = r->task_end_seconds[static_cast<size_t>(t)] -
                        r->task_start_seconds[static_cast<size_t>(t)];
    EXPECT_NEAR(took / want, 1.0, 1e-12) << p.task_name(t);
  }
  // The rest weighs: 2 TFLOP at 0.825 of 312 TFLOP/s is ~7.8 ms more.
  EXPECT_GT(gemm_mix_seconds(d, dp, p.task(beside), p.gemm_mix(mix)) -
                gemm_mix_seconds(d, dp, p.task(alone), p.gemm_mix(mix)),
            7e-3);
}

}  // namespace
}  // namespace brigade::sim
