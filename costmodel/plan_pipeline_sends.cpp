// A pipeline stage's sends per micro-batch (plan_pipeline_sends.hpp).
#include "costmodel/plan_pipeline_sends.hpp"

#include <optional>

#include "costmodel/collectives.hpp"

namespace brigade::cost::detail {

double PipelineSends::seconds(int from, int to, double bytes) const {
  const int src = rm->device(0, 0, from), dst = rm->device(0, 0, to);
  if (memo != nullptr) return p2p_seconds(bytes, memo->route_alpha_beta(src, dst));
  const Route& route = topo->route(src, dst);
  return p2p_seconds(bytes, AlphaBeta{route_alpha_seconds(route, *prof),
                                      route_bandwidth_bytes_per_second(route, *topo, *prof)});
}

// Megatron-LM's sends of stage i per micro-batch: each chunk's activations
// forward to the next virtual stage, gradients back to the previous one,
// the boundary tensor as each tensor-parallel rank holds it (1/t of it under
// the scatter-gather). Every chunk sends to the same two stages.
double PipelineSends::megatron(int i, CommLedger& ledger, double& one_next,
                               double& one_previous) const {
  one_next = 0, one_previous = 0;
  if (p == 1) return 0.0;
  std::optional<double> to_next, to_previous;
  double sends = 0, calls = 0;
  for (int c = 0; c < v; ++c) {
    const int vs = c * p + i;
    if (vs < p * v - 1) {
      if (!to_next) to_next = send_seconds(i, (vs + 1) % p);
      sends += *to_next, calls += 1;
    }
    if (training && vs > 0) {
      if (!to_previous) to_previous = send_seconds(i, (vs - 1 + p) % p);
      sends += *to_previous, calls += 1;
    }
  }
  const double md = static_cast<double>(m);
  if (ledgers_on)
    ledger.add("pipeline", "p2p", 2, calls * md,
               calls * md * (scatter_gather ? boundary_bytes / t : boundary_bytes), md * sends,
               blocking ? md * sends : sends);
  one_next = to_next.value_or(0.0), one_previous = to_previous.value_or(0.0);
  return sends;
}

// scatter_gather: the AllGather after each receive, in the stage's own
// time (StageTimes::pp_blocking): one a chunk whose virtual stage has one
// before it (the activation), and in training one a chunk with one after
// it (the gradient).
double PipelineSends::scatter_gathers(int i, double gather, CommLedger& ledger) const {
  if (!scatter_gather) return 0.0;
  double receives = 0;
  for (int c = 0; c < v; ++c) {
    const int vs = c * p + i;
    receives += vs > 0;
    if (training) receives += vs < p * v - 1;
  }
  const double md = static_cast<double>(m);
  if (ledgers_on)
    ledger.add("pipeline", "allgather", t, receives * md, receives * md * boundary_bytes,
               receives * md * gather, receives * md * gather);
  return receives * gather;
}

// strategy.pipeline_engine deepspeed (docs/costmodel.md "DeepSpeed's
// pipeline engine"; DeepSpeed v0.5.8): p2p.send/recv are blocking (p2p.py
// 48-86), a slot's receive and send run one after the other (schedule.py
// 205-219), so a middle stage's micro-batch waits for four transfers
// (activation in, gradient out, activation out, gradient in); each moves
// 1/t of the boundary tensor (engine.py 131-132, 634-655, 951-966) and the
// tensor group all-gathers it back once before the forward (612-622) and
// twice before the backward (the kept output and the received gradient,
// 703-724). All of it in the stage's own time (StageTimes::pp_blocking);
// nothing runs beside the next step (pp = 0).
double PipelineSends::deepspeed_sends(int i, double gather, CommLedger& ledger) const {
  const double part = t > 1 ? boundary_bytes / t : boundary_bytes;
  double sent = 0, waits = 0, sends = 0;
  int gathers = 0;
  if (i > 0) sent += seconds(i, i - 1, part), waits += seconds(i - 1, i, part), sends += 1, gathers += 1;
  if (i < p - 1) sent += seconds(i, i + 1, part), waits += seconds(i + 1, i, part), sends += 1, gathers += 2;
  if (t == 1) gathers = 0;
  const double md = static_cast<double>(m);
  if (ledgers_on) {
    ledger.add("pipeline", "p2p", 2, sends * md, sends * md * part, md * sent, md * (sent + waits));
    ledger.add("pipeline", "allgather", t, gathers * md, gathers * md * boundary_bytes,
               gathers * md * gather, gathers * md * gather);
  }
  return sent + waits + gathers * gather;
}

void PipelineSends::charge(int i, StageTimes& T, CommLedger& ledger) const {
  if (deepspeed) {
    T.pp = 0, T.send_next = 0, T.send_previous = 0;
    T.pp_blocking = deepspeed_sends(i, T.ds_gather, ledger);
    return;
  }
  T.pp = megatron(i, ledger, T.send_next, T.send_previous);
  T.pp_blocking = scatter_gathers(i, T.ds_gather, ledger);
  if (blocking) T.pp_blocking += T.pp, T.pp = 0;
}

}  // namespace brigade::cost::detail
