#include "core/dtype.hpp"

#include <string>

namespace brigade {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kF64: return "f64";
    case DType::kF32: return "f32";
    case DType::kTF32: return "tf32";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kFP8: return "fp8";
    case DType::kI32: return "i32";
    case DType::kI8: return "i8";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  struct Alias {
    std::string_view name;
    DType type;
  };
  static constexpr Alias kAliases[] = {
      {"f64", DType::kF64},  {"fp64", DType::kF64},      {"float64", DType::kF64},
      {"double", DType::kF64}, {"f32", DType::kF32},     {"fp32", DType::kF32},
      {"float32", DType::kF32}, {"float", DType::kF32},  {"tf32", DType::kTF32},
      {"f16", DType::kF16},  {"fp16", DType::kF16},      {"float16", DType::kF16},
      {"half", DType::kF16}, {"bf16", DType::kBF16},     {"bfloat16", DType::kBF16},
      {"fp8", DType::kFP8},  {"f8", DType::kFP8},        {"i32", DType::kI32},
      {"int32", DType::kI32}, {"i8", DType::kI8},        {"int8", DType::kI8}};
  for (const Alias& a : kAliases)
    if (a.name == s) return a.type;
  return std::nullopt;
}

std::string_view dtype_choices() { return "f64, f32, tf32, f16, bf16, fp8, i32, i8"; }

}  // namespace brigade
