// Model::infer() on explicit graphs: shapes, dtypes, FLOPs and bytes worked
// out by hand, the parameter rule, and every shape/graph error exactly.
// FLOP conventions (docs/scenario-format.md, "FLOPs and bytes of graph ops"):
// matmul 2mnk per product; relu/add/mul 1 per element; gelu 9 (tanh form,
// Hendrycks & Gimpel 2016); softmax 5 (Milakov & Gimelshein 2018, Alg. 2);
// layernorm 5 + 1 per affine input (Ba et al. 2016, Eq. 4).
#include "core/model.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/scenario.hpp"

namespace brigade {
namespace {

// A scenario whose graph is `tensors` and `ops` (YAML flow or block text,
// indented under "model: graph:").
Result<Scenario> graph(const std::string& tensors, const std::string& ops) {
  return parse_scenario(
      "topology: {preset: pcie-4gpu}\n"
      "model:\n"
      "  graph:\n"
      "    tensors: " +
          tensors +
          "\n"
          "    ops:\n" +
          ops,
      "g.yaml");
}

const TensorSpec& tensor(const Model& m, const std::string& name) {
  return m.tensors[static_cast<size_t>(m.find_tensor(name))];
}

const Op& op(const Model& m, const std::string& name) {
  return m.ops[static_cast<size_t>(m.find_op(name))];
}

TEST(ModelInfer, MatmulShapeFlopsBytes) {
  auto r = graph("{x: [8, 512, f32], w: [512, 2048, f32]}",
                 "      - {name: mm, op: matmul, in: [x, w], out: h}\n");
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Model& m = r->graph;
  EXPECT_EQ(tensor(m, "h").shape, (std::vector<std::int64_t>{8, 2048}));
  EXPECT_EQ(tensor(m, "h").dtype, DType::kF32);
  // 2mnk = 2 * 8 * 2048 * 512 = 16,777,216
  EXPECT_DOUBLE_EQ(op(m, "mm").flops, 16777216.0);
  // (8*512 + 512*2048 + 8*2048) * 4 B = (4096 + 1048576 + 16384) * 4 = 4,276,224
  EXPECT_DOUBLE_EQ(op(m, "mm").bytes, 4276224.0);
}

TEST(ModelInfer, BatchedMatmulBroadcastsBatchDims) {
  auto r = graph(
      "{a: [2, 1, 8, 16, bf16], b: [3, 16, 32, bf16], c: [4, 8, 16, bf16], w: [16, 32, bf16]}",
      "      - {name: bmm, op: matmul, in: [a, b], out: y}\n"
      "      - {name: mm, op: matmul, in: [c, w], out: z}\n");
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Model& m = r->graph;
  // batch dims [2, 1] and [3] broadcast to [2, 3]: y is [2, 3, 8, 32].
  EXPECT_EQ(tensor(m, "y").shape, (std::vector<std::int64_t>{2, 3, 8, 32}));
  EXPECT_EQ(tensor(m, "y").dtype, DType::kBF16);
  // 2 * 8 * 32 * 16 * (2*3) = 8192 * 6 = 49,152
  EXPECT_DOUBLE_EQ(op(m, "bmm").flops, 49152.0);
  // [4, 8, 16] x [16, 32]: 2 * 8 * 32 * 16 * 4 = 32,768
  EXPECT_EQ(tensor(m, "z").shape, (std::vector<std::int64_t>{4, 8, 32}));
  EXPECT_DOUBLE_EQ(op(m, "mm").flops, 32768.0);
}

TEST(ModelInfer, ElementwiseSoftmaxLayerNormCounts) {
  auto r = graph(
      "{x: [8, 2048, f32], b: [2048, f32], s: [4, 128, f32], g: [128, f32], beta: [128, f32]}",
      "      - {name: r, op: relu, in: [x], out: xr}\n"
      "      - {name: ge, op: gelu, in: [x], out: xg}\n"
      "      - {name: ad, op: add, in: [x, b], out: xb}\n"
      "      - {name: sm, op: softmax, in: [s], out: p}\n"
      "      - {name: ln, op: layernorm, in: [s, g, beta], out: n}\n"
      "      - {name: ln0, op: layernorm, in: [s], out: n0}\n");
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Model& m = r->graph;
  // 8 * 2048 = 16,384 elements.
  EXPECT_DOUBLE_EQ(op(m, "r").flops, 16384.0);         // 1 per element
  EXPECT_DOUBLE_EQ(op(m, "ge").flops, 9.0 * 16384.0);  // 147,456
  EXPECT_DOUBLE_EQ(op(m, "ad").flops, 16384.0);        // [8,2048] + [2048] broadcast
  EXPECT_EQ(tensor(m, "xb").shape, (std::vector<std::int64_t>{8, 2048}));
  // (8*2048 + 2048 + 8*2048) * 4 B = (16384 + 2048 + 16384) * 4 = 139,264
  EXPECT_DOUBLE_EQ(op(m, "ad").bytes, 139264.0);
  // 4 * 128 = 512 elements: softmax 5 * 512 = 2560; layernorm (5 + 2) * 512 = 3584, bare 2560.
  EXPECT_DOUBLE_EQ(op(m, "sm").flops, 2560.0);
  EXPECT_DOUBLE_EQ(op(m, "ln").flops, 3584.0);
  EXPECT_DOUBLE_EQ(op(m, "ln0").flops, 2560.0);
  EXPECT_EQ(tensor(m, "n").shape, (std::vector<std::int64_t>{4, 128}));
}

TEST(ModelInfer, EmbeddingAndLosses) {
  auto r = graph(
      "{ids: [4, 16, i32], table: [1000, 64, f32], pred: [8, 1, f32], y: [8, 1, f32], "
      "logits: [8, 100, f32], labels: [8, i32]}",
      "      - {name: emb, op: embedding, in: [ids, table], out: e}\n"
      "      - {name: l2, op: mse, in: [pred, y], out: loss}\n"
      "      - {name: ce, op: loss, fn: cross_entropy, in: [logits, labels], out: xent}\n");
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Model& m = r->graph;
  EXPECT_EQ(tensor(m, "e").shape, (std::vector<std::int64_t>{4, 16, 64}));
  EXPECT_EQ(tensor(m, "e").dtype, DType::kF32);
  EXPECT_DOUBLE_EQ(op(m, "emb").flops, 0.0);
  // ids 64 * 4 B = 256, plus rows read and written 2 * (4*16*64) * 4 B = 32,768: 33,024.
  EXPECT_DOUBLE_EQ(op(m, "emb").bytes, 33024.0);
  EXPECT_TRUE(tensor(m, "loss").shape.empty());    // a scalar
  EXPECT_DOUBLE_EQ(op(m, "l2").flops, 3.0 * 8.0);  // 24
  // 4 * 800 logits + 3 * 8 rows = 3200 + 24 = 3224
  EXPECT_DOUBLE_EQ(op(m, "ce").flops, 3224.0);
}

TEST(ModelInfer, CustomOpKeepsGivenFlopsAndDefaultBytes) {
  auto r = graph("{x: [8, 8, f32], out: [4, f32]}",
                 "      - {name: c, op: custom, in: [x], out: out, flops: 1.5GFLOP}\n");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_DOUBLE_EQ(op(r->graph, "c").flops, 1.5e9);
  EXPECT_DOUBLE_EQ(op(r->graph, "c").bytes, (64 + 4) * 4.0);  // 272
}

TEST(ModelInfer, OpsMayBeListedBeforeTheirProducers) {
  auto r = graph("{x: [8, 512, f32], w1: [512, 2048, f32], w2: [2048, 512, f32]}",
                 "      - {name: mm2, op: matmul, in: [a, w2], out: y}\n"
                 "      - {name: act, op: relu, in: [h], out: a}\n"
                 "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(tensor(r->graph, "y").shape, (std::vector<std::int64_t>{8, 512}));
}

// DESIGN.md's two-chefs graph: 2 * (2*8*2048*512) + 8*2048 = 33,554,432 + 16,384
// = 33,570,816 FLOP; parameters w1 and w2: 2 * 512 * 2048 = 2,097,152.
TEST(ModelInfer, TotalsOfTheTwoChefsGraph) {
  auto r = graph("{x: [8, 512, f32], w1: [512, 2048, f32], w2: [2048, 512, f32]}",
                 "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
                 "      - {name: act, op: relu, in: [h], out: a}\n"
                 "      - {name: mm2, op: matmul, in: [a, w2], out: y}\n");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_DOUBLE_EQ(r->graph.total_flops(), 33570816.0);
  EXPECT_DOUBLE_EQ(r->graph.parameter_count(), 2097152.0);
  const std::vector<DataEdge> e = r->graph.edges();
  ASSERT_EQ(e.size(), 2u);  // mm1 -h-> act, act -a-> mm2
  EXPECT_EQ(e[0].from, 0);
  EXPECT_EQ(e[0].to, 1);
  EXPECT_EQ(e[1].from, 1);
  EXPECT_EQ(e[1].to, 2);
}

// The parameter rule: `param:` decides when given; otherwise graph inputs
// used as weights (matmul's right operand, embedding table, layernorm
// scale/shift) are parameters; produced tensors and left operands are not.
TEST(ModelInfer, ParameterRule) {
  auto r = graph(
      "{x: [4, 8, f32], w: [8, 8, f32], v: [8, 8, f32], frozen: {shape: [8, 8], param: false}, "
      "ids: [4, i32], table: [10, 8, f32], g: [8, f32], bias: {shape: [8], param: true}}",
      "      - {name: mm, op: matmul, in: [x, w], out: h}\n"
      "      - {name: mm2, op: matmul, in: [h, h2], out: y}\n"
      "      - {name: sq, op: matmul, in: [w, v], out: h2}\n"
      "      - {name: fz, op: matmul, in: [x, frozen], out: z}\n"
      "      - {name: emb, op: embedding, in: [ids, table], out: e}\n"
      "      - {name: ln, op: layernorm, in: [e, g], out: n}\n"
      "      - {name: b, op: add, in: [n, bias], out: nb}\n");
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Model& m = r->graph;
  EXPECT_FALSE(tensor(m, "x").is_parameter);  // left operand
  EXPECT_TRUE(tensor(m, "w").is_parameter);   // right operand of mm (also left of sq)
  EXPECT_TRUE(tensor(m, "v").is_parameter);
  EXPECT_FALSE(tensor(m, "h2").is_parameter);  // produced by an op
  EXPECT_FALSE(tensor(m, "frozen").is_parameter);
  EXPECT_TRUE(tensor(m, "table").is_parameter);
  EXPECT_TRUE(tensor(m, "g").is_parameter);
  EXPECT_TRUE(tensor(m, "bias").is_parameter);  // declared
  EXPECT_FALSE(tensor(m, "ids").is_parameter);
}

TEST(ModelInfer, MatmulInnerDimensionMismatchCitesTheOp) {
  // The op is on line 7, its map opens at column 9.
  auto r = graph("{x: [8, 512, f32], w: [256, 2048, f32]}",
                 "      - {name: act, op: relu, in: [x], out: xr}\n"
                 "      - {name: mm, op: matmul, in: [x, w], out: y}\n");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "g.yaml:7:9: error: found matmul of [8, 512] and [256, 2048]; expected "
            "inner dimensions to agree (512 vs 256)");
}

struct GraphError {
  const char* name;
  const char* tensors;
  const char* ops;  // the first op's map starts at line 6, column 9
  const char* expected;
};

void PrintTo(const GraphError& c, std::ostream* os) {
  *os << c.name;
}

class ModelInferError : public ::testing::TestWithParam<GraphError> {};

TEST_P(ModelInferError, ExactMessage) {
  const GraphError& c = GetParam();
  auto r = graph(c.tensors, c.ops);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), c.expected);
}

