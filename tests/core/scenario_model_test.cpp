// The transformer's variant keys (issue 21, item 1) and `model.huggingface`
// (item 5): what each reads into, and every error asserted exactly.
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/hf_config.hpp"
#include "core/plan_check.hpp"
#include "core/scenario.hpp"

namespace brigade {
namespace {

namespace fs = std::filesystem;

const std::string kModels = std::string(BRIGADE_SOURCE_DIR) + "/scenarios/models/";

TEST(TransformerKeys, EveryVariantKey) {
  auto s = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model:\n"
      "  transformer: {layers: 4, hidden: 512, heads: 8, kv_heads: 2, seq: 256, vocab: 1024,\n"
      "                ffn_hidden: 1376, mlp: swiglu, norm: rmsnorm, positions: rotary,\n"
      "                tie_embeddings: false, bias: false, qkv_bias: true, qk_norm: true,\n"
      "                attention: flash}\n",
      "t.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  const TransformerSpec& t = s->transformer;
  EXPECT_EQ(t.kv_heads, 2);
  EXPECT_EQ(t.key_value_heads(), 2);
  EXPECT_EQ(t.ffn_hidden, 1376);
  EXPECT_EQ(ffn_width(t), 1376);
  EXPECT_EQ(t.mlp, MlpKind::kSwiglu);
  EXPECT_EQ(t.norm, NormKind::kRmsNorm);
  EXPECT_EQ(t.positions, PositionKind::kRotary);
  EXPECT_FALSE(t.tie_embeddings);
  EXPECT_FALSE(t.bias);
  EXPECT_TRUE(t.qkv_bias);
  EXPECT_TRUE(t.qk_norm);
  EXPECT_EQ(t.attention, AttentionKernel::kFlash);
}

TEST(TransformerKeys, DefaultsAreGptStyle) {
  auto s = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model: {transformer: {layers: 4, hidden: 512, heads: 8, seq: 256, vocab: 1024}}\n",
      "t.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(s->transformer, TransformerSpec({4, 512, 8, 256, 1024}));
  EXPECT_EQ(s->transformer.key_value_heads(), 8);
  EXPECT_EQ(ffn_width(s->transformer), 2048);
}

struct ErrorCase {
  const char* name;
  std::string text;
  std::string expected;
};
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

std::string transformer(const std::string& extra) {
  return "topology: {preset: dgx-h100}\nmodel:\n  transformer: {layers: 4, hidden: 512, heads: 8, "
         "seq: 256, vocab: 1024, " +
         extra + "}\n";
}

class TransformerKeyError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(TransformerKeyError, ExactMessage) {
  const ErrorCase& c = GetParam();
  auto r = parse_scenario(c.text, "t.yaml");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Keys, TransformerKeyError,
    ::testing::Values(
        ErrorCase{"KvHeadsNotDividingHeads", transformer("kv_heads: 3"),
                  "t.yaml:3:84: error: found kv_heads 3 with heads 8; expected a divisor of heads, "
                  "such as 8 (each key/value head serves heads/kv_heads query heads: kv_heads = "
                  "heads is MHA, 1 is MQA)"},
        ErrorCase{"RatioAndHidden", transformer("ffn_ratio: 4, ffn_hidden: 2048"),
                  "t.yaml:3:88: error: found both 'ffn_ratio' and 'ffn_hidden'; expected one of "
                  "them (ffn_hidden is the FFN width, ffn_ratio the width over hidden)"},
        ErrorCase{"UnknownMlp", transformer("mlp: relu"),
                  "t.yaml:3:79: error: found 'relu'; expected one of gelu, swiglu (did you mean 'gelu'?)"},
        ErrorCase{"HeadDimZero", transformer("head_dim: 0"),
                  "t.yaml:3:84: error: found '0'; expected an integer >= 1"},
        ErrorCase{"DropoutOfOne", transformer("hidden_dropout: 1"),
                  "t.yaml:3:90: error: found hidden_dropout 1; expected a probability in [0, 1) "
                  "(0: no dropout)"},
        ErrorCase{"UnknownAttention", transformer("attention: flash2"),
                  "t.yaml:3:85: error: found 'flash2'; expected one of unfused, flash (did you "
                  "mean 'flash'?)"}),
    [](const ::testing::TestParamInfo<ErrorCase>& p) { return std::string(p.param.name); });

// Dropout: Megatron-LM's 0.1 and 0.1 unless the scenario says; a Hugging
// Face decoder none on its residual stream and its config's
// attention_dropout (0.0 in Llama 3's), which the scenario may override.
TEST(TransformerKeys, Dropouts) {
  auto s = parse_scenario(transformer("hidden_dropout: 0, attention_dropout: 0.05"), "t.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(s->transformer.hidden_dropout, 0.0);
  EXPECT_EQ(s->transformer.attention_dropout, 0.05);
  auto d = parse_scenario(transformer("mlp: gelu"), "t.yaml");
  ASSERT_TRUE(d.is_ok()) << d.message();
  EXPECT_EQ(d->transformer.hidden_dropout, 0.1);
  EXPECT_EQ(d->transformer.attention_dropout, 0.1);
  auto hf = parse_scenario("topology: {preset: dgx-h100}\nmodel: {huggingface: " + kModels +
                               "llama3_8b.json}\n",
                           "t.yaml");
  ASSERT_TRUE(hf.is_ok()) << hf.message();
  EXPECT_EQ(hf->transformer.hidden_dropout, 0.0);
  EXPECT_EQ(hf->transformer.attention_dropout, 0.0);
  auto over = parse_scenario("topology: {preset: dgx-h100}\nmodel: {huggingface: {config: " +
                                 kModels + "llama3_8b.json, hidden_dropout: 0.1}}\n",
                             "t.yaml");
  ASSERT_TRUE(over.is_ok()) << over.message();
  EXPECT_EQ(over->transformer.hidden_dropout, 0.1);
}

// head_dim (Megatron-LM's --kv-channels): heads of a width of their own,
// where hidden need not divide by heads (check_plan asks that only without it).
TEST(TransformerKeys, HeadDimOfItsOwn) {
  auto s = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model: {transformer: {layers: 4, hidden: 600, heads: 8, kv_heads: 2, head_dim: 64, seq: 256, "
      "vocab: 1024}}\n"
      "training: {global_batch: 8}\n"
      "strategy: {tensor: 2, data: 4}\n",
      "t.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(s->transformer.head_dim, 64);
  EXPECT_EQ(s->transformer.head_width(), 64);
  EXPECT_EQ(s->transformer.attention_width(), 512);
  EXPECT_TRUE(check_plan(*s).is_ok()) << check_plan(*s).message();
  // Without it the head width is hidden / heads.
  TransformerSpec plain;
  plain.hidden = 512;
  plain.heads = 8;
  EXPECT_EQ(plain.head_width(), 64);
  EXPECT_EQ(plain.attention_width(), 512);
}

// check_plan: Megatron-Core splits the key/value heads over the tensor group.
TEST(TransformerKeys, TensorMustDivideKvHeads) {
  auto s = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model: {transformer: {layers: 4, hidden: 512, heads: 8, kv_heads: 2, seq: 256, vocab: 1024}}\n"
      "training: {global_batch: 8}\n"
      "strategy: {tensor: 8}\n",
      "t.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(check_plan(*s).message(),
            "t.yaml:4:12: error: found tensor 8 with kv_heads 2; expected tensor to divide "
            "kv_heads (each tensor-parallel rank holds kv_heads/tensor key/value heads, as "
            "Megatron-Core splits query groups)");
}

// ---- Hugging Face config.json ---------------------------------------------------

TEST(HuggingFace, BundledLlama3Configs) {
  struct Row {
    const char* file;
    std::int64_t layers, hidden, heads, ffn, seq;
  };
  for (const Row& r : {Row{"llama3_8b.json", 32, 4096, 32, 14336, 8192},
                       Row{"llama3_70b.json", 80, 8192, 64, 28672, 8192},
                       Row{"llama3_405b.json", 126, 16384, 128, 53248, 131072}}) {
    auto c = load_hf_config(kModels + r.file);
    ASSERT_TRUE(c.is_ok()) << c.message();
    const TransformerSpec& t = c->spec;
    EXPECT_EQ(t.layers, r.layers) << r.file;
    EXPECT_EQ(t.hidden, r.hidden) << r.file;
    EXPECT_EQ(t.heads, r.heads) << r.file;
    EXPECT_EQ(t.kv_heads, 8) << r.file;
    EXPECT_EQ(t.ffn_hidden, r.ffn) << r.file;
    EXPECT_EQ(t.vocab, 128256) << r.file;
    EXPECT_EQ(t.seq, r.seq) << r.file;
    EXPECT_EQ(t.mlp, MlpKind::kSwiglu);
    EXPECT_EQ(t.norm, NormKind::kRmsNorm);
    EXPECT_EQ(t.positions, PositionKind::kRotary);
    EXPECT_FALSE(t.tie_embeddings);
    EXPECT_FALSE(t.bias);
    EXPECT_EQ(t.dtype, DType::kBF16);
    EXPECT_EQ(t.source, std::string("LlamaForCausalLM from ") + kModels + r.file);
  }
}

// A scenario names the config relative to itself and may set the training
// sequence, the dtype and the attention kernel.
TEST(HuggingFace, ScenarioKeyRelativeToTheScenario) {
  auto s = parse_scenario(
      "topology: {preset: dgx-h100}\n"
      "model:\n"
      "  huggingface: {config: models/llama3_8b.json, seq: 4096, dtype: f16, attention: flash}\n",
      std::string(BRIGADE_SOURCE_DIR) + "/scenarios/x.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(s->model_kind, ModelKind::kTransformer);
  EXPECT_EQ(s->transformer.seq, 4096);
  EXPECT_EQ(s->transformer.dtype, DType::kF16);
  EXPECT_EQ(s->transformer.attention, AttentionKernel::kFlash);
  EXPECT_EQ(s->transformer.hidden, 4096);
  auto plain = parse_scenario("topology: {preset: dgx-h100}\nmodel: {huggingface: models/llama3_8b.json}\n",
                              std::string(BRIGADE_SOURCE_DIR) + "/scenarios/x.yaml");
  ASSERT_TRUE(plain.is_ok()) << plain.message();
  EXPECT_EQ(plain->transformer.seq, 8192);
}

// Config texts with one thing wrong each; positions are the JSON key's.
class HfConfigError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(HfConfigError, ExactMessage) {
  const ErrorCase& c = GetParam();
  auto r = parse_hf_config(c.text, "config.json");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), c.expected);
}

std::string config(const std::string& arch, const std::string& extra = "") {
  return "{\n  \"architectures\": [\"" + arch +
         "\"],\n  \"hidden_size\": 4096,\n  \"intermediate_size\": 14336,\n"
         "  \"num_attention_heads\": 32,\n  \"num_key_value_heads\": 8,\n"
         "  \"num_hidden_layers\": 32,\n  \"max_position_embeddings\": 8192,\n" +
         extra + "  \"vocab_size\": 128256\n}\n";
}

INSTANTIATE_TEST_SUITE_P(
    Configs, HfConfigError,
    ::testing::Values(
        ErrorCase{"UnknownArchitecture", config("GPT2LMHeadModel"),
                  "config.json:2:21: error: found architecture 'GPT2LMHeadModel'; expected one of "
                  "LlamaForCausalLM, MistralForCausalLM, Phi3ForCausalLM, Qwen2ForCausalLM, "
                  "MixtralForCausalLM, Qwen2MoeForCausalLM, DeepseekV3ForCausalLM, "
                  "Qwen3ForCausalLM or Qwen3MoeForCausalLM (decoder-only transformers, dense or "
                  "mixtures of experts)"},
        ErrorCase{"Qwen3AttentionBias", config("Qwen3ForCausalLM", "  \"attention_bias\": true,\n"),
                  "config.json:9:21: error: found attention_bias true; expected false (biases on "
                  "the attention's linear layers alone are not modelled)"},
        ErrorCase{"MixtralTopKAboveExperts",
                  config("MixtralForCausalLM",
                         "  \"num_local_experts\": 8,\n  \"num_experts_per_tok\": 9,\n"),
                  "config.json:10:26: error: found num_experts_per_tok 9 with num_local_experts 8; "
                  "expected num_experts_per_tok <= num_local_experts"},
        ErrorCase{"MixtralMissingExperts", config("MixtralForCausalLM"),
                  "config.json:1:1: error: found no 'num_local_experts' key; expected the number "
                  "of routed experts"},
        ErrorCase{"DeepSeekV3MissingMla",
                  config("DeepseekV3ForCausalLM",
                         "  \"n_routed_experts\": 256,\n  \"num_experts_per_tok\": 8,\n"
                         "  \"moe_intermediate_size\": 2048,\n"),
                  "config.json:1:1: error: found no 'kv_lora_rank' key; expected MLA's key/value "
                  "latent rank"},
        ErrorCase{"MissingKey", "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 64}",
                  "config.json:1:1: error: found no 'intermediate_size' key; expected the MLP's "
                  "intermediate size"},
        ErrorCase{
            "KvHeadsNotDividing",
            "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 64,\n"
            " \"intermediate_size\": 128, \"num_attention_heads\": 8,\n"
            " \"num_hidden_layers\": 2, \"vocab_size\": 100, \"max_position_embeddings\": 64,\n"
            " \"num_key_value_heads\": 3}",
            "config.json:4:25: error: found num_key_value_heads 3 with num_attention_heads "
            "8; expected a divisor of num_attention_heads (each key/value head serves a "
            "whole group of query heads)"},
        ErrorCase{"HeadDimZero", config("MistralForCausalLM", "  \"head_dim\": 0,\n"),
                  "config.json:9:15: error: found '0'; expected an integer >= 1"},
        ErrorCase{"HiddenNotDividingWithoutHeadDim",
                  "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 60,\n"
                  " \"intermediate_size\": 128, \"num_attention_heads\": 8,\n"
                  " \"num_hidden_layers\": 2, \"vocab_size\": 100, \"max_position_embeddings\": 64}",
                  "config.json:1:41: error: found hidden_size 60 with num_attention_heads 8; "
                  "expected hidden_size divisible by num_attention_heads, or a head_dim"},
        ErrorCase{"BiasesOnSomeLayers", config("LlamaForCausalLM", "  \"attention_bias\": true,\n"),
                  "config.json:9:3: error: found attention_bias true with mlp_bias false; "
                  "expected both alike (biases on some linear layers only are not modelled)"},
        ErrorCase{"TorchDtype", config("Qwen2ForCausalLM", "  \"torch_dtype\": \"int8\",\n"),
                  "config.json:9:18: error: found 'int8'; expected one of bfloat16, float16, "
                  "float32"}),
    [](const ::testing::TestParamInfo<ErrorCase>& p) { return std::string(p.param.name); });

// A config's own head_dim (Mistral NeMo: 32 heads of 128 on hidden 5120) is
// kept; one that states hidden / heads reads as a config without it.
TEST(HuggingFace, HeadDim) {
  auto nemo = load_hf_config(kModels + "mistral_nemo_12b.json");
  ASSERT_TRUE(nemo.is_ok()) << nemo.message();
  EXPECT_EQ(nemo->spec.hidden, 5120);
  EXPECT_EQ(nemo->spec.head_dim, 128);
  EXPECT_EQ(nemo->spec.attention_width(), 4096);
  EXPECT_EQ(nemo->spec.seq, 128000);
  auto stated = parse_hf_config(config("MistralForCausalLM", "  \"head_dim\": 128,\n"),
                                "config.json");
  ASSERT_TRUE(stated.is_ok()) << stated.message();
  auto plain = parse_hf_config(config("MistralForCausalLM"), "config.json");
  ASSERT_TRUE(plain.is_ok()) << plain.message();
  EXPECT_EQ(stated->spec.head_dim, 0);
  EXPECT_EQ(stated->spec, plain->spec);
}

// Qwen3: QK-norm, no biases, heads of 128 (Qwen3Config's default when the
// config does not say).
TEST(HuggingFace, Qwen3) {
  auto c = parse_hf_config(config("Qwen3ForCausalLM"), "config.json");
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_TRUE(c->spec.qk_norm);
  EXPECT_FALSE(c->spec.bias);
  EXPECT_FALSE(c->spec.qkv_bias);
  EXPECT_EQ(c->spec.head_dim, 0);  // 4096 / 32 = 128: the default width
  auto narrow = parse_hf_config(config("Qwen3ForCausalLM", "  \"head_dim\": 64,\n"),
                                "config.json");
  ASSERT_TRUE(narrow.is_ok()) << narrow.message();
  EXPECT_EQ(narrow->spec.head_dim, 64);
}

// Qwen2: biases on Q, K and V only; tied embeddings as its config says.
TEST(HuggingFace, Qwen2QkvBiases) {
  auto c = parse_hf_config(config("Qwen2ForCausalLM", "  \"tie_word_embeddings\": true,\n"),
                           "config.json");
  ASSERT_TRUE(c.is_ok()) << c.message();
  EXPECT_FALSE(c->spec.bias);
  EXPECT_TRUE(c->spec.qkv_bias);
  EXPECT_TRUE(c->spec.tie_embeddings);
}

// A sliding window: Mistral's and Phi-3's whenever its config sets one (Phi-3
// mini 4K: 2047); Qwen2's and
// Qwen3's only under use_sliding_window (Qwen2Config and Qwen3Config carry
// a sliding_window that no layer uses while it is false).
TEST(HuggingFace, SlidingWindowFollowsUseSlidingWindowForQwen) {
  for (const char* arch :
       {"Qwen2ForCausalLM", "Qwen3ForCausalLM", "MistralForCausalLM", "Phi3ForCausalLM"}) {
    SCOPED_TRACE(arch);
    const bool qwen = std::string_view(arch).starts_with("Qwen");
    auto unused = parse_hf_config(config(arch, "  \"sliding_window\": 4096,\n"), "config.json");
    ASSERT_TRUE(unused.is_ok()) << unused.message();
    EXPECT_EQ(unused->sliding_window, qwen ? 0 : 4096);
    auto used = parse_hf_config(
        config(arch, "  \"use_sliding_window\": true,\n  \"sliding_window\": 4096,\n"),
        "config.json");
    ASSERT_TRUE(used.is_ok()) << used.message();
    EXPECT_EQ(used->sliding_window, 4096);
  }
  auto bad = parse_hf_config(config("Qwen2ForCausalLM", "  \"use_sliding_window\": 3,\n"),
                             "config.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message(), "config.json:9:25: error: found '3'; expected true or false");
}

// The scenario's errors about the config: a missing file, and a sequence
// longer than Mistral 7B v0.1's sliding window.
TEST(HuggingFace, ScenarioErrors) {
  const fs::path dir = fs::temp_directory_path() / "brigade_hf_test";
  fs::create_directories(dir);
  {
    std::ofstream(dir / "mistral.json") << config("MistralForCausalLM", "  \"sliding_window\": 4096,\n");
  }
  auto missing = parse_scenario("topology: {preset: dgx-h100}\nmodel: {huggingface: nope.json}\n",
                                (dir / "s.yaml").string());
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.message(), (dir / "s.yaml").string() + ":2:22: error: found config 'nope.json' (" +
                                   (dir / "nope.json").string() +
                                   "), which is not a readable file; expected a Hugging Face "
                                   "config.json (relative paths start at the scenario's folder)");
  auto window = parse_scenario(
      "topology: {preset: dgx-h100}\nmodel: {huggingface: {config: mistral.json, seq: 8192}}\n",
      (dir / "s.yaml").string());
  ASSERT_FALSE(window.is_ok());
  EXPECT_EQ(window.message(), (dir / "s.yaml").string() +
                                  ":2:50: error: found seq 8192 with the config's sliding_window "
                                  "4096 (" + (dir / "mistral.json").string() +
                                  ":9:21); expected seq <= sliding_window (sliding-window "
                                  "attention is not modelled)");
  auto fits = parse_scenario(
      "topology: {preset: dgx-h100}\nmodel: {huggingface: {config: mistral.json, seq: 4096}}\n",
      (dir / "s.yaml").string());
  EXPECT_TRUE(fits.is_ok()) << fits.message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace brigade

namespace brigade {
namespace {

// The bundled scenario reads its config and keeps its own keys.
TEST(HuggingFace, BundledLlama3_70bScenario) {
  auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/llama3_70b_64gpu.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(s->transformer.layers, 80);
  EXPECT_EQ(s->transformer.seq, 8192);
  EXPECT_EQ(s->transformer.attention, AttentionKernel::kFlash);
  EXPECT_TRUE(check_plan(*s).is_ok()) << check_plan(*s).message();
}

}  // namespace
}  // namespace brigade
