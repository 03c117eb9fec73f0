#include "core/hf_config.hpp"

#include <cstdint>
#include <string>

#include "core/yaml_reader.hpp"

namespace brigade {

namespace {

using yamlio::Cursor;
constexpr std::int64_t kMaxDim = ScenarioLimits::kMaxDimension;

enum class Family { kLlama, kQwen2, kMixtral, kQwen2Moe, kDeepseekV3, kQwen3, kQwen3Moe };

// One required positive integer key.
Result<std::int64_t> required_int(const Cursor& c, const char* key, const char* what) {
  BRIGADE_RETURN_IF_ERROR(c.require(key, what));
  return c.get(key).as_int(1, kMaxDim);
}

Result<DType> read_torch_dtype(const Cursor& c) {
  if (!c.has("torch_dtype") || c.get("torch_dtype").is_null()) return DType::kBF16;
  const Cursor v = c.get("torch_dtype");
  return v.as_enum<DType>(
      {{"bfloat16", DType::kBF16}, {"float16", DType::kF16}, {"float32", DType::kF32}});
}

// An optional non-negative integer key (null as absent).
Result<std::int64_t> optional_int(const Cursor& c, const char* key, std::int64_t dflt,
                                  std::int64_t min) {
  if (!c.has(key) || c.get(key).is_null()) return dflt;
  return c.get(key).as_int(min, kMaxDim);
}

// The experts of a mixture of experts, as each family's transformers
// config names them (MixtralConfig, Qwen2MoeConfig, DeepseekV3Config).
Status read_moe(const Cursor& c, Family family, TransformerSpec& t) {
  MoeSpec& m = t.moe;
  const char* experts_key = family == Family::kMixtral    ? "num_local_experts"
                            : family == Family::kQwen2Moe || family == Family::kQwen3Moe
                                ? "num_experts"
                                                          : "n_routed_experts";
  BRIGADE_ASSIGN_OR_RETURN(m.experts, required_int(c, experts_key, "the number of routed experts"));
  BRIGADE_ASSIGN_OR_RETURN(
      m.top_k, required_int(c, "num_experts_per_tok", "the experts each token is routed to"));
  if (m.top_k > m.experts)
    return c.get("num_experts_per_tok")
        .error("found num_experts_per_tok " + std::to_string(m.top_k) + " with " + experts_key +
               " " + std::to_string(m.experts) +
               "; expected num_experts_per_tok <= " + experts_key);
  if (family == Family::kMixtral) {
    // MixtralSparseMoeBlock: every layer, experts of intermediate_size.
    m.ffn_hidden = t.ffn_hidden;
    return Status::ok();
  }
  BRIGADE_ASSIGN_OR_RETURN(
      m.ffn_hidden, required_int(c, "moe_intermediate_size", "one expert's intermediate size"));
  if (family == Family::kQwen2Moe || family == Family::kQwen3Moe) {
    // Qwen2MoeSparseMoeBlock: one shared expert of
    // shared_expert_intermediate_size, counted here as that many experts of
    // moe_intermediate_size (its sigmoid gate, h x 1, is left out); a MoE
    // block where (layer + 1) % decoder_sparse_step == 0 and the layer is
    // not in mlp_only_layers.
    // Qwen3MoeSparseMoeBlock has no shared expert.
    BRIGADE_ASSIGN_OR_RETURN(
        const std::int64_t shared,
        family == Family::kQwen3Moe
            ? Result<std::int64_t>(std::int64_t{0})
            : optional_int(c, "shared_expert_intermediate_size", 0, 0));
    if (shared % m.ffn_hidden != 0)
      return c.get("shared_expert_intermediate_size")
          .error("found shared_expert_intermediate_size " + std::to_string(shared) +
                 " with moe_intermediate_size " + std::to_string(m.ffn_hidden) +
                 "; expected a multiple of it (the shared expert is modelled as whole experts)");
    m.shared_experts = shared / m.ffn_hidden;
    BRIGADE_ASSIGN_OR_RETURN(m.every, optional_int(c, "decoder_sparse_step", 1, 1));
    if (c.has("mlp_only_layers") && c.get("mlp_only_layers").size() > 0)
      return c.get("mlp_only_layers")
          .error(
              "found a non-empty mlp_only_layers; expected [] (dense layers at chosen "
              "places are not modelled; decoder_sparse_step and first dense layers are)");
    return Status::ok();
  }
  // DeepseekV3MoE: n_shared_experts shared experts of moe_intermediate_size;
  // layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0.
  BRIGADE_ASSIGN_OR_RETURN(m.shared_experts, optional_int(c, "n_shared_experts", 0, 0));
  BRIGADE_ASSIGN_OR_RETURN(m.first_dense, optional_int(c, "first_k_dense_replace", 0, 0));
  BRIGADE_ASSIGN_OR_RETURN(const std::int64_t freq, optional_int(c, "moe_layer_freq", 1, 1));
  if (freq != 1)
    return c.get("moe_layer_freq")
        .error("found moe_layer_freq " + std::to_string(freq) +
               "; expected 1 (every layer past the first dense ones is MoE)");
  if (m.first_dense >= t.layers)
    return c.get("first_k_dense_replace")
        .error("found first_k_dense_replace " + std::to_string(m.first_dense) + " with " +
               std::to_string(t.layers) + " layers; expected fewer (at least one MoE layer)");
  // Multi-head latent attention.
  MlaSpec& a = t.mla;
  BRIGADE_ASSIGN_OR_RETURN(a.q_lora_rank, optional_int(c, "q_lora_rank", 0, 1));
  BRIGADE_ASSIGN_OR_RETURN(a.kv_lora_rank,
                           required_int(c, "kv_lora_rank", "MLA's key/value latent rank"));
  BRIGADE_ASSIGN_OR_RETURN(
      a.qk_nope_head_dim,
      required_int(c, "qk_nope_head_dim", "MLA's per-head key width without rotary"));
  BRIGADE_ASSIGN_OR_RETURN(a.qk_rope_head_dim,
                           required_int(c, "qk_rope_head_dim", "MLA's per-head rotary key width"));
  BRIGADE_ASSIGN_OR_RETURN(a.v_head_dim,
                           required_int(c, "v_head_dim", "MLA's per-head value width"));
  return Status::ok();
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
  Family family = Family::kLlama;
  if (arch == "Qwen2ForCausalLM") {
    family = Family::kQwen2;
  } else if (arch == "MixtralForCausalLM") {
    family = Family::kMixtral;
  } else if (arch == "Qwen2MoeForCausalLM") {
    family = Family::kQwen2Moe;
  } else if (arch == "DeepseekV3ForCausalLM") {
    family = Family::kDeepseekV3;
  } else if (arch == "Qwen3ForCausalLM") {
    family = Family::kQwen3;
  } else if (arch == "Qwen3MoeForCausalLM") {
    family = Family::kQwen3Moe;
  } else if (arch != "LlamaForCausalLM" && arch != "MistralForCausalLM" &&
             arch != "Phi3ForCausalLM") {
    return arch_item.error("found architecture '" + arch + "'; expected one of " +
                           yamlio::join_choices(hf_architectures()) +
                           " (decoder-only transformers, dense or mixtures of experts)");
  }
  HfConfig out;
  TransformerSpec& t = out.spec;
  t.source = arch + " from " + path;
  // Llama, Mistral, Phi-3, Qwen2 and Qwen3 share the decoder layer: RMSNorm
  // before attention and MLP, rotary positions, a gated MLP (gate_proj,
  // up_proj, down_proj; transformers' LlamaMLP), no biases except Qwen2's
  // on q, k, v (Qwen3 adds the norms of q and k). Phi-3 (Phi3ForCausalLM:
  // Phi-3 mini and medium, Phi-3.5 mini, Phi-4, Phi-4-mini) fuses q, k and
  // v into one qkv_proj and gate and up into one gate_up_proj: the same
  // GEMMs' FLOPs and bytes as the three and the two, which is how Megatron
  // runs them too. Its partial_rotary_factor (Phi-4-mini 0.75) turns part
  // of each head; the rotary kernel still reads and writes the whole of q
  // and k (transformers splits and concatenates them, Transformer Engine's
  // fused kernel copies the rest), so it costs the same and is not read.
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
  if (family != Family::kDeepseekV3 && c.has("num_key_value_heads") &&
      !c.get("num_key_value_heads").is_null()) {
    const Cursor kv = c.get("num_key_value_heads");
    BRIGADE_ASSIGN_OR_RETURN(t.kv_heads, kv.as_int(1, kMaxDim));
    if (t.heads % t.kv_heads != 0)
      return kv.error("found num_key_value_heads " + std::to_string(t.kv_heads) +
                      " with num_attention_heads " + std::to_string(t.heads) +
                      "; expected a divisor of num_attention_heads (each key/value head serves "
                      "a whole group of query heads)");
  }
  // transformers' LlamaConfig and MistralConfig: head_dim defaults to
  // hidden_size / num_attention_heads; a config may set its own (Mistral
  // NeMo: 5120 / 32 heads of 128). Kept as model.transformer.head_dim only
  // where it differs, so a config that states the default reads as before.
  // Qwen3Config's head_dim defaults to 128 whatever the hidden size.
  const bool qwen3 = family == Family::kQwen3 || family == Family::kQwen3Moe;
  const bool has_head_dim =
      family != Family::kDeepseekV3 && c.has("head_dim") && !c.get("head_dim").is_null();
  std::int64_t head_dim = qwen3 ? 128 : 0;
  if (has_head_dim) {
    BRIGADE_ASSIGN_OR_RETURN(head_dim, c.get("head_dim").as_int(1, kMaxDim));
  }
  if (head_dim > 0) {
    if (t.hidden % t.heads != 0 || head_dim != t.hidden / t.heads) t.head_dim = head_dim;
  } else if (t.hidden % t.heads != 0 && family != Family::kDeepseekV3) {
    return c.key_of("hidden_size")
        .error("found hidden_size " + std::to_string(t.hidden) + " with num_attention_heads " +
               std::to_string(t.heads) +
               "; expected hidden_size divisible by num_attention_heads, or a head_dim");
  }
  // transformers' defaults: tie_word_embeddings false for Llama, Mistral,
  // Phi-3, Qwen2.
  BRIGADE_ASSIGN_OR_RETURN(t.tie_embeddings, c.get_bool("tie_word_embeddings", false));
  BRIGADE_ASSIGN_OR_RETURN(t.dtype, read_torch_dtype(c));
  // Dropout: these decoders have none on the residual stream (transformers'
  // LlamaDecoderLayer and its kin add the sublayers' outputs as they are),
  // and attention_dropout on the probabilities (0.0 by default and in every
  // released config); a scenario may set either (model.huggingface).
  t.hidden_dropout = 0;
  BRIGADE_ASSIGN_OR_RETURN(t.attention_dropout,
                           c.get_number("attention_dropout", 0.0, yamlio::Bound::kNonNegative));
  if (!(t.attention_dropout < 1))
    return c.get("attention_dropout")
        .error("found attention_dropout " + c.get("attention_dropout").text() +
               "; expected a probability in [0, 1)");
  if (family == Family::kMixtral || family == Family::kQwen2Moe || family == Family::kQwen3Moe ||
      family == Family::kDeepseekV3)
    BRIGADE_RETURN_IF_ERROR(read_moe(c, family, t));
  if (family == Family::kDeepseekV3) {
    // MLA's linear layers have no biases (attention_bias false in every
    // released config); the MLP none either.
    BRIGADE_ASSIGN_OR_RETURN(const bool attention_bias, c.get_bool("attention_bias", false));
    if (attention_bias)
      return c.get("attention_bias")
          .error("found attention_bias true; expected false (MLA with biases is not modelled)");
    t.bias = false;
    return out;
  }
  if (qwen3) {
    // Qwen3Attention: q_proj, k_proj, v_proj and o_proj with a bias only
    // where attention_bias says (false in every released config); q_norm
    // and k_norm, RMSNorms over head_dim, before the rotary embedding
    // (qk_norm); Qwen3MLP and the experts without biases.
    BRIGADE_ASSIGN_OR_RETURN(const bool attention_bias, c.get_bool("attention_bias", false));
    if (attention_bias)
      return c.get("attention_bias")
          .error("found attention_bias true; expected false (biases on the attention's linear "
                 "layers alone are not modelled)");
    t.bias = false;
    t.qk_norm = true;
  } else if (family == Family::kQwen2 || family == Family::kQwen2Moe) {
    // Qwen2Attention: q_proj, k_proj, v_proj with bias, o_proj without.
    t.bias = false;
    t.qkv_bias = true;
  } else {
    BRIGADE_ASSIGN_OR_RETURN(const bool attention_bias, c.get_bool("attention_bias", false));
    BRIGADE_ASSIGN_OR_RETURN(const bool mlp_bias, c.get_bool("mlp_bias", false));
    if (attention_bias != mlp_bias)
      return c.key_of(attention_bias ? "attention_bias" : "mlp_bias")
          .error(std::string("found attention_bias ") + (attention_bias ? "true" : "false") +
                 " with mlp_bias " + (mlp_bias ? "true" : "false") +
                 "; expected both alike (biases on some linear layers only are not modelled)");
    t.bias = attention_bias;
  }
  // A window: Mistral's and Phi-3's sliding_window holds whenever it is set
  // (Phi-3 mini 4K: 2047, transformers' Phi3Attention passes it to the
  // attention); Qwen2's and Qwen3's only under use_sliding_window (their
  // configs carry a sliding_window that no layer uses otherwise).
  bool windowed = true;
  if (qwen3 || family == Family::kQwen2 || family == Family::kQwen2Moe) {
    BRIGADE_ASSIGN_OR_RETURN(windowed, c.get_bool("use_sliding_window", false));
  }
  if (windowed && c.has("sliding_window") && !c.get("sliding_window").is_null()) {
    BRIGADE_ASSIGN_OR_RETURN(out.sliding_window, c.get("sliding_window").as_int(1, kMaxDim));
    out.sliding_window_pos = c.get("sliding_window").pos();
  }
  return out;
}

}  // namespace

const std::vector<std::string>& hf_architectures() {
  static const std::vector<std::string> kNames = {
      "LlamaForCausalLM",    "MistralForCausalLM",    "Phi3ForCausalLM",
      "Qwen2ForCausalLM",    "MixtralForCausalLM",    "Qwen2MoeForCausalLM",
      "DeepseekV3ForCausalLM", "Qwen3ForCausalLM",    "Qwen3MoeForCausalLM"};
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