const GraphError kGraphErrors[] = {
    {"Cycle", "{x: [4, f32]}",
     "      - {name: a, op: add, in: [x, z], out: y}\n"
     "      - {name: b, op: relu, in: [y], out: z}\n",
     "g.yaml:6:9: error: found a dependency cycle a -> b -> a; expected an acyclic graph"},
    {"SelfCycle", "{x: [4, f32]}", "      - {name: a, op: add, in: [x, y], out: y}\n",
     "g.yaml:6:9: error: found a dependency cycle a -> a; expected an acyclic graph"},
    {"UnknownElementwiseFn", "{x: [4, f32]}",
     "      - {name: a, op: elementwise, fn: relu6, in: [x], out: y}\n",
     "g.yaml:6:9: error: found elementwise fn 'relu6'; expected one of relu, gelu, tanh, sigmoid, "
     "silu, exp, add, sub, mul, div (did you mean 'relu'?)"},
    {"UnknownLossFn", "{x: [4, f32], t: [4, f32]}",
     "      - {name: l, op: loss, fn: mae, in: [x, t], out: y}\n",
     "g.yaml:6:9: error: found loss fn 'mae'; expected one of mse, cross_entropy (did you mean "
     "'mse'?)"},
    {"RankTooSmall", "{v: [512, f32], w: [512, 2048, f32]}",
     "      - {name: mm, op: matmul, in: [v, w], out: y}\n",
     "g.yaml:6:9: error: found matmul of [512] and [512, 2048]; expected operands of rank 2 or "
     "more"},
    {"BatchDimsDoNotBroadcast", "{a: [4, 8, 16, f32], b: [3, 16, 32, f32]}",
     "      - {name: mm, op: matmul, in: [a, b], out: y}\n",
     "g.yaml:6:9: error: found matmul of [4, 8, 16] and [3, 16, 32]; expected batch dimensions "
     "that broadcast (4 vs 3)"},
    {"MixedDtypes", "{a: [8, 16, f32], b: [16, 32, bf16]}",
     "      - {name: mm, op: matmul, in: [a, b], out: y}\n",
     "g.yaml:6:9: error: found matmul of f32 [8, 16] and bf16 [16, 32]; expected operands of one "
     "dtype"},
    {"AddShapesDoNotBroadcast", "{a: [8, 512, f32], b: [8, 256, f32]}",
     "      - {name: s, op: add, in: [a, b], out: y}\n",
     "g.yaml:6:9: error: found add of [8, 512] and [8, 256]; expected shapes that broadcast (512 "
     "vs 256)"},
    {"WrongArity", "{a: [8, f32], b: [8, f32]}",
     "      - {name: r, op: relu, in: [a, b], out: y}\n",
     "g.yaml:6:9: error: found relu with 2 inputs; expected 1"},
    {"DeclaredOutputShapeDisagrees", "{x: [8, 512, f32], w: [512, 2048, f32], h: [8, 1024, f32]}",
     "      - {name: mm, op: matmul, in: [x, w], out: h}\n",
     "g.yaml:6:9: error: found output 'h' declared [8, 1024]; expected [8, 2048] (what op 'mm' "
     "produces)"},
    {"LayerNormScaleShape", "{x: [4, 128, f32], g: [64, f32]}",
     "      - {name: ln, op: layernorm, in: [x, g], out: y}\n",
     "g.yaml:6:9: error: found layernorm of [4, 128] with 'g' [64]; expected [128] (the normalised "
     "axis)"},
    {"CrossEntropyLabels", "{l: [8, 100, f32], t: [8, 100, f32]}",
     "      - {name: ce, op: cross_entropy, in: [l, t], out: y}\n",
     "g.yaml:6:9: error: found cross_entropy of logits [8, 100] and labels [8, 100]; expected "
     "labels "
     "shaped like the logits without their last axis"},
    {"MseShapes", "{p: [8, 1, f32], t: [8, f32]}",
     "      - {name: l, op: mse, in: [p, t], out: y}\n",
     "g.yaml:6:9: error: found mse of [8, 1] and [8]; expected prediction and target of one shape"},
    {"EmbeddingTableRank", "{ids: [4, i32], t: [10, 8, 2, f32]}",
     "      - {name: e, op: embedding, in: [ids, t], out: y}\n",
     "g.yaml:6:9: error: found embedding table 't' [10, 8, 2]; expected a table [vocab, hidden]"},
    {"CustomWithoutFlops", "{x: [4, f32], y: [4, f32]}",
     "      - {name: c, op: custom, in: [x], out: y}\n",
     "g.yaml:6:9: error: found custom op 'c' without flops; expected flops: its FLOP count"},
    {"CustomOutputWithoutShape", "{x: [4, f32]}",
     "      - {name: c, op: custom, in: [x], out: y, flops: 10}\n",
     "g.yaml:6:9: error: found output 'y' of custom op 'c' without a shape; expected a declared "
     "shape (custom ops are opaque)"},
};

