// A JSON graph's ops are read straight from the compact JSON tree when
// every op is {name, op, in, out} and every check passes, and with cursors
// otherwise (core/scenario_graph.cpp, issue 20 item 3). The two readings
// must give the same model and the same messages. The text below is JSON;
// the same text with a YAML comment after it is not, so yaml-cpp reads it
// and the cursors read the ops, at the same lines and columns.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "core/scenario.hpp"

namespace brigade {
namespace {

Result<Scenario> read_json(const std::string& json) { return parse_scenario(json, "g.json"); }
Result<Scenario> read_as_yaml(const std::string& json) {
  return parse_scenario(json + "\n# not JSON: yaml-cpp and the cursors read this\n", "g.json");
}

std::string scenario(const std::string& tensors, const std::string& ops) {
  return "{\"topology\": {\"preset\": \"pcie-4gpu\"},\n \"model\": {\"graph\": {\"tensors\": {" +
         tensors + "},\n \"ops\": [\n" + ops + "]}}}";
}

void expect_same_model(const Model& a, const Model& b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const TensorSpec &x = a.tensors[i], &y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.shape, y.shape) << x.name;
    EXPECT_EQ(x.dtype, y.dtype) << x.name;
    EXPECT_EQ(x.is_parameter, y.is_parameter) << x.name;
    EXPECT_EQ(x.shape_given, y.shape_given) << x.name;
    EXPECT_EQ(x.pos.str(), y.pos.str()) << x.name;
  }
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op &x = a.ops[i], &y = b.ops[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind) << x.name;
    EXPECT_EQ(x.fn, y.fn) << x.name;
    EXPECT_EQ(x.inputs, y.inputs) << x.name;
    EXPECT_EQ(x.outputs, y.outputs) << x.name;
    EXPECT_EQ(x.flops, y.flops) << x.name;
    EXPECT_EQ(x.bytes, y.bytes) << x.name;
    EXPECT_EQ(x.pos.str(), y.pos.str()) << x.name;
  }
}

TEST(ScenarioGraph, FastJsonReadEqualsTheCursorRead) {
  // Outputs declared and not, a list of outputs, an input named before its
  // producer (pass 2), parameters inferred (matmul's right operand,
  // layernorm's scale and shift), every op spelling the fast path reads.
  const std::string text = scenario(
      "\"x\": [8, 16, \"f32\"], \"w\": [16, 16, \"f32\"], \"g\": [16, \"f32\"], "
      "\"b\": [16, \"f32\"], \"y\": [8, 16, \"f32\"]",
      "  {\"name\": \"mm\", \"op\": \"matmul\", \"in\": [\"x\", \"w\"], \"out\": \"h\"},\n"
      "  {\"name\": \"act\", \"op\": \"gelu\", \"in\": \"h\", \"out\": [\"a\"]},\n"
      "  {\"out\": \"n\", \"in\": [\"a2\", \"g\", \"b\"], \"op\": \"layernorm\", \"name\": \"ln\"},\n"
      "  {\"name\": \"dup\", \"op\": \"add\", \"in\": [\"a\", \"a\"], \"out\": \"a2\"},\n"
      "  {\"name\": \"sm\", \"op\": \"softmax\", \"in\": \"n\", \"out\": \"p\"},\n"
      "  {\"name\": \"loss\", \"op\": \"mse\", \"in\": [\"p\", \"y\"], \"out\": \"l\"}\n");
  const Result<Scenario> fast = read_json(text);
  const Result<Scenario> slow = read_as_yaml(text);
  ASSERT_TRUE(fast.is_ok()) << fast.message();
  ASSERT_TRUE(slow.is_ok()) << slow.message();
  expect_same_model(fast->graph, slow->graph);
  // Hand-checked anchors, so that the test fails if both readings go wrong
  // the same way: ln waits for a2 (pass 2), w is a parameter, h is an
  // undeclared output placed at its name.
  const Model& g = fast->graph;
  ASSERT_EQ(g.ops.size(), 6u);
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.ops[2].inputs[0])].name, "a2");
  EXPECT_TRUE(g.tensors[static_cast<size_t>(g.find_tensor("w"))].is_parameter);
  EXPECT_FALSE(g.tensors[static_cast<size_t>(g.find_tensor("x"))].is_parameter);
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.find_tensor("h"))].pos.str(), "g.json:4:59");
  EXPECT_EQ(g.ops[1].pos.str(), "g.json:5:3");
}

