#include "core/model.hpp"

#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

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

// Names -> first index, for tensors and for ops, each extended lazily up to
// the vector's current size. The mutex makes concurrent const lookups safe.
struct Model::NameIndex {
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Table {
    std::unordered_map<std::string, int, Hash, std::equal_to<>> first;
    size_t indexed = 0;  // entries [0, indexed) are in `first`
  };
  std::mutex mu;
  Table tensors, ops;
};

namespace {

template <class Entry, class Table>
int find_indexed(const std::vector<Entry>& entries, Table& table, std::string_view name) {
  if (table.indexed > entries.size()) {  // entries removed: start again
    table.first.clear();
    table.indexed = 0;
  }
  for (; table.indexed < entries.size(); ++table.indexed)
    table.first.try_emplace(entries[table.indexed].name, static_cast<int>(table.indexed));
  auto it = table.first.find(name);
  if (it == table.first.end()) return -1;
  const size_t i = static_cast<size_t>(it->second);
  if (entries[i].name == name) return it->second;
  // Renamed since it was indexed: rebuild once, then answer.
  table.first.clear();
  table.indexed = 0;
  return find_indexed(entries, table, name);
}

}  // namespace

Model::Model() : index_(std::make_unique<NameIndex>()) {}
Model::Model(const Model& other)
    : tensors(other.tensors), ops(other.ops), index_(std::make_unique<NameIndex>()) {}
Model& Model::operator=(const Model& other) {
  if (this != &other) {
    tensors = other.tensors;
    ops = other.ops;
    index_ = std::make_unique<NameIndex>();
  }
  return *this;
}
Model::Model(Model&& other) noexcept
    : tensors(std::move(other.tensors)), ops(std::move(other.ops)), index_(std::move(other.index_)) {
  other.tensors.clear();
  other.ops.clear();
}
Model& Model::operator=(Model&& other) noexcept {
  if (this != &other) {
    tensors = std::move(other.tensors);
    ops = std::move(other.ops);
    index_ = std::move(other.index_);
    other.tensors.clear();
    other.ops.clear();
  }
  return *this;
}
Model::~Model() = default;

int Model::find_tensor(std::string_view name) const {
  if (!index_) {  // a moved-from model: scan
    for (size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].name == name) return static_cast<int>(i);
    return -1;
  }
  std::lock_guard<std::mutex> lock(index_->mu);
  return find_indexed(tensors, index_->tensors, name);
}

int Model::find_op(std::string_view name) const {
  if (!index_) {  // a moved-from model: scan
    for (size_t i = 0; i < ops.size(); ++i)
      if (ops[i].name == name) return static_cast<int>(i);
    return -1;
  }
  std::lock_guard<std::mutex> lock(index_->mu);
  return find_indexed(ops, index_->ops, name);
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