INSTANTIATE_TEST_SUITE_P(Graph, ModelInferError, ::testing::ValuesIn(kGraphErrors),
                         [](const ::testing::TestParamInfo<GraphError>& i) {
                           return i.param.name;
                         });

// A graph built in code has no positions: messages name the op instead.
TEST(ModelInfer, GraphBuiltInCodeNamesTheOp) {
  Model m;
  m.tensors.push_back(TensorSpec{"x", {8, 512}, DType::kF32, false, true, {}});
  m.tensors.push_back(TensorSpec{"w", {256, 64}, DType::kF32, true, true, {}});
  m.tensors.push_back(TensorSpec{"y", {}, DType::kF32, false, false, {}});
  Op mm;
  mm.name = "mm";
  mm.kind = OpKind::kMatmul;
  mm.inputs = {0, 1};
  mm.outputs = {2};
  m.ops.push_back(mm);
  const Status st = m.infer();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(),
            "op 'mm': found matmul of [8, 512] and [256, 64]; expected inner "
            "dimensions to agree (512 vs 256)");
}

}  // namespace
}  // namespace brigade

namespace brigade {
namespace {

// The name index (issue 20, item 3) answers as the linear scan it replaced.
TEST(ModelIndex, AnswersAsAScanWhateverIsAppendedBetweenLookups) {
  Model m;
  EXPECT_EQ(m.find_tensor("x"), -1);
  for (int i = 0; i < 1000; ++i) {
    m.tensors.push_back(TensorSpec{"t" + std::to_string(i), {1}, DType::kF32, false, true, {}});
    EXPECT_EQ(m.find_tensor("t" + std::to_string(i)), i);
    EXPECT_EQ(m.find_tensor("t" + std::to_string(i + 1)), -1);
  }
  for (int i = 0; i < 1000; i += 37) EXPECT_EQ(m.find_tensor("t" + std::to_string(i)), i);
  // A repeated name finds the first entry, as a scan does.
  m.tensors.push_back(TensorSpec{"t5", {1}, DType::kF32, false, true, {}});
  EXPECT_EQ(m.find_tensor("t5"), 5);
}

TEST(ModelIndex, NoticesRemovalsAndIsRebuiltByReindexAfterARename) {
  Model m;
  for (const char* n : {"a", "b", "c"}) {
    Op o;
    o.name = n;
    m.ops.push_back(o);
  }
  EXPECT_EQ(m.find_op("c"), 2);
  m.ops.pop_back();
  EXPECT_EQ(m.find_op("c"), -1);
  m.ops[1].name = "z";
  m.reindex();
  EXPECT_EQ(m.find_op("z"), 1);
  EXPECT_EQ(m.find_op("b"), -1);
}

TEST(ModelIndex, CopiesAndMovesKeepAnswering) {
  Model m;
  m.tensors.push_back(TensorSpec{"x", {1}, DType::kF32, false, true, {}});
  EXPECT_EQ(m.find_tensor("x"), 0);
  Model copy = m;
  copy.tensors.push_back(TensorSpec{"y", {1}, DType::kF32, false, true, {}});
  EXPECT_EQ(copy.find_tensor("y"), 1);
  EXPECT_EQ(m.find_tensor("y"), -1);
  Model moved = std::move(copy);
  EXPECT_EQ(moved.find_tensor("y"), 1);
  EXPECT_EQ(copy.find_tensor("y"),
            -1);  // NOLINT(bugprone-use-after-move): a moved-from model is empty
}

}  // namespace
}  // namespace brigade
