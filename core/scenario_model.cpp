#include "core/scenario_model.hpp"

#include <filesystem>
#include <vector>

#include "core/hf_config.hpp"
#include "core/plan_check.hpp"

namespace brigade {

std::string_view mlp_kind_name(MlpKind k) {
  return k == MlpKind::kSwiglu ? "swiglu" : "gelu";
}
std::string_view norm_kind_name(NormKind k) {
  return k == NormKind::kRmsNorm ? "rmsnorm" : "layernorm";
}
std::string_view position_kind_name(PositionKind k) {
  return k == PositionKind::kRotary ? "rotary" : "learned";
}
std::string_view attention_kernel_name(AttentionKernel k) {
  return k == AttentionKernel::kFlash ? "flash" : "unfused";
}

namespace {

using yamlio::Bound;
using yamlio::Cursor;
constexpr std::int64_t kMaxDim = ScenarioLimits::kMaxDimension;

Result<AttentionKernel> read_attention(const Cursor& c, AttentionKernel dflt) {
  return c.get_enum("attention", dflt,
                    choices_of({AttentionKernel::kUnfused, AttentionKernel::kFlash},
                               attention_kernel_name));
}

}  // namespace

// model.transformer.moe, or model.huggingface.moe (the router's behaviour only:
// the shape comes from the config).
static Status read_moe_spec(const Cursor& c, const TransformerSpec& t, MoeSpec* out,
                            bool from_config) {
  MoeSpec& m = *out;
  if (from_config) {
    // A config.json gives the shape; the scenario gives how the router behaves.
    BRIGADE_RETURN_IF_ERROR(
        c.expect_map("the router's behaviour {capacity_factor, imbalance or load}"));
    BRIGADE_RETURN_IF_ERROR(c.check_keys({"capacity_factor", "imbalance", "load"}));
    if (!m.enabled())
      return c.error(
          "found moe settings for a dense model; expected a mixture-of-experts config "
          "(its experts come from the config.json)");
  } else {
    BRIGADE_RETURN_IF_ERROR(c.expect_map(
        "a mixture of experts {experts, top_k, shared_experts, ffn_hidden, first_dense, every, "
        "capacity_factor, imbalance or load}"));
    BRIGADE_RETURN_IF_ERROR(
        c.check_keys({"experts", "top_k", "shared_experts", "ffn_hidden", "first_dense", "every",
                      "capacity_factor", "imbalance", "load"}));
    BRIGADE_RETURN_IF_ERROR(c.require("experts", "the number of routed experts"));
    BRIGADE_ASSIGN_OR_RETURN(m.experts, c.get("experts").as_int(1, kMaxDim));
    BRIGADE_RETURN_IF_ERROR(c.require("top_k", "the experts each token is routed to"));
    const Cursor k = c.get("top_k");
    BRIGADE_ASSIGN_OR_RETURN(m.top_k, k.as_int(1, kMaxDim));
    if (m.top_k > m.experts)
      return k.error("found top_k " + std::to_string(m.top_k) + " with " +
                     std::to_string(m.experts) +
                     " experts; expected top_k <= experts (each token goes to top_k distinct "
                     "experts)");
    BRIGADE_ASSIGN_OR_RETURN(m.shared_experts, c.get_int("shared_experts", 0, 0, kMaxDim));
    BRIGADE_ASSIGN_OR_RETURN(m.ffn_hidden, c.get_int("ffn_hidden", 0, 1, kMaxDim));
    if (m.ffn_hidden == 0) m.ffn_hidden = ffn_width(t);
    BRIGADE_ASSIGN_OR_RETURN(m.first_dense, c.get_int("first_dense", 0, 0, kMaxDim));
    BRIGADE_ASSIGN_OR_RETURN(m.every, c.get_int("every", 1, 1, kMaxDim));
    if (t.layers > 0 && m.first_dense >= t.layers)
      return c.get("first_dense")
          .error("found first_dense " + std::to_string(m.first_dense) + " with " +
                 std::to_string(t.layers) +
                 " layers; expected fewer dense layers than layers (at least one MoE layer)");
  }
  if (c.has("capacity_factor")) {
    BRIGADE_ASSIGN_OR_RETURN(m.capacity_factor,
                             c.get("capacity_factor").as_number_in(0, 1e6, "a capacity factor"));
  }
  if (c.has("imbalance") && c.has("load"))
    return c.key_of("load").error(
        "found both 'imbalance' and 'load'; expected one of them (imbalance: the busiest rank's "
        "tokens over the mean; load: each expert's share of the tokens)");
  if (c.has("imbalance")) {
    const Cursor im = c.get("imbalance");
    BRIGADE_ASSIGN_OR_RETURN(m.imbalance, im.as_number_in(1, 1e6, "an imbalance"));
  }
  if (c.has("load")) {
    const Cursor l = c.get("load");
    const std::string what =
        "a list of " + std::to_string(m.experts) + " non-negative token shares, one per expert";
    BRIGADE_RETURN_IF_ERROR(l.expect_list(what));
    if (static_cast<std::int64_t>(l.size()) != m.experts)
      return l.error("found " + std::to_string(l.size()) + " loads; expected " + what);
    m.load.clear();
    double sum = 0;
    for (const Cursor& x : l.items()) {
      BRIGADE_ASSIGN_OR_RETURN(const double w, x.as_number(Bound::kNonNegative));
      m.load.push_back(w);
      sum += w;
    }
    if (!(sum > 0)) return l.error("found loads summing to 0; expected " + what);
  }
  return Status::ok();
}

Result<DType> read_dtype(const Cursor& c) {
  if (c.is_scalar())
    if (auto t = parse_dtype(c.text())) return *t;
  std::vector<std::string> names;
  for (int i = 0; i < kNumDTypes; ++i) names.emplace_back(dtype_name(static_cast<DType>(i)));
  std::string msg = "found " + c.found() + "; expected a dtype: one of " + yamlio::join_list(names);
  if (c.is_scalar())
    if (auto m = closest_match_in(c.text(), names)) msg += " (did you mean '" + *m + "'?)";
  return c.error(msg);
}

// hidden_dropout and attention_dropout, probabilities in [0, 1); absent:
// what `t` holds (Megatron-LM's 0.1, or the Hugging Face config's).
static Status read_dropouts(const Cursor& c, TransformerSpec& t) {
  for (auto [key, out] : {std::pair<const char*, double*>{"hidden_dropout", &t.hidden_dropout},
                          {"attention_dropout", &t.attention_dropout}}) {
    if (!c.has(key)) continue;
    BRIGADE_ASSIGN_OR_RETURN(const double p, c.get_number(key, *out, Bound::kNonNegative));
    if (!(p < 1))
      return c.get(key).error("found " + std::string(key) + " " + c.get(key).text() +
                              "; expected a probability in [0, 1) (0: no dropout)");
    *out = p;
  }
  return Status::ok();
}

Status read_transformer_spec(const Cursor& c, TransformerSpec* out) {
  TransformerSpec& t = *out;
  BRIGADE_RETURN_IF_ERROR(c.expect_map(
      "a transformer {layers, hidden, heads, kv_heads, head_dim, seq, vocab, ffn_ratio or "
      "ffn_hidden, mlp, norm, positions, tie_embeddings, bias, qkv_bias, qk_norm, "
      "hidden_dropout, attention_dropout, attention, dtype}"));
  BRIGADE_RETURN_IF_ERROR(c.check_keys({"layers", "hidden", "heads", "kv_heads", "head_dim", "seq",
                                        "vocab", "ffn_ratio", "ffn_hidden", "mlp", "norm",
                                        "positions", "tie_embeddings", "bias", "qkv_bias",
                                        "qk_norm", "hidden_dropout", "attention_dropout",
                                        "attention", "dtype", "moe"}));
  struct Field {
    const char* key;
    std::int64_t* out;
    const char* what;
  };
  const Field fields[] = {{"layers", &t.layers, "the number of transformer layers"},
                          {"hidden", &t.hidden, "the hidden size"},
                          {"heads", &t.heads, "the number of attention heads"},
                          {"seq", &t.seq, "the sequence length in tokens"},
                          {"vocab", &t.vocab, "the vocabulary size"}};
  for (const Field& f : fields) {
    BRIGADE_RETURN_IF_ERROR(c.require(f.key, f.what));
    BRIGADE_ASSIGN_OR_RETURN(*f.out, c.get(f.key).as_int(1, kMaxDim));
  }
  if (c.has("kv_heads")) {
    const Cursor kv = c.get("kv_heads");
    BRIGADE_ASSIGN_OR_RETURN(t.kv_heads, kv.as_int(1, kMaxDim));
    if (t.heads % t.kv_heads != 0)
      return kv.error("found kv_heads " + std::to_string(t.kv_heads) + " with heads " +
                      std::to_string(t.heads) +
                      "; expected a divisor of heads, such as " +
                      std::to_string(t.heads >= 8 && t.heads % 8 == 0 ? 8 : 1) +
                      " (each key/value head serves heads/kv_heads query heads: kv_heads = "
                      "heads is MHA, 1 is MQA)");
  }
  // A head's own width (Megatron-LM's --kv-channels); absent: hidden / heads,
  // which must then divide (plan_check says so with the plan's context).
  BRIGADE_ASSIGN_OR_RETURN(t.head_dim, c.get_int("head_dim", 0, 1, kMaxDim));
  if (c.has("ffn_ratio") && c.has("ffn_hidden"))
    return c.key_of("ffn_hidden")
        .error("found both 'ffn_ratio' and 'ffn_hidden'; expected one of them (ffn_hidden is the "
               "FFN width, ffn_ratio the width over hidden)");
  BRIGADE_ASSIGN_OR_RETURN(t.ffn_ratio, c.get_number("ffn_ratio", 4.0, Bound::kPositive));
  BRIGADE_ASSIGN_OR_RETURN(t.ffn_hidden, c.get_int("ffn_hidden", 0, 1, kMaxDim));
  BRIGADE_ASSIGN_OR_RETURN(
      t.mlp, c.get_enum("mlp", MlpKind::kGelu,
                        choices_of({MlpKind::kGelu, MlpKind::kSwiglu}, mlp_kind_name)));
  BRIGADE_ASSIGN_OR_RETURN(
      t.norm, c.get_enum("norm", NormKind::kLayerNorm,
                         choices_of({NormKind::kLayerNorm, NormKind::kRmsNorm}, norm_kind_name)));
  BRIGADE_ASSIGN_OR_RETURN(
      t.positions,
      c.get_enum("positions", PositionKind::kLearned,
                 choices_of({PositionKind::kLearned, PositionKind::kRotary}, position_kind_name)));
  BRIGADE_ASSIGN_OR_RETURN(t.tie_embeddings, c.get_bool("tie_embeddings", true));
  BRIGADE_ASSIGN_OR_RETURN(t.bias, c.get_bool("bias", true));
  BRIGADE_ASSIGN_OR_RETURN(t.qkv_bias, c.get_bool("qkv_bias", false));
  BRIGADE_ASSIGN_OR_RETURN(t.qk_norm, c.get_bool("qk_norm", false));
  BRIGADE_RETURN_IF_ERROR(read_dropouts(c, t));
  BRIGADE_ASSIGN_OR_RETURN(t.attention, read_attention(c, AttentionKernel::kUnfused));
  if (c.has("dtype")) {
    BRIGADE_ASSIGN_OR_RETURN(t.dtype, read_dtype(c.get("dtype")));
  }
  if (c.has("moe")) BRIGADE_RETURN_IF_ERROR(read_moe_spec(c.get("moe"), t, &t.moe, false));
  return Status::ok();
}

Status read_huggingface_spec(const Cursor& c, const std::string& scenario_file,
                             TransformerSpec* out) {
  const char* kWhat =
      "a Hugging Face config: PATH/config.json or {config: PATH, seq, dtype, attention, moe}";
  if (c.is_map()) {
    BRIGADE_RETURN_IF_ERROR(c.check_keys(
        {"config", "seq", "dtype", "attention", "hidden_dropout", "attention_dropout", "moe"}));
    BRIGADE_RETURN_IF_ERROR(c.require("config", "the path of the model's config.json"));
  } else if (!c.is_scalar()) {
    return c.error("found " + c.found() + "; expected " + kWhat);
  }
  // Constructed, never assigned: assigning a cursor assigns its yaml-cpp
  // node's value (YAML::Node::operator=), which would rewrite the document.
  const Cursor file_at = c.is_map() ? c.get("config") : c;
  BRIGADE_ASSIGN_OR_RETURN(const std::string file, file_at.as_name());
  std::filesystem::path p(file);
  if (p.is_relative()) p = std::filesystem::path(scenario_file).parent_path() / p;
  const std::string path = p.lexically_normal().string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return file_at.error("found config '" + file + "' (" + path +
                         "), which is not a readable file; expected a Hugging Face config.json "
                         "(relative paths start at the scenario's folder)");
  BRIGADE_ASSIGN_OR_RETURN(HfConfig config, load_hf_config(path));
  TransformerSpec& t = *out;
  t = std::move(config.spec);
  if (c.is_map()) {
    if (c.has("seq")) {
      BRIGADE_ASSIGN_OR_RETURN(t.seq, c.get("seq").as_int(1, kMaxDim));
    }
    if (c.has("dtype")) {
      BRIGADE_ASSIGN_OR_RETURN(t.dtype, read_dtype(c.get("dtype")));
    }
    BRIGADE_ASSIGN_OR_RETURN(t.attention, read_attention(c, AttentionKernel::kUnfused));
    BRIGADE_RETURN_IF_ERROR(read_dropouts(c, t));
    if (c.has("moe")) BRIGADE_RETURN_IF_ERROR(read_moe_spec(c.get("moe"), t, &t.moe, true));
  }
  if (config.sliding_window > 0 && t.seq > config.sliding_window) {
    const Cursor at = c.is_map() && c.has("seq") ? c.get("seq") : file_at;
    return at.error("found seq " + std::to_string(t.seq) + " with the config's sliding_window " +
                    std::to_string(config.sliding_window) + " (" + config.sliding_window_pos.str() +
                    "); expected seq <= sliding_window (sliding-window attention is not "
                    "modelled)");
  }
  return Status::ok();
}

}  // namespace brigade
