// The scenario's runtime: conditions in the CPU executor (issue 17,
// docs/executors.md "Runtime conditions"). Only lower bounds are asserted:
// the injected time is held at least as long as asked, whatever the load of
// the machine (no timed upper bound in a test).
#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "realexec/executor.hpp"

namespace brigade::realexec {
namespace {

Topology host(int devices) {
  auto t = make_preset("cpu-host", 1, devices);
  EXPECT_TRUE(t.is_ok()) << t.message();
  return std::move(t).value();
}

// A data loader of 30 ms: every stream waits for it before its first task,
// so the kernel starts at >= 30 ms from the step's start.
TEST(CpuRuntime, InputPipelineDelaysTheFirstTask) {
  ProgramBuilder b("input", 1);
  const TaskId g = b.add_gemm(b.stream(0, "compute"), 16, 16, 16, DType::kF32, "mm");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  RunOptions o;
  o.runtime.input_seconds = 0.03;
  auto t = make_cpu_executor({})->run(*p, host(1), HardwareProfile::defaults(), o);
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_EQ(t->spans.size(), 1u);
  EXPECT_EQ(t->spans[0].task, g);
  EXPECT_GE(t->spans[0].start_seconds, 0.03);
}

// A speed outside (0, 1] is refused (the scenario reader refuses it first;
// this is the executor's own check for callers that build RunOptions).
TEST(CpuRuntime, OutOfRangeSpeedIsAnError) {
  ProgramBuilder b("speed", 1);
  b.add_gemm(b.stream(0, "compute"), 16, 16, 16, DType::kF32, "mm");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  RunOptions o;
  o.runtime.speed[0] = 2;
  auto t = make_cpu_executor({})->run(*p, host(1), HardwareProfile::defaults(), o);
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(), "cpu backend: runtime speed 2 for device 0; expected a factor in (0, 1]");
}

}  // namespace
}  // namespace brigade::realexec
