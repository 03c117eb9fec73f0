// A Hugging Face `config.json` (transformers' PretrainedConfig as saved next
// to a model's weights) read as a TransformerSpec: the dense decoder-only
// architectures whose layers Brigade's transformer describes. No weights are
// read; only the shape of the model. docs/scenario-format.md, "huggingface",
// lists the keys read and how each maps.
#pragma once

#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade {

// The architectures read (`architectures[0]` of the config): Llama,
// Mistral, Qwen2 (dense), Mixtral, Qwen2-MoE and DeepSeek-V3 (mixtures of
// experts; DeepSeek's multi-head latent attention as TransformerSpec::mla).
const std::vector<std::string>& hf_architectures();

// A config as read: the transformer, and what the scenario must check
// against its own keys.
struct HfConfig {
  TransformerSpec spec;  // spec.source: "ARCHITECTURE from PATH"
  // Sliding-window attention (Mistral 7B v0.1: 4096), 0 when the config has
  // none: a sequence longer than the window is refused (not modelled).
  std::int64_t sliding_window = 0;
  SourcePos sliding_window_pos;
};

// Reads the config at `path` (JSON). Errors name the key's position:
//   "PATH:L:C: error: found architecture 'GPT2LMHeadModel'; expected one of ..."
//   "PATH:1:1: error: found no 'hidden_size' key; expected ..."
// The sequence length is max_position_embeddings (a scenario usually sets
// the training length instead), the dtype torch_dtype (bf16 when absent).
Result<HfConfig> load_hf_config(const std::string& path);
// The same from text; `path` is used in messages.
Result<HfConfig> parse_hf_config(const std::string& text, const std::string& path);

}  // namespace brigade
