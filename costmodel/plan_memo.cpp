#include "costmodel/plan_memo.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "costmodel/model_size.hpp"
#include "costmodel/plan_transformer_cache.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost {
namespace {
thread_local PlanMemo* installed = nullptr;
}  // namespace

TemplateFigures template_figures(const BlockTemplate& tpl) {
  TemplateFigures f;
  f.saved_bytes = tpl.saved_bytes();
  f.recompute_saved_bytes = tpl.recompute_saved_bytes();
  f.fp8_weight_elements = tpl.fp8_weight_elements();
  for (const ParamGroup& g : tpl.params) {
    f.group_elements.push_back(g.local_elements());
    f.group_replicated.push_back(g.replicated_elements());
    f.group_fp8.push_back(g.fp8_elements());
    f.group_expert.push_back(g.expert ? 1 : 0);
    if (g.expert) f.expert_elements += g.local_elements();
    if (g.expert) f.fp8_expert_elements += g.fp8_elements();
    if (g.name == "attn.qk_norm") f.qk_norm_elements += g.local_elements();
  }
  auto collectives = [&f](const std::vector<Kernel>& ks, std::vector<int>& slots) {
    for (const Kernel& k : ks) {
      int slot = k.ring_steps > 1 ? -2 : -1;
      if (k.is_collective) {
        const std::pair<CollectiveKind, double> kb{k.collective, k.collective_bytes};
        const auto at = std::find(f.distinct.begin(), f.distinct.end(), kb);
        slot = static_cast<int>(at - f.distinct.begin());
        if (at == f.distinct.end()) f.distinct.push_back(kb);
      }
      slots.push_back(slot);
    }
  };
  collectives(tpl.forward, f.forward_slot);
  f.forward_distinct = static_cast<int>(f.distinct.size());
  collectives(tpl.recompute, f.recompute_slot);
  collectives(tpl.backward, f.backward_slot);
  for (const Kernel& k : tpl.backward) f.backward_grad.push_back(k.completes_grad);
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
  layer_kept_figures = template_figures(layer_kept);
}

PlanMemo::PlanMemo(const Topology& topology, const HardwareProfile& profile)
    : topology_(topology),
      profile_(&profile),
      progressions_(1024),
      times_(1 << 14),
      recent_times_(1 << 12),
      routes_(1024),
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

std::size_t PlanMemo::SignatureHash::operator()(const std::vector<std::uint64_t>& sig) const {
  std::uint64_t h = sig.size();
  for (std::uint64_t x : sig) h = murmur_mix(h ^ x) + 0x9e3779b97f4a7c15ULL;
  return static_cast<std::size_t>(h);
}

namespace {
// A route's (src, dst) spread by a multiplier (Fibonacci hashing).
std::size_t route_slot(std::uint64_t key) {
  return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> 32);
}
std::size_t progression_hash(int first, int stride, int size) {
  return static_cast<std::size_t>(
      murmur_mix(murmur_mix(static_cast<std::uint32_t>(first)) ^
                 (static_cast<std::uint64_t>(static_cast<std::uint32_t>(stride)) << 32 |
                  static_cast<std::uint32_t>(size))));
}
}  // namespace

int PlanMemo::classify(const std::vector<int>& group) {
  std::vector<std::uint64_t> sig = collective_group_signature(topology_, *profile_, group);
  if (sig.empty()) return -1;
  const auto [it, fresh] = classes_.try_emplace(std::move(sig), class_count_);
  if (fresh) ++class_count_;
  return it->second;
}

int PlanMemo::progression_class(int first, int stride, int size) {
  for (const Progression& r : recent_)
    if (r.size == size && r.first == first && r.stride == stride) return r.cls;
  const std::size_t mask = progressions_.size() - 1;
  std::size_t at = progression_hash(first, stride, size) & mask;
  while (progressions_[at].size != 0) {
    const Progression& x = progressions_[at];
    if (x.first == first && x.stride == stride && x.size == size) {
      recent_[next_recent_++ % 4] = x;
      return x.cls;
    }
    at = (at + 1) & mask;
  }
  std::vector<int> group(static_cast<size_t>(size));
  for (int k = 0; k < size; ++k) group[static_cast<size_t>(k)] = first + k * stride;
  const Progression fresh{first, stride, size, classify(group)};
  progressions_[at] = fresh;
  recent_[next_recent_++ % 4] = fresh;
  if (++progression_count_ * 2 > progressions_.size()) {  // grow at half full
    std::vector<Progression> old(progressions_.size() * 2);
    old.swap(progressions_);
    const std::size_t m2 = progressions_.size() - 1;
    for (const Progression& x : old)
      if (x.size != 0) {
        std::size_t j = progression_hash(x.first, x.stride, x.size) & m2;
        while (progressions_[j].size != 0) j = (j + 1) & m2;
        progressions_[j] = x;
      }
  }
  return fresh.cls;
}

