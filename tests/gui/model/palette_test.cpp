// Colour classes of spans (gui/model/palette.hpp).
#include "gui/model/palette.hpp"

#include <set>

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

struct NameCase {
  const char* name;
  SpanClass cls;
};

class ClassFromName : public ::testing::TestWithParam<NameCase> {};

TEST_P(ClassFromName, RecognisesOtherToolsNames) {
  EXPECT_EQ(class_from_name(GetParam().name, SpanClass::kCompute), GetParam().cls)
      << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Names, ClassFromName,
    ::testing::Values(NameCase{"ncclKernel_AllReduce_RING_LL_Sum_float", SpanClass::kAllReduce},
                      NameCase{"nccl:all_reduce", SpanClass::kAllReduce},
                      NameCase{"ncclDevKernel_ReduceScatter_Sum_bf16", SpanClass::kReduceScatter},
                      NameCase{"nccl:_all_gather_base", SpanClass::kAllGather},
                      NameCase{"ncclKernel_Broadcast_RING_LL", SpanClass::kBroadcast},
                      NameCase{"ncclKernel_Reduce_RING_LL_Sum", SpanClass::kReduce},
                      // NCCL 2.19+'s kernel names (ncclDevKernel_*): Reduce too.
                      NameCase{"ncclDevKernel_Reduce_Sum_f32_RING_LL", SpanClass::kReduce},
                      // "reduce" and "gather" only where the name is NCCL's.
                      NameCase{"reduce_kernel<512, 1>", SpanClass::kCompute},
                      NameCase{"indexSelectLargeIndex (embedding gather)", SpanClass::kCompute},
                      NameCase{"all-gather.3", SpanClass::kAllGather},
                      NameCase{"elementwise_bcast_add", SpanClass::kCompute},
                      NameCase{"nccl:gather", SpanClass::kCollective},
                      NameCase{"nccl:all_to_all", SpanClass::kAllToAll},
                      NameCase{"ncclKernel_SendRecv", SpanClass::kTransfer},
                      NameCase{"Memcpy DtoD (Device -> Device)", SpanClass::kTransfer},
                      NameCase{"ncclKernel_Unknown", SpanClass::kCollective},
                      NameCase{"psum_scatter", SpanClass::kReduceScatter},
                      NameCase{"ampere_sgemm_128x64_nn", SpanClass::kCompute},
                      NameCase{"aten::mm", SpanClass::kCompute}));

TEST(Palette, EveryClassHasItsOwnColourAndLabel) {
  std::set<std::uint32_t> colours;
  std::set<std::string_view> labels;
  for (int c = 0; c < kNumSpanClasses; ++c) {
    colours.insert(class_rgb(static_cast<SpanClass>(c)));
    labels.insert(class_style(static_cast<SpanClass>(c)).label);
  }
  EXPECT_EQ(colours.size(), static_cast<size_t>(kNumSpanClasses));
  EXPECT_EQ(labels.size(), static_cast<size_t>(kNumSpanClasses));
}

TEST(Palette, ComputeSpansTakeTheirPhaseAndCollectivesTheProgramsKind) {
  ProgramBuilder b("p", 2);
  const StreamId s0 = b.stream(0, "compute"), s1 = b.stream(1, "compute");
  b.add_collective(CollectiveKind::kAllGather, CollectiveAlgorithm::kRing, {0, 1}, 1024, {s0, s1},
                   "gather");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  TraceSpan s;
  s.kind = TaskKind::kCollective;
  s.collective = 0;
  EXPECT_EQ(span_class(s, "anything", &*p), SpanClass::kAllGather);
  EXPECT_EQ(span_class(s, "allreduce x", nullptr), SpanClass::kAllReduce);  // no Program: the name
  s.kind = TaskKind::kCompute;
  for (auto [phase, cls] : {std::pair{Phase::kForward, SpanClass::kForward},
                            {Phase::kBackward, SpanClass::kBackward},
                            {Phase::kRecompute, SpanClass::kRecompute},
                            {Phase::kOptimizer, SpanClass::kOptimizer},
                            {Phase::kOther, SpanClass::kCompute}}) {
    s.phase = phase;
    EXPECT_EQ(span_class(s, "", nullptr), cls);
  }
  s.kind = TaskKind::kTransfer;
  EXPECT_EQ(span_class(s, "", nullptr), SpanClass::kTransfer);
}

}  // namespace
}  // namespace brigade::gui
