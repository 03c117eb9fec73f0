// Transformer lowering, the step: the scenario's setup and granularity, each
// pipeline stage emitted in order (lower_transformer_stage.cpp), then the
// finishing pass that joins them (the gradient sums outside the stages'
// buckets, then the tied embeddings', the optimizer, ZeRO-1/2's weight
// gather), built and described.
#include <string>
#include <vector>

#include "core/tr.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "planner/builders.hpp"
#include "planner/lower_internal.hpp"
#include "planner/lower_transformer_setup.hpp"
#include "planner/rank_map.hpp"

namespace brigade::planner::detail {

Result<Plan> lower_transformer(const Scenario& sc, const LowerOptions& options) {
  const StrategySpec& st = sc.strategy;
  Setup s;
  BRIGADE_RETURN_IF_ERROR(prepare_setup(sc, s));
  s.cancel = options.cancel;
  const int N = s.T * s.D * s.P;
  double kernel_tasks = 0, region_tasks = 0;
  const Granularity g = choose_granularity(s, options, &kernel_tasks, &region_tasks);
  s.fuse = g != Granularity::kKernel;
  s.fuse_collectives = g == Granularity::kStep;

  const int keys = s.V * s.m * 2;
  s.send_base.assign(static_cast<size_t>(keys), kNone);
  if (s.deepspeed) s.ds_ready.assign(static_cast<size_t>(keys), kNone);
  s.recv_base.assign(static_cast<size_t>(keys), kNone);
  s.recv_extra.assign(static_cast<size_t>(keys), {});
  s.recv_rank_extra.assign(static_cast<size_t>(keys), {});

  ProgramBuilder b(sc.name.empty() ? "transformer" : sc.name, N);
  std::vector<StageOut> stages;
  for (int p = 0; p < s.P; ++p) {
    if (cancel_requested(options.cancel)) return cancelled_status();
    BRIGADE_ASSIGN_OR_RETURN(StageOut out, emit_stage(b, s, p));
    stages.push_back(std::move(out));
    // Stages are alike (the same steps; the first and last add a block, the
    // finishing pass below adds the optimizer and data-parallel collectives):
    // room for all of them now, instead of regrowing arrays of hundreds of MB.
    // Err high: reserved pages are not touched until used, while a regrowth
    // copies the whole array into fresh memory (GPT-3 175B on 1024 GPUs needs
    // 1.11 x P x the first stage's tasks; docs/PERFORMANCE.md).
    if (p == 0 && s.P > 1) b.reserve_scaled(1.25 * s.P);
  }

  // The step as Megatron-LM runs it (costmodel/memory.hpp): its passes over
  // the rank's shard of the parameters and over its whole gradient buffer.
  const cost::OptimizerStepBytes traffic =
      sc.training.optimizer == Optimizer::kNone
          ? cost::OptimizerStepBytes{}
          : cost::megatron_optimizer_step_bytes(
                cost::optimizer_kind(sc.training.optimizer), s.dtype,
                sc.training.mixed_precision, sc.training.main_grad_fp32,
                cost::optimizer_layout(sc.training));
  // A stage's expert-data groups (data ranks j, j + ep, ...: the replicas
  // of the same experts), where it has experts to sum over them.
  const auto has_expert_groups = [&](const StageOut& so) {
    return s.EP > 1 && s.D / s.EP > 1 && so.expert_elements > 0;
  };
  const auto expert_group = [&](const StageOut& so, int j, std::vector<int>& group,
                                std::vector<StreamId>& streams) {
    for (int k = 0; k < s.D / s.EP; ++k) {
      const int r = k * s.EP + j;
      group.push_back(so.devices[static_cast<size_t>(r)]);
      streams.push_back(b.stream(so.devices[static_cast<size_t>(r)], "dp"));
    }
  };
  for (int p = 0; p < s.P && s.training; ++p) {
    StageOut& so = stages[static_cast<size_t>(p)];
    // Sequence parallelism: LayerNorm, bias and position-embedding gradients
    // are partial over the sequence shards; sum them over 'tensor'. Without
    // it, QK-norm's gains alone (each tensor rank's saw its own heads), as
    // Megatron-Core's finalize_model_grads does (the closed form's figure too).
    const bool qk_only = !st.sequence_parallel && sc.transformer.qk_norm;
    const double replicated = st.sequence_parallel ? so.replicated_elements
                              : qk_only            ? so.qk_norm_elements
                                                   : 0.0;
    if (s.T > 1 && replicated > 0) {
      for (int d = 0; d < s.D; ++d) {
        std::vector<StreamId> streams;
        for (int t = 0; t < s.T; ++t)
          streams.push_back(b.stream(so.devices[static_cast<size_t>(d * s.T + t)], "dp"));
        const CollectiveId c = b.add_collective(
            CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto, s.ranks->tensor_group(d, p),
            replicated * s.g, streams, qk_only ? "qk_norm.grads" : "sp.replicated_grads",
            Phase::kBackward,
            qk_only ? tr_text("Reasons",
                              "QK-norm: each tensor rank's query and key norms saw only its own "
                              "heads; sum their gains' gradients over 'tensor'")
                    : tr_text("Reasons",
                              "sequence parallel: LayerNorm, bias and position-embedding gradients "
                              "are partial over the sequence shards; psum over 'tensor'"));
        b.collective(c).dtype = s.grad_dtype;
        for (int t = 0; t < s.T; ++t) {
          const TaskId id = b.collective_task(c, t);
          if (so.final_compute != kNone) b.depend(id, so.final_compute + d * s.T + t);
          so.grad_sync[static_cast<size_t>(d * s.T + t)].push_back(id);
        }
      }
    }
    // Expert parallelism: the experts' gradients summed over the
    // expert-data group (data ranks j, j + ep, ...: the replicas of the same
    // experts), once after the backward (the closed form's figure too);
    // under ZeRO-1 reduce-scattered there, and the updated expert weights
    // all-gathered there after the optimizer step (below).
    const bool expert_groups = has_expert_groups(so);
    if (expert_groups) {
      for (int j = 0; j < s.EP; ++j) {
        std::vector<int> group;
        std::vector<StreamId> streams;
        expert_group(so, j, group, streams);
        const CollectiveId c = b.add_collective(
            s.zero >= 1 ? CollectiveKind::kReduceScatter : CollectiveKind::kAllReduce,
            st.algorithm, group, so.expert_elements * s.g, streams, "expert.grads",
            Phase::kBackward,
            fill_args(s.zero >= 1
                          ? tr_text("Reasons",
                                    "expert parallel, ZeRO-1: each expert lives on %1 data ranks; "
                                    "reduce-scatter its gradients over them, the expert-data "
                                    "group, each keeping the shard it updates")
                          : tr_text("Reasons",
                                    "expert parallel: each expert lives on %1 data ranks (one per "
                                    "expert-parallel group); sum its gradients over them, the "
                                    "expert-data group, not over 'data'"),
                      {std::to_string(s.D / s.EP)}));
        b.collective(c).dtype = s.grad_dtype;
        for (int k = 0; k < s.D / s.EP; ++k) {
          const int r = k * s.EP + j;
          const TaskId id = b.collective_task(c, k);
          if (so.final_compute != kNone) b.depend(id, so.final_compute + r);
          so.grad_sync[static_cast<size_t>(r)].push_back(id);
        }
      }
    }
  }
  // Tied embeddings: the first and the last stage each hold the word
  // embedding; Megatron-LM sums their gradients (an all-reduce over the
  // pair) before the optimizer step, once the stages' backwards are done
  // and after the collectives above (Megatron-Core's finalize_model_grads:
  // the data-parallel sync, the sequence-parallel gradients, then the
  // embedding's), not when the word embedding's gradient is complete.
  const double D = s.D;
  if (s.training && s.P > 1 && sc.transformer.tie_embeddings) {
    StageOut& first = stages.front();
    StageOut& last = stages.back();
    const double bytes = first.tied_elements * s.g / (s.zero >= 2 ? D : 1);
    for (int r = 0; r < s.T * s.D; ++r) {
      const std::vector<StreamId> streams = {b.stream(first.devices[static_cast<size_t>(r)], "dp"),
                                             b.stream(last.devices[static_cast<size_t>(r)], "dp")};
      const CollectiveId c = b.add_collective(
          CollectiveKind::kAllReduce, CollectiveAlgorithm::kAuto,
          {first.devices[static_cast<size_t>(r)], last.devices[static_cast<size_t>(r)]}, bytes,
          streams, "tied embedding", Phase::kBackward,
          tr_text("Reasons",
                  "tied word embeddings: the first and last pipeline stages each hold a copy; "
                  "sum their gradients"));
      b.collective(c).dtype = s.grad_dtype;
      if (first.final_compute != kNone) b.depend(b.collective_task(c, 0), first.final_compute + r);
      if (last.final_compute != kNone) b.depend(b.collective_task(c, 1), last.final_compute + r);
      first.grad_sync[static_cast<size_t>(r)].push_back(b.collective_task(c, 0));
      last.grad_sync[static_cast<size_t>(r)].push_back(b.collective_task(c, 1));
    }
  }
  for (int p = 0; p < s.P && s.training; ++p) {
    StageOut& so = stages[static_cast<size_t>(p)];
    const int R = s.T * s.D;
    if (sc.training.optimizer == Optimizer::kNone) continue;
    const bool expert_groups = has_expert_groups(so);
    // The step's bytes over the rank's shard of its state (the experts'
    // under ZeRO-1 over their expert-data group) and its gradient buffer;
    // FP8: the cast of the updated weights to their FP8 copies rides on the
    // step (Transformer Engine's first micro-batch casts them; the same
    // bytes), or with FP8 primary weights (training.fp8_param_gather) the
    // gathered weights' transposes and the master shard's amax
    // (cost::fp8_step_cast_bytes). The closed form's figure too.
    const double step_bytes =
        cost::optimizer_step_traffic(held_parameters(s, so), traffic, s.zero) +
        cost::fp8_step_cast_bytes(held_fp8_weights(s, so), s.e, sc.training.fp8_scaling,
                                  sc.training.fp8_param_gather, s.zero);
    const TaskId opt_base = b.num_tasks();
    for (int r = 0; r < R; ++r) {
      const TaskId id = b.add_memory_bound(so.compute[static_cast<size_t>(r)],
                                           step_bytes,
                                           DType::kF32, "optimizer",
                                           Phase::kOptimizer);
      for (TaskId on : so.grad_sync[static_cast<size_t>(r)]) b.depend(id, on);
    }
    // Expert parallelism under ZeRO-1: each expert-data rank updated its
    // shard of the experts; gather them over the expert-data group.
    if (expert_groups && s.zero >= 1) {
      for (int j = 0; j < s.EP; ++j) {
        std::vector<int> group;
        std::vector<StreamId> streams;
        expert_group(so, j, group, streams);
        const CollectiveId c = b.add_collective(
            CollectiveKind::kAllGather, st.algorithm, group, so.expert_elements * s.e, streams,
            "expert.param_gather", Phase::kOptimizer,
            fill_args(tr_text("Reasons",
                              "expert parallel, ZeRO-1: each of the expert's %1 data ranks "
                              "updated its shard; all-gather the new expert weights over them"),
                      {std::to_string(s.D / s.EP)}));
        b.collective(c).dtype = s.dtype;
        for (int k = 0; k < s.D / s.EP; ++k)
          b.depend(b.collective_task(c, k), opt_base + k * s.EP + j);
      }
    }
    // ZeRO-1/2: each replica updated its shard; gather the new 16-bit
    // weights over 'data', bucket by bucket (with overlap_param_gather, in
    // the step's first forward instead: lower_transformer_param_gather.cpp).
    if ((s.zero == 1 || s.zero == 2) && s.D > 1 && !param_gather_ahead(s)) {
      // Each bucket at the stage's weight bytes per gradient byte: e / g,
      // less with FP8 primary weights gathered in FP8 (the closed form's
      // mean too, plan_data_parallel.cpp).
      double gathered = s.e / s.g;
      const double elements = so.owned_elements - so.expert_elements;
      if (s.fp8_gather != s.e && elements > 0)
        gathered = (elements * s.e -
                    (so.fp8_weight_elements - so.fp8_expert_elements) * (s.e - s.fp8_gather)) /
                   (elements * s.g);
      for (size_t k = 0; k < so.buckets.size(); ++k) {
        for (int t = 0; t < s.T; ++t) {
          std::vector<StreamId> streams;
          std::vector<int> group = s.ranks->data_group(t, p);
          for (int dev : group) streams.push_back(b.stream(dev, "dp"));
          const CollectiveId c = b.add_collective(
              CollectiveKind::kAllGather, st.algorithm, group, so.buckets[k] * gathered, streams,
              "zero.param_gather", Phase::kOptimizer,
              fill_args(tr_text("Reasons",
                                "ZeRO-%1: each data replica updated only its 1/%2 of the "
                                "weights; all-gather the new weights over 'data' (the shared "
                                "platter), bucket by bucket"),
                        {std::to_string(s.zero), std::to_string(s.D)}));
          b.collective(c).dtype = s.dtype;
          for (int d = 0; d < s.D; ++d) b.depend(b.collective_task(c, d), opt_base + d * s.T + t);
        }
      }
    }
  }

  if (cancel_requested(options.cancel)) return cancelled_status();
  BRIGADE_ASSIGN_OR_RETURN(Program program, std::move(b).build());
  if (cancel_requested(options.cancel)) return cancelled_status();
  Plan plan;
  plan.program = std::move(program);
  describe_transformer(sc, s, g, kernel_tasks, region_tasks, plan);
  plan.flops_per_iteration = plan.program.total_flops();
  return plan;
}

}  // namespace brigade::planner::detail
