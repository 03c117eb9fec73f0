#include "core/model.hpp"

namespace brigade {

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kForward: return "fwd";
    case Phase::kBackward: return "bwd";
    case Phase::kRecompute: return "recompute";
    case Phase::kOptimizer: return "opt";
    case Phase::kOther: return "other";
  }
  return "?";
}

std::string_view op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::kMatmul: return "matmul";
    case OpKind::kElementwise: return "elementwise";
    case OpKind::kSoftmax: return "softmax";
    case OpKind::kLayerNorm: return "layernorm";
    case OpKind::kEmbedding: return "embedding";
    case OpKind::kLoss: return "loss";
    case OpKind::kCustom: return "custom";
  }
  return "?";
}

double TensorSpec::elements() const {
  double n = 1;
  for (std::int64_t d : shape) n *= static_cast<double>(d);
  return n;
}

int Model::find_tensor(std::string_view name) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return static_cast<int>(i);
  return -1;
}

int Model::find_op(std::string_view name) const {
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<DataEdge> Model::edges() const {
  std::vector<int> producer(tensors.size(), -1);
  for (size_t o = 0; o < ops.size(); ++o)
    for (int t : ops[o].outputs) producer[static_cast<size_t>(t)] = static_cast<int>(o);
  std::vector<DataEdge> e;
  for (size_t o = 0; o < ops.size(); ++o)
    for (int t : ops[o].inputs) {
      const int p = producer[static_cast<size_t>(t)];
      if (p >= 0) e.push_back(DataEdge{p, static_cast<int>(o), t});
    }
  return e;
}

double Model::total_flops() const {
  double f = 0;
  for (const Op& o : ops) f += o.flops > 0 ? o.flops : 0;
  return f;
}

double Model::parameter_count() const {
  double n = 0;
  for (const TensorSpec& t : tensors)
    if (t.is_parameter) n += t.elements();
  return n;
}

}  // namespace brigade
