#include "costmodel/plan_memo.hpp"

#include <cstring>

namespace brigade::cost {
namespace {
thread_local PlanMemo* installed = nullptr;
}  // namespace

PlanMemo::PlanMemo(const Topology& topology, const HardwareProfile& profile)
    : topology_(topology), profile_(&profile) {}

bool PlanMemo::covers(const Topology& topology, const HardwareProfile& profile) const {
  return &profile == profile_ && topology.shares_routes_with(topology_);
}

std::size_t PlanMemo::GroupHash::operator()(const std::vector<int>& g) const {
  // FNV-1a over the ranks.
  std::uint64_t h = 1469598103934665603ULL;
  for (int x : g) {
    h ^= static_cast<std::uint32_t>(x);
    h *= 1099511628211ULL;
  }
  return static_cast<std::size_t>(h);
}

std::size_t PlanMemo::KeyHash::operator()(const Key& k) const {
  std::uint64_t b = 0;
  std::memcpy(&b, &k.bytes, sizeof b);
  std::uint64_t h = static_cast<std::uint64_t>(k.group) * 0x9e3779b97f4a7c15ULL;
  h ^= (static_cast<std::uint64_t>(k.kind) << 8 | k.algorithm) + 0x7f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= b + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return static_cast<std::size_t>(h);
}

int PlanMemo::group_id(const std::vector<int>& group, bool add) {
  for (const Recent& r : recent_)
    if (r.id >= 0 && r.group == group) return r.id;
  int id = -1;
  auto it = groups_.find(group);
  if (it != groups_.end()) {
    id = it->second;
  } else {
    if (!add) return -1;
    id = static_cast<int>(groups_.size());
    groups_.emplace(group, id);
  }
  Recent& slot = recent_[next_recent_++ % 4];
  slot.group = group;
  slot.id = id;
  return id;
}

std::optional<double> PlanMemo::find_collective(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                const std::vector<int>& group, double bytes) {
  return find_collective(kind, algorithm, group_id(group, false), bytes);
}

std::optional<double> PlanMemo::find_collective(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                int g, double bytes) {
  if (g >= 0) {
    auto it = times_.find(Key{g, static_cast<std::uint8_t>(kind), static_cast<std::uint8_t>(algorithm), bytes});
    if (it != times_.end()) {
      ++hits_;
      return it->second;
    }
  }
  ++misses_;
  return std::nullopt;
}

void PlanMemo::store_collective(CollectiveKind kind, CollectiveAlgorithm algorithm, const std::vector<int>& group,
                                double bytes, double seconds) {
  const int g = group_id(group, true);
  times_[Key{g, static_cast<std::uint8_t>(kind), static_cast<std::uint8_t>(algorithm), bytes}] = seconds;
}

Result<const TransformerBlocks*> PlanMemo::blocks(const TransformerShape& shape) {
  const TransformerSpec& s = shape.spec;
  const ShapeKey key{s.layers,           s.hidden,     s.heads,      s.seq,
                     s.vocab,            s.ffn_ratio,  static_cast<int>(s.dtype),
                     shape.micro_batch,  shape.tensor, shape.sequence_parallel,
                     static_cast<int>(shape.recompute), s.kv_heads, s.ffn_hidden,
                     static_cast<int>(s.mlp) | static_cast<int>(s.norm) << 2 |
                         static_cast<int>(s.positions) << 4 | static_cast<int>(s.attention) << 6 |
                         int{s.tie_embeddings} << 8 | int{s.bias} << 9 | int{s.qkv_bias} << 10};
  auto it = blocks_.find(key);
  if (it != blocks_.end()) return static_cast<const TransformerBlocks*>(it->second.get());
  auto b = std::make_unique<TransformerBlocks>();
  BRIGADE_ASSIGN_OR_RETURN(b->layer, transformer_layer(shape));
  BRIGADE_ASSIGN_OR_RETURN(b->embedding, embedding_block(shape));
  BRIGADE_ASSIGN_OR_RETURN(b->head, head_block(shape));
  const TransformerBlocks* out = b.get();
  blocks_.emplace(key, std::move(b));
  return out;
}

AlphaBeta PlanMemo::route_alpha_beta(int src, int dst) {
  const std::uint64_t key = static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32 |
                            static_cast<std::uint32_t>(dst);
  auto it = routes_.find(key);
  if (it != routes_.end()) return it->second;
  const Route& r = topology_.route(src, dst);
  AlphaBeta ab{route_alpha_seconds(r, *profile_), route_bandwidth_bytes_per_second(r, topology_, *profile_)};
  routes_.emplace(key, ab);
  return ab;
}

PlanMemo* PlanMemo::current(const Topology& topology, const HardwareProfile& profile) {
  return installed != nullptr && installed->covers(topology, profile) ? installed : nullptr;
}

ScopedPlanMemo::ScopedPlanMemo(PlanMemo& memo) : previous_(installed) { installed = &memo; }
ScopedPlanMemo::~ScopedPlanMemo() { installed = previous_; }

}  // namespace brigade::cost
