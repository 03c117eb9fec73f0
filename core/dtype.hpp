// Element types of tensors and kernels.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace brigade {

enum class DType : std::uint8_t { kF64, kF32, kTF32, kF16, kBF16, kFP8, kI32, kI8 };
inline constexpr int kNumDTypes = 8;

// Bytes per element (TF32 is stored as 4-byte floats).
constexpr double dtype_bytes(DType t) {
  switch (t) {
    case DType::kF64: return 8;
    case DType::kF32: return 4;
    case DType::kTF32: return 4;
    case DType::kF16: return 2;
    case DType::kBF16: return 2;
    case DType::kFP8: return 1;
    case DType::kI32: return 4;
    case DType::kI8: return 1;
  }
  return 4;
}

// "f32", "bf16", ... (the scenario-file spelling).
std::string_view dtype_name(DType t);
// Accepts the names above plus "fp32", "float32", "fp16", "float16", "half",
// "bfloat16", "fp64", "float64", "double", "int8", "int32", "fp8", "tf32".
std::optional<DType> parse_dtype(std::string_view s);
// The canonical names, for "expected one of" messages.
std::string_view dtype_choices();

constexpr int dtype_index(DType t) { return static_cast<int>(t); }

// A per-dtype table, e.g. peak FLOP/s by dtype (0 = unsupported).
using PerDType = std::array<double, kNumDTypes>;

}  // namespace brigade
