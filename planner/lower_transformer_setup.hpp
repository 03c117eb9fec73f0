// The transformer lowering's setup, shared by lower_transformer.cpp (the
// step), lower_transformer_stage.cpp, lower_transformer_param_gather.cpp and
// lower_transformer_side.cpp (one pipeline stage: StageEmitter,
// lower_transformer_stage_emitter.hpp) and
// lower_transformer_setup.cpp (the setup, and what `brigade explain` says of
// it); not a public interface.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "core/plan_check.hpp"
#include "core/program.hpp"
#include "core/scenario.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "planner/plan.hpp"
#include "planner/rank_map.hpp"

namespace brigade::planner::detail {

struct Setup {
  const Scenario* sc = nullptr;
  const std::atomic<bool>* cancel = nullptr;  // LowerOptions::cancel, polled per pipeline step
  int T = 1, D = 1, P = 1, v = 1, V = 1;  // V = P * v virtual stages
  // Context-parallel degree. D counts the replicas of the weights, data x C
  // (gradients and ZeRO shards span them, as Megatron-Core's data-parallel
  // group with context parallelism).
  int C = 1;
  int EP = 1;                             // expert-parallel degree (tensor 1 when > 1)
  std::vector<double> expert_loads;       // per expert-parallel rank (cost::expert_rank_loads)
  bool uneven_experts = false;            // some rank's load differs from another's
  int m = 1;                              // micro-batches per pipeline
  std::int64_t b = 1;                     // sequences per micro-batch
  // Each virtual stage's layers (core/plan_check.hpp, PipelineSplit: with
  // the embedding or the loss counted, a layer fewer at either end);
  // layers_per_chunk is every other chunk's.
  PipelineSplit split;
  std::int64_t layers_per_chunk = 0;
  // Block recomputation (cost::kept_layers_per_chunk): a chunk's last
  // kept_per_chunk layers run `layer_kept`, without recomputation; of a
  // chunk of n layers, cost::kept_layers_of(n, recompute_cap).
  std::int64_t kept_per_chunk = 0;
  std::int64_t recompute_cap = -1;
  bool training = true;
  bool fuse = false;              // kRegion, kStep: consecutive kernels become one task
  bool fuse_collectives = false;  // kStep: a step's tensor-parallel collectives merge per kind
  int zero = 0;
  double e = 2;
  DType dtype = DType::kBF16;
  // The gradients as kept and reduced over 'data': the weights' width and
  // dtype, or fp32 with Megatron-LM's main_grad (training.main_grad).
  double g = 2;
  DType grad_dtype = DType::kBF16;
  // An FP8 weight's bytes as gathered over 'data' (ZeRO-1/2): 1 with FP8
  // primary weights (training.fp8_param_gather: Megatron-Core's uint8
  // parameter buffer), else e.
  double fp8_gather = 2;
  BlockTemplate layer, embedding, head;
  BlockTemplate layer_kept;  // block recomputation's kept layers (empty otherwise)
  double boundary_bytes = 0;  // pipeline send per rank and micro-batch (cost::pipeline_boundary_bytes)
  // strategy.pipeline_engine deepspeed (training, P > 1): blocking sends on
  // the compute stream of ds_part_bytes (1/T of the boundary) a rank, and
  // AllGathers of the boundary over 'tensor' to rebuild it (lower_transformer_stage.cpp).
  bool deepspeed = false;
  double ds_part_bytes = 0;
  // strategy.pipeline_scatter_gather (Megatron-LM's, without sequence
  // parallelism, T > 1): each rank sends ds_part_bytes, the receiving
  // stage all-gathers the boundary over 'tensor' before it uses it.
  bool scatter_gather = false;
  // strategy.pipeline_blocking_sends (Megatron-LM's blocking exchanges): the
  // stage's next compute task waits for its own sends.
  bool blocking_sends = false;
  std::unique_ptr<RankMap> ranks;
  std::vector<TaskId> send_base, recv_base;  // pipeline transfers, by key
  // deepspeed: where the receiver of a key is ready for it (its rendezvous), by key (bases).
  std::vector<TaskId> ds_ready;
  // Context rings' transfers waiting for a pipeline receive, by key (bases).
  std::vector<std::vector<TaskId>> recv_extra;
  // Single tasks (rank r, task) that wait for the sends of a key, emitted
  // before or after (overlap_param_gather's gathers issued at a forward's
  // start: collective tasks, not one base per rank), by key.
  std::vector<std::vector<std::pair<int, TaskId>>> recv_rank_extra;
  int key(int vs, int mb, bool forward) const { return (vs * m + mb) * 2 + (forward ? 0 : 1); }
};

inline constexpr TaskId kNone = -1;

// strategy.overlap_param_gather in effect (Megatron-LM's
// --overlap-param-gather): ZeRO-1/2 over more than one data replica, with
// an optimizer and overlap on; the updated weights' gathers then run in the
// step's first forward (lower_transformer_param_gather.cpp) instead of after the
// optimizer (lower_transformer.cpp).
inline bool param_gather_ahead(const Setup& s) {
  const StrategySpec& st = s.sc->strategy;
  return s.training && s.D > 1 && (s.zero == 1 || s.zero == 2) && st.overlap &&
         st.overlap_param_gather && s.sc->training.optimizer != Optimizer::kNone;
}

// What one emitted stage hands to the finishing pass.
struct StageOut {
  std::vector<int> devices;  // by rank r = d*T + t
  std::vector<StreamId> compute, dp;
  std::vector<std::vector<TaskId>> grad_sync;  // per rank: collectives the optimizer waits for
  double tied_elements = 0;
  double replicated_elements = 0;  // not split over 'tensor' (LN, biases, positions)
  double owned_elements = 0;
  double expert_elements = 0;  // experts split over 'expert' (summed over the expert-data group)
  double fp8_weight_elements = 0;  // weights with FP8 copies (training.fp8; ParamTensor::fp8)
  double fp8_expert_elements = 0;  // of them, the experts'
  double qk_norm_elements = 0;     // the QK-norm gains (the "attn.qk_norm" groups)
  TaskId final_compute = kNone;
  std::vector<double> buckets;  // ZeRO-1/2: bytes of each gradient bucket
};

// The parameters a rank of the stage holds, and its FP8 weights, by the
// group their state shards over: the experts' over the expert-data group
// (D / EP ranks), the rest over D (cost::ShardedParameters, the closed
// form's split too).
inline cost::ShardedParameters held_parameters(const Setup& s, const StageOut& out) {
  return {out.owned_elements, s.EP > 1 ? out.expert_elements : 0.0, s.D, s.D / s.EP};
}
inline cost::ShardedParameters held_fp8_weights(const Setup& s, const StageOut& out) {
  return {out.fp8_weight_elements, s.EP > 1 ? out.fp8_expert_elements : 0.0, s.D, s.D / s.EP};
}

// A block of a stage's chunk as the stage emitter runs it.
struct Block {
  const BlockTemplate* tpl = nullptr;
  int layer = -1;                 // global layer index; -1 for the embedding and the head
  std::string label;              // "layer 5", "embedding", "head"
  std::vector<cost::ParamGroup> owned;  // what this device keeps (the head's tied copy included)
  double owned_elements = 0;
  double gather_elements = 0;  // ZeRO-3: parameters it needs whole while it computes
  int tied_group = -1;         // index in `owned` of the tied word embedding, if any
};

// Stage p's blocks, by chunk (its virtual stages c * P + p): the embedding on
// virtual stage 0, its layers, the head on the last; adds what the stage
// keeps (owned, replicated, expert, FP8 and tied elements) to `out`.
std::vector<std::vector<Block>> stage_blocks(const Setup& s, int p, StageOut& out);
// The stage's model states (parameters, gradients, optimizer state, FP8
// weight copies) as resident buffers on each of its T x D devices.
Status add_resident_buffers(ProgramBuilder& b, const Setup& s, const StageOut& out);

// Emits pipeline stage p's tasks for all its devices (lower_transformer_stage.cpp).
Result<StageOut> emit_stage(ProgramBuilder& b, Setup& s, int p);

// The lowering's setup: degrees, micro-batches, the block templates
// (costmodel/transformer_blocks.hpp) and the rank map. check_plan has run.
Status prepare_setup(const Scenario& sc, Setup& s);
// The finest granularity whose task count fits the budget (or the one asked
// for), and the task counts kernel and region granularity would give.
Granularity choose_granularity(const Setup& s, const LowerOptions& options, double* kernel_tasks_out,
                               double* region_tasks_out);
// What the plan is, in words and shapes (`brigade explain`), from the setup
// alone: the summary, the notes, each stage's view and each device's role.
void describe_transformer(const Scenario& sc, const Setup& s, Granularity g, double kernel_tasks,
                          double region_tasks, Plan& plan);

}  // namespace brigade::planner::detail
