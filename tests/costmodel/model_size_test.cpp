// Transformer parameter and FLOP counts against Megatron-LM (Narayanan et al.
// 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM", Eq. 2, Eq. 3 and Table 1), and MLP counts by hand.
#include "costmodel/model_size.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace brigade::cost {
namespace {

// A tiny layer by hand: h = 8, V = 16, s = 4, l = 1: 12*64 + 13*8 = 872 per layer;
// (16 + 4) * 8 = 160 embedding; total 1032 = 12*1*64 * (1 + 13/96 + 20/96) = 768 * 1.34375.
TEST(TransformerParameters, TinyByHand) {
  EXPECT_EQ(transformer_layer_parameters(8), 872.0);
  EXPECT_EQ(embedding_parameters(16, 4, 8), 160.0);
  EXPECT_EQ(transformer_parameters(1, 8, 16, 4), 1032.0);
}

// Per tensor-parallel rank, h = 8, r = 4, t = 2: (12*64 + 7*8)/2 + 2*8 + 4*8 = 412 + 16 + 32 = 460;
// embeddings V = 16, s = 4: 16*8/2 + 4*8 = 96.
TEST(TransformerParameters, PerTensorRankByHand) {
  EXPECT_EQ(transformer_layer_parameters_per_rank(8, 4, 2), 460.0);
  EXPECT_EQ(embedding_parameters_per_rank(16, 4, 8, 2), 96.0);
}

struct Table1Row {
  double billions;  // "Number of parameters (billion)" as printed
  int heads, hidden, layers;
};

void PrintTo(const Table1Row& r, std::ostream* os) { *os << r.billions << "B"; }

class MegatronTable1 : public ::testing::TestWithParam<Table1Row> {};

// Eq. 2 with V = 51,200 and s = 2048 (all Table 1 models) rounds to the printed
// count; and the per-layer decomposition equals Eq. 2 written as in the paper.
TEST_P(MegatronTable1, ParameterCountMatchesPrintedPrecision) {
  const Table1Row& r = GetParam();
  const double l = r.layers, h = r.hidden, V = 51200, s = 2048;
  const double p = transformer_parameters(l, h, V, s);
  const double eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
  EXPECT_NEAR(p, eq2, eq2 * 1e-14);
  EXPECT_DOUBLE_EQ(std::round(p / 1e8) / 10, r.billions) << p;
}

// Table 1: parameters (billion), attention heads, hidden size, number of layers.
INSTANTIATE_TEST_SUITE_P(
    Rows, MegatronTable1,
    ::testing::Values(Table1Row{1.7, 24, 2304, 24}, Table1Row{3.6, 32, 3072, 30},
                      Table1Row{7.5, 32, 4096, 36}, Table1Row{18.4, 48, 6144, 40},
                      Table1Row{39.1, 64, 8192, 48}, Table1Row{76.1, 80, 10240, 60},
                      Table1Row{145.6, 96, 12288, 80}, Table1Row{310.1, 128, 16384, 96},
                      Table1Row{529.6, 128, 20480, 105}, Table1Row{1008.0, 160, 25600, 128}));

// B = 1, s = 4, l = 1, h = 8, V = 16 by hand:
//   forward layer 24*1*4*64 + 4*1*16*8 = 6144 + 512 = 6656; logits 2*4*8*16 = 1024.
//   none:      3*6656 + 3*1024 = 23040 = 72*4*64 (1 + 4/48 + 16/96) = 18432 * 1.25
//   full:      4*6656 + 3*1024 = 29696 = 96*4*64 (1 + 4/48 + 16/128) = 24576 * 29/24   (Eq. 3)
//   selective: 23040 + 4*4^2*8 = 23552 = 72*4*64 (1 + 8/72 + 16/96) = 18432 * 23/18
TEST(TransformerFlops, TinyByHand) {
  EXPECT_EQ(transformer_layer_forward_flops(1, 4, 8), 6656.0);
  EXPECT_EQ(logits_forward_flops(1, 4, 8, 16), 1024.0);
  EXPECT_EQ(transformer_flops_per_iteration(1, 4, 1, 8, 16, Recompute::kNone), 23040.0);
  EXPECT_EQ(transformer_flops_per_iteration(1, 4, 1, 8, 16, Recompute::kFull), 29696.0);
  EXPECT_EQ(transformer_flops_per_iteration(1, 4, 1, 8, 16, Recompute::kSelective), 23552.0);
}

// Eq. 3 as printed, F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)), for the 145.6B row with
// B = 2304 (Table 1's batch); 72 instead of 96 and V/(12lh) without recomputation.
TEST(TransformerFlops, MatchesEquation3) {
  const double B = 2304, s = 2048, l = 80, h = 12288, V = 51200;
  const double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  const double model = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  const double selective = 72 * B * s * l * h * h * (1 + 2 * s / (9 * h) + V / (12 * l * h));
  EXPECT_NEAR(transformer_flops_per_iteration(B, s, l, h, V, Recompute::kFull), eq3, eq3 * 1e-14);
  EXPECT_NEAR(transformer_flops_per_iteration(B, s, l, h, V, Recompute::kNone), model, model * 1e-14);
  EXPECT_NEAR(transformer_flops_per_iteration(B, s, l, h, V, Recompute::kSelective), selective,
              selective * 1e-14);
}

// The seed's linear layer y = xW + b, W 16x16, 8 rows: 256 + 16 = 272 parameters;
// forward 2*8*16*16 + 8*16 = 4096 + 128 = 4224 FLOP; backward 2*4096 + 128 = 8320 FLOP.
TEST(Mlp, SeedLinearLayerByHand) {
  EXPECT_EQ(mlp_parameters({16, 16}, true), 272.0);
  EXPECT_EQ(mlp_parameters({16, 16}, false), 256.0);
  EXPECT_EQ(mlp_forward_flops(8, {16, 16}, true), 4224.0);
  EXPECT_EQ(mlp_backward_flops(8, {16, 16}, true), 8320.0);
  // Two layers [512, 2048, 512], 8 rows, no bias: 2 * (2*8*512*2048) = 33,554,432 forward.
  EXPECT_EQ(mlp_forward_flops(8, {512, 2048, 512}, false), 33554432.0);
}

}  // namespace
}  // namespace brigade::cost
