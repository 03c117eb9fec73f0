#include "core/model.hpp"

#include <algorithm>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/huge_pages.hpp"

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
// the vector's current size. An open-addressing table of (hash, index)
// pairs in one array: no allocation per name (a node-based map spent most
// of a million-op read in malloc and page faults), names compared in the
// vector itself. The mutex makes concurrent const lookups safe.
namespace model_detail {
struct NameTable {
  // slot: (32 bits of the name's hash) << 32 | (index + 1); 0 = empty.
  std::vector<std::uint64_t> slots;
  size_t used = 0;
  size_t indexed = 0;  // entries [0, indexed) are in `slots`
};
}  // namespace model_detail

struct Model::NameIndex {
  std::mutex mu;
  model_detail::NameTable tensors, ops;
};

namespace {

using Table = model_detail::NameTable;

std::uint64_t name_hash(std::string_view s) {
  return std::hash<std::string_view>{}(s);
}

// The slot holding `name`, or the empty slot where it would go.
template <class Entry>
size_t probe(const std::vector<Entry>& entries, const Table& t, std::string_view name,
             std::uint64_t h) {
  const size_t mask = t.slots.size() - 1;
  const std::uint64_t tag = h >> 32;
  for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
    const std::uint64_t slot = t.slots[i];
    if (slot == 0) return i;
    if ((slot >> 32) == tag && entries[(slot & 0xFFFFFFFFu) - 1].name == name) return i;
  }
}

template <class Entry>
void add(const std::vector<Entry>& entries, Table& t, size_t index) {
  const std::string_view name = entries[index].name;
  const std::uint64_t h = name_hash(name);
  const size_t i = probe(entries, t, name, h);
  if (t.slots[i] != 0) return;  // the first entry of a name wins
  t.slots[i] = ((h >> 32) << 32) | (static_cast<std::uint64_t>(index) + 1);
  ++t.used;
}

template <class Entry>
void rebuild(const std::vector<Entry>& entries, Table& t, size_t upto, size_t expected = 0) {
  size_t cap = 16;
  while (cap < 2 * std::max(upto, expected) + 2) cap *= 2;
  // Huge pages, asked for before the table is first written: each lookup
  // of a new name is a random access into it (core/huge_pages.hpp).
  std::vector<std::uint64_t> slots;
  slots.reserve(cap);
  advise_huge_pages(slots.data(), cap * sizeof(std::uint64_t));
  slots.resize(cap, 0);
  t.slots = std::move(slots);
  t.used = 0;
  for (size_t k = 0; k < upto; ++k) add(entries, t, k);
  t.indexed = upto;
}

template <class Entry>
int find_indexed(const std::vector<Entry>& entries, Table& t, std::string_view name) {
  if (t.indexed > entries.size() || t.slots.empty()) rebuild(entries, t, 0);  // entries removed
  if (2 * (t.used + (entries.size() - t.indexed)) + 2 > t.slots.size())
    rebuild(entries, t, t.indexed);  // grow before the new entries go in
  for (; t.indexed < entries.size(); ++t.indexed) add(entries, t, t.indexed);
  const std::uint64_t h = name_hash(name);
  const std::uint64_t slot = t.slots[probe(entries, t, name, h)];
  if (slot != 0) return static_cast<int>((slot & 0xFFFFFFFFu) - 1);
  return -1;
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

void Model::reserve(size_t tensor_count, size_t op_count) {
  const bool tensors_grow = tensor_count > tensors.capacity(), ops_grow = op_count > ops.capacity();
  tensors.reserve(tensor_count);
  ops.reserve(op_count);
  // New storage is written once, entry by entry: in huge pages, a page
  // fault per 2 MiB rather than per 4 KiB (core/huge_pages.hpp).
  if (tensors_grow)
    advise_huge_pages(tensors.data() + tensors.size(),
                      (tensors.capacity() - tensors.size()) * sizeof(TensorSpec));
  if (ops_grow)
    advise_huge_pages(ops.data() + ops.size(), (ops.capacity() - ops.size()) * sizeof(Op));
  if (!index_) return;
  std::lock_guard<std::mutex> lock(index_->mu);
  // Sized once for what is coming: growing by doubling re-hashes every name
  // read so far, a cache miss each (a million-op graph, issue 20 item 3).
  auto presize = [](const auto& entries, Table& t, size_t expected) {
    if (t.indexed > entries.size()) t.indexed = 0;  // entries removed
    if (2 * expected + 2 > t.slots.size()) rebuild(entries, t, t.indexed, expected);
  };
  presize(tensors, index_->tensors, tensor_count);
  presize(ops, index_->ops, op_count);
}

void Model::reindex() {
  index_ = std::make_unique<NameIndex>();
}

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
