#include "core/program.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <numeric>
#include <set>
#include <unordered_map>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/profile.hpp"
#include "core/topology.hpp"

namespace brigade {

std::string_view task_kind_name(TaskKind k) {
  switch (k) {
    case TaskKind::kCompute: return "compute";
    case TaskKind::kTransfer: return "transfer";
    case TaskKind::kCollective: return "collective";
  }
  return "?";
}

std::string_view compute_kind_name(ComputeKind k) {
  switch (k) {
    case ComputeKind::kGemm: return "gemm";
    case ComputeKind::kMemoryBound: return "memory";
    case ComputeKind::kFixed: return "fixed";
  }
  return "?";
}

ComputeKind compute_kind_of(OpKind k) {
  if (k == OpKind::kMatmul) return ComputeKind::kGemm;
  if (k == OpKind::kCustom) return ComputeKind::kFixed;
  return ComputeKind::kMemoryBound;
}

KernelClass streaming_class_of(OpKind kind, std::string_view fn, Phase phase) {
  const bool backward = phase == Phase::kBackward;
  if (kind == OpKind::kLayerNorm)
    return backward ? KernelClass::kNormBackward : KernelClass::kNormForward;
  if (kind == OpKind::kElementwise && (fn == "gelu" || fn == "silu"))
    return backward ? KernelClass::kActivationBackward : KernelClass::kActivationForward;
  return KernelClass::kGeneric;
}

double op_written_bytes(const Model& model, const Op& op) {
  if (compute_kind_of(op.kind) != ComputeKind::kGemm) return 0;
  double b = 0;
  for (int t : op.outputs)
    if (t >= 0 && static_cast<size_t>(t) < model.tensors.size())
      b += model.tensors[static_cast<size_t>(t)].bytes();
  return b;
}

std::string_view collective_kind_name(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce: return "allreduce";
    case CollectiveKind::kAllGather: return "allgather";
    case CollectiveKind::kReduceScatter: return "reducescatter";
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kReduce: return "reduce";
    case CollectiveKind::kAllToAll: return "alltoall";
  }
  return "?";
}

std::optional<CollectiveKind> parse_collective_kind(std::string_view s) {
  std::string t;
  for (char c : s)
    if (c != '-' && c != '_') t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i < kNumCollectiveKinds; ++i) {
    auto k = static_cast<CollectiveKind>(i);
    if (collective_kind_name(k) == t) return k;
  }
  return std::nullopt;
}

std::optional<CollectiveKind> collective_kind_in_name(std::string_view name, NameContext context) {
  std::string n;
  n.reserve(name.size());
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  struct Word {
    std::string_view word;
    CollectiveKind kind;
    NameContext least;  // the least a name must be known to be for the word to count
  };
  static constexpr Word kWords[] = {
      {"reducescatter", CollectiveKind::kReduceScatter, NameContext::kAny},
      {"psumscatter", CollectiveKind::kReduceScatter, NameContext::kAny},
      {"allreduce", CollectiveKind::kAllReduce, NameContext::kAny},
      {"psum", CollectiveKind::kAllReduce, NameContext::kAny},
      {"pmean", CollectiveKind::kAllReduce, NameContext::kAny},
      {"allgather", CollectiveKind::kAllGather, NameContext::kAny},
      {"alltoall", CollectiveKind::kAllToAll, NameContext::kAny},
      {"broadcast", CollectiveKind::kBroadcast, NameContext::kAny},
      {"bcast", CollectiveKind::kBroadcast, NameContext::kNccl},
      {"reduce", CollectiveKind::kReduce, NameContext::kNccl},
      {"gather", CollectiveKind::kAllGather, NameContext::kCollective},
  };
  for (const Word& w : kWords)
    if (context >= w.least && n.find(w.word) != std::string::npos) return w.kind;
  return std::nullopt;
}

std::string_view collective_algorithm_name(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::kRing: return "ring";
    case CollectiveAlgorithm::kTree: return "tree";
    case CollectiveAlgorithm::kHalvingDoubling: return "halving-doubling";
    case CollectiveAlgorithm::kHierarchical: return "hierarchical";
    case CollectiveAlgorithm::kNvls: return "nvls";
    case CollectiveAlgorithm::kAuto: return "auto";
  }
  return "?";
}

std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view s) {
  for (int i = 0; i < kNumCollectiveAlgorithms; ++i) {
    auto a = static_cast<CollectiveAlgorithm>(i);
    if (collective_algorithm_name(a) == s) return a;
  }
  return std::nullopt;
}

