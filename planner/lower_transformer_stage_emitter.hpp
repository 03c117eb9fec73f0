// Internal to the transformer lowering: the emitter of one pipeline stage,
// whose tasks emit_stage (lower_transformer_setup.hpp) hands to the
// finishing pass. Its definitions: lower_transformer_stage.cpp, the
// members of strategy.overlap_param_gather in
// lower_transformer_param_gather.cpp, and the work beside the compute
// stream (the tensor-parallel overlap's collectives, the context ring) in
// lower_transformer_side.cpp, and the pending run of kernels (add_kernel,
// flush_compute) in lower_transformer_fused_run.cpp; not a public interface.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/program.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "planner/builders.hpp"
#include "planner/lower_transformer_setup.hpp"
#include "planner/schedule.hpp"

namespace brigade::planner::detail {

class StageEmitter {
 public:
  StageEmitter(ProgramBuilder& b, Setup& s, int p);
  Result<StageOut> run();

 private:
  // ---- pending task (one kernel, or a fused region) -----------------------------
  // Fused modes keep a run's GEMMs and its memory-bound kernels apart: two
  // tasks, each timed by the roofline of its sums, so memory-bound time adds
  // to GEMM time instead of hiding under it in one max(). FP8 GEMMs
  // (training.fp8) are a third task, timed at the FP8 rate: the run's
  // GEMMs by dtype. An unfused attention core's passes (KernelClass
  // kAttentionForward / kAttentionBackward) are two more, its GEMMs and its
  // memory-bound kernels, tagged with the class, so that a profile that
  // streams them at a measured efficiency of their own times the fused
  // tasks as it times the kernels (without a run of their own per layer,
  // which multiplied step granularity's tasks). A norm's and an activation's
  // passes (KernelClass kNorm*, kActivation*) are a part each by class, for
  // the same reason.
  // GEMMs with SMs held back for a communication kernel beside them
  // (Kernel::sm_held, training.tp_comm_overlap) are parts of their own,
  // whose task carries the held SMs. FlashAttention's kernels are a part
  // each way (kFlashForwardPart, kFlashBackwardPart) whose task carries the
  // class, the sequence and head dimension and the kernels it fuses, so
  // that a run of them is timed at the profile's measured rates as each
  // kernel is (they joined the GEMMs until 2026-12-05 and were timed on
  // the generic roofline there). FP8 GEMMs that accumulate in split mode
  // (KernelClass::kGemmSplitAccumulator: Transformer Engine's dgrad and
  // wgrad) are parts apart from the forward's, their tasks carrying the
  // class.
  enum PartKind {
    kGemmPart,
    kGemm8Part,
    kGemm8SplitPart,
    kGemmHeldPart,
    kGemm8HeldPart,
    kGemm8SplitHeldPart,
    kMemoryPart,
    kCoreGemmPart,
    kCoreMemoryPart,
    kNormForwardPart,
    kNormBackwardPart,
    kActivationForwardPart,
    kActivationBackwardPart,
    kGatedForwardPart,
    kGatedBackwardPart,
    kFlashForwardPart,
    kFlashBackwardPart,
    kParts
  };
  struct Part {
    int n = 0;
    Kernel first;
    double flops = 0, bytes = 0;
    // A GEMM part's GEMMs by shape (Task::gemm_mix), for a profile that
    // times each shape on its own (the wave model).
    std::vector<GemmMixShape> shapes;
  };
  // A tensor-parallel collective deferred (kStep), or several of one kind
  // merged (below, defer).
  struct Deferred {
    CollectiveKind kind;
    double bytes = 0;
    int count = 0;
    Phase phase;
    int mb;
    std::vector<std::string> reasons;
    bool userbuffers = false;  // every one merged is (Kernel::userbuffers)
    Kernel::Group group = Kernel::Group::kTensor;  // a wider group's merged apart
  };
  // kStep: a collective beside a GEMM and the GEMM (Kernel::beside), the
  // run's pairs of one key (the collective's and the kernel's names, the
  // kernel's part) merged: n identical pairs, the collective timed as its
  // n calls beside the n GEMMs, so that each pair hides or exposes its
  // collective against its own GEMM, as at region granularity and in the
  // closed form (n max(0, c - g) = max(0, n c - n g)). A GEMM on SMs held
  // back (Kernel::sm_held) with no collective beside it is an entry of its
  // own too (`coll.count` 0), the layer's overlaps holding back SMs by
  // their own settings.
  struct SidePair {
    std::string key;
    PartKind kind = kGemmPart;
    Deferred coll;
    Part gemm;
  };
  struct Pending {
    int kernels = 0;
    std::array<Part, kParts> parts;
    std::vector<SidePair> pairs;
    Phase phase = Phase::kForward;
    int layer = -1, mb = -1;
    // The class of the run's attention-core parts (kGeneric when it has
    // none): a run holds one (add_kernel flushes before another).
    KernelClass core = KernelClass::kGeneric;
    std::vector<std::vector<TaskId>> deps;  // per rank
    std::vector<BufferId> allocs, frees;    // slot bases (rank r's buffer at base + r)
    std::vector<int> recv_keys;
  };

