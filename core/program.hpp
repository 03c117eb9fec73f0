// The Program: the spine every judge consumes. Per device, named streams
// hold tasks in issue order; tasks on one stream run in order, streams run
// concurrently, and a task may also wait on tasks of other streams or
// devices (exactly CUDA streams + events, so the CUDA executor maps it
// one-to-one).
//
// A collective is one logical operation with one task per participating
// rank, each on that rank's own stream (as with NCCL: every rank calls
// ncclAllReduce on its stream); it starts when every rank's task is ready.
// A transfer is one task on the sender's stream; tasks that need the data
// depend on it.
//
// Memory: buffers live on a device; a task may allocate buffers (at its
// start) and free buffers (at its end). Resident buffers (parameters,
// optimizer state) are live from the start without an allocating task.
//
// Storage is flat (struct-of-arrays-ish, CSR for dependencies and memory
// effects, integer ids): a 10^7-task Program must fit and be fast to walk.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "core/model.hpp"
#include "core/status.hpp"

namespace brigade {

class Topology;

using TaskId = std::int32_t;
using StreamId = std::int32_t;
using BufferId = std::int32_t;
using CollectiveId = std::int32_t;
using NameId = std::int32_t;

enum class TaskKind : std::uint8_t { kCompute, kTransfer, kCollective };
std::string_view task_kind_name(TaskKind k);

enum class ComputeKind : std::uint8_t {
  kGemm,         // m x k times k x n (times `batch`), flops = 2*m*n*k*batch
  kMemoryBound,  // streams `bytes` through memory (elementwise, norms, softmax)
  kFixed,        // explicit flops and bytes (roofline of both)
};
std::string_view compute_kind_name(ComputeKind k);
// Which kernel a task is, where a device profile has a measured rate for it
// apart from its ComputeKind's roofline (DeviceProfile::flash_attention).
// kFlashForward / kFlashBackward: FlashAttention-2's fused causal attention
// (Dao 2023), a kFixed task whose `m` is the sequence length and `k` the
// head dimension. kAttentionForward / kAttentionBackward: the passes of an
// unfused attention core over its s x s matrices (the scores' and values'
// batched GEMMs, the fused softmax, the dropout, and their backward), which
// a profile may stream at a measured efficiency of their own
// (DeviceProfile::attention_*_efficiency). kNormForward / kNormBackward: a
// LayerNorm's or RMSNorm's passes; kActivationForward / kActivationBackward:
// the MLP's activation (GeLU, with its fused bias); kGatedForward /
// kGatedBackward: a gated one's (SwiGLU: silu(gate) x up, two inputs to one
// output, a kernel of its own); streaming kernels a profile may time at
// their own measured efficiencies (DeviceProfile::norm_*_efficiency,
// activation_*_efficiency, gated_activation_*_efficiency, the last falling
// back to the activation's).
enum class KernelClass : std::uint8_t {
  kGeneric,
  kFlashForward,
  kFlashBackward,
  kAttentionForward,
  kAttentionBackward,
  kNormForward,
  kNormBackward,
  kActivationForward,
  kActivationBackward,
  kGatedForward,
  kGatedBackward,
  // Transformer Engine's FusedAttention (cuDNN's fused attention, TE's
  // choice on Hopper and later: training.attention_backend): the same fused
  // causal kernel as kFlashForward / kFlashBackward, with the same `m` and
  // `k`, timed at a profile's fused_attention rates where it has some and at
  // its flash_attention rates otherwise.
  kFusedAttentionForward,
  kFusedAttentionBackward,
  // An FP8 GEMM that promotes its partial sums to an FP32 accumulator every
  // few tensor-core instructions (cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM
  // off): Transformer Engine's input- and weight-gradient GEMMs
  // (_2X_ACC_DGRAD, _2X_ACC_WGRAD in TE 1.x; its recipes' fp8_gemm_dgrad and
  // fp8_gemm_wgrad in TE 2.x), where its forward GEMMs accumulate fast. A
  // kGemm task, timed on the dtype's GEMM curve (measured with fast
  // accumulation) divided by DeviceProfile::fp8_split_accumulator_efficiency
  // where the profile has one.
  kGemmSplitAccumulator
};
// A fused attention kernel of either backend (FlashAttention-2's or cuDNN's).
inline bool is_flash_attention(KernelClass k) {
  return k == KernelClass::kFlashForward || k == KernelClass::kFlashBackward ||
         k == KernelClass::kFusedAttentionForward || k == KernelClass::kFusedAttentionBackward;
}
inline bool is_fused_attention_backward(KernelClass k) {
  return k == KernelClass::kFlashBackward || k == KernelClass::kFusedAttentionBackward;
}
inline bool is_norm(KernelClass k) {
  return k == KernelClass::kNormForward || k == KernelClass::kNormBackward;
}
inline bool is_gated_activation(KernelClass k) {
  return k == KernelClass::kGatedForward || k == KernelClass::kGatedBackward;
}
// An activation's class, gated or not.
inline bool is_activation(KernelClass k) {
  return k == KernelClass::kActivationForward || k == KernelClass::kActivationBackward ||
         is_gated_activation(k);
}
// How a model op runs as a kernel: matmul a GEMM, custom explicit FLOPs and
// bytes, everything else (elementwise, softmax, layernorm, embedding, loss) a
// streaming kernel.
ComputeKind compute_kind_of(OpKind k);
// The class of a streaming op's kernel, which a profile may time at a
// measured efficiency of its own: a LayerNorm's (norm), GeLU's and SiLU's
// (activation: the MLPs' activations; relu and the arithmetic ops stay
// kGeneric), forward or, in Phase::kBackward, backward; kGeneric for every
// other op. Every judge of an op graph and the placement searches take it
// from here.
KernelClass streaming_class_of(OpKind kind, std::string_view fn, Phase phase);
// The bytes a model op's kernel writes as kernel_seconds takes them (its
// `written_bytes`): a matmul's outputs, 0 for other kinds (only GEMMs
// charge written bytes apart).
double op_written_bytes(const Model& model, const Op& op);

enum class CollectiveKind : std::uint8_t {
  kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll
};
inline constexpr int kNumCollectiveKinds = 6;
std::string_view collective_kind_name(CollectiveKind k);  // "allreduce", ...
std::optional<CollectiveKind> parse_collective_kind(std::string_view s);
// What a name is known to be, which decides how loosely it is read.
enum class NameContext : std::uint8_t {
  kAny,         // any span or kernel (a foreign trace's compute spans)
  kNccl,        // an NCCL kernel or PyTorch's "nccl:..." annotation
  kCollective,  // a collective's span (TaskKind::kCollective)
};
// The collective a span's or kernel's name speaks of, the one vocabulary
// of the trace readers, the app's colours and `brigade kernels`: letters
// and digits only, lower-cased ("all_reduce", "AllReduce" and "all-reduce"
// alike), the most specific word first: reducescatter / psumscatter,
// allreduce / psum / pmean (JAX's), allgather, alltoall, broadcast. Words
// that ordinary kernels' names have too count only where the name is
// known to be a collective's: reduce and bcast (NCCL's or a collective's),
// gather (a collective's: PyTorch's "nccl:gather" is a gather to one rank,
// not an AllGather).
std::optional<CollectiveKind> collective_kind_in_name(std::string_view name, NameContext context);

// kNvls: NCCL's NVLink SHARP AllReduce (the NCCL model times it; the
// alpha-beta model refuses it). kAuto: the model's own choice (NCCL's, by
// size, under the NCCL model; the ring under alpha-beta).
enum class CollectiveAlgorithm : std::uint8_t {
  kRing, kTree, kHalvingDoubling, kHierarchical, kNvls, kAuto
};
inline constexpr int kNumCollectiveAlgorithms = 6;
std::string_view collective_algorithm_name(CollectiveAlgorithm a);  // "ring", "tree", ...
std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view s);