int PlanMemo::group_handle(int first, int stride, int size) {
  if (size < 1) return -1;
  // One rank: the stride says nothing (the vector form keys it with 0).
  return progression_class(first, size > 1 ? stride : 0, size);
}

int PlanMemo::group_handle(const std::vector<int>& group) {
  // An arithmetic progression (every group the transformer judge asks for)
  // by its first rank, stride and size; any other by content.
  const int n = static_cast<int>(group.size());
  if (n >= 1) {
    const int stride = n > 1 ? group[1] - group[0] : 0;
    bool progression = true;
    for (int k = 2; k < n && progression; ++k) progression = group[k] - group[k - 1] == stride;
    if (progression) return progression_class(group[0], stride, n);
  }
  auto it = groups_.find(group);
  if (it != groups_.end()) return it->second;
  const int cls = classify(group);
  groups_.emplace(group, cls);
  return cls;
}

std::size_t PlanMemo::StagesHash::operator()(const StagesKey& k) const {
  std::uint64_t h =
      murmur_mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.first)) << 32 |
                 static_cast<std::uint32_t>(k.stage_stride));
  h = murmur_mix(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.stages)) << 32 |
                      static_cast<std::uint32_t>(k.stride)));
  return static_cast<std::size_t>(murmur_mix(h ^ static_cast<std::uint32_t>(k.size)));
}

const int* PlanMemo::stage_handles(int first, int stage_stride, int stages, int stride, int size) {
  const auto [it, fresh] =
      stage_handles_.try_emplace(StagesKey{first, stage_stride, stages, stride, size});
  if (fresh) {
    it->second.resize(static_cast<size_t>(std::max(stages, 0)));
    for (int s = 0; s < stages; ++s)
      it->second[static_cast<size_t>(s)] = group_handle(first + s * stage_stride, stride, size);
  }
  return it->second.data();
}

std::optional<double> PlanMemo::find_collective(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                const std::vector<int>& group, double bytes) {
  return find_collective(kind, algorithm, group_handle(group), bytes);
}

std::size_t PlanMemo::slot_of(std::uint64_t hash, int group, std::uint8_t kind,
                              std::uint8_t algorithm, double bytes) const {
  const std::size_t mask = times_.size() - 1;
  std::size_t at = static_cast<std::size_t>(hash) & mask;
  while (true) {
    const Priced& x = times_[at];
    if (x.group < 0 ||
        (x.group == group && x.bytes == bytes && x.kind == kind && x.algorithm == algorithm))
      return at;
    at = (at + 1) & mask;
  }
}

std::optional<double> PlanMemo::find_in_table(std::uint64_t h, int g, std::uint8_t k,
                                              std::uint8_t a, double bytes) {
  const Priced& x = times_[slot_of(h, g, k, a, bytes)];
  if (x.group < 0 || std::isnan(x.seconds)) return missed();
  ++hits_;
  recent_of(h) = x;
  return x.seconds;
}

PlanMemo::Priced& PlanMemo::entry(std::uint64_t h, int g, std::uint8_t k, std::uint8_t a,
                                  double bytes) {
  Priced* x = &times_[slot_of(h, g, k, a, bytes)];
  if (x->group >= 0) return *x;
  if ((time_count_ + 1) * 2 > times_.size()) {  // grow at half full
    std::vector<Priced> old(times_.size() * 2);
    old.swap(times_);
    for (const Priced& y : old)
      if (y.group >= 0)
        times_[slot_of(key_hash(y.group, y.kind, y.algorithm, y.bytes), y.group, y.kind,
                       y.algorithm, y.bytes)] = y;
    x = &times_[slot_of(h, g, k, a, bytes)];
  }
  ++time_count_;
  constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  *x = Priced{bytes, kUnknown, kUnknown, g, k, a};
  return *x;
}