  void attach(TaskId id, int r);
  void link_recv(int key, TaskId base);
  void free_after_last(BufferId slot);
  void clear_attachments();
  TaskId flush();
  TaskId flush_compute();
  void next_depends(std::vector<TaskId> per_rank);
  void next_allocs(BufferId slot);
  static KernelClass attention_core_class(const Kernel& k);
  static PartKind memory_part(KernelClass k);
  void add_kernel(const Kernel& k, Phase phase, int layer, int mb);
  void routed_gemm(const Kernel& k, Phase phase, int layer, int mb);
  int ring_peer(int r, int hop) const;
  void ring_kernel(const Kernel& k, Phase phase, int layer, int mb);
  void ring_segment(TaskId before);
  void expert_collective(const Kernel& k, Phase phase, int layer, int mb);
  void add_group_collective(const Kernel& k, Phase phase, int layer, int mb,
                            const std::vector<int>& devices, const std::vector<StreamId>& streams);
  void collectives_issued(TaskId base);
  void tensor_collective(const Kernel& k, Phase phase, int layer, int mb);
  // training.tp_comm_overlap: a collective beside the next kernel (a GEMM),
  // on the `tp` streams (Kernel::beside). Kernel and region granularity:
  // issued with the GEMM (after what precedes both), which is a task of its
  // own; the task after the GEMM waits for it. Step granularity: the same
  // per pair, the run's identical pairs merged (SidePair, flush_compute:
  // the pairs first, each GEMM after the previous pair's collective, the
  // run's other parts after the last); a run of pairs alone falls back to
  // one collective a kind from the run's start, beside its compute, which
  // the run's last task waits for (side_segment).
  void beside_collective(const Kernel& k, Phase phase, int layer, int mb);
  void side_segment(TaskId before);
  static void add_to_part(Part& part, const Kernel& k, PartKind kind);
  SidePair& side_pair(const std::string& key, PartKind kind);
  PartKind part_of(const Kernel& k) const;
  void start_with_run(TaskId base, TaskId before);

  // kStep: the step's tensor-parallel collectives of one kind become one
  // collective carrying their summed bytes, issued after the step's fused
  // compute on the same stream, which the judges time as the n calls it
  // stands for (Collective::parts: each call's latency and NCCL's choice at
  // the mean call's bytes; before 2026-12-06 the latency was paid once).
  void defer(const Kernel& k, Phase phase, int mb);
  static void defer_to(std::vector<Deferred>& list, const Kernel& k, Phase phase, int mb);
  static Kernel merged(const Deferred& d, const char* prefix);
  void emit_deferred();
  BufferId new_slot(const std::string& name, double bytes, MemoryCategory cat);
  std::vector<TaskId> data_collective(CollectiveKind kind, double bytes, const std::string& name,
                                      Phase phase, const std::string& reason,
                                      std::optional<DType> dtype = std::nullopt);

  struct Gathered {
    std::vector<TaskId> ids;
    BufferId slot = -1;
  };

  // ---- pipeline steps ---------------------------------------------------------
  std::vector<Block>& blocks_of(int chunk) { return chunks_[static_cast<size_t>(chunk)]; }
  double boundary_bytes() const { return s_.boundary_bytes; }

  void send(int vs_to, int mb, bool forward);
  void register_send(int key, TaskId base);