// Graphs the fast path declines (a key it does not read, a name left out)
// or that hold an error: the messages are the cursor reading's, at the same
// place, whichever parser read the text.
TEST(ScenarioGraph, EveryFaultIsWordedAsTheCursorReadingWordsIt) {
  const std::string t = "\"x\": [4, 4, \"f32\"], \"w\": {\"shape\": [4, 4], \"param\": true}";
  const std::string ok = "  {\"name\": \"a\", \"op\": \"relu\", \"in\": \"x\", \"out\": \"h\"},\n";
  struct Case {
    std::string ops, message;
  };
  const Case cases[] = {
      {ok + "  {\"name\": \"a\", \"op\": \"relu\", \"in\": \"h\", \"out\": \"k\"}\n",
       "g.json:5:12: error: found op name 'a' a second time; expected unique op names"},
      {ok + "  {\"name\": \"b\", \"op\": \"relu\", \"in\": \"x\", \"out\": \"h\"}\n",
       "g.json:5:49: error: found tensor 'h' as an output of op 'b'; expected each tensor to be "
       "produced by one op (op 'a' produces it)"},
      {ok + "  {\"name\": \"b\", \"op\": \"relu\", \"in\": \"x\", \"out\": [\"k\", \"w\"]}\n",
       "g.json:5:55: error: found parameter 'w' as an output of op 'b'; expected parameters to be "
       "graph inputs"},
      {ok + "  {\"name\": \"b\", \"op\": \"relu\", \"in\": [\"h\", \"hh\"], \"out\": \"k\"}\n",
       "g.json:5:43: error: found tensor 'hh' as an input of op 'b'; expected a declared tensor "
       "or an op's output (did you mean 'h'?)"},
      {ok + "  {\"name\": \"b\", \"op\": \"rleu\", \"in\": \"h\", \"out\": \"k\"}\n",
       "g.json:5:23: error: found op 'rleu'; expected one of matmul, elementwise, relu, gelu, "
       "tanh, sigmoid, silu, exp, add, sub, mul, div, softmax, layernorm, embedding, loss, mse, "
       "cross_entropy, custom (did you mean 'relu'?)"},
      {ok + "  {\"name\": \"\", \"op\": \"relu\", \"in\": \"h\", \"out\": \"k\"}\n",
       "g.json:5:12: error: found ''; expected a name on one line"},
      {ok + "  {\"name\": \"b\", \"op\": \"elementwise\", \"in\": \"h\", \"out\": \"k\"}\n",
       "g.json:5:17: error: found op 'elementwise' without 'fn'; expected fn: the function, such "
       "as relu or mse"},
      {ok + "  {\"name\": \"b\", \"op\": \"relu\", \"in\": \"h\", \"out\": []}\n",
       "g.json:5:49: error: found an empty list; expected at least one output tensor"},
      {ok + "  {\"name\": \"b\", \"op\": \"relu\", \"in\": \"h\", \"out\": \"k\", \"size\": 3}\n",
       "g.json:5:54: error: found key 'size'; expected one of name, op, in, out, fn, flops, bytes"},
  };
  for (const Case& c : cases) {
    const std::string text = scenario(t, c.ops);
    const Result<Scenario> fast = read_json(text);
    const Result<Scenario> slow = read_as_yaml(text);
    ASSERT_FALSE(fast.is_ok()) << c.ops;
    ASSERT_FALSE(slow.is_ok()) << c.ops;
    EXPECT_EQ(fast.message(), c.message) << c.ops;
    EXPECT_EQ(fast.message(), slow.message()) << c.ops;
  }
  // A graph the fast path declines but that is right: flops given, a name
  // left out (op1), fn spelled apart; the model is the cursors'.
  const std::string declined = scenario(
      t, ok + "  {\"op\": \"elementwise\", \"fn\": \"tanh\", \"in\": \"h\", \"out\": \"k\", "
              "\"flops\": 64}\n");
  const Result<Scenario> fast = read_json(declined);
  const Result<Scenario> slow = read_as_yaml(declined);
  ASSERT_TRUE(fast.is_ok()) << fast.message();
  ASSERT_TRUE(slow.is_ok()) << slow.message();
  expect_same_model(fast->graph, slow->graph);
  EXPECT_EQ(fast->graph.ops[1].name, "op1");
  EXPECT_EQ(fast->graph.ops[1].flops, 64);
}

// The placement of a JSON scenario is read from the tree the same way:
// indices and device names, positions of the keys in file order, the map
// itself; and a placement it declines is worded by the cursors.
TEST(ScenarioGraph, FastJsonPlacementEqualsTheCursorRead) {
  const std::string ops =
      "  {\"name\": \"a\", \"op\": \"relu\", \"in\": \"x\", \"out\": \"h\"},\n"
      "  {\"name\": \"b\", \"op\": \"relu\", \"in\": \"h\", \"out\": \"k\"},\n"
      "  {\"name\": \"c\", \"op\": \"relu\", \"in\": \"k\", \"out\": \"m\"}\n";
  auto with_placement = [&](const std::string& placement) {
    std::string text = scenario("\"x\": [4, 4, \"f32\"]", ops);
    text.pop_back();  // the scenario's closing brace
    return text + ",\n \"placement\": {" + placement + "}}";
  };
  const std::string good = with_placement("\"c\": 3, \"a\": \"gpu1\", \"b\": 0");
  const Result<Scenario> fast = read_json(good);
  const Result<Scenario> slow = read_as_yaml(good);
  ASSERT_TRUE(fast.is_ok()) << fast.message();
  ASSERT_TRUE(slow.is_ok()) << slow.message();
  EXPECT_EQ(fast->placement, (std::map<std::string, int>{{"a", 1}, {"b", 0}, {"c", 3}}));
  EXPECT_EQ(fast->placement, slow->placement);
  ASSERT_EQ(fast->placement_positions.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const Scenario::EntryPosition &x = fast->placement_positions[i],
                                  &y = slow->placement_positions[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.line, y.line);
    EXPECT_EQ(x.column, y.column);
  }
  EXPECT_EQ(fast->where("placement.a").str(), "g.json:8:24");
  for (const std::string& bad : {std::string("\"a\": 4"), std::string("\"a\": \"gpu9\""),
                                 std::string("\"a\": null"), std::string("\"a\": [1]"),
                                 std::string("\"a\": -1"), std::string("\"\": 1")}) {
    const Result<Scenario> f = read_json(with_placement(bad));
    const Result<Scenario> y = read_as_yaml(with_placement(bad));
    ASSERT_FALSE(f.is_ok()) << bad;
    EXPECT_EQ(f.message(), y.message()) << bad;
  }
  EXPECT_EQ(read_json(with_placement("\"a\": 4")).message(),
            "g.json:8:21: error: found device '4'; expected a device index from 0 to 3 or a "
            "device name such as gpu0");
}

}  // namespace
}  // namespace brigade
