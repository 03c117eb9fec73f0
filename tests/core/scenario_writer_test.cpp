// The edited-scenario writer (core/scenario_writer.hpp): what it writes
// reads back as the edited scenario, and what was not edited stays as the
// author wrote it.
#include "core/scenario_writer.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace brigade {
namespace {

namespace fs = std::filesystem;

const char* kTransformer = R"(# a comment yaml-cpp drops
name: small-gpt
description: 8 GPUs, data 4 x tensor 2
topology:
  preset: dgx-a100
model:
  transformer: {layers: 8, hidden: 1024, heads: 16, seq: 512, vocab: 32000, dtype: bf16}
training: {global_batch: 64, micro_batch: 2, recompute: selective}
strategy:
  data: 4
  tensor: 2
  rank_order: [tensor, data, pipeline]   # tensor groups inside a node
)";

Scenario parse_ok(const std::string& text) {
  Result<Scenario> r = parse_scenario(text, "t.yaml");
  EXPECT_TRUE(r.is_ok()) << r.message();
  return r.is_ok() ? std::move(r).value() : Scenario{};
}

void expect_same_strategy(const StrategySpec& a, const StrategySpec& b) {
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.tensor, b.tensor);
  EXPECT_EQ(a.pipeline, b.pipeline);
  EXPECT_EQ(a.sequence_parallel, b.sequence_parallel);
  EXPECT_EQ(a.schedule, b.schedule);
  EXPECT_EQ(a.virtual_stages, b.virtual_stages);
  EXPECT_EQ(a.zero, b.zero);
  EXPECT_EQ(a.data_mode, b.data_mode);
  EXPECT_EQ(a.rank_order, b.rank_order);
  EXPECT_EQ(a.bucket_bytes, b.bucket_bytes);
  EXPECT_EQ(a.overlap, b.overlap);
  EXPECT_EQ(a.overlap_param_gather, b.overlap_param_gather);
  EXPECT_EQ(a.pipeline_scatter_gather, b.pipeline_scatter_gather);
  EXPECT_EQ(a.pipeline_blocking_sends, b.pipeline_blocking_sends);
  EXPECT_EQ(a.algorithm, b.algorithm);
}

TEST(ScenarioWriter, EveryStrategyKeyReadsBackAsEdited) {
  Scenario s = parse_ok(kTransformer);
  s.strategy.data = 1;
  s.strategy.tensor = 2;
  s.strategy.pipeline = 4;
  s.strategy.sequence_parallel = true;
  s.strategy.schedule = PipelineSchedule::kInterleaved;
  s.strategy.virtual_stages = 2;
  s.strategy.zero = 1;
  s.strategy.rank_order = {"pipeline", "tensor", "data"};
  s.strategy.bucket_bytes = 12.5e6;  // not a whole number of MB: written exactly
  s.strategy.overlap = false;
  s.strategy.algorithm = CollectiveAlgorithm::kTree;
  s.training.micro_batch = 4;
  s.training.recompute = Recompute::kFull;
  s.simulation.speed = {{3, 0.5}, {5, 0.125}};
  Result<std::string> text = scenario_yaml_with_edits(kTransformer, "t.yaml", s);
  ASSERT_TRUE(text.is_ok()) << text.message();
  const Scenario back = parse_ok(*text);
  expect_same_strategy(back.strategy, s.strategy);
  EXPECT_EQ(back.training.micro_batch, 4);
  EXPECT_EQ(back.training.global_batch, 64);
  EXPECT_EQ(back.training.recompute, Recompute::kFull);
  EXPECT_EQ(back.simulation.speed, s.simulation.speed);
  // Untouched: the name, the topology and the model.
  EXPECT_EQ(back.name, "small-gpt");
  EXPECT_EQ(back.topology.num_devices(), 8);
  EXPECT_EQ(back.topology.num_channels(), s.topology.num_channels());
  EXPECT_EQ(back.topology.preset, s.topology.preset);
  EXPECT_EQ(back.transformer.hidden, 1024);
  EXPECT_EQ(back.transformer.vocab, 32000);
}