void PlanMemo::store(int g, CollectiveKind kind, CollectiveAlgorithm algorithm, double bytes,
                     double Priced::*figure, double value) {
  if (g < 0) return;
  const auto k = static_cast<std::uint8_t>(kind), a = static_cast<std::uint8_t>(algorithm);
  const std::uint64_t h = key_hash(g, k, a, bytes);
  Priced& x = entry(h, g, k, a, bytes);
  x.*figure = value;
  recent_of(h) = x;
}

void PlanMemo::store_collective(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                const std::vector<int>& group, double bytes, double seconds) {
  store(group_handle(group), kind, algorithm, bytes, &Priced::seconds, seconds);
}

void PlanMemo::store_sm_share(CollectiveKind kind, CollectiveAlgorithm algorithm,
                              int group_handle, double bytes, double share) {
  store(group_handle, kind, algorithm, bytes, &Priced::share, share);
}

const NcclGroupShape* PlanMemo::nccl_shape(const std::vector<int>& group, const NcclTable* table) {
  const int g = group_handle(group);
  if (g < 0 || static_cast<size_t>(g) >= shapes_.size()) return nullptr;
  const Shape& s = shapes_[static_cast<size_t>(g)];
  return s.table == table && table != nullptr ? &s.shape : nullptr;
}

void PlanMemo::store_nccl_shape(const std::vector<int>& group, const NcclTable* table,
                                const NcclGroupShape& shape) {
  const int handle = group_handle(group);
  if (handle < 0) return;
  const auto g = static_cast<size_t>(handle);
  if (g >= shapes_.size()) shapes_.resize(g + 1);
  shapes_[g] = Shape{table, shape};
}

Result<const TransformerBlocks*> PlanMemo::blocks(const TransformerShape& shape) {
  const TransformerSpec& s = shape.spec;
  const ShapeKey key{s.layers,
                     s.hidden,
                     s.heads,
                     s.seq,
                     s.vocab,
                     s.ffn_ratio,
                     static_cast<int>(s.dtype),
                     shape.micro_batch,
                     shape.tensor,
                     shape.sequence_parallel,
                     static_cast<int>(shape.recompute),
                     s.kv_heads,
                     s.ffn_hidden,
                     static_cast<int>(s.mlp) | static_cast<int>(s.norm) << 2 |
                         static_cast<int>(s.positions) << 4 | static_cast<int>(s.attention) << 6 |
                         int{s.tie_embeddings} << 8 | int{s.bias} << 9 | int{s.qkv_bias} << 10 |
                         static_cast<int>(shape.fp8) << 11 |
                         static_cast<int>(shape.grad_accumulate_bytes) << 13 |
                         int{shape.cross_entropy_fusion} << 18 | int{shape.local_layers} << 19 |
                         int{shape.loss} << 20 | int{shape.tp_comm_overlap} << 21 |
                         int{shape.tp_backward_overlap} << 22 |
                         static_cast<int>(shape.fp8_scaling) << 23 |
                         int{shape.cudnn_attention} << 24 | int{shape.recompute_block} << 25 |
                         int{s.qk_norm} << 26,
                     s.head_dim};
  auto same_rest = [&](const TransformerBlocks* b) {
    return b->moe == s.moe && b->mla == s.mla && b->ub == shape.ub && b->expert == shape.expert &&
           b->context == shape.context;
  };
  if (last_blocks_ != nullptr && key == last_shape_ && same_rest(last_blocks_)) return last_blocks_;
  auto it = blocks_.find(key);
  if (it != blocks_.end() && same_rest(it->second.get())) {
    last_shape_ = key;
    last_blocks_ = it->second.get();
    return last_blocks_;
  }
  auto b = std::make_unique<TransformerBlocks>();
  BRIGADE_ASSIGN_OR_RETURN(b->layer, transformer_layer(shape));
  BRIGADE_ASSIGN_OR_RETURN(b->embedding, embedding_block(shape));
  BRIGADE_ASSIGN_OR_RETURN(b->head, head_block(shape));
  if (shape.recompute_block) {
    BRIGADE_ASSIGN_OR_RETURN(b->layer_kept, transformer_layer_kept(shape));
  }
  b->prepare();
  b->moe = s.moe;
  b->mla = s.mla;
  b->ub = shape.ub;
  b->expert = shape.expert;
  b->context = shape.context;
  const TransformerBlocks* out = b.get();
  last_shape_ = key;
  last_blocks_ = out;
  // A shape met before with other experts or attention: the old templates
  // stay alive (caches compare their addresses), retired.
  auto old = blocks_.find(key);
  if (old != blocks_.end()) {
    retired_.push_back(std::move(old->second));
    old->second = std::move(b);
  } else {
    blocks_.emplace(key, std::move(b));
  }
  return out;
}

