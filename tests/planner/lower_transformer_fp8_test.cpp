// The transformer lowered under FP8 (training.fp8, docs/costmodel.md "FP8
// training"): which tasks run in FP8, the weights' FP8 copies, and delayed
// scaling's amax reductions at each chunk's pass ends. Moved out of
// lower_transformer_test.cpp (2026-12-07), which had grown past 1000 lines.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/scenario.hpp"
#include "planner/lower.hpp"

namespace brigade::planner {
namespace {

Plan lower_ok(const Scenario& s) {
  auto p = lower(s);
  EXPECT_TRUE(p.is_ok()) << p.message();
  return p.is_ok() ? std::move(p).value() : Plan{};
}

// FP8 (training.fp8, docs/costmodel.md "FP8 training"): the lowered Program
// runs the linear layers' GEMMs as FP8 tasks and the casts and transposes
// around them as bf16 passes over memory,
// keeps the attention and the logits in bf16, holds the weights' FP8 copies
// resident (2 B per FP8 weight element: a layer of h 512 has 12 h^2 =
// 3,145,728 of them, 4 layers 12,582,912, so 25,165,824 B on one rank).
TEST(LowerTransformerFp8, Fp8GemmTasksCastsAndTheWeightCopies) {
  auto sc = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model:\n"
      "  transformer: {layers: 4, hidden: 512, heads: 4, seq: 256, vocab: 4096, attention: flash}\n"
      "training: {global_batch: 16, micro_batch: 2, fp8: hybrid}\n"
      "strategy: {data: 8}\n",
      "fp8.yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  const Plan plan = lower_ok(*sc);
  const Program& p = plan.program;
  std::map<std::string, DType> dtype_of;
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const Task& x = p.task(t);
    if (x.kind == TaskKind::kCompute && x.device == 0)
      dtype_of[p.names()[static_cast<size_t>(x.name)]] = x.dtype;
  }
  for (const char* fp8 :
       {"attn.qkv", "attn.proj", "mlp.fc1", "mlp.fc2", "mlp.fc2.dgrad", "attn.qkv.wgrad"})
    EXPECT_EQ(dtype_of.at(fp8), DType::kFP8) << fp8;
  for (const char* bf16 :
       {"attn.proj.cast", "attn.qkv.transpose", "attn.flash", "ln1", "head.logits", "mlp.gelu"})
    EXPECT_EQ(dtype_of.at(bf16), DType::kBF16) << bf16;
  double fp8_weights = 0;
  for (const Buffer& b : p.buffers())
    if (b.device == 0 && b.name == "fp8 weights") fp8_weights = b.bytes;
  EXPECT_DOUBLE_EQ(fp8_weights, 25165824);
  // `explain`'s one line says the run is FP8, and which recipe.
  EXPECT_NE(plan.summary.find(", FP8 GEMMs (hybrid: E4M3 forward, E5M2 gradients), "),
            std::string::npos)
      << plan.summary;
}

// FP8 delayed scaling (docs/costmodel.md, "FP8 training"): each chunk's
// forward ends with Transformer Engine's amax reduction (a cat, an
// AllReduce(MAX) over 'tensor', an update) and so does its backward, every
// micro-batch, after the chunk's blocks and before its send: on a stage of
// 2 chunks x 4 micro-batches, 8 each way on every device, the AllReduce
// over the device's tensor group; none under current scaling, none in
// inference.
TEST(LowerTransformerFp8, DelayedScalingReducesTheAmaxesAtEachChunksPassEnd) {
  auto lower_text = [](const std::string& training) {
    auto sc = parse_scenario(
        "topology: {preset: dgx-h100}\n"
        "model:\n"
        "  transformer: {layers: 8, hidden: 512, heads: 4, seq: 256, vocab: 4096, attention: "
        "flash}\n"
        "training: {global_batch: 16, micro_batch: 2" +
            training +
            "}\n"
            "strategy: {tensor: 2, pipeline: 2, data: 2, schedule: interleaved, virtual_stages: "
            "2}\n",
        "fp8.yaml");
    EXPECT_TRUE(sc.is_ok()) << sc.message();
    return lower_ok(*sc);
  };
  auto count = [](const Plan& plan, const std::string& name, int device) {
    int n = 0;
    const Program& p = plan.program;
    for (TaskId t = 0; t < p.num_tasks(); ++t)
      if (p.task(t).device == device && p.names()[static_cast<size_t>(p.task(t).name)] == name) ++n;
    return n;
  };
  const Plan delayed = lower_text(", fp8: hybrid");
  for (int device : {0, 7})
    for (const char* k : {"fp8.amax.fwd.cat", "fp8.amax.fwd.allreduce", "fp8.amax.fwd.update",
                          "fp8.amax.bwd.cat", "fp8.amax.bwd.allreduce", "fp8.amax.bwd.update"})
      EXPECT_EQ(count(delayed, k, device), 8) << k << " on device " << device;
  // Each forward's reduction comes after the chunk's last layer's kernels.
  const Program& p = delayed.program;
  TaskId last_fc2 = -1, first_cat = -1;
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const std::string& n = p.names()[static_cast<size_t>(p.task(t).name)];
    if (p.task(t).device != 0) continue;
    if (n == "mlp.fc2" && first_cat < 0) last_fc2 = t;
    if (n == "fp8.amax.fwd.cat" && first_cat < 0) first_cat = t;
  }
  EXPECT_LT(last_fc2, first_cat);
  const Plan current = lower_text(", fp8: hybrid, fp8_recipe: tensorwise");
  EXPECT_EQ(count(current, "fp8.amax.fwd.cat", 0), 0);
  const Plan inference = lower_text(", fp8: hybrid, mode: inference");
  EXPECT_EQ(count(inference, "fp8.amax.fwd.cat", 0), 0);
}

}  // namespace
}  // namespace brigade::planner
