// Scenario files: every key parsed into the Scenario, positions, JSON input,
// profiles named by a scenario, and every bundled scenario in scenarios/.
#include "core/scenario.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/plan_check.hpp"

namespace brigade {
namespace {

const std::string kSource = BRIGADE_SOURCE_DIR;

Scenario parse_ok(const std::string& text) {
  Result<Scenario> r = parse_scenario(text, "t.yaml");
  EXPECT_TRUE(r.is_ok()) << r.message();
  if (!r.is_ok()) return Scenario{};
  return std::move(r).value();
}

TEST(ScenarioParse, TransformerTrainingAndStrategyKeys) {
  const Scenario s = parse_ok(R"(name: big
description: a test
topology:
  preset: dgx-a100
  nodes: 4
  fabric: {bandwidth: 200Gbps, latency: 5us, class: infiniband}
model:
  transformer: {layers: 8, hidden: 1024, heads: 16, seq: 512, vocab: 32000, ffn_ratio: 2.5, dtype: f16}
training:
  mode: training
  global_batch: 64
  micro_batch: 2
  optimizer: sgd
  mixed_precision: false
  recompute: full
strategy:
  data: 2
  tensor: 8
  pipeline: 2
  sequence_parallel: true
  schedule: interleaved
  virtual_stages: 2
  zero: 2
  zero3_prefetch: per_micro_batch
  data_mode: batch
  rank_order: [tensor, pipeline, data]
  bucket: 50MB
  overlap: false
  algorithm: hierarchical
simulation: {network: ideal, speed: {0: 0.5, node1/gpu3: 2}}
)");
  EXPECT_EQ(s.name, "big");
  EXPECT_EQ(s.description, "a test");
  EXPECT_EQ(s.topology.num_devices(), 32);
  EXPECT_EQ(s.topology.preset, "cluster(4, dgx-a100)");
  // 200 Gb/s = 25e9 B/s; the route between nodes is NIC -> fabric -> NIC,
  // each link half the 5 us latency.
  const Route& r = s.topology.route(0, 8);
  EXPECT_DOUBLE_EQ(r.bandwidth_bytes_per_second, 25e9);
  EXPECT_DOUBLE_EQ(r.latency_seconds, 5e-6);
  EXPECT_EQ(r.slowest_class, LinkClass::kInfiniband);
  EXPECT_EQ(s.model_kind, ModelKind::kTransformer);
  EXPECT_EQ(s.transformer.layers, 8);
  EXPECT_EQ(s.transformer.hidden, 1024);
  EXPECT_EQ(s.transformer.heads, 16);
  EXPECT_EQ(s.transformer.seq, 512);
  EXPECT_EQ(s.transformer.vocab, 32000);
  EXPECT_DOUBLE_EQ(s.transformer.ffn_ratio, 2.5);
  EXPECT_EQ(s.transformer.dtype, DType::kF16);
  EXPECT_FALSE(s.training.inference);
  EXPECT_EQ(s.training.global_batch, 64);
  EXPECT_EQ(s.training.micro_batch, 2);
  EXPECT_EQ(s.training.optimizer, Optimizer::kSgd);
  EXPECT_FALSE(s.training.mixed_precision);
  EXPECT_EQ(s.training.recompute, Recompute::kFull);
  EXPECT_TRUE(s.has_strategy);
  EXPECT_EQ(s.strategy.data, 2);
  EXPECT_EQ(s.strategy.tensor, 8);
  EXPECT_EQ(s.strategy.pipeline, 2);
  EXPECT_TRUE(s.strategy.sequence_parallel);
  EXPECT_EQ(s.strategy.schedule, PipelineSchedule::kInterleaved);
  EXPECT_EQ(s.strategy.virtual_stages, 2);
  EXPECT_EQ(s.strategy.zero, 2);
  // Read whatever the stage (ignored below ZeRO-3: check_plan passes it).
  EXPECT_EQ(s.strategy.zero3_prefetch, Zero3Prefetch::kPerMicroBatch);
  EXPECT_EQ(s.strategy.data_mode, DataMode::kBatch);
  EXPECT_EQ(s.strategy.rank_order, (std::vector<std::string>{"tensor", "pipeline", "data"}));
  EXPECT_DOUBLE_EQ(s.strategy.bucket_bytes, 50e6);
  EXPECT_FALSE(s.strategy.overlap);
  EXPECT_EQ(s.strategy.algorithm, CollectiveAlgorithm::kHierarchical);
  EXPECT_EQ(s.simulation.network, "ideal");
  // node1/gpu3 is device 8 + 3 = 11.
  EXPECT_EQ(s.simulation.speed, (std::map<int, double>{{0, 0.5}, {11, 2.0}}));
  EXPECT_TRUE(check_plan(s).is_ok()) << check_plan(s).message();
}

TEST(ScenarioParse, DefaultsWhenKeysAreLeftOut) {
  const Scenario s = parse_ok(
      "topology: {preset: cpu-host, devices: 2}\n"
      "model:\n"
      "  mlp: {batch: 4, widths: [8, 8]}\n");
  EXPECT_EQ(s.name, "t");  // the file's stem
  EXPECT_EQ(s.topology.num_devices(), 2);
  EXPECT_EQ(s.mlp.dtype, DType::kF32);
  EXPECT_EQ(s.mlp.activation, "relu");
  EXPECT_TRUE(s.mlp.bias);
  EXPECT_FALSE(s.has_strategy);
  EXPECT_EQ(s.strategy.data, 1);
  EXPECT_EQ(s.strategy.schedule, PipelineSchedule::k1F1B);
  EXPECT_EQ(s.strategy.zero3_prefetch, Zero3Prefetch::kPerPass);
  EXPECT_DOUBLE_EQ(s.strategy.bucket_bytes, 25e6);
  EXPECT_TRUE(s.strategy.overlap);
  EXPECT_EQ(s.training.optimizer, Optimizer::kAdam);
  EXPECT_TRUE(s.training.mixed_precision);
  EXPECT_EQ(s.training.recompute, Recompute::kNone);
  EXPECT_EQ(s.simulation.network, "flow");
  EXPECT_EQ(s.profile.name, "datasheet");
  EXPECT_FALSE(s.mesh.has_value());
}

TEST(ScenarioParse, MlpKeys) {
  const Scenario s = parse_ok(
      "topology: {preset: cpu-host, devices: 4}\n"
      "model:\n"
      "  mlp: {batch: 8, widths: [16, 32, 4], dtype: bf16, activation: gelu, bias: false}\n"
      "training: {mode: inference}\n"
      "strategy: {data: 4, data_mode: pmap}\n");
  EXPECT_EQ(s.model_kind, ModelKind::kMlp);
  EXPECT_EQ(s.mlp.batch, 8);
  EXPECT_EQ(s.mlp.widths, (std::vector<std::int64_t>{16, 32, 4}));
  EXPECT_EQ(s.mlp.dtype, DType::kBF16);
  EXPECT_EQ(s.mlp.activation, "gelu");
  EXPECT_FALSE(s.mlp.bias);
  EXPECT_TRUE(s.training.inference);
  EXPECT_EQ(s.strategy.data_mode, DataMode::kPmap);
}

TEST(ScenarioParse, CollectiveKeys) {
  const Scenario s = parse_ok(
      "topology: {preset: dgx-h100}\n"
      "model:\n"
      "  collective: {kind: all-gather, bytes: 256MiB, algorithm: tree, dtype: bf16, "
      "group: [0, gpu2, 5]}\n");
  EXPECT_EQ(s.model_kind, ModelKind::kCollective);
  EXPECT_EQ(s.collective.kind, CollectiveKind::kAllGather);
  EXPECT_DOUBLE_EQ(s.collective.bytes, 256.0 * 1048576.0);
  EXPECT_EQ(s.collective.algorithm, CollectiveAlgorithm::kTree);
  EXPECT_EQ(s.collective.dtype, DType::kBF16);
  EXPECT_EQ(s.collective.group, (std::vector<int>{0, 2, 5}));
}

TEST(ScenarioParse, GraphPlacementDevicePutMeshShardings) {
  const Scenario s = parse_ok(R"(topology: {preset: dgx-h100}
model:
  graph:
    tensors:
      x: [16, 512, bf16]
      w1: {shape: [512, 1024], dtype: bf16}
      b: {shape: [1024], dtype: bf16, param: true}
      frozen: {shape: [1024, 512], dtype: bf16, param: false}
    ops:
      - {name: mm1, op: matmul, in: [x, w1], out: h}
      - {name: bias, op: add, in: [h, b], out: hb}
      - {name: act, op: elementwise, fn: gelu, in: hb, out: a}
      - {name: mm2, op: matmul, in: [a, frozen], out: y, flops: 1GFLOP, bytes: 2MB}
placement: {mm1: 0, bias: gpu0, act: 0, mm2: 1}
device_put: {x: 0, frozen: gpu1}
mesh: {shape: [2, 4], axes: [data, model]}
shardings: {x: [data, null], w1: [null, model], b: [model]}
)");
  const Model& g = s.graph;
  ASSERT_EQ(g.ops.size(), 4u);
  EXPECT_EQ(g.ops[2].kind, OpKind::kElementwise);
  EXPECT_EQ(g.ops[2].fn, "gelu");
  EXPECT_EQ(g.ops[1].fn, "add");
  // Given flops and bytes are kept as written.
  EXPECT_DOUBLE_EQ(g.ops[3].flops, 1e9);
  EXPECT_DOUBLE_EQ(g.ops[3].bytes, 2e6);
  const TensorSpec& y = g.tensors[static_cast<size_t>(g.find_tensor("y"))];
  EXPECT_EQ(y.shape, (std::vector<std::int64_t>{16, 512}));
  EXPECT_FALSE(y.shape_given);
  // Parameters: w1 by the default rule (a graph input on a matmul's right),
  // b declared, frozen declared not a parameter.
  EXPECT_TRUE(g.tensors[static_cast<size_t>(g.find_tensor("w1"))].is_parameter);
  EXPECT_TRUE(g.tensors[static_cast<size_t>(g.find_tensor("b"))].is_parameter);
  EXPECT_FALSE(g.tensors[static_cast<size_t>(g.find_tensor("frozen"))].is_parameter);
  EXPECT_FALSE(g.tensors[static_cast<size_t>(g.find_tensor("x"))].is_parameter);
  EXPECT_EQ(s.placement,
            (std::map<std::string, int>{{"mm1", 0}, {"bias", 0}, {"act", 0}, {"mm2", 1}}));
  EXPECT_EQ(s.device_put, (std::map<std::string, int>{{"x", 0}, {"frozen", 1}}));
  ASSERT_TRUE(s.mesh.has_value());
  EXPECT_EQ(s.mesh->shape, (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(s.mesh->axes, (std::vector<std::string>{"data", "model"}));
  EXPECT_EQ(s.shardings.at("x"), (std::vector<std::string>{"data", ""}));
  EXPECT_EQ(s.shardings.at("w1"), (std::vector<std::string>{"", "model"}));
  EXPECT_EQ(s.shardings.at("b"), (std::vector<std::string>{"model"}));
}

// The placement map is built from its keys sorted by their first 8 bytes
// as an integer, then by the whole text (issue 20, item 3): names sharing 8
// bytes, names shorter than 8, a name that is a prefix of another, bytes
// above 0x7f (which sort after ASCII, as std::string compares) and digits
// out of numeric order. The map and the file-order positions are as read.
TEST(ScenarioParse, PlacementOfNamesSharingPrefixesIsReadWhole) {
  const Scenario s = parse_ok(
      "{\"topology\": {\"preset\": \"pcie-4gpu\"}, \"model\": {\"graph\": {\"tensors\": "
      "{\"x\": [8, 8, \"f32\"]}, \"ops\": ["
      "{\"name\": \"layer.10.attn.q\", \"op\": \"relu\", \"in\": \"x\", \"out\": \"a\"},"
      "{\"name\": \"layer.10.attn\", \"op\": \"relu\", \"in\": \"a\", \"out\": \"b\"},"
      "{\"name\": \"layer.10.attn.k\", \"op\": \"relu\", \"in\": \"b\", \"out\": \"c\"},"
      "{\"name\": \"\xc3\xa9t\xc3\xa9\", \"op\": \"relu\", \"in\": \"c\", \"out\": \"d\"},"
      "{\"name\": \"op10\", \"op\": \"relu\", \"in\": \"d\", \"out\": \"e\"},"
      "{\"name\": \"op9\", \"op\": \"relu\", \"in\": \"e\", \"out\": \"f\"}]}},"
      "\n\"placement\": {\"layer.10.attn.q\": 1, \"\xc3\xa9t\xc3\xa9\": 2, \"layer.10.attn\": 3, "
      "\"op9\": 0, \"op10\": 1, \"layer.10.attn.k\": 2}}\n");
  EXPECT_EQ(s.placement, (std::map<std::string, int>{{"layer.10.attn.q", 1},
                                                     {"\xc3\xa9t\xc3\xa9", 2},
                                                     {"layer.10.attn", 3},
                                                     {"op9", 0},
                                                     {"op10", 1},
                                                     {"layer.10.attn.k", 2}}));
  std::vector<std::string> in_file_order;
  for (const Scenario::EntryPosition& e : s.placement_positions) in_file_order.push_back(e.name);
  EXPECT_EQ(in_file_order,
            (std::vector<std::string>{"layer.10.attn.q", "\xc3\xa9t\xc3\xa9", "layer.10.attn",
                                      "op9", "op10", "layer.10.attn.k"}));
  EXPECT_EQ(s.where("placement.op10").str(), "t.yaml:2:77");
  EXPECT_TRUE(check_plan(s).is_ok());
}

// Every op and tensor of a graph carries its position, and each position
// names the file: one name held once, whatever its length (issue 20, item
// 3: a path longer than 15 characters was a heap block per op and tensor).
TEST(ScenarioParse, PositionsOfAGraphShareOneFileName) {
  const std::string path = "scenarios/generated/a-long-folder-name/graph.json";
  Result<Scenario> r = parse_scenario(
      "{\"topology\": {\"preset\": \"pcie-4gpu\"}, \"model\": {\"graph\": {\"tensors\": "
      "{\"x\": [8, 8, \"f32\"]}, \"ops\": ["
      "{\"name\": \"a\", \"op\": \"relu\", \"in\": \"x\", \"out\": \"y\"},"
      "{\"name\": \"b\", \"op\": \"relu\", \"in\": \"y\", \"out\": \"z\"}]}}}\n",
      path);
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Model& g = r->graph;
  ASSERT_EQ(g.ops.size(), 2u);
  ASSERT_EQ(g.tensors.size(), 3u);
  EXPECT_EQ(g.ops[0].pos.str(), path + ":1:100");  // the op's opening brace
  EXPECT_EQ(g.tensors[2].pos.file, path);
  const char* name = g.ops[0].pos.file.c_str();
  EXPECT_EQ(g.ops[1].pos.file.c_str(), name);
  for (const TensorSpec& t : g.tensors) EXPECT_EQ(t.pos.file.c_str(), name) << t.name;
  EXPECT_EQ(SourcePos{path}.file.c_str(), name);  // a later position of the same file too
  EXPECT_TRUE(FileName().empty());
  EXPECT_NE(FileName("a.yaml"), FileName("b.yaml"));
}

TEST(ScenarioParse, CustomTopology) {
  const Scenario s = parse_ok(R"(topology:
  devices:
    - {name: a, model: my-gpu, kind: gpu, memory: 24GiB, memory_bandwidth: 1TB/s, flops: {bf16: 100TFLOPS, f32: 20TFLOPS}, node: 0}
    - {name: b, model: my-gpu, memory: 24GiB, memory_bandwidth: 1TB/s, flops: {bf16: 100TFLOPS}}
    - {kind: cpu, memory: 64GiB, memory_bandwidth: 50GB/s, flops: {f32: 1TFLOPS}, node: 1}
  switches: [{name: sw, node: 0}]
  links:
    - {between: [a, sw], bandwidth: 50GB/s, latency: 1us, class: pcie}
    - {between: [b, sw], bandwidth: 50GB/s, latency: 1us, class: pcie}
    - {between: [sw, 2], bandwidth: 200Gbps, latency: 0, class: ib, name: uplink}
model:
  mlp: {batch: 6, widths: [4, 4]}
strategy: {data: 3}
)");
  const Topology& t = s.topology;
  ASSERT_EQ(t.num_devices(), 3);
  EXPECT_EQ(t.preset, "custom");
  EXPECT_EQ(t.device(0).name, "a");
  EXPECT_EQ(t.device(0).model, "my-gpu");
  EXPECT_DOUBLE_EQ(t.device(0).memory_bytes, 24.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(t.device(0).memory_bandwidth_bytes_per_second, 1e12);
  EXPECT_DOUBLE_EQ(t.device(0).peak_flops_per_second[dtype_index(DType::kBF16)], 100e12);
  EXPECT_DOUBLE_EQ(t.device(0).peak_flops_per_second[dtype_index(DType::kF32)], 20e12);
  EXPECT_EQ(t.device(1).local_index, 1);
  EXPECT_EQ(t.device(2).name, "cpu2");  // default name: kind + index
  EXPECT_EQ(t.device(2).kind, DeviceKind::kCpu);
  EXPECT_EQ(t.device(2).node, 1);
  EXPECT_EQ(t.device(2).local_index, 0);
  ASSERT_EQ(t.links().size(), 3u);
  EXPECT_EQ(t.links()[0].name, "a<->sw");
  EXPECT_EQ(t.links()[2].name, "uplink");
  EXPECT_EQ(t.links()[2].link_class, LinkClass::kInfiniband);
  EXPECT_DOUBLE_EQ(t.links()[2].bandwidth_bytes_per_second, 25e9);
  // a -> sw -> cpu2: bottleneck 25 GB/s, latency 1 us + 0.
  EXPECT_DOUBLE_EQ(t.route(0, 2).bandwidth_bytes_per_second, 25e9);
  EXPECT_DOUBLE_EQ(t.route(0, 2).latency_seconds, 1e-6);
}

// A fabric key left out keeps the preset's own (DGX A100: HDR 25 GB/s, 5 us).
TEST(ScenarioParse, PartialFabricKeepsPresetDefaults) {
  const Scenario s = parse_ok(
      "topology: {preset: dgx-a100, nodes: 2, fabric: {bandwidth: 50GB/s}}\n"
      "model: {collective: {kind: allreduce, bytes: 1MB}}\n");
  const Route& r = s.topology.route(0, 8);
  EXPECT_DOUBLE_EQ(r.bandwidth_bytes_per_second, 50e9);
  EXPECT_DOUBLE_EQ(r.latency_seconds, 5e-6);
  EXPECT_EQ(r.slowest_class, LinkClass::kInfiniband);
}

TEST(ScenarioPositions, EveryKeyIsRecordedOneBased) {
  const Scenario s = parse_ok(R"(topology: {preset: cpu-host, devices: 4}
model:
  transformer:
    layers: 4
    hidden: 256
    heads: 8
    seq: 128
    vocab: 1000
training: {global_batch: 16}
strategy:
  data: 4
)");
  // Positions are where the key is written, 1-based (yaml-cpp's marks are 0-based).
  EXPECT_EQ(s.where("strategy.data").str(), "t.yaml:11:3");
  EXPECT_EQ(s.where("model.transformer.heads").str(), "t.yaml:6:5");
  EXPECT_EQ(s.where("training.global_batch").str(), "t.yaml:9:12");
  EXPECT_EQ(s.where("topology.devices").str(), "t.yaml:1:30");
  // A key not written falls back to its nearest written parent, then the file.
  EXPECT_EQ(s.where("strategy.zero").str(), "t.yaml:10:1");
  EXPECT_EQ(s.where("mesh.axes").str(), "t.yaml");
}

TEST(ScenarioPositions, OpsPlacementMeshShardingsAreRecorded) {
  const Scenario s = parse_ok(R"(topology: {preset: pcie-4gpu}
model:
  graph:
    tensors: {x: [8, 512, f32], w1: [512, 2048, f32], w2: [2048, 512, f32]}
    ops:
      - {name: mm1, op: matmul, in: [x, w1], out: h}
      - {name: act, op: relu, in: [h], out: a}
      - {name: mm2, op: matmul, in: [a, w2], out: y}
placement:
  mm1: 0
  mm2: 1
mesh: {shape: [4], axes: [model]}
shardings:
  x: [null, model]
)");
  EXPECT_EQ(s.where("model.graph.ops[2]").str(), "t.yaml:8:9");
  EXPECT_EQ(s.where("model.graph.tensors.w2").str(), "t.yaml:4:55");
  EXPECT_EQ(s.where("placement.mm2").str(), "t.yaml:11:3");
  EXPECT_EQ(s.where("mesh.axes").str(), "t.yaml:12:20");
  EXPECT_EQ(s.where("shardings.x").str(), "t.yaml:14:3");
  // The ops carry their positions into infer()'s messages.
  EXPECT_EQ(s.graph.ops[2].pos.str(), "t.yaml:8:9");
}

TEST(ScenarioJson, JsonScenarioParses) {
  Result<Scenario> r = load_scenario(kSource + "/tests/data/pmap_linear.json");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->name, "pmap-linear-json");
  EXPECT_EQ(r->topology.num_devices(), 4);
  EXPECT_EQ(r->mlp.widths, (std::vector<std::int64_t>{16, 16}));
  EXPECT_EQ(r->strategy.data, 4);
  EXPECT_TRUE(r->training.inference);
  EXPECT_TRUE(check_plan(*r).is_ok());
  // Positions in JSON too: "data" is on line 7, column 5.
  EXPECT_EQ(r->where("strategy.data").line, 7);
  EXPECT_EQ(r->where("strategy.data").column, 5);
}

TEST(ScenarioJson, JsonErrorCarriesLineAndColumn) {
  const std::string path = kSource + "/tests/data/bad_missing_brace.json";
  Result<Scenario> r = load_scenario(path);
  ASSERT_FALSE(r.is_ok());
  // The brace is missing at the end of the text: line 5, column 1.
  EXPECT_EQ(r.message(), path +
                             ":5:1: error: found malformed YAML (end of map flow not found); "
                             "expected a well-formed YAML or JSON scenario");
}

TEST(ScenarioJson, JsonUnknownKeyHasPosition) {
  Result<Scenario> r = parse_scenario(
      "{\n  \"topology\": {\"preset\": \"cpu-host\"},\n  \"modle\": {}\n}\n", "s.json");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "s.json:3:3: error: found key 'modle'; expected one of name, description, topology, "
            "profile, model, training, strategy, placement, device_put, mesh, shardings, "
            "simulation, runtime, lesson, published (did you mean 'model'?)");
}

TEST(ScenarioFile, MissingFileSaysSo) {
  Result<Scenario> r = load_scenario("no/such/scenario.yaml");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "no/such/scenario.yaml: error: found no readable file (No such file or "
            "directory); expected a readable scenario file (.yaml, .yml or .json)");
}

TEST(ScenarioFile, ProfileIsReadRelativeToTheScenario) {
  Result<Scenario> r = load_scenario(kSource + "/tests/data/with_profile.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->profile.name, "test-a100");
  EXPECT_EQ(r->profile_path, kSource + "/tests/data/profile_a100.yaml");
}

TEST(ScenarioFile, MissingProfileIsReportedAtItsKey) {
  Result<Scenario> r = parse_scenario(
      "topology: {preset: cpu-host}\nprofile: nope.yaml\nmodel: {mlp: {batch: 1, widths: [1, "
      "1]}}\n",
      "dir/s.yaml");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "dir/s.yaml:2:10: error: found profile 'nope.yaml' (dir/nope.yaml), which "
            "is not a readable file; expected a profile file (see brigade calibrate)");
}

// Every bundled scenario loads and passes the plan checks (issue 2, item 7).
TEST(BundledScenarios, AllLoadAndPassCheckPlan) {
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(kSource + "/scenarios")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
    ++count;
    Result<Scenario> r = load_scenario(e.path().string());
    ASSERT_TRUE(r.is_ok()) << r.message();
    const Status st = check_plan(*r);
    EXPECT_TRUE(st.is_ok()) << st.message();
  }
  EXPECT_GE(count, 9);
}

TEST(BundledScenarios, SeedFactsHold) {
  // pmap_linear: 8 rows over 4 devices, 2 each (batch sharding).
  Result<Scenario> lin = load_scenario(kSource + "/scenarios/pmap_linear.yaml");
  ASSERT_TRUE(lin.is_ok()) << lin.message();
  EXPECT_EQ(per_replica_batch(*lin), 2);
  // llm_13b_128gpu: data 16 x tensor 8 = the 128 GPUs of 16 DGX A100.
  Result<Scenario> llm = load_scenario(kSource + "/scenarios/llm_13b_128gpu.yaml");
  ASSERT_TRUE(llm.is_ok()) << llm.message();
  EXPECT_EQ(llm->topology.num_devices(), 128);
  EXPECT_EQ(llm->strategy.data * llm->strategy.tensor * llm->strategy.pipeline, 128);
  // gpt3_175b_1024: 8 x 16 x 8 = 1024 = 128 nodes x 8.
  Result<Scenario> gpt = load_scenario(kSource + "/scenarios/gpt3_175b_1024.yaml");
  ASSERT_TRUE(gpt.is_ok()) << gpt.message();
  EXPECT_EQ(gpt->topology.num_devices(), 1024);
  EXPECT_EQ(per_replica_batch(*gpt), 1536 / 8);
  // ring_allreduce_8: 1 GiB over all 8 GPUs.
  Result<Scenario> ring = load_scenario(kSource + "/scenarios/ring_allreduce_8.yaml");
  ASSERT_TRUE(ring.is_ok()) << ring.message();
  EXPECT_DOUBLE_EQ(ring->collective.bytes, 1073741824.0);
  EXPECT_TRUE(ring->collective.group.empty());
}

}  // namespace
}  // namespace brigade