enum class MemoryCategory : std::uint8_t {
  kParams, kGrads, kOptimizer, kActivations, kCommBuffers, kOther
};
inline constexpr int kNumMemoryCategories = 6;
std::string_view memory_category_name(MemoryCategory c);  // "params", "grads", ...

struct Task {
  TaskKind kind = TaskKind::kCompute;
  ComputeKind compute = ComputeKind::kFixed;
  DType dtype = DType::kF32;
  Phase phase = Phase::kForward;
  KernelClass kernel = KernelClass::kGeneric;  // compute: see KernelClass
  // compute: SMs of its device held back from this kernel for a
  // communication kernel running beside it (Transformer Engine's
  // set_sm_margin under training.tp_comm_overlap): the kernel runs on the
  // others, its time scaled by sm_share (core/profile.hpp). 0: all of them.
  std::uint8_t sm_held = 0;
  // kFixed, a run of fused kernels (region and step granularities): 1 + the
  // index of the shapes of its linear-layer GEMMs (any width: FP8 ones too;
  // the wave model times the 16-bit ones by shape) in Program::gemm_mix, so
  // that a profile with a wave model times each shape as its own kernel
  // (core/profile.hpp, gemm_mix_seconds); 0: none recorded. A kGemm task
  // that adds into its output (fused gradient accumulation) has one too:
  // its own shape with its GemmMixShape::accumulate_bytes. (Kept in the
  // padding before `device`: no larger a Task.)
  std::uint16_t gemm_mix = 0;
  std::int32_t device = 0;
  StreamId stream = 0;
  // kGemm: its shape. kFixed and kMemoryBound: batch is the number of
  // kernels the planner fused into this task (region and step
  // granularities), which kernel_seconds times one by one in launch gaps
  // and in the GEMM curve's position (core/profile.hpp, fused_kernels);
  // FlashAttention's (kernel kFlashForward / kFlashBackward): m its
  // sequence, k its head dimension, batch its launches.
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  double flops = 0;   // compute: FLOP
  // compute: bytes of memory traffic; transfer: payload bytes;
  // collective: the collective's `bytes` (see Collective).
  double bytes = 0;
  std::int32_t peer = -1;                // transfer: destination device
  CollectiveId collective = -1;          // collective: which one
  std::int32_t op = -1;                  // logical model op, -1 if none
  NameId name = -1;                      // into Program::names()
  std::int32_t micro_batch = -1;         // pipeline micro-batch, -1 if none
  std::int32_t layer = -1;               // model layer, -1 if none
};