std::string_view memory_category_name(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::kParams: return "params";
    case MemoryCategory::kGrads: return "grads";
    case MemoryCategory::kOptimizer: return "optimizer";
    case MemoryCategory::kActivations: return "activations";
    case MemoryCategory::kCommBuffers: return "comm";
    case MemoryCategory::kOther: return "other";
  }
  return "?";
}

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
static_assert(kBigBlockBytes % kHugePage == 0);
size_t big_mapping_bytes(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
}  // namespace

namespace {
// Freed big blocks kept for reuse, process-wide. On the development VM a
// fresh page costs far more than the bytes written to it (the kernel zeroes
// it and the hypervisor backs it: docs/PERFORMANCE.md), and the planner and
// the simulator free and allocate blocks of the same sizes again and again:
// a builder's pairs become a Program's CSR arrays, the simulator's setup
// frees its scratch before the next array, and `brigade search --judge sim`
// lowers and simulates one Program after another. A block is reused for a
// request it covers (the smallest such; its tail past the request stays in
// the cache as a block of its own). A request no kept block covers is
// assembled from kept blocks: their pages are moved (mremap, page tables
// only, no copy) into one new range, largest first, and only what they lack
// is fresh memory. So the pages a process touches are its own high-water
// mark of big blocks in use at once, whatever the order and sizes of the
// requests (the Programs of a search differ in size from plan to plan).
// Kept: up to the larger of kBigCacheBytes and that high-water mark; past
// that the smallest go back first.
constexpr size_t kBigCacheBytes = size_t{2} << 30;
struct BigCache {
  std::mutex mu;
  std::multimap<size_t, void*> blocks;  // mapping bytes -> address
  size_t bytes = 0;                     // kept
  size_t in_use_bytes = 0;              // handed out, not yet freed
  size_t high_water_bytes = 0;          // the most ever in use at once
};
BigCache& big_cache() {
  static BigCache* c = new BigCache;  // never destroyed: blocks may be freed during exit
  return *c;
}

#if defined(__linux__)
// A new 2 MiB-aligned range of `bytes` (a multiple of 2 MiB), not yet touched.
void* map_fresh(size_t bytes) {
  // Map one huge page more than needed, keep the 2 MiB-aligned part.
  void* raw = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > base) munmap(raw, aligned - base);
  const std::uintptr_t end = base + bytes + kHugePage;
  if (end > aligned + bytes) munmap(reinterpret_cast<void*>(aligned + bytes), end - (aligned + bytes));
  return reinterpret_cast<void*>(aligned);
}

// Puts the tail of a kept block back (or unmaps it when too small to keep).
void keep_tail(BigCache& c, void* tail, size_t bytes) {
  if (bytes >= kBigBlockBytes) {
    c.blocks.emplace(bytes, tail);
    c.bytes += bytes;
  } else if (bytes > 0) {
    munmap(tail, bytes);
  }
}

// `want` bytes from kept blocks (c.mu held): the smallest block that covers
// it, or kept blocks moved side by side into a new range, largest first,
// fresh pages after them if they are not enough. Null when none are kept.
void* take_kept(BigCache& c, size_t want) {
  if (c.blocks.empty()) return nullptr;
  auto it = c.blocks.lower_bound(want);
  if (it != c.blocks.end()) {
    const size_t have = it->first;
    void* p = it->second;
    c.blocks.erase(it);
    c.bytes -= have;
    keep_tail(c, static_cast<char*>(p) + want, have - want);  // its pages are backed
    return p;
  }
  char* p = static_cast<char*>(map_fresh(want));
  size_t filled = 0;
  while (filled < want && !c.blocks.empty()) {
    auto largest = std::prev(c.blocks.end());
    const size_t have = largest->first;
    char* src = static_cast<char*>(largest->second);
    c.blocks.erase(largest);
    c.bytes -= have;
    const size_t take = std::min(have, want - filled);
    if (mremap(src, take, take, MREMAP_MAYMOVE | MREMAP_FIXED, p + filled) == MAP_FAILED) {
      munmap(src, have);  // (not seen: p + filled keeps its fresh pages)
      continue;
    }
    keep_tail(c, src + take, have - take);
    filled += take;
  }
  return p;
}
#endif
}  // namespace

