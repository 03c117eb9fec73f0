// A pipeline stage's sends per micro-batch as the closed form charges them
// (estimate_transformer's stage loop, costmodel/plan_transformer.cpp): by
// engine and by Megatron-LM's switches, into a stage's StageTimes (pp,
// send_next, send_previous, pp_blocking) and its communication ledger.
#pragma once

#include <cstdint>

#include "core/scenario.hpp"
#include "core/profile.hpp"
#include "core/topology.hpp"
#include "costmodel/plan_internal.hpp"
#include "costmodel/plan_memo.hpp"
#include "costmodel/plan_stage.hpp"

namespace brigade::cost::detail {

// What a stage's sends depend on, the same for every stage of a plan.
struct PipelineSends {
  int p = 1, v = 1, t = 1;
  std::int64_t m = 1;  // micro-batches a step
  bool training = true;
  bool ledgers_on = false;
  // strategy.pipeline_scatter_gather (scatter_gathers_boundary): each tensor
  // rank sends 1/t of the boundary and the receiver all-gathers it back.
  bool scatter_gather = false;
  // strategy.pipeline_blocking_sends (blocks_on_pipeline_sends): the sends
  // in the stage's own time, nothing beside its next step.
  bool blocking = false;
  // strategy.pipeline_engine deepspeed (training, p > 1).
  bool deepspeed = false;
  double boundary_bytes = 0;  // pipeline_boundary_bytes: the whole boundary tensor
  const RankMap* rm = nullptr;
  const Topology* topo = nullptr;
  const HardwareProfile* prof = nullptr;
  PlanMemo* memo = nullptr;  // routes' alpha and bandwidth, when a search keeps them

  // Stage i's sends and the receives' rebuilds per micro-batch into T:
  // DeepSpeed's all in the stage's time (pp_blocking); Megatron's beside the
  // next step (pp, with each one-way send in send_next / send_previous)
  // unless they block, its scatter-gather's AllGathers (T.ds_gather each)
  // in the stage's time. Adds the step's calls to `ledger` when ledgers_on.
  void charge(int i, StageTimes& T, CommLedger& ledger) const;
  // One Megatron-LM send of the boundary (as a tensor rank holds it) from
  // stage `from` to stage `to`.
  double send_seconds(int from, int to) const {
    return seconds(from, to, scatter_gather ? boundary_bytes / t : boundary_bytes);
  }

 private:
  double seconds(int from, int to, double bytes) const;
  double megatron(int i, CommLedger& ledger, double& one_next, double& one_previous) const;
  double scatter_gathers(int i, double gather, CommLedger& ledger) const;
  double deepspeed_sends(int i, double gather, CommLedger& ledger) const;
};

}  // namespace brigade::cost::detail