AlphaBeta PlanMemo::route_alpha_beta(int src, int dst) {
  const std::uint64_t key = static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32 |
                            static_cast<std::uint32_t>(dst);
  std::size_t mask = routes_.size() - 1;
  std::size_t at = route_slot(key) & mask;
  while (routes_[at].key != key) {
    if (routes_[at].key == ~std::uint64_t{0}) break;
    at = (at + 1) & mask;
  }
  if (routes_[at].key == key) return routes_[at].ab;
  const Route& r = topology_.route(src, dst);
  const AlphaBeta ab{route_alpha_seconds(r, *profile_),
                     route_bandwidth_bytes_per_second(r, topology_, *profile_)};
  routes_[at] = RouteEntry{key, ab};
  if (++route_count_ * 2 > routes_.size()) {  // grow at half full
    std::vector<RouteEntry> old(routes_.size() * 2);
    old.swap(routes_);
    mask = routes_.size() - 1;
    for (const RouteEntry& x : old)
      if (x.key != ~std::uint64_t{0}) {
        std::size_t k = route_slot(x.key) & mask;
        while (routes_[k].key != ~std::uint64_t{0}) k = (k + 1) & mask;
        routes_[k] = x;
      }
  }
  return ab;
}

const std::vector<AlphaBeta>& PlanMemo::ring_alpha_betas(int first, int stride, int n) {
  auto [it, fresh] = rings_.try_emplace(std::make_tuple(first, stride, n));
  if (fresh)
    for (int c = 0; c < n; ++c) {
      const AlphaBeta ab = route_alpha_beta(first + c * stride, first + ((c + 1) % n) * stride);
      bool seen = false;
      for (const AlphaBeta& x : it->second)
        seen =
            seen || (x.alpha_seconds == ab.alpha_seconds &&
                     x.bandwidth_bytes_per_second == ab.bandwidth_bytes_per_second &&
                     x.reduce_bandwidth_bytes_per_second == ab.reduce_bandwidth_bytes_per_second);
      if (!seen) it->second.push_back(ab);
    }
  return it->second;
}

PlanMemo* PlanMemo::current(const Topology& topology, const HardwareProfile& profile) {
  return installed != nullptr && installed->covers(topology, profile) ? installed : nullptr;
}

ScopedPlanMemo::ScopedPlanMemo(PlanMemo& memo) : previous_(installed) {
  installed = &memo;
}
ScopedPlanMemo::~ScopedPlanMemo() {
  installed = previous_;
}

namespace detail {

const ModelTotals& model_totals(ModelTotals& last, const Scenario& sc, double global_batch,
                                bool training, bool memoize) {
  const TransformerSpec& ts = sc.transformer;
  const Recompute recompute = sc.training.recompute;
  const double recomputed_fraction = recomputed_layer_fraction(sc);
  const bool fp8_linears = sc.training.fp8 != Fp8Recipe::kNone;
  if (memoize && last.valid && last.global_batch == global_batch && last.training == training &&
      last.recompute == recompute && last.recomputed_fraction == recomputed_fraction &&
      last.fp8_linears == fp8_linears && last.spec == ts)
    return last;
  last.valid = true;
  last.spec = ts;
  last.global_batch = global_batch;
  last.training = training;
  last.recompute = recompute;
  last.recomputed_fraction = recomputed_fraction;
  last.fp8_linears = fp8_linears;
  last.parameters = transformer_parameters(ts);
  last.model_flops = transformer_model_flops(ts, global_batch, training);
  last.hardware_flops = transformer_hardware_flops(ts, global_batch, training, recompute,
                                                   recomputed_fraction, fp8_linears);
  return last;
}

}  // namespace detail

}  // namespace brigade::cost
