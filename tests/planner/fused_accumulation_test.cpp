// Fused gradient accumulation through both judges at every granularity
// (docs/costmodel.md, "Fused gradient accumulation"): a profile's
// gemm_accumulate_exposed charges each weight-gradient GEMM that adds into
// the gradient buffer its share of the extra bytes at the streaming rate,
// the same in the closed form (Kernel::accumulate_bytes) and the simulator
// (the tasks' GemmMixShape::accumulate_bytes).
#include <string>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "planner/lower.hpp"
#include "tests/planner/two_judges.hpp"

namespace brigade::planner {
namespace {

// One H200, no communication: a step is its kernels end to end. GPT, h
// 1024 (FFN 4096, QKV 3072 columns), vocabulary 4096, 2 layers, 2
// micro-batches of 2.
Scenario one_gpu(double exposed, const std::string& training) {
  Scenario s = testing::scenario_from(
      "topology: {preset: h200x1}\n"
      "model:\n  transformer: {layers: 2, hidden: 1024, heads: 8, seq: 512, vocab: 4096}\n"
      "training: {global_batch: 4, micro_batch: 2" +
      training + "}\nstrategy: {tensor: 1, pipeline: 1, data: 1}\n");
  for (DeviceProfile& d : s.profile.devices) d.gemm_accumulate_exposed = exposed;
  return s;
}

// By hand: the weight gradients' outputs a micro-batch are a layer's 12 h^2
// (QKV h x 3h, projection h x h, fc1 h x 4h, fc2 4h x h) twice and the
// logits' V x h, 29,360,128 elements; two micro-batches; 2 B an element in
// a 16-bit buffer, 6 in FP32 (docs/costmodel.md). At exposed e the step
// grows by e x those bytes over the H200's streaming rate (its memory
// bandwidth x efficiency).
TEST(FusedAccumulation, BothJudgesChargeTheExposedBytesAtEveryGranularity) {
  const double elements = 2.0 * (2.0 * 12 * 1024 * 1024 + 4096.0 * 1024);
  EXPECT_DOUBLE_EQ(elements, 58720256.0);
  const double e = 0.75;
  for (const auto& [training, per_element] :
       {std::pair{std::string(""), 2.0}, std::pair{std::string(", main_grad: fp32"), 6.0},
        std::pair{std::string(", fp8: hybrid"), 2.0}}) {
    for (Granularity g : {Granularity::kKernel, Granularity::kRegion, Granularity::kStep}) {
      SCOPED_TRACE(training + " granularity " + std::to_string(static_cast<int>(g)));
      LowerOptions o;
      o.granularity = g;
      const Scenario hidden = one_gpu(0, training), shown = one_gpu(e, training);
      const testing::TwoJudges a = testing::judge_both(hidden, o),
                               b = testing::judge_both(shown, o);
      ASSERT_TRUE(a.ok && b.ok);
      const Device& d = shown.topology.device(0);
      const DeviceProfile& dp = shown.profile.for_device(d);
      const double rate = peak_memory_bandwidth_bytes_per_second(d, dp) * dp.memory_efficiency;
      const double added = e * elements * per_element / rate;
      EXPECT_NEAR(b.sim.step_seconds - a.sim.step_seconds, added, 1e-9 * a.sim.step_seconds);
      EXPECT_NEAR(b.cost.step_seconds - a.cost.step_seconds, added, 1e-9 * a.cost.step_seconds);
      // The Program says it: its tasks' extra bytes sum to the same.
      double bytes = 0;
      const Program& p = b.plan.program;
      for (TaskId t = 0; t < p.num_tasks(); ++t)
        bytes += gemm_mix_accumulate_bytes(p.gemm_mix(p.task(t).gemm_mix));
      EXPECT_DOUBLE_EQ(bytes, elements * per_element);
    }
  }
}

// The closed form's report says so where a profile prices the addition,
// and nothing where it is hidden (every preset).
TEST(FusedAccumulation, TheReportNamesThePricedAddition) {
  auto note = [](const Scenario& s) {
    const testing::TwoJudges j = testing::judge_both(s);
    EXPECT_TRUE(j.ok);
    for (const std::string& n : j.cost.notes)
      if (n.rfind("fused gradient accumulation:", 0) == 0) return n;
    return std::string();
  };
  EXPECT_EQ(note(one_gpu(0, "")), "");
  EXPECT_EQ(note(one_gpu(0.75, "")),
            "fused gradient accumulation: each weight-gradient GEMM adds into the gradient "
            "buffer, 2 B an output element beyond a plain GEMM (the buffer read), 0.75 of them "
            "at the streaming rate (the profile's gemm_accumulate_exposed)");
  EXPECT_EQ(note(one_gpu(1, ", main_grad: fp32")),
            "fused gradient accumulation: each weight-gradient GEMM adds into the gradient "
            "buffer, 6 B an output element beyond a plain GEMM (the buffer read, written "
            "wider), 1 of them at the streaming rate (the profile's gemm_accumulate_exposed)");
}

}  // namespace
}  // namespace brigade::planner
