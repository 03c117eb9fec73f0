// Looking kernels up in a layer template's lists (costmodel/
// transformer_blocks.hpp) by name, for the tests that check the order and
// marks the tensor-parallel overlaps give them; and the parameters a
// model's templates hold, for the tests that count them by hand.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
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

// The transformer shape of a scenario written out, its plan checked.
inline TransformerShape shape_of_yaml(const std::string& yaml) {
  Result<Scenario> sc = parse_scenario(yaml, "t.yaml");
  EXPECT_TRUE(sc.is_ok()) << sc.message();
  if (!sc.is_ok()) return TransformerShape{};
  EXPECT_TRUE(check_plan(*sc).is_ok()) << check_plan(*sc).message();
  return transformer_shape(*sc);
}

// Its layer template (empty where it cannot be built, the failure said).
inline BlockTemplate layer_of_yaml(const std::string& yaml) {
  Result<BlockTemplate> L = transformer_layer(shape_of_yaml(yaml));
  EXPECT_TRUE(L.is_ok()) << L.message();
  return L.is_ok() ? *L : BlockTemplate{};
}

// Parameters the block templates hold on one tensor rank, the whole model
// (layers x layer + embedding + head).
inline double template_parameters(const TransformerSpec& spec, int tensor = 1) {
  TransformerShape shape;
  shape.spec = spec;
  shape.tensor = tensor;
  auto layer = transformer_layer(shape);
  auto emb = embedding_block(shape);
  auto head = head_block(shape);
  if (!layer.is_ok() || !emb.is_ok() || !head.is_ok()) return -1;
  return static_cast<double>(spec.layers) * layer->local_param_elements() +
         emb->local_param_elements() + head->local_param_elements();
}

}  // namespace brigade::cost::testing
