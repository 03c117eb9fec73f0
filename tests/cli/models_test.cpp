// Transformer variants and Hugging Face configs from the command line (issue
// 21, items 1, 5 and 6): every verb takes them, bad configs exit 2 with one
// line naming the JSON key's position.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

const std::string kLlama70b = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/llama3_70b_64gpu.yaml";

// A Llama-shaped model small enough for the CPU executor: GQA, SwiGLU,
// RMSNorm, rotary, untied, no biases, FlashAttention, two pipeline stages.
const char* kTinyLlama =
    "name: tiny-llama\n"
    "topology: {preset: cpu-host, devices: 2}\n"
    "model:\n"
    "  transformer: {layers: 2, hidden: 128, heads: 4, kv_heads: 2, seq: 64, vocab: 512,\n"
    "                ffn_hidden: 344, mlp: swiglu, norm: rmsnorm, positions: rotary,\n"
    "                tie_embeddings: false, bias: false, attention: flash, dtype: f32}\n"
    "training: {mode: training, global_batch: 4, micro_batch: 2, optimizer: sgd, "
    "mixed_precision: false}\n"
    "strategy: {pipeline: 2, schedule: 1f1b}\n";

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("brigade-models-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

TEST(ModelsCli, CostOfLlama3_70bCountsThePublishedParameters) {
  auto r = run_brigade({"cost", kLlama70b, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["parameters"].get<double>(), 70553698304.0);  // transformer_variants_test.cpp
  EXPECT_GT(j["hardware_flops_per_iteration"].get<double>(),
            j["model_flops_per_iteration"].get<double>());  // FlashAttention's backward recompute
}

TEST(ModelsCli, SimulateAndExplainLlama3_70b) {
  auto s = run_brigade({"simulate", kLlama70b, "--json"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_GT(nlohmann::json::parse(s.out)["step_seconds"].get<double>(), 0);
  auto e = run_brigade({"explain", kLlama70b});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("GQA with 8 key/value heads, SwiGLU FFN 28672, RMSNorm, rotary positions, "
                       "untied output, no biases, FlashAttention"),
            std::string::npos)
      << e.out;
  EXPECT_NE(e.out.find("model: LlamaForCausalLM from "), std::string::npos);
  EXPECT_NE(e.out.find("attention log-sum-exp"), std::string::npos);
}

// The CPU executor runs the same Program: the FlashAttention kernels are its
// "fixed" tasks (2 layers x 2 micro-batches x forward and backward = 8).
TEST(ModelsCli, ExecuteTinyLlamaOnTheCpu) {
  TempDir dir;
  const std::string f = dir.write("tiny.yaml", kTinyLlama);
  auto r = run_brigade({"execute", f, "--repeat", "1", "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  bool fixed = false;
  for (const auto& k : j["kinds"])
    if (k["kind"] == "fixed") {
      fixed = true;
      EXPECT_EQ(k["spans_per_step"], 8);
    }
  EXPECT_TRUE(fixed) << r.out;
}

TEST(ModelsCli, SweepTakesTheVariantKeys) {
  TempDir dir;
  const std::string f = dir.write("tiny.yaml", kTinyLlama);
  auto r = run_brigade({"sweep", f, "--set", "pipeline=1,2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(ModelsCli, MixtureOfExpertsConfigExits2) {
  TempDir dir;
  dir.write("mixtral.json",
            "{\n  \"architectures\": [\"MixtralForCausalLM\"],\n  \"num_local_experts\": 8,\n"
            "  \"num_experts_per_tok\": 2\n}\n");
  const std::string f = dir.write(
      "s.yaml",
      "topology: {preset: dgx-h100, nodes: 2}\nmodel: {huggingface: mixtral.json}\n"
      "training: {global_batch: 16}\nstrategy: {data: 16}\n");
  for (const char* verb : {"cost", "simulate", "explain", "execute"}) {
    auto r = run_brigade({verb, f});
    EXPECT_EQ(r.exit_code, 2) << verb;
    EXPECT_EQ(r.out, "") << verb;
    EXPECT_EQ(r.err, (dir.path / "mixtral.json").string() +
                         ":2:21: error: found architecture 'MixtralForCausalLM', a mixture of "
                         "experts (8 experts, top-2); expected a dense architecture: "
                         "LlamaForCausalLM, MistralForCausalLM or Qwen2ForCausalLM (mixtures of "
                         "experts and expert parallelism are not supported yet: issue 21, item "
                         "2)\n")
        << verb;
  }
}

}  // namespace
}  // namespace brigade
