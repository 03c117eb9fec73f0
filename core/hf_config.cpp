#include "core/hf_config.hpp"

#include <cstdint>
#include <string>

#include "core/yaml_reader.hpp"

namespace brigade {

namespace {

using yamlio::Cursor;
constexpr std::int64_t kMaxDim = ScenarioLimits::kMaxDimension;

enum class Family { kLlama, kQwen2 };

// One required positive integer key.
Result<std::int64_t> required_int(const Cursor& c, const char* key, const char* what) {
  BRIGADE_RETURN_IF_ERROR(c.require(key, what));
  return c.get(key).as_int(1, kMaxDim);
}

// The refusal of a mixture of experts, naming what the config says of it.
Status refuse_moe(const Cursor& root, const Cursor& arch_item, const std::string& arch) {
  std::string experts;
  for (const char* key : {"num_local_experts", "num_experts", "n_routed_experts"})
    if (root.has(key)) {
      auto n = root.get(key).as_int(1, kMaxDim);
      if (n.is_ok()) experts = std::to_string(*n) + " experts";
    }
  if (root.has("num_experts_per_tok")) {
    auto k = root.get("num_experts_per_tok").as_int(1, kMaxDim);
    if (k.is_ok()) experts += (experts.empty() ? "" : ", ") + std::string("top-") + std::to_string(*k);
  }
  if (root.has("moe_intermediate_size")) {
    auto f = root.get("moe_intermediate_size").as_int(1, kMaxDim);
    if (f.is_ok())
      experts += (experts.empty() ? "" : ", ") + std::string("expert FFN ") + std::to_string(*f);
  }
  return arch_item.error("found architecture '" + arch + "', a mixture of experts" +
                         (experts.empty() ? "" : " (" + experts + ")") +
                         "; expected a dense architecture: " +
                         yamlio::join_choices(hf_dense_architectures()) +
                         " (mixtures of experts and expert parallelism are not supported yet: "
                         "issue 21, item 2)");
}

Result<DType> read_torch_dtype(const Cursor& c) {
  if (!c.has("torch_dtype") || c.get("torch_dtype").is_null()) return DType::kBF16;
  const Cursor v = c.get("torch_dtype");
  return v.as_enum<DType>(
      {{"bfloat16", DType::kBF16}, {"float16", DType::kF16}, {"float32", DType::kF32}});
}

Result<HfConfig> read_config(const Cursor& c, const std::string& path) {
  BRIGADE_RETURN_IF_ERROR(c.expect_map("a Hugging Face config.json (a JSON object)"));
  BRIGADE_RETURN_IF_ERROR(c.require(
      "architectures", "the model's architecture, such as [\"LlamaForCausalLM\"]"));
  const Cursor archs = c.get("architectures");
  BRIGADE_RETURN_IF_ERROR(archs.expect_list("a list of architectures, such as [\"LlamaForCausalLM\"]"));
  if (archs.size() == 0)
    return archs.error("found an empty list; expected one architecture, such as [\"LlamaForCausalLM\"]");
  const Cursor arch_item = archs.items()[0];
  BRIGADE_ASSIGN_OR_RETURN(const std::string arch, arch_item.as_name());
  for (const std::string& moe : hf_moe_architectures())
    if (arch == moe) return refuse_moe(c, arch_item, arch);
  Family family = Family::kLlama;
  if (arch == "Qwen2ForCausalLM") {
    family = Family::kQwen2;
  } else if (arch != "LlamaForCausalLM" && arch != "MistralForCausalLM") {
    std::vector<std::string> all = hf_dense_architectures();
    return arch_item.error("found architecture '" + arch + "'; expected one of " +
                           yamlio::join_choices(all) +
                           " (dense decoder-only transformers; the mixtures of experts " +
                           yamlio::join_choices(hf_moe_architectures()) +
                           " are recognised and refused until issue 21, item 2)");
  }

  HfConfig out;
  TransformerSpec& t = out.spec;
  t.source = arch + " from " + path;
  // Llama, Mistral and Qwen2 share the decoder layer: RMSNorm before
  // attention and MLP, rotary positions, a gated MLP (gate_proj, up_proj,
  // down_proj; transformers' LlamaMLP), no biases except Qwen2's on q, k, v.
  t.mlp = MlpKind::kSwiglu;
  t.norm = NormKind::kRmsNorm;
  t.positions = PositionKind::kRotary;
  BRIGADE_ASSIGN_OR_RETURN(t.hidden, required_int(c, "hidden_size", "the hidden size"));
  BRIGADE_ASSIGN_OR_RETURN(t.ffn_hidden,
                           required_int(c, "intermediate_size", "the MLP's intermediate size"));
  BRIGADE_ASSIGN_OR_RETURN(t.heads,
                           required_int(c, "num_attention_heads", "the number of attention heads"));
  BRIGADE_ASSIGN_OR_RETURN(t.layers,
                           required_int(c, "num_hidden_layers", "the number of decoder layers"));
  BRIGADE_ASSIGN_OR_RETURN(t.vocab, required_int(c, "vocab_size", "the vocabulary size"));
  BRIGADE_ASSIGN_OR_RETURN(
      t.seq, required_int(c, "max_position_embeddings", "the longest sequence (max_position_embeddings)"));
  // transformers' LlamaConfig: num_key_value_heads defaults to num_attention_heads (MHA).
  if (c.has("num_key_value_heads") && !c.get("num_key_value_heads").is_null()) {
    const Cursor kv = c.get("num_key_value_heads");
    BRIGADE_ASSIGN_OR_RETURN(t.kv_heads, kv.as_int(1, kMaxDim));
    if (t.heads % t.kv_heads != 0)
      return kv.error("found num_key_value_heads " + std::to_string(t.kv_heads) +
                      " with num_attention_heads " + std::to_string(t.heads) +
                      "; expected a divisor of num_attention_heads (each key/value head serves "
                      "a whole group of query heads)");
  }
  if (t.hidden % t.heads != 0)
    return c.key_of("hidden_size")
        .error("found hidden_size " + std::to_string(t.hidden) + " with num_attention_heads " +
               std::to_string(t.heads) + "; expected hidden_size divisible by num_attention_heads");
  if (c.has("head_dim") && !c.get("head_dim").is_null()) {
    const Cursor hd = c.get("head_dim");
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t head_dim, hd.as_int(1, kMaxDim));
    if (head_dim != t.hidden / t.heads)
      return hd.error("found head_dim " + std::to_string(head_dim) + " with hidden_size " +
                      std::to_string(t.hidden) + " / num_attention_heads " +
                      std::to_string(t.heads) + " = " + std::to_string(t.hidden / t.heads) +
                      "; expected head_dim = hidden_size / num_attention_heads (a head "
                      "dimension of its own is not modelled)");
  }
  // transformers' defaults: tie_word_embeddings false for Llama, Mistral, Qwen2.
  BRIGADE_ASSIGN_OR_RETURN(t.tie_embeddings, c.get_bool("tie_word_embeddings", false));
  BRIGADE_ASSIGN_OR_RETURN(t.dtype, read_torch_dtype(c));
  if (family == Family::kQwen2) {
    // Qwen2Attention: q_proj, k_proj, v_proj with bias, o_proj without.
    t.bias = false;
    t.qkv_bias = true;
    BRIGADE_ASSIGN_OR_RETURN(const bool sliding, c.get_bool("use_sliding_window", false));
    if (sliding && c.has("sliding_window") && !c.get("sliding_window").is_null()) {
      BRIGADE_ASSIGN_OR_RETURN(out.sliding_window, c.get("sliding_window").as_int(1, kMaxDim));
      out.sliding_window_pos = c.get("sliding_window").pos();
    }
  } else {
    BRIGADE_ASSIGN_OR_RETURN(const bool attention_bias, c.get_bool("attention_bias", false));
    BRIGADE_ASSIGN_OR_RETURN(const bool mlp_bias, c.get_bool("mlp_bias", false));
    if (attention_bias != mlp_bias)
      return c.key_of(attention_bias ? "attention_bias" : "mlp_bias")
          .error(std::string("found attention_bias ") + (attention_bias ? "true" : "false") +
                 " with mlp_bias " + (mlp_bias ? "true" : "false") +
                 "; expected both alike (biases on some linear layers only are not modelled)");
    t.bias = attention_bias;
    if (c.has("sliding_window") && !c.get("sliding_window").is_null()) {
      BRIGADE_ASSIGN_OR_RETURN(out.sliding_window, c.get("sliding_window").as_int(1, kMaxDim));
      out.sliding_window_pos = c.get("sliding_window").pos();
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& hf_dense_architectures() {
  static const std::vector<std::string> kNames = {"LlamaForCausalLM", "MistralForCausalLM",
                                                  "Qwen2ForCausalLM"};
  return kNames;
}

const std::vector<std::string>& hf_moe_architectures() {
  static const std::vector<std::string> kNames = {"MixtralForCausalLM", "Qwen2MoeForCausalLM",
                                                  "DeepseekV3ForCausalLM"};
  return kNames;
}

Result<HfConfig> load_hf_config(const std::string& path) {
  std::string text;
  BRIGADE_RETURN_IF_ERROR(yamlio::read_file_text(path, "a readable Hugging Face config.json", &text,
                                                 ScenarioLimits::kMaxFileBytes));
  return parse_hf_config(text, path);
}

Result<HfConfig> parse_hf_config(const std::string& text, const std::string& path) {
  try {
    BRIGADE_ASSIGN_OR_RETURN(const yamlio::Tree root,
                             yamlio::read_tree(text, path, "a well-formed JSON config"));
    BRIGADE_RETURN_IF_ERROR(yamlio::check_unique_keys(root, path));
    yamlio::Document doc{path, nullptr};
    return read_config(Cursor(&doc, root, "", SourcePos{path, 1, 1}), path);
  } catch (const std::exception& e) {
    return Status::at(SourcePos{path, 0, 0},
                      std::string("internal error while reading the config: ") + e.what(),
                      ErrorKind::kInternal);
  }
}

}  // namespace brigade