// One shape among the GEMMs of a fused task (Task::gemm_mix): `count`
// kernels of C = m x n (batch of them) over k.
struct GemmMixShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1, count = 0;
  // A GEMM that adds into its output (fused gradient accumulation): the
  // bytes one such kernel moves beyond a plain one (DeviceProfile::
  // gemm_accumulate_exposed prices them; accumulate_seconds). 0: a plain
  // GEMM. A kGemm task that adds into its output carries a one-shape entry
  // of its own (count 1) for this alone.
  double accumulate_bytes = 0;
  friend bool operator==(const GemmMixShape&, const GemmMixShape&) = default;
  friend auto operator<=>(const GemmMixShape&, const GemmMixShape&) = default;
};

struct Stream {
  std::int32_t device = 0;
  std::string name;  // "compute", "comm", "dp-comm", ...
};

struct Collective {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  std::vector<std::int32_t> group;  // devices, in rank order
  // M, as nccl-tests' "size": AllReduce/Reduce/Broadcast: the tensor on each
  // rank; AllGather: the gathered output (N x each rank's shard);
  // ReduceScatter: the unreduced input on each rank (N x each rank's output);
  // AllToAll: what each rank holds (and sends) in total.
  double bytes = 0;
  std::int32_t root = 0;            // Broadcast / Reduce: rank index in group
  DType dtype = DType::kF32;
  std::vector<TaskId> tasks;        // per rank, in group order
  std::string reason;               // why the plan needs it ("psum over 'model': ...")
  // Run on Transformer Engine's userbuffers (training.tp_comm_overlap), not
  // as NCCL's kernel: it holds no SMs of the devices' own (the GEMM beside
  // it gave up its sm_held; docs/costmodel.md, "NCCL's kernels take SMs").
  bool userbuffers = false;
  // How many collectives this one stands for: the step granularity merges
  // a pipeline step's tensor-parallel collectives of one kind into one of
  // their summed bytes (planner/lower_transformer_stage.cpp). The judges
  // time it as `parts` calls of bytes / parts each, one after another
  // (per-call latency, launch and NCCL's choice by size, each paid
  // `parts` times), not as one call of the sum (docs/planner.md,
  // "Granularity: what is fused"). 1: a collective of its own.
  std::int32_t parts = 1;
};