void* big_allocate(size_t bytes) {
#if defined(__linux__)
  if (bytes >= kBigBlockBytes) {
    const size_t want = big_mapping_bytes(bytes);
    BigCache& c = big_cache();
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(c.mu);
      p = take_kept(c, want);
      c.in_use_bytes += want;
      c.high_water_bytes = std::max(c.high_water_bytes, c.in_use_bytes);
    }
    if (!p) p = map_fresh(want);
    madvise(p, want, MADV_HUGEPAGE);
    return p;
  }
#endif
  void* p = std::malloc(bytes > 0 ? bytes : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

void big_deallocate(void* p, size_t bytes) noexcept {
  if (!p) return;
#if defined(__linux__)
  if (bytes >= kBigBlockBytes) {
    const size_t have = big_mapping_bytes(bytes);
    BigCache& c = big_cache();
    std::lock_guard<std::mutex> lock(c.mu);
    c.in_use_bytes -= have;
    const size_t cap = std::max(kBigCacheBytes, c.high_water_bytes);
    if (have <= cap) {
      // Make room: the smallest blocks go back first.
      while (c.bytes + have > cap && !c.blocks.empty()) {
        auto it = c.blocks.begin();
        munmap(it->second, it->first);
        c.bytes -= it->first;
        c.blocks.erase(it);
      }
      try {
        c.blocks.emplace(have, p);
        c.bytes += have;
        return;
      } catch (...) {  // no room for the entry: give the block back
      }
    }
    munmap(p, have);
    return;
  }
#endif
  std::free(p);
}

size_t big_cached_bytes() {
#if defined(__linux__)
  BigCache& c = big_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.bytes;
#else
  return 0;
#endif
}

void big_release_cached() noexcept {
#if defined(__linux__)
  BigCache& c = big_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (const auto& [size, p] : c.blocks) munmap(p, size);
  c.blocks.clear();
  c.bytes = 0;
  c.high_water_bytes = c.in_use_bytes;  // the cap starts again from what is in use
#endif
}

std::string_view Program::task_name(TaskId t) const {
  const NameId n = task(t).name;
  if (n < 0) return {};
  return names_[static_cast<size_t>(n)];
}

Status Program::validate_against(const Topology& topology) const {
  if (num_devices > topology.num_devices())
    return Status::error("program '" + name + "' uses " + std::to_string(num_devices) +
                         " devices; the topology '" + topology.preset + "' has " +
                         std::to_string(topology.num_devices()));
  return Status::ok();
}

double Program::total_flops() const {
  double f = 0;
  for (const Task& t : tasks_)
    if (t.kind == TaskKind::kCompute) f += t.flops;
  return f;
}

// ---- builder ---------------------------------------------------------------------

std::uint16_t ProgramBuilder::intern_gemm_mix(std::vector<GemmMixShape> shapes) {
  if (shapes.empty()) return 0;
  std::sort(shapes.begin(), shapes.end());
  if (const auto it = gemm_mix_ids_.find(shapes); it != gemm_mix_ids_.end()) return it->second;
  if (gemm_mixes_.size() >= 65535) return 0;
  gemm_mixes_.push_back(shapes);
  const auto id = static_cast<std::uint16_t>(gemm_mixes_.size());
  gemm_mix_ids_.emplace(std::move(shapes), id);
  return id;
}

namespace {
// Heterogeneous lookup: find(string_view) without building a std::string.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;
}  // namespace

struct ProgramBuilder::Index {
  StringMap<NameId> names;
  std::unordered_map<std::int64_t, StringMap<StreamId>> streams;
};

ProgramBuilder::ProgramBuilder(std::string name, int num_devices)
    : name_(std::move(name)), num_devices_(num_devices), index_(std::make_shared<Index>()) {}

void ProgramBuilder::reserve(size_t tasks, size_t deps) {
  tasks_.reserve(tasks);
  deps_.reserve(deps);
}

void ProgramBuilder::reserve_scaled(double factor) {
  auto grow = [factor](auto& v) {
    const auto want = static_cast<size_t>(static_cast<double>(v.size()) * factor);
    if (want > v.capacity()) v.reserve(want);
  };
  grow(tasks_);
  grow(deps_);
  grow(allocs_);
  grow(frees_);
  grow(buffers_);
}

StreamId ProgramBuilder::stream(std::int32_t device, std::string_view name) {
  auto& by_name = index_->streams[device];
  auto it = by_name.find(name);
  if (it != by_name.end()) return it->second;
  const auto id = static_cast<StreamId>(streams_.size());
  streams_.push_back(Stream{device, std::string(name)});
  by_name.emplace(std::string(name), id);
  if (device + 1 > num_devices_) num_devices_ = device + 1;
  return id;
}

NameId ProgramBuilder::intern(std::string_view name) {
  // Planners add runs of tasks of one name (one per rank): remember the last.
  if (last_name_ >= 0 && names_[static_cast<size_t>(last_name_)] == name) return last_name_;
  auto it = index_->names.find(name);
  if (it != index_->names.end()) return last_name_ = it->second;
  const auto id = static_cast<NameId>(names_.size());
  names_.emplace_back(name);
  index_->names.emplace(std::string(name), id);
  return last_name_ = id;
}

TaskId ProgramBuilder::add_task(Task t, std::string_view name) {
  if (t.stream >= 0 && t.stream < static_cast<StreamId>(streams_.size()))
    t.device = streams_[static_cast<size_t>(t.stream)].device;
  else
    t.device = -1;
  t.name = intern(name);
  tasks_.push_back(t);
  return static_cast<TaskId>(tasks_.size() - 1);
}

TaskId ProgramBuilder::add_gemm(StreamId s, std::int64_t m, std::int64_t n, std::int64_t k,
                                DType dtype, std::string_view name, Phase phase,
                                std::int64_t batch) {
  Task t;
  t.kind = TaskKind::kCompute;
  t.compute = ComputeKind::kGemm;
  t.dtype = dtype;
  t.phase = phase;
  t.stream = s;
  t.m = m;
  t.n = n;
  t.k = k;
  t.batch = batch;
  t.flops = gemm_flops(m, n, k, batch);
  t.bytes = gemm_bytes(m, n, k, dtype, batch);
  return add_task(t, name);
}

TaskId ProgramBuilder::add_memory_bound(StreamId s, double bytes, DType dtype,
                                        std::string_view name, Phase phase, double flops) {
  Task t;
  t.kind = TaskKind::kCompute;
  t.compute = ComputeKind::kMemoryBound;
  t.dtype = dtype;
  t.phase = phase;
  t.stream = s;
  t.bytes = bytes;
  t.flops = flops;
  return add_task(t, name);
}

TaskId ProgramBuilder::add_fixed(StreamId s, double flops, double bytes, DType dtype,
                                 std::string_view name, Phase phase) {
  Task t;
  t.kind = TaskKind::kCompute;
  t.compute = ComputeKind::kFixed;
  t.dtype = dtype;
  t.phase = phase;
  t.stream = s;
  t.flops = flops;
  t.bytes = bytes;
  return add_task(t, name);
}

TaskId ProgramBuilder::add_transfer(StreamId s, std::int32_t dst_device, double bytes,
                                    std::string_view name, Phase phase) {
  Task t;
  t.kind = TaskKind::kTransfer;
  t.phase = phase;
  t.stream = s;
  t.peer = dst_device;
  t.bytes = bytes;
  if (dst_device + 1 > num_devices_) num_devices_ = dst_device + 1;
  return add_task(t, name);
}

CollectiveId ProgramBuilder::add_collective(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                            std::vector<std::int32_t> group, double bytes,
                                            const std::vector<StreamId>& streams,
                                            std::string_view name, Phase phase,
                                            std::string reason) {
  const auto id = static_cast<CollectiveId>(collectives_.size());
  Collective c;
  c.kind = kind;
  c.algorithm = algorithm;
  c.group = std::move(group);
  c.bytes = bytes;
  c.reason = std::move(reason);
  for (size_t r = 0; r < streams.size(); ++r) {
    Task t;
    t.kind = TaskKind::kCollective;
    t.phase = phase;
    t.stream = streams[r];
    t.collective = id;
    t.bytes = bytes;
    c.tasks.push_back(add_task(t, name));
  }
  collectives_.push_back(std::move(c));
  return id;
}

TaskId ProgramBuilder::collective_task(CollectiveId c, int rank) const {
  return collectives_[static_cast<size_t>(c)].tasks[static_cast<size_t>(rank)];
}

void ProgramBuilder::depend(TaskId t, TaskId on) { deps_.emplace_back(t, on); }

BufferId ProgramBuilder::add_buffer(std::string_view name, std::int32_t device, double bytes,
                                    MemoryCategory category, bool resident) {
  buffers_.push_back(Buffer{std::string(name), device, bytes, category, resident});
  return static_cast<BufferId>(buffers_.size() - 1);
}

void ProgramBuilder::alloc(TaskId t, BufferId b) { allocs_.emplace_back(t, b); }
void ProgramBuilder::free(TaskId t, BufferId b) { frees_.emplace_back(t, b); }

namespace {

// Groups (key, value) pairs into CSR arrays over `n` keys, keeping the
// insertion order of values within a key.
template <class V>
void to_csr(const BigVector<std::pair<TaskId, V>>& pairs, size_t n, BigVector<std::int64_t>& off,
            BigVector<V>& ids) {
  off.assign(n + 1, 0);
  for (const auto& p : pairs) ++off[static_cast<size_t>(p.first) + 1];
  std::partial_sum(off.begin(), off.end(), off.begin());
  ids.resize(pairs.size());
  // off[k] serves as key k's write position, then is shifted back.
  for (const auto& p : pairs) ids[static_cast<size_t>(off[static_cast<size_t>(p.first)]++)] = p.second;
  std::copy_backward(off.begin(), off.end() - 1, off.end());
  off[0] = 0;
}

}  // namespace

// Whether the dependency graph (explicit deps plus stream order, a
// collective's rank tasks merged into one node, since they start together)
// is acyclic: an iterative depth-first search over predecessors. It needs a
// byte and two TaskIds per task; cycle_message() rebuilds the full graph
// (Kahn) only to name a cycle.
bool ProgramBuilder::acyclic(const Program& p) const {
  const size_t n = tasks_.size();
  // Fast proof first: number each node by its largest TaskId (a collective's
  // node by its last rank task). If every edge goes from a smaller number to
  // a larger, that numbering is a topological order and there is no cycle.
  // Planners issue tasks after what they wait for, so this is the usual case:
  // one sequential pass, no per-task scratch. Otherwise the search below.
  {
    std::vector<TaskId> last_rank(collectives_.size());
    for (size_t c = 0; c < collectives_.size(); ++c) {
      const auto& ts = collectives_[c].tasks;
      last_rank[c] = ts.empty() ? -1 : *std::max_element(ts.begin(), ts.end());
    }
    auto key = [&](TaskId t) {
      const Task& x = tasks_[static_cast<size_t>(t)];
      const bool rank = x.kind == TaskKind::kCollective && x.collective >= 0 &&
                        static_cast<size_t>(x.collective) < last_rank.size();
      return rank ? last_rank[static_cast<size_t>(x.collective)] : t;
    };
    bool ordered = true;
    for (size_t s = 0; s < streams_.size() && ordered; ++s) {
      const auto ts = p.stream_tasks(static_cast<StreamId>(s));
      for (size_t i = 1; i < ts.size() && ordered; ++i) ordered = key(ts[i - 1]) < key(ts[i]);
    }
    for (const auto& [t, on] : deps_) {
      if (!ordered) break;
      ordered = key(on) < key(t);
    }
    if (ordered) return true;
  }
  // rep[t]: t itself, or -(c + 1) for a rank task of collective c (its node is
  // the collective's first rank task).
  BigVector<TaskId> rep(n);
  std::iota(rep.begin(), rep.end(), 0);
  for (size_t c = 0; c < collectives_.size(); ++c)
    for (TaskId t : collectives_[c].tasks) rep[static_cast<size_t>(t)] = -static_cast<TaskId>(c) - 1;
  auto node = [&](TaskId t) {
    const TaskId r = rep[static_cast<size_t>(t)];
    return r >= 0 ? r : collectives_[static_cast<size_t>(-r - 1)].tasks[0];
  };
  // The previous task on each task's stream, -1 for the first.
  BigVector<TaskId> prev(n, -1);
  for (size_t s = 0; s < streams_.size(); ++s) {
    const auto ts = p.stream_tasks(static_cast<StreamId>(s));
    for (size_t i = 1; i < ts.size(); ++i) prev[static_cast<size_t>(ts[i])] = ts[i - 1];
  }
  // 0: unvisited; 1: being expanded (on the current path); 2: done.
  BigVector<std::uint8_t> state(n, 0);
  struct Entry {
    TaskId node;
    bool exit;
  };
  std::vector<Entry> stack;
  auto push_preds = [&](TaskId u) {
    auto one = [&](TaskId x) {
      if (prev[static_cast<size_t>(x)] >= 0) stack.push_back({node(prev[static_cast<size_t>(x)]), false});
      for (TaskId on : p.deps(x)) stack.push_back({node(on), false});
    };
    const TaskId r = rep[static_cast<size_t>(u)];
    if (r >= 0)
      one(u);
    else
      for (TaskId x : collectives_[static_cast<size_t>(-r - 1)].tasks) one(x);
  };
  for (TaskId root = 0; root < static_cast<TaskId>(n); ++root) {
    if (state[static_cast<size_t>(root)] != 0 || node(root) != root) continue;
    stack.push_back({root, false});
    while (!stack.empty()) {
      const Entry e = stack.back();
      stack.pop_back();
      std::uint8_t& st = state[static_cast<size_t>(e.node)];
      if (e.exit) {
        st = 2;
        continue;
      }
      if (st == 2) continue;
      if (st == 1) return false;  // a back edge (a rank on its own collective included)
      st = 1;
      stack.push_back({e.node, true});
      push_preds(e.node);
    }
  }
  return true;
}

namespace {

// "task 7 'attn.fwd'" (or "task 7" when unnamed), as error messages name tasks.
std::string label_of(TaskId t, const BigVector<Task>& tasks, const std::vector<std::string>& names) {
  const Task& x = tasks[static_cast<size_t>(t)];
  std::string s = "task " + std::to_string(t);
  if (x.name >= 0 && !names[static_cast<size_t>(x.name)].empty())
    s += " '" + names[static_cast<size_t>(x.name)] + "'";
  return s;
}

}  // namespace

// Names a cycle (the graph is known to have one, or a rank depends on its own
// collective): Kahn's algorithm over explicit deps plus stream order, then a
// walk back from a blocked node along blocked predecessors.
std::string ProgramBuilder::cycle_message(const Program& p) const {
  const auto ntasks = static_cast<TaskId>(tasks_.size());
  const auto nstreams = static_cast<StreamId>(streams_.size());
  auto task_label = [&](TaskId t) { return label_of(t, tasks_, names_); };
  std::vector<TaskId> rep(tasks_.size());
  std::iota(rep.begin(), rep.end(), 0);
  for (const Collective& c : collectives_)
    for (TaskId t : c.tasks) rep[static_cast<size_t>(t)] = c.tasks[0];
  std::vector<std::int32_t> indeg(tasks_.size(), 0);
  BigVector<std::pair<TaskId, TaskId>> edges;  // (from, to) on representatives
  edges.reserve(deps_.size() + tasks_.size());
  for (const auto& [t, on] : deps_)
    edges.emplace_back(rep[static_cast<size_t>(on)], rep[static_cast<size_t>(t)]);
  for (StreamId s = 0; s < nstreams; ++s) {
    auto ts = p.stream_tasks(s);
    for (size_t i = 1; i < ts.size(); ++i)
      edges.emplace_back(rep[static_cast<size_t>(ts[i - 1])], rep[static_cast<size_t>(ts[i])]);
  }
  BigVector<std::int64_t> off;
  BigVector<TaskId> succ;
  to_csr(edges, tasks_.size(), off, succ);
  for (const auto& e : edges)
    if (e.first != e.second) ++indeg[static_cast<size_t>(e.second)];
  std::vector<TaskId> queue;
  for (TaskId t = 0; t < ntasks; ++t)
    if (rep[static_cast<size_t>(t)] == t && indeg[static_cast<size_t>(t)] == 0) queue.push_back(t);
  size_t done = 0, reps = 0;
  for (TaskId t = 0; t < ntasks; ++t) reps += rep[static_cast<size_t>(t)] == t;
  // Self edges arise only from a rank depending on its own collective.
  for (const auto& [t, on] : deps_)
    if (rep[static_cast<size_t>(t)] == rep[static_cast<size_t>(on)])
      return "dependency cycle: " + task_label(t) + " -> " + task_label(on) + " (the same " +
             (t == on ? std::string("task") : std::string("collective")) + ")";
  while (!queue.empty()) {
    const TaskId t = queue.back();
    queue.pop_back();
    ++done;
    for (std::int64_t i = off[static_cast<size_t>(t)]; i < off[static_cast<size_t>(t) + 1]; ++i) {
      const TaskId u = succ[static_cast<size_t>(i)];
      if (u == t) continue;
      if (--indeg[static_cast<size_t>(u)] == 0) queue.push_back(u);
    }
  }
  if (done != reps) {
    // Walk back from a blocked node along blocked predecessors to name a cycle.
    std::vector<std::vector<TaskId>> pred(tasks_.size());
    for (const auto& e : edges)
      if (e.first != e.second && indeg[static_cast<size_t>(e.second)] > 0 &&
          indeg[static_cast<size_t>(e.first)] > 0)
        pred[static_cast<size_t>(e.second)].push_back(e.first);
    TaskId start = -1;
    for (TaskId t = 0; t < ntasks && start < 0; ++t)
      if (rep[static_cast<size_t>(t)] == t && indeg[static_cast<size_t>(t)] > 0 &&
          !pred[static_cast<size_t>(t)].empty())
        start = t;
    std::vector<TaskId> path;
    std::vector<int> at(tasks_.size(), -1);
    TaskId x = start;
    while (x >= 0 && at[static_cast<size_t>(x)] < 0) {
      at[static_cast<size_t>(x)] = static_cast<int>(path.size());
      path.push_back(x);
      const auto& ps = pred[static_cast<size_t>(x)];
      x = ps.empty() ? -1 : *std::min_element(ps.begin(), ps.end());
    }
    std::string cycle;
    if (x >= 0) {
      // "A -> B" reads "A waits for B" (as Ninja prints cycles).
      std::vector<TaskId> loop(path.begin() + at[static_cast<size_t>(x)], path.end());
      loop.push_back(loop.front());
      for (size_t i = 0; i < loop.size(); ++i) cycle += (i ? " -> " : "") + task_label(loop[i]);
    }
    return "dependency cycle: " + (cycle.empty() ? "(tasks blocked)" : cycle);
  }
  return "dependency cycle: (tasks blocked)";
}

Result<Program> ProgramBuilder::build() && {
  const std::string who = "program '" + name_ + "': ";
  const auto ntasks = static_cast<TaskId>(tasks_.size());
  const auto nstreams = static_cast<StreamId>(streams_.size());
  auto task_label = [&](TaskId t) { return label_of(t, tasks_, names_); };

  if (num_devices_ <= 0 && !tasks_.empty())
    return Status::error(who + "has tasks but no devices");
  for (const Stream& s : streams_)
    if (s.device < 0 || s.device >= num_devices_)
      return Status::error(who + "stream '" + s.name + "' is on device " +
                           std::to_string(s.device) + "; expected a device in 0.." +
                           std::to_string(num_devices_ - 1));
  for (TaskId t = 0; t < ntasks; ++t) {
    const Task& x = tasks_[static_cast<size_t>(t)];
    if (x.stream < 0 || x.stream >= nstreams)
      return Status::error(who + task_label(t) + " is on stream " + std::to_string(x.stream) +
                           ", which does not exist; expected a stream in 0.." +
                           std::to_string(nstreams - 1));
    if (x.gemm_mix > gemm_mixes_.size())
      return Status::error(who + task_label(t) + " names GEMM shapes " +
                           std::to_string(x.gemm_mix) + ", which do not exist; expected 0.." +
                           std::to_string(gemm_mixes_.size()));
    if (x.kind == TaskKind::kTransfer) {
      if (x.peer < 0 || x.peer >= num_devices_)
        return Status::error(who + task_label(t) + " sends to device " + std::to_string(x.peer) +
                             ", which does not exist; expected a device in 0.." +
                             std::to_string(num_devices_ - 1));
      if (x.peer == x.device)
        return Status::error(who + task_label(t) + " sends from device " +
                             std::to_string(x.device) + " to itself; expected another device");
    }
    if (!(x.bytes >= 0) || !(x.flops >= 0))
      return Status::error(who + task_label(t) + " has negative FLOPs or bytes");
  }
  // Per device, the last collective that named it (repeats without a set per
  // collective: a Program may hold hundreds of thousands).
  std::vector<std::int32_t> named_by(static_cast<size_t>(std::max(num_devices_, 0)), -1);
  for (size_t c = 0; c < collectives_.size(); ++c) {
    const Collective& col = collectives_[c];
    auto label = [&] {  // built only for an error message
      return "collective " + std::to_string(c) +
             (col.tasks.empty() ? "" : " (" + task_label(col.tasks[0]) + ")");
    };
    if (col.group.empty()) return Status::error(who + label() + " has an empty device group");
    if (col.tasks.size() != col.group.size())
      return Status::error(who + label() + " has " + std::to_string(col.tasks.size()) +
                           " rank tasks for a group of " + std::to_string(col.group.size()));
    for (size_t r = 0; r < col.group.size(); ++r) {
      const std::int32_t d = col.group[r];
      if (d < 0 || d >= num_devices_)
        return Status::error(who + label() + " names device " + std::to_string(d) +
                             ", which does not exist; expected a device in 0.." +
                             std::to_string(num_devices_ - 1));
      if (named_by[static_cast<size_t>(d)] == static_cast<std::int32_t>(c))
        return Status::error(who + label() + " names device " + std::to_string(d) +
                             " twice; expected distinct devices");
      named_by[static_cast<size_t>(d)] = static_cast<std::int32_t>(c);
      if (tasks_[static_cast<size_t>(col.tasks[r])].device != d)
        return Status::error(who + label() + ": rank " + std::to_string(r) + "'s task is on device " +
                             std::to_string(tasks_[static_cast<size_t>(col.tasks[r])].device) +
                             "; expected device " + std::to_string(d));
    }
    if (col.root < 0 || col.root >= static_cast<std::int32_t>(col.group.size()))
      return Status::error(who + label() + " has root " + std::to_string(col.root) +
                           "; expected a rank in 0.." + std::to_string(col.group.size() - 1));
  }
  for (const auto& [t, on] : deps_) {
    if (t < 0 || t >= ntasks || on < 0 || on >= ntasks)
      return Status::error(who + "a dependency names task " +
                           std::to_string((t < 0 || t >= ntasks) ? t : on) +
                           ", which does not exist; expected a task in 0.." +
                           std::to_string(ntasks - 1));
  }
  const auto nbuf = static_cast<BufferId>(buffers_.size());
  for (const Buffer& b : buffers_)
    if (b.device < 0 || b.device >= num_devices_)
      return Status::error(who + "buffer '" + b.name + "' is on device " +
                           std::to_string(b.device) + ", which does not exist");
  std::vector<std::uint8_t> freed(buffers_.size(), 0), allocated(buffers_.size(), 0);
  for (auto* list : {&allocs_, &frees_}) {
    const bool is_free = list == &frees_;
    for (const auto& [t, b] : *list) {
      if (t < 0 || t >= ntasks || b < 0 || b >= nbuf)
        return Status::error(who + "a memory effect names task " + std::to_string(t) +
                             " and buffer " + std::to_string(b) + "; one of them does not exist");
      const Buffer& buf = buffers_[static_cast<size_t>(b)];
      if (buf.device != tasks_[static_cast<size_t>(t)].device)
        return Status::error(who + task_label(t) + " on device " +
                             std::to_string(tasks_[static_cast<size_t>(t)].device) +
                             (is_free ? " frees" : " allocates") + " buffer '" + buf.name +
                             "' of device " + std::to_string(buf.device));
      std::uint8_t& count = is_free ? freed[static_cast<size_t>(b)] : allocated[static_cast<size_t>(b)];
      if (++count > 1)
        return Status::error(who + "buffer '" + buf.name + "' is " +
                             (is_free ? "freed" : "allocated") + " twice");
      if (!is_free && buf.resident)
        return Status::error(who + "buffer '" + buf.name +
                             "' is resident and also allocated by " + task_label(t));
    }
  }

  Program p;
  p.name = name_;
  p.num_devices = num_devices_;
  // Stream order as CSR (tasks were added in issue order).
  {
    auto& off = p.stream_offsets_;
    off.assign(streams_.size() + 1, 0);
    for (const Task& x : tasks_) ++off[static_cast<size_t>(x.stream) + 1];
    std::partial_sum(off.begin(), off.end(), off.begin());
    p.stream_task_ids_.resize(tasks_.size());
    for (TaskId t = 0; t < ntasks; ++t)
      p.stream_task_ids_[static_cast<size_t>(off[static_cast<size_t>(tasks_[static_cast<size_t>(t)].stream)]++)] = t;
    std::copy_backward(off.begin(), off.end() - 1, off.end());
    off[0] = 0;
  }
  to_csr(deps_, tasks_.size(), p.dep_offsets_, p.dep_ids_);
  to_csr(allocs_, tasks_.size(), p.alloc_offsets_, p.alloc_ids_);
  to_csr(frees_, tasks_.size(), p.free_offsets_, p.free_ids_);

  if (!acyclic(p)) return Status::error(who + cycle_message(p));

  p.tasks_ = std::move(tasks_);
  p.streams_ = std::move(streams_);
  p.collectives_ = std::move(collectives_);
  p.buffers_ = std::move(buffers_);
  p.names_ = std::move(names_);
  p.gemm_mixes_ = std::move(gemm_mixes_);
  return p;
}

}  // namespace brigade