// A boolean strategy key whose default is false (member `flag`, written as
// `key`): written when set, read back; its default takes the key away again.
void expect_flag_reads_back_and_default_removes_it(bool StrategySpec::*flag, const char* key,
                                                   int pipeline, int zero) {
  SCOPED_TRACE(key);
  Scenario s = parse_ok(kTransformer);
  s.strategy.pipeline = pipeline;
  s.strategy.zero = zero;
  s.strategy.*flag = true;
  Result<std::string> text = scenario_yaml_with_edits(kTransformer, "t.yaml", s);
  ASSERT_TRUE(text.is_ok()) << text.message();
  EXPECT_NE(text->find(std::string(key) + ": true"), std::string::npos) << *text;
  const Scenario back = parse_ok(*text);
  expect_same_strategy(back.strategy, s.strategy);
  EXPECT_TRUE(back.strategy.*flag);
  Scenario off = back;
  off.strategy.*flag = false;
  Result<std::string> again = scenario_yaml_with_edits(*text, "t.yaml", off);
  ASSERT_TRUE(again.is_ok()) << again.message();
  EXPECT_EQ(again->find(key), std::string::npos) << *again;
  EXPECT_FALSE(parse_ok(*again).strategy.*flag);
}

TEST(ScenarioWriter, OverlapParamGatherReadsBackAndItsDefaultRemovesIt) {
  expect_flag_reads_back_and_default_removes_it(&StrategySpec::overlap_param_gather,
                                                "overlap_param_gather", 1, 1);
}

TEST(ScenarioWriter, PipelineScatterGatherReadsBackAndItsDefaultRemovesIt) {
  expect_flag_reads_back_and_default_removes_it(&StrategySpec::pipeline_scatter_gather,
                                                "pipeline_scatter_gather", 2, 0);
}

TEST(ScenarioWriter, PipelineBlockingSendsReadsBackAndItsDefaultRemovesIt) {
  expect_flag_reads_back_and_default_removes_it(&StrategySpec::pipeline_blocking_sends,
                                                "pipeline_blocking_sends", 2, 0);
}

TEST(ScenarioWriter, AnUneditedScenarioWritesOnlyWhatItHad) {
  const Scenario s = parse_ok(kTransformer);
  Result<std::string> text = scenario_yaml_with_edits(kTransformer, "t.yaml", s);
  ASSERT_TRUE(text.is_ok()) << text.message();
  // No key the author left out appears (defaults stay defaults).
  EXPECT_EQ(text->find("zero"), std::string::npos) << *text;
  EXPECT_EQ(text->find("simulation"), std::string::npos) << *text;
  const Scenario back = parse_ok(*text);
  expect_same_strategy(back.strategy, s.strategy);
  EXPECT_EQ(back.training.micro_batch, 2);
}

TEST(ScenarioWriter, DefaultsRemoveTheirKeys) {
  const std::string with_speed = std::string(kTransformer) + "simulation: {speed: {1: 0.5}}\n";
  Scenario s = parse_ok(with_speed);
  ASSERT_EQ(s.simulation.speed.size(), 1u);
  s.simulation.speed.clear();
  s.training.micro_batch = 0;  // global_batch / data again
  Result<std::string> text = scenario_yaml_with_edits(with_speed, "t.yaml", s);
  ASSERT_TRUE(text.is_ok()) << text.message();
  EXPECT_EQ(text->find("micro_batch"), std::string::npos) << *text;
  EXPECT_EQ(text->find("speed"), std::string::npos) << *text;
  const Scenario back = parse_ok(*text);
  EXPECT_TRUE(back.simulation.speed.empty());
  EXPECT_EQ(back.training.micro_batch, 0);
}