  // strategy.pipeline_engine deepspeed (DeepSpeed v0.5.8's PipelineEngine;
  // docs/costmodel.md "DeepSpeed's pipeline engine"): a step's output is sent
  // at the start of the stage's next step, 1/T of the boundary a rank; a
  // forward step receives first and then sends (the gradient), a backward
  // step sends (the activation) and then receives (schedule.py 205-219).
  // p2p.send/recv block both ends (p2p.py 48-86): a transfer starts when its
  // sender and its receiver have both reached it and the stage goes on when
  // it ends, as NCCL's send/recv rendezvous. The receiving stage's tensor
  // group all-gathers the parts back before its forward, and twice (the kept
  // output, the gradient) before its backward (engine.py 612-622, 703-724).
  struct DsSend {
    int vs_to = -1, mb = -1;
    bool forward = false;
  };
  std::optional<DsSend> ds_send_;
  TaskId ds_emit_send(int after_key);
  void receive(int key, bool forward, int mb);
  Kernel boundary_gather(const std::string& reason) const;
  void ds_exchange(int key, bool forward, int mb);
  void ds_ready_at(int key, TaskId ready);
  void forward_step(const PipelineStep& st);
  void amax_reduction(const PipelineStep& st, bool forward);
  void backward_step(const PipelineStep& st, bool completing, bool first);
  void recompute_block(const std::vector<Block>& blocks, const Block& blk, int mb);
  void gather(std::vector<Block>& blocks, size_t j, Phase phase, int mb);
  Gathered issue_gather(const Block& blk, Phase phase, int mb);
  void prefetch_next_step();
  // ZeRO-3 gathers ahead of their block only with strategy.overlap (the
  // closed form's zero3_exposure exposes every gather without it).
  bool zero3_prefetches() const { return s_.sc->strategy.overlap; }
  void take_prefetched();
  void use_gathered(size_t j);

  // ---- overlap_param_gather (ZeRO-1/2; lower_transformer_param_gather.cpp) -----
  struct ParamBucket {
    double bytes = 0;  // the 16-bit weights gathered
    size_t first = 0;  // the first block (forward order) using them
  };
  std::vector<ParamBucket> param_buckets(const std::vector<Block>& blocks) const;
  void aligned_param_gathers(const PipelineStep& st);
  void issue_chunk_gathers(int c, bool gated, int mb);
  void param_gather_chain(size_t j, int mb);
  std::vector<TaskId> issue_param_gather(double bytes, bool gated, int mb);

  void forward_block(std::vector<Block>& blocks, size_t j, const PipelineStep& st);
  void backward_block(std::vector<Block>& blocks, const std::vector<size_t>& order, size_t i,
                      const PipelineStep& st, bool completing, bool first, bool recomputed);

  // ---- gradient buckets (data parallel, ZeRO-1/2) ------------------------------
  struct Bucket {
    double bytes = 0;
    std::vector<std::string> groups;
    std::vector<BufferId> zero2_slots;
    TaskId producer = kNone;
  };
  static std::string group_key(const Block& blk, const ParamGroup& g);
  void grad_ready(const Block& blk, const ParamGroup& g);
  void close_bucket();
  void emit_bucket(const Bucket& bk, TaskId after);
  BufferId& saved_slot(int chunk, size_t j, int mb);

  ProgramBuilder& b_;
  Setup& s_;
  int p_;
  int R_ = 1;
  StageOut out_;
  std::vector<StreamId> pp_, cp_;
  double ring_bytes_ = 0;  // kStep: the pending run's context-ring bytes per rank
  std::vector<std::vector<Block>> chunks_;
  std::vector<std::vector<BufferId>> saved_;
  std::vector<Gathered> gathered_;
  // overlap_param_gather: each chunk's buckets (forward order), whether its
  // first forward has run, and the chain of the step in progress.
  std::vector<std::vector<ParamBucket>> pg_buckets_;
  std::vector<char> pg_done_;
  const std::vector<ParamBucket>* pg_ = nullptr;
  std::vector<std::vector<TaskId>> pg_ids_;
  int pg_chunk_ = 0;
  int pg_forwards_ = 0;  // forward steps emitted so far (the virtual micro-batch id)
  std::vector<std::vector<std::vector<TaskId>>> pg_chunk_ids_;  // interleaved: by chunk
  Gathered prefetched_;  // the next step's first block, gathered ahead
  size_t prefetched_index_ = 0;
  const PipelineStep* next_step_ = nullptr;
  std::map<std::string, BufferId> zero2_slots_;
  Pending pend_;
  std::vector<Deferred> deferred_;
  // training.tp_comm_overlap (beside_collective): the collective's base id
  // that the GEMM next added pairs with (kNone: none), the pending run's
  // beside collectives (kStep), and each rank's `tp` stream.
  TaskId beside_ = kNone;
  std::vector<Deferred> side_;
  // kStep: the beside collective waiting for the kernel it pairs with.
  std::optional<Kernel> side_next_;
  // FP8 delayed scaling's amax reduction of this stage's chunks (empty without it).
  cost::Fp8AmaxReduction amax_;
  Phase side_next_phase_ = Phase::kForward;
  int side_next_mb_ = -1;
  std::vector<StreamId> tp_;
  BufferId step_recompute_ = -1;  // fused modes: one buffer per step
  TaskId last_compute_ = kNone;
  Bucket bucket_;
  std::vector<Bucket> deferred_buckets_;
};

}  // namespace brigade::planner::detail
