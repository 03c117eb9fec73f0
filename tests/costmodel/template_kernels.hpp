// Looking kernels up in a layer template's lists (costmodel/
// transformer_blocks.hpp) by name, for the tests that check the order and
// marks the tensor-parallel overlaps give them.
#pragma once

#include <string>
#include <vector>

#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost::testing {

// The first kernel named `name`, or nullptr.
inline const Kernel* find_kernel(const std::vector<Kernel>& ks, const std::string& name) {
  for (const Kernel& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

// The names from the first kernel named `first` on, `n` of them at most.
inline std::vector<std::string> names_from(const std::vector<Kernel>& ks, const std::string& first,
                                           size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < ks.size(); ++i)
    if (ks[i].name == first) {
      for (size_t j = i; j < ks.size() && out.size() < n; ++j) out.push_back(ks[j].name);
      break;
    }
  return out;
}

}  // namespace brigade::cost::testing