// Block recomputation's keys: written when edited, read back; a search's
// other recomputation (set_recompute) removes them, and the file stays a
// plan check_plan accepts.
TEST(ScenarioWriter, BlockRecomputationReadsBackAndAnotherGranularityRemovesIt) {
  Scenario s = parse_ok(kTransformer);
  s.training.recompute = Recompute::kFull;
  s.training.recompute_method = RecomputeMethod::kBlock;
  s.training.recompute_num_layers = 3;
  Result<std::string> text = scenario_yaml_with_edits(kTransformer, "t.yaml", s);
  ASSERT_TRUE(text.is_ok()) << text.message();
  const Scenario back = parse_ok(*text);
  EXPECT_EQ(back.training.recompute, Recompute::kFull);
  EXPECT_EQ(back.training.recompute_method, RecomputeMethod::kBlock);
  EXPECT_EQ(back.training.recompute_num_layers, 3);
  Scenario other = back;
  set_recompute(other.training, Recompute::kSelective);
  Result<std::string> again = scenario_yaml_with_edits(*text, "t.yaml", other);
  ASSERT_TRUE(again.is_ok()) << again.message();
  EXPECT_EQ(again->find("recompute_method"), std::string::npos) << *again;
  EXPECT_EQ(again->find("recompute_num_layers"), std::string::npos) << *again;
  EXPECT_EQ(parse_ok(*again).training.recompute_method, RecomputeMethod::kUniform);
}

// simulation.host_op_time (the what-if panel's host time per operation):
// written in seconds, read back to the same double; unset again, removed.
TEST(ScenarioWriter, HostOpTimeReadsBackAndUnsetRemovesIt) {
  Scenario s = parse_ok(kTransformer);
  s.simulation.host_op_seconds = 2.5e-5;
  Result<std::string> text = scenario_yaml_with_edits(kTransformer, "t.yaml", s);
  ASSERT_TRUE(text.is_ok()) << text.message();
  const Scenario back = parse_ok(*text);
  ASSERT_TRUE(back.simulation.host_op_seconds.has_value()) << *text;
  EXPECT_EQ(*back.simulation.host_op_seconds, 2.5e-5);
  Scenario unset = back;
  unset.simulation.host_op_seconds.reset();
  Result<std::string> again = scenario_yaml_with_edits(*text, "t.yaml", unset);
  ASSERT_TRUE(again.is_ok()) << again.message();
  EXPECT_EQ(again->find("host_op_time"), std::string::npos) << *again;
  EXPECT_FALSE(parse_ok(*again).simulation.host_op_seconds.has_value());
}

// simulation.devices_per_host: written as the integer, read back; 1 (the
// default) removes the key.
TEST(ScenarioWriter, DevicesPerHostReadsBackAndOneRemovesIt) {
  Scenario s = parse_ok(kTransformer);
  s.simulation.devices_per_host = 4;
  Result<std::string> text = scenario_yaml_with_edits(kTransformer, "t.yaml", s);
  ASSERT_TRUE(text.is_ok()) << text.message();
  EXPECT_EQ(parse_ok(*text).simulation.devices_per_host, 4) << *text;
  Scenario one = parse_ok(*text);
  one.simulation.devices_per_host = 1;
  Result<std::string> again = scenario_yaml_with_edits(*text, "t.yaml", one);
  ASSERT_TRUE(again.is_ok()) << again.message();
  EXPECT_EQ(again->find("devices_per_host"), std::string::npos) << *again;
  EXPECT_EQ(parse_ok(*again).simulation.devices_per_host, 1);
}

TEST(ScenarioWriter, AStrategyAddedToAScenarioWithoutOneIsWrittenWhole) {
  const char* kMlp = R"({"name": "mlp", "topology": {"preset": "cpu-host", "devices": 4},
 "model": {"mlp": {"batch": 8, "widths": [4, 4]}}})";
  Scenario s = parse_ok(kMlp);
  ASSERT_FALSE(s.has_strategy);
  s.has_strategy = true;
  s.strategy.data = 4;
  Result<std::string> text = scenario_yaml_with_edits(kMlp, "t.json", s);  // JSON in, YAML out
  ASSERT_TRUE(text.is_ok()) << text.message();
  const Scenario back = parse_ok(*text);
  EXPECT_TRUE(back.has_strategy);
  expect_same_strategy(back.strategy, s.strategy);
  EXPECT_EQ(back.mlp.widths, (std::vector<std::int64_t>{4, 4}));
}

