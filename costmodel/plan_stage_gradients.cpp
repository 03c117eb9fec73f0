// A pipeline stage's gradient collectives once a step beside data
// parallelism's (costmodel/plan_stage.hpp, stage_gradients): the experts'
// over their expert-data group, the sequence-parallel and QK-norm ones over
// 'tensor', the tied embedding's over the first and last stages. Kept apart
// from the transformer judge's stage loop (plan_transformer.cpp), which
// calls it once a stage; the planner lowers the same collectives
// (planner/lower_transformer.cpp).
#include <vector>

#include "costmodel/plan_internal.hpp"
#include "costmodel/plan_stage.hpp"

namespace brigade::cost::detail {
namespace {

// The tied pair's group, kept per thread from plan to plan.
std::vector<int>& pair_scratch() {
  thread_local std::vector<int> pair;
  return pair;
}

}  // namespace

Status stage_gradients(const StageGradientInputs& in, std::vector<PricedCollective>& tp_priced,
                       StageGradientCarry& carry, CommLedger& ledger, double& per_step) {
  const Scenario& sc = in.sc;
  const StrategySpec& st = sc.strategy;
  const TransformerSpec& ts = sc.transformer;
  const int t = in.tensor, p = in.stages, i = in.stage;
  // One AllReduce over the stage's tensor group, priced on the stage's list.
  auto tensor_allreduce = [&](double bytes) {
    return price_on_stage(in.memo, tp_priced, in.tp_handle, CollectiveKind::kAllReduce,
                          CollectiveAlgorithm::kAuto, bytes, [&] {
                            return collective_seconds(sc.topology, sc.profile,
                                                      CollectiveKind::kAllReduce,
                                                      CollectiveAlgorithm::kAuto,
                                                      in.tensor_members(), bytes);
                          });
  };

  // Expert parallelism: the experts' gradients summed over the expert-data
  // group (the d/ep data ranks holding the same experts: data ranks j, j +
  // ep, ...), once per step after the backward, not bucketed (Megatron-Core
  // reduces them in buckets of their own; here one collective, exposed).
  // ZeRO-1 (the distributed optimizer) reduce-scatters them over that group
  // and, after each rank has updated its shard, all-gathers the updated
  // expert weights over it (exposed too, whatever overlap_param_gather).
  const int edg = in.data / in.expert;
  if (in.expert > 1 && edg > 1 && in.experts > 0) {
    const double bytes = in.experts * in.g_bytes;
    const std::vector<int>& edp = in.expert_data_members();
    if (st.zero >= 1) {
      BRIGADE_ASSIGN_OR_RETURN(double rs,
                               plan_collective(sc, CollectiveKind::kReduceScatter, edp, bytes));
      const double gathered = in.experts * in.e_bytes;
      BRIGADE_ASSIGN_OR_RETURN(double ag,
                               plan_collective(sc, CollectiveKind::kAllGather, edp, gathered));
      per_step += rs + ag;
      if (in.ledgers_on) {
        ledger.add("expert data", "reducescatter", edg, 1, bytes, rs, rs);
        ledger.add("expert data", "allgather", edg, 1, gathered, ag, ag);
      }
    } else {
      BRIGADE_ASSIGN_OR_RETURN(double one,
                               plan_collective(sc, CollectiveKind::kAllReduce, edp, bytes));
      per_step += one;
      if (in.ledgers_on) ledger.add("expert data", "allreduce", edg, 1, bytes, one, one);
    }
  }
  // Sequence parallelism: LayerNorm, bias and position-embedding gradients
  // are partial over the sequence shards; one AllReduce of them over the
  // tensor group per step, after the backward (on `dp`, before the optimizer).
  if (st.sequence_parallel && t > 1) {
    const double replicated =
        in.lay.sum([](const StageBlock& blk) { return blk.replicated_elements; });
    if (replicated > 0) {
      const double bytes = replicated * in.g_bytes;
      BRIGADE_ASSIGN_OR_RETURN(double one, tensor_allreduce(bytes));
      per_step += one;
      if (in.ledgers_on) ledger.add("sequence", "allreduce", t, 1, bytes, one, one);
    }
  }
  // QK-norm without sequence parallelism: each tensor rank's gains saw its
  // own heads; Megatron-Core sums their gradients over 'tensor' once a step
  // (finalize_model_grads, the q_layernorm and k_layernorm parameters; with
  // sequence parallelism they are among the replicated gradients above).
  if (!st.sequence_parallel && t > 1 && ts.qk_norm) {
    const double bytes = static_cast<double>(in.lay.layers()) *
                         in.templates.layer_figures.qk_norm_elements * in.g_bytes;
    if (bytes > 0) {
      BRIGADE_ASSIGN_OR_RETURN(double one, tensor_allreduce(bytes));
      per_step += one;
      if (in.ledgers_on) ledger.add("tensor", "allreduce", t, 1, bytes, one, one);
    }
  }
  // Tied word embeddings: the first and the last stage each hold a copy; the
  // copies' gradients are summed over the pair before the optimizer step,
  // after the stage's whole backward and the collectives above (Megatron-
  // Core's finalize_model_grads: _allreduce_layernorm_grads, then
  // _allreduce_embedding_grads), not when the word embedding's gradient is
  // complete.
  if (p > 1 && ts.tie_embeddings && (i == 0 || i == p - 1)) {
    const double bytes = in.templates.embedding_figures.group_elements[0] * in.g_bytes /
                         (st.zero >= 2 ? in.dg : 1);
    // The same pair and size for both stages: priced once.
    if (!carry.tied_seconds) {
      std::vector<int>& pair = pair_scratch();
      pair.assign({in.tied_pair.first, in.tied_pair.second});
      BRIGADE_ASSIGN_OR_RETURN(carry.tied_seconds,
                               collective_seconds(sc.topology, sc.profile,
                                                  CollectiveKind::kAllReduce,
                                                  CollectiveAlgorithm::kAuto, pair, bytes));
    }
    const double one = *carry.tied_seconds;
    per_step += one;
    if (in.ledgers_on) ledger.add("tied embedding", "allreduce", 2, 1, bytes, one, one);
  }
  return Status::ok();
}

}  // namespace brigade::cost::detail
