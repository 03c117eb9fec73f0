// The scenario's transformer model: `model.transformer` written out, or
// `model.huggingface` naming a Hugging Face config.json (core/hf_config.hpp).
// Read apart from the rest of the scenario (core/scenario.cpp calls it).
// Private to core/: it takes a yamlio::Cursor.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {

// (name, value) pairs for Cursor::as_enum from values and their name function.
template <class T>
std::vector<std::pair<std::string, T>> choices_of(std::initializer_list<T> values,
                                                  std::string_view (*name)(T)) {
  std::vector<std::pair<std::string, T>> out;
  for (T v : values) out.emplace_back(std::string(name(v)), v);
  return out;
}

// A dtype name ("bf16"), with "did you mean" on a near miss.
Result<DType> read_dtype(const yamlio::Cursor& c);

// model.transformer: {layers, hidden, heads, kv_heads, seq, vocab, ffn_ratio
// | ffn_hidden, mlp, norm, positions, tie_embeddings, bias, qkv_bias,
// attention, dtype}. kv_heads must divide heads; ffn_ratio and ffn_hidden
// exclude each other.
Status read_transformer_spec(const yamlio::Cursor& c, TransformerSpec* out);

// model.huggingface: PATH or {config: PATH, seq, dtype, attention}. PATH is
// relative to the scenario file (`scenario_file`).
Status read_huggingface_spec(const yamlio::Cursor& c, const std::string& scenario_file,
                             TransformerSpec* out);

}  // namespace brigade