TEST(ScenarioWriter, NameAndProfileOptions) {
  const Scenario s = parse_ok(kTransformer);
  ScenarioWriteOptions o;
  o.name = "small-gpt (what-if)";
  o.profile = "edited.profile.yaml";
  Result<std::string> text = scenario_yaml_with_edits(kTransformer, "t.yaml", s, o);
  ASSERT_TRUE(text.is_ok()) << text.message();
  EXPECT_NE(text->find("profile: edited.profile.yaml"), std::string::npos) << *text;
  // The profile file does not exist, so reading it back names it.
  Result<Scenario> back = parse_scenario(*text, "t.yaml");
  ASSERT_FALSE(back.is_ok());
  EXPECT_NE(back.message().find("found profile 'edited.profile.yaml'"), std::string::npos)
      << back.message();
}

TEST(ScenarioWriter, AnUnreadableOriginalIsItsReadingError) {
  Scenario s;
  Result<std::string> text = scenario_yaml_with_edits("topology: {preset: nope}\n", "bad.yaml", s);
  ASSERT_FALSE(text.is_ok());
  EXPECT_EQ(text.message().rfind("bad.yaml:", 0), 0u) << text.message();
}

TEST(ScenarioWriter, SaveWritesAFileThatLoads) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("brigade_scenario_writer_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path src = dir / "src.yaml";
  std::ofstream(src) << kTransformer;
  Result<Scenario> s = load_scenario(src.string());
  ASSERT_TRUE(s.is_ok()) << s.message();
  s->strategy.zero = 2;
  const fs::path out = dir / "out.yaml";
  ASSERT_TRUE(save_edited_scenario(*s, out.string()).is_ok());
  Result<Scenario> back = load_scenario(out.string());
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_EQ(back->strategy.zero, 2);
  // A folder is refused as file_io refuses it, and nothing is written.
  const Status st = save_edited_scenario(*s, dir.string());
  EXPECT_FALSE(st.is_ok());
  fs::remove_all(dir);
}

// model.huggingface names its config relative to the scenario's folder; a
// copy written to another folder must still find it (the what-if panel's
// "Save as", search --emit): relative to the new folder, or absolute.
TEST(ScenarioWriter, AHuggingFaceConfigStillResolvesFromAnotherFolder) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("brigade_scenario_writer_hf_" + std::to_string(::getpid()));
  fs::create_directories(dir / "models");
  fs::create_directories(dir / "elsewhere" / "deeper");
  fs::copy_file(fs::path(BRIGADE_SOURCE_DIR) / "scenarios/models/llama3_70b.json",
                dir / "models" / "llama3_70b.json", fs::copy_options::overwrite_existing);
  const std::string body =
      "topology: {preset: dgx-h100, nodes: 8}\n"
      "strategy: {tensor: 8, pipeline: 4, data: 2}\n"
      "training: {global_batch: 64, micro_batch: 1}\n";
  for (const std::string& model :
       {std::string("model: {huggingface: {config: models/llama3_70b.json, seq: 4096}}\n"),
        std::string("model: {huggingface: models/llama3_70b.json}\n")}) {
    const fs::path src = dir / "src.yaml";
    std::ofstream(src) << body << model;
    Result<Scenario> s = load_scenario(src.string());
    ASSERT_TRUE(s.is_ok()) << s.message();
    s->strategy.data = 1;
    s->strategy.pipeline = 8;
    const fs::path out = dir / "elsewhere" / "deeper" / "out.yaml";
    ASSERT_TRUE(save_edited_scenario(*s, out.string()).is_ok());
    Result<Scenario> back = load_scenario(out.string());
    ASSERT_TRUE(back.is_ok()) << back.message();
    EXPECT_EQ(back->transformer.hidden, 8192);
    EXPECT_EQ(back->strategy.pipeline, 8);
    std::ifstream in(out);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("../../models/llama3_70b.json"), std::string::npos) << text;
  }
  // The path arithmetic by itself: relative to the new folder, else absolute.
  EXPECT_EQ(rebase_path("m/c.json", "/a/b/s.yaml", "/a/x"), "../b/m/c.json");
  EXPECT_EQ(rebase_path("m/c.json", "/a/b/s.yaml"), "/a/b/m/c.json");
  EXPECT_EQ(rebase_path("/abs/c.json", "/a/b/s.yaml", "/a/x"), "/abs/c.json");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace brigade