struct Buffer {
  std::string name;
  std::int32_t device = 0;
  double bytes = 0;
  MemoryCategory category = MemoryCategory::kOther;
  bool resident = false;  // live from time 0 (parameters, optimizer state)
};

// Storage for a Program's large arrays. Blocks of 4 MiB or more are mapped
// on their own, 2 MiB aligned, and advised as transparent huge pages (Linux
// mmap + madvise(MADV_HUGEPAGE)): a Program of millions of tasks is hundreds
// of MB of fresh memory, and with 4 KiB pages the page faults alone cost as
// much as building it on the development VM (docs/PERFORMANCE.md). (From
// malloc's heap, a block could land on pages already faulted 4 KiB at a
// time.) Small blocks and other systems: plain malloc. `bytes` of
// big_deallocate: what was asked of big_allocate.
inline constexpr size_t kBigBlockBytes = size_t{4} << 20;  // mapped on its own from this size
// Freed mapped blocks are kept (up to 2 GiB, process-wide) and handed out
// again: a fresh page costs more than the bytes written to it. Memory from
// big_allocate is therefore not zeroed.
void* big_allocate(size_t bytes);
void big_deallocate(void* p, size_t bytes) noexcept;
size_t big_cached_bytes();        // what freed blocks kept for reuse hold
void big_release_cached() noexcept;  // gives them back to the system

