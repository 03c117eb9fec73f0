#include "planner/builders.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/planner/megatron_table1.hpp"

namespace brigade::planner {
namespace {

using testing::megatron_eq2;
using testing::megatron_eq3;
using testing::megatron_eq3_no_recompute;
using testing::megatron_table1;
using testing::Table1Row;

TransformerSpec spec_of(const Table1Row& r) {
  TransformerSpec s;
  s.layers = r.layers;
  s.hidden = r.hidden;
  s.heads = r.heads;
  s.seq = testing::kTable1Seq;
  s.vocab = testing::kTable1Vocab;
  s.dtype = DType::kF16;
  return s;
}

// FLOPs of one iteration over a batch of B sequences, summed from the block
// templates (l layers forward + recompute + backward, embedding, head).
double template_flops(const TransformerSpec& spec, std::int64_t B, Recompute r) {
  TransformerShape shape;
  shape.spec = spec;
  shape.micro_batch = B;
  shape.recompute = r;
  auto layer = transformer_layer(shape);
  auto emb = embedding_block(shape);
  auto head = head_block(shape);
  EXPECT_TRUE(layer.is_ok() && emb.is_ok() && head.is_ok());
  const double per_layer =
      layer->forward_flops() + layer->recompute_flops() + layer->backward_flops();
  return static_cast<double>(spec.layers) * per_layer + emb->forward_flops() +
         emb->backward_flops() + head->forward_flops() + head->backward_flops();
}

class Table1 : public ::testing::TestWithParam<Table1Row> {};

TEST_P(Table1, ParamsMatchTheTablesColumn) {
  const Table1Row& r = GetParam();
  const double p = megatron_eq2(static_cast<double>(r.layers), static_cast<double>(r.hidden),
                                testing::kTable1Vocab, testing::kTable1Seq);
  EXPECT_DOUBLE_EQ(std::round(p / 1e8) / 10, r.billions);
}

TEST_P(Table1, ParametersEqualEq2) {
  const Table1Row& r = GetParam();
  const double want = megatron_eq2(static_cast<double>(r.layers), static_cast<double>(r.hidden),
                                   testing::kTable1Vocab, testing::kTable1Seq);
  EXPECT_NEAR(transformer_parameters(spec_of(r)) / want, 1.0, 1e-12);
}

TEST_P(Table1, FlopsEqualEq3WithFullRecomputation) {
  const Table1Row& r = GetParam();
  const double want =
      megatron_eq3(static_cast<double>(r.batch), testing::kTable1Seq, static_cast<double>(r.layers),
                   static_cast<double>(r.hidden), testing::kTable1Vocab);
  EXPECT_NEAR(template_flops(spec_of(r), r.batch, Recompute::kFull) / want, 1.0, 1e-9);
}

TEST_P(Table1, FlopsWithoutRecomputationAre72Form) {
  const Table1Row& r = GetParam();
  const double want = megatron_eq3_no_recompute(
      static_cast<double>(r.batch), testing::kTable1Seq, static_cast<double>(r.layers),
      static_cast<double>(r.hidden), testing::kTable1Vocab);
  EXPECT_NEAR(template_flops(spec_of(r), r.batch, Recompute::kNone) / want, 1.0, 1e-9);
}

TEST_P(Table1, SelectiveRecomputationAddsTheAttentionCore) {
  // Selective recomputation reruns the two attention GEMMs (QK^T and
  // attention over V): 2 * 2bs^2h = 4Bs^2h per layer on top of the 72 form.
  const Table1Row& r = GetParam();
  const double B = static_cast<double>(r.batch), s = testing::kTable1Seq;
  const double l = static_cast<double>(r.layers), h = static_cast<double>(r.hidden);
  const double want =
      megatron_eq3_no_recompute(B, s, l, h, testing::kTable1Vocab) + 4 * B * s * s * l * h;
  EXPECT_NEAR(template_flops(spec_of(r), r.batch, Recompute::kSelective) / want, 1.0, 1e-9);
}

TEST_P(Table1, ModelGraphCountsEq2AndEq3) {
  // The core Model of the whole network (one device, a batch of 2 sequences):
  // its parameter tensors add up to Eq. 2 and its ops' FLOPs to Eq. 3.
  const Table1Row& r = GetParam();
  auto m = build_transformer_model(spec_of(r), 2, Recompute::kFull, Optimizer::kAdam);
  ASSERT_TRUE(m.is_ok()) << m.message();
  const double l = static_cast<double>(r.layers), h = static_cast<double>(r.hidden);
  EXPECT_NEAR(m->parameter_count() / megatron_eq2(l, h, testing::kTable1Vocab, testing::kTable1Seq),
              1.0, 1e-12);
  EXPECT_NEAR(m->total_flops() / megatron_eq3(2, testing::kTable1Seq, l, h, testing::kTable1Vocab),
              1.0, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Megatron, Table1, ::testing::ValuesIn(megatron_table1()),
                         [](const auto& row) { return std::string(row.param.name); });

// Activation memory per layer, Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models"), Section 4: with s, b, h, a,
// t and 16-bit activations,
//   no parallelism:              s b h (34 + 5as/h)
//   tensor parallel:             s b h (10 + 24/t + 5as/(ht))
//   tensor + sequence parallel:  s b h (34/t + 5as/(ht))
//   selective recomputation:     drops the 5as/h term
//   full recomputation:          2 s b h (the layer input; /t with SP)
struct ActivationCase {
  int t;
  bool sp;
  Recompute r;
};

double korthikanti(double s, double b, double h, double a, double t, bool sp, Recompute r) {
  if (r == Recompute::kFull) return 2 * s * b * h / (sp ? t : 1);
  const double attn = r == Recompute::kSelective ? 0 : 5 * a * s / (h * t);
  if (sp) return s * b * h * (34 / t + attn);
  if (t > 1) return s * b * h * (10 + 24 / t + attn);
  return s * b * h * (34 + attn);
}

class Activations : public ::testing::TestWithParam<ActivationCase> {};

TEST_P(Activations, SavedBytesMatchKorthikanti) {
  const ActivationCase c = GetParam();
  TransformerShape shape;
  shape.spec.layers = 2;
  shape.spec.hidden = 1024;
  shape.spec.heads = 16;
  shape.spec.seq = 512;
  shape.spec.vocab = 4096;
  shape.spec.dtype = DType::kBF16;
  shape.micro_batch = 4;
  shape.tensor = c.t;
  shape.sequence_parallel = c.sp;
  shape.recompute = c.r;
  auto layer = transformer_layer(shape);
  ASSERT_TRUE(layer.is_ok()) << layer.message();
  const double want = korthikanti(512, 4, 1024, 16, c.t, c.sp, c.r);
  EXPECT_NEAR(layer->saved_bytes() / want, 1.0, 1e-12);
  // Whatever the forward drops, the recomputation keeps again.
  if (c.r != Recompute::kNone) {
    const double all = korthikanti(512, 4, 1024, 16, c.t, c.sp, Recompute::kNone);
    EXPECT_NEAR((layer->saved_bytes() + layer->recompute_saved_bytes()) / all, 1.0, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Korthikanti, Activations,
                         ::testing::Values(ActivationCase{1, false, Recompute::kNone},
                                           ActivationCase{4, false, Recompute::kNone},
                                           ActivationCase{4, true, Recompute::kNone},
                                           ActivationCase{4, false, Recompute::kSelective},
                                           ActivationCase{4, true, Recompute::kSelective},
                                           ActivationCase{1, false, Recompute::kFull},
                                           ActivationCase{4, true, Recompute::kFull}),
                         // Named by value: gtest's default prints the struct's bytes,
                         // padding included, which differ between runs (ctest then
                         // cannot find the names it registered).
                         [](const ::testing::TestParamInfo<ActivationCase>& p) {
                           return "t" + std::to_string(p.param.t) + (p.param.sp ? "_sp_" : "_") +
                                  std::string(recompute_name(p.param.r));
                         });

int count(const std::vector<Kernel>& ks, CollectiveKind kind) {
  int n = 0;
  for (const Kernel& k : ks) n += k.is_collective && k.collective == kind;
  return n;
}

TEST(TransformerLayer, TensorParallelHasTwoAllReducesEachWay) {
  TransformerShape shape;
  shape.spec = {4, 1024, 16, 512, 4096, 4.0, DType::kBF16};
  shape.tensor = 4;
  auto l = transformer_layer(shape);
  ASSERT_TRUE(l.is_ok());
  EXPECT_EQ(count(l->forward, CollectiveKind::kAllReduce), 2);
  EXPECT_EQ(count(l->backward, CollectiveKind::kAllReduce), 2);
  EXPECT_EQ(count(l->forward, CollectiveKind::kAllGather), 0);
  // Each carries the full (b, s, h) activation: 1 * 512 * 1024 * 2 bytes.
  for (const Kernel& k : l->forward) {
    if (k.is_collective) {
      EXPECT_DOUBLE_EQ(k.collective_bytes, 512.0 * 1024 * 2);
    }
  }
}

TEST(TransformerLayer, SequenceParallelGathersAndScatters) {
  TransformerShape shape;
  shape.spec = {4, 1024, 16, 512, 4096, 4.0, DType::kBF16};
  shape.tensor = 4;
  shape.sequence_parallel = true;
  auto l = transformer_layer(shape);
  ASSERT_TRUE(l.is_ok());
  EXPECT_EQ(count(l->forward, CollectiveKind::kAllReduce), 0);
  EXPECT_EQ(count(l->forward, CollectiveKind::kAllGather), 2);
  EXPECT_EQ(count(l->forward, CollectiveKind::kReduceScatter), 2);
  // Backward: the transposes (2 all-gathers, 2 reduce-scatters) plus the
  // re-gathers of the QKV and fc1 inputs for their weight gradients.
  EXPECT_EQ(count(l->backward, CollectiveKind::kAllReduce), 0);
  EXPECT_EQ(count(l->backward, CollectiveKind::kAllGather), 4);
  EXPECT_EQ(count(l->backward, CollectiveKind::kReduceScatter), 2);
}

TEST(TransformerLayer, NoCollectivesOnOneDevice) {
  TransformerShape shape;
  shape.spec = {4, 1024, 16, 512, 4096, 4.0, DType::kBF16};
  auto l = transformer_layer(shape);
  ASSERT_TRUE(l.is_ok());
  for (const auto* ks : {&l->forward, &l->backward})
    for (const Kernel& k : *ks) {
      EXPECT_FALSE(k.is_collective) << k.name;
    }
}

TEST(TransformerLayer, PerRankShapesDivideByTheTensorDegree) {
  // h = 1024, 16 heads, t = 8: QKV weight (1024, 3072) -> (1024, 384) per
  // rank; fc1 (1024, 4096) -> (1024, 512); projection (1024, 1024) -> (128, 1024).
  TransformerShape shape;
  shape.spec = {4, 1024, 16, 512, 4096, 4.0, DType::kBF16};
  shape.tensor = 8;
  auto l = transformer_layer(shape);
  ASSERT_TRUE(l.is_ok());
  auto find = [&](const std::string& n) {
    for (const ParamGroup& g : l->params)
      for (const ParamTensor& t : g.tensors)
        if (t.name == n) return t.local_shape;
    return std::vector<std::int64_t>{};
  };
  EXPECT_EQ(find("attn.qkv.weight"), (std::vector<std::int64_t>{1024, 384}));
  EXPECT_EQ(find("mlp.fc1.weight"), (std::vector<std::int64_t>{1024, 512}));
  EXPECT_EQ(find("attn.proj.weight"), (std::vector<std::int64_t>{128, 1024}));
  EXPECT_EQ(find("ln1.weight"), (std::vector<std::int64_t>{1024}));
}

// Divisibility is check_plan's (tests/core/plan_check_test.cpp); the
// templates only refuse a dimension that would divide by zero.
TEST(TransformerLayer, NonPositiveDimensionIsAnError) {
  TransformerShape shape;
  shape.spec = {4, 1536, 12, 512, 4096, 4.0, DType::kBF16};
  shape.tensor = 0;
  auto l = transformer_layer(shape);
  ASSERT_FALSE(l.is_ok());
  EXPECT_EQ(l.message(),
            "transformer: found a non-positive dimension; expected layers, hidden, heads, seq, "
            "micro-batch and tensor degree >= 1 and vocab >= 0");
}

}  // namespace
}  // namespace brigade::planner
