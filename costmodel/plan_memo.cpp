#include "costmodel/plan_memo.hpp"

#include <cstring>

#include "costmodel/plan_transformer_cache.hpp"

namespace brigade::cost {
namespace {
thread_local PlanMemo* installed = nullptr;
}  // namespace

TemplateFigures template_figures(const BlockTemplate& tpl) {
  TemplateFigures f;
  f.saved_bytes = tpl.saved_bytes();
  f.recompute_saved_bytes = tpl.recompute_saved_bytes();
  for (const ParamGroup& g : tpl.params) {
    f.group_elements.push_back(g.local_elements());
    f.group_replicated.push_back(g.replicated_elements());
  }
  for (size_t n = 0; n < tpl.backward.size(); ++n)
    if (tpl.backward[n].name == "head.logits.wgrad") {
      f.tied_wgrad = static_cast<int>(n);
      break;
    }
  return f;
}

void TransformerBlocks::prepare() {
  layer_figures = template_figures(layer);
  embedding_figures = template_figures(embedding);
  head_figures = template_figures(head);
}

PlanMemo::PlanMemo(const Topology& topology, const HardwareProfile& profile)
    : topology_(topology),
      profile_(&profile),
      progressions_(1024),
      transformer_cache_(std::make_unique<detail::TransformerCache>()) {}

PlanMemo::~PlanMemo() = default;

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

namespace {
std::size_t progression_hash(int first, int stride, int size) {
  std::uint64_t h = static_cast<std::uint32_t>(first) * 0x9e3779b97f4a7c15ULL;
  h ^= (static_cast<std::uint64_t>(static_cast<std::uint32_t>(stride)) << 32 | static_cast<std::uint32_t>(size)) *
       0xc2b2ae3d27d4eb4fULL;
  return static_cast<std::size_t>(h ^ (h >> 29));
}
}  // namespace

int PlanMemo::progression_id(int first, int stride, int size, bool add) {
  for (const Progression& r : recent_)
    if (r.id >= 0 && r.first == first && r.stride == stride && r.size == size) return r.id;
  const std::size_t mask = progressions_.size() - 1;
  std::size_t at = progression_hash(first, stride, size) & mask;
  while (progressions_[at].id >= 0) {
    const Progression& x = progressions_[at];
    if (x.first == first && x.stride == stride && x.size == size) {
      recent_[next_recent_++ % 4] = x;
      return x.id;
    }
    at = (at + 1) & mask;
  }
  if (!add) return -1;
  const Progression fresh{first, stride, size, group_count_++};
  times_.emplace_back();
  progressions_[at] = fresh;
  recent_[next_recent_++ % 4] = fresh;
  if (++progression_count_ * 2 > progressions_.size()) {  // grow at half full
    std::vector<Progression> old(progressions_.size() * 2);
    old.swap(progressions_);
    const std::size_t m2 = progressions_.size() - 1;
    for (const Progression& x : old)
      if (x.id >= 0) {
        std::size_t j = progression_hash(x.first, x.stride, x.size) & m2;
        while (progressions_[j].id >= 0) j = (j + 1) & m2;
        progressions_[j] = x;
      }
  }
  return fresh.id;
}

int PlanMemo::group_handle(int first, int stride, int size) {
  // One rank: the stride says nothing (the vector form keys it with 0).
  return progression_id(first, size > 1 ? stride : 0, size, true);
}

int PlanMemo::group_id(const std::vector<int>& group, bool add) {
  // An arithmetic progression (every group the transformer judge asks for)
  // by its first rank, stride and size; any other by content.
  const int n = static_cast<int>(group.size());
  if (n >= 1) {
    const int stride = n > 1 ? group[1] - group[0] : 0;
    bool progression = true;
    for (int k = 2; k < n && progression; ++k) progression = group[k] - group[k - 1] == stride;
    if (progression) return progression_id(group[0], stride, n, add);
  }
  auto it = groups_.find(group);
  if (it != groups_.end()) return it->second;
  if (!add) return -1;
  const int id = group_count_++;
  times_.emplace_back();
  groups_.emplace(group, id);
  return id;
}

std::optional<double> PlanMemo::find_collective(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                const std::vector<int>& group, double bytes) {
  return find_collective(kind, algorithm, group_id(group, false), bytes);
}

std::optional<double> PlanMemo::find_collective(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                int g, double bytes) {
  if (g >= 0) {
    const std::vector<Priced>& list = times_[static_cast<size_t>(g)];
    const auto k = static_cast<std::uint8_t>(kind), a = static_cast<std::uint8_t>(algorithm);
    for (size_t i = list.size(); i-- > 0;) {
      const Priced& x = list[i];
      if (x.bytes == bytes && x.kind == k && x.algorithm == a) {
        ++hits_;
        return x.seconds;
      }
    }
  }
  ++misses_;
  return std::nullopt;
}

void PlanMemo::store_collective(CollectiveKind kind, CollectiveAlgorithm algorithm, const std::vector<int>& group,
                                double bytes, double seconds) {
  const int g = group_id(group, true);
  std::vector<Priced>& list = times_[static_cast<size_t>(g)];
  const auto k = static_cast<std::uint8_t>(kind), a = static_cast<std::uint8_t>(algorithm);
  for (Priced& x : list)
    if (x.bytes == bytes && x.kind == k && x.algorithm == a) {
      x.seconds = seconds;
      return;
    }
  list.push_back({bytes, seconds, k, a});
}

Result<const TransformerBlocks*> PlanMemo::blocks(const TransformerShape& shape) {
  const TransformerSpec& s = shape.spec;
  const ShapeKey key{s.layers,           s.hidden,     s.heads,      s.seq,
                     s.vocab,            s.ffn_ratio,  static_cast<int>(s.dtype),
                     shape.micro_batch,  shape.tensor, shape.sequence_parallel,
                     static_cast<int>(shape.recompute)};
  if (last_blocks_ != nullptr && key == last_shape_) return last_blocks_;
  auto it = blocks_.find(key);
  if (it != blocks_.end()) {
    last_shape_ = key;
    last_blocks_ = it->second.get();
    return last_blocks_;
  }
  auto b = std::make_unique<TransformerBlocks>();
  BRIGADE_ASSIGN_OR_RETURN(b->layer, transformer_layer(shape));
  BRIGADE_ASSIGN_OR_RETURN(b->embedding, embedding_block(shape));
  BRIGADE_ASSIGN_OR_RETURN(b->head, head_block(shape));
  b->prepare();
  const TransformerBlocks* out = b.get();
  last_shape_ = key;
  last_blocks_ = out;
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