template <class T>
struct BigAllocator {
  using value_type = T;
  BigAllocator() = default;
  template <class U>
  BigAllocator(const BigAllocator<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(size_t n) { return static_cast<T*>(big_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { big_deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const BigAllocator<U>&) const noexcept {
    return true;
  }
};
template <class T>
using BigVector = std::vector<T, BigAllocator<T>>;

class ProgramBuilder;

class Program {
 public:
  Program() = default;

  std::string name;
  int num_devices = 0;

  std::span<const Task> tasks() const { return tasks_; }
  const Task& task(TaskId t) const { return tasks_[static_cast<size_t>(t)]; }
  int num_tasks() const { return static_cast<int>(tasks_.size()); }
  // Tasks (any stream, any device) that must finish before `t` starts, in
  // addition to its predecessor on its own stream.
  std::span<const TaskId> deps(TaskId t) const { return csr(dep_offsets_, dep_ids_, t); }
  std::span<const BufferId> allocs(TaskId t) const { return csr(alloc_offsets_, alloc_ids_, t); }
  std::span<const BufferId> frees(TaskId t) const { return csr(free_offsets_, free_ids_, t); }

  const std::vector<Stream>& streams() const { return streams_; }
  std::span<const TaskId> stream_tasks(StreamId s) const {
    return csr(stream_offsets_, stream_task_ids_, s);
  }
  const BigVector<Collective>& collectives() const { return collectives_; }
  const BigVector<Buffer>& buffers() const { return buffers_; }
  const std::vector<std::string>& names() const { return names_; }
  std::string_view task_name(TaskId t) const;
  // The GEMM shapes of a fused task (Task::gemm_mix); empty for 0.
  std::span<const GemmMixShape> gemm_mix(std::uint16_t id) const {
    if (id == 0 || id > gemm_mixes_.size()) return {};
    return gemm_mixes_[id - 1u];
  }
  size_t num_gemm_mixes() const { return gemm_mixes_.size(); }

  // Checks the Program against a topology: every device exists there.
  // (Structural checks already passed in ProgramBuilder::build.)
  Status validate_against(const Topology& topology) const;

  // Totals, for tests and reports.
  double total_flops() const;

 private:
  friend class ProgramBuilder;
  template <class T>
  static std::span<const T> csr(const BigVector<std::int64_t>& off, const BigVector<T>& ids,
                                std::int32_t i) {
    const auto b = static_cast<size_t>(off[static_cast<size_t>(i)]);
    const auto e = static_cast<size_t>(off[static_cast<size_t>(i) + 1]);
    return std::span<const T>(ids.data() + b, e - b);
  }
  BigVector<Task> tasks_;
  std::vector<Stream> streams_;
  BigVector<Collective> collectives_;
  BigVector<Buffer> buffers_;
  std::vector<std::string> names_;
  std::vector<std::vector<GemmMixShape>> gemm_mixes_;
  BigVector<std::int64_t> dep_offsets_{0}, alloc_offsets_{0}, free_offsets_{0}, stream_offsets_{0};
  BigVector<TaskId> dep_ids_, stream_task_ids_;
  BigVector<BufferId> alloc_ids_, free_ids_;
};

// Builds a Program. Tasks are issued on their stream in the order they are
// added. Not thread-safe.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string name = "", int num_devices = 0);

  // Capacity hints for large Programs (avoids regrowing multi-GB arrays).
  void reserve(size_t tasks, size_t deps = 0);
  // Capacity for `factor` times what was added so far (tasks, dependencies,
  // memory effects, buffers): a planner that has emitted one of P similar
  // parts asks for about P times as much.
  void reserve_scaled(double factor);

  // The stream of this name on this device, created on first use.
  StreamId stream(std::int32_t device, std::string_view name);
  NameId intern(std::string_view name);
  // The id (Task::gemm_mix) of a fused task's GEMM shapes, the same id for
  // the same shapes (sorted here); 0 when `shapes` is empty or the Program
  // already holds 65,535 distinct ones (the task is then timed by its
  // summed FLOPs alone).
  std::uint16_t intern_gemm_mix(std::vector<GemmMixShape> shapes);

  TaskId add_gemm(StreamId s, std::int64_t m, std::int64_t n, std::int64_t k, DType dtype,
                  std::string_view name, Phase phase = Phase::kForward, std::int64_t batch = 1);
  TaskId add_memory_bound(StreamId s, double bytes, DType dtype, std::string_view name,
                          Phase phase = Phase::kForward, double flops = 0);
  TaskId add_fixed(StreamId s, double flops, double bytes, DType dtype, std::string_view name,
                   Phase phase = Phase::kForward);
  TaskId add_transfer(StreamId s, std::int32_t dst_device, double bytes, std::string_view name,
                      Phase phase = Phase::kForward);
  // One task per rank, rank r's task on streams[r] (a stream of group[r]).
  CollectiveId add_collective(CollectiveKind kind, CollectiveAlgorithm algorithm,
                              std::vector<std::int32_t> group, double bytes,
                              const std::vector<StreamId>& streams, std::string_view name,
                              Phase phase = Phase::kBackward, std::string reason = "");
  // The per-rank task of a collective.
  TaskId collective_task(CollectiveId c, int rank) const;

  // `t` starts only after `on` finished.
  void depend(TaskId t, TaskId on);
  BufferId add_buffer(std::string_view name, std::int32_t device, double bytes,
                      MemoryCategory category, bool resident = false);
  void alloc(TaskId t, BufferId b);
  void free(TaskId t, BufferId b);

  // Direct access for setting optional fields (op, layer, micro_batch, ...).
  Task& task(TaskId t) { return tasks_[static_cast<size_t>(t)]; }
  Collective& collective(CollectiveId c) { return collectives_[static_cast<size_t>(c)]; }
  int num_tasks() const { return static_cast<int>(tasks_.size()); }

  // Checks and freezes: ids in range, a task's stream on the task's device,
  // collective groups non-empty and without repeated devices, rank tasks on
  // their rank's device, transfer peers valid, no dependency cycle (stream
  // order included; the message names the cycle), buffers freed once, on
  // their own device. Errors: "program 'NAME': ...".
  Result<Program> build() &&;

 private:
  TaskId add_task(Task t, std::string_view name);
  bool acyclic(const Program& p) const;
  std::string cycle_message(const Program& p) const;
  std::string name_;
  int num_devices_;
  BigVector<Task> tasks_;
  std::vector<Stream> streams_;
  BigVector<Collective> collectives_;
  BigVector<Buffer> buffers_;
  std::vector<std::string> names_;
  std::vector<std::vector<GemmMixShape>> gemm_mixes_;
  std::map<std::vector<GemmMixShape>, std::uint16_t> gemm_mix_ids_;
  BigVector<std::pair<TaskId, TaskId>> deps_;       // (task, on)
  BigVector<std::pair<TaskId, BufferId>> allocs_, frees_;
  NameId last_name_ = -1;  // the last name interned
  struct Index;
  std::shared_ptr<Index> index_;  // name/stream lookup tables
};

}  // namespace brigade
